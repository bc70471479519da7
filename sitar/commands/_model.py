"""Options shared by the commands that load a checkpoint (score, explain, compare, report)."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_model_arguments", "load_scorer"]


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """Checkpoint, backend and batching options, with the same meaning in every command."""
    model = parser.add_argument_group("model")
    model.add_argument(
        "--checkpoint",
        metavar="PATH_OR_HUB_ID",
        default=None,
        help="checkpoint folder or Hugging Face repo id (default: the packaged default checkpoint)",
    )
    model.add_argument(
        "--revision", default=None, help="Hugging Face revision (branch, tag or commit)"
    )
    model.add_argument(
        "--backend",
        choices=("onnx", "torch"),
        default="onnx",
        help="onnx: ONNX Runtime on CPU (default); torch: needs torch and the checkpoint's torch/",
    )
    model.add_argument(
        "--variant",
        choices=("int8", "fp32"),
        default=None,
        help="ONNX graph to use (default: the checkpoint's default)",
    )
    model.add_argument(
        "--device", default=None, help="torch device for --backend torch (default: GPU if any)"
    )
    model.add_argument(
        "--analyzer",
        default=None,
        help="CGD analyzer for gaps and long-input windows (default: 'lexicon')",
    )
    model.add_argument(
        "--head",
        choices=("gaps", "pair"),
        default=None,
        help="scoring head: gaps (per-gap positions + SPEC §5, gap-aware checkpoints) or pair "
        "(default: the checkpoint's choice)",
    )
    model.add_argument(
        "--batch-size", type=int, default=32, metavar="N", help="pairs per batch (default 32)"
    )
    model.add_argument(
        "--threads", type=int, default=None, metavar="N", help="CPU threads for inference"
    )


def load_scorer(args: argparse.Namespace) -> Any:
    from sitar.scorer import Scorer

    return Scorer.load(
        args.checkpoint,
        backend=args.backend,
        variant=args.variant,
        threads=args.threads,
        device=args.device,
        revision=args.revision,
        analyzer=args.analyzer,
        head=getattr(args, "head", None),
    )
