"""Rules 6-8 of :mod:`sitar.normalize`: number runs, times, dates and units.

:func:`canonical_words` finds the runs of number words and digits among the words of
:func:`sitar._normalize_words.read_words`, has ``whisper-normalizer``'s number normaliser read each
run (with the overrules documented in :mod:`sitar.normalize`), and canonicalises times, dates and
unit abbreviations. Every output word keeps an original character span. Internal to sitar.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from sitar._normalize_words import CURRENCY, SIGNS, Interval, Library, Piece, has_digit

_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
_TIME_BEFORE = frozenset("at by until till til before after around from".split())
_TIME_AFTER = frozenset({"am", "pm", "o'clock"})
_SECOND_UNIT_AFTER = frozenset({"a", "one", "per", "each", "every", "few", "split"})
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


def canonical_words(words: list[Piece], lib: Library) -> list[tuple[str, Interval]]:
    """The words with every number run replaced by its canonical words (rules 6-8)."""
    out: list[tuple[str, Interval]] = []
    position = 0
    for start, end in _runs(words, lib):
        out.extend((p.text, (p.start, p.end)) for p in words[position:start] if not p.symbol)
        before = words[start - 1].text if start > 0 else ""
        after = _am_pm(words, end)
        out.extend(_number_run(words[start:end], before, after, lib))
        position = end
    out.extend((p.text, (p.start, p.end)) for p in words[position:] if not p.symbol)
    return _times_and_dates(out, lib)


def _is_numeric(word: str, lib: Library) -> bool:
    return word in lib.number_words or has_digit(word)


def _runs(words: list[Piece], lib: Library) -> Iterator[tuple[int, int]]:
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
                if (
                    word in _DECADES
                    and j - 2 >= i
                    and text(j - 1) in _DECADES
                    and text(j - 2) in _YEAR_HEADS
                ):
                    break  # rule 6: "twenty thirty sixty" is 2030 and 60, not 203060
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
            elif words[j].symbol and word in CURRENCY and core(j + 1):
                j += 1  # "5 and $3": the currency of the next number
            else:
                break
        if j > i and any(core(k) for k in range(i, j)):
            yield (i, j)
            i = j
        else:
            i += 1


def _is_numeric_plain(word: str, lib: Library) -> bool:
    return word not in ("o", "oh") and _is_numeric(word, lib)


def _starts_run(words: list[Piece], i: int, lib: Library, core: Callable[[int], bool]) -> bool:
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
_DECADES = frozenset("twenty thirty forty fifty sixty seventy eighty ninety".split())
_YEAR_HEADS = _DECADES | frozenset(_TEENS)


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


def _run_text(words: Sequence[Piece], lib: Library) -> str:
    """The run as the library reads it: symbols glued to the next word, ``a hundred`` as
    ``one hundred``, ``2 and a half`` as ``2.5`` (the library reads "and a half" only after a
    number word)."""
    texts = [piece.text for piece in words]
    parts: list[str] = []
    glue = False
    k = 0
    while k < len(words):
        word, step = texts[k], 1
        if word == "a" and k + 1 < len(words) and texts[k + 1] in lib.multipliers:
            word = "one"
        elif word.isdigit() and texts[k + 1 : k + 4] == ["and", "a", "half"]:
            word, step = word + ".5", 4
        word = _LIBRARY_SPELLING.get(word, word).rstrip(":")
        if glue:
            parts[-1] += word
        else:
            parts.append(word)
        glue = words[k].symbol
        k += step
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
        out.append(CURRENCY[currency])
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
    # Ours: "two pounds fifty" ("£2 50") is £2.50 when two-digit pence end the run and the amount
    # is under 100 (a price; "three hundred dollars twenty boxes" is a list).
    (re.compile(r"([€£$])([0-9]{1,2}) ([1-9][0-9])$"), lambda m: f"{m[1]}{m[2]}.{m[3]}"),
)


def _number_run(
    run: list[Piece], before: str, after: str, lib: Library
) -> list[tuple[str, Interval]]:
    span = (run[0].start, run[-1].end)
    words = [p.text for p in run]
    timed = before in _TIME_BEFORE or after in _TIME_AFTER
    spoken = _spoken_time(words) if timed else None
    if spoken is not None:
        return [(spoken[0], span), (spoken[1], span)]
    if any(w.endswith(":") for w in words):  # rule 7: "3:30"; ":00" minutes are dropped
        out = []
        after_colon = False
        for piece in run:
            word = piece.text.rstrip(":")
            if not (after_colon and word == "00"):  # the hour of "00:30" stays
                out.append((word, (piece.start, piece.end)))
            after_colon = piece.text.endswith(":")
        return out
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


def _library_numbers(run: list[Piece], words: list[str], lib: Library) -> list[str]:
    try:
        s = lib.numbers.preprocess(_run_text(run, lib))
        s = " ".join(w for w in lib.numbers.process_words(s.split()) if w is not None)
        for pattern, replacement in _CENTS:
            s = pattern.sub(replacement, s)
        produced = [tok for w in s.split() for tok in _canonical_number(w)]
    except Exception:  # rule 6: the library failing on a run keeps the run's words
        return [w for w in words if not (w in SIGNS.values() or w in CURRENCY)]
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


def _am_pm(words: list[Piece], k: int) -> str:
    first = words[k].text if k < len(words) else ""
    second = words[k + 1].text if k + 1 < len(words) else ""
    if first in ("a", "p") and second == "m":
        return first + "m"
    return first


def _times_and_dates(out: list[tuple[str, Interval]], lib: Library) -> list[tuple[str, Interval]]:
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
