"""Training with the gap closeness features (config key ``gap_closeness``, spec §7b [C]): the config
key, the encoded column and its batches, and fine-tuning a gap-head run without the features (their
weights start at zero), exported and scored with them."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sitar.closeness import CLOSENESS_VERSION, gap_closeness
from sitar.errors import InputError
from sitar.modeling import load_regressor, load_tokenizer
from sitar.records import Record
from training.config import TrainConfig
from training.data import collate, encode_records, read_record_file
from training.loop import train


def test_config_key_defaults_off_and_keeps_old_hashes():
    plain = TrainConfig(gap_head=True)
    assert plain.gap_closeness is False
    assert "gap_closeness" not in plain.to_dict()  # old configs keep their hash
    on = TrainConfig(gap_head=True, gap_closeness=True)
    assert on.to_dict()["gap_closeness"] is True and on.hash() != plain.hash()
    with pytest.raises(InputError, match="gap_head"):
        TrainConfig(gap_closeness=True)
    with pytest.raises(InputError, match="true or false"):
        TrainConfig(gap_head=True, gap_closeness="yes")  # type: ignore[arg-type]


def test_encoded_column_and_batches(tiny_backbone, records_file):
    from sitar.encoding import GapMarkers

    tokenizer = load_tokenizer(tiny_backbone)
    GapMarkers.add_to(tokenizer)
    records: list[Record] = [r for r in read_record_file(records_file) if r.gaps][:12]
    split = encode_records(records, tokenizer, max_length=64, gap_marked=True, gap_closeness=True)
    names = ("input_ids", "attention_mask", "gap_index", "gap_closeness")
    arrays = collate(split, list(range(len(records))), pad_id=0, input_names=names)
    g = arrays["gap_index"].shape[1]
    assert arrays["gap_closeness"].shape == (len(records), g, 2)
    assert arrays["gap_closeness"].dtype == np.float32
    for row, record in enumerate(records):
        spans = [
            (record.reference[slice(*gap["ref_span"])], record.hypothesis[slice(*gap["hyp_span"])])
            for gap in record.gaps
        ]
        n = len(spans)
        assert arrays["gap_closeness"][row, :n].tolist() == gap_closeness(spans).tolist()
        assert not arrays["gap_closeness"][row, n:].any()
    without = encode_records(records, tokenizer, max_length=64, gap_marked=True)
    assert "gap_closeness" not in without.dataset.column_names
    with pytest.raises(InputError, match="gap_closeness=True"):
        collate(without, [0, 1], pad_id=0, input_names=names)
    with pytest.raises(InputError, match="gap-marked"):
        encode_records(records, tokenizer, max_length=64, gap_closeness=True)


def _weights(run_dir):
    model = load_regressor(run_dir / "best")
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_fine_tune_a_gap_run_with_closeness_features(make_config, tmp_path):
    from sitar.checkpoint import CheckpointConfig
    from sitar.scorer import Scorer
    from sitar.signature import parse_signature
    from training.export import export_run

    first = train(make_config("first", gap_head=True, max_steps=2)).run_dir
    saved = _weights(first)
    # Zero learning rates: the second run's weights stay where they started.
    config = make_config(
        "second", gap_head=True, gap_closeness=True, init_from=str(first / "best"),
        learning_rate=0.0, head_learning_rate=0.0, max_steps=2,
    )  # fmt: skip
    second = train(config).run_dir
    got = _weights(second)
    assert got.keys() == saved.keys()
    key = "gap_mlp.0.weight"
    assert all(torch.equal(got[k], saved[k]) for k in saved if k != key)
    width = saved[key].shape[1]
    assert got[key].shape[1] == width + 2
    assert torch.equal(got[key][:, :width], saved[key]) and not got[key][:, width:].any()
    model = load_regressor(second / "best")
    assert model.head_config.gap_closeness and model.input_names[-1] == "gap_closeness"
    # A run without the features cannot start from heads that read them.
    with pytest.raises(InputError, match="reads gap closeness"):
        train(make_config("third", gap_head=True, init_from=str(second / "best"), max_steps=1))
    ckpt = export_run(
        second, tmp_path / "ckpt", parity_n=8, variants=("fp32",), default_variant="fp32"
    )
    assert isinstance(ckpt, CheckpointConfig)
    assert ckpt.extra["closeness"]["version"] == CLOSENESS_VERSION
    assert ckpt.onnx.inputs[-1] == "gap_closeness"
    scorer = Scorer.load(ckpt.folder)
    result = scorer.score(
        references=["the lab results were collected on monday"],
        hypotheses=["the lab results were connected on monday"],
    )
    assert parse_signature(result.signature)["feat"] == CLOSENESS_VERSION
