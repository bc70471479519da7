"""Fixtures for sitar.modeling tests: tiny offline backbones (DeBERTa-v3 attention settings with a
SentencePiece tokenizer trained at test time, and BERT with WordPiece), built once per session by
the shared ``tiny_backbones`` fixture of tests/conftest.py."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("sentencepiece")


@pytest.fixture(scope="session", autouse=True)
def _offline_single_thread(torch_offline):
    """Every modeling test runs offline on one torch thread (tests/conftest.py)."""


@pytest.fixture(scope="session")
def deberta_dir(tiny_backbones):
    return tiny_backbones("deberta-v3")


@pytest.fixture(scope="session")
def bert_dir(tiny_backbones):
    return tiny_backbones("bert")


@pytest.fixture(params=["deberta-v3", "bert"])
def backbone_dir(request, deberta_dir, bert_dir):
    return deberta_dir if request.param == "deberta-v3" else bert_dir
