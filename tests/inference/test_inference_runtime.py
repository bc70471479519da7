"""OnnxPredictor and PairEncoder on the tiny committed checkpoint: pinned raw scores, order
restoration after length sorting, no truncation, graph/config agreement."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from tiny_pairs import HYPS, REFS

from sitar.checkpoint import CONFIG_FILE, CheckpointConfig
from sitar.errors import CheckpointError, InputError
from sitar.runtime import OnnxPredictor, PairEncoder, length_sorted_batches

# Pinned outputs of tests/fixtures/make_tiny_onnx.py (seed 20261129); onnxruntime 1.32 on CPU.
RAW_FP32 = [1.4728679656982422, 1.0991986989974976, -0.025998950004577637, 1.0158178806304932,
            2.4131150245666504]  # fmt: skip
RAW_INT8 = [1.518349289894104, 1.0607891082763672, -0.021305441856384277, 1.0224477052688599,
            2.4164071083068848]  # fmt: skip


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    from pathlib import Path

    return CheckpointConfig.load(Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx")


@pytest.mark.parametrize(("variant", "expected"), [("fp32", RAW_FP32), ("int8", RAW_INT8)])
def test_pinned_raw_scores(config, variant, expected):
    predictor = OnnxPredictor(config, variant=variant, threads=1)
    assert predictor.variant == variant
    raw = predictor.predict_raw(REFS, HYPS)
    assert raw.shape == (5,)
    np.testing.assert_allclose(raw, expected, atol=1e-5)


def test_ordinal_logits(config):
    pred = OnnxPredictor(config, variant="fp32").predict(REFS, HYPS, ordinal=True)
    assert pred.ordinal_logits.shape == (5, 6)
    np.testing.assert_allclose(pred.raw, RAW_FP32, atol=1e-5)


@pytest.mark.parametrize("batch_size", [1, 2, 3, 64])
def test_order_restored_after_length_sorting(config, batch_size):
    predictor = OnnxPredictor(config, variant="fp32")
    rng = random.Random(7)
    words = "the a cat dog sat on mat call send invoice friday monday doctor table noon".split()
    refs = [" ".join(rng.choices(words, k=rng.randint(0, 25))) for _ in range(23)]
    hyps = [" ".join(rng.choices(words, k=rng.randint(0, 25))) for _ in range(23)]
    one_by_one = np.array(
        [predictor.predict_raw([r], [h])[0] for r, h in zip(refs, hyps, strict=True)]
    )
    batched = predictor.predict_raw(refs, hyps, batch_size=batch_size)
    # Padding must not change a pair's score (masked pooling), and order must be the input order.
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)
    perm = list(range(23))
    rng.shuffle(perm)
    shuffled = predictor.predict_raw([refs[i] for i in perm], [hyps[i] for i in perm], batch_size)
    np.testing.assert_allclose(shuffled, batched[perm], atol=1e-5)


def test_length_sorted_batches():
    batches = length_sorted_batches([3, 9, 1, 9, 5], 2)
    assert [b.tolist() for b in batches] == [[1, 3], [4, 0], [2]]
    with pytest.raises(InputError, match="batch_size"):
        length_sorted_batches([1], 0)


def test_too_long_is_an_error_not_truncated(config):
    predictor = OnnxPredictor(config, variant="fp32")
    long_ref = "the cat sat on the mat " * 20
    with pytest.raises(InputError, match="max_length 64"):
        predictor.predict_raw([long_ref], ["the cat"])


def test_encoder_ignores_truncation_in_tokenizer_file(tmp_path, config):
    data = json.loads(config.tokenizer_path.read_text())
    data["truncation"] = {
        "direction": "Right", "max_length": 5, "strategy": "LongestFirst", "stride": 0
    }  # fmt: skip
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data))
    encoder = PairEncoder(path, max_length=64)
    assert encoder.pair_length("the cat sat on the mat", "the dog sat") == 12
    assert encoder.lengths(["the cat"], ["a dog"]) == [7]


def test_encoder_pads_with_mask(config):
    encoder = PairEncoder(config.tokenizer_path, max_length=64)
    arrays = encoder.collate(
        encoder.encode(["the cat sat", "a"], ["the dog", "b"]),
        ("input_ids", "attention_mask", "token_type_ids"),
    )
    assert arrays["input_ids"].shape == (2, 8)
    assert arrays["input_ids"].dtype == np.int64
    assert arrays["attention_mask"].tolist() == [[1] * 8, [1] * 5 + [0] * 3]
    assert arrays["token_type_ids"][0].tolist() == [0, 0, 0, 0, 0, 1, 1, 1]


def test_encoder_checks_pairs(config):
    encoder = PairEncoder(config.tokenizer_path, max_length=64)
    with pytest.raises(InputError, match="1 references and 2 hypotheses"):
        encoder.encode(["a"], ["b", "c"])
    with pytest.raises(InputError, match=r"hypotheses\[0\] must be a str"):
        encoder.encode(["a"], [None])


def _copy_config(tiny_copy, change):
    path = tiny_copy / CONFIG_FILE
    data = json.loads(path.read_text())
    # A hand-edited config no longer matches its recorded digests; these tests check what comes
    # after the integrity check (tests/core/test_integrity.py covers it), so they drop them.
    data.pop("integrity", None)
    change(data)
    path.write_text(json.dumps(data))
    return CheckpointConfig.load(tiny_copy)


def test_graph_input_mismatch(tiny_copy):
    # The config promises token_type_ids, the graph does not take it (optimum #491).
    config = _copy_config(
        tiny_copy,
        lambda d: d["onnx"].update(inputs=["input_ids", "attention_mask", "token_type_ids"]),
    )
    with pytest.raises(CheckpointError, match="takes inputs"):
        OnnxPredictor(config, variant="fp32")


def test_graph_output_mismatch(tiny_copy):
    config = _copy_config(tiny_copy, lambda d: d["onnx"].update(outputs=["score", "logits"]))
    with pytest.raises(CheckpointError, match="logits"):
        OnnxPredictor(config, variant="fp32")


def test_corrupt_graph_and_tokenizer(tiny_copy):
    # Corrupted after loading (the integrity check at load time would refuse it first).
    config = CheckpointConfig.load(tiny_copy)
    (tiny_copy / "model.onnx").write_bytes(b"not an onnx file")
    with pytest.raises(CheckpointError, match="cannot load ONNX graph"):
        OnnxPredictor(config, variant="fp32")
    (tiny_copy / "tokenizer.json").write_text("{}")
    with pytest.raises(CheckpointError, match="cannot load tokenizer"):
        OnnxPredictor(config, variant="int8")


def test_threads_validated(config):
    with pytest.raises(InputError, match="threads"):
        OnnxPredictor(config, threads=0)
