"""Edit operators of planned tier for the synthetic corpus generator (issue #5, part 2).

An :class:`Edit` replaces one character span of the reference (an empty span is an insertion) and
records the operator, its *planned* tier and boundary direction, and the role span it touches. The
operators are grouped by the tier they plan:

* **T0, anywhere** (expression only): fillers added or dropped, immediate repetitions, restarts,
  contractions, number formats that keep the value, spelling variants, split or merged compounds,
  homophones of function words, dropped function words, punctuation and case. Every T0 edit passes
  :func:`t0_safe`: it keeps the count of negation tokens and the multiset of number tokens (a
  number-format edit instead keeps the value by construction, see :mod:`.numbers`; from
  ``synth-1.5`` on, :attr:`PlanContext.number_filter` may keep only some of them).
* **T1, on inform spans** (uptake changes, outcome preserved): antonyms, negation flips, phonetic
  neighbours of content words, dropped descriptive words or whole asides, changed values in asides.
* **T2, on outcome spans** (outcome changes): negation flips, changed numbers, dates and times,
  swapped entities, antonyms and reversed conditions (``before`` <-> ``after``, ``if`` <->
  ``unless``), changed action verbs, modal changes, dropped decisive values, phonetic neighbours of
  outcome words.

Boundary cases (spec §5 (docs/spec.md) directions), each decided by a fixed rule:

* **T0 -> T1** (``+1`` at tier 0), ``number_restart``: a restart that first says a *different*
  number and then the right one ("at fifty, fifteen"), which leaves the decisive value ambiguous.
* **T1 -> T2** (``+1`` at tier 1): an antonym or negation flip inside an inform span that opens with
  a causal word (``because``, ``since``, ``as``, ``so``, ``due``, ...): reversing the stated reason
  strongly suggests a different outcome.
* **T2 -> T1** (``-1`` at tier 2): a value change (number, date, entity, dropped value) whose
  original tokens occur again elsewhere in the reference, untouched by any T1/T2 edit, so the
  listener can recover the value. Decided after planning by :func:`finalize_directions`, which
  applies the same rule to a changed value inside an aside (``inform_value``: **T1 -> T0**).
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from annotation.synth import lexicon
from annotation.synth.numbers import (
    NUMBER_WORDS,
    digits_to_words,
    int_to_words,
    is_number_token,
    ordinal_suffix,
    ordinal_to_words,
    parse_ordinal,
    words_to_int,
    year_to_words,
)
from annotation.synth.phonetic import PhoneticIndex
from sitar.text import Token, tokenize

__all__ = [
    "OPERATORS",
    "Edit",
    "PlanContext",
    "RoleSpan",
    "apply_edits",
    "finalize_directions",
    "negation_count",
    "number_tokens",
    "t0_safe",
]


@dataclass(frozen=True)
class RoleSpan:
    """A role span of the reference: ``outcome`` (T2-sensitive), ``inform`` (T1-sensitive) or
    ``restated`` (a value restated for the T2 -> T1 boundary case)."""

    start: int
    end: int
    role: str
    text: str


@dataclass(frozen=True)
class Edit:
    """Replace ``reference[start:end]`` by ``new`` (``start == end``: insertion)."""

    start: int
    end: int
    new: str
    op: str
    tier: int
    direction: int = 0
    role: str = "other"
    role_span: str | None = None
    old: str = ""

    @property
    def position(self) -> float:
        return self.tier + self.direction / 3.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "tier": self.tier,
            "direction": self.direction,
            "role": self.role,
            "role_span": self.role_span,
            "ref_span": [self.start, self.end],
            "ref_text": self.old,
            "new_text": self.new,
        }


# ---------------------------------------------------------------------------------------------
# Safety guards
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1 << 16)
def _norms(text: str) -> tuple[str, ...]:
    return tuple(t.norm for t in tokenize(text))


def negation_count(text: str) -> int:
    """Number of negation tokens (``not``, ``n't`` forms, ``never``, ``no``, ``nobody``...)."""
    return sum(1 for n in _norms(text) if n in lexicon.NEGATIONS)


def number_tokens(text: str) -> list[str]:
    """Sorted normalized number tokens (digits or number words) of ``text``."""
    return sorted(n for n in _norms(text) if is_number_token(n))


def t0_safe(old: str, new: str) -> bool:
    """A T0 edit must keep negations and numbers: same negation count, same number tokens."""
    return negation_count(old) == negation_count(new) and number_tokens(old) == number_tokens(new)


def match_case(source: str, word: str) -> str:
    """Carry the capitalization of ``source`` over to ``word``."""
    if len(source) > 1 and source.isupper():
        return word.upper()
    if source[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


# ---------------------------------------------------------------------------------------------
# Planning context
# ---------------------------------------------------------------------------------------------


#: T0 operators exempt from :func:`t0_safe`: a number format keeps the value by construction, and
#: the number restart is the deliberate T0 -> T1 boundary case, and a number rewording of the
#: ``synth-1.3`` phrase lexicon ("half past seven" -> "seven thirty") is checked row by row when
#: the lexicon is loaded (:func:`annotation.synth.families.load_lexicon`).
_UNGUARDED_T0 = frozenset({"number_format", "number_restart", "reword_number"})


@dataclass
class PlanContext:
    """The reference being edited, its role spans, and the edits planned so far."""

    reference: str
    spans: Sequence[RoleSpan]
    phonetic: PhoneticIndex
    #: Lowercase words seen in lowercase in the pool (so a capitalized one is not an entity).
    common_words: frozenset[str] = frozenset()
    edits: list[Edit] = field(default_factory=list)
    #: ``synth-1.5`` ``number_format`` switch: called with the reference and the reference with
    #: one number-format edit applied, it says whether that edit may be planned (``None``: every
    #: one may, as in ``synth-1.0``-``1.4``). See :func:`annotation.synth.generate.number_filter`.
    number_filter: Callable[[str, str], bool] | None = None

    def __post_init__(self) -> None:
        self.tokens: tuple[Token, ...] = tokenize(self.reference)
        self._role_of: list[RoleSpan | None] = []
        for tok in self.tokens:
            owner = None
            for span in self.spans:
                if span.start <= tok.start and tok.end <= span.end:
                    owner = span
                    break
            self._role_of.append(owner)

    def keeps_number_format(self, edit: Edit) -> bool:
        """Whether a number-format edit passes :attr:`number_filter`."""
        if self.number_filter is None:
            return True
        return self.number_filter(self.reference, apply_edits(self.reference, [edit]))

    # -- roles ----------------------------------------------------------------------------------
    def role_of(self, i: int) -> RoleSpan | None:
        return self._role_of[i]

    def role_at(self, pos: int) -> RoleSpan | None:
        """The role span strictly containing an insertion point."""
        for span in self.spans:
            if span.start < pos < span.end:
                return span
        return None

    def tokens_in(self, role: str) -> list[int]:
        return [i for i, s in enumerate(self._role_of) if s is not None and s.role == role]

    def spans_of(self, role: str) -> list[RoleSpan]:
        return [s for s in self.spans if s.role == role]

    # -- occupancy ------------------------------------------------------------------------------
    def is_free(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` (or the insertion point ``start == end``) is clear of every
        planned edit; adjacent replacements are allowed (CGD may still merge them into one gap),
        an insertion must not touch another edit."""
        for e in self.edits:
            # An insertion may not touch another edit: a repetition next to a deletion of the
            # same word would cancel out.
            if start == end:
                if e.start <= start <= e.end:
                    return False
            elif e.start == e.end:
                if start <= e.start <= end:
                    return False
            elif start < e.end and e.start < end:
                return False
        return True

    def make(
        self, start: int, end: int, new: str, op: str, tier: int, direction: int = 0
    ) -> Edit | None:
        """Build an edit if its span is free and the text actually changes."""
        old = self.reference[start:end]
        if old == new or not self.is_free(start, end):
            return None
        if tier == 0 and op not in _UNGUARDED_T0 and not t0_safe(old, new):
            return None
        if start == end and start > 0 and not self.reference[start - 1].isspace():
            return None  # insert only at word starts ("10:42" must not become "10:um 42")
        span = self.role_at(start) if start == end else self._span_for(start, end)
        return Edit(
            start=start,
            end=end,
            new=new,
            op=op,
            tier=tier,
            direction=direction,
            role=span.role if span else "other",
            role_span=span.text if span else None,
            old=old,
        )

    def _span_for(self, start: int, end: int) -> RoleSpan | None:
        for span in self.spans:
            if start < span.end and span.start < end:
                return span
        return None

    # -- token surgery --------------------------------------------------------------------------
    def delete_range(self, i: int, j: int) -> tuple[int, int]:
        """Character range that deletes tokens ``[i, j)`` with one adjacent separator."""
        toks = self.tokens
        if j < len(toks):
            return toks[i].start, toks[j].start
        if i > 0:
            return toks[i - 1].end, toks[j - 1].end
        return toks[i].start, toks[j - 1].end


Operator = Callable[[PlanContext, random.Random], "Edit | None"]


def _pick(rng: random.Random, candidates: list[Edit | None]) -> Edit | None:
    found = [c for c in candidates if c is not None]
    return rng.choice(found) if found else None


def _is_word(tok: Token) -> bool:
    return tok.text.replace("'", "").replace("’", "").isalpha()


# ---------------------------------------------------------------------------------------------
# T0 operators
# ---------------------------------------------------------------------------------------------


def op_filler_insert(ctx: PlanContext, rng: random.Random) -> Edit | None:
    if not ctx.tokens:
        return None
    i = rng.randrange(len(ctx.tokens))
    filler = rng.choice(lexicon.INSERTABLE_FILLERS)
    if i == 0:
        filler = match_case(ctx.tokens[0].text, filler)
    sep = rng.choice([" ", " ", ", "])
    return ctx.make(ctx.tokens[i].start, ctx.tokens[i].start, filler + sep, "filler_insert", 0)


def op_filler_drop(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    toks = ctx.tokens
    for i, tok in enumerate(toks):
        if tok.norm in lexicon.PURE_FILLERS:
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", "filler_drop", 0))
        elif i + 1 < len(toks) and (tok.norm, toks[i + 1].norm) in (("you", "know"), ("i", "mean")):
            # Only as a parenthetical: followed by a comma.
            if ctx.reference[toks[i + 1].end : toks[i + 1].end + 1] == ",":
                a, b = ctx.delete_range(i, i + 2)
                cands.append(ctx.make(a, b, "", "filler_drop", 0))
    return _pick(rng, cands)


def op_repetition(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for tok in ctx.tokens:
        if _is_word(tok) and tok.norm not in lexicon.NEGATIONS and not is_number_token(tok.norm):
            cands.append(ctx.make(tok.start, tok.start, tok.text + " ", "repetition", 0))
    return _pick(rng, cands)


def op_restart(ctx: PlanContext, rng: random.Random) -> Edit | None:
    toks = ctx.tokens
    if not toks:
        return None
    if rng.random() < 0.5:
        # A cut-off word: "fif- fifteen", "can- cancel".
        cands = []
        for tok in toks:
            if _is_word(tok) and len(tok.text) >= 4:
                k = rng.randint(2, len(tok.text) - 2)
                part = tok.text[:k]
                if part.casefold() in NUMBER_WORDS or part.casefold() in lexicon.NEGATIONS:
                    continue
                cands.append(ctx.make(tok.start, tok.start, part + "- ", "restart", 0))
        return _pick(rng, cands)
    # A phrase restart: "I want to, I want to go".
    cands = []
    for i in range(1, len(toks)):
        k = rng.randint(1, min(3, i))
        a, b = toks[i - k].start, toks[i - 1].end
        phrase = ctx.reference[a:b]
        if any(ch in phrase for ch in ".?!;:,"):
            continue
        sep = rng.choice([" ", "- ", ", "])
        cands.append(ctx.make(a, a, phrase + sep, "restart", 0))
    return _pick(rng, cands)


def _contraction_tables() -> tuple[dict[str, str], dict[tuple[str, ...], str]]:
    contract = {k.casefold().replace("'", ""): v for k, v in lexicon.CONTRACTIONS.items()}
    expand = {tuple(_norms(v)): k for k, v in lexicon.CONTRACTIONS.items()}
    return contract, expand


_CONTRACT, _EXPAND = _contraction_tables()


def op_contraction(ctx: PlanContext, rng: random.Random) -> Edit | None:
    toks = ctx.tokens
    cands = []
    for i, tok in enumerate(toks):
        if tok.norm in _CONTRACT and ("'" in tok.text or "’" in tok.text or tok.norm == "cannot"):
            nxt = toks[i + 1].norm if i + 1 < len(toks) else ""
            if tok.norm in {"its", "thats", "theres", "hes", "shes", "whats"} and nxt in {
                "been",
                "got",
                "had",
            }:
                continue
            cands.append(
                ctx.make(
                    tok.start, tok.end, match_case(tok.text, _CONTRACT[tok.norm]), "contraction", 0
                )
            )
        if i + 1 < len(toks):
            pair = (tok.norm, toks[i + 1].norm)
            if pair in _EXPAND and ctx.reference[tok.end : toks[i + 1].start] == " ":
                new = match_case(tok.text, _EXPAND[pair])
                cands.append(ctx.make(tok.start, toks[i + 1].end, new, "contraction", 0))
    return _pick(rng, cands)


_MONEY_RE = re.compile(r"([$£€])(\d{1,3}(?:,\d{3})+|\d+)(\.\d\d)?(?!\d)")
_CURRENCY = {"$": "dollars", "£": "pounds", "€": "euros"}
_TIME_RE = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])")
_PERCENT_RE = re.compile(r"(?<![\d.,])(\d+)%")
_MONEY_WORDS = frozenset({"dollars", "pounds", "euros", "percent", "cents", "pence", "bucks"})
_CARDINAL_WORDS = frozenset(
    w for w in NUMBER_WORDS if words_to_int(w) is not None or w in ("hundred", "thousand")
)


def _number_format_candidates(ctx: PlanContext, rng: random.Random) -> list[Edit | None]:
    text, toks = ctx.reference, ctx.tokens
    cands: list[Edit | None] = []
    covered: set[int] = set()
    for m in _MONEY_RE.finditer(text):
        sym, digits, cents = m.group(1), m.group(2), m.group(3)
        value = int(digits.replace(",", ""))
        if cents or value >= 1_000_000 or rng.random() < 0.5:
            new = f"{digits}{cents or ''} {_CURRENCY[sym]}"
        else:
            new = f"{int_to_words(value, british_and=sym == '£')} {_CURRENCY[sym]}"
        cands.append(ctx.make(m.start(), m.end(), new, "number_format", 0))
        covered.update(range(m.start(), m.end()))
    for m in _TIME_RE.finditer(text):
        hour, minute = int(m.group(1)), int(m.group(2))
        if not (0 < hour <= 24 and minute < 60):
            continue
        h = int_to_words(hour)
        if minute == 0:
            after = text[m.end() : m.end() + 4].casefold()
            new = h if after.strip().startswith(("am", "pm", "a.m", "p.m")) else f"{h} o'clock"
        elif minute < 10:
            new = f"{h} oh {int_to_words(minute)}"
        else:
            new = f"{h} {int_to_words(minute)}"
        cands.append(ctx.make(m.start(), m.end(), new, "number_format", 0))
        covered.update(range(m.start(), m.end()))
    for m in _PERCENT_RE.finditer(text):
        cands.append(ctx.make(m.start(), m.end(), f"{m.group(1)} percent", "number_format", 0))
        covered.update(range(m.start(), m.end()))
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.start in covered:
            i += 1
            continue
        ordinal = parse_ordinal(tok.text)
        if ordinal is not None and 0 < ordinal < 1000:
            cands.append(
                ctx.make(tok.start, tok.end, ordinal_to_words(ordinal), "number_format", 0)
            )
        elif re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+", tok.text):
            before = text[max(0, tok.start - 1) : tok.start]
            after_tok = toks[i + 1].norm if i + 1 < len(toks) else ""
            plain = tok.text.replace(",", "")
            value = int(plain)
            is_code = (
                before == "-"
                or (i > 0 and text[toks[i - 1].end : tok.start] == "" and before != "")
                or (len(plain) >= 5 and "," not in tok.text)
                or (plain.startswith("0") and len(plain) > 1)
                or _digit_neighbour(text, toks, i)
                or (i > 0 and toks[i - 1].text.isupper() and toks[i - 1].text.isalpha())
            )
            money = before in _CURRENCY or after_tok in _MONEY_WORDS
            if is_code:
                new = digits_to_words(plain, rng)
            elif len(plain) == 4 and not money and "," not in tok.text:
                new = year_to_words(value) if 1900 <= value <= 2099 else digits_to_words(plain, rng)
            elif value < 1_000_000:
                new = int_to_words(value, british_and=rng.random() < 0.3)
            else:
                new = None
            if new is not None:
                cands.append(ctx.make(tok.start, tok.end, new, "number_format", 0))
        elif tok.norm in _CARDINAL_WORDS:
            # Longest run of cardinal words that parses ("two hundred and fifty", "forty-two").
            j = i + 1
            while j < len(toks) and (
                toks[j].norm in _CARDINAL_WORDS
                or (toks[j].norm == "and" and toks[j - 1].norm in ("hundred", "thousand"))
            ):
                j += 1
            while j > i:
                raw = text[tok.start : toks[j - 1].end]
                value = words_to_int(raw)
                if value is not None and not re.search(r"[^\w\s\-]", raw):
                    break
                j -= 1
            if j > i and raw.casefold() not in ("one", "a"):
                fmt = f"{value:,}" if value >= 1000 and rng.random() < 0.5 else str(value)
                cands.append(ctx.make(tok.start, toks[j - 1].end, fmt, "number_format", 0))
                i = j
                continue
        elif tok.norm in _ORDINAL_WORDS and tok.norm not in ("second",):
            n = _ORDINAL_WORDS[tok.norm]
            cands.append(
                ctx.make(tok.start, tok.end, f"{n}{ordinal_suffix(n)}", "number_format", 0)
            )
        i += 1
    return cands


_ORDINAL_WORDS = {ordinal_to_words(n): n for n in range(1, 32)}


def _digit_neighbour(text: str, toks: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` is one group of a spaced digit string ("07700 900 442")."""
    for j in (i - 1, i + 1):
        if 0 <= j < len(toks) and toks[j].text.isdigit():
            a, b = sorted((j, i))
            if text[toks[a].end : toks[b].start] in (" ", "-"):
                return True
    return False


def op_number_format(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = _number_format_candidates(ctx, rng)
    if ctx.number_filter is not None:  # synth-1.5 --number-format residual / none
        cands = [
            c
            for c in cands
            if c is not None and not _inside_number(ctx.reference, c) and ctx.keeps_number_format(c)
        ]
    return _pick(rng, cands)


def _inside_number(text: str, edit: Edit) -> bool:
    """Whether ``edit`` rewrites one part of a hyphenated number or score ("seventh" of
    "twenty-seventh", "2" of "0-2"): a form no recognizer writes ("twenty-7th"). The earlier
    versions plan such edits; from ``synth-1.5`` on, with a ``number_format`` filter, they are
    left out."""
    before = text[edit.start - 2 : edit.start] if edit.start >= 2 else ""
    after = text[edit.end : edit.end + 2]
    return (len(before) == 2 and before[1] == "-" and before[0].isalnum()) or (
        len(after) == 2 and after[0] == "-" and after[1].isalnum()
    )


_SPELL_REVERSE_SKIP = frozenset({"check", "story", "practice", "tire", "curb", "meter", "program"})
_SPELLING = {**lexicon.SPELLING_VARIANTS}
_SPELLING.update(
    {v.casefold(): k for k, v in lexicon.SPELLING_VARIANTS.items() if v not in _SPELL_REVERSE_SKIP}
)


def op_spelling(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for tok in ctx.tokens:
        alt = _SPELLING.get(tok.text.casefold())
        if alt:
            new = alt if alt.isupper() else match_case(tok.text, alt)
            cands.append(ctx.make(tok.start, tok.end, new, "spelling", 0))
    return _pick(rng, cands)


_SPLIT_SKIP = frozenset({"already"})
_MERGE = {tuple(k.split()): v for k, v in lexicon.MERGES.items()}
_MERGE.update({tuple(v.split()): k for k, v in lexicon.COMPOUNDS.items() if k not in _SPLIT_SKIP})


def op_compound(ctx: PlanContext, rng: random.Random) -> Edit | None:
    toks = ctx.tokens
    cands = []
    for i, tok in enumerate(toks):
        parts = lexicon.COMPOUNDS.get(tok.text.casefold())
        if parts and tok.text.casefold() not in _SPLIT_SKIP:
            cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, parts), "compound", 0))
        if i + 1 < len(toks) and ctx.reference[tok.end : toks[i + 1].start] == " ":
            merged = _MERGE.get((tok.norm, toks[i + 1].norm))
            if merged:
                new = match_case(tok.text, merged)
                cands.append(ctx.make(tok.start, toks[i + 1].end, new, "compound", 0))
    return _pick(rng, cands)


def op_homophone(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for tok in ctx.tokens:
        key = tok.text.casefold().replace("’", "'")
        if key in lexicon.HOMOPHONES and key not in lexicon.UNSAFE_HOMOPHONES:
            alt = rng.choice(lexicon.HOMOPHONES[key])
            cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, alt), "homophone", 0))
    return _pick(rng, cands)


def op_drop_function_word(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for i, tok in enumerate(ctx.tokens):
        if tok.norm in lexicon.DROPPABLE_FUNCTION_WORDS and len(ctx.tokens) > 3:
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", "drop_function_word", 0))
    return _pick(rng, cands)


def op_punctuation(ctx: PlanContext, rng: random.Random) -> Edit | None:
    text = ctx.reference
    cands = []
    for k, ch in enumerate(text):
        if ch in ",;:.!?" and (k + 1 == len(text) or text[k + 1] == " "):
            cands.append(ctx.make(k, k + 1, "", "punctuation", 0))
    for tok in ctx.tokens[:-1]:
        if text[tok.end : tok.end + 1] == " ":
            cands.append(ctx.make(tok.end, tok.end, ",", "punctuation", 0))
    return _pick(rng, cands)


def op_case(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for tok in ctx.tokens:
        if not _is_word(tok):
            continue
        new = tok.text.lower() if tok.text[:1].isupper() else tok.text[:1].upper() + tok.text[1:]
        cands.append(ctx.make(tok.start, tok.end, new, "case", 0))
    return _pick(rng, cands)


# ---------------------------------------------------------------------------------------------
# Value changes (shared by T2, T1 and the T0 -> T1 restart)
# ---------------------------------------------------------------------------------------------

_TEEN_TY = {f"{n}": f"{n % 10}0" for n in range(13, 20)}
_TEEN_TY.update({v: k for k, v in _TEEN_TY.items()})


def changed_digits(text: str, rng: random.Random) -> str:
    """A different number in the same written form: "250" -> "215", "15" -> "50", "3,000" ->
    "8,000"."""
    plain = text.replace(",", "")
    if plain in _TEEN_TY and rng.random() < 0.6:
        new = _TEEN_TY[plain]
    else:
        digits = list(plain)
        choice = rng.random()
        if len(digits) >= 2 and choice < 0.3:
            k = rng.randrange(len(digits) - 1)
            if digits[k] != digits[k + 1] and not (k == 0 and digits[1] == "0"):
                digits[k], digits[k + 1] = digits[k + 1], digits[k]
        if "".join(digits) == plain:
            k = rng.randrange(len(digits))
            options = [d for d in "0123456789" if d != digits[k] and not (k == 0 and d == "0")]
            digits[k] = rng.choice(options) if options else digits[k]
        new = "".join(digits)
    if "," in text and len(new) > 3:
        new = f"{int(new):,}"
    return new


def changed_number_word(word: str, ctx: PlanContext, rng: random.Random) -> str | None:
    """A sound-alike different number word ("fifteen" -> "fifty"), else a nearby value."""
    allowed = [w for w in _CARDINAL_WORDS | set(_ORDINAL_WORDS) if w not in ("hundred", "thousand")]
    near = ctx.phonetic.neighbours(word, allowed=allowed, max_distance=2.0)
    if near and rng.random() < 0.8:
        best = near[0][0]
        return match_case(word, rng.choice([w for d, w in near if d <= best + 0.4]))
    value = words_to_int(word)
    if value is not None:
        other = max(0, value + rng.choice([-2, -1, 1, 2, 10]))
        return match_case(word, int_to_words(other)) if other != value else None
    if word.casefold() in _ORDINAL_WORDS:
        n = _ORDINAL_WORDS[word.casefold()]
        return match_case(word, ordinal_to_words(n % 30 + 1))
    return None


def _value_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    for i in ctx.tokens_in(role):
        tok = ctx.tokens[i]
        ordinal = parse_ordinal(tok.text)
        if ordinal is not None:
            n = ordinal + rng.choice([1, 2, 10, -1]) if ordinal > 2 else ordinal + 10
            new = f"{n}{ordinal_suffix(n)}"
        elif re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?", tok.text):
            if "." in tok.text:
                whole, frac = tok.text.split(".")
                new = f"{whole}.{changed_digits(frac, rng)}"
            else:
                new = changed_digits(tok.text, rng)
        elif tok.norm in NUMBER_WORDS and tok.norm not in ("hundred", "thousand", "half"):
            if tok.norm in ("one", "second") and rng.random() < 0.7:
                continue  # often a pronoun / a unit, not a value
            new = changed_number_word(tok.text, ctx, rng)
        else:
            continue
        if new and new != tok.text:
            cands.append(ctx.make(tok.start, tok.end, new, op, tier))
    return cands


_ENTITY_LEXICON = frozenset(
    w.casefold() for w in (*lexicon.ENTITY_NAMES, *lexicon.ENTITY_PLACES, *lexicon.ENTITY_ORGS)
)


def sentence_initial(text: str, tokens: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` starts a sentence (first token, or after ``. ! ? :`` or a filler)."""
    if i == 0:
        return True
    sep = text[tokens[i - 1].end : tokens[i].start]
    return any(ch in ".!?:" for ch in sep) or (
        tokens[i - 1].norm in lexicon.PURE_FILLERS and sentence_initial(text, tokens, i - 1)
    )


def is_entity_token(text: str, tokens: Sequence[Token], i: int, common: frozenset[str]) -> bool:
    """A name, place or organisation word: capitalized, alphabetic, no apostrophe, not a word the
    pool uses in lowercase, not a function word or negation, and either inside a sentence or a
    known entity from our lists."""
    tok = tokens[i]
    low = tok.norm
    if not tok.text[:1].isupper() or not tok.text.isalpha():
        return False
    if low in common or low in lexicon.FUNCTION_WORDS or low in lexicon.NEGATIONS or low == "i":
        return False
    return low in _ENTITY_LEXICON or not sentence_initial(text, tokens, i)


def _entity_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    names = {w.casefold() for w in lexicon.ENTITY_NAMES}
    places = {w.casefold() for w in lexicon.ENTITY_PLACES}
    calendar = {w.casefold() for w in (*lexicon.MONTHS, *lexicon.WEEKDAYS)}
    for i in ctx.tokens_in(role):
        tok = ctx.tokens[i]
        low = tok.text.casefold()
        if (
            low in calendar
            or len(low) < 3
            or not is_entity_token(ctx.reference, ctx.tokens, i, ctx.common_words)
        ):
            continue
        pool = places if low in places else names if low in names else names | places
        near = ctx.phonetic.neighbours(low, allowed=pool, max_distance=2.0)
        if near and rng.random() < 0.75:
            new = near[0][1] if rng.random() < 0.6 else rng.choice(near[:4])[1]
        else:
            new = rng.choice(sorted(pool - {low}))
        cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, new.capitalize()), op, tier))
    return cands


