"""The one check of the texts SITAR is asked to score: the CLI, the API and the service share it.

A text reaches the tokenizer, CGD and the model only if it is a ``str`` that is valid Unicode,
i.e. encodable as UTF-8. A lone surrogate (``"\\ud800"``: valid JSON, and what Python makes of
undecodable bytes with ``surrogateescape``) is a ``str`` that is not: the Rust tokenizer refuses it
with an untyped ``TypeError`` deep inside a batch. Every entry point therefore checks texts here
first and raises an :class:`~sitar.errors.InputError` that names the text and the character:

* :func:`check_text` one text (the CLI's readers in :mod:`sitar.io`, ``explain``);
* :func:`check_texts` one list of texts (the explanation and comparison sources);
* :func:`check_pairs` parallel references and hypotheses (``Scorer.score`` / ``analyze``, the
  encoder, ``sitar serve``'s ``/v1/score``, where an ``InputError`` is HTTP 422).

Every other string is accepted: control characters, NUL, non-characters and private-use code
points are separators or ordinary characters to SPEC §1 and the tokenizer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sitar.errors import InputError

__all__ = ["check_pairs", "check_text", "check_texts"]


def check_text(text: Any, where: str) -> str:
    """``text`` if it is a ``str`` of valid Unicode, else an :class:`InputError` naming
    ``where`` (a field name such as ``"references[3]"`` or a file position)."""
    if not isinstance(text, str):
        raise InputError(f"{where} must be a str, got {type(text).__name__}")
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise InputError(
                f"{where}: not valid Unicode (lone surrogate U+{ord(text[e.start]):04X} at "
                f"character {e.start}); fix the text or its encoding"
            ) from e
    return text


def check_texts(name: str, items: Any) -> list[str]:
    """``items`` as a list if it is a sequence (not a single str) of valid texts."""
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise InputError(
            f"{name} must be a list of str, got {type(items).__name__}; wrap a single pair as "
            "references=[r], hypotheses=[h]"
        )
    return [check_text(item, f"{name}[{i}]") for i, item in enumerate(items)]


def check_pairs(references: Any, hypotheses: Any) -> tuple[list[str], list[str]]:
    """Parallel lists of valid texts: both are sequences of str (not a single str), of the same
    length, every text valid Unicode. The messages are those of ``Scorer.score``."""
    for name, items in (("references", references), ("hypotheses", hypotheses)):
        if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
            raise InputError(
                f"{name} must be a list of str, got {type(items).__name__}; "
                "wrap a single pair as references=[r], hypotheses=[h]"
            )
    if len(references) != len(hypotheses):
        raise InputError(
            "references and hypotheses must have the same length, got "
            f"{len(references)} references and {len(hypotheses)} hypotheses"
        )
    return check_texts("references", references), check_texts("hypotheses", hypotheses)
