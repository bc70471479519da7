"""The ``sitar`` command line: a thin layer over the Python API.

``main(argv=None) -> int`` parses arguments, runs one subcommand and maps every
:class:`~sitar.errors.SitarError` to exit code 2 with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from sitar._version import __version__
from sitar.errors import SitarError

__all__ = ["build_parser", "main"]

#: Subcommand modules under sitar.commands, in help order.
COMMANDS = ("gaps", "score", "explain", "compare", "report", "serve")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sitar",
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
    try:
        return int(args.func(args))
    except SitarError as e:
        print(f"sitar {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error of ours.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("sitar: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
