"""One text normaliser: score what was said, not how it was typed (issue #28).

:func:`normalize` canonicalises one string; :func:`normalize_pair` canonicalises a (reference,
hypothesis) pair (adding the one pair-aware rule, compound spacing) and
:func:`original_gap_spans` maps the gaps that :func:`sitar.segment` finds on the normalised pair
back to character spans of the ORIGINAL strings. The English number, contraction and spelling
knowledge is the ASR leaderboards' normaliser (``whisper-normalizer``, OpenAI Whisper's English
normaliser; chosen by measurement, see ``experiments/normaliser-choice/``); the rules below say
where and how it is applied and where it is overruled because it changes meaning.

The output is a sequence of tokens, each a single token of SPEC §1 (so ``tokenize`` of the
normalised text gives exactly these tokens, in order), each with the half-open character span of
the original text it came from. Several tokens may share one span (``"don't"`` gives ``do not``;
``"2,500 dollars"`` gives ``2500 dollars``, both on the span of the whole amount).

Rules, in the order they run (each is tested in ``tests/test_normalize.py``):

1. **Tokens** are SPEC §1 tokens of the original (letters, marks, numbers; word-internal
   apostrophes; ``.``/``,`` between digits), so spans are original spans. Each token is put in
   NFC, loses variation selectors (U+FE00-FE0F, U+E0100-E01EF) and the combining marks on Latin
   letters (``café`` = ``cafe``, as the library does; marks of other scripts are kept), gets
   U+2019 written as ``'``, and is casefolded. A token that is empty after this is dropped.
2. **Punctuation and symbols** between tokens are dropped, except: ``$ £ € ¢`` (currency, kept for
   the number step), ``%`` after a number (``percent``), ``-``/``−``/``+`` directly before a number
   and not directly after a token (``minus``/``plus``: ``-2`` is not ``2``), ``&`` (``and``),
   ``°`` (``degrees``; ``°C``/``°F`` give ``degrees celsius``/``fahrenheit``), ``#`` before a
   number (``number``), and ``:`` between an hour and two-digit minutes (a time, rule 7). Hyphens
   and other joiners are separators, so ``long-term`` equals ``long term``. Any other punctuation
   between two tokens is a *pause*: a number does not continue across it (rule 6).
3. **Digit grouping**: ``2,500`` is ``2500`` (only well-formed thousands groups).
4. **Contractions** are expanded with the library's table (``don't`` -> ``do not``, ``I'm`` ->
   ``i am``, ``won't`` -> ``will not``, ``gonna`` -> ``going to``, ``'s been`` -> ``has been``),
   plus ``cannot`` -> ``can not`` and ``'cause`` -> ``because``. Overruled: the library's bare
   ``cause`` -> ``because`` (``the cause`` is a noun), and ``'s`` -> ``is`` is applied only after
   pronouns and question words (``he's``, ``that's``, ``where's``) or before ``not``, ``been``,
   ``gone``, ``got``; after a noun ``'s`` is usually possessive, so ``John's`` stays and compares
   as ``johns`` (SPEC §1 drops apostrophes). ``'d better`` is ``had better`` (the library: would).
5. **Titles** (``Dr``, ``Mr``, ``St``, ``Prof`` ...) are expanded with the library's table only when
   written as an abbreviation: followed by ``.`` or capitalised. A lowercase ``rep`` or ``col`` is
   a word, not a title. ``No.`` before a number is ``number``.
6. **Spoken and written numbers** are made canonical on both sides by the library's number
   normaliser, applied to each maximal run of number words and digits (with ``and`` and
   ``point`` between numbers, ``a``/``one`` before a magnitude word, ``minus``/``plus``,
   ``double``/``triple``, ``and a half``, and currency and percent words after a number). Output:
   digits (``three hundred and fifty`` -> ``350``; ``twenty five hundred`` -> ``2500``; ``nineteen
   ninety nine`` -> ``1999``; ``twenty first`` -> ``21st``; ``three point five million`` ->
   ``3500000``), the sign as a word (``minus 2``), and currency and percent as words after the
   number (``$12.50`` and ``twelve dollars and fifty cents`` -> ``12.50 dollars``; ``50%`` ->
   ``50 percent``): SPEC §1 tokens drop symbols, and ``$5`` must not equal ``€5`` or ``5``.
   Different values stay different (``300``/``3000``, ``hundred``/``thousand``). Overruled:

   - a digit ``1`` on its own is written ``one`` as the library does, but only as a whole token
     (the library's regex also rewrote ``1.5`` as ``one.5`` and ``$1`` as ``$one``);
   - ``a hundred`` is ``100`` like ``one hundred`` (the library gave ``a 100``), but an article
     written before digits (``a 100``) is a word of its own and stays;
   - ``oh`` is zero only next to another number (``three oh five``; not ``oh no``), and the
     letter ``o`` only after one (``three o five``; not ``c o two``);
   - an ordinal right after a units word or a digit starts a new number (the library read
     ``one second`` as ``12nd``); ``second`` after ``a``, ``one``, ``per``, ``each``, ``every``,
     ``few``, ``split`` or a number is the unit of time and stays a word;
   - a sign at the start of a run is kept (the library turned ``minus fifty dollars`` into
     ``$50``);
   - ``ninth`` is an ordinal (the library only knows its misspelling ``nineth``);
   - a run of digits only (``6 05``, ``555 1234``) is kept as written (the library dropped the
     zero of ``05``, so normalising twice changed the text);
   - a run does not continue across a pause (rule 2): written ``two, three`` is two numbers, not
     the library's ``23``;
   - ``two pounds fifty`` (``£2 50``) is ``2.50 pounds`` when the two-digit pence end the run (so
     ``pay five dollars twenty times`` also reads ``5.20 dollars``: spoken text cannot tell);
   - a run is cut after 48 words (the library's cost grows faster than linearly);
   - if the library fails on a run, the run's words are kept as they are.
7. **Times**: ``3:30`` is ``3 30``; ``:00`` minutes are dropped (``3:00 pm`` -> ``3 pm``);
   ``o'clock`` after a number is dropped; ``p.m.``/``PM``/``p m`` after a number are ``pm`` (and
   ``am``). Spoken hour-minute pairs (``three thirty``, ``ten oh five``) are ``3 30``/``10 05``
   when they follow ``at``, ``by``, ``until``, ``till``, ``before``, ``after``, ``around``,
   ``from`` or precede ``am``/``pm``/``o'clock`` (elsewhere ``three fifty`` is ``350``).
8. **Dates and units**: an ordinal next to a month name is its number (``March 3rd`` = ``march
   third`` = ``March 3``; ``3rd of March`` -> ``3 of march``); years are numbers by rule 6; a month
   abbreviation written with ``.`` or a capital before a number is the month (``Sept. 5``). Unit
   abbreviations after a number are words, singular after ``one`` and plural otherwise (``5 km``
   = ``five kilometers``, ``1 hr`` = ``one hour``; ``km kg mg mcg cm mm mi ft yd(s) lb(s) oz ml
   gal tbsp tsp hr(s) min(s) sec(s) kb mb gb tb mph kph``; not ``m``, ``g``, ``l``, ``in``, which
   are also words or names).
9. **Spellings**: British spellings become American with the library's list (``colour`` ->
   ``color``, ``centre`` -> ``center``, ``organise`` -> ``organize``); ``ok`` is ``okay``.
10. **Compound spacing** (pair only, :func:`normalize_pair`): two or three adjacent word tokens
    on one side whose concatenation is a token of the other side are joined (``week ends`` /
    ``weekends``, ``e mail`` / ``email``, ``i o s`` / ``iOS``; hyphens were already separators). Only spellings present in the pair
    are joined, so no word is invented.

Not canonicalised (each stays a gap): filler words (``uh``, ``um``) and bracketed text, which the
library's full pipeline deletes (deleting words is not a format change); slashed dates and ranges
(``3/4``, ``5-10``: their reading depends on locale); digit-by-digit phone numbers against grouped
digits; abbreviations other than titles, months, units and ``ok``; a spoken year right before a
spoken number (``twenty thirty sixty percent`` is one number to the library, ``2030, 60%`` two);
``x`` for ``times``; feet and inches (``6'2"``); ``on 5 June`` against ``on the fifth of June``.

:func:`normalize` never raises on a ``str``: lone surrogates and control characters are
separators (SPEC §1), and a 1 MB line is linear work. Its version string :data:`NORMALIZER_VERSION`
and :func:`normalizer_id` (which adds the library's version) belong in the signature.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from sitar.errors import InputError, MissingDependencyError
from sitar.text import APOSTROPHES, tokenize

__all__ = [
    "NORMALIZER_VERSION",
    "Normalized",
    "NormalizedPair",
    "normalize",
    "normalize_pair",
    "normalizer_id",
    "original_gap_spans",
]

#: Version of the rules in this module's docstring; with the library's version in the signature.
NORMALIZER_VERSION = "1"

_LIBRARY = "whisper-normalizer"

Interval = tuple[int, int]


@dataclass(frozen=True)
class Normalized:
    """A normalised string: the original, the canonical text, and each token's original span.

    ``text`` is ``" ".join(tokens)``; ``spans[i]`` is the half-open character span of
    ``original`` that token ``i`` came from.
    """

    original: str
    tokens: tuple[str, ...]
    spans: tuple[Interval, ...]

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def original_span(self, start: int, end: int) -> Interval:
        """The original span of normalised tokens ``[start, end)``; for an empty interval, the
        SPEC §4 insertion point (the original end of token ``start - 1``, or 0)."""
        if end > start:
            first = min(s for s, _ in self.spans[start:end])
            last = max(e for _, e in self.spans[start:end])
            return (first, last)
        point = self.spans[start - 1][1] if start > 0 else 0
        return (point, point)


class NormalizedPair(NamedTuple):
    """The normalised reference and hypothesis; ``texts`` is what :func:`sitar.segment` takes."""

    reference: Normalized
    hypothesis: Normalized

    @property
    def texts(self) -> tuple[str, str]:
        return (self.reference.text, self.hypothesis.text)


def normalizer_id() -> str:
    """``sitar-norm-<rules version>+whisper-normalizer-<version>``, for the signature."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        library_version = version(_LIBRARY)
    except PackageNotFoundError:
        library_version = "missing"
    return f"sitar-norm-{NORMALIZER_VERSION}+{_LIBRARY}-{library_version}"


