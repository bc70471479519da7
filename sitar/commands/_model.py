"""Options shared by the subcommands: the scorer options of the commands that load one (score,
explain, compare, report; :func:`sitar.options.add_scorer_arguments`) and the run options of every
command that can run long (``--progress/--no-progress``, ``--quiet``), plus deprecated flag
spellings.

Flag conventions (the same meaning in every subcommand):

* ``--format`` is the format of every *input* file (:data:`sitar.io.FORMATS`); without it, the
  files' common extension (``.trn``, ``.stm``, ``.csv``, ``.tsv``), else ``text`` (one utterance
  per line), and files that would also read as Kaldi, trn or stm are refused until ``--format``
  says which (:func:`sitar.io.resolve_format`); ``--ref-column``/``--hyp-column``/``--id-column``
  name the fields of ``nemo``, ``csv`` and ``tsv`` files;
* ``--jsonl PATH`` is one JSONL file of pairs (gaps, score, explain);
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

from sitar.options import add_scorer_arguments, options_from_args

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
    """Every scorer option (:func:`sitar.options.add_scorer_arguments`) and ``--batch-size``,
    with the same meaning in every command."""
    model = parser.add_argument_group("model")
    add_scorer_arguments(model)
    model.add_argument(
        "--batch-size", type=int, default=32, metavar="N", help="pairs per batch (default 32)"
    )


def load_scorer(args: argparse.Namespace) -> Any:
    from sitar.scorer import Scorer

    return Scorer.load(options_from_args(args))


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
