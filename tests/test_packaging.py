"""Packaging: a light import, and a wheel that works outside the checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (path,) = out.glob("sitar-*.whl")
    return path


def test_wheel_contents(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert "sitar" in tops
    # training/ and annotation/ are not installed as top-level modules, nor are tests.
    assert not tops & {"training", "annotation", "tests", "benchmarks"}
    assert "sitar/py.typed" in names


def test_wheel_installs_and_runs_outside_checkout(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    # System site packages provide numpy and lemminflect; the wheel itself goes in the venv.
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [str(bindir / "sitar"), "gaps", "--ref", "do not send it", "--hyp", "do send it", "--json"],
        capture_output=True,
        text=True,
        cwd=workdir,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["gaps"][0]["ref_text"] == "not"
    where = subprocess.run(
        [str(python), "-c", "import sitar; print(sitar.__file__)"],
        capture_output=True,
        text=True,
        cwd=workdir,
        env=env,
        check=True,
    ).stdout
    assert str(env_dir) in where


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