def _calendar_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    for i in ctx.tokens_in(role):
        tok = ctx.tokens[i]
        low = tok.norm
        options = (
            lexicon.WEEKDAY_CONFUSIONS.get(low)
            or (lexicon.MONTH_CONFUSIONS.get(low) if tok.text[:1].isupper() else None)
            or lexicon.TIME_WORD_SWAPS.get(low)
        )
        if options:
            new = rng.choice(options)
            if not new[:1].isupper():
                new = match_case(tok.text, new)
            cands.append(ctx.make(tok.start, tok.end, new, op, tier))
    return cands


def op_number_restart(ctx: PlanContext, rng: random.Random) -> Edit | None:
    """T0 -> T1: a restart on a wrong value, then the right one ("at fifty, fifteen")."""
    cands = []
    for i in ctx.tokens_in("outcome"):
        tok = ctx.tokens[i]
        if re.fullmatch(r"\d+", tok.text):
            wrong = changed_digits(tok.text, rng)
        elif tok.norm in _CARDINAL_WORDS and tok.norm not in ("hundred", "thousand", "one"):
            wrong = changed_number_word(tok.text, ctx, rng)
        else:
            continue
        if wrong and wrong != tok.text:
            sep = rng.choice(["- ", ", ", " "])
            cands.append(ctx.make(tok.start, tok.start, wrong + sep, "number_restart", 0, 1))
    return _pick(rng, cands)


