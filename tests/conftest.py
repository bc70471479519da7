"""Fixtures shared by every test folder.

``keyword_analyzer``: the deterministic stand-in analyzer (tests/reference/stub_analyzer.py).

``torch_offline``, ``tiny_backbones``: the one shared torch fixture. ``tiny_backbones(kind)`` is the
folder of a tiny random backbone from ``sitar.modeling.tiny.write_tiny_backbone`` (``"deberta-v3"``
or ``"bert"``), built at most once per session whichever test folder asks first (tests/modeling,
tests/training), so a run of both builds each backbone once. Tests only read these folders: they
build a fresh model from one (``build_regressor(str(folder))``) or pass it as a backbone name, and
never write into it. Both fixtures skip when torch (or transformers/sentencepiece) is missing; torch
is imported only when a test asks for them, so the core tests stay torch-free.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from stub_analyzer import KeywordAnalyzer


@pytest.fixture
def keyword_analyzer():
    return KeywordAnalyzer()


@pytest.fixture(scope="session")
def torch_offline() -> Iterator[None]:
    """No hub access, and one intra-op thread: deterministic and fast on a shared 2-core box."""
    torch = pytest.importorskip("torch")
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
def tiny_backbones(tmp_path_factory, torch_offline) -> Callable[[str], Path]:
    """``tiny_backbones(kind) -> Path``: the tiny random backbone folder of ``kind``, built once."""
    pytest.importorskip("transformers")
    pytest.importorskip("sentencepiece")
    from sitar.modeling.tiny import write_tiny_backbone

    built: dict[str, Path] = {}

    def get(kind: str) -> Path:
        if kind not in built:
            folder = tmp_path_factory.mktemp(f"tiny-{kind}") / "backbone"
            built[kind] = write_tiny_backbone(folder, kind)
        return built[kind]

    return get