# --------------------------------------------------------------------------------------------
# The library, loaded once on first use (import sitar stays light)
# --------------------------------------------------------------------------------------------


class _Library(NamedTuple):
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
    special_words: frozenset[str]  # words _words must look at beyond their spelling


@lru_cache(maxsize=1)
def _library() -> _Library:
    try:
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError as e:
        raise MissingDependencyError(_LIBRARY, "Text normalisation") from e
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
    return _Library(
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
_CURRENCY = {"$": "dollars", "£": "pounds", "€": "euros", "¢": "cents"}
_SIGNS = {"-": "-", "\u2212": "-", "+": "+"}
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# "'s" before these is "is"/"has" after any word ("Bill's not here", "John's been told").
_IS_HAS_BEFORE = frozenset({"been", "gone", "got", "not"})
_PRONOUNS_S = frozenset(
    "he she it that what where who how when why there here this let".split()
)  # rule 4: "'s" is "is"/"has" after these
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
_TIME_BEFORE = frozenset("at by until till til before after around from".split())
_TIME_AFTER = frozenset({"am", "pm", "o'clock"})
_SECOND_UNIT_AFTER = frozenset({"a", "one", "per", "each", "every", "few", "split"})
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
# Rule 8: unit abbreviations after a number, as (singular, plural) words.
_UNITS_ABBREVIATED = {
    "km": ("kilometer", "kilometers"), "kms": ("kilometer", "kilometers"),
    "kg": ("kilogram", "kilograms"), "kgs": ("kilogram", "kilograms"),
    "mg": ("milligram", "milligrams"), "mcg": ("microgram", "micrograms"),
    "cm": ("centimeter", "centimeters"), "mm": ("millimeter", "millimeters"),
    "mi": ("mile", "miles"), "ft": ("foot", "feet"), "lb": ("pound", "pounds"),
    "lbs": ("pound", "pounds"), "oz": ("ounce", "ounces"), "ml": ("milliliter", "milliliters"),
    "hr": ("hour", "hours"), "hrs": ("hour", "hours"), "min": ("minute", "minutes"),
    "mins": ("minute", "minutes"), "sec": ("second", "seconds"), "secs": ("second", "seconds"),
    "kb": ("kilobyte", "kilobytes"), "mb": ("megabyte", "megabytes"),
    "gb": ("gigabyte", "gigabytes"), "tb": ("terabyte", "terabytes"),
    "tbsp": ("tablespoon", "tablespoons"), "tsp": ("teaspoon", "teaspoons"),
    "yd": ("yard", "yards"), "yds": ("yard", "yards"), "gal": ("gallon", "gallons"),
    "mph": ("miles per hour", "miles per hour"), "kph": ("kilometers per hour", "kilometers per hour"),
}  # fmt: skip


@dataclass(slots=True)
class _Piece:
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


def _pieces(text: str) -> list[_Piece]:
    """Rules 1-3: tokens and the kept symbols, with original spans."""
    tokens = tokenize(text)
    out: list[_Piece] = []
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
            _Piece(
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


def _symbols(text: str, start: int, end: int, out: list[_Piece], *, next_is_digit: bool) -> int:
    """Rule 2 over the characters between two tokens; the start of a unit letter read, or -1."""
    unit_at = -1
    for i in range(start, end):
        ch = text[i]
        if ch in _CURRENCY:
            if out and out[-1].end == i and out[-1].text[-1:].isdigit() and not next_is_digit:
                out.append(_Piece(_CURRENCY[ch], i, i + 1))  # "50¢", "5€": the word after
            else:
                out.append(_Piece(ch, i, i + 1, symbol=True))
        elif ch in _SIGNS:
            attached = i == start > 0  # right after a token: "5-10" is a range, not minus 10
            rest = text[i + 1 : end]
            if next_is_digit and all(c in _CURRENCY for c in rest) and not attached:
                out.append(_Piece(_SIGNS[ch], i, i + 1, symbol=True))
        elif ch == "%" and out and out[-1].end == i and out[-1].text[-1:].isdigit():
            out.append(_Piece("percent", i, i + 1))
        elif ch == "#" and next_is_digit and i == end - 1:
            out.append(_Piece("number", i, i + 1))  # rule 2: "#5"
        elif ch == "&":
            out.append(_Piece("and", i, i + 1))
        elif ch == "°":
            out.append(_Piece("degrees", i, i + 1))
            unit = text[i + 1 : i + 2].casefold()
            if unit in ("c", "f") and not text[i + 2 : i + 3].isalnum():
                out.append(_Piece("celsius" if unit == "c" else "fahrenheit", i + 1, i + 2))
                unit_at = i + 1
    return unit_at


# --------------------------------------------------------------------------------------------
# Rules 4, 5, 9: word by word
# --------------------------------------------------------------------------------------------


def _words(pieces: list[_Piece], lib: _Library) -> list[_Piece]:
    out: list[_Piece] = []
    for i, piece in enumerate(pieces):
        word = piece.text
        if piece.symbol or _has_digit(word):
            out.append(piece)
            continue
        if "'" not in word and word not in lib.special_words:  # most words: spelling only
            piece.text = lib.spellings.get(word, word)
            out.append(piece)
            continue
        nxt = pieces[i + 1].text if i + 1 < len(pieces) else ""
        number_next = _has_digit(nxt) or nxt in lib.number_words
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
                _Piece(
                    _spelling(part, lib),
                    piece.start,
                    piece.end,
                    capitalised=piece.capitalised,
                    dotted=piece.dotted,
                    pause=piece.pause and k == 0,
                )
            )
    return out


def _spelling(word: str, lib: _Library) -> str:
    """Rule 9, also before a possessive ``'s`` (``neighbour's`` -> ``neighbor's``)."""
    if word.endswith("'s") and word[:-2] in lib.spellings:
        return lib.spellings[word[:-2]] + "'s"
    return lib.spellings.get(word, word)


def _expand_contraction(word: str, nxt: str, lib: _Library) -> str:
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


# --------------------------------------------------------------------------------------------
# Rules 6-8: number runs
# --------------------------------------------------------------------------------------------


_DIGIT = re.compile(r"\d")


def _has_digit(word: str) -> bool:
    return not word.isalpha() and _DIGIT.search(word) is not None


def _is_numeric(word: str, lib: _Library) -> bool:
    return word in lib.number_words or _has_digit(word)


def _runs(words: list[_Piece], lib: _Library) -> Iterator[tuple[int, int]]:
    """Half-open index ranges of the number runs of rule 6 (every other word is outside)."""
    n = len(words)
    i = 0

    def text(k: int) -> str:
        return words[k].text if 0 <= k < n else ""

    def core(k: int) -> bool:
        word = text(k)
        if not word:
            return False
        if word == "oh":
            return _is_numeric_plain(text(k - 1), lib) or _is_numeric_plain(text(k + 1), lib)
        if word == "o":  # the letter, unless it follows a number: "three o five", not "c o two"
            return _is_numeric_plain(text(k - 1), lib)
        before = text(k - 1)
        if word == "second" and (
            before in _SECOND_UNIT_AFTER or before in lib.ones or before.isdigit()
        ):
            return False
        return _is_numeric(word, lib)

    while i < n:
        if not (core(i) or _starts_run(words, i, lib, core)):
            i += 1
            continue
        j = i
        if words[i].symbol or text(i) in lib.prefix_words or text(i) == "a":
            j += 1
        while j < n and j - i < _MAX_RUN:
            word = text(j)
            if j > i and words[j].pause:
                break  # rule 6: "two, three" is two numbers
            if core(j):
                if (
                    word in lib.ordinals
                    and j > i
                    and (text(j - 1) in lib.ones or text(j - 1).isdigit())
                ):
                    break  # rule 6: "one second" is not 12nd
                j += 1
            elif word in ("and", "point") and core(j + 1) and not words[j + 1].symbol:
                if (
                    word == "and"
                    and text(j + 1) in lib.ordinals
                    and text(j - 1) not in lib.multipliers
                ):
                    break  # "first and second" are two; "one hundred and first" is one
                j += 1
            elif word == "and" and text(j + 1) == "a" and text(j + 2) == "half":
                j += 3
            elif word in lib.suffix_words or (word == "per" and text(j + 1) == "cent"):
                j += 2 if word == "per" else 1
            elif words[j].symbol and word in _CURRENCY and core(j + 1):
                j += 1  # "5 and $3": the currency of the next number
            else:
                break
        if j > i and any(core(k) for k in range(i, j)):
            yield (i, j)
            i = j
        else:
            i += 1


def _is_numeric_plain(word: str, lib: _Library) -> bool:
    return word not in ("o", "oh") and _is_numeric(word, lib)


def _starts_run(words: list[_Piece], i: int, lib: _Library, core: Callable[[int], bool]) -> bool:
    word = words[i].text
    k = i + 1
    while words[i].symbol and k < len(words) and words[k].symbol:
        k += 1  # "-$50": a sign, then a currency symbol, then the number
    if k >= len(words) or not core(k):
        return False
    if words[i].symbol:
        return True
    if word in lib.prefix_words:
        return True
    return word == "a" and words[i + 1].text in lib.multipliers


#: A number run is cut after this many words: the library's work grows faster than linearly with
#: a run's length, and no real number is spoken in more words.
_MAX_RUN = 48

_HOURS = {
    w: h
    for h, w in enumerate(
        "one two three four five six seven eight nine ten eleven twelve".split(), 1
    )
}
_UNITS = {w: u for u, w in enumerate("one two three four five six seven eight nine".split(), 1)}
_TEENS = {
    w: t
    for t, w in enumerate(
        "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(),
        10,
    )
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}


def _spoken_time(words: Sequence[str]) -> tuple[str, str] | None:
    """``three thirty`` -> ``("3", "30")``; None unless hour (one-twelve) + minutes (01-59)."""
    if len(words) < 2 or words[0] not in _HOURS:
        return None
    rest = list(words[1:])
    minutes: int | None = None
    if rest[0] in ("oh", "o") and len(rest) == 2 and rest[1] in _UNITS:
        minutes = _UNITS[rest[1]]
    elif len(rest) == 1 and rest[0] in _TEENS:
        minutes = _TEENS[rest[0]]
    elif rest[0] in _TENS and len(rest) <= 2:
        minutes = _TENS[rest[0]] + (_UNITS.get(rest[1], -100) if len(rest) == 2 else 0)
    if minutes is None or not 1 <= minutes <= 59:
        return None
    return (str(_HOURS[words[0]]), f"{minutes:02d}")


_LIBRARY_SPELLING = {"ninth": "nineth"}


def _run_text(words: Sequence[_Piece], lib: _Library) -> str:
    """The run as the library reads it: symbols glued to the next word, ``a hundred`` as
    ``one hundred``."""
    parts: list[str] = []
    glue = False
    for k, piece in enumerate(words):
        word = piece.text
        if word == "a" and k + 1 < len(words) and words[k + 1].text in lib.multipliers:
            word = "one"
        word = _LIBRARY_SPELLING.get(word, word).rstrip(":")
        if glue:
            parts[-1] += word
        else:
            parts.append(word)
        glue = piece.symbol
    return " ".join(parts)


_LIB_OUTPUT = re.compile(r"([-+]?)([$£€¢]?)([-+]?)(.*?)(%?)")


def _canonical_number(word: str) -> list[str]:
    """One word of the library's output as canonical tokens: signs and currency as words."""
    match = _LIB_OUTPUT.fullmatch(word)
    if match is None:  # pragma: no cover - the pattern matches every string
        return [word]
    sign = match.group(1) or match.group(3)
    currency, body, percent = match.group(2), match.group(4), match.group(5)
    out = []
    if sign:
        out.append("minus" if sign == "-" else "plus")
    if body:
        out.append(body)
    if currency:
        out.append(_CURRENCY[currency])
    if percent:
        out.append("percent")
    return out


_CENTS = (
    # The library's postprocess, without its "1" -> "one" regex (rule 6), and with its unescaped
    # "." escaped: "$2 and ¢7" -> "$2.07", "$0.50" -> "¢50".
    (
        re.compile(r"([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b"),
        lambda m: f"{m[1]}{m[2]}.{int(m[3]):02d}",
    ),
    (re.compile(r"[€£$]0\.([0-9]{1,2})\b"), lambda m: f"¢{int(m[1])}"),
    # Ours: "two pounds fifty" ("£2 50") is £2.50 when two-digit pence end the run.
    (re.compile(r"([€£$])([0-9]+) ([1-9][0-9])$"), lambda m: f"{m[1]}{m[2]}.{m[3]}"),
)


def _number_run(
    run: list[_Piece], before: str, after: str, lib: _Library
) -> list[tuple[str, Interval]]:
    span = (run[0].start, run[-1].end)
    words = [p.text for p in run]
    timed = before in _TIME_BEFORE or after in _TIME_AFTER
    spoken = _spoken_time(words) if timed else None
    if spoken is not None:
        return [(spoken[0], span), (spoken[1], span)]
    if any(w.endswith(":") for w in words):  # rule 7: "3:30"
        out = []
        for piece in run:
            word = piece.text.rstrip(":")
            out.append((word, (piece.start, piece.end)))
        return [(w, s) for w, s in out if w != "00"]
    if all(w.isdigit() for w in words):
        produced = words  # digits are canonical already (the library would drop "05"'s zero)
    else:
        produced = _library_numbers(run, words, lib)
    produced = ["one" if w == "1" else "ones" if w == "1s" else w for w in produced]
    if len(produced) == len(run) and not any(p.symbol for p in run):
        # Word for word ("5 and 10", "fifty percent"): each keeps its own span. A symbol moves
        # ("$5" gives "5 dollars"), so with one the whole run's span is every token's.
        return [(w, (p.start, p.end)) for w, p in zip(produced, run, strict=True)]
    return [(w, span) for w in produced]


def _library_numbers(run: list[_Piece], words: list[str], lib: _Library) -> list[str]:
    try:
        s = lib.numbers.preprocess(_run_text(run, lib))
        s = " ".join(w for w in lib.numbers.process_words(s.split()) if w is not None)
        for pattern, replacement in _CENTS:
            s = pattern.sub(replacement, s)
        produced = [tok for w in s.split() for tok in _canonical_number(w)]
    except Exception:  # rule 6: the library failing on a run keeps the run's words
        return [w for w in words if not (w in _SIGNS.values() or w in _CURRENCY)]
    sign = _SIGN_WORDS.get(words[0])
    if sign is not None and sign not in produced:
        produced.insert(0, sign)  # the library dropped it: "minus fifty dollars" gave "$50"
    return produced


_SIGN_WORDS = {
    "-": "minus",
    "minus": "minus",
    "negative": "minus",
    "+": "plus",
    "plus": "plus",
    "positive": "plus",
}


_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)")


