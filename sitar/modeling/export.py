"""Export a trained regressor into a self-describing SITAR checkpoint folder.

The folder follows the checkpoint contract: ``sitar_config.json`` (written through
:class:`sitar.checkpoint.CheckpointConfig`), ``tokenizer.json`` (the exact fast tokenizer used in
training), ``model.onnx`` (fp32, TorchScript-based exporter, opset 17, dynamic batch and sequence
axes), ``model.int8.onnx`` (dynamic int8 quantization, QInt8 per-channel weights; static for a
gap-aware model), ``model.int8row.onnx`` (row-wise dynamic int8, batch-invariant; see
:func:`sitar.modeling.quantize.quantize_rowwise_int8`), ``parity.json`` and optionally ``torch/``
(backbone config + full state dict). The three quantisers live in :mod:`sitar.modeling.quantize`.

Parity is part of export (measured by :mod:`sitar.modeling.parity`): on real pairs, encoded once
with ``tokenizer.json``, the torch model and the fp32 graph must agree within a tolerance (max abs
diff of the raw score and the ordinal logits), and the drift of each quantized graph against fp32
(max/mean abs diff, Spearman) is measured and recorded. The folder is built in a temporary sibling
directory and moved into place only when fp32 parity holds; otherwise
:class:`~sitar.modeling.parity.ParityError` is raised with the numbers and nothing is left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from sitar._version import __version__
from sitar.checkpoint import CONFIG_FILE, CheckpointConfig, OnnxConfig
from sitar.closeness import config_section
from sitar.errors import CheckpointError, InputError
from sitar.modeling import quantize as _quantize
from sitar.modeling.model import (
    THRESHOLDS,
    TORCH_SUBDIR,
    PairEncoder,
    SitarRegressor,
    find_pad_id,
    save_regressor,
)
from sitar.modeling.parity import (
    DEFAULT_PARITY_ATOL,
    PARITY_FILE,
    ParityError,
    encode_pairs,
    graph_drift,
    ort,
    parity_report,
    run_onnx,
)
from sitar.targets import DEFAULT_RHO, MAX_SCORE

__all__ = [
    "OPSET",
    "ParityError",
    "add_onnx_variant",
    "drop_onnx_variant",
    "export_checkpoint",
    "export_onnx",
    "parity_report",
]

#: Names that moved to :mod:`sitar.modeling.quantize`: still importable from here, with a warning.
_MOVED_TO_QUANTIZE = frozenset(
    {
        "QUANTIZATION",
        "ROWWISE_PREFIX",
        "ROWWISE_QUANTIZATION",
        "ROWWISE_WEIGHT_MAX",
        "STATIC_QUANTIZATION",
        "quantize_int8",
        "quantize_rowwise_int8",
        "quantize_static_int8",
    }
)


def __getattr__(name: str) -> object:
    if name in _MOVED_TO_QUANTIZE:
        warnings.warn(
            f"sitar.modeling.export.{name} moved to sitar.modeling.quantize; import it from there "
            "(the old path will be removed in a later release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_quantize, name)
    raise AttributeError(f"module 'sitar.modeling.export' has no attribute {name!r}")


#: ONNX opset of exported graphs.
OPSET = 17
OUTPUT_NAMES = ("score", "ordinal_logits")
FP32_FILE = "model.onnx"
INT8_FILE = "model.int8.onnx"
INT8ROW_FILE = "model.int8row.onnx"
#: File of each ONNX variant in an exported folder.
VARIANT_FILES = {"fp32": FP32_FILE, "int8": INT8_FILE, "int8row": INT8ROW_FILE}
TOKENIZER_FILE = "tokenizer.json"
#: Node-name pattern of the gap head's first MatMul, which reads the closeness features.
CLOSENESS_MATMUL = "/gap_mlp.0/"


class _NamedInputs(nn.Module):
    """Positional wrapper so the graph inputs get stable names, in ``model.input_names`` order."""

    def __init__(self, model: SitarRegressor) -> None:
        super().__init__()
        self.model = model
        self.names = model.input_names

    def forward(self, *inputs: Tensor) -> tuple[Tensor, ...]:
        return self.model(**dict(zip(self.names, inputs, strict=True)))


def export_onnx(model: SitarRegressor, path: str | os.PathLike[str], *, opset: int = OPSET) -> Path:
    """Export the fp32 graph with dynamic ``batch`` and ``sequence`` axes; returns the path.

    Inputs are exactly ``model.input_names``; outputs are ``score`` (batch,), ``ordinal_logits``
    (batch, K) and, for a gap-aware model, ``gap_logits`` (batch, gaps, K) with ``gap_index``
    (batch, gaps, 4) as an extra input (and ``gap_closeness`` (batch, gaps, 2) float32 for a model
    trained with closeness features).
    """
    path = Path(path)
    model = model.float().eval()
    names = model.input_names
    wrapper = _NamedInputs(model)
    # A dummy batch of 2 x 16 tokens; the axes are declared dynamic below.
    ids = torch.full((2, 16), 5, dtype=torch.long)
    mask = torch.ones((2, 16), dtype=torch.long)
    mask[1, 12:] = 0
    dummy: tuple[Tensor, ...] = (ids, mask)
    if "token_type_ids" in names:
        types = torch.zeros((2, 16), dtype=torch.long)
        types[:, 8:] = 1
        dummy = (*dummy, types)
    if "gap_index" in names:
        gap_index = torch.tensor([[[1, 3, 9, 11], [4, 5, 12, 14]], [[2, 4, 8, 10], [0, 0, 0, 0]]])
        dummy = (*dummy, gap_index)
    if "gap_closeness" in names:
        closeness = torch.tensor([[[0.8, 1.0], [0.2, 0.4]], [[0.5, 0.0], [0.0, 0.0]]])
        dummy = (*dummy, closeness)
    dynamic_axes: dict[str, dict[int, str]] = {n: {0: "batch", 1: "sequence"} for n in names}
    dynamic_axes.update({"score": {0: "batch"}, "ordinal_logits": {0: "batch"}})
    if "gap_index" in names:
        dynamic_axes["gap_index"] = {0: "batch", 1: "gaps"}
        dynamic_axes["gap_logits"] = {0: "batch", 1: "gaps"}
    if "gap_closeness" in names:
        dynamic_axes["gap_closeness"] = {0: "batch", 1: "gaps"}
    with torch.no_grad(), warnings.catch_warnings():
        # The TorchScript tracer warns about Python-side shape checks inside transformers; the
        # parity check (with padded and unpadded batches) is what verifies the graph.
        warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
        warnings.filterwarnings("ignore", message=".*legacy TorchScript-based ONNX export.*")
        warnings.filterwarnings("ignore", message="Exporting aten::index operator")
        torch.onnx.export(
            wrapper,
            dummy,
            str(path),
            input_names=list(names),
            output_names=list(model.output_names),
            dynamic_axes=dynamic_axes,
            opset_version=opset,
            do_constant_folding=True,
            dynamo=False,
        )
    drop_softmax_nan_guards(path)
    return path


def drop_softmax_nan_guards(path: str | os.PathLike[str]) -> int:
    """Remove the exporter's NaN guard after attention softmaxes, in place; returns how many.

    The TorchScript exporter writes ``Where(IsNaN(p), 0, p)`` after each attention ``Softmax``
    ``p``, for rows whose keys are all masked. A SITAR input never has such a row (``[CLS]`` is
    always attended), so the guard never changes a value. On ``sitar-minilm-gap-v4`` removing it
    gave bit-identical outputs on 512 test pairs and a 1.13x faster graph (ONNX Runtime spent 12 %
    of its time in ``Where``/``IsNaN``); the export's parity check still compares every output
    with torch.
    """
    import onnx

    path = Path(path)
    model = onnx.load(str(path), load_external_data=False)
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer):
        return 0  # weights in external files (models over 2 GB): left as exported
    graph = model.graph
    producer = {o: n for n in graph.node for o in n.output}
    drop: set[int] = set()
    rename: dict[str, str] = {}
    for node in graph.node:
        if node.op_type != "IsNaN":
            continue
        p = node.input[0]
        if p not in producer or producer[p].op_type != "Softmax":
            continue
        users = [n for n in graph.node if node.output[0] in n.input]
        where = [
            n for n in users if n.op_type == "Where" and list(n.input[::2]) == [node.output[0], p]
        ]
        if len(users) != 1 or len(where) != 1:
            continue
        drop.update((id(node), id(where[0])))
        rename[where[0].output[0]] = p
    if not drop:
        return 0
    graph_outputs = {o.name for o in graph.output}
    if graph_outputs & rename.keys():
        return 0  # a guard that is itself a graph output: leave the graph as exported
    kept = [n for n in graph.node if id(n) not in drop]
    for n in kept:
        for i, name in enumerate(n.input):
            if name in rename:
                n.input[i] = rename[name]
    # The guards' zeros (Constant nodes or initializers) are now read by nothing: ONNX Runtime
    # would warn about each one at every session start, so they go too.
    used = {name for n in kept for name in n.input} | graph_outputs
    zeros = {n.input[1] for n in graph.node if id(n) in drop and n.op_type == "Where"} - used
    kept = [n for n in kept if not (n.op_type == "Constant" and set(n.output) <= zeros)]
    initializers = [t for t in graph.initializer if t.name not in zeros]
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    del graph.node[:]
    graph.node.extend(kept)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return len(drop) // 2


def export_checkpoint(
    model: SitarRegressor,
    tokenizer: Any,
    out_dir: str | os.PathLike[str],
    *,
    name: str,
    backbone: str,
    max_length: int,
    references: Sequence[str],
    hypotheses: Sequence[str],
    variants: Sequence[str] = ("fp32", "int8"),
    default_variant: str | None = "int8",
    include_torch: bool = True,
    loss_weights: Mapping[str, float] | None = None,
    rho: float = DEFAULT_RHO,
    training: Mapping[str, Any] | None = None,
    training_config_hash: str | None = None,
    parity_atol: float = DEFAULT_PARITY_ATOL,
    threads: int | None = None,
    overwrite: bool = False,
    int8_exclude: Sequence[str] = (),
    extra: Mapping[str, Any] | None = None,
    calibration_pairs: tuple[Sequence[str], Sequence[str]] | None = None,
) -> CheckpointConfig:
    """Write a checkpoint folder for ``model`` and return its loaded :class:`CheckpointConfig`.

    ``tokenizer`` is the ``tokenizers.Tokenizer`` the model was trained with (saved as
    ``tokenizer.json``); ``references``/``hypotheses`` are real pairs for the parity report (each
    must fit ``max_length``). ``variants`` picks the ONNX files to keep from ``fp32``, ``int8`` and
    ``int8row`` (:func:`~sitar.modeling.quantize.quantize_rowwise_int8`, smoothing calibrated on ``calibration_pairs``); the
    fp32 graph is always built for the parity check. ``int8_exclude`` keeps matching MatMul nodes in fp32 (see
    :func:`~sitar.modeling.quantize.quantize_int8`). A gap-aware model's int8 graph is quantized statically
    (:func:`~sitar.modeling.quantize.quantize_static_int8`) on ``calibration_pairs`` (default: the parity pairs); with
    closeness features the gap head's first MatMul (:data:`CLOSENESS_MATMUL`) stays fp32 there. Raises :class:`ParityError` when fp32 parity fails, leaving no folder
    behind. The folder's integrity digests are recorded (:func:`sitar.checkpoint.write_integrity`),
    so the export loads as a verified checkpoint.
    """
    variants = tuple(variants)
    if not variants or any(v not in VARIANT_FILES for v in variants):
        raise InputError(
            f"variants must be a non-empty subset of {tuple(VARIANT_FILES)}, got {variants}"
        )
    if default_variant is not None and default_variant not in variants:
        default_variant = variants[-1] if "int8" not in variants else "int8"
    out_dir = Path(out_dir)
    if out_dir.exists() and not overwrite:
        raise InputError(f"{out_dir} already exists; choose another folder or pass overwrite=True")
    calibration = calibration_pairs or (references, hypotheses)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.export-", dir=out_dir.parent))
    try:
        model = getattr(model, "module", model).float().eval()
        # The exported tokenizer is the one every later encoding uses; no padding/truncation in it.
        # A copy, so the caller's tokenizer is left as it was.
        tokenizer = type(tokenizer).from_str(tokenizer.to_str())
        tokenizer.no_padding()
        tokenizer.no_truncation()
        tokenizer.save(str(tmp / TOKENIZER_FILE))
        encoder = PairEncoder(
            tokenizer, max_length=max_length, closeness=model.head_config.gap_closeness
        )
        if model.head_config.gap_head and encoder.markers is None:
            raise InputError(
                "the model has a gap head but the tokenizer has no gap markers; export the "
                "tokenizer the model was trained with"
            )
        export_onnx(model, tmp / FP32_FILE)
        excluded: list[str] = []
        # Gap-aware graphs get static int8 (batch-invariant); pair graphs keep dynamic int8.
        static = model.head_config.gap_head
        feeds: list[dict[str, np.ndarray]] = []
        if ("int8" in variants and static) or "int8row" in variants:
            calib = encode_pairs(
                encoder, calibration[0], calibration[1], gap_aware=model.head_config.gap_head
            )
            feeds = [
                encoder.collate(calib[i : i + 16], model.input_names)
                for i in range(0, len(calib), 16)
            ]
        rowwise: dict[str, Any] = {}
        if "int8row" in variants:
            rowwise = _quantize.quantize_rowwise_int8(tmp / FP32_FILE, tmp / INT8ROW_FILE, feeds)
        if static and model.head_config.gap_closeness:
            # The closeness features (in [0, 1]) enter the gap head's first MatMul next to hidden
            # states of a far larger range; one static activation scale for both would round them
            # away, so that MatMul stays fp32 (int8row keeps it fp32 anyway: a down projection).
            int8_exclude = (*int8_exclude, CLOSENESS_MATMUL)
        if "int8" in variants and static:
            excluded = _quantize.quantize_static_int8(
                tmp / FP32_FILE, tmp / INT8_FILE, feeds, exclude=int8_exclude
            )
        elif "int8" in variants:
            excluded = _quantize.quantize_int8(
                tmp / FP32_FILE, tmp / INT8_FILE, exclude=int8_exclude
            )
        report = parity_report(
            model,
            encoder,
            references=references,
            hypotheses=hypotheses,
            fp32_path=tmp / FP32_FILE,
            int8_path=tmp / INT8_FILE if "int8" in variants else None,
            threads=threads,
            atol=parity_atol,
            variant_paths={"int8row": tmp / INT8ROW_FILE} if "int8row" in variants else None,
        )
        # The parity above is measured on the rewritten graph (export_onnx drops the NaN guards).
        report["graph_rewrites"] = [{"pass": "drop_softmax_nan_guards"}]
        report.update(
            {
                "opset": OPSET,
                "sitar_version": __version__,
                "torch": torch.__version__,
                "onnxruntime": ort().__version__,
            }
        )
        if "int8" in variants:
            report["int8"]["quantization"] = {
                **(_quantize.STATIC_QUANTIZATION if static else _quantize.QUANTIZATION),
                "exclude_patterns": list(int8_exclude),
                "n_nodes_excluded": len(excluded),
            }
        if "int8row" in variants:
            report["int8row"]["quantization"] = {**_quantize.ROWWISE_QUANTIZATION, **rowwise}
        if not report["fp32"]["passed"]:
            raise ParityError(
                f"ONNX fp32 export does not match torch: max abs diff score "
                f"{report['fp32']['max_abs_diff_score']:.3g}, ordinal logits "
                f"{report['fp32']['max_abs_diff_ordinal_logits']:.3g} (tolerance {parity_atol}); "
                "the checkpoint was not written. Check the exporter/opset or raise parity_atol "
                "only with a documented reason"
            )
        (tmp / PARITY_FILE).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        if "fp32" not in variants:
            (tmp / FP32_FILE).unlink()
        if include_torch:
            save_regressor(model, tmp / TORCH_SUBDIR)
        config = CheckpointConfig(
            name=name,
            backbone=backbone,
            max_length=max_length,
            onnx=OnnxConfig(
                files={
                    "fp32": FP32_FILE if "fp32" in variants else None,
                    "int8": INT8_FILE if "int8" in variants else None,
                    # Only when built, so that older readers still load the folder.
                    **({"int8row": INT8ROW_FILE} if "int8row" in variants else {}),
                },
                default=default_variant,
                inputs=tuple(model.input_names),
                outputs=tuple(model.output_names),
                opset=OPSET,
            ),
            tokenizer=TOKENIZER_FILE,
            score_scale=MAX_SCORE,
            thresholds=THRESHOLDS,
            rho=rho,
            loss_weights=dict(loss_weights) if loss_weights is not None else None,
            training_config_hash=training_config_hash,
            training=dict(training) if training is not None else None,
            extra={
                "pad_token_id": find_pad_id(tokenizer),
                "head": model.head_config.to_dict(),
                "parity": PARITY_FILE,
                **(
                    {"markers": encoder.markers.to_dict(), "scoring": {"head": "gaps"}}
                    if model.head_config.gap_head and encoder.markers is not None
                    else {}
                ),
                # The feature version the graph was trained on (checked before it is fed).
                **({"closeness": config_section()} if model.head_config.gap_closeness else {}),
                **dict(extra or {}),
            },
        )
        config.save(tmp)
        CheckpointConfig.load(tmp)  # validates the written folder, files included
        # Record the digests Scorer.load verifies: a fresh export is a verified checkpoint.
        from sitar.checkpoint import write_integrity

        write_integrity(tmp)
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return CheckpointConfig.load(out_dir)


def add_onnx_variant(
    folder: str | os.PathLike[str],
    *,
    references: Sequence[str],
    hypotheses: Sequence[str],
    variant: str = "int8row",
    make_default: bool = False,
    batch_size: int = 16,
) -> dict[str, Any]:
    """Build a quantized graph for an exported checkpoint from its fp32 ``model.onnx`` (ONNX ->
    ONNX, no torch weights needed), record it in ``sitar_config.json`` (and as ``onnx.default``
    with ``make_default``), add its drift against the fp32 graph to ``parity.json`` and rewrite
    the integrity digests. ``references``/``hypotheses`` are real pairs: they calibrate the
    quantization and measure the drift. Only ``int8row`` is supported. Returns the drift entry.
    """
    from dataclasses import replace

    from sitar.checkpoint import write_integrity
    from sitar.encoding import checkpoint_encoder

    if variant != "int8row":
        raise InputError(f"add_onnx_variant builds 'int8row' only, got {variant!r}")
    config = CheckpointConfig.load(folder)
    if config.folder is None:  # pragma: no cover - load() always sets it
        raise CheckpointError(f"{folder}: not a loaded checkpoint")
    fp32 = config.onnx_path("fp32")
    encoder = checkpoint_encoder(config)
    names = list(config.onnx.inputs)
    gap_aware = "gap_index" in names
    encoded = encode_pairs(encoder, references, hypotheses, gap_aware=gap_aware)
    if not encoded:
        raise InputError("add_onnx_variant needs at least one pair that fits (with a gap)")
    chunks = [encoded[i : i + batch_size] for i in range(0, len(encoded), batch_size)]
    feeds = [encoder.collate(chunk, names) for chunk in chunks]
    counts = [[e.n_gaps for e in chunk] for chunk in chunks]
    target = config.folder / VARIANT_FILES[variant]
    counts_q = _quantize.quantize_rowwise_int8(fp32, target, feeds)
    drift = graph_drift(
        run_onnx(target, feeds, None), run_onnx(fp32, feeds, None), counts, gap_head=gap_aware
    )
    entry: dict[str, Any] = {
        "reference": "fp32 ONNX graph (built ONNX -> ONNX, no torch)",
        "n_pairs": len(encoded),
        **drift,
        "quantization": {**_quantize.ROWWISE_QUANTIZATION, **counts_q},
    }
    parity_path = config.folder / PARITY_FILE
    parity = json.loads(parity_path.read_text(encoding="utf-8")) if parity_path.is_file() else {}
    parity[variant] = entry
    parity_path.write_text(json.dumps(parity, indent=2) + "\n", encoding="utf-8")
    onnx_config = replace(
        config.onnx,
        files={**dict(config.onnx.files), variant: VARIANT_FILES[variant]},
        default=variant if make_default else config.onnx.default,
    )
    replace(config, onnx=onnx_config).save(config.folder)
    write_integrity(config.folder)
    CheckpointConfig.load(config.folder)  # the folder verifies with the new graph
    return entry


def drop_onnx_variant(
    folder: str | os.PathLike[str],
    *,
    variant: str,
    default: str | None = None,
    reason: str,
) -> dict[str, Any]:
    """Remove the ``variant`` graph from an exported checkpoint: its file is deleted, its entry in
    ``sitar_config.json`` becomes ``null``, ``onnx.default`` becomes ``default`` (required when the
    dropped variant was the default) and the integrity digests are rewritten. ``parity.json`` keeps
    the dropped variant's measurements and gains a ``dropped_variants`` entry with the file's
    SHA-256, the previous checkpoint digest and ``reason``, so the checkpoint still records what
    it was made from. Returns that entry.

    Used to ship one graph per checkpoint (a package file of both fp32 and int8 graphs exceeds
    common index size limits)."""
    from dataclasses import replace

    from sitar.checkpoint import write_integrity
    from sitar.integrity import sha256_file

    if not reason or not reason.strip():
        raise InputError("drop_onnx_variant needs a reason (it is recorded in parity.json)")
    config = CheckpointConfig.load(folder)
    if config.folder is None:  # pragma: no cover - load() always sets it
        raise CheckpointError(f"{folder}: not a loaded checkpoint")
    available = config.onnx.available
    if variant not in available:
        raise InputError(
            f"checkpoint {config.name!r} has no {variant!r} graph to drop; available: "
            f"{list(available)}"
        )
    remaining = [v for v in available if v != variant]
    if not remaining:
        raise InputError(f"cannot drop {variant!r}: it is the checkpoint's only graph")
    new_default = default if default is not None else config.onnx.default
    if new_default == variant or new_default is None:
        raise InputError(
            f"{variant!r} is the default graph; name the new default (one of {remaining})"
        )
    if new_default not in remaining:
        raise InputError(f"the new default {new_default!r} is not a graph of this checkpoint")
    path = config.onnx_path(variant)
    data = json.loads((config.folder / CONFIG_FILE).read_text(encoding="utf-8"))
    entry: dict[str, Any] = {
        "variant": variant,
        "file": path.name,
        "sha256": sha256_file(path),
        "previous_checkpoint_digest": data.get("integrity", {}).get("digest"),
        "previous_default": config.onnx.default,
        "new_default": new_default,
        "reason": reason.strip(),
    }
    parity_path = config.folder / PARITY_FILE
    parity = json.loads(parity_path.read_text(encoding="utf-8")) if parity_path.is_file() else {}
    parity.setdefault("dropped_variants", []).append(entry)
    onnx_config = replace(
        config.onnx, files={**dict(config.onnx.files), variant: None}, default=new_default
    )
    parity_path.write_text(json.dumps(parity, indent=2) + "\n", encoding="utf-8")
    replace(config, onnx=onnx_config).save(config.folder)
    path.unlink()
    write_integrity(config.folder)
    CheckpointConfig.load(config.folder)  # the folder verifies without the graph
    return entry
