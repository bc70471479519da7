"""Shared fixtures for the torch-free inference tests (tiny committed ONNX checkpoint)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx"


class StubAnalyzer:
    """Deterministic analyzer for windowing tests: no token is a predicate, so consolidation
    depends only on fragments and boundaries, not on the lexicon rules."""

    id = "stub-test"

    def predicates(self, text, tokens):
        return frozenset()


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    # Every inference test runs offline; hub lookups must hit only the (empty) local cache.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def tiny_dir() -> Path:
    return TINY


@pytest.fixture
def tiny_copy(tmp_path) -> Path:
    """A writable copy of the tiny checkpoint, for corruption tests."""
    dst = tmp_path / "ckpt"
    shutil.copytree(TINY, dst)
    return dst


@pytest.fixture(scope="session")
def scorer_fp32():
    from sitar.scorer import Scorer

    return Scorer.load(TINY, variant="fp32", analyzer=StubAnalyzer())


@pytest.fixture(scope="session")
def scorer_int8():
    from sitar.scorer import Scorer

    return Scorer.load(TINY, variant="int8", analyzer=StubAnalyzer())


@pytest.fixture
def stub_analyzer() -> StubAnalyzer:
    return StubAnalyzer()
