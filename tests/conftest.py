from __future__ import annotations

import os
import site
import subprocess
import venv
from pathlib import Path

import pytest
from stub_analyzer import KeywordAnalyzer


@pytest.fixture
def keyword_analyzer():
    return KeywordAnalyzer()


@pytest.fixture
def install_wheel():
    """``install_wheel(wheel, env_dir, cwd) -> (bindir, env)``: a fresh virtual environment with
    only ``wheel`` installed as sitar (no index, no deps). Its dependencies (numpy, onnxruntime,
    tokenizers, ...) come from the test environment's site-packages, appended through a .pth
    file; the test environment's own .pth files (the editable sitar) are not processed that way,
    so only the wheel's sitar is importable. ``env`` is os.environ without PYTHONPATH."""

    def install(wheel: Path, env_dir: Path, cwd: Path) -> tuple[Path, dict[str, str]]:
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
            # Not from the checkout, and without PYTHONPATH: a sitar found there would make pip
            # think sitar is installed already.
            cwd=cwd,
            env=env,
        )
        return bindir, env

    return install
