"""Writing a command's output: checked before any work, written atomically.

Outputs go through :func:`open_output`: the destination is checked before any work
(:func:`check_output_path`), a file is written to a temporary name in the same folder and moved
into place with :func:`os.replace` only when the command succeeds, so a failed or interrupted run
(disk full, Ctrl-C, SIGTERM) never leaves a partial file under the final name and never truncates
an existing one. The temporary file is ``.<name>.<pid>.<random>.part``; a writer killed with
SIGKILL (or a power cut) cannot remove it, so the next write to the same destination removes
every such file whose process no longer runs on this machine (:func:`remove_stale_parts`).
:mod:`sitar.io` re-exports these names (they lived there before).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

from sitar.errors import OutputError

__all__ = ["check_output_path", "open_output", "remove_stale_parts"]


def _is_stdout(path: str | os.PathLike[str] | None) -> bool:
    return path is None or str(path) == "-"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def check_output_path(
    path: str | os.PathLike[str] | None,
    *,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
    flag: str = "-o/--output",
) -> None:
    """Refuse a destination that cannot be written, before any work is done.

    ``None`` or ``-`` is standard output (it must be open). Otherwise the folder must exist and be
    writable, the path must not be a directory or a read-only file, and it must not be the same
    file as any of ``inputs`` (also through a symbolic or hard link). Every refusal is an
    :class:`OutputError` naming ``flag``.
    """
    if _is_stdout(path):
        if sys.stdout is None:
            raise OutputError(f"standard output is closed; write to a file with {flag} PATH")
        return
    assert path is not None
    p = Path(path)
    if str(path) == "":
        raise OutputError(f"{flag} needs a file name, got ''")
    if p.is_dir():
        raise OutputError(f"{flag} {p} is a directory; give a file name")
    dest = Path(os.path.realpath(p))
    if dest.exists() and not dest.is_file():
        # /dev/null, /dev/stdout, a named pipe...: written in place (nothing to replace).
        if not os.access(dest, os.W_OK):
            raise OutputError(f"{flag} {p}: permission denied")
        return
    parent = dest.parent
    if not parent.is_dir():
        raise OutputError(f"{flag} {p}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{flag} {p}: the folder {parent} is not writable")
    if dest.exists() and not os.access(dest, os.W_OK):
        raise OutputError(f"{flag} {p} is read-only; remove it or choose another name")
    for item in inputs:
        if item is None or str(item) == "-":
            continue
        if dest.exists() and _same_file(dest, Path(item)):
            raise OutputError(
                f"{flag} {p} is the same file as the input {item}; writing it would destroy the "
                "input, choose another name"
            )


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_error(name: str, e: OSError) -> OutputError:
    return OutputError(f"cannot write {name}: {e.strerror or e}")


_PART = re.compile(r"\.(?P<name>.+)\.(?P<pid>[0-9]+)\.[A-Za-z0-9_]+\.part")


def _running(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: the process exists, under another user
        return True
    return True


def remove_stale_parts(dest: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files that :func:`open_output` writers of ``dest`` left behind when
    they were killed (their pid no longer runs); return what was removed. Files of a writer that
    still runs, of other destinations and of other names are never touched."""
    dest = Path(dest)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(dest.parent))
    except OSError:
        return removed
    for entry in entries:
        m = _PART.fullmatch(entry.name)
        if m is None or m["name"] != dest.name or _running(int(m["pid"])):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


@contextlib.contextmanager
def open_output(
    path: str | os.PathLike[str] | None,
    *,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
    flag: str = "-o/--output",
) -> Iterator[TextIO]:
    """A text stream for a command's output: standard output for ``None``/``-``, else a file.

    A file is written atomically: to a temporary file in the destination's folder that replaces
    the destination (following a symbolic link to its target) only when the ``with`` block ends
    without an exception. On any failure, including ``KeyboardInterrupt`` and a full disk, the
    temporary file is removed and an existing destination is left untouched; ``OSError`` while
    writing becomes an :class:`OutputError`. An existing destination keeps its permissions.
    """
    check_output_path(path, inputs=inputs, flag=flag)
    if _is_stdout(path):
        assert sys.stdout is not None
        yield sys.stdout
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise _write_error("standard output", e) from e
        return
    assert path is not None
    dest = Path(os.path.realpath(path))
    if dest.exists() and not dest.is_file():
        try:
            with open(dest, "w", encoding="utf-8", newline="") as fh:
                yield fh
        except OSError as e:
            raise _write_error(str(path), e) from e
        return
    mode = stat.S_IMODE(dest.stat().st_mode) if dest.exists() else 0o666 & ~_umask()
    remove_stale_parts(dest)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{dest.name}.{os.getpid()}.", suffix=".part", dir=dest.parent
        )
    except OSError as e:
        raise _write_error(str(path), e) from e
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, dest)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if e.errno in (errno.EPIPE,):
            raise
        raise _write_error(str(path), e) from e
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
