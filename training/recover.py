"""Recover torch weights from an exported SITAR ONNX graph, to fine-tune a shipped checkpoint.

A checkpoint folder carries ONNX graphs but no torch weights. Recovery reads the fp32
``model.onnx``; the shipped default carries only its int8row graph, so recover from a folder that
still holds fp32 (a fresh export of the run, or for v4 the commit ``6ce34f5``). Every weight is in the
graph, though: named initializers keep their module names (``model.backbone.…``), and the
linear layers' weights, which the exporter transposed and renamed (``onnx::MatMul_…``), are found
by following each ``MatMul`` to the ``Add`` that adds its named bias. ::

    python -m training.recover --checkpoint /data/v4/checkpoints/sitar-minilm-gap-v4 --out /data/v4-torch
    python -m training --config … --set init_from=/data/v4-torch

The model is rebuilt from the checkpoint's config (backbone architecture from its ``backbone``
entry, vocabulary sized to the graph's embedding matrix, the saved head config); every parameter
must be covered by the graph, and the rebuilt model must reproduce the graph's outputs on parity
pairs (``--atol``, default 1e-4), or nothing is written. The output folder is a copy of the
checkpoint plus ``torch/`` (``config.json``, ``model.safetensors``), loadable with
:func:`sitar.modeling.load_regressor` and usable as ``init_from``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitar.errors import CheckpointError, SitarError

__all__ = ["graph_state_dict", "main", "recover"]

_PREFIX = "model."  # the export wrapper's attribute name


def graph_state_dict(onnx_path: str | Path) -> dict[str, np.ndarray]:
    """The regressor's weights held in an fp32 SITAR graph, keyed by state-dict name.

    Named initializers map directly; an unnamed ``MatMul`` weight takes the name of the bias its
    output is added to (``….bias`` -> ``….weight``, transposed back to torch's (out, in))."""
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
        if node.op_type != "MatMul" or node.input[1] not in inits:
            continue
        if node.input[1].startswith(_PREFIX):
            continue  # a named weight used as is (already mapped)
        biases = [
            other
            for add in consumers.get(node.output[0], [])
            if add.op_type == "Add"
            for other in add.input
            if other != node.output[0] and other.startswith(_PREFIX) and other.endswith(".bias")
        ]
        if len(biases) != 1:
            raise CheckpointError(
                f"{onnx_path}: cannot name the weight {node.input[1]!r} of MatMul {node.name!r} "
                f"(found biases {biases}); is this an fp32 graph written by sitar's exporter?"
            )
        key = biases[0][len(_PREFIX) : -len("bias")] + "weight"
        if key in state:
            raise CheckpointError(f"{onnx_path}: two MatMul weights map to {key!r}")
        state[key] = numpy_helper.to_array(inits[node.input[1]]).T.copy()
    return state


def recover(
    checkpoint: str | Path, out: str | Path, *, atol: float = 1e-4, log: Any = print
) -> dict[str, Any]:
    """Write ``out`` = the checkpoint + ``torch/`` weights recovered from its fp32 graph; returns
    the parity report. Raises :class:`CheckpointError` when a parameter is missing from the graph
    or the rebuilt model does not reproduce it."""
    import torch
    from transformers import AutoConfig, AutoModel

    from sitar.checkpoint import CheckpointConfig
    from sitar.modeling.model import HeadConfig, SitarRegressor, resolve_backbone, save_regressor

    checkpoint = Path(checkpoint)
    out = Path(out)
    config = CheckpointConfig.load(checkpoint)
    if not config.onnx.files.get("fp32"):
        from sitar.modeling.export import read_parity

        try:
            dropped = read_parity(checkpoint).get("dropped_variants", [])
        except CheckpointError:  # no parity.json: nothing recorded
            dropped = []
        hint = "".join(
            f"; its fp32 graph {e['file']} (SHA-256 {e['sha256']}) was dropped from the folder: "
            f"{e['reason'].rstrip('.')}. Recover from the folder as it was before the drop (see "
            "its model card)"
            for e in dropped
            if e.get("variant") == "fp32"
        )
        raise CheckpointError(f"{checkpoint}: no fp32 ONNX graph to recover weights from{hint}")
    onnx_path = config.onnx_path("fp32")
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
        own[name] = torch.from_numpy(np.ascontiguousarray(value))
    model.load_state_dict(own, strict=True)
    model.eval()
    report = _parity(model, config, onnx_path)
    log(f"parity against {onnx_path.name}: max |Δ| {report['max_abs_diff']:.2e} on "
        f"{report['pairs']} pairs")  # fmt: skip
    if not report["max_abs_diff"] <= atol:
        raise CheckpointError(
            f"the recovered weights do not reproduce {onnx_path}: max |Δ| "
            f"{report['max_abs_diff']:.3g} > {atol}"
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
    diffs = []
    for name, tensor in zip(model.output_names, got, strict=True):
        ref = expected[name]
        value = tensor.numpy()
        if name == "gap_logits":  # padding gaps are not compared
            valid = feeds["gap_index"].any(axis=-1)
            ref, value = ref[valid], value[valid]
        diffs.append(float(np.max(np.abs(ref - value))) if ref.size else 0.0)
    return {"pairs": len(refs), "max_abs_diff": max(diffs), "outputs": list(model.output_names)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.recover",
        description="Recover torch weights from a checkpoint's fp32 ONNX graph (to fine-tune it)",
    )
    parser.add_argument("--checkpoint", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path, help="new folder (checkpoint + torch/)")
    parser.add_argument("--atol", type=float, default=1e-4, help="parity tolerance")
    args = parser.parse_args(argv)
    try:
        recover(args.checkpoint, args.out, atol=args.atol)
    except SitarError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} (use it as init_from)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
