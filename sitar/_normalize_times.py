"""Rule 12 of :mod:`sitar.normalize` (normal form version 4): clock phrases, day periods, the
24-hour clock and day-month order, on the canonical tokens of rules 1-9.

:func:`clock_and_dates` rewrites one side's tokens: ``half past 7`` and ``7 30`` become one
time, ``10 past 2 in the afternoon`` and ``14:10`` become ``2 10 pm``, ``the 3rd of May``, ``May
the third`` and ``3 May`` become ``may 3``. A rewritten phrase's tokens all carry the original
span of the whole phrase (tokens may be reordered, so no finer span is true). Every rule is
conservative where a reading is ambiguous, and each is tested in
``tests/core/test_normalize_times.py``.
Internal to sitar.
"""

from __future__ import annotations

from collections.abc import Sequence

from sitar._normalize_numbers import _MONTHS, _ORDINAL, _TIME_BEFORE
from sitar._normalize_words import Interval

#: Month names that are also common words: ``D MONTH`` reads them as a month only before a year
#: (``3 May 2024``; not ``we may 3 times``). Rule 12 never reads case or punctuation, so a pair
#: as written and stripped of both stay one text.
_MONTH_WORDS = frozenset({"may", "march"})
#: Words before a clock phrase that make it a time (``at ten to four``): rule 7's time words and
#: ``about``, without ``from``, which starts a range (``from five to six``).
_CLOCK_BEFORE = (_TIME_BEFORE - {"from"}) | {"about"}
_PERIODS = {"morning": "am", "afternoon": "pm", "evening": "pm"}
_PAST = frozenset({"past", "after"})
_TO = frozenset({"to", "before", "till", "til"})
#: What a reader returns: (the index after the phrase, the phrase's canonical tokens), or None.
_Found = tuple[int, list[str]] | None
#: The tokens rule 12 has written so far, with their spans.
_Result = list[tuple[str, Interval]]


def _hour(token: str) -> int | None:
    """1-12 written as rules 6-7 write an hour (``one``, ``7``, ``12``), else None."""
    if token == "one":
        return 1
    if token.isdigit() and not token.startswith("0") and 1 <= int(token) <= 12:
        return int(token)
    return None


def _day(token: str) -> int | None:
    """A day of the month (1-31) written as a number or an ordinal (``3``, ``one``, ``3rd``)."""
    if token == "one":
        return 1
    match = _ORDINAL.fullmatch(token)
    digits = match[1] if match else token
    if digits.isdigit() and not digits.startswith("0") and 1 <= int(digits) <= 31:
        return int(digits)
    return None


def _day_token(day: int) -> str:
    return "one" if day == 1 else str(day)


class _Side:
    """One side's tokens and spans, read and rewritten left to right."""

    def __init__(self, original: str, tokens: Sequence[str], spans: Sequence[Interval]) -> None:
        self.original = original
        self.tokens = tokens
        self.spans = spans

    def at(self, k: int) -> str:
        return self.tokens[k] if 0 <= k < len(self.tokens) else ""

    def span(self, start: int, end: int) -> Interval:
        return (
            min(s for s, _ in self.spans[start:end]),
            max(e for _, e in self.spans[start:end]),
        )

    def written(self, k: int) -> str:
        start, end = self.spans[k]
        return self.original[start:end]


def _clock_phrase(side: _Side, i: int, result: _Result) -> _Found:
    """``[a] quarter|half|M [minutes] past|after|to|before|till H`` at ``i``: (the index after
    it, the tokens ``H MM``), or None. ``half past`` and ``quarter past/to`` are always times;
    ``M past H`` with a number M too (``10 past 2``); ``M to H`` and ``M after H`` only after a
    time word (``at``, ``by`` ...): ``5 to 6`` is also a range."""
    k = i + 1 if side.at(i) == "a" and side.at(i + 1) == "quarter" else i
    word = side.at(k)
    if word in ("quarter", "half"):
        minutes = 15 if word == "quarter" else 30
        fixed = True
    elif word.isdigit() and not word.startswith("0") and 1 <= int(word) <= 29:
        minutes, fixed = int(word), False
    else:
        return None
    k += 1
    if side.at(k) in ("minute", "minutes") and not fixed:
        k += 1  # "10 minutes to 4" is a time only after a time word ("it takes 10 minutes to 2
        # hours" is not)
    relation = side.at(k)
    if relation not in _PAST and relation not in _TO:
        return None
    if word == "half" and relation not in ("past", "after"):
        return None  # "half to 4" is not a time
    hour = _hour(side.at(k + 1))
    if hour is None:
        return None
    if not fixed and relation != "past" and side.at(i - 1) not in _CLOCK_BEFORE:
        return None
    if relation in _PAST:
        h, m = hour, minutes
    else:
        h, m = (hour - 1 if hour > 1 else 12), 60 - minutes
    return k + 2, [str(h), f"{m:02d}"]


