"""CheckpointConfig: loading, validation errors that name the problem, atomic save, round trip."""

from __future__ import annotations

import json

import pytest

from sitar.checkpoint import (
    CHECKPOINT_SCHEMA,
    CONFIG_FILE,
    CheckpointConfig,
    OnnxConfig,
)
from sitar.errors import CheckpointError


def _edit(folder, change):
    path = folder / CONFIG_FILE
    data = json.loads(path.read_text())
    # A hand-edited config no longer matches its recorded digests; these tests check what comes
    # after the integrity check (tests/core/test_integrity.py covers it), so they drop them.
    data.pop("integrity", None)
    change(data)
    path.write_text(json.dumps(data))


def test_load_fixture(tiny_dir):
    config = CheckpointConfig.load(tiny_dir)
    assert config.name == "sitar-tiny-test"
    assert config.max_length == 64
    assert config.onnx.inputs == ("input_ids", "attention_mask")
    assert config.onnx.available == ("fp32", "int8")
    assert config.resolve_variant() == "int8"
    assert config.onnx_path("fp32") == tiny_dir / "model.onnx"
    assert config.tokenizer_path == tiny_dir / "tokenizer.json"
    assert config.rho == 0.5
    assert config.training["seed"] == 20261129


def test_round_trip_preserves_unknown_keys(tiny_copy, tmp_path):
    _edit(tiny_copy, lambda d: d.update(custom={"a": [1, 2]}) or d["onnx"].update(note="x"))
    config = CheckpointConfig.load(tiny_copy)
    assert config.extra == {"custom": {"a": [1, 2]}}
    saved = config.save(tmp_path / "out")
    assert saved.folder == tmp_path / "out"
    again = json.loads((tmp_path / "out" / CONFIG_FILE).read_text())
    assert again == json.loads((tiny_copy / CONFIG_FILE).read_text())
    assert again["onnx"]["note"] == "x"
    # Only the config is written; no temporary files stay behind.
    assert [p.name for p in (tmp_path / "out").iterdir()] == [CONFIG_FILE]


def test_hand_built_config_is_validated_and_normalised(tmp_path):
    config = CheckpointConfig(
        name="x",
        backbone="b",
        max_length=128,
        onnx={"files": {"fp32": "model.onnx"}, "inputs": ["input_ids"], "outputs": ["score"]},
    )
    assert isinstance(config.onnx, OnnxConfig)
    assert config.resolve_variant() == "fp32"
    assert config.to_dict()["schema"] == CHECKPOINT_SCHEMA
    with pytest.raises(CheckpointError, match="max_length"):
        CheckpointConfig(name="x", backbone="b", max_length=2)
    with pytest.raises(CheckpointError, match="rho"):
        CheckpointConfig(name="x", backbone="b", max_length=64, rho=1.5)
    with pytest.raises(CheckpointError, match="has no folder"):
        _ = config.tokenizer_path


def test_missing_config(tmp_path):
    with pytest.raises(CheckpointError, match="sitar_config.json is missing"):
        CheckpointConfig.load(tmp_path)
    with pytest.raises(CheckpointError, match="does not exist"):
        CheckpointConfig.load(tmp_path / "nope")


def test_invalid_json(tiny_copy):
    (tiny_copy / CONFIG_FILE).write_text("{not json")
    with pytest.raises(CheckpointError, match="cannot read"):
        CheckpointConfig.load(tiny_copy)


@pytest.mark.parametrize("key", ["name", "max_length", "onnx", "tokenizer", "schema"])
def test_missing_key_is_named(tiny_copy, key):
    _edit(tiny_copy, lambda d: d.pop(key))
    with pytest.raises(CheckpointError, match=f"missing required key\\(s\\) {key}"):
        CheckpointConfig.load(tiny_copy)


def test_missing_onnx_key_is_named(tiny_copy):
    _edit(tiny_copy, lambda d: d["onnx"].pop("inputs"))
    with pytest.raises(CheckpointError, match="onnx.inputs"):
        CheckpointConfig.load(tiny_copy)


def test_wrong_schema(tiny_copy):
    _edit(tiny_copy, lambda d: d.update(schema="sitar.checkpoint/2"))
    with pytest.raises(CheckpointError, match="sitar.checkpoint/2"):
        CheckpointConfig.load(tiny_copy)


@pytest.mark.parametrize(
    ("filename", "key"),
    [("model.int8.onnx", "onnx.files.int8"), ("tokenizer.json", "tokenizer")],
)
def test_missing_file_is_named(tiny_copy, filename, key):
    (tiny_copy / filename).unlink()
    with pytest.raises(CheckpointError, match=f"'{key}' names '{filename}'"):
        CheckpointConfig.load(tiny_copy)
    assert CheckpointConfig.load(tiny_copy, check_files=False).name == "sitar-tiny-test"


def test_default_variant_without_file(tiny_copy):
    _edit(tiny_copy, lambda d: d["onnx"]["files"].update(int8=None))
    with pytest.raises(CheckpointError, match="onnx.default"):
        CheckpointConfig.load(tiny_copy)


def test_unknown_variant_and_inputs(tiny_copy):
    config = CheckpointConfig.load(tiny_copy)
    with pytest.raises(CheckpointError, match="unknown ONNX variant"):
        config.resolve_variant("fp16")
    _edit(tiny_copy, lambda d: d["onnx"].update(inputs=["input_ids", "pixel_values"]))
    with pytest.raises(CheckpointError, match="onnx.inputs"):
        CheckpointConfig.load(tiny_copy)


def test_paths_must_stay_inside_folder(tiny_copy):
    _edit(tiny_copy, lambda d: d.update(tokenizer="../tokenizer.json"))
    with pytest.raises(CheckpointError, match="relative to the checkpoint folder"):
        CheckpointConfig.load(tiny_copy)
