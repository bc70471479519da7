"""Packaging: a light import, and a wheel that works outside the checkout."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from wheel_helpers import build_wheel, install_wheel

from sitar.checkpoint import DEFAULT_CHECKPOINT

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "transformers", "onnxruntime", "tokenizers", "lemminflect", "spacy", "httpx")


def test_import_is_light():
    """`import sitar` (and the CLI module) must not load torch, transformers, onnxruntime, ..."""
    code = (
        "import sys, json, sitar, sitar.cli, sitar.io, sitar.records;"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert json.loads(out) == []


def test_public_api_all_is_strings():
    import sitar

    assert all(isinstance(name, str) for name in sitar.__all__)
    for name in sitar.__all__:
        assert hasattr(sitar, name), name


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel of a clean copy of the project's files: building in the checkout itself would
    pick up whatever an earlier build left in its ignored ``build/`` folder (setuptools copies
    into ``build/lib`` and never deletes there), such as a graph since dropped from the
    checkpoint."""
    import shutil

    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in ("sitar", "checkpoints"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    return build_wheel(src, tmp_path_factory.mktemp("wheel"))


def test_package_list_names_every_subpackage():
    """pyproject.toml lists the packages explicitly (for the checkpoints mapping); a new
    subpackage that is not listed would be missing from wheels."""
    tomllib = pytest.importorskip("tomllib")
    setuptools_cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]
    found = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "sitar").rglob("__init__.py")
    }
    listed = set(setuptools_cfg["packages"])
    assert listed == found | {"sitar.checkpoints_data"}
    assert setuptools_cfg["package-dir"] == {"sitar.checkpoints_data": "checkpoints"}


def test_wheel_contents(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert "sitar" in tops
    # training/ and annotation/ are not installed as top-level modules, nor are tests.
    assert not tops & {"training", "annotation", "tests", "benchmarks", "checkpoints"}
    assert "sitar/py.typed" in names
    # modules split out at their seams (issue #29) travel too, with the old integrity entry point
    for module in (
        "sitar/comparison.py",
        "sitar/modeling/quantize.py",
        "sitar/analyzers/lexicon_words.py",
        "sitar/commands/checkpoint.py",
        "sitar/integrity/__main__.py",
    ):
        assert module in names, module
    # the HTML report's templates (package data)
    for name in ("report.html.j2", "report.css", "report.js"):
        assert f"sitar/templates/{name}" in names, name
    # the shipped default checkpoint, every file its config names
    shipped = ROOT / "checkpoints" / DEFAULT_CHECKPOINT
    config = json.loads((shipped / "sitar_config.json").read_text(encoding="utf-8"))
    wanted = [
        "sitar_config.json",
        config["tokenizer"],
        *filter(None, config["onnx"]["files"].values()),
    ]
    for name in wanted:
        assert f"sitar/checkpoints_data/{DEFAULT_CHECKPOINT}/{name}" in names, name
    # no stray graphs: only the files the config names (a dropped variant stays dropped) ...
    graphs = {n.rsplit("/", 1)[1] for n in names if n.endswith(".onnx")}
    assert graphs == set(filter(None, config["onnx"]["files"].values()))
    # ... and the wheel fits PyPI's default upload limit of 100 MB per file
    assert Path(wheel).stat().st_size < 100 * 1000 * 1000
    # the Apache-2.0 LICENSE travels in the wheel, and the metadata names it as an SPDX id
    licenses = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert licenses, names
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "License-Expression: Apache-2.0" in text


def test_wheel_installs_and_runs_outside_checkout(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    bindir, env = install_wheel(wheel, env_dir, tmp_path)
    python = bindir / "python"
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, capture_output=True, text=True, cwd=workdir, env=env, check=False
        )

    sitar_cli = str(bindir / "sitar")
    proc = run(sitar_cli, "gaps", "--ref", "do not send it", "--hyp", "do send it", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["gaps"][0]["ref_text"] == "not"
    proc = run(str(python), "-c", "import sitar; print(sitar.__file__)")
    assert str(env_dir) in proc.stdout, proc.stderr
    # the default checkpoint is the installed copy, and `sitar score` works with no --checkpoint
    code = "from sitar.checkpoint import default_checkpoint_path as p; print(p())"
    found = run(str(python), "-c", code).stdout.strip()
    assert found.startswith(str(env_dir)) and found.endswith(DEFAULT_CHECKPOINT)
    proc = run(sitar_cli, "score", "--ref", "do not send it", "--hyp", "do send it")
    assert proc.returncode == 0, proc.stderr
    assert f"ckpt:{DEFAULT_CHECKPOINT}@" in proc.stdout.splitlines()[0]
    # the installed default checkpoint verifies against its recorded digests
    proc = run(sitar_cli, "checkpoint", "verify", found)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{found}: {DEFAULT_CHECKPOINT}@")
    assert "-unverified" not in proc.stdout


def test_default_analyzer_does_not_load_spacy_or_torch():
    """lemminflect imports spaCy (and through it often torch) when spaCy is installed; the lexicon
    analyzer hides that hook, so segmenting stays light even in a full dev environment."""
    code = (
        "import sys, json, sitar;"
        "seg = sitar.segment('we search the files', 'we searched the file');"
        f"print(json.dumps([len(seg.gaps), [m for m in {HEAVY!r} if m in sys.modules]]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    n_gaps, loaded = json.loads(out)
    assert n_gaps >= 1
    assert set(loaded) <= {"lemminflect"}


def test_project_files_agree_with_the_package() -> None:
    """CITATION.cff names the package version; the changelog has an Unreleased section and the
    released version; the pre-commit configuration is valid (when pre-commit is installed)."""
    import shutil

    import yaml

    root = Path(__file__).resolve().parents[2]
    from sitar import __version__

    cff = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and str(cff["version"]) == __version__
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog and f"## [{__version__}]" in changelog
    exe = shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed (it is in the dev extra)")
    done = subprocess.run(
        [exe, "validate-config", str(root / ".pre-commit-config.yaml")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_plain_install_stays_small() -> None:
    """The plain install needs at most 24 other packages (issue #32: <= 25 with sitar itself);
    everything else is an extra. Read from the declared requirements and their installed
    metadata, so no network is used."""
    from importlib import metadata

    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = [r for r in (metadata.requires("sitar") or []) if "extra ==" not in r]
    while todo:
        req = Requirement(todo.pop())
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = req.name.lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        try:
            todo += [r for r in (metadata.requires(req.name) or [])]
        except metadata.PackageNotFoundError:
            continue
    assert len(seen) <= 24, sorted(seen)
