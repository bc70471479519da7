"""Int8 quantisation of exported fp32 ONNX graphs: the three quantisers of an export.

* :func:`quantize_int8`: ONNX Runtime's dynamic int8 (:data:`QUANTIZATION`), the ``int8`` graph
  of a pair-head model;
* :func:`quantize_static_int8`: ONNX Runtime's static QDQ int8 (:data:`STATIC_QUANTIZATION`),
  the ``int8`` graph of a gap-aware model (fixed activation scales: batch-invariant);
* :func:`quantize_rowwise_int8`: SITAR's row-wise dynamic int8 rewrite
  (:data:`ROWWISE_QUANTIZATION`), the ``int8row`` graph (batch-invariant, scales computed in the
  graph per token row).

Each is an ONNX -> ONNX file transform; :mod:`sitar.modeling.export` calls them and records their
settings and drift in ``parity.json``. (These names lived in :mod:`sitar.modeling.export` before;
importing them from there still works, with a ``DeprecationWarning``.)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitar.errors import InputError, MissingDependencyError

__all__ = [
    "QUANTIZATION",
    "ROWWISE_PREFIX",
    "ROWWISE_QUANTIZATION",
    "ROWWISE_WEIGHT_MAX",
    "STATIC_QUANTIZATION",
    "quantize_int8",
    "quantize_rowwise_int8",
    "quantize_static_int8",
]


def _ort() -> Any:
    try:
        import onnxruntime
    except ImportError as e:
        raise MissingDependencyError("onnxruntime", "int8 calibration", "torch") from e
    return onnxruntime


#: Settings of the dynamic int8 quantization, recorded in parity.json.
QUANTIZATION: dict[str, Any] = {
    "method": "onnxruntime.quantization.quantize_dynamic",
    "weight_type": "QInt8",
    "per_channel": True,
    # The MatMuls carry the compute; the embedding Gathers carry the size (MiniLM-L6: 47 MB of its
    # 90 MB are the word embeddings). On a MiniLM SITAR checkpoint, quantizing the Gathers too took
    # the int8 file from 58.8 MB to 23.0 MB, at the same drift: Spearman against fp32 0.9922
    # (MatMul only: 0.9923) on 600 synthetic test pairs.
    "op_types_to_quantize": ["MatMul", "Gather"],
}


def quantize_int8(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    exclude: Sequence[str] = (),
) -> list[str]:
    """Dynamic int8 quantization of an fp32 graph (see :data:`QUANTIZATION`).

    ``exclude`` holds substrings of node names (e.g. ``"/key/"``, ``"/output/dense/"``) whose
    MatMuls stay fp32, trading speed for accuracy. Returns the names of the excluded nodes.
    """
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as e:
        raise MissingDependencyError("onnxruntime", "int8 quantization", "torch") from e
    excluded: list[str] = []
    if exclude:
        graph = onnx.load(str(src), load_external_data=False).graph
        excluded = [n.name for n in graph.node if any(p in n.name for p in exclude)]
    quantize_dynamic(
        str(src),
        str(dst),
        weight_type=QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=list(QUANTIZATION["op_types_to_quantize"]),
        nodes_to_exclude=excluded,
    )
    return excluded


#: Settings of the static int8 quantization of gap-aware graphs, recorded in parity.json: fixed
#: activation scales calibrated once, so a pair's score never depends on its batch (dynamic int8
#: computes the activation scale over the whole batch).
STATIC_QUANTIZATION: dict[str, Any] = {
    "method": "onnxruntime.quantization.quantize_static",
    "format": "QDQ",
    "activation_type": "QUInt8",
    "weight_type": "QInt8",
    "per_channel": True,
    "calibrate_method": "MinMax",
    "op_types_to_quantize": ["MatMul"],
    "extra_options": {"MatMulConstBOnly": True},
    # 7-bit weights: see ROWWISE_WEIGHT_MAX (the same uint8 x int8 kernels run the QDQ graph).
    "reduce_range": True,
}

#: Largest |int8 weight| of the int8 graphs: 63 (7 bits), not 127. On x86 CPUs without VNNI
#: (AVX2 only), ONNX Runtime's uint8 x int8 GEMM adds pairs of products in int16 with saturation
#: (``vpmaddubsw``): 255 * 127 * 2 overflows, 255 * 63 * 2 = 32130 does not. With 127 a score
#: depended on the CPU (an AMD EPYC with AVX2 only gave errors of 0.6 on outputs of size 12 in
#: ``tests/modeling/test_modeling_rowwise.py``, where a VNNI machine gave 1e-7); with 63 the
#: integer arithmetic is exact on every CPU. ONNX Runtime's ``reduce_range`` is the same fix.
ROWWISE_WEIGHT_MAX = 63


def quantize_static_int8(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    feeds: Sequence[Mapping[str, np.ndarray]],
    *,
    exclude: Sequence[str] = (),
) -> list[str]:
    """Static int8 quantization (see :data:`STATIC_QUANTIZATION`) calibrated on ``feeds`` (model
    input batches). Only MatMuls with constant weights are quantized; ``exclude`` holds
    substrings of node names that stay fp32. Returns the excluded node names."""
    try:
        import onnx
        from onnxruntime.quantization import (
            CalibrationDataReader,
            CalibrationMethod,
            QuantFormat,
            QuantType,
            quantize_static,
        )
    except ImportError as e:
        raise MissingDependencyError("onnxruntime", "int8 quantization", "torch") from e
    if not feeds:
        raise InputError("static quantization needs at least one calibration batch")

    class _Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self._it = iter([dict(f) for f in feeds])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self._it, None)

    excluded: list[str] = []
    if exclude:
        graph = onnx.load(str(src), load_external_data=False).graph
        excluded = [n.name for n in graph.node if any(p in n.name for p in exclude)]
    quantize_static(
        str(src),
        str(dst),
        _Reader(),
        quant_format=QuantFormat.QDQ,
        op_types_to_quantize=list(STATIC_QUANTIZATION["op_types_to_quantize"]),
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        nodes_to_exclude=excluded,
        calibrate_method=CalibrationMethod.MinMax,
        reduce_range=bool(STATIC_QUANTIZATION["reduce_range"]),
        extra_options=dict(STATIC_QUANTIZATION["extra_options"]),
    )
    return excluded


#: Settings of the row-wise dynamic int8 graph (variant ``int8row``), recorded in parity.json.
ROWWISE_QUANTIZATION: dict[str, Any] = {
    "method": "sitar row-wise dynamic int8 (com.microsoft.MatMulIntegerToFloat)",
    # Each row (one token's vector) is quantized with its own scale max|x| / 127, computed inside
    # the graph from that row alone: unlike per-tensor dynamic int8, a pair's outputs never depend
    # on its batch neighbours (SPEC §7b batch invariance).
    "activations": "uint8 per row, symmetric (zero point 128), scale computed in the graph",
    "weights": "int8 per output channel, symmetric, 7-bit range (|w| <= 63, ROWWISE_WEIGHT_MAX)",
    # SmoothQuant (Xiao et al. 2023): per input channel, s = max|x|^a / max|w|^(1-a) from the
    # calibration batches; x / s is quantized and s is folded into the weights, so outlier
    # channels of the LayerNorm outputs no longer eat the activation range.
    "smooth_alpha": 0.5,
    # MatMuls whose weight maps K inputs to N < K outputs stay fp32: on sitar-minilm-gap-v3 the
    # FFN output projections (1536 -> 384) carry most of the int8 drift (dev-set Spearman against
    # fp32 0.985 with them quantized, 0.989 to 0.995 without; training/README.md), and the gap and
    # pair heads are tiny.
    "fp32_down_projections": True,
}

#: Name prefix of everything the row-wise rewrite adds (read back by ``training.recover``).
ROWWISE_PREFIX = "sitar_rowq"


def _activation_absmax(
    src: Path, names: Sequence[str], feeds: Sequence[Mapping[str, np.ndarray]]
) -> dict[str, np.ndarray]:
    """Per-channel max |x| (last axis) of the named fp32 tensors over the calibration batches
    (padded positions of (B, T, C) tensors left out)."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(src))
    for name in names:
        model.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    ort = _ort()
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    wanted = [i.name for i in session.get_inputs()]
    absmax: dict[str, np.ndarray] = {}
    for feed in feeds:
        values = session.run(list(names), {k: feed[k] for k in wanted})
        mask = np.asarray(feed.get("attention_mask", np.zeros((0, 0)))).astype(bool)  # (B, T)
        for name, v in zip(names, values, strict=True):
            if v.ndim == 3 and v.shape[:2] == mask.shape:
                rows = v[mask]  # (real tokens, C)
            else:
                rows = v.reshape(-1, v.shape[-1])
            if rows.size:
                m = np.abs(rows).max(axis=0)
                absmax[name] = np.maximum(absmax[name], m) if name in absmax else m
    return absmax