def _canonical(text: str, lib: _Library) -> tuple[list[str], list[Interval]]:
    words = _words(_pieces(text), lib)
    out: list[tuple[str, Interval]] = []
    position = 0
    for start, end in _runs(words, lib):
        out.extend((p.text, (p.start, p.end)) for p in words[position:start] if not p.symbol)
        before = words[start - 1].text if start > 0 else ""
        after = _am_pm(words, end)
        out.extend(_number_run(words[start:end], before, after, lib))
        position = end
    out.extend((p.text, (p.start, p.end)) for p in words[position:] if not p.symbol)
    out = _times_and_dates(out, lib)
    tokens: list[str] = []
    spans: list[Interval] = []
    for word, span in out:
        if word.isascii() and word.isalnum():  # one SPEC §1 token already (the common case)
            tokens.append(word)
            spans.append(span)
            continue
        for token in tokenize(word):  # each output token is exactly one SPEC §1 token
            tokens.append(token.text)
            spans.append(span)
    return tokens, spans


def _am_pm(words: list[_Piece], k: int) -> str:
    first = words[k].text if k < len(words) else ""
    second = words[k + 1].text if k + 1 < len(words) else ""
    if first in ("a", "p") and second == "m":
        return first + "m"
    return first


def _times_and_dates(out: list[tuple[str, Interval]], lib: _Library) -> list[tuple[str, Interval]]:
    """Rules 7-8 on the canonical words: ``p m`` -> ``pm``, ``o'clock`` dropped, ordinal days."""
    result: list[tuple[str, Interval]] = []
    i = 0
    n = len(out)
    while i < n:
        word, span = out[i]
        prev = result[-1][0] if result else ""
        prev_number = bool(prev) and (prev[0].isdigit() or prev == "one")
        if prev_number and word in ("a", "p") and i + 1 < n and out[i + 1][0] == "m":
            result.append((word + "m", (span[0], out[i + 1][1][1])))
            i += 2
            continue
        if prev_number and word == "o'clock":
            prev_word, prev_span = result[-1]
            result[-1] = (prev_word, (prev_span[0], span[1]))
            i += 1
            continue
        if prev_number and word in _UNITS_ABBREVIATED:
            singular, plural = _UNITS_ABBREVIATED[word]
            for part in (singular if prev == "one" else plural).split():
                result.append((part, span))
            i += 1
            continue
        match = _ORDINAL.fullmatch(word)
        if match is not None:
            nxt = out[i + 1][0] if i + 1 < n else ""
            nxt2 = out[i + 2][0] if i + 2 < n else ""
            if prev in _MONTHS or (nxt == "of" and nxt2 in _MONTHS):
                word = "one" if match[1] == "1" else match[1]
        result.append((word, span))
        i += 1
    return result


