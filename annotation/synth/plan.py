"""Edits, role spans, the planning context and the guards every operator of the synthetic generator shares.

The operators themselves are in :mod:`.operators` (meaning changes, the registry) and
:mod:`.ops_format` (the T0 format and disfluency operators)."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.synth import lexicon
from annotation.synth.numbers import (
    is_number_token,
)
from annotation.synth.phonetic import PhoneticIndex
from sitar.text import Token, tokenize

__all__ = [
    "Edit",
    "Operator",
    "PlanContext",
    "RoleSpan",
    "apply_edits",
    "is_word",
    "match_case",
    "negation_count",
    "number_tokens",
    "pick_one",
    "t0_safe",
    "token_norms",
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


# Safety guards


@functools.lru_cache(maxsize=1 << 16)
def token_norms(text: str) -> tuple[str, ...]:
    return tuple(t.norm for t in tokenize(text))


def negation_count(text: str) -> int:
    """Number of negation tokens (``not``, ``n't`` forms, ``never``, ``no``, ``nobody``...)."""
    return sum(1 for n in token_norms(text) if n in lexicon.NEGATIONS)


def number_tokens(text: str) -> list[str]:
    """Sorted normalized number tokens (digits or number words) of ``text``."""
    return sorted(n for n in token_norms(text) if is_number_token(n))


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


# Planning context


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


def pick_one(rng: random.Random, candidates: list[Edit | None]) -> Edit | None:
    found = [c for c in candidates if c is not None]
    return rng.choice(found) if found else None


def is_word(tok: Token) -> bool:
    return tok.text.replace("'", "").replace("’", "").isalpha()


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