def quantize_rowwise_int8(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    feeds: Sequence[Mapping[str, np.ndarray]],
    *,
    exclude: Sequence[str] = (),
    smooth_alpha: float | None = ROWWISE_QUANTIZATION["smooth_alpha"],
    fp32_down_projections: bool = ROWWISE_QUANTIZATION["fp32_down_projections"],
) -> dict[str, Any]:
    """Row-wise dynamic int8 (see :data:`ROWWISE_QUANTIZATION`): an ONNX -> ONNX rewrite.

    Every MatMul ``x @ W`` with a constant 2-D weight (K, N) becomes::

        xs = x / s                                  # SmoothQuant, s: (K,) from ``feeds``
        scale = max(|xs|, axis=-1) / 127            # (..., 1): one scale per row
        q = uint8(round(xs / scale) + 128)          # (..., K)
        y = MatMulIntegerToFloat(q, Wq, scale, w_scale, 128)   # Wq = int8(diag(s) W / w_scale)

    with ``w_scale = max(|diag(s) W|, axis=0) / 63`` per output column (7-bit weights, see
    :data:`ROWWISE_WEIGHT_MAX`).

    The quantized input is shared by all MatMuls that read the same tensor (Q, K, V). Bias Adds
    stay separate nodes: ONNX Runtime's MatMulIntegerToFloat scales a fused bias by a per-row
    ``a_scale`` (measured with onnxruntime 1.32). ``exclude`` holds substrings of node names that
    stay fp32. ``feeds`` (model input batches) calibrate the smoothing only; nothing is fixed per
    batch. Returns counts of quantized and fp32 MatMuls.
    """
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError as e:
        raise MissingDependencyError("onnx", "int8 quantization", "torch") from e
    src, dst = Path(src), Path(dst)
    model = onnx.load(str(src))
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    targets = []
    kept = 0
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in inits:
            continue
        dims = list(inits[node.input[1]].dims)
        if (
            len(dims) != 2
            or any(p in node.name for p in exclude)
            or (fp32_down_projections and dims[1] < dims[0])
        ):
            kept += 1
            continue
        targets.append(node)
    weights = {
        n.input[1]: numpy_helper.to_array(inits[n.input[1]]).astype(np.float32) for n in targets
    }
    inputs = sorted({n.input[0] for n in targets})
    smooth: dict[str, np.ndarray] = {}
    if smooth_alpha is not None and targets:
        if not feeds:
            raise InputError("row-wise int8 with smoothing needs at least one calibration batch")
        absmax = _activation_absmax(src, inputs, feeds)
        for x in inputs:
            # (K,) largest weight magnitude per input channel over every MatMul reading x
            w_max = np.max(
                [np.abs(weights[n.input[1]]).max(axis=1) for n in targets if n.input[0] == x],
                axis=0,
            )
            a = np.maximum(absmax.get(x, np.ones_like(w_max)), 1e-5)
            s = a**smooth_alpha / np.maximum(w_max, 1e-5) ** (1.0 - smooth_alpha)
            smooth[x] = np.clip(s, 1e-5, 1e5).astype(np.float32)
    consts: dict[str, np.ndarray] = {
        "inv127": np.array(1.0 / 127.0, np.float32),
        "c128": np.array(128.0, np.float32),
        "zp128": np.array(128, np.uint8),
        "eps": np.array(1e-12, np.float32),
    }
    added = [numpy_helper.from_array(v, f"{ROWWISE_PREFIX}/{k}") for k, v in consts.items()]
    quantized: dict[str, tuple[str, str]] = {}  # input -> (q, scale)
    replace: dict[int, list[Any]] = {}
    for k, node in enumerate(targets):
        x = node.input[0]
        new_nodes = []
        if x not in quantized:
            b = f"{ROWWISE_PREFIX}/in{len(quantized)}"
            xin = x
            if x in smooth:
                added.append(numpy_helper.from_array(1.0 / smooth[x], f"{b}/inv_smooth"))
                new_nodes.append(
                    helper.make_node("Mul", [x, f"{b}/inv_smooth"], [f"{b}/xs"], name=f"{b}/Smooth")
                )
                xin = f"{b}/xs"
            new_nodes += [
                helper.make_node("Abs", [xin], [f"{b}/abs"], name=f"{b}/Abs"),
                helper.make_node(
                    "ReduceMax",
                    [f"{b}/abs"],
                    [f"{b}/max"],
                    name=f"{b}/ReduceMax",
                    axes=[-1],
                    keepdims=1,
                ),
                helper.make_node(
                    "Max", [f"{b}/max", f"{ROWWISE_PREFIX}/eps"], [f"{b}/max_eps"], name=f"{b}/Max"
                ),
                helper.make_node(
                    "Mul",
                    [f"{b}/max_eps", f"{ROWWISE_PREFIX}/inv127"],
                    [f"{b}/scale"],
                    name=f"{b}/Scale",
                ),
                helper.make_node("Div", [xin, f"{b}/scale"], [f"{b}/scaled"], name=f"{b}/Div"),
                helper.make_node("Round", [f"{b}/scaled"], [f"{b}/rounded"], name=f"{b}/Round"),
                helper.make_node(
                    "Add",
                    [f"{b}/rounded", f"{ROWWISE_PREFIX}/c128"],
                    [f"{b}/shifted"],
                    name=f"{b}/Shift",
                ),
                helper.make_node(
                    "Cast", [f"{b}/shifted"], [f"{b}/q"], name=f"{b}/Cast", to=TensorProto.UINT8
                ),
            ]
            quantized[x] = (f"{b}/q", f"{b}/scale")
        q, scale = quantized[x]
        w = weights[node.input[1]]
        if x in smooth:
            w = w * smooth[x][:, None]
        wmax = float(ROWWISE_WEIGHT_MAX)
        w_scale = (np.maximum(np.abs(w).max(axis=0), 1e-12) / wmax).astype(np.float32)  # (N,)
        w_q = np.clip(np.round(w / w_scale), -wmax, wmax).astype(np.int8)  # (K, N)
        wn = f"{ROWWISE_PREFIX}/w{k}"
        added += [numpy_helper.from_array(w_q, wn), numpy_helper.from_array(w_scale, f"{wn}/scale")]
        new_nodes.append(
            helper.make_node(
                "MatMulIntegerToFloat",
                [q, wn, scale, f"{wn}/scale", f"{ROWWISE_PREFIX}/zp128"],
                [node.output[0]],
                name=f"{node.name}/rowq",
                domain="com.microsoft",
            )
        )
        replace[id(node)] = new_nodes
    nodes = [new for node in graph.node for new in replace.get(id(node), [node])]
    del graph.node[:]
    graph.node.extend(nodes)
    used = {i for n in graph.node for i in n.input}
    initializers = [i for i in graph.initializer if i.name in used] + [
        i for i in added if i.name in used
    ]
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    if targets and not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(model, str(dst))
    # The settings used, so that a record merged over ROWWISE_QUANTIZATION states the real ones.
    return {
        "smooth_alpha": smooth_alpha,
        "fp32_down_projections": fp32_down_projections,
        "n_quantized": len(targets),
        "n_fp32": kept,
        "smoothed_inputs": len(smooth),
    }
