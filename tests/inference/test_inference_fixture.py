"""The committed tiny ONNX checkpoint is what tests/fixtures/make_tiny_onnx.py builds (seeded)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.slow  # needs the `onnx` package; serialisation may differ across onnx/tokenizers versions
def test_fixture_is_regenerable(tmp_path):
    pytest.importorskip("onnx")
    out = tmp_path / "tiny"
    subprocess.run(
        [sys.executable, str(FIXTURES / "make_tiny_onnx.py"), "--out", str(out)],
        check=True,
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(FIXTURES.parents[1])},  # this checkout's sitar
    )
    # int8 quantisation output depends on the onnxruntime version, so only these are compared.
    for name in ("model.onnx", "tokenizer.json", "sitar_config.json"):
        assert (out / name).read_bytes() == (FIXTURES / "tiny_onnx" / name).read_bytes(), name
    assert (out / "model.int8.onnx").is_file()


def test_fixture_is_small():
    total = sum(p.stat().st_size for p in (FIXTURES / "tiny_onnx").iterdir())
    assert total < 200_000
