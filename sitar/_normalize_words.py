"""Rules 1-5 and 9 of :mod:`sitar.normalize`: tokens, symbols, contractions, titles, spellings.

:func:`read_pieces` turns the original text into pieces with original character spans
(SPEC §1 tokens, NFC, casefolded, plus the symbols that carry meaning); :func:`read_words` expands
contractions and abbreviations and applies the British/American spelling list. The rules are
documented in :mod:`sitar.normalize`; :func:`load_library` loads ``whisper-normalizer`` once (on
the first call, so ``import sitar`` stays light). Internal to sitar.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from sitar.errors import MissingDependencyError
from sitar.text import APOSTROPHES, tokenize

LIBRARY = "whisper-normalizer"

Interval = tuple[int, int]

# --------------------------------------------------------------------------------------------
# The library, loaded once on first use (import sitar stays light)
# --------------------------------------------------------------------------------------------


class Library(NamedTuple):
    numbers: Any  # whisper_normalizer.english.EnglishNumberNormalizer
    spellings: dict[str, str]
    contractions: tuple[tuple[re.Pattern[str], str], ...]
    titles: dict[str, str]
    number_words: frozenset[str]
    ones: frozenset[str]
    tens: frozenset[str]
    multipliers: frozenset[str]
    ordinals: frozenset[str]
    prefix_words: frozenset[str]
    suffix_words: frozenset[str]
    special_words: frozenset[str]  # words read_words must look at beyond their spelling


@lru_cache(maxsize=1)
def load_library() -> Library:
    try:
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError as e:
        raise MissingDependencyError(LIBRARY, "Text normalisation", "normalize") from e
    text = EnglishTextNormalizer()
    numbers = text.standardize_numbers
    contractions = []
    titles = {}
    for pattern, replacement in text.replacers.items():
        word = pattern.removeprefix(r"\b").removesuffix(r"\b")
        if replacement.endswith(" ") and word.isalpha():
            titles[word] = replacement.strip()  # r"\bdr\b": "doctor " -- rule 5
        elif word == "cause":
            continue  # rule 4: "the cause" is a noun
        else:
            contractions.append((re.compile(pattern), replacement))
    ones = frozenset(numbers.ones) | frozenset(numbers.ones_plural)
    tens = frozenset(numbers.tens) | frozenset(numbers.tens_plural)
    multipliers = frozenset(numbers.multipliers) | frozenset(numbers.multipliers_suffixed)
    # The library spells it "nineth"; "ninth" is read as that (rule 6).
    ordinals = frozenset(numbers.ones_ordinal) | frozenset(numbers.tens_ordinal) | {"ninth"}
    number_words = (
        ones
        | tens
        | multipliers
        | ordinals
        | frozenset(numbers.zeros)
        | frozenset(numbers.tens_ordinal)
    )
    return Library(
        numbers=numbers,
        spellings=dict(text.standardize_spellings.mapping),
        contractions=tuple(contractions),
        titles=titles,
        number_words=number_words,
        ones=ones,
        tens=tens,
        multipliers=multipliers,
        ordinals=ordinals,
        prefix_words=frozenset(numbers.preceding_prefixers) | {"double", "triple"},
        suffix_words=frozenset(numbers.following_prefixers) | {"percent"},
        special_words=frozenset(titles)
        | frozenset(_OWN_WORDS)
        | frozenset(_MONTH_ABBREVIATIONS)
        | _BARE_CONTRACTIONS
        | {"no"},
    )


# --------------------------------------------------------------------------------------------
# Rules 1-3: pieces of the original with spans
# --------------------------------------------------------------------------------------------

# Rule 1 on every token: variation selectors dropped, U+2019 written as an ASCII apostrophe.
_TOKEN_TRANSLATION = {
    **{code: None for code in range(0xFE00, 0xFE10)},
    **{code: None for code in range(0xE0100, 0xE01F0)},
    0x2019: "'",
}
CURRENCY = {"$": "dollars", "£": "pounds", "€": "euros", "¢": "cents"}
SIGNS = {"-": "-", "\u2212": "-", "+": "+"}
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# "'s" before these is "is"/"has" after any word ("Bill's not here", "John's been told").
_IS_HAS_BEFORE = frozenset({"been", "gone", "got", "not"})
_PRONOUNS_S = frozenset(
    "he she it that what where who how when why there here this let".split()
)  # rule 4: "'s" is "is"/"has" after these
# The library's contractions written without an apostrophe.
_BARE_CONTRACTIONS = frozenset(
    "wanna gonna gotta kinda sorta dunno imma woulda coulda shoulda".split()
)
_OWN_WORDS = {"cannot": "can not", "'cause": "because", "ok": "okay", "shan't": "shall not"}
# Rule 2: these between two tokens do not end a number ("twenty-five", "$5", "-2").
_NOT_PAUSES = frozenset("-\u2010$£€¢+\u2212'\u2019")
_MONTH_ABBREVIATIONS = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
    "nov": "november", "dec": "december",
}  # fmt: skip


@dataclass(slots=True)
class Piece:
    text: str
    start: int
    end: int
    symbol: bool = False  # a currency or sign symbol waiting for the number step
    capitalised: bool = False
    dotted: bool = False  # followed by "." in the original
    pause: bool = False  # punctuation between it and the previous token: a number ends there


def _clean(token: str) -> str:
    if token.isascii():
        return token.lower()
    token = token.translate(_TOKEN_TRANSLATION)
    if not token.isascii():
        token = _strip_latin_marks(unicodedata.normalize("NFD", token))
    return unicodedata.normalize("NFC", token).casefold()


def _strip_latin_marks(token: str) -> str:
    """Rule 1: drop combining marks that follow a Latin letter (``café`` -> ``cafe``); marks on
    other scripts are kept (they are vowels or tones there, not decoration)."""
    out: list[str] = []
    base_is_latin = False
    for ch in token:
        if unicodedata.category(ch).startswith("M"):
            if base_is_latin:
                continue
        else:
            base_is_latin = ch.isascii() or unicodedata.name(ch, "").startswith("LATIN ")
        out.append(ch)
    return "".join(out)


def read_pieces(text: str) -> list[Piece]:
    """Rules 1-3: tokens and the kept symbols, with original spans."""
    tokens = tokenize(text)
    out: list[Piece] = []
    cursor = 0
    for index, token in enumerate(tokens):
        gap = text[cursor : token.start]
        if gap == " " or not gap:  # the common case: nothing between the tokens to read
            unit, pause = -1, False
        else:
            unit = _symbols(text, cursor, token.start, out, next_is_digit=token.text[:1].isdigit())
            time_colon = gap == ":" and bool(out) and out[-1].text.endswith(":")
            pause = not time_colon and any(not c.isspace() and c not in _NOT_PAUSES for c in gap)
        cleaned = _clean(token.text)
        if cleaned == "cause" and token.start > 0 and text[token.start - 1] in APOSTROPHES:
            cleaned = "'cause"  # rule 4: the apostrophe is outside the SPEC token
        cursor = token.end
        if not cleaned or unit == token.start:  # "°C": the "C" was read as "celsius"
            continue
        if "," in cleaned and _THOUSANDS.fullmatch(cleaned):
            cleaned = cleaned.replace(",", "")
        elif cleaned.endswith("'s") and cleaned[:-2].isdigit():
            cleaned = cleaned[:-2] + "s"  # rule 8: "the 1990's" is "the 1990s"
        following = text[token.end : token.end + 1]
        nxt = tokens[index + 1] if following == ":" and index + 1 < len(tokens) else None
        if (
            nxt is not None
            and nxt.start == token.end + 1
            and cleaned.isdigit()
            and len(nxt.text) == 2
            and nxt.text.isdigit()
        ):
            cleaned += ":"  # rule 7: an hour before ":MM"
        out.append(
            Piece(
                cleaned,
                token.start,
                token.end,
                capitalised=token.text[:1].isupper(),
                dotted=following == ".",
                pause=pause,
            )
        )
    _symbols(text, cursor, len(text), out, next_is_digit=False)
    return out


def _symbols(text: str, start: int, end: int, out: list[Piece], *, next_is_digit: bool) -> int:
    """Rule 2 over the characters between two tokens; the start of a unit letter read, or -1."""
    unit_at = -1
    for i in range(start, end):
        ch = text[i]
        if ch in CURRENCY:
            if out and out[-1].end == i and out[-1].text[-1:].isdigit() and not next_is_digit:
                out.append(Piece(CURRENCY[ch], i, i + 1))  # "50¢", "5€": the word after
            else:
                out.append(Piece(ch, i, i + 1, symbol=True))
        elif ch in SIGNS:
            attached = i == start > 0  # right after a token: "5-10" is a range, not minus 10
            rest = text[i + 1 : end]
            if next_is_digit and all(c in CURRENCY for c in rest) and not attached:
                out.append(Piece(SIGNS[ch], i, i + 1, symbol=True))
        elif ch == "%" and out and out[-1].end == i and out[-1].text[-1:].isdigit():
            out.append(Piece("percent", i, i + 1))
        elif ch == "#" and next_is_digit and i == end - 1:
            out.append(Piece("number", i, i + 1))  # rule 2: "#5"
        elif ch == "&":
            out.append(Piece("and", i, i + 1))
        elif ch == "°":
            out.append(Piece("degrees", i, i + 1))
            unit = text[i + 1 : i + 2].casefold()
            if unit in ("c", "f") and not text[i + 2 : i + 3].isalnum():
                out.append(Piece("celsius" if unit == "c" else "fahrenheit", i + 1, i + 2))
                unit_at = i + 1
    return unit_at


# --------------------------------------------------------------------------------------------
# Rules 4, 5, 9: word by word
# --------------------------------------------------------------------------------------------


def read_words(pieces: list[Piece], lib: Library) -> list[Piece]:
    out: list[Piece] = []
    for i, piece in enumerate(pieces):
        word = piece.text
        if piece.symbol or has_digit(word):
            out.append(piece)
            continue
        if "'" not in word and word not in lib.special_words:  # most words: spelling only
            piece.text = lib.spellings.get(word, word)
            out.append(piece)
            continue
        nxt = pieces[i + 1].text if i + 1 < len(pieces) else ""
        number_next = has_digit(nxt) or nxt in lib.number_words
        if word in lib.titles and (piece.dotted or piece.capitalised):
            replacement = lib.titles[word]
        elif word == "no" and piece.dotted and number_next:
            replacement = "number"  # rule 5: "No. 5"
        elif word in _MONTH_ABBREVIATIONS and (piece.dotted or piece.capitalised) and number_next:
            replacement = _MONTH_ABBREVIATIONS[word]  # rule 8: "Sept. 5th"
        elif word in _OWN_WORDS:
            replacement = _OWN_WORDS[word]
        else:
            replacement = _expand_contraction(word, nxt, lib)
        for k, part in enumerate(replacement.split()):
            out.append(
                Piece(
                    _spelling(part, lib),
                    piece.start,
                    piece.end,
                    capitalised=piece.capitalised,
                    dotted=piece.dotted,
                    pause=piece.pause and k == 0,
                )
            )
    return out


def _spelling(word: str, lib: Library) -> str:
    """Rule 9, also before a possessive ``'s`` (``neighbour's`` -> ``neighbor's``)."""
    if word.endswith("'s") and word[:-2] in lib.spellings:
        return lib.spellings[word[:-2]] + "'s"
    return lib.spellings.get(word, word)


def _expand_contraction(word: str, nxt: str, lib: Library) -> str:
    if "'" not in word and word not in _BARE_CONTRACTIONS:
        return word
    if word.endswith("'s") and word[:-2] not in _PRONOUNS_S and nxt not in _IS_HAS_BEFORE:
        return word  # rule 4: a possessive
    if word.endswith("'d") and nxt == "better":
        return word[:-2] + " had"  # rule 4: "we'd better" (the library gave "would")
    # The library's patterns may look at the next word ("'s been" -> "has been").
    joined = _apply(lib.contractions, f"{word} {nxt}") if nxt else _apply(lib.contractions, word)
    if nxt and joined.endswith(" " + nxt):
        return joined[: -len(nxt) - 1]
    return _apply(lib.contractions, word)


def _apply(rules: Sequence[tuple[re.Pattern[str], str]], s: str) -> str:
    for pattern, replacement in rules:
        s = pattern.sub(replacement, s)
    return s


_DIGIT = re.compile(r"\d")


def has_digit(word: str) -> bool:
    return not word.isalpha() and _DIGIT.search(word) is not None
