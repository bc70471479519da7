"""Recover torch weights from an exported SITAR ONNX graph, to fine-tune a shipped checkpoint.

A checkpoint folder carries ONNX graphs but no torch weights. Every weight is in a graph, though:
named initializers keep their module names (``model.backbone.…``), and the linear layers'
weights, which the exporter transposed and renamed (``onnx::MatMul_…``), are found by following
each ``MatMul`` to the ``Add`` that adds its named bias. ::

    python -m training.recover --checkpoint /data/v4/checkpoints/sitar-minilm-gap-v4 --out /data/v4-torch
    python -m training --config … --set init_from=/data/v4-torch

``--from fp32`` (the default) reads the fp32 ``model.onnx`` and gives back exactly the exported
weights. ``--from int8row`` reads the row-wise int8 graph (the only graph the shipped default
carries): each quantized ``MatMulIntegerToFloat`` weight is dequantized, ``W = Wq · w_scale ·
(1/s)`` (7-bit per-column weights, SmoothQuant factors ``s`` undone), so the weights are the
ones the shipped graph computes with, not the run's fp32 weights (each differs from those by at
most half a quantization step); the down projections that stay fp32 in that graph are exact. This
is the way to fine-tune a default whose fp32 graph was not committed.

The model is rebuilt from the checkpoint's config (backbone architecture from its ``backbone``
entry, vocabulary sized to the graph's embedding matrix, the saved head config); every parameter
must be covered by the graph, and the rebuilt model must reproduce the graph's outputs on parity
pairs, or nothing is written. From fp32 the tolerance is ``--atol`` (default 1e-4). From int8row
the graph also quantizes activations per row, which fp32 torch does not, so each output may
differ by as much as the int8row graph differed from the fp32 graph when it was built (its
``parity.json`` entry, measured on the export's parity pairs); ``--atol`` overrides that. The
output folder is a copy of the checkpoint plus ``torch/`` (``config.json``,
``model.safetensors``, ``recovered.json`` with the source graph, the tolerance and the measured
differences), loadable with :func:`sitar.modeling.load_regressor` and usable as ``init_from``.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitar._main import ArgumentParser, tool_main
from sitar.errors import CheckpointError, InputError

__all__ = ["graph_state_dict", "main", "recover"]

_PREFIX = "model."  # the export wrapper's attribute name


def graph_state_dict(onnx_path: str | Path) -> dict[str, np.ndarray]:
    """The regressor's weights held in a SITAR graph (fp32, or row-wise int8), keyed by
    state-dict name.

    Named initializers map directly; an unnamed ``MatMul`` weight takes the name of the bias its
    output is added to (``….bias`` -> ``….weight``, transposed back to torch's (out, in)). In a
    row-wise int8 graph a ``MatMulIntegerToFloat`` weight is dequantized the same way (see the
    module docstring); other quantized forms are refused."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(onnx_path))
    inits = {t.name: t for t in model.graph.initializer}
    state: dict[str, np.ndarray] = {}
    for name, t in inits.items():
        if name.startswith(_PREFIX):
            state[name[len(_PREFIX) :]] = numpy_helper.to_array(t)
    consumers: dict[str, list[Any]] = {}
    for node in model.graph.node:
        for i in node.input:
            consumers.setdefault(i, []).append(node)
    for node in model.graph.node:
        if node.op_type in ("MatMulInteger", "DynamicQuantizeLinear", "DequantizeLinear"):
            raise CheckpointError(
                f"{onnx_path}: a {node.op_type} node ({node.name!r}): weights of this "
                "quantization cannot be recovered; use the fp32 or the int8row graph"
            )
        if node.op_type == "MatMulIntegerToFloat":
            weight = _dequantized_rowwise(node, inits, onnx_path)
        elif node.op_type == "MatMul" and node.input[1] in inits:
            if node.input[1].startswith(_PREFIX):
                continue  # a named weight used as is (already mapped)
            weight = numpy_helper.to_array(inits[node.input[1]])
        else:
            continue
        biases = [
            other
            for add in consumers.get(node.output[0], [])
            if add.op_type == "Add"
            for other in add.input
            if other != node.output[0] and other.startswith(_PREFIX) and other.endswith(".bias")
        ]
        if len(biases) != 1:
            raise CheckpointError(
                f"{onnx_path}: cannot name the weight {node.input[1]!r} of {node.op_type} "
                f"{node.name!r} (found biases {biases}); is this a graph written by sitar's "
                "exporter?"
            )
        key = biases[0][len(_PREFIX) : -len("bias")] + "weight"
        if key in state:
            raise CheckpointError(f"{onnx_path}: two MatMul weights map to {key!r}")
        state[key] = weight.T.copy()
    return state


def _dequantized_rowwise(node: Any, inits: dict[str, Any], onnx_path: str | Path) -> np.ndarray:
    """The fp32 (K, N) weight a row-wise ``MatMulIntegerToFloat`` computes with:
    ``Wq · w_scale`` per column, divided by the SmoothQuant factor of each input channel (the
    graph multiplies its input by ``1/s``, stored as ``<quantizer>/inv_smooth``, before
    quantizing it; see :func:`sitar.modeling.quantize.quantize_rowwise_int8`)."""
    from onnx import numpy_helper

    from sitar.modeling.quantize import ROWWISE_PREFIX

    q_input, w_name, _, w_scale_name = node.input[:4]
    quantizer = q_input[: -len("/q")] if q_input.endswith("/q") else ""
    if (
        not w_name.startswith(ROWWISE_PREFIX)
        or not quantizer.startswith(ROWWISE_PREFIX)
        or w_name not in inits
        or w_scale_name not in inits
    ):
        raise CheckpointError(
            f"{onnx_path}: MatMulIntegerToFloat {node.name!r} is not sitar's row-wise int8 form"
        )
    w_q = numpy_helper.to_array(inits[w_name]).astype(np.float32)
    w_scale = numpy_helper.to_array(inits[w_scale_name]).astype(np.float32)
    if w_q.ndim != 2 or w_scale.shape != (w_q.shape[1],):
        raise CheckpointError(
            f"{onnx_path}: {node.name!r}: weight {w_q.shape} and scale {w_scale.shape} do not fit"
        )
    weight = w_q * w_scale[None, :]
    inv_smooth = inits.get(f"{quantizer}/inv_smooth")
    if inv_smooth is not None:
        weight = weight * numpy_helper.to_array(inv_smooth).astype(np.float32)[:, None]
    return weight


def recover(
    checkpoint: str | Path,
    out: str | Path,
    *,
    atol: float | None = None,
    source: str = "fp32",
    log: Any = print,
) -> dict[str, Any]:
    """Write ``out`` = the checkpoint + ``torch/`` weights recovered from its ``source`` graph
    (``"fp32"`` or ``"int8row"``, see the module docstring); returns the parity report. Raises
    :class:`CheckpointError` when the graph is missing, a parameter is missing from it or the
    rebuilt model does not reproduce it within ``atol`` (default: 1e-4 from fp32; from int8row,
    each output's recorded int8row-vs-fp32 difference)."""
    import torch
    from transformers import AutoConfig, AutoModel

    from sitar.checkpoint import CheckpointConfig
    from sitar.modeling.model import HeadConfig, SitarRegressor, resolve_backbone, save_regressor

    checkpoint = Path(checkpoint)
    out = Path(out)
    if out.exists():  # before any work (checked again before writing)
        raise CheckpointError(f"{out} exists; choose a new folder")
    config = CheckpointConfig.load(checkpoint)
    if source not in RECOVERABLE:
        raise InputError(f"source must be one of {', '.join(RECOVERABLE)}, got {source!r}")
    if not config.onnx.files.get(source):
        hint = _missing_hint(checkpoint, config, source)
        raise CheckpointError(f"{checkpoint}: no {source} ONNX graph to recover weights from{hint}")
    tolerances = _tolerances(checkpoint, source, atol)
    onnx_path = config.onnx_path(source)
    state = graph_state_dict(onnx_path)
    emb_key = "backbone.embeddings.word_embeddings.weight"
    if emb_key not in state:
        raise CheckpointError(f"{onnx_path}: no {emb_key!r}; not a BERT-style SITAR graph")
    backbone_config = AutoConfig.from_pretrained(resolve_backbone(config.backbone))
    backbone_config.vocab_size = int(state[emb_key].shape[0])
    head = HeadConfig.from_dict(config.extra.get("head", {}))
    model = SitarRegressor(AutoModel.from_config(backbone_config), head)
    own = model.state_dict()
    params = {name for name, _ in model.named_parameters()}
    missing = sorted(params - set(state))
    extra = sorted(set(state) - set(own))
    if missing or extra:
        raise CheckpointError(
            f"{onnx_path}: the graph does not match the rebuilt model: missing {missing[:5]} "
            f"({len(missing)}), unknown {extra[:5]} ({len(extra)})"
        )
    for name, value in state.items():
        if tuple(own[name].shape) != value.shape:
            raise CheckpointError(
                f"{onnx_path}: {name} has shape {value.shape}, the model wants "
                f"{tuple(own[name].shape)}"
            )
        own[name] = torch.from_numpy(np.array(value, dtype=value.dtype, copy=True))
    model.load_state_dict(own, strict=True)
    model.eval()
    report = _parity(model, config, onnx_path)
    report["source"] = source
    report["tolerance"] = tolerances
    log(f"parity against {onnx_path.name}: max |Δ| {report['max_abs_diff']:.2e} on "
        f"{report['pairs']} pairs")  # fmt: skip
    over = []
    for name, diff in report["diffs"].items():
        limit = tolerances.get(name, tolerances["*"])
        if not diff <= limit:
            over.append(f"{name} {diff:.3g} > {limit:.3g}")
    if over:
        detail = ", ".join(over)
        raise CheckpointError(
            f"the recovered weights do not reproduce {onnx_path}: max |Δ| {detail}"
        )
    if out.exists():
        raise CheckpointError(f"{out} exists; choose a new folder")
    tmp = out.with_name(out.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    shutil.copytree(checkpoint, tmp)
    save_regressor(model, tmp / "torch")
    (tmp / "torch" / "recovered.json").write_text(
        json.dumps({"from": str(onnx_path), **report}, indent=2) + "\n", encoding="utf-8"
    )
    tmp.rename(out)
    return report


#: Graphs weights can be recovered from: exactly (fp32) or as the shipped graph computes (int8row).
RECOVERABLE = ("fp32", "int8row")


def _tolerances(checkpoint: Path, source: str, atol: float | None) -> dict[str, float]:
    """Per-output parity tolerances (``"*"``: any output not named)."""
    if atol is not None:
        if not atol >= 0:
            raise InputError(f"atol must be >= 0, got {atol}")
        return {"*": float(atol)}
    if source == "fp32":
        return {"*": 1e-4}
    from sitar.modeling.parity import read_parity

    try:
        entry = read_parity(checkpoint).get(source) or {}
    except CheckpointError:
        entry = {}
    # parity.json's entry: the largest difference from the fp32 graph, per model output.
    recorded = {
        key.removeprefix("max_abs_diff_"): float(value)
        for key, value in entry.items()
        if key.startswith("max_abs_diff_")
    }
    if not recorded:
        raise CheckpointError(
            f"{checkpoint}: parity.json records no {source}-vs-fp32 difference to check the "
            "recovered weights against; pass --atol to choose a tolerance"
        )
    return {**recorded, "*": max(recorded.values())}


def _missing_hint(checkpoint: Path, config: Any, source: str) -> str:
    """Why the graph is missing (a recorded drop), and what else can be recovered from."""
    from sitar.modeling.parity import read_parity

    try:
        dropped = read_parity(checkpoint).get("dropped_variants", [])
    except CheckpointError:  # no parity.json: nothing recorded
        dropped = []
    hint = "".join(
        f"; its {source} graph {e['file']} (SHA-256 {e['sha256']}) was dropped from the folder: "
        f"{e['reason'].rstrip('.')}. Recover from the folder as it was before the drop (see "
        "its model card)"
        for e in dropped
        if e.get("variant") == source
    )
    others = [v for v in RECOVERABLE if v != source and config.onnx.files.get(v)]
    if others:
        hint += (
            f", or from its {others[0]} graph (--from {others[0]}: the weights that graph "
            "computes with; see training/recover.py)"
        )
    return hint


#: Pairs for the parity check: short and long, identical, with insertions, deletions and several gaps.
PARITY_PAIRS = (
    ("turn left at the light", "turn right at the light"),
    ("do not send the draft to the client", "do send the draft to the client"),
    ("the meeting is at nine on friday", "the meeting is at nine on friday"),
    ("please call me back", "please call me back uh later"),
    (
        "the ten forty two service to manchester piccadilly will now depart from platform seven",
        "the ten forty service to manchester will now depart from platform eleven today",
    ),
    ("set an alarm for seven", "said an alarm for heaven"),
)


def _parity(model: Any, config: Any, onnx_path: Path) -> dict[str, Any]:
    """Run the torch model and the graph on :data:`PARITY_PAIRS` in one padded batch."""
    import onnxruntime as ort
    import torch

    from sitar import segment
    from sitar.encoding import checkpoint_encoder

    encoder = checkpoint_encoder(config)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    if "gap_index" in names:
        segs = [segment(r, h) for r, h in PARITY_PAIRS]
        items = encoder.encode_marked(
            [(s.reference, s.hypothesis, [(g.ref_span, g.hyp_span) for g in s.gaps]) for s in segs]
        )
    else:
        items = encoder.encode([r for r, _ in PARITY_PAIRS], [h for _, h in PARITY_PAIRS])
    feeds = encoder.collate(items, names)
    refs = PARITY_PAIRS
    expected = dict(
        zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True)
    )
    with torch.no_grad():
        got = model(**{n: torch.from_numpy(v) for n, v in feeds.items()})
    diffs = {}
    for name, tensor in zip(model.output_names, got, strict=True):
        ref = expected[name]
        value = tensor.numpy()
        if name == "gap_logits":  # padding gaps are not compared
            valid = feeds["gap_index"].any(axis=-1)
            ref, value = ref[valid], value[valid]
        diffs[name] = float(np.max(np.abs(ref - value))) if ref.size else 0.0
    return {
        "pairs": len(refs),
        "max_abs_diff": max(diffs.values()),
        "diffs": diffs,
        "outputs": list(model.output_names),
    }


@tool_main("python -m training.recover")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m training.recover",
        description="Recover torch weights from a checkpoint's ONNX graph (to fine-tune it)",
    )
    parser.add_argument("--checkpoint", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path, help="new folder (checkpoint + torch/)")
    parser.add_argument(
        "--from",
        dest="source",
        choices=RECOVERABLE,
        default="fp32",
        help="graph to read: fp32 (exact weights, default) or int8row (the dequantized weights "
        "the shipped graph computes with)",
    )
    parser.add_argument(
        "--atol",
        type=float,
        default=None,
        help="parity tolerance (default: 1e-4 from fp32; from int8row, each output's recorded "
        "int8row-vs-fp32 difference in parity.json)",
    )
    args = parser.parse_args(argv)
    recover(args.checkpoint, args.out, atol=args.atol, source=args.source)
    print(f"wrote {args.out} (use it as init_from)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
