"""spec §1 (docs/spec.md): tokens with character offsets and their normalized forms.

A token is a maximal run of token characters (Unicode categories ``L*``, ``M*``, ``N*``). Two kinds
of joiner stay inside a token: an apostrophe (U+0027 or U+2019) with a token character on both
sides, and ``.`` or ``,`` with a decimal digit on both sides. Every other character separates
tokens. A token's normalized form is its text with apostrophes removed, then ``str.casefold()``.
All CGD matching compares normalized forms; the character spans map results back to the original
strings.

**Variation selectors** (U+FE00-U+FE0F, U+E0100-U+E01EF) are marks (category ``Mn``), so SPEC §1
keeps them inside tokens, and a lone one after an emoji is a token of its own. They only choose how
a character is drawn (emoji or text style, an ideographic variant) and never change a word, so
:func:`presentation_key` drops them: two texts with the same key read as the same words. Scoring
uses it in two places: a pair whose keys are equal is identical (score 0, no model call), and a gap
whose two sides have equal keys is a T0 gap whatever the model says (``Scorer``'s gap head). The
tokens themselves, the CGD segmentation and the spans are unchanged (SPEC §1-4), so segmentations
stay exact and comparable; the rule lives at the scoring level, where "no change in meaning" is a
tier. **Unicode normalization forms** are handled the same way: the key is in NFC, so a decomposed
"café" (NFD) and a composed one are the same words (an identical pair, or a T0 gap), not a phantom
gap.

:func:`tokenize` runs one regular expression. ASCII text is matched directly (its token characters
are exactly ``[A-Za-z0-9]``). Other text is first mapped character by character (``str.translate``,
with a lazily filled table that asks :mod:`unicodedata` once per distinct character) to a string
of class letters of the same length -- token character, decimal digit, apostrophe, ``.``/``,``,
other -- and the same expression runs over that, so spans carry over unchanged. Both give exactly
the tokens of the per-character definition (:func:`in_token`), which the property tests check.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any, NamedTuple, TypeVar

from sitar.errors import InputError

__all__ = [
    "APOSTROPHES",
    "TOKENIZER_VERSION",
    "VARIATION_SELECTORS",
    "Token",
    "in_token",
    "is_token_char",
    "normalize_token",
    "presentation_key",
    "tokenize",
]

#: Version of the tokenization rules above; part of every signature (spec §9).
TOKENIZER_VERSION = "1"

APOSTROPHES = frozenset({"'", "\u2019"})
_NUMERIC_JOINERS = frozenset({".", ","})
_T = TypeVar("_T")


class Token(NamedTuple):
    """One token: its original text, normalized form and half-open character span ``[start, end)``.

    An immutable named tuple (so ``text, norm, start, end = token`` works, and a token equals the
    plain tuple of its fields): building one is a single C-level call, which matters because
    every :func:`sitar.segment` call builds one per token of both strings."""

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
# The quantifiers are possessive where Python has them (3.11): no state is kept to backtrack into
# a run of token characters or give up a joined piece, and none is needed, since nothing follows
# in the pattern that a shorter run could let match (the matches are the same, a quarter faster).
_P = "+" if sys.version_info >= (3, 11) else ""
_ASCII_TOKEN = re.compile(
    rf"[A-Za-z0-9]+{_P}(?:(?:'|(?<=[0-9])[.,](?=[0-9]))[A-Za-z0-9]+{_P})*{_P}"
)
# Over class letters: T token character (not a decimal digit), D decimal digit (also a token
# character), A apostrophe, J '.' or ',', and '_' for anything else.
_CLASS_TOKEN = re.compile(rf"[TD]+{_P}(?:(?:A|(?<=D)J(?=D))[TD]+{_P})*{_P}")


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
    """Split ``text`` into tokens with original character spans (spec §1).

    >>> [t.norm for t in tokenize("Haven't seen twenty-five, 3,000 or 3.5!")]
    ['havent', 'seen', 'twenty', 'five', '3,000', 'or', '3.5']
    """
    return _tokenize(text)[0]


def _tokenize(text: str) -> tuple[tuple[Token, ...], list[str]]:
    """:func:`tokenize` and the tokens' normalized forms as a list (what CGD matches on).

    Every per-token step runs as a ``map`` over C-level callables (match accessors, ``str``
    methods, ``tuple.__new__``), so no Python bytecode runs per token: building the tokens was
    most of the cost of tokenization, and tokenization a large part of :func:`sitar.segment` on
    short pairs.
    """
    if not isinstance(text, str):
        raise InputError(f"tokenize() expects a str, got {type(text).__name__}")
    if text.isascii():
        matches = list(_ASCII_TOKEN.finditer(text))
        pieces = list(map(_match_group, matches))
        # ASCII casefolds as lower(); the only ASCII apostrophe is "'".
        if "'" in text:
            norms = list(map(str.replace, map(str.lower, pieces), repeat("'"), repeat("")))
        else:
            norms = list(map(str.lower, pieces))
    else:
        # Class letters are one per character, so match spans are spans in `text`.
        matches = list(_CLASS_TOKEN.finditer(text.translate(_CLASSES)))
        pieces = list(
            map(text.__getitem__, map(slice, map(_match_start, matches), map(_match_end, matches)))
        )
        norms = list(map(str.casefold, map(str.translate, pieces, repeat(_DELETE_APOSTROPHES))))
    fields = zip(pieces, norms, map(_match_start, matches), map(_match_end, matches), strict=True)
    return tuple(map(_new_tuple, repeat(Token), fields)), norms


#: Variation selectors: VS1-VS16 and the Variation Selectors Supplement (VS17-VS256).
VARIATION_SELECTORS = frozenset(chr(c) for c in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)))
_DELETE_SELECTORS = {ord(ch): None for ch in VARIATION_SELECTORS}


def presentation_key(text: str) -> tuple[str, ...]:
    """The normalized forms of ``text``'s tokens with variation selectors deleted, tokens left
    empty by that dropped, and each form in Unicode NFC: what a reader sees as the words (see the
    module docstring).

    >>> presentation_key("I like it \u2764\ufe0f") == presentation_key("I like it \u2764")
    True
    """
    norms = _tokenize(text)[1]
    if text.isascii():
        return tuple(norms)
    keys = (unicodedata.normalize("NFC", n.translate(_DELETE_SELECTORS)) for n in norms)
    return tuple(k for k in keys if k)


# ``tuple.__new__(Token, fields)`` is what ``Token(*fields)`` does, minus the Python-level
# ``__new__`` of the named tuple: the same object (tests compare them), built inside ``map``.
_new_tuple: Callable[[type[Token], tuple[str, str, int, int]], Token] = tuple.__new__  # type: ignore[assignment]

# Building a slotted frozen dataclass without its ``__init__`` (which goes through
# ``object.__setattr__`` once per field from Python): allocate with ``object.__new__`` and fill
# the slots with their descriptors' setters (:func:`slot_setter`); used by :mod:`sitar.cgd`.
_alloc = object.__new__


def slot_setter(cls: type[_T], name: str) -> Callable[[_T, Any], None]:
    """The setter of slot ``name`` of a slotted (frozen) dataclass: it sets the field of a new
    instance without going through the frozen ``__setattr__``. Internal to sitar."""
    return getattr(cls, name).__set__  # type: ignore[no-any-return]


_match_group, _match_start, _match_end = re.Match.group, re.Match.start, re.Match.end
_consume: Callable[[Iterable[object]], None] = deque[object](maxlen=0).extend
