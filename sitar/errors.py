"""SITAR's exception hierarchy.

Every error the package raises on purpose is a :class:`SitarError`. Messages say what was wrong,
what was expected versus what was received, and how to fix it. The CLI maps any ``SitarError`` to
exit code 2 with a one-line message.
"""

from __future__ import annotations

__all__ = [
    "CheckpointError",
    "InputError",
    "MissingDependencyError",
    "OutputError",
    "RecordError",
    "SitarError",
]


class SitarError(Exception):
    """Base class for all errors raised deliberately by SITAR."""


class InputError(SitarError, ValueError):
    """User input is malformed: wrong types, mismatched lengths, bad files, unknown IDs."""


class RecordError(InputError):
    """A data record (JSONL/Parquet line) does not follow the record schema."""


class OutputError(SitarError):
    """An output cannot be written: a bad destination, a full disk, a closed standard output."""


class CheckpointError(SitarError):
    """A checkpoint folder is missing a file or holds an inconsistent configuration."""


class MissingDependencyError(SitarError, ImportError):
    """A package needed for the requested feature is not installed.

    ``extra`` names the ``sitar[...]`` extra that installs it; ``None`` means a dependency of the core
    install (a broken environment: reinstalling sitar brings it back).
    """

    def __init__(self, package: str, feature: str, extra: str | None = None) -> None:
        # From a clone (the package is not on an index): pip install ".[extra]" in its folder.
        hint = (
            f"pip install '.[{extra}]' in a clone of sitar (or 'sitar[{extra}]' from an index)"
            if extra
            else f"pip install {package}"
        )
        super().__init__(
            f"{feature} needs the package {package!r}, which is not installed; install it with: {hint}"
        )
        self.package = package
        self.feature = feature
        self.extra = extra
