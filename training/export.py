"""``python -m training.export --run RUN_DIR --out FOLDER``: a training run -> a SITAR checkpoint.

Loads the run's best weights (``best/torch``), its ``tokenizer.json`` and ``config.yaml``, picks real
validation pairs for the parity check (spread over the length range, longest included) and calls
:func:`sitar.modeling.export_checkpoint`, which writes ``sitar_config.json``, ``tokenizer.json``,
``model.onnx``/``model.int8.onnx``, ``parity.json`` and ``torch/``. The checkpoint records the training
config, its hash, the data signatures and the best validation metrics. ``--step N`` exports the
weights of evaluation N instead (kept by a run with ``keep_eval_weights: true``), for a step chosen
on other data; the checkpoint then records that step, its validation metrics and the weights' hash.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError

__all__ = ["add_variant", "export_run", "main", "parity_pairs"]


def parity_pairs(
    records: Sequence[Any], tokenizer: Any, *, max_length: int, n: int
) -> tuple[list[str], list[str]]:
    """Up to ``n`` (reference, hypothesis) pairs that fit ``max_length``, evenly spread over the
    token-length range (shortest and longest included)."""
    fitting = []
    for r in records:
        length = len(tokenizer.encode(r.reference, r.hypothesis).ids)
        if length <= max_length:
            fitting.append((length, r.id, r))
    if not fitting:
        raise InputError(f"no record fits max_length={max_length}; cannot check parity")
    fitting.sort(key=lambda x: (x[0], x[1]))
    if len(fitting) > n:
        step = (len(fitting) - 1) / max(1, n - 1)
        fitting = [fitting[round(i * step)] for i in range(n)]
    return [x[2].reference for x in fitting], [x[2].hypothesis for x in fitting]


def export_run(
    run_dir: str | Path,
    out: str | Path,
    *,
    name: str | None = None,
    variants: Sequence[str] = ("fp32", "int8"),
    default_variant: str = "int8",
    parity_split: str | None = None,
    parity_n: int = 64,
    include_torch: bool = True,
    overwrite: bool = False,
    parity_atol: float | None = None,
    int8_exclude: Sequence[str] = (),
    step: int | None = None,
    weights: str | Path | None = None,
    head: str | None = None,
) -> Any:
    """Export the best weights of ``run_dir`` into the checkpoint folder ``out``; returns its
    :class:`~sitar.checkpoint.CheckpointConfig`.

    With ``step``, export the weights of that evaluation instead: ``weights`` (a
    ``model.safetensors`` state dict of this run's model), by default
    ``<run_dir>/evals/step-<step>/model.safetensors`` (written with ``keep_eval_weights``). The
    checkpoint then records the step, the file's SHA-256 and that step's validation metrics (from
    ``metrics.jsonl``) instead of the best step's. ``head`` (``gaps`` or ``pair``) is the scoring
    head a gap-aware checkpoint uses by default (default ``gaps``; recorded as ``scoring.head``)."""
    from sitar.modeling import export_checkpoint, load_regressor, load_tokenizer
    from sitar.modeling.parity import DEFAULT_PARITY_ATOL
    from training.config import CONFIG_FILE, load_config
    from training.data import load_splits

    run_dir = Path(run_dir)
    if not (run_dir / CONFIG_FILE).is_file():
        raise InputError(f"{run_dir} is not a training run: {CONFIG_FILE} is missing")
    if not (run_dir / "best" / "torch").is_dir():
        raise InputError(f"{run_dir} has no best/ weights yet (no evaluation has run)")
    config = load_config(run_dir / CONFIG_FILE)
    model = load_regressor(run_dir / "best")
    tokenizer = load_tokenizer(run_dir / "tokenizer.json")
    splits = load_splits(config.data, drop_ops=config.drop_ops)
    split = parity_split or config.eval_split
    if split not in splits:
        raise InputError(f"no records with split {split!r} for the parity check")
    refs, hyps = parity_pairs(splits[split], tokenizer, max_length=config.max_length, n=parity_n)
    best = json.loads((run_dir / "best" / "best.json").read_text(encoding="utf-8"))
    selected: dict[str, Any] | None = None
    if weights is not None and step is None:
        raise InputError("weights needs the step they were saved at (--step)")
    if step is not None:
        path = Path(weights) if weights is not None else _eval_weights(run_dir, step)
        model = _load_step_weights(model, path)
        best = _eval_record(run_dir, step)
        selected = {"step": step, "file": str(path), "sha256": _sha256(path)}
    data = (
        json.loads((run_dir / "data.json").read_text(encoding="utf-8"))
        if (run_dir / "data.json").is_file()
        else None
    )
    training = {
        "config": config.to_dict(),
        "seed": config.seed,
        "best_validation": best,
        "data": data,
        # the spec §9 (docs/spec.md) signatures the records carry (how their segmentation and targets were made)
        "record_signatures": {
            name: sorted({r.signature for r in records if r.signature})
            for name, records in sorted(splits.items())
        },
        "run_dir": str(run_dir),
    }
    if selected is not None:
        training["selected_weights"] = selected
    exported = export_checkpoint(
        model,
        tokenizer,
        out,
        name=name or config.name,
        backbone=config.backbone,
        max_length=config.max_length,
        references=refs,
        hypotheses=hyps,
        variants=variants,
        default_variant=default_variant,
        include_torch=include_torch,
        loss_weights={
            "boundary": config.lambda_boundary,
            "ordinal": config.lambda_ordinal,
            **({"gap": config.lambda_gap} if config.gap_head else {}),
        },
        rho=config.rho,
        training=training,
        training_config_hash=config.hash(),
        parity_atol=DEFAULT_PARITY_ATOL if parity_atol is None else parity_atol,
        overwrite=overwrite,
        int8_exclude=int8_exclude,
        extra=_scoring_extra(config, head),
        # Static int8 (gap-aware graphs) is calibrated on more validation pairs than parity uses.
        calibration_pairs=parity_pairs(
            splits[split], tokenizer, max_length=config.max_length, n=max(parity_n, 256)
        ),
    )
    # Record the SHA-256 digests that Scorer.load verifies (sitar.integrity).
    from sitar.checkpoint import CheckpointConfig, write_integrity

    write_integrity(exported.folder)
    return CheckpointConfig.load(exported.folder)


def _scoring_extra(config: Any, head: str | None) -> dict[str, Any]:
    """The checkpoint's ``scoring`` section: its default head and, for a run trained on
    normalised text, ``normalize: sitar`` (what :func:`sitar.options.default_normalization`
    reads) and, for a normal form other than version 2, ``normal_form`` (what
    :func:`sitar.options.default_normal_form` reads)."""
    scoring: dict[str, Any] = {}
    if head is not None:
        if head not in ("gaps", "pair"):
            raise InputError(f"head must be 'gaps' or 'pair', got {head!r}")
        if head == "gaps" and not config.gap_head:
            raise InputError("head 'gaps' needs a run trained with gap_head: true")
        if config.gap_head:
            scoring["head"] = head
    if getattr(config, "normalize", "none") == "sitar":
        scoring["normalize"] = "sitar"
        from sitar.normalize import NORMALIZER_VERSION

        form = getattr(config, "normal_form", NORMALIZER_VERSION)
        if form != NORMALIZER_VERSION:
            scoring["normal_form"] = form
    return {"scoring": scoring} if scoring else {}


def _eval_weights(run_dir: Path, step: int) -> Path:
    path = run_dir / "evals" / f"step-{step}" / "model.safetensors"
    if not path.is_file():
        kept = (
            sorted(p.name for p in (run_dir / "evals").glob("step-*"))
            if (run_dir / "evals").is_dir()
            else []
        )
        raise InputError(
            f"{run_dir} kept no weights for step {step} ({path} is missing; kept: "
            f"{kept or 'none, train with keep_eval_weights=true'})"
        )
    return path


def _load_step_weights(model: Any, path: Path) -> Any:
    from safetensors.torch import load_file

    if not path.is_file():
        raise InputError(f"weights file not found: {path}")
    try:
        model.load_state_dict(load_file(str(path)), strict=True)
    except (OSError, RuntimeError, ValueError) as e:
        raise InputError(f"cannot load {path} into this run's model: {e}") from e
    model.eval()
    return model


def _eval_record(run_dir: Path, step: int) -> dict[str, Any]:
    """The validation metrics of evaluation ``step`` from ``metrics.jsonl``."""
    path = run_dir / "metrics.jsonl"
    found = None
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line) if line.strip() else {}
            if "eval" in entry and entry["eval"].get("step") == step:
                found = entry["eval"]
    if found is None:
        raise InputError(f"{run_dir} has no evaluation at step {step} in metrics.jsonl")
    return dict(found)


def _sha256(path: Path) -> str:
    from sitar.integrity import sha256_file

    return "sha256:" + sha256_file(path)


def add_variant(
    checkpoint: str | Path, records: str | Path, *, variant: str, n: int, make_default: bool
) -> dict[str, Any]:
    """Build ``variant`` for an exported checkpoint from its fp32 graph (see
    :func:`sitar.modeling.export.add_onnx_variant`), calibrated on ``n`` pairs of ``records``
    (evenly spread over their token lengths, as the parity pairs of an export)."""
    from sitar.checkpoint import CheckpointConfig
    from sitar.encoding import load_tokenizer_file
    from sitar.modeling.export import add_onnx_variant
    from sitar.records import read_records

    config = CheckpointConfig.load(checkpoint)
    tokenizer = load_tokenizer_file(config.tokenizer_path)
    refs, hyps = parity_pairs(
        list(read_records(records)), tokenizer, max_length=config.max_length, n=n
    )
    return add_onnx_variant(
        checkpoint,
        references=refs,
        hypotheses=hyps,
        variant=variant,
        make_default=make_default,
    )


def _edit_checkpoint(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``--add-variant`` / ``--drop-variant`` on an exported folder; prints the recorded entry."""
    from sitar.modeling.export import drop_onnx_variant

    if args.add_variant and args.drop_variant:
        parser.error("--add-variant and --drop-variant are separate steps; run one at a time")
    if args.add_variant and (not args.checkpoint or not args.records):
        parser.error("--add-variant needs --checkpoint and --records")
    if args.drop_variant and (not args.checkpoint or not args.reason):
        parser.error("--drop-variant needs --checkpoint and --reason")
    if args.add_variant:
        entry = add_variant(
            args.checkpoint,
            args.records,
            variant=args.add_variant,
            n=args.records_n,
            make_default=args.make_default,
        )
    else:
        entry = drop_onnx_variant(
            args.checkpoint,
            variant=args.drop_variant,
            default=args.default_variant,
            reason=args.reason,
        )
    print(json.dumps(entry, indent=2))
    return 0


@tool_main("python -m training.export")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m training.export",
        description="Export a training run's best weights as a SITAR checkpoint folder "
        "(ONNX fp32 + int8, tokenizer.json, sitar_config.json, parity.json, torch/).",
    )
    parser.add_argument("--run", help="training run directory (output_dir)")
    parser.add_argument("--out", help="checkpoint folder to create")
    parser.add_argument(
        "--add-variant",
        choices=("int8row",),
        help="instead of exporting a run: build this variant for the existing checkpoint "
        "--checkpoint from its fp32 model.onnx (ONNX -> ONNX), calibrated on --records",
    )
    parser.add_argument(
        "--drop-variant",
        choices=("fp32", "int8", "int8row"),
        help="instead of exporting a run: delete this variant's graph from the existing "
        "checkpoint --checkpoint (recorded in parity.json with --reason; a dropped default "
        "needs --default-variant)",
    )
    parser.add_argument("--reason", help="with --drop-variant: why (recorded in parity.json)")
    parser.add_argument(
        "--checkpoint", help="with --add-variant or --drop-variant: the checkpoint folder"
    )
    parser.add_argument("--records", help="with --add-variant: record file (JSONL) of real pairs")
    parser.add_argument(
        "--records-n", type=int, default=256, help="with --add-variant: pairs to use"
    )
    parser.add_argument(
        "--make-default", action="store_true", help="with --add-variant: make it onnx.default"
    )
    parser.add_argument("--name", help="checkpoint name (default: the run's config name)")
    parser.add_argument(
        "--variants",
        default="fp32,int8",
        help="comma-separated ONNX variants: fp32,int8,int8row (int8row: row-wise dynamic int8, "
        "batch-invariant)",
    )
    parser.add_argument(
        "--default-variant",
        choices=("fp32", "int8", "int8row"),
        help="default graph of the exported checkpoint (default: int8), or with --drop-variant "
        "the new default",
    )
    parser.add_argument("--parity-split", help="record split for the parity pairs")
    parser.add_argument("--parity-n", type=int, default=64, help="number of parity pairs")
    parser.add_argument("--parity-atol", type=float, help="fp32 parity tolerance")
    parser.add_argument(
        "--int8-exclude",
        default="",
        help="comma-separated node-name substrings whose MatMuls stay fp32 in the int8 graph "
        "(e.g. /key/,/output/dense/): less int8 drift, less speed-up",
    )
    parser.add_argument(
        "--step",
        type=int,
        help="export the weights of this evaluation instead of best/ (kept with "
        "keep_eval_weights=true in <run>/evals/step-N/)",
    )
    parser.add_argument(
        "--weights", help="with --step: a model.safetensors of this run to export instead"
    )
    parser.add_argument(
        "--head",
        choices=("gaps", "pair"),
        help="scoring head a gap-aware checkpoint uses by default (default: gaps)",
    )
    parser.add_argument("--no-torch", action="store_true", help="do not ship torch/ weights")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing folder")
    args = parser.parse_args(argv)
    if args.add_variant or args.drop_variant:
        return _edit_checkpoint(args, parser)
    if not args.run or not args.out:
        parser.error("--run and --out are required (or --add-variant with --checkpoint)")
    config = export_run(
        args.run,
        args.out,
        name=args.name,
        variants=tuple(v.strip() for v in args.variants.split(",") if v.strip()),
        default_variant=args.default_variant or "int8",
        parity_split=args.parity_split,
        parity_n=args.parity_n,
        include_torch=not args.no_torch,
        overwrite=args.overwrite,
        parity_atol=args.parity_atol,
        int8_exclude=tuple(p for p in args.int8_exclude.split(",") if p),
        step=args.step,
        weights=args.weights,
        head=args.head,
    )
    parity = json.loads((Path(args.out) / "parity.json").read_text(encoding="utf-8"))
    print(f"wrote {config.folder} ({', '.join(config.onnx.available)})")
    print(json.dumps(parity, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