# ---------------------------------------------------------------------------------------------
# Negation, antonyms, verbs, modals
# ---------------------------------------------------------------------------------------------

_NEG_REMOVE = {
    "dont": "do", "doesnt": "does", "didnt": "did", "cant": "can", "cannot": "can",
    "wont": "will", "isnt": "is", "arent": "are", "wasnt": "was", "werent": "were",
    "havent": "have", "hasnt": "has", "hadnt": "had", "couldnt": "could", "wouldnt": "would",
    "shouldnt": "should", "mustnt": "must", "neednt": "need", "never": "always",
    "nobody": "somebody", "nothing": "something", "nowhere": "somewhere", "none": "some",
}  # fmt: skip
_NEG_ADD = {
    "is": "isn't", "are": "aren't", "was": "wasn't", "were": "weren't", "will": "won't",
    "can": "can't", "could": "couldn't", "should": "shouldn't", "would": "wouldn't",
    "do": "don't", "does": "doesn't", "did": "didn't", "must": "mustn't", "have": "haven't",
    "has": "hasn't", "always": "never",
}  # fmt: skip


def _negation_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    toks = ctx.tokens
    for i in ctx.tokens_in(role):
        tok = toks[i]
        if tok.norm == "not" or (tok.norm == "no" and i + 1 < len(toks)):
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", op, tier))
        elif tok.norm in _NEG_REMOVE:
            cands.append(
                ctx.make(tok.start, tok.end, match_case(tok.text, _NEG_REMOVE[tok.norm]), op, tier)
            )
        elif tok.norm in _NEG_ADD and not (
            i + 1 < len(toks) and toks[i + 1].norm in lexicon.NEGATIONS
        ):
            new = _NEG_ADD[tok.norm] if rng.random() < 0.6 else f"{tok.text} not"
            if tok.norm == "always":
                new = "never"
            cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, new), op, tier))
        elif role == "outcome" and _verb_lemma(tok.text) in lexicon.ACTION_VERBS:
            # Imperative at the start of a clause: "send it" -> "don't send it".
            prev = toks[i - 1].norm if i > 0 else ""
            sep = ctx.reference[toks[i - 1].end : tok.start] if i > 0 else ""
            if i == 0 or prev == "please" or any(ch in sep for ch in ",.;:!?"):
                new = match_case(tok.text, "don't") + " " + tok.text[:1].lower() + tok.text[1:]
                cands.append(ctx.make(tok.start, tok.end, new, op, tier))
    return cands