# --------------------------------------------------------------------------------------------
# The public calls
# --------------------------------------------------------------------------------------------


def normalize(text: str) -> Normalized:
    """Canonicalise ``text`` (rules 1-9 of the module docstring) and keep original spans.

    >>> n = normalize("Meet me at Gate 7C.")
    >>> n.text, n.spans[-2:]
    ('meet me at gate 7 c', ((16, 18), (16, 18)))
    >>> normalize("I'm wiring $2,500 tonight").text
    'i am wiring 2500 dollars tonight'
    """
    if not isinstance(text, str):
        raise InputError(f"normalize() expects a str, got {type(text).__name__}")
    tokens, spans = _canonical(text, _library())
    return Normalized(original=text, tokens=tuple(tokens), spans=tuple(spans))


def normalize_pair(reference: str, hypothesis: str) -> NormalizedPair:
    """Normalise both sides, then join compounds spelt apart on one side only (rule 10).

    >>> pair = normalize_pair("The clinic is closed on weekends.", "the clinic is closed on week ends")
    >>> pair.texts
    ('the clinic is closed on weekends', 'the clinic is closed on weekends')
    """
    for name, value in (("reference", reference), ("hypothesis", hypothesis)):
        if not isinstance(value, str):
            raise InputError(f"{name} must be a str, got {type(value).__name__}")
    ref, hyp = normalize(reference), normalize(hypothesis)
    ref_joined = _join_compounds(ref, frozenset(hyp.tokens), frozenset(ref.tokens))
    hyp_joined = _join_compounds(hyp, frozenset(ref.tokens), frozenset(hyp.tokens))
    return NormalizedPair(ref_joined, hyp_joined)


