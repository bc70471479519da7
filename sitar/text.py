"""SPEC §1: tokens with character offsets and their normalized forms.

A token is a maximal run of token characters (Unicode categories ``L*``, ``M*``, ``N*``). Two kinds
of joiner stay inside a token: an apostrophe (U+0027 or U+2019) with a token character on both
sides, and ``.`` or ``,`` with a decimal digit on both sides. Every other character separates
tokens. A token's normalized form is its text with apostrophes removed, then ``str.casefold()``.
All CGD matching compares normalized forms; the character spans map results back to the original
strings.

:func:`tokenize` runs one regular expression. ASCII text is matched directly (its token characters
are exactly ``[A-Za-z0-9]``). Other text is first mapped character by character (``str.translate``,
with a lazily filled table that asks :mod:`unicodedata` once per distinct character) to a string
of class letters of the same length -- token character, decimal digit, apostrophe, ``.``/``,``,
other -- and the same expression runs over that, so spans carry over unchanged. Both give exactly
the tokens of the per-character definition (:func:`in_token`), which the property tests check.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from sitar.errors import InputError

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


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its original text, normalized form and half-open character span ``[start, end)``."""

    text: str
    norm: str
    start: int
    end: int


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
    return text.translate(_DELETE_APOSTROPHES).casefold()


_DELETE_APOSTROPHES = {ord(ch): None for ch in APOSTROPHES}

# A token: token characters, optionally joined by an apostrophe between token characters or by
# '.'/',' between decimal digits. Joiners are decided on the original neighbours ("a''b" splits,
# "3.5.6" is one token), which is what the lookbehind/lookahead and the mandatory T+ express.
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9]+(?:(?:'|(?<=[0-9])[.,](?=[0-9]))[A-Za-z0-9]+)*")
# Over class letters: T token character (not a decimal digit), D decimal digit (also a token
# character), A apostrophe, J '.' or ',', and '_' for anything else.
_CLASS_TOKEN = re.compile(r"[TD]+(?:(?:A|(?<=D)J(?=D))[TD]+)*")


_CLASS_CACHE_LIMIT = 1 << 16


class _CharClasses(dict):
    """``ord(ch) -> class letter`` for :meth:`str.translate`, filled on first sight of a char."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        if ch in APOSTROPHES:
            letter = "A"
        elif ch in _NUMERIC_JOINERS:
            letter = "J"
        elif _is_digit(ch):
            letter = "D"
        elif is_token_char(ch):
            letter = "T"
        else:
            letter = "_"
        if len(self) >= _CLASS_CACHE_LIMIT:  # bound memory on adversarial input
            self.clear()
        self[code] = letter
        return letter


_CLASSES = _CharClasses()


def tokenize(text: str) -> tuple[Token, ...]:
    """Split ``text`` into tokens with original character spans (SPEC §1).

    >>> [t.norm for t in tokenize("Haven't seen twenty-five, 3,000 or 3.5!")]
    ['havent', 'seen', 'twenty', 'five', '3,000', 'or', '3.5']
    """
    if not isinstance(text, str):
        raise InputError(f"tokenize() expects a str, got {type(text).__name__}")
    new = _new_token
    if text.isascii():
        # ASCII casefolds as lower(); the only ASCII apostrophe is "'".
        return tuple(
            new(piece, piece.replace("'", "").lower(), m.start(), m.end())
            for m in _ASCII_TOKEN.finditer(text)
            for piece in (m.group(),)
        )
    # Class letters are one per character, so match spans are spans in `text`.
    classes = text.translate(_CLASSES)
    tokens = []
    for m in _CLASS_TOKEN.finditer(classes):
        start, end = m.span()
        piece = text[start:end]
        tokens.append(new(piece, normalize_token(piece), start, end))
    return tuple(tokens)


def _token_factory():
    """A :class:`Token` constructor that fills the slots directly. The frozen dataclass's own
    ``__init__`` goes through ``object.__setattr__`` once per field, which made building tokens
    the largest cost of :func:`tokenize`; the result is the same object (tests compare them)."""
    alloc = object.__new__
    set_text, set_norm = Token.text.__set__, Token.norm.__set__  # type: ignore[attr-defined]
    set_start, set_end = Token.start.__set__, Token.end.__set__  # type: ignore[attr-defined]

    def new(text: str, norm: str, start: int, end: int) -> Token:
        token = alloc(Token)
        set_text(token, text)
        set_norm(token, norm)
        set_start(token, start)
        set_end(token, end)
        return token

    return new


_new_token = _token_factory()
