"""The Dockerfile, checked without Docker (no daemon or base-image registry on CI machines).

The image is emulated step by step from the Dockerfile's own text: the build context holds only
what its ``COPY`` lines name, the package is built there and installed outside it (the
Dockerfile deletes ``/src`` after ``pip install``), and the ``ENTRYPOINT`` runs from another
directory with the ``ENV`` settings, a free port appended the way ``docker run IMAGE --port N``
appends ``CMD`` arguments. Then the ``HEALTHCHECK`` command must pass, a pair must score with the
default checkpoint, and SIGTERM must end the server after a graceful shutdown (exit status 143). Not covered: the base image itself,
``useradd`` and running as the unprivileged user.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")
pytest.importorskip("prometheus_client")
httpx = pytest.importorskip("httpx")

from serve_helpers import free_port  # noqa: E402
from wheel_helpers import build_wheel, install_wheel  # noqa: E402

from sitar.checkpoint import DEFAULT_CHECKPOINT  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def instructions(text: str) -> list[tuple[str, str]]:
    """``(KEYWORD, arguments)`` of each Dockerfile instruction (continuations joined, comments
    dropped)."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1].rstrip() + " "
            continue
        full = (pending + stripped).strip()
        pending = ""
        keyword, _, rest = full.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    assert not pending, "Dockerfile ends inside a continued line"
    return out


def env_settings(args: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in shlex.split(args))


def test_instruction_parser():
    text = "# c\nFROM x\nENV A=1 \\\n    B=two\nRUN a \\\n  && b\n\nCMD []\n"
    assert instructions(text) == [
        ("FROM", "x"),
        ("ENV", "A=1 B=two"),
        ("RUN", "a && b"),
        ("CMD", "[]"),
    ]
    with pytest.raises(AssertionError):
        instructions("RUN a \\\n")


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    return instructions((ROOT / "Dockerfile").read_text(encoding="utf-8"))


def test_dockerfile_runs_unprivileged_and_binds_inside_container(dockerfile):
    users = [a for k, a in dockerfile if k == "USER"]
    assert users and users[-1] not in ("root", "0"), users
    (entry,) = [json.loads(a) for k, a in dockerfile if k == "ENTRYPOINT"]
    assert entry[:2] == ["sitar", "serve"]
    assert "HF_HUB_OFFLINE" in {k for key, a in dockerfile if key == "ENV" for k in env_settings(a)}


def test_image_emulated_from_dockerfile(dockerfile, tmp_path):
    # 1. The build context: exactly what the COPY lines name (the .dockerignore excludes more).
    src = tmp_path / "src"
    src.mkdir()
    copies = [shlex.split(a) for k, a in dockerfile if k == "COPY"]
    assert copies
    for *sources, dest in copies:
        for name in sources:
            target = src / dest / name if dest.endswith("/") or len(sources) > 1 else src / dest
            origin = ROOT / name
            assert origin.exists(), f"the Dockerfile copies {name}, which is not in the repo"
            if origin.is_dir():
                shutil.copytree(
                    origin, target, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
                )
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, target)
    (install,) = [a for k, a in dockerfile if k == "RUN" and "pip install" in a]
    spec = shlex.split(install)[shlex.split(install).index("install") + 1]
    assert spec.startswith(".["), spec  # the package from /src, with its extras
    wheel = build_wheel(src, tmp_path / "wheels")
    names = zipfile.ZipFile(wheel).namelist()
    # The licence travels in the image's package, and so does the default checkpoint.
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "LICENSE not copied"
    assert any(n.startswith(f"sitar/checkpoints_data/{DEFAULT_CHECKPOINT}/") for n in names)
    shutil.rmtree(src)  # as the Dockerfile does after installing

    # 2. Installed into a fresh environment; dependencies from the test environment (.pth).
    bindir, env = install_wheel(wheel, tmp_path / "venv", tmp_path)
    for key, args in dockerfile:
        if key == "ENV":
            env.update(env_settings(args))
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"

    # 3. The entrypoint, from the image's working directory, with CMD-style arguments appended.
    home = tmp_path / "home"
    home.mkdir()
    (entry,) = [json.loads(a) for k, a in dockerfile if k == "ENTRYPOINT"]
    port = free_port()
    argv = [*entry, "--host", "127.0.0.1", "--port", str(port)]
    log = open(tmp_path / "serve.log", "w", encoding="utf-8")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=home, env=env)
    try:
        url = f"http://127.0.0.1:{port}"
        (check,) = [a for k, a in dockerfile if k == "HEALTHCHECK"]
        health = shlex.split(check.split(" CMD ", 1)[1])
        assert health[0] == "python" and "/readyz" in health[-1]
        health[-1] = health[-1].replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()
            if subprocess.run(health, cwd=home, env=env, capture_output=True).returncode == 0:
                break
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.5)
        r = httpx.post(
            f"{url}/v1/score",
            json={"references": ["do not send it"], "hypotheses": ["do send it"]},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        body = r.json()
        assert f"ckpt:{DEFAULT_CHECKPOINT}@" in body["signature"]
        assert len(body["scores"]) == 1 and body["scores"][0] > 0.5
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # docker stop
        try:
            code = proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        log.close()
    # A graceful drain after SIGTERM (docker stop) exits 0 (issue #30; what the serve tests
    # expect too).
    log_text = (tmp_path / "serve.log").read_text()
    assert code == 0 and "Application shutdown complete" in log_text, log_text
