"""Fixtures for sitar.modeling tests: tiny offline backbones (DeBERTa-v3 attention settings with a
SentencePiece tokenizer trained at test time, and BERT with WordPiece), built once per session."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("sentencepiece")


@pytest.fixture(scope="session", autouse=True)
def _offline_single_thread():
    """No hub access, and one intra-op thread: deterministic and fast on a shared 2-core box."""
    old_env = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    old_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old_threads)
    if old_env is None:
        os.environ.pop("HF_HUB_OFFLINE", None)
    else:
        os.environ["HF_HUB_OFFLINE"] = old_env


@pytest.fixture(scope="session")
def deberta_dir(tmp_path_factory):
    from sitar.modeling.tiny import write_tiny_backbone

    return write_tiny_backbone(tmp_path_factory.mktemp("deberta") / "backbone", "deberta-v3")


@pytest.fixture(scope="session")
def bert_dir(tmp_path_factory):
    from sitar.modeling.tiny import write_tiny_backbone

    return write_tiny_backbone(tmp_path_factory.mktemp("bert") / "backbone", "bert")


@pytest.fixture(params=["deberta-v3", "bert"])
def backbone_dir(request, deberta_dir, bert_dir):
    return deberta_dir if request.param == "deberta-v3" else bert_dir
