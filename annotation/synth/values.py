"""Value changes of ``synth-1.5`` (issue #28, part 2): magnitude, digit order, unit, time, date.

The shipped model scored "Wire 300 dollars to Anna." -> "Wire 3000 dollars to Anna." at 0.017: it
had learnt from the T0 ``number_format`` family that "a number changed its form" is harmless, and
had seen few changes of a value's *size*. :func:`op_value` plans one such change, of one of five
kinds (the op name says which):

* ``value_magnitude``: a scale word or a power of ten ("three hundred" -> "three thousand",
  "300" -> "3000", "2,500" -> "250");
* ``value_transpose``: two adjacent digits swapped ("4512" -> "4152", "250" -> "205");
* ``value_unit``: the unit after a number ("20 kilograms" -> "20 pounds", "5 mg" -> "5 ml",
  "45 minutes" -> "45 hours");
* ``value_time``: a clock time ("7:30" -> "7:13", "seven thirty" -> "seven thirteen", "half past
  two" -> "quarter past two", "10 am" -> "10 pm", "7:30" -> "8:30");
* ``value_date``: a day or month ("the 14th" -> "the 4th", "the 13th" -> "the 30th",
  "fourteenth" -> "fourth", "in March" -> "in May").

The tier is drawn first where a reference offers both (:func:`op_value`).

**Tier by role** (the rule of every other ``synth`` family, :func:`.families._role_tier`): T2
where the changed value lies in an outcome span (the amount to pay, the dose, the meeting time:
the value bears on what the listener does), T1 where it lies in an inform span (a descriptive
figure: "the hall, which seats 300 people"), and nothing elsewhere. A value whose changed token
occurs again in the reference is not changed (a restated value is the T2 -> T1 boundary case
that :func:`.operators.finalize_directions` covers; here every label is one plain tier).

The hand-written data (unit pairs, scale words, teen/-ty pairs) is ``data/values.tsv``; the kind
of change is drawn first (uniformly among the kinds the reference offers), then the candidate, so
the rarer kinds are not drowned by plain digits. Every draw comes from the ``rng`` passed in.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from annotation.synth import lexicon
from annotation.synth.families import DATA_DIR, _role_tier, _rows
from annotation.synth.numbers import (
    int_to_words,
    is_number_token,
    ordinal_suffix,
    ordinal_to_words,
    parse_ordinal,
    words_to_int,
)
from annotation.synth.ops_format import digit_neighbour
from annotation.synth.plan import Edit, PlanContext, match_case, token_norms
from sitar.errors import InputError
from sitar.text import Token

__all__ = ["VALUES_FILE", "VALUE_KINDS", "VALUE_OPS_V15", "ValuePair", "load_values", "op_value"]

VALUES_FILE = DATA_DIR / "values.tsv"
VALUE_KINDS = ("unit", "magnitude", "teen")
#: The op names :func:`op_value` plans.
VALUE_OPS_V15 = ("value_magnitude", "value_transpose", "value_unit", "value_time", "value_date")
_DIGITS_RE = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")
_HOUR_WORDS = {int_to_words(h): h for h in range(1, 13)}
#: Words before a month name that make it a date ("in May", "the 3rd of May"), not the modal.
_BEFORE_MONTH = frozenset({"of", "in", "on", "by", "until", "since", "from", "early", "late",
                           "mid", "end", "during", "before", "after", "next", "last", "this"})  # fmt: skip
#: Words after an hour ("10 am", "3 o'clock"): that number is a time, not an amount.
_CLOCK = frozenset({"am", "pm", "oclock"})
_ORDINAL_WORD_VALUES = {ordinal_to_words(n): n for n in range(1, 32)}


@dataclass(frozen=True)
class ValuePair:
    """One row of ``data/values.tsv``: ``a`` <-> ``b`` of one kind (both directions)."""

    kind: str
    a: str
    b: str
    source: str
    line: int


@functools.lru_cache(maxsize=4)
def load_values(path: Path = VALUES_FILE) -> tuple[ValuePair, ...]:
    """Rows of the value table, checked: a known kind, single words, ``a != b``, no duplicate
    pair, and every ``teen`` row a teen and its -ty number ("thirteen", "thirty")."""
    out = []
    seen: set[frozenset[str]] = set()
    for lineno, (kind, a, b, source) in _rows(path, 4):
        where = f"{path.name}:{lineno}"
        if kind not in VALUE_KINDS:
            raise InputError(f"{where}: kind must be one of {VALUE_KINDS}, got {kind!r}")
        if len(token_norms(a)) != 1 or len(token_norms(b)) != 1 or token_norms(a) == token_norms(b):
            raise InputError(f"{where}: need two different single words, got {a!r} {b!r}")
        if kind == "teen":
            ta, tb = words_to_int(a), words_to_int(b)
            if ta is None or tb is None or not 13 <= ta <= 19 or tb != 10 * (ta - 10):
                raise InputError(f"{where}: a teen row needs a teen and its -ty, got {a!r} {b!r}")
        key = frozenset((a.casefold(), b.casefold()))
        if key in seen:
            raise InputError(f"{where}: duplicate pair {a!r} / {b!r}")
        seen.add(key)
        out.append(ValuePair(kind, a, b, source, lineno))
    return tuple(out)


def _swaps(kind: str) -> dict[str, tuple[str, ...]]:
    """``word -> (others...)`` of one kind, both directions, in file order."""
    table: dict[str, list[str]] = {}
    for p in load_values():
        if p.kind == kind:
            table.setdefault(p.a.casefold(), []).append(p.b)
            table.setdefault(p.b.casefold(), []).append(p.a)
    return {k: tuple(v) for k, v in table.items()}


def _teen_numbers() -> dict[int, int]:
    """13 <-> 30, 14 <-> 40, ... as integers (from the ``teen`` rows)."""
    out: dict[int, int] = {}
    for word, others in _swaps("teen").items():
        value = words_to_int(word)
        for other in others:
            other_value = words_to_int(other)
            if value is not None and other_value is not None:
                out[value] = other_value
    return out


def _joined_number(text: str, tok: Token) -> bool:
    """Whether a digit token is the hour or minutes of a written clock time ("7:30"), or one side
    of a score or range written with a dash ("3-1", "3–1"): neither changes size on its own."""
    joiners = (":", "-", "\u2013")
    return text[tok.end : tok.end + 1] in joiners or text[tok.start - 1 : tok.start] in joiners


def _recurs(ctx: PlanContext, i: int) -> bool:
    """Whether token ``i`` (a number of two or more characters, or a capitalized word) occurs again
    in the reference: its change would be recoverable (a boundary case, left to other ops)."""
    tok = ctx.tokens[i]
    distinctive = (any(ch.isdigit() for ch in tok.text) and len(tok.text) >= 2) or tok.text[
        :1
    ].isupper()
    return distinctive and sum(1 for t in ctx.tokens if t.norm == tok.norm) > 1


def _fmt(value: int, like: str) -> str:
    """``value`` written like ``like`` (with thousands commas if ``like`` has them)."""
    return f"{value:,}" if "," in like else str(value)


def _magnitude(ctx: PlanContext, rng: random.Random, i: int, tier: int) -> list[Edit | None]:
    toks, text = ctx.tokens, ctx.reference
    tok = toks[i]
    out: list[Edit | None] = []
    scale = _swaps("magnitude").get(tok.norm)
    prev = toks[i - 1].norm if i > 0 else ""
    if scale and (is_number_token(prev) or prev in ("a", "one")):
        new = match_case(tok.text, rng.choice(scale))
        out.append(ctx.make(tok.start, tok.end, new, "value_magnitude", tier))
    nxt = toks[i + 1].norm if i + 1 < len(toks) else ""
    if _DIGITS_RE.fullmatch(tok.text) and not _joined_number(text, tok) and nxt not in _CLOCK:
        plain = tok.text.replace(",", "")
        value = int(plain)
        # four or more digits without a comma are codes or years, and a group of a spaced digit
        # string is part of a phone number: only their digit order changes
        short = "," in tok.text or len(plain) <= 3
        if (
            value >= 1
            and not plain.startswith("0")
            and short
            and not digit_neighbour(text, toks, i)
        ):
            options = [value * 10]
            if value % 10 == 0 and value >= 20:
                options.append(value // 10)
            new = _fmt(rng.choice(options), tok.text)
            out.append(ctx.make(tok.start, tok.end, new, "value_magnitude", tier))
    return out


def _transpose(ctx: PlanContext, rng: random.Random, i: int, tier: int) -> list[Edit | None]:
    tok = ctx.tokens[i]
    if not _DIGITS_RE.fullmatch(tok.text) or _joined_number(ctx.reference, tok):
        return []
    digits = list(tok.text.replace(",", ""))
    spots = [
        k
        for k in range(len(digits) - 1)
        if digits[k] != digits[k + 1] and not (k == 0 and digits[1] == "0")
    ]
    if len(digits) < 3 or not spots:
        return []
    k = rng.choice(spots)
    digits[k], digits[k + 1] = digits[k + 1], digits[k]
    new = _fmt(int("".join(digits)), tok.text) if "," in tok.text else "".join(digits)
    return [ctx.make(tok.start, tok.end, new, "value_transpose", tier)]


def _unit(ctx: PlanContext, rng: random.Random, i: int, tier: int) -> list[Edit | None]:
    toks = ctx.tokens
    tok = toks[i]
    units = _swaps("unit").get(tok.norm)
    if not units or i == 0 or not is_number_token(toks[i - 1].norm):
        return []
    new = match_case(tok.text, rng.choice(units))
    return [ctx.make(tok.start, tok.end, new, "value_unit", tier)]


def _time(ctx: PlanContext, rng: random.Random, i: int) -> list[Edit | None]:
    """Clock-time changes whose tier covers the whole time ("7:30", "seven thirty")."""
    toks, text = ctx.tokens, ctx.reference
    tok = toks[i]
    out: list[Edit | None] = []
    teen = _teen_numbers()
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    # "7:30": the minutes (teen <-> -ty) or the hour (one either side)
    if tok.text.isdigit() and nxt is not None and text[tok.end : nxt.start] == ":":
        tier = _role_tier(ctx, i, i + 2)
        hour, minute = int(tok.text), int(nxt.text) if nxt.text.isdigit() else -1
        if tier is not None and 0 < hour <= 24 and 0 <= minute < 60 and not _recurs(ctx, i + 1):
            if minute in teen and teen[minute] < 60:
                new = f"{teen[minute]:02d}"
                out.append(ctx.make(nxt.start, nxt.end, new, "value_time", tier))
            other = hour + rng.choice((-1, 1)) if hour > 1 else hour + 1
            out.append(ctx.make(tok.start, tok.end, str(other), "value_time", tier))
    # "seven thirty" -> "seven thirteen"; "three o'clock" -> "four o'clock"
    if tok.norm in _HOUR_WORDS and nxt is not None:
        tier = _role_tier(ctx, i, i + 2)
        minute_word = _swaps("teen").get(nxt.norm)
        if tier is not None and minute_word and (words_to_int(minute_word[0]) or 60) < 60:
            new = match_case(nxt.text, minute_word[0])
            out.append(ctx.make(nxt.start, nxt.end, new, "value_time", tier))
        if tier is not None and nxt.norm in _CLOCK:
            hour = _HOUR_WORDS[tok.norm]
            other = hour % 12 + 1 if rng.random() < 0.5 else (hour - 2) % 12 + 1
            new = match_case(tok.text, int_to_words(other))
            out.append(ctx.make(tok.start, tok.end, new, "value_time", tier))
    # "half past two" <-> "quarter past two"
    if tok.norm in ("half", "quarter") and nxt is not None and nxt.norm == "past":
        tier = _role_tier(ctx, i, i + 3 if i + 2 < len(toks) else i + 2)
        if tier is not None:
            new = match_case(tok.text, "quarter" if tok.norm == "half" else "half")
            out.append(ctx.make(tok.start, tok.end, new, "value_time", tier))
    # "10 am" <-> "10 pm"
    if tok.norm in ("am", "pm") and i > 0 and is_number_token(toks[i - 1].norm):
        tier = _role_tier(ctx, i - 1, i + 1)
        if tier is not None:
            new = match_case(tok.text, "pm" if tok.norm == "am" else "am")
            out.append(ctx.make(tok.start, tok.end, new, "value_time", tier))
    return out


def _day_options(n: int) -> list[int]:
    """Days a recognizer may hear for day ``n``: the tens dropped or added (14 <-> 4, 4 -> 24),
    a teen for its -ty (13 <-> 30); all within 1-31 and different from ``n``."""
    teen = _teen_numbers()
    options = []
    if n >= 11 and n % 10:
        options.append(n % 10)
    if n < 10:
        options += [10 + n, 20 + n]
    if n in teen:
        options.append(teen[n])
    return [d for d in options if 1 <= d <= 31 and d != n]


def _date(ctx: PlanContext, rng: random.Random, i: int, tier: int) -> list[Edit | None]:
    toks = ctx.tokens
    tok = toks[i]
    prev = toks[i - 1].norm if i > 0 else ""
    nxt = toks[i + 1].norm if i + 1 < len(toks) else ""
    months = {m.casefold() for m in lexicon.MONTHS}
    out: list[Edit | None] = []
    day = parse_ordinal(tok.text)
    word_day = _ORDINAL_WORD_VALUES.get(tok.norm)
    dated = prev == "the" or prev in months or (nxt == "of" and i + 2 < len(toks)
                                               and toks[i + 2].norm in months)  # fmt: skip
    if day is not None and dated and not _recurs(ctx, i):
        options = _day_options(day)
        if options:
            d = rng.choice(options)
            out.append(ctx.make(tok.start, tok.end, f"{d}{ordinal_suffix(d)}", "value_date", tier))
    if word_day is not None and dated and tok.norm not in ("first", "second"):
        options = [d for d in _day_options(word_day) if " " not in ordinal_to_words(d)
                   and "-" not in ordinal_to_words(d)]  # fmt: skip
        if options:
            new = match_case(tok.text, ordinal_to_words(rng.choice(options)))
            out.append(ctx.make(tok.start, tok.end, new, "value_date", tier))
    confusions = lexicon.MONTH_CONFUSIONS.get(tok.norm)
    if confusions and tok.text[:1].isupper() and not _recurs(ctx, i):
        near_number = is_number_token(nxt) or (i > 0 and is_number_token(prev))
        if prev in _BEFORE_MONTH or near_number:
            out.append(ctx.make(tok.start, tok.end, rng.choice(confusions), "value_date", tier))
    return out


def value_candidates(ctx: PlanContext, rng: random.Random) -> dict[str, list[Edit]]:
    """Every value change :func:`op_value` may plan, by op name (lists in text order)."""
    found: dict[str, list[Edit]] = {}

    def add(edits: Sequence[Edit | None]) -> None:
        for e in edits:
            if e is not None:
                found.setdefault(e.op, []).append(e)

    for i in range(len(ctx.tokens)):
        add(_time(ctx, rng, i))
        tier = _role_tier(ctx, i, i + 1)
        if tier is None:
            continue
        if not _recurs(ctx, i):
            add(_magnitude(ctx, rng, i, tier))
            add(_transpose(ctx, rng, i, tier))
        add(_unit(ctx, rng, i, tier))
        add(_date(ctx, rng, i, tier))
    return found


def op_value(ctx: PlanContext, rng: random.Random) -> Edit | None:
    """One value change (module docstring): T2 in an outcome span, T1 in an inform span. The
    tier is drawn first (even odds where the reference offers both: outcome values outnumber
    descriptive figures, and a model must also see that a changed figure can be T1), then the
    kind uniformly among those left, then one of its candidates."""
    found = value_candidates(ctx, rng)
    tiers = sorted({e.tier for edits in found.values() for e in edits})
    if not tiers:
        return None
    tier = rng.choice(tiers)
    kinds = {k: [e for e in v if e.tier == tier] for k, v in sorted(found.items())}
    kind = rng.choice([k for k, v in kinds.items() if v])
    return rng.choice(kinds[kind])
