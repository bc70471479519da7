"""Row-wise dynamic int8 (variant ``int8row``,
:func:`sitar.modeling.quantize.quantize_rowwise_int8`): the rewrite computes exactly the documented arithmetic, a row's result never depends on the other
rows of the batch, down projections stay fp32, and an exported tiny model stays close to torch."""

from __future__ import annotations

import json

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

from sitar.modeling import build_regressor, export_checkpoint, load_tokenizer
from sitar.modeling.quantize import quantize_rowwise_int8
from sitar.modeling.tiny import sample_sentences
from sitar.scorer import Scorer
from sitar.signature import parse_signature

K, N = 48, 96


def _graph(path, w, bias, w_down):
    """x (B, T, K) -> x @ w + bias (B, T, N) -> @ w_down (N, K): an up and a down projection."""
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["mm"], name="/up/MatMul"),
        helper.make_node("Add", ["bias", "mm"], ["y"], name="/up/Add"),
        helper.make_node("MatMul", ["y", "w_down"], ["z"], name="/down/MatMul"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", "T", K])],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("z", TensorProto.FLOAT, None),
        ],
        [
            numpy_helper.from_array(w, "w"),
            numpy_helper.from_array(bias, "bias"),
            numpy_helper.from_array(w_down, "w_down"),
        ],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def _reference(x, w, bias, s):
    """The documented arithmetic in numpy: smoothing, per-row activations, per-column weights."""
    xs = x / s
    a_scale = np.maximum(np.abs(xs).max(axis=-1, keepdims=True), 1e-12) / 127
    q = np.round(xs / a_scale)
    ws = w * s[:, None]
    w_scale = np.abs(ws).max(axis=0) / 63  # 7-bit weights (ROWWISE_WEIGHT_MAX)
    w_q = np.clip(np.round(ws / w_scale), -63, 63)
    return (q @ w_q) * a_scale * w_scale + bias


@pytest.mark.parametrize("smooth", [None, 0.5])
def test_rewrite_matches_the_documented_arithmetic(tmp_path, smooth):
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((K, N)) * 0.1).astype(np.float32)
    bias = rng.standard_normal(N).astype(np.float32)
    w_down = (rng.standard_normal((N, K)) * 0.1).astype(np.float32)
    _graph(tmp_path / "f.onnx", w, bias, w_down)
    x = rng.standard_normal((4, 9, K)).astype(np.float32)
    x[..., 5] *= 20.0  # an outlier channel, as in LayerNorm outputs
    counts = quantize_rowwise_int8(
        tmp_path / "f.onnx", tmp_path / "q.onnx", [{"x": x}], smooth_alpha=smooth
    )
    assert counts["n_quantized"] == 1 and counts["n_fp32"] == 1  # the down projection stays fp32
    assert counts["smooth_alpha"] == smooth and counts["fp32_down_projections"] is True
    ops = [n.op_type for n in onnx.load(str(tmp_path / "q.onnx")).graph.node]
    assert ops.count("MatMulIntegerToFloat") == 1 and ops.count("MatMul") == 1
    session = ort.InferenceSession(str(tmp_path / "q.onnx"), providers=["CPUExecutionProvider"])
    y, z = session.run(["y", "z"], {"x": x})
    if smooth is None:
        s = np.ones(K, np.float32)
    else:
        w_max = np.abs(w).max(axis=1)
        s = np.abs(x).reshape(-1, K).max(axis=0) ** smooth / w_max ** (1 - smooth)
    want = _reference(x.astype(np.float64), w.astype(np.float64), bias, s.astype(np.float64))
    assert np.max(np.abs(y - want)) < 1e-3 * np.max(np.abs(want))
    exact = x @ w + bias
    assert np.max(np.abs(y - exact)) < 0.05 * np.max(np.abs(exact))  # int8 error, not a bug
    # One row alone, and the batch with other rows around it, give the same numbers.
    alone = session.run(["y"], {"x": x[2:3, 4:5]})[0]
    assert np.max(np.abs(alone[0, 0] - y[2, 4])) <= 1e-6
    assert np.allclose(z, y @ w_down, rtol=1e-4, atol=1e-4)


@pytest.fixture(scope="module")
def exported(bert_dir, tmp_path_factory):
    torch.manual_seed(5)
    model = build_regressor(str(bert_dir)).eval()
    refs = sample_sentences(24, seed=4, min_words=3, max_words=40)
    hyps = sample_sentences(24, seed=104, min_words=3, max_words=40)
    config = export_checkpoint(
        model, load_tokenizer(bert_dir), tmp_path_factory.mktemp("rowq") / "ckpt", name="x",
        backbone="b", max_length=128, references=refs, hypotheses=hyps,
        variants=("fp32", "int8row"), default_variant="int8row",
    )  # fmt: skip
    return model, config, refs, hyps


def test_export_records_the_variant_and_stays_close_to_torch(exported):
    model, config, refs, hyps = exported
    assert config.onnx.available == ("fp32", "int8row") and config.resolve_variant() == "int8row"
    assert (config.folder / "model.int8row.onnx").is_file()
    report = json.loads((config.folder / "parity.json").read_text())["int8row"]
    assert report["quantization"]["n_quantized"] > 0
    assert report["quantization"]["smooth_alpha"] == 0.5
    scorer = Scorer.load(config.folder, variant="int8row")
    assert parse_signature(scorer.signature)["onnx"] == "int8row"
    got = np.array(scorer.predictor.predict_raw(refs, hyps))
    with torch.no_grad():
        arrays = scorer.encoder.collate(scorer.encoder.encode(refs, hyps), model.input_names)
        want = model(**{k: torch.from_numpy(v) for k, v in arrays.items()})[0].numpy()
    spread = float(np.ptp(want))
    assert spread > 0
    # int8 drift on a random tiny model: small against the spread of its scores. A wrong scale
    # (e.g. a per-row scale applied to a fused bias) is off by far more than this.
    assert np.max(np.abs(got - want)) < 0.1 * spread + 1e-3
    assert np.corrcoef(got, want)[0, 1] > 0.95


def test_down_projections_can_be_quantized_too(tmp_path):
    rng = np.random.default_rng(4)
    w = (rng.standard_normal((K, N)) * 0.1).astype(np.float32)
    w_down = (rng.standard_normal((N, K)) * 0.1).astype(np.float32)
    _graph(tmp_path / "f.onnx", w, rng.standard_normal(N).astype(np.float32), w_down)
    x = rng.standard_normal((2, 5, K)).astype(np.float32)
    counts = quantize_rowwise_int8(
        tmp_path / "f.onnx", tmp_path / "q.onnx", [{"x": x}], fp32_down_projections=False
    )
    assert counts["n_quantized"] == 2 and counts["n_fp32"] == 0
    assert counts["fp32_down_projections"] is False  # the record states the setting used
    ops = [n.op_type for n in onnx.load(str(tmp_path / "q.onnx")).graph.node]
    assert ops.count("MatMulIntegerToFloat") == 2 and "MatMul" not in ops


@pytest.mark.parametrize(
    "name", ["quantize_int8", "quantize_static_int8", "quantize_rowwise_int8", "ROWWISE_PREFIX"]
)
def test_quantizer_names_moved_from_export_still_import_with_a_warning(name):
    import sitar.modeling.export as export
    import sitar.modeling.quantize as quantize

    with pytest.warns(DeprecationWarning, match=f"export.{name} moved to sitar.modeling.quantize"):
        old = getattr(export, name)
    assert old is getattr(quantize, name)
    with pytest.raises(AttributeError):
        export.no_such_name  # noqa: B018
