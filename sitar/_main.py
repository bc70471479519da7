"""One spine for every command-line tool: the ``sitar`` CLI and each ``python -m`` tool.

:func:`run_main` runs a tool's body and owns how it ends, the same way everywhere:

* a :class:`~sitar.errors.SitarError` is one line on stderr, ``PROG: error: MESSAGE`` (the prefix
  argparse uses for usage errors), and exit code 2;
* a broken pipe (output piped into ``head`` and closed early) ends quietly with exit code 0;
* another ``OSError`` (a write to ``/dev/full``, a file that cannot be opened) is one line naming
  the file, exit code 2;
* Ctrl-C (SIGINT) prints ``PROG: interrupted`` and exits 130; SIGTERM is turned into the same
  clean-up path (``with`` blocks and ``finally`` run, so no partial output file is left) and
  exits 143.

Tools use it as a decorator on ``main(argv=None) -> int``::

    @tool_main("python -m training.export")
    def main(argv=None) -> int: ...

Their parsers are :class:`ArgumentParser`, where every single-valued option refuses to be given
twice (:class:`SingleValue`: a repeated ``--hyp-file`` is an error, not "the last one wins"), and
a few flags a newcomer guesses get an error that names the right option: ``-r`` (the reference is
``--ref``/``--ref-file``), ``-h TEXT`` in a subcommand (``-h`` stays ``--help``; the hypothesis is
``--hyp``/``--hyp-file``), ``--jsonl`` where a command has no pairs file. Subcommand options are
never abbreviated (``--ref`` must not silently mean ``--ref-file``).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

from sitar.errors import SitarError

__all__ = ["ArgumentParser", "Overridable", "SingleValue", "run_main", "tool_main"]

_F = TypeVar("_F", bound=Callable[..., int])


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


def one_line(error: BaseException) -> str:
    """An error's message on one line (e.g. a multi-line error of huggingface_hub)."""
    return " ".join(str(error).split())


def run_main(body: Callable[[], int | None], *, prog: str) -> int:
    """Run ``body()`` and return its exit code, ending every failure the same way (see the
    module docstring). ``prog`` prefixes every message (``sitar score``, ``python -m training``)."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = body()
        if sys.stdout is not None:
            sys.stdout.flush()
        return int(code or 0)
    except SitarError as e:
        print(f"{prog}: error: {one_line(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error of ours; end quietly.
        _silence_stdout()
        return 0
    except OSError as e:
        # Typically a write to standard output that failed (`> /dev/full`); files are named.
        where = f"{e.filename}" if e.filename else "cannot write standard output"
        print(f"{prog}: error: {where}: {e.strerror or e}", file=sys.stderr)
        _silence_stdout()
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except _Terminated:
        print(f"{prog}: terminated", file=sys.stderr)
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def tool_main(prog: str) -> Callable[[_F], _F]:
    """Decorate a tool's ``main(argv=None) -> int`` so that it runs under :func:`run_main`.

    Usage errors of argparse (exit code 2 with usage) and ``--help`` pass through unchanged.
    """

    def decorate(main: _F) -> _F:
        @functools.wraps(main)
        def wrapped(*args: Any, **kwargs: Any) -> int:
            return run_main(lambda: main(*args, **kwargs), prog=prog)

        return wrapped  # type: ignore[return-value]

    return decorate


# -- argument parsing --------------------------------------------------------------------------------


class SingleValue(argparse._StoreAction):
    """``store``, except that giving the option a second time is a usage error.

    ``--hyp-file a.txt --hyp-file b.txt`` used to keep ``b.txt`` silently; which one was meant is
    unknowable, so the parser says so (exit code 2) instead.
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given: set[str] = namespace.__dict__.setdefault("_given_once", set())
        if self.dest in given:
            flag = "/".join(self.option_strings) or self.dest
            parser.error(
                f"{flag} was given more than once (last: {values!r}); give it once"
                + (" (repeat --system NAME=PATH for several systems)" if "hyp" in self.dest else "")
            )
        given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


class Overridable(argparse._StoreAction):
    """``store`` where the last value wins, on purpose: for options a wrapper presets and a user
    overrides by appending (the container image runs ``sitar serve --host 0.0.0.0 --port 8000``
    and ``docker run IMAGE --port 9000`` appends). Every other option is :class:`SingleValue`."""


_GUESSES = {
    "-r": "the reference is --ref TEXT or --ref-file PATH",
    "-R": "the reference is --ref TEXT or --ref-file PATH",
    "-H": "the hypothesis is --hyp TEXT or --hyp-file PATH",
    "--jsonl": "--jsonl FILE is the pairs file of gaps/score/explain; for a reference file and "
    "systems in JSONL give --format jsonl",
}


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with :class:`SingleValue` as the default action and hints for guessed
    flags; with ``help_takes_no_value=True`` (the default for subcommands) ``-h TEXT`` is an
    error naming ``--hyp`` rather than help that ignores the text."""

    def __init__(self, *args: Any, help_takes_no_value: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help_takes_no_value = help_takes_no_value
        self.register("action", None, SingleValue)
        self.register("action", "store", SingleValue)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self.help_takes_no_value and args is not None:
            tokens = list(args)
            for flag, value in itertools.pairwise(tokens):
                if flag in ("-h", "--help") and not value.startswith("-"):
                    self.error(
                        f"{flag} means --help and takes no value (got {value!r}); the "
                        "hypothesis is --hyp TEXT or --hyp-file PATH"
                    )
        parsed, extras = super().parse_known_args(args, namespace)
        parsed.__dict__.pop("_given_once", None)  # SingleValue's bookkeeping
        return parsed, extras

    def add_subparsers(self, **kwargs: Any) -> Any:
        kwargs.setdefault("parser_class", _SubcommandParser)
        return super().add_subparsers(**kwargs)

    def error(self, message: str) -> NoReturn:
        hints = [
            hint
            for flag, hint in _GUESSES.items()
            if re.search(rf"(^|[\s:]){re.escape(flag)}(\s|$)", message)
        ]
        if hints:
            message += f" ({'; '.join(hints)})"
        super().error(message)


class _SubcommandParser(ArgumentParser):
    """A subcommand's parser: ``-h TEXT`` is refused, and options are never abbreviated (an
    abbreviation can silently mean another option: ``--ref`` in ``compare`` would be
    ``--ref-file``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("help_takes_no_value", True)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
