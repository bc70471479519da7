"""The v1 SPEC §1 tokenizer (per-character Python), kept verbatim as the reference for the
single-regex tokenizer in ``sitar.text``: the property tests compare the two, and
``benchmarks/bench_cgd.py --tokenize`` times both.

Original module docstring: SPEC §1: tokens with character offsets and their normalized forms.

A token is a maximal run of token characters (Unicode categories ``L*``, ``M*``, ``N*``). Two kinds
of joiner stay inside a token: an apostrophe (U+0027 or U+2019) with a token character on both
sides, and ``.`` or ``,`` with a decimal digit on both sides. Every other character separates
tokens. A token's normalized form is its text with apostrophes removed, then ``str.casefold()``.
All CGD matching compares normalized forms; the character spans map results back to the original
strings.
"""

from __future__ import annotations

import unicodedata

from sitar.errors import InputError
from sitar.text import Token

__all__ = [
    "APOSTROPHES",
    "TOKENIZER_VERSION",
    "Token",
    "in_token",
    "is_token_char",
    "normalize_token",
    "tokenize",
]

#: Version of the tokenization rules above; part of every signature (SPEC §9).
TOKENIZER_VERSION = "1"

APOSTROPHES = frozenset({"'", "\u2019"})
_NUMERIC_JOINERS = frozenset({".", ","})


def is_token_char(ch: str) -> bool:
    """Unicode letters, marks and numbers (categories ``L*``, ``M*``, ``N*``)."""
    return unicodedata.category(ch)[0] in "LMN"


def _is_digit(ch: str) -> bool:
    return unicodedata.category(ch) == "Nd"


def in_token(text: str, i: int) -> bool:
    """Whether character ``i`` of ``text`` belongs to a token (token character or active joiner).

    Joiners are decided on the original neighbours, so ``"a''b"`` stays split and ``"3.5.6"`` is
    one token.
    """
    if not 0 <= i < len(text):
        return False
    ch = text[i]
    if is_token_char(ch):
        return True
    if 0 < i < len(text) - 1:
        if ch in APOSTROPHES:
            return is_token_char(text[i - 1]) and is_token_char(text[i + 1])
        if ch in _NUMERIC_JOINERS:
            return _is_digit(text[i - 1]) and _is_digit(text[i + 1])
    return False


def normalize_token(text: str) -> str:
    """Delete apostrophes, then casefold: ``"Haven't"`` -> ``"havent"``."""
    return "".join(ch for ch in text if ch not in APOSTROPHES).casefold()


def tokenize(text: str) -> tuple[Token, ...]:
    """Split ``text`` into tokens with original character spans (SPEC §1).

    >>> [t.norm for t in tokenize("Haven't seen twenty-five, 3,000 or 3.5!")]
    ['havent', 'seen', 'twenty', 'five', '3,000', 'or', '3.5']
    """
    if not isinstance(text, str):
        raise InputError(f"tokenize() expects a str, got {type(text).__name__}")
    n = len(text)
    inside = [in_token(text, i) for i in range(n)]
    tokens: list[Token] = []
    i = 0
    while i < n:
        if not inside[i]:
            i += 1
            continue
        j = i
        while j < n and inside[j]:
            j += 1
        piece = text[i:j]
        tokens.append(Token(piece, normalize_token(piece), i, j))
        i = j
    return tuple(tokens)