def _time_before(result: _Result, side: _Side, end: int) -> bool:
    """Whether ``result`` ends in a time that a day period may follow: ``H MM`` (rules 7 and
    12), or an hour after a time word (``at 6``) or written with ``o'clock``."""
    if not result:
        return False
    last = result[-1][0]
    if len(result) >= 2 and _hour(result[-2][0]) is not None:
        if len(last) == 2 and last.isdigit():
            return True
    if _hour(last) is None:
        return False
    before = result[-2][0] if len(result) >= 2 else ""
    return before in _CLOCK_BEFORE or "o'clock" in side.written(end - 1).casefold()


def _date(side: _Side, i: int, result: _Result) -> _Found:
    """A day and a month at ``i`` in any of the orders ``[the] D of MONTH``, ``MONTH the D``
    (an ordinal) and ``D MONTH``: (the index after it, the tokens ``MONTH D``), or None."""
    k = i + 1 if side.at(i) == "the" else i
    day = _day(side.at(k))
    if day is not None:
        if side.at(k + 1) == "of" and side.at(k + 2) in _MONTHS:
            # "the 3 of may": rule 8 made the ordinal a number; without "the" the day must have
            # been written as an ordinal ("3rd of May"; "3 of may" may be a count).
            if k > i or not side.written(k).isdigit():
                return k + 3, [side.at(k + 2), _day_token(day)]
            return None
        month = side.at(k + 1)
        if k == i and month in _MONTHS:
            year = side.at(k + 2)
            if month in _MONTH_WORDS and not (len(year) == 4 and year.isdigit()):
                return None  # "we may 3 times": "may" and "march" need a year after them
            return k + 2, [month, _day_token(day)]
        return None
    month = side.at(i)
    if month in _MONTHS and side.at(i + 1) == "the":
        match = _ORDINAL.fullmatch(side.at(i + 2))
        if match is not None and (day := _day(side.at(i + 2))) is not None:
            return i + 3, [month, _day_token(day)]
    return None


def clock_and_dates(
    original: str, tokens: Sequence[str], spans: Sequence[Interval]
) -> tuple[list[str], list[Interval]]:
    """Rule 12 on one side's canonical tokens (and their original spans): clock phrases as
    ``H MM``, dates as ``MONTH D``, day periods after a time as ``am``/``pm``, the 24-hour clock
    as 12-hour with ``am``/``pm``, and ``midday`` as ``noon``."""
    side = _Side(original, tokens, spans)
    result: _Result = []
    i = 0
    while i < len(tokens):
        for reader in _READERS:
            found = reader(side, i, result)
            if found is not None:
                end, out = found
                span = side.span(i, end)
                result.extend((t, span) for t in out)
                i = end
                break
        else:
            result.append((tokens[i], spans[i]))
            i += 1
    return [t for t, _ in result], [s for _, s in result]


def _day_period(side: _Side, i: int, result: _Result) -> _Found:
    """``in the morning`` (``am``) or ``in the afternoon``/``evening`` (``pm``) after a time."""
    if side.at(i) != "in" or side.at(i + 1) != "the" or side.at(i + 2) not in _PERIODS:
        return None
    if side.at(i + 3) in ("am", "pm") or not _time_before(result, side, i):
        return None
    return i + 3, [_PERIODS[side.at(i + 2)]]


def _noon(side: _Side, i: int, result: _Result) -> _Found:
    """``midday`` and ``12 noon`` as ``noon``."""
    if side.at(i) == "midday":
        return i + 1, ["noon"]
    if side.at(i) == "12" and side.at(i + 1) == "noon":
        return i + 2, ["noon"]
    return None


def _twenty_four(side: _Side, i: int, result: _Result) -> _Found:
    """``14:10`` (rule 7: ``14 10``) as ``2 10 pm`` and ``00:30`` as ``12 30 am``: an hour 13-23
    or ``00`` and two-digit minutes, not already followed by am/pm. Read from the tokens alone,
    not from the colon, so the pair stripped of punctuation (``14 10``) reads the same (rule 12
    never looks at punctuation or case). ``14:00`` is ``14`` after rule 7, so it stays."""
    hour, minutes = side.at(i), side.at(i + 1)
    if not (hour == "00" or (hour.isdigit() and len(hour) == 2 and 13 <= int(hour) <= 23)):
        return None
    if not (len(minutes) == 2 and minutes.isdigit() and int(minutes) <= 59):
        return None
    if side.at(i + 2) in ("am", "pm"):
        return None
    h = int(hour)
    out = [str(h - 12 if h else 12)] + ([minutes] if minutes != "00" else [])
    return i + 2, [*out, "pm" if h else "am"]


#: Rule 12's readers, tried in this order at each token; the first that reads a phrase wins.
_READERS = (_clock_phrase, _date, _day_period, _twenty_four, _noon)
