"""Griffe extension for the API pages: docstrings written for ``doctest`` and Sphinx read as Markdown.

SITAR's docstrings hold ``>>>`` examples and reST roles (``:func:`segment```). Markdown would read an
example's output such as ``[('deletion', 'not', '')]`` as a link, so each run of ``>>>`` lines and
their output (up to a blank line, as ``doctest`` reads it) is fenced as a ``pycon`` block, and a role
becomes a code span. tests/docs/test_docs_site.py runs these examples with ``doctest``.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension

_ROLE = re.compile(r":(?:py:)?[a-z]+:`~?([^`]+)`")


def fence_doctests(text: str) -> str:
    """Wrap every doctest example run in a ``pycon`` fence; turn reST roles into code spans."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
            continue
        out.append(_ROLE.sub(r"`\1`", line))
        i += 1
    return "\n".join(out)


class DoctestFences(Extension):
    def on_object(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
