"""The ``sitar`` command line: a thin layer over the Python API.

``main(argv=None) -> int`` parses arguments, runs one subcommand and maps every
:class:`~sitar.errors.SitarError` to exit code 2 with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence

from sitar._version import __version__
from sitar.errors import SitarError

__all__ = ["build_parser", "main"]

#: Subcommand modules under sitar.commands, in help order.
COMMANDS = ("gaps", "score", "explain", "compare", "report", "serve", "checkpoint")


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


class _Terminated(BaseException):
    """Raised by the SIGTERM handler so that open outputs are cleaned up like on Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = int(args.func(args))
        if sys.stdout is not None:
            sys.stdout.flush()
        return code
    except SitarError as e:
        # One line, whatever the message embeds (e.g. a multi-line error of huggingface_hub).
        message = " ".join(str(e).split())
        print(f"sitar {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error of ours; end quietly.
        _silence_stdout()
        return 0
    except OSError as e:
        # Typically a write to standard output that failed (`> /dev/full`); files are named.
        where = f"{e.filename}" if e.filename else "cannot write standard output"
        print(f"sitar {args.command}: error: {where}: {e.strerror or e}", file=sys.stderr)
        _silence_stdout()
        return 2
    except KeyboardInterrupt:
        print("sitar: interrupted", file=sys.stderr)
        return 130
    except _Terminated:
        print("sitar: terminated", file=sys.stderr)
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