def _join_compounds(side: Normalized, other: frozenset[str], own: frozenset[str]) -> Normalized:
    tokens, spans = side.tokens, side.spans
    out_tokens: list[str] = []
    out_spans: list[Interval] = []
    i = 0
    while i < len(tokens):
        for width in (3, 2):  # the longest spelling first: "i o s" before "i o"
            parts = tokens[i : i + width]
            if len(parts) == width and all(map(str.isalpha, parts)):
                joined = "".join(parts)
                if joined in other and joined not in own:
                    out_tokens.append(joined)
                    out_spans.append(
                        (
                            min(s for s, _ in spans[i : i + width]),
                            max(e for _, e in spans[i : i + width]),
                        )
                    )
                    i += width
                    break
        else:
            out_tokens.append(tokens[i])
            out_spans.append(spans[i])
            i += 1
    if len(out_tokens) == len(tokens):
        return side
    return Normalized(side.original, tuple(out_tokens), tuple(out_spans))


def original_gap_spans(
    segmentation: Any, pair: NormalizedPair
) -> tuple[tuple[Interval, Interval], ...]:
    """For each gap of ``segment(*pair.texts)``: its (reference, hypothesis) spans in the
    ORIGINAL strings (token intervals mapped through :meth:`Normalized.original_span`)."""
    if (
        segmentation.reference != pair.reference.text
        or segmentation.hypothesis != pair.hypothesis.text
    ):
        raise InputError(
            "original_gap_spans() needs the segmentation of this pair's normalised texts"
        )
    return tuple(
        (
            pair.reference.original_span(*gap.ref_tokens),
            pair.hypothesis.original_span(*gap.hyp_tokens),
        )
        for gap in segmentation.gaps
    )
