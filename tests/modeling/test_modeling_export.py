"""ONNX export of tiny DeBERTa-v3 and BERT regressors: the checkpoint folder, parity beyond 128
tokens, the int8 drift report, input names, and the torch predictor on the exported folder."""

from __future__ import annotations

import json

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from sitar.checkpoint import CheckpointConfig
from sitar.errors import InputError
from sitar.modeling import (
    HeadConfig,
    PairEncoder,
    ParityError,
    TorchPredictor,
    build_regressor,
    export_checkpoint,
    load_tokenizer,
)
from sitar.modeling.tiny import sample_sentences

MAX_LENGTH = 512


def _pairs(n, seed, max_words=150):
    refs = sample_sentences(n, seed=seed, min_words=3, max_words=max_words)
    hyps = sample_sentences(n, seed=seed + 100, min_words=3, max_words=max_words)
    return refs, hyps


@pytest.fixture(scope="module", params=["deberta-v3", "bert"])
def exported(request, deberta_dir, bert_dir, tmp_path_factory):
    backbone = deberta_dir if request.param == "deberta-v3" else bert_dir
    torch.manual_seed(7)
    model = build_regressor(str(backbone)).eval()
    tokenizer = load_tokenizer(backbone)
    refs, hyps = _pairs(12, seed=5)
    refs.append(" ".join(["meeting"] * 150))  # at least one pair far beyond 128 tokens
    hyps.append(" ".join(["three"] * 140))
    out = tmp_path_factory.mktemp(f"ckpt-{request.param}") / "ckpt"
    config = export_checkpoint(
        model,
        tokenizer,
        out,
        name=f"tiny-{request.param}",
        backbone=str(backbone),
        max_length=MAX_LENGTH,
        references=refs,
        hypotheses=hyps,
        loss_weights={"boundary": 1.0, "ordinal": 0.5},
        training_config_hash="sha256:" + "0" * 64,
    )
    return request.param, model, tokenizer, config


def test_folder_follows_the_contract(exported):
    kind, _, _, config = exported
    folder = config.folder
    for name in ("sitar_config.json", "tokenizer.json", "model.onnx", "model.int8.onnx"):
        assert (folder / name).is_file(), name
    assert (folder / "torch" / "config.json").is_file()
    assert (folder / "torch" / "model.safetensors").is_file()
    loaded = CheckpointConfig.load(folder)
    assert loaded.name == f"tiny-{kind}" and loaded.max_length == MAX_LENGTH
    assert loaded.onnx.opset == 17 and loaded.onnx.outputs == ("score", "ordinal_logits")
    assert loaded.onnx.default == "int8"
    assert loaded.loss_weights == {"boundary": 1.0, "ordinal": 0.5}
    assert loaded.thresholds == pytest.approx((1 / 3, 2 / 3, 1, 4 / 3, 5 / 3, 2))
    assert loaded.extra["pad_token_id"] == load_tokenizer(folder / "tokenizer.json").token_to_id(
        "[PAD]"
    )
    raw = json.loads((folder / "sitar_config.json").read_text())
    assert raw["schema"] == "sitar.checkpoint/1" and raw["sitar_version"]


def test_graph_inputs_match_the_config(exported):
    kind, _, _, config = exported
    expected = ["input_ids", "attention_mask"] + (["token_type_ids"] if kind == "bert" else [])
    assert list(config.onnx.inputs) == expected
    for variant in ("fp32", "int8"):
        session = ort.InferenceSession(str(config.onnx_path(variant)))
        assert [i.name for i in session.get_inputs()] == expected
        assert [o.name for o in session.get_outputs()] == ["score", "ordinal_logits"]


def test_parity_report_holds_real_numbers(exported):
    _, _, _, config = exported
    report = json.loads((config.folder / "parity.json").read_text())
    assert report["tokens_max"] > 128
    assert report["fp32"]["passed"] and report["fp32"]["max_abs_diff_score"] < 1e-4
    int8 = report["int8"]
    for key in ("max_abs_diff_score", "mean_abs_diff_score", "max_abs_diff_ordinal_logits"):
        assert np.isfinite(int8[key]) and int8[key] > 0  # measured drift, not a placeholder
    assert int8["mean_abs_diff_score"] <= int8["max_abs_diff_score"]
    assert -1.0 <= int8["spearman_vs_fp32"] <= 1.0


def test_onnx_matches_torch_at_300_tokens(exported):
    _, model, tokenizer, config = exported
    enc = PairEncoder(tokenizer, max_length=MAX_LENGTH)
    refs, hyps = _pairs(3, seed=11, max_words=10)
    refs.append(" ".join(["the meeting is at three"] * 30))  # 150 words
    hyps.append(" ".join(["the meeting is at four"] * 30))
    items = enc.encode(references=refs, hypotheses=hyps)
    assert 300 <= max(len(e) for e in items) <= MAX_LENGTH
    session = ort.InferenceSession(str(config.onnx_path("fp32")))
    # A padded batch, and the longest pair alone (no padding, batch of one).
    for batch in (items, items[-1:]):
        feed = enc.collate(batch, model.input_names)
        with torch.no_grad():
            t_score, t_logits = model(**{k: torch.from_numpy(v) for k, v in feed.items()})
        o_score, o_logits = session.run(["score", "ordinal_logits"], feed)
        assert np.max(np.abs(o_score - t_score.numpy())) < 1e-4
        assert np.max(np.abs(o_logits - t_logits.numpy())) < 1e-4


