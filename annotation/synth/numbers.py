"""Spoken and written number forms for the synthetic corpus generator.

T0 number-format operators rewrite a number without changing its value (``15`` <-> ``fifteen``,
``$250`` -> ``250 dollars``, ``3rd`` -> ``third``, an account number read digit by digit), and T2
operators change the value (``fifteen`` -> ``fifty``, ``250`` -> ``215``). Both rely on the
converters here, which cover the integers 0 to 999,999 in the forms a transcript uses. The parser
:func:`words_to_int` reads back exactly what :func:`int_to_words` writes (tested round trip).
"""

from __future__ import annotations

import random
import re

__all__ = [
    "NUMBER_WORDS",
    "digits_to_words",
    "int_to_words",
    "is_number_token",
    "ordinal_to_words",
    "words_to_int",
]

_ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORD_IRREGULAR = {
    "one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
    "nine": "ninth", "twelve": "twelfth",
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000}
#: Normalized tokens that are number words (cardinal); used by the T0 number-preservation guard.
NUMBER_WORDS = frozenset(
    [*_ONES, *_TENS[2:], "hundred", "thousand", "million", "oh", "dozen", "half", "quarter"]
    + [_ORD_IRREGULAR.get(w, w + "th") for w in _ONES[1:]]
    + [t[:-1] + "ieth" for t in _TENS[2:]]
)
_ORDINAL_RE = re.compile(r"^(\d+)(st|nd|rd|th)$", re.IGNORECASE)


def int_to_words(n: int, *, british_and: bool = False) -> str:
    """English cardinal words for ``0 <= n < 1_000_000``; ``british_and`` adds "and" after hundred.

    >>> int_to_words(250)
    'two hundred fifty'
    >>> int_to_words(42)
    'forty-two'
    """
    if not 0 <= n < 1_000_000:
        raise ValueError(f"int_to_words covers 0..999999, got {n}")
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = f"{_ONES[hundreds]} hundred"
        if not rest:
            return head
        return f"{head} {'and ' if british_and else ''}{int_to_words(rest)}"
    thousands, rest = divmod(n, 1000)
    head = f"{int_to_words(thousands, british_and=british_and)} thousand"
    if not rest:
        return head
    joiner = " and " if british_and and rest < 100 else " "
    return head + joiner + int_to_words(rest, british_and=british_and)


def year_to_words(n: int) -> str:
    """Spoken year: 2024 -> "twenty twenty-four", 1998 -> "nineteen ninety-eight", 2005 ->
    "two thousand five"."""
    if 2000 <= n <= 2009:
        return int_to_words(n)
    hi, lo = divmod(n, 100)
    if lo == 0:
        return f"{int_to_words(hi)} hundred"
    return f"{int_to_words(hi)} {'oh ' + _ONES[lo] if lo < 10 else int_to_words(lo)}"


def ordinal_to_words(n: int) -> str:
    """Ordinal words for ``1 <= n < 1000``: 3 -> "third", 21 -> "twenty-first"."""
    words = int_to_words(n)
    head, sep, last = words.rpartition("-") if "-" in words else words.rpartition(" ")
    if last in _ORD_IRREGULAR:
        last = _ORD_IRREGULAR[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + sep + last


def ordinal_suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def digits_to_words(digits: str, rng: random.Random | None = None) -> str:
    """Read an identifier digit by digit ("6621" -> "six six two one"; 0 as zero or oh)."""
    out = []
    for ch in digits:
        d = int(ch)
        out.append("oh" if d == 0 and rng is not None and rng.random() < 0.5 else _ONES[d])
    return " ".join(out)


def words_to_int(text: str) -> int | None:
    """Parse cardinal words ("two hundred and fifty", "forty-two", "six thousand") to an int;
    ``None`` if ``text`` is not a single well-formed cardinal number."""
    words = [w for w in re.split(r"[\s\-]+", text.casefold().strip()) if w and w != "and"]
    if not words:
        return None
    total = 0
    current = 0
    seen_any = False
    last_kind = ""
    for w in words:
        if w in _ONES:
            if last_kind in ("one", "teen") or (last_kind == "ten" and _ONES.index(w) >= 10):
                return None
            if last_kind == "ten" and _ONES.index(w) == 0:
                return None
            current += _ONES.index(w)
            last_kind = "one" if _ONES.index(w) < 10 else "teen"
        elif w in _TENS[2:]:
            if last_kind in ("one", "teen", "ten"):
                return None
            current += 10 * _TENS.index(w)
            last_kind = "ten"
        elif w == "hundred":
            if last_kind not in ("one", "teen") or current % 100 == 0 or current >= 100:
                return None
            current *= 100
            last_kind = "hundred"
        elif w == "thousand":
            if not seen_any or current == 0 or total:
                return None
            total = current * 1000
            current = 0
            last_kind = "thousand"
        else:
            return None
        seen_any = True
    return total + current


def is_number_token(norm: str) -> bool:
    """Whether a normalized token is a number: digits (``15``, ``3,000``, ``3rd``) or a number
    word (cardinal or ordinal)."""
    return any(ch.isdigit() for ch in norm) or norm in NUMBER_WORDS


def parse_ordinal(token: str) -> int | None:
    m = _ORDINAL_RE.match(token)
    return int(m.group(1)) if m else None