#: Antonym keys too ambiguous to swap on their own ("on Friday", "I left", "am" in "I am").
_ANTONYM_SKIP = frozenset({"in", "on", "up", "over", "left", "right", "light", "down", "out"})
_ANTONYM: dict[str, list[str]] = {}
for _a, _b in lexicon.ANTONYMS:
    _ANTONYM.setdefault(_a, []).append(_b)
    _ANTONYM.setdefault(_b, []).append(_a)


def _antonym_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int, conditions: bool
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    toks = ctx.tokens
    idx = ctx.tokens_in(role)
    for i in idx:
        tok = toks[i]
        alts = _ANTONYM.get(tok.text.casefold())
        prev_is_number = i > 0 and is_number_token(toks[i - 1].norm)
        if alts and tok.norm not in _ANTONYM_SKIP and (tok.norm != "am" or prev_is_number):
            cands.append(
                ctx.make(tok.start, tok.end, match_case(tok.text, rng.choice(alts)), op, tier)
            )
        if not conditions:
            continue
        for width in (3, 2, 1):
            if i + width > len(toks) or (i + width - 1) not in idx:
                continue
            phrase = " ".join(t.norm for t in toks[i : i + width])
            swaps = lexicon.CONDITION_SWAPS.get(phrase)
            if swaps:
                a, b = toks[i].start, toks[i + width - 1].end
                new = match_case(toks[i].text, rng.choice(swaps))
                cands.append(ctx.make(a, b, new, op, tier))
                break
    return cands


