"""Options shared by the subcommands: the checkpoint options of the commands that load one
(score, explain, compare, report) and the run options of every command that can run long
(``--progress/--no-progress``, ``--quiet``), plus deprecated flag spellings.

Flag conventions (the same meaning in every subcommand):

* ``--format`` is the *input* file format; ``text`` (one utterance per line) is the default
  everywhere (``compare``/``report`` still read ``kaldi`` when ``--format`` is not given, with a
  notice, for one release);
* ``--jsonl-out`` switches the main output to JSONL (one object per line);
* ``--json-out PATH`` writes one JSON document to PATH (``-``: standard output);
* ``-o/--output PATH`` is the main output file (default or ``-``: standard output);
* ``--json`` is deprecated (one release): ``--jsonl-out`` in score/gaps/explain,
  ``--json-out -`` in compare.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sitar.checkpoint import ONNX_VARIANTS

__all__ = [
    "DeprecatedFlag",
    "add_model_arguments",
    "add_run_arguments",
    "load_scorer",
    "notice",
    "want_progress",
]


class DeprecatedFlag(argparse.Action):
    """A ``store_const``-like flag that still works for one release and prints a warning."""

    def __init__(
        self,
        option_strings: list[str],
        dest: str,
        *,
        const: Any = True,
        replacement: str = "",
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("help", f"deprecated: use {replacement}")
        super().__init__(option_strings, dest, nargs=0, const=const, **kwargs)
        self.replacement = replacement

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(
            f"{parser.prog}: warning: {option_string} is deprecated and will be removed in the "
            f"next release; use {self.replacement}",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, self.const)


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """``--progress/--no-progress`` and ``--quiet``, the same in every long-running command."""
    run = parser.add_argument_group("run")
    run.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: only when stderr is a terminal)",
    )
    run.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bar and no notices on stderr (errors are still printed)",
    )


def want_progress(args: argparse.Namespace) -> bool:
    """Whether to show a progress bar: ``--progress`` forces it, ``--quiet``/``--no-progress``
    suppress it, and by default it shows only on a terminal with tqdm installed."""
    if getattr(args, "quiet", False):
        return False
    flag = getattr(args, "progress", None)
    if flag is not None:
        return bool(flag)
    if sys.stderr is None or not sys.stderr.isatty():
        return False
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False  # the automatic bar is cosmetic; --progress asks for it explicitly
    return True


def notice(args: argparse.Namespace, message: str) -> None:
    """A one-line notice on stderr, unless ``--quiet``."""
    if not getattr(args, "quiet", False) and sys.stderr is not None:
        print(f"sitar {args.command}: note: {message}", file=sys.stderr)


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
        "--allow-unverified",
        action="store_true",
        help="score with a checkpoint whose digests are missing or cover less than this sitar "
        "requires (a warning, and -unverified in the signature); refused without this flag",
    )
    model.add_argument(
        "--backend",
        choices=("onnx", "torch"),
        default="onnx",
        help="onnx: ONNX Runtime on CPU (default); torch: needs torch and the checkpoint's torch/",
    )
    model.add_argument(
        "--variant",
        choices=ONNX_VARIANTS,
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
    add_gap_head_arguments(model)
    model.add_argument(
        "--batch-size", type=int, default=32, metavar="N", help="pairs per batch (default 32)"
    )
    model.add_argument(
        "--threads", type=int, default=None, metavar="N", help="CPU threads for inference"
    )


def add_gap_head_arguments(parser: Any) -> None:
    """``--tie-breaker 2|3`` and ``--decode mean|median`` (``sitar.gapscore.TIE_BREAK_VERSIONS``
    and ``DECODE_RULES``, not imported here: it would load numpy to build a parser), for every
    command that loads a scorer."""
    parser.add_argument(
        "--tie-breaker",
        type=int,
        choices=(2, 3),
        default=None,
        help="gap head: the rule that orders pairs with the same SPEC §5 counts, 3 (default: "
        "severity of the top gaps and extent of the gaps) or 2 (pair head); tb: in the signature",
    )
    parser.add_argument(
        "--decode",
        choices=("mean", "median"),
        default=None,
        help="gap head: how a gap's ordinal logits become its position, mean (default: the "
        "rounded expected position) or median (the thresholds passed with probability > 1/2; "
        "dec:median in the signature)",
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
        tie_breaker=getattr(args, "tie_breaker", None),
        decode=getattr(args, "decode", None),
        allow_unverified=getattr(args, "allow_unverified", False),
    )


def add_explain_method_argument(parser: argparse.ArgumentParser) -> None:
    """``--method auto|gaps|rescore``: how gaps get their tiers (``sitar explain``, ``sitar
    report``; see :func:`sitar.diagnostics.explain_many`)."""
    parser.add_argument(
        "--method",
        choices=("auto", "gaps", "rescore"),
        default="auto",
        help="gaps: per-gap tiers from the scoring pass itself (gap-aware checkpoints); rescore: "
        "score each single-gap hypothesis (one extra model input per gap); auto (default): gaps "
        "when the checkpoint scores with its gap head",
    )
