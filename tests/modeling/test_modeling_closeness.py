"""The gap head's closeness features (spec §7b [C], sitar.closeness) on a tiny DeBERTa-v3: the head config,
the extra input and its shapes, growing a checkpoint's gap head with zero-initialised columns (the
outputs do not move), and the ONNX export: the ``gap_closeness`` input with dynamic axes, parity with
torch, the recorded feature version, and scoring with both backends."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from sitar.cgd import segment
from sitar.checkpoint import CheckpointConfig
from sitar.closeness import CLOSENESS_VERSION
from sitar.errors import InputError
from sitar.modeling import (
    HeadConfig,
    PairEncoder,
    build_regressor,
    export_checkpoint,
    grow_gap_closeness,
    load_regressor,
    load_tokenizer,
    save_regressor,
)
from sitar.modeling.model import add_gap_markers

PAIRS = [
    ("the lab results were collected on monday", "the lab results were connected on monday"),
    ("i need four copies by noon", "i need for copies by noon"),
    ("turn left at the bank", "turn right at the bank please"),
    ("call me later", "call me"),
    ("we will meet at three", "we will uh meet at nine"),
]


def _items(pairs=PAIRS):
    out = []
    for r, h in pairs:
        out.append((r, h, [(g.ref_span, g.hyp_span) for g in segment(r, h).gaps]))
    return out


@pytest.fixture(scope="module")
def gap_model(deberta_dir):
    """A tiny DeBERTa-v3 with a gap head (no closeness features) and its marked tokenizer."""
    torch.manual_seed(11)
    tokenizer = load_tokenizer(deberta_dir)
    model = build_regressor(str(deberta_dir), HeadConfig(gap_head=True, pooling="mean_max"))
    add_gap_markers(model, tokenizer)
    return model.eval(), tokenizer


def _batch(tokenizer, *, closeness=True, pairs=PAIRS):
    encoder = PairEncoder(tokenizer, max_length=128, closeness=closeness)
    encs = encoder.encode_marked(_items(pairs))
    names = ("input_ids", "attention_mask", "gap_index", "gap_closeness")
    arrays = encoder.collate(encs, names if closeness else names[:-1])
    return {k: torch.from_numpy(v) for k, v in arrays.items()}, encs


def test_head_config_field():
    with pytest.raises(InputError, match="gap_head"):
        HeadConfig(gap_closeness=True)
    head = HeadConfig(gap_head=True, gap_closeness=True)
    assert HeadConfig.from_dict(head.to_dict()) == head
    # A head config saved before the field existed loads without it.
    assert HeadConfig.from_dict({"pooling": "mean", "gap_head": True}).gap_closeness is False
    with pytest.raises(InputError, match="unknown head config"):
        HeadConfig.from_dict({"gap_closenes": True})


def test_inputs_and_shapes_with_and_without_the_features(gap_model, deberta_dir):
    model, tokenizer = gap_model
    h = int(model.backbone.config.hidden_size)
    assert model.input_names[-1] == "gap_index"
    assert model.gap_mlp is not None and model.gap_mlp[0].in_features == 7 * h
    torch.manual_seed(3)
    with_feats = build_regressor(
        str(deberta_dir), HeadConfig(gap_head=True, gap_closeness=True, pooling="mean_max")
    ).eval()
    add_gap_markers(with_feats, load_tokenizer(deberta_dir))
    assert with_feats.input_names[-2:] == ("gap_index", "gap_closeness")
    assert with_feats.gap_mlp is not None and with_feats.gap_mlp[0].in_features == 7 * h + 2
    feed, encs = _batch(tokenizer)
    assert feed["gap_closeness"].shape == (len(PAIRS), max(e.n_gaps for e in encs), 2)
    with torch.no_grad():
        score, ordinal, gap_logits = with_feats(**feed)
    assert score.shape == (len(PAIRS),) and ordinal.shape == (len(PAIRS), 6)
    assert gap_logits.shape == (*feed["gap_index"].shape[:2], 6)
    without = {k: v for k, v in feed.items() if k != "gap_closeness"}
    with pytest.raises(InputError, match="gap_closeness"):
        with_feats(**without)
    # The model without the features ignores them: its input names leave them out.
    with torch.no_grad():
        assert model(**without)[2].shape == gap_logits.shape


def test_grown_head_starts_with_the_old_outputs_and_then_reads_the_features(gap_model, tmp_path):
    old, tokenizer = gap_model
    feed, _ = _batch(tokenizer)
    without = {k: v for k, v in feed.items() if k != "gap_closeness"}
    with torch.no_grad():
        before = old(**without)
    grown = grow_gap_closeness(copy.deepcopy(old))
    assert grown.head_config.gap_closeness and grown.input_names[-1] == "gap_closeness"
    assert grown.gap_mlp is not None
    first = grown.gap_mlp[0]
    assert not first.weight[:, -2:].any()  # the new columns start at zero
    with torch.no_grad():
        after = grown(**feed)
    for a, b in zip(before, after, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-6)
    with pytest.raises(InputError, match="already"):
        grow_gap_closeness(grown)
    # Saved and loaded, the head keeps the input; once the new columns move, the features count.
    loaded = load_regressor(save_regressor(grown, tmp_path / "grown"))
    assert loaded.head_config.gap_closeness and loaded.input_names == grown.input_names
    assert loaded.gap_mlp is not None
    with torch.no_grad():
        loaded.gap_mlp[0].weight[:, -2:] = 0.5
        moved = loaded(**feed)[2]
        feed_zero = dict(feed, gap_closeness=torch.zeros_like(feed["gap_closeness"]))
        torch.testing.assert_close(loaded(**feed_zero)[2], after[2], rtol=0, atol=1e-6)
    assert not torch.allclose(moved, after[2])


def test_pair_head_model_cannot_grow(deberta_dir):
    model = build_regressor(str(deberta_dir))
    with pytest.raises(InputError, match="gap head"):
        grow_gap_closeness(model)


@pytest.fixture(scope="module")
def closeness_checkpoint(gap_model, deberta_dir, tmp_path_factory):
    old, tokenizer = gap_model
    model = grow_gap_closeness(copy.deepcopy(old))
    torch.manual_seed(5)
    with torch.no_grad():  # give the features weight, so that parity covers their path
        assert model.gap_mlp is not None
        model.gap_mlp[0].weight[:, -2:] = torch.randn(model.gap_mlp[0].out_features, 2)
    refs, hyps = zip(*PAIRS, strict=True)
    out = tmp_path_factory.mktemp("closeness") / "ckpt"
    config = export_checkpoint(
        model,
        tokenizer,
        out,
        name="tiny-closeness",
        backbone=str(deberta_dir),
        max_length=128,
        references=list(refs),
        hypotheses=list(hyps),
        variants=("fp32", "int8", "int8row"),
        default_variant="fp32",
    )
    return model, config


def _users_after_concat(graph, name):
    """Op types of the nodes reading the first Concat downstream of graph input ``name``."""
    frontier = {name}
    for _ in range(4):
        nodes = [n for n in graph.node if frontier & set(n.input)]
        concat = [n for n in nodes if n.op_type == "Concat"]
        if concat:
            return [n.op_type for n in graph.node if concat[0].output[0] in n.input]
        frontier = {o for n in nodes for o in n.output}
    raise AssertionError(f"no Concat reads {name}")


def test_export_records_the_input_and_the_feature_version(closeness_checkpoint):
    import json

    import onnx

    _, config = closeness_checkpoint
    assert config.onnx.inputs[-2:] == ("gap_index", "gap_closeness")
    assert config.extra["closeness"]["version"] == CLOSENESS_VERSION
    assert config.extra["head"]["gap_closeness"] is True
    assert config.folder is not None
    parity = json.loads((config.folder / "parity.json").read_text())
    assert parity["fp32"]["passed"] and parity["fp32"]["max_abs_diff_gap_logits"] < 1e-4
    for variant in ("model.onnx", "model.int8.onnx", "model.int8row.onnx"):
        graph = onnx.load(str(config.folder / variant)).graph
        (inp,) = [i for i in graph.input if i.name == "gap_closeness"]
        dims = inp.type.tensor_type.shape.dim
        assert [d.dim_param for d in dims[:2]] == ["batch", "gaps"] and dims[2].dim_value == 2
        assert inp.type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    # The gap head's first MatMul reads the features: fp32 in every graph (static int8 would give
    # them the activation scale of the hidden states).
    for variant in ("model.int8.onnx", "model.int8row.onnx"):
        graph = onnx.load(str(config.folder / variant)).graph
        assert _users_after_concat(graph, "gap_closeness") == ["MatMul"], variant
    assert parity["int8"]["quantization"]["exclude_patterns"] == ["/gap_mlp.0/"]
    CheckpointConfig.load(config.folder)  # verifies, integrity included


def test_the_closeness_section_is_covered_by_the_integrity_digest(closeness_checkpoint, tmp_path):
    import json
    import shutil

    from sitar.errors import CheckpointError

    _, config = closeness_checkpoint
    assert config.folder is not None
    copy_dir = tmp_path / "edited"
    shutil.copytree(config.folder, copy_dir)
    path = copy_dir / "sitar_config.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["closeness"]["version"] = "closeness-0"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CheckpointError, match="closeness"):
        CheckpointConfig.load(copy_dir)


def test_onnx_graph_matches_torch_on_other_batch_and_gap_counts(closeness_checkpoint):
    import onnxruntime as ort

    model, config = closeness_checkpoint
    assert config.folder is not None
    session = ort.InferenceSession(str(config.folder / "model.onnx"))
    encoder = PairEncoder(load_tokenizer(config.tokenizer_path), max_length=128, closeness=True)
    for pairs in (PAIRS[:1], PAIRS[2:], PAIRS):  # 1, 3 and 5 pairs; 1 to 3 gaps
        encs = encoder.encode_marked(_items(pairs))
        feed = encoder.collate(encs, model.input_names)
        got = dict(
            zip([o.name for o in session.get_outputs()], session.run(None, feed), strict=True)
        )
        with torch.no_grad():
            want = model(**{k: torch.from_numpy(v) for k, v in feed.items()})
        for name, value in zip(model.output_names, want, strict=True):
            np.testing.assert_allclose(got[name], value.numpy(), rtol=0, atol=1e-4)


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_scorer_feeds_the_features_and_signs_them(closeness_checkpoint, backend):
    from sitar.scorer import Scorer
    from sitar.signature import parse_signature

    _, config = closeness_checkpoint
    scorer = Scorer.load(
        config.folder, backend=backend, variant="fp32" if backend == "onnx" else None
    )
    assert scorer.encoder.closeness is True
    refs, hyps = zip(*PAIRS, strict=True)
    result = scorer.score(references=list(refs), hypotheses=list(hyps))
    assert parse_signature(result.signature)["feat"] == CLOSENESS_VERSION
    assert np.all(np.isfinite(result.raw))
    onnx_scores = Scorer.load(config.folder, variant="fp32").score(
        references=list(refs), hypotheses=list(hyps)
    )
    np.testing.assert_allclose(result.raw, onnx_scores.raw, atol=1e-4)
