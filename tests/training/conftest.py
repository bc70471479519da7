"""Fixtures for training tests: a tiny offline DeBERTa-v3 backbone folder, synthetic record files
and a factory for small, fast training configs."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("accelerate")
pytest.importorskip("datasets")
pytest.importorskip("sentencepiece")


@pytest.fixture(scope="session", autouse=True)
def _offline_single_thread(torch_offline):
    """Every training test runs offline on one torch thread (tests/conftest.py)."""


@pytest.fixture(scope="session")
def tiny_backbone(tiny_backbones):
    """The tiny DeBERTa-v3 backbone folder (the shared ``tiny_backbones`` of tests/conftest.py)."""
    return tiny_backbones("deberta-v3")


@pytest.fixture(scope="session")
def records_file(tmp_path_factory):
    from sitar.modeling.tiny import synthetic_records
    from sitar.records import Record, write_records

    dicts = (
        synthetic_records(48, seed=0, split="train", id_prefix="tr")
        + synthetic_records(16, seed=1, split="validation", id_prefix="va")
        + synthetic_records(8, seed=2, split="test", id_prefix="te")
    )
    path = tmp_path_factory.mktemp("data") / "records.jsonl"
    write_records(path, [Record.from_dict(d) for d in dicts])
    return path


@pytest.fixture
def make_config(tiny_backbone, records_file, tmp_path):
    from training.config import load_config

    def make(run="run", **overrides):
        settings = {
            "backbone": str(tiny_backbone),
            "data": [str(records_file)],
            "output_dir": str(tmp_path / run),
            "max_length": 64,
            "batch_size": 8,
            "eval_batch_size": 16,
            "learning_rate": 1e-3,
            "head_learning_rate": 1e-3,
            "max_steps": 6,
            "eval_every": 2,
            "log_every": 1,
            "length_group_size": 2,
            "warmup_ratio": 0.2,
            "cpu": True,
            "precision": "fp32",
            "seed": 3,
        }
        settings.update(overrides)
        return load_config(None, [f"{k}={_yaml(v)}" for k, v in settings.items()])

    return make


def _yaml(value):
    if isinstance(value, list):
        return "[" + ", ".join(f"'{v}'" for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
