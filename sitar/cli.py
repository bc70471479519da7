"""The ``sitar`` command line: a thin layer over the Python API.

``main(argv=None) -> int`` parses arguments and runs one subcommand under the spine every SITAR
tool shares (:func:`sitar._main.run_main`): a :class:`~sitar.errors.SitarError` is exit code 2
with one line ``sitar COMMAND: error: ...`` on stderr, a broken pipe ends quietly, Ctrl-C exits
130 and SIGTERM 143. Options are parsed by :class:`sitar._main.ArgumentParser`: a single-valued
option given twice is a usage error (exit code 2). ``-h`` is help; ``-h TEXT`` in a subcommand is
an error naming ``--hyp`` (and ``-r`` one naming ``--ref``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from sitar._main import ArgumentParser, run_main
from sitar._version import __version__

__all__ = ["build_parser", "main"]

#: Subcommand modules under sitar.commands, in help order.
COMMANDS = ("gaps", "score", "explain", "compare", "report", "serve", "checkpoint")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="sitar",
        allow_abbrev=False,
        description="SITAR: situational distortion scoring for ASR transcripts.",
    )
    parser.add_argument("--version", action="version", version=f"sitar {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"sitar.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return run_main(lambda: int(args.func(args)), prog=f"sitar {args.command}")


if __name__ == "__main__":
    sys.exit(main())