def test_torch_predictor_reads_the_checkpoint(exported):
    _, model, tokenizer, config = exported
    predictor = TorchPredictor(config.folder, device="cpu")
    refs, hyps = _pairs(7, seed=21, max_words=40)
    raw = predictor.predict_raw(refs, hyps, batch_size=3)
    ordinal = predictor.predict_ordinal(refs, hyps, batch_size=3)
    assert raw.shape == (7,) and ordinal.shape == (7, 6)
    # Length-sorted batching restores the input order: compare with one pair at a time.
    single = np.array(
        [predictor.predict_raw([r], [h], batch_size=1)[0] for r, h in zip(refs, hyps, strict=True)]
    )
    assert np.allclose(raw, single, atol=1e-5)
    session = ort.InferenceSession(str(config.onnx_path("fp32")))
    enc = PairEncoder(tokenizer, max_length=MAX_LENGTH)
    feed = enc.collate(enc.encode(references=refs, hypotheses=hyps), model.input_names)
    assert np.allclose(session.run(["score"], feed)[0], raw, atol=1e-4)
    with pytest.raises(InputError, match="max_length"):
        predictor.predict_raw([" ".join(["meeting"] * 600)], ["x"], batch_size=1)


def test_mean_max_pooling_exports_with_parity(deberta_dir, tmp_path):
    torch.manual_seed(4)
    model = build_regressor(str(deberta_dir), HeadConfig(pooling="mean_max")).eval()
    refs, hyps = _pairs(6, seed=3, max_words=40)
    config = export_checkpoint(
        model, load_tokenizer(deberta_dir), tmp_path / "ckpt", name="x", backbone="b",
        max_length=MAX_LENGTH, references=refs, hypotheses=hyps, variants=("fp32",),
    )  # fmt: skip
    parity = json.loads((config.folder / "parity.json").read_text())
    assert parity["fp32"]["max_abs_diff_score"] < 1e-3
    # Batched ONNX (with padding) equals torch pair by pair.
    session = ort.InferenceSession(str(config.folder / "model.onnx"))
    enc = PairEncoder(load_tokenizer(deberta_dir), max_length=MAX_LENGTH)
    arrays = enc.collate(enc.encode(references=refs, hypotheses=hyps), model.input_names)
    got = session.run(None, arrays)[0].reshape(-1)
    with torch.no_grad():
        want = model(**{k: torch.from_numpy(v) for k, v in arrays.items()})[0].numpy()
    assert np.allclose(got, want, atol=1e-4)


def test_failed_parity_leaves_nothing_behind(deberta_dir, tmp_path):
    model = build_regressor(str(deberta_dir)).eval()
    refs, hyps = _pairs(3, seed=1, max_words=8)
    with pytest.raises(ParityError, match="does not match torch"):
        export_checkpoint(
            model,
            load_tokenizer(deberta_dir),
            tmp_path / "ckpt",
            name="x",
            backbone="b",
            max_length=64,
            references=refs,
            hypotheses=hyps,
            variants=("fp32",),
            parity_atol=-1.0,  # impossible tolerance: forces the failure path
        )
    assert list(tmp_path.iterdir()) == []


def test_int8_only_export_and_existing_folder(deberta_dir, tmp_path):
    model = build_regressor(str(deberta_dir)).eval()
    refs, hyps = _pairs(3, seed=2, max_words=8)
    kwargs = dict(
        name="x", backbone="b", max_length=64, references=refs, hypotheses=hyps, variants=("int8",)
    )
    config = export_checkpoint(
        model, load_tokenizer(deberta_dir), tmp_path / "c", int8_exclude=("key_proj",), **kwargs
    )
    assert config.onnx.available == ("int8",) and not (config.folder / "model.onnx").exists()
    assert config.resolve_variant() == "int8"
    # Excluded MatMuls stay float MatMul nodes; the others become integer MatMuls.
    quant = json.loads((config.folder / "parity.json").read_text())["int8"]["quantization"]
    assert quant["exclude_patterns"] == ["key_proj"] and quant["n_nodes_excluded"] > 0
    graph = onnx.load(str(config.folder / "model.int8.onnx")).graph
    float_mm = {n.name for n in graph.node if n.op_type == "MatMul"}
    assert any(name.endswith("/key_proj/MatMul") for name in float_mm)
    assert not any(name.endswith("/query_proj/MatMul") for name in float_mm)
    assert any(n.op_type == "MatMulInteger" for n in graph.node)
    with pytest.raises(InputError, match="already exists"):
        export_checkpoint(model, load_tokenizer(deberta_dir), tmp_path / "c", **kwargs)


def test_encode_pairs_keeps_only_the_pairs_that_fit(bert_dir):
    """Parity and calibration pairs are never truncated: a pair longer than ``max_length`` is
    left out (plain encodings are built untruncated), the others are kept in order."""
    from sitar.modeling.parity import encode_pairs

    encoder = PairEncoder(load_tokenizer(bert_dir), max_length=32)
    refs = ["the meeting is at three", " ".join(["meeting"] * 60), "send it today"]
    hyps = ["the meeting is at four", " ".join(["three"] * 60), "send it tomorrow"]
    kept = encode_pairs(encoder, refs, hyps, gap_aware=False)
    assert len(kept) == 2
    assert all(len(e) <= 32 for e in kept)
    assert [len(e) for e in kept] == [len(e) for e in encoder.encode(refs[::2], hyps[::2])]
