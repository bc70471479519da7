"""Build sitar's wheel from a source folder and install it alone in a fresh virtual environment
(the packaging and Dockerfile tests; a plain module with a unique name, importable from every
test folder because tests/packaging is on pytest's ``pythonpath`` in pyproject.toml)."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import venv
from pathlib import Path


def build_wheel(src: Path, out: Path) -> Path:
    """``pip wheel`` of the project in ``src`` (no deps, no build isolation) into ``out``; a
    failed build fails with pip's stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
         str(out), str(src)],
        cwd=src,
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (path,) = Path(out).glob("sitar-*.whl")
    return path


def install_wheel(wheel: Path, env_dir: Path, cwd: Path) -> tuple[Path, dict[str, str]]:
    """A fresh virtual environment with only ``wheel`` installed as sitar (no index, no deps);
    returns ``(bindir, env)``. Its dependencies (numpy, onnxruntime, tokenizers, ...) come from
    the test environment's site-packages, appended through a .pth file; the test environment's
    own .pth files (the editable sitar) are not processed that way, so only the wheel's sitar is
    importable. ``env`` is os.environ without PYTHONPATH."""
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "test_env.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
        # Not from the checkout, and without PYTHONPATH: a sitar found there would make pip think
        # sitar is installed already.
        cwd=cwd,
        env=env,
    )
    return bindir, env