def _verb_lemma(word: str) -> str:
    from lemminflect import getAllLemmas

    low = word.casefold()
    if low in lexicon.ACTION_VERBS:
        return low
    lemmas = getAllLemmas(low).get("VERB", ())
    return lemmas[0] if lemmas else ""


def _inflect_like(word: str, lemma: str, new_lemma: str) -> str:
    from lemminflect import getAllInflections, getInflection

    low = word.casefold()
    head, _, tail = new_lemma.partition(" ")
    if low != lemma:
        for tag, forms in getAllInflections(lemma, upos="VERB").items():
            if low in forms:
                inflected = getInflection(head, tag=tag)
                if inflected:
                    head = inflected[0]
                break
    return match_case(word, head + (" " + tail if tail else ""))


_DETERMINERS = frozenset(
    {"the", "a", "an", "my", "your", "our", "his", "her", "their", "its", "this", "that", "these",
     "those", "every", "each", "no", "any", "some"}
)  # fmt: skip


def op_action_verb(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    toks = ctx.tokens
    idx = ctx.tokens_in("outcome")
    for i in idx:
        tok = toks[i]
        if i + 1 < len(toks) and (i + 1) in idx:
            phrase = f"{tok.norm} {toks[i + 1].norm}"
            if phrase in lexicon.ACTION_VERBS:
                new = match_case(tok.text, rng.choice(lexicon.ACTION_VERBS[phrase]))
                cands.append(ctx.make(tok.start, toks[i + 1].end, new, "action_verb", 2))
                continue
        if i > 0 and toks[i - 1].norm in _DETERMINERS:
            continue  # a noun use: "the meeting", "the end", "your order"
        lemma = _verb_lemma(tok.text)
        if lemma in lexicon.ACTION_VERBS and " " not in lemma:
            new = _inflect_like(tok.text, lemma, rng.choice(lexicon.ACTION_VERBS[lemma]))
            cands.append(ctx.make(tok.start, tok.end, new, "action_verb", 2))
    return _pick(rng, cands)


def op_modal(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    toks = ctx.tokens
    idx = ctx.tokens_in("outcome")
    for i in idx:
        tok = toks[i]
        if i + 1 < len(toks) and (i + 1) in idx:
            phrase = f"{tok.norm} {toks[i + 1].norm}"
            if phrase in lexicon.MODAL_SWAPS:
                new = match_case(tok.text, rng.choice(lexicon.MODAL_SWAPS[phrase]))
                cands.append(ctx.make(tok.start, toks[i + 1].end, new, "modal", 2))
                continue
        if tok.norm in lexicon.MODAL_SWAPS:
            if tok.norm == "may" and tok.text[:1].isupper() and i > 0:
                continue  # the month
            new = match_case(tok.text, rng.choice(lexicon.MODAL_SWAPS[tok.norm]))
            cands.append(ctx.make(tok.start, tok.end, new, "modal", 2))
    return _pick(rng, cands)


# ---------------------------------------------------------------------------------------------
# T2 operators (outcome spans)
# ---------------------------------------------------------------------------------------------


def op_negation_flip(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return _pick(rng, _negation_candidates(ctx, rng, "outcome", "negation_flip", 2))


def op_value_change(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return _pick(rng, _value_candidates(ctx, rng, "outcome", "value_change", 2))


def op_entity_swap(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return _pick(rng, _entity_candidates(ctx, rng, "outcome", "entity_swap", 2))


def op_date_change(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return _pick(rng, _calendar_candidates(ctx, rng, "outcome", "date_change", 2))


def op_antonym(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return _pick(rng, _antonym_candidates(ctx, rng, "outcome", "antonym", 2, True))


def op_drop_value(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for i in ctx.tokens_in("outcome"):
        tok = ctx.tokens[i]
        if any(ch.isdigit() for ch in tok.text) or is_entity_token(
            ctx.reference, ctx.tokens, i, ctx.common_words
        ):
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", "drop_value", 2))
    return _pick(rng, cands)


def _phonetic_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    for i in ctx.tokens_in(role):
        tok = ctx.tokens[i]
        if (
            not _is_word(tok)
            or tok.norm in lexicon.FUNCTION_WORDS
            or tok.norm in lexicon.NEGATIONS
            or is_number_token(tok.norm)
            or len(tok.norm) < 3
        ):
            continue
        near = [
            (d, w)
            for d, w in ctx.phonetic.neighbours(tok.text)
            if w not in lexicon.NEGATIONS
            and w.replace("'", "") not in lexicon.NEGATIONS
            and not is_number_token(w)
            and "'" not in w
            and len(w) >= 3
        ]
        if near:
            best = near[0][0]
            new = rng.choice([w for d, w in near if d <= best + 0.4])
            cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, new), op, tier))
    return cands


def op_phonetic_outcome(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return _pick(rng, _phonetic_candidates(ctx, rng, "outcome", "phonetic_outcome", 2))


# ---------------------------------------------------------------------------------------------
# T1 operators (inform spans)
# ---------------------------------------------------------------------------------------------


def _causal(ctx: PlanContext, edit: Edit) -> int:
    """Direction for a reversed inform span: +1 (T1 -> T2) if the span states a reason (its first
    word, or the word just before it, is a causal opener such as "because")."""
    for span in ctx.spans_of("inform"):
        if span.start <= edit.start and edit.end <= span.end:
            first = tokenize(span.text)
            before = [t for t in ctx.tokens if t.end <= span.start]
            words = [first[0].norm] if first else []
            if before:
                words.append(before[-1].norm)
            return 1 if any(w in lexicon.CAUSAL_OPENERS for w in words) else 0
    return 0


def _with_causal(ctx: PlanContext, edit: Edit | None) -> Edit | None:
    if edit is None:
        return None
    direction = _causal(ctx, edit)
    return replace(edit, direction=direction) if direction else edit


def op_inform_antonym(ctx: PlanContext, rng: random.Random) -> Edit | None:
    edit = _pick(rng, _antonym_candidates(ctx, rng, "inform", "inform_antonym", 1, False))
    return _with_causal(ctx, edit)


def op_inform_negation(ctx: PlanContext, rng: random.Random) -> Edit | None:
    edit = _pick(rng, _negation_candidates(ctx, rng, "inform", "inform_negation", 1))
    return _with_causal(ctx, edit)


def op_inform_phonetic(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return _pick(rng, _phonetic_candidates(ctx, rng, "inform", "inform_phonetic", 1))


def op_inform_drop_word(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for i in ctx.tokens_in("inform"):
        tok = ctx.tokens[i]
        span = ctx.role_of(i)
        if (
            span is not None
            and len(tokenize(span.text)) >= 2
            and _is_word(tok)
            and tok.norm not in lexicon.FUNCTION_WORDS
            and tok.norm not in lexicon.NEGATIONS
            and len(tok.norm) >= 3
        ):
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", "inform_drop_word", 1))
    return _pick(rng, cands)


def op_inform_drop_span(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    toks = ctx.tokens
    for span in ctx.spans_of("inform"):
        idx = [i for i, t in enumerate(toks) if span.start <= t.start and t.end <= span.end]
        if not idx or len(idx) > 6 or len(toks) - len(idx) < 4:
            continue
        a, b = ctx.delete_range(idx[0], idx[-1] + 1)
        cands.append(ctx.make(a, b, "", "inform_drop_span", 1))
    return _pick(rng, cands)


def op_inform_value(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = _value_candidates(ctx, rng, "inform", "inform_value", 1)
    cands += _entity_candidates(ctx, rng, "inform", "inform_value", 1)
    cands += _calendar_candidates(ctx, rng, "inform", "inform_value", 1)
    return _pick(rng, cands)


#: Every operator: name -> (planned tier, function). Weights live in :mod:`.generate`.
OPERATORS: dict[str, tuple[int, Operator]] = {
    "filler_insert": (0, op_filler_insert),
    "filler_drop": (0, op_filler_drop),
    "repetition": (0, op_repetition),
    "restart": (0, op_restart),
    "contraction": (0, op_contraction),
    "number_format": (0, op_number_format),
    "spelling": (0, op_spelling),
    "compound": (0, op_compound),
    "homophone": (0, op_homophone),
    "drop_function_word": (0, op_drop_function_word),
    "punctuation": (0, op_punctuation),
    "case": (0, op_case),
    "number_restart": (0, op_number_restart),
    "inform_antonym": (1, op_inform_antonym),
    "inform_negation": (1, op_inform_negation),
    "inform_phonetic": (1, op_inform_phonetic),
    "inform_drop_word": (1, op_inform_drop_word),
    "inform_drop_span": (1, op_inform_drop_span),
    "inform_value": (1, op_inform_value),
    "negation_flip": (2, op_negation_flip),
    "value_change": (2, op_value_change),
    "entity_swap": (2, op_entity_swap),
    "date_change": (2, op_date_change),
    "antonym": (2, op_antonym),
    "action_verb": (2, op_action_verb),
    "modal": (2, op_modal),
    "drop_value": (2, op_drop_value),
    "phonetic_outcome": (2, op_phonetic_outcome),
}

#: Operators whose T2 change is recoverable when the original value is restated elsewhere.
VALUE_OPS = frozenset({"value_change", "entity_swap", "date_change", "drop_value"})


def _distinctive(tokens: Sequence[Token]) -> bool:
    """Values worth restating: a number of two or more characters, a name, a date word."""
    if not tokens:
        return False
    return all(
        (any(ch.isdigit() for ch in t.text) and len(t.text) >= 2) or t.text[:1].isupper()
        for t in tokens
    )


def finalize_directions(reference: str, edits: Sequence[Edit]) -> list[Edit]:
    """Apply the recoverable-value rule: a T2 value edit (or a T1 ``inform_value`` edit) whose
    original tokens occur again in the reference, outside every T1/T2 edit, gets direction -1
    (T2 -> T1, or T1 -> T0): the listener can recover the value."""
    toks = tokenize(reference)
    norms = [t.norm for t in toks]
    changed = [(e.start, e.end) for e in edits if e.tier >= 1]
    out = []
    for e in edits:
        if not ((e.tier == 2 and e.op in VALUE_OPS) or (e.tier == 1 and e.op == "inform_value")):
            out.append(e)
            continue
        own = [t for t in toks if e.start < t.end and t.start < e.end]
        target = [t.norm for t in own]
        found = False
        if _distinctive(own):
            n = len(target)
            for k in range(len(norms) - n + 1):
                if norms[k : k + n] != target:
                    continue
                a, b = toks[k].start, toks[k + n - 1].end
                if any(a < ce and cs < b for cs, ce in changed):
                    continue
                found = True
                break
        out.append(replace(e, direction=-1) if found else e)
    return out


def apply_edits(reference: str, edits: Sequence[Edit]) -> str:
    """The hypothesis: the reference with every (non-overlapping) edit applied."""
    out = []
    pos = 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        out.append(reference[pos : e.start])
        out.append(e.new)
        pos = e.end
    out.append(reference[pos:])
    return "".join(out)
