"""Fixtures for training tests: a tiny offline DeBERTa-v3 backbone folder, synthetic record files
and a factory for small, fast training configs."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("accelerate")
pytest.importorskip("datasets")
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
def tiny_backbone(tmp_path_factory):
    from sitar.modeling.tiny import write_tiny_backbone

    return write_tiny_backbone(tmp_path_factory.mktemp("tiny") / "backbone", "deberta-v3")


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
