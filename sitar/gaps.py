"""spec §4 (docs/spec.md): gaps, character spans and single-gap hypotheses.

A :class:`Gap` pairs a half-open token interval (and character span) of the reference with one of
the hypothesis; either side may be empty. On an empty side the span is an *insertion point*
``(p, p)``: the end of the previous token on that side, or 0. A :class:`Segmentation` is the frozen
result of :func:`sitar.segment`; it can rebuild the *single-gap hypothesis* ``h^(i)`` -- the
reference with only gap ``i`` applied -- and, more generally, the reference with any subset of gaps
applied (used for augmentation by selective gap correction).

Text surgery rules [C] (spec §4 leaves the exact whitespace and punctuation open; tokens are what
the invariants constrain):

* substitution: the reference span is replaced by the hypothesis span's text;
* deletion: the span and the separators on both sides of it (the text between the neighbouring
  tokens) collapse into one of those separators: the leading one at the start of the string, the
  trailing one at the end, the right one when only it holds sentence punctuation (``. ! ? … ; :``),
  else the left one. ``"in the uh, meantime"`` minus ``uh`` gives ``"in the meantime"``;
* insertion: the words go just before the next reference token (after any punctuation between the
  tokens), followed by a space, unless they are inserted at the very end or the hypothesis has
  sentence punctuation right after them and not before them; then they go right after the previous
  token (the spec's insertion point), preceded by a space. So ``"yet. The figures"`` with ``"Most of"``
  inserted gives ``"yet. Most of The figures"``;
* whenever a splice would fuse two tokens (for example ``"5."`` + ``"7"`` becoming the number
  ``5.7``), one space is added at that junction, so the token invariants of spec §4 always hold.

The gap's ``ref_span`` on an empty reference side is still the spec's insertion point (the end of the
previous token, or 0); the placement above only shapes the rebuilt text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from sitar.errors import InputError
from sitar.signature import make_signature
from sitar.text import Token, in_token

__all__ = ["Gap", "GapKind", "Segmentation"]

GapKind = Literal["substitution", "deletion", "insertion"]
Interval = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Gap:
    """One paired gap. Token intervals and character spans are half-open ``[start, end)``."""

    index: int
    ref_tokens: Interval
    hyp_tokens: Interval
    ref_span: Interval
    hyp_span: Interval
    ref_text: str
    hyp_text: str
    #: How many atomic gaps (spec §2) were consolidated into this one (1 when unconsolidated).
    n_atomic: int = 1

    @property
    def kind(self) -> GapKind:
        if self.ref_tokens[0] == self.ref_tokens[1]:
            return "insertion"
        if self.hyp_tokens[0] == self.hyp_tokens[1]:
            return "deletion"
        return "substitution"

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "ref_tokens": list(self.ref_tokens),
            "hyp_tokens": list(self.hyp_tokens),
            "ref_span": list(self.ref_span),
            "hyp_span": list(self.hyp_span),
            "ref_text": self.ref_text,
            "hyp_text": self.hyp_text,
            "n_atomic": self.n_atomic,
        }


def _join(left: str, right: str) -> str:
    """Concatenate, adding one space if the junction would fuse a token of each side."""
    if not left or not right:
        return left + right
    s = left + right
    k = len(left)
    return left + " " + right if in_token(s, k - 1) and in_token(s, k) else s


@dataclass(frozen=True)
class Segmentation:
    """The result of :func:`sitar.segment`: both token sequences and the ordered gaps."""

    reference: str
    hypothesis: str
    ref_tokens: tuple[Token, ...]
    hyp_tokens: tuple[Token, ...]
    gaps: tuple[Gap, ...]
    #: False when the atomic gaps of spec §2 are returned without consolidation.
    consolidated: bool
    #: ``name-version`` of the linguistic analyzer used for consolidation (spec §3, §9).
    analyzer: str
    max_bridge_tokens: int | None = None
    _signature: str = field(default="", repr=False, compare=False)

    @property
    def signature(self) -> str:
        """The spec §9 signature of this segmentation."""
        if self._signature:
            return self._signature
        extra = {} if self.consolidated else {"consolidate": "no"}
        if self.max_bridge_tokens is not None:
            extra["max_bridge"] = str(self.max_bridge_tokens)
        return make_signature(analyzer=self.analyzer, extra=extra)

    def __len__(self) -> int:
        return len(self.gaps)

    def _check_index(self, i: int) -> int:
        if (
            isinstance(i, bool)
            or not isinstance(i, int)
            or not -len(self.gaps) <= i < len(self.gaps)
        ):
            raise InputError(
                f"gap index {i!r} out of range for a segmentation with {len(self.gaps)} gaps"
            )
        return i % len(self.gaps)

    def apply(self, indices: Iterable[int]) -> str:
        """The reference with the gaps in ``indices`` applied and every other gap left as reference."""
        chosen = sorted({self._check_index(i) for i in indices})
        return _apply_edits(self.reference, [_edit(self, self.gaps[i]) for i in chosen])

    def single_gap_hypothesis(self, i: int) -> str:
        """``h^(i)``: the reference with only gap ``i`` applied (spec §4)."""
        return self.apply([i])

    def single_gap_hypotheses(self) -> tuple[str, ...]:
        return tuple(self.single_gap_hypothesis(i) for i in range(len(self.gaps)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "hypothesis": self.hypothesis,
            "consolidated": self.consolidated,
            "gaps": [g.to_dict() for g in self.gaps],
            "signature": self.signature,
        }


_STRONG_PUNCTUATION = frozenset(".!?…;:")


def _is_strong(separator: str) -> bool:
    """Whether a separator holds sentence-level punctuation (``. ! ? … ; :``)."""
    return any(ch in _STRONG_PUNCTUATION for ch in separator)


def _separators(text: str, tokens: tuple[Token, ...], start: int, end: int) -> tuple[int, int]:
    """Character bounds ``(p, q)`` around the token interval ``[start, end)``: ``p`` is the end of
    the token before it (or 0), ``q`` the start of the token after it (or ``len(text)``)."""
    p = tokens[start - 1].end if start > 0 else 0
    q = tokens[end].start if end < len(tokens) else len(text)
    return p, q


def _edit(seg: Segmentation, gap: Gap) -> tuple[int, int, str]:
    """The replacement ``(a, b, text)`` of ``reference[a:b]`` that applies ``gap`` (rules [C] in
    the module docstring)."""
    r = seg.reference
    rs, re_ = gap.ref_tokens
    if gap.kind == "substitution":
        return gap.ref_span[0], gap.ref_span[1], gap.hyp_text
    p, q = _separators(r, seg.ref_tokens, rs, re_)
    if gap.kind == "deletion":
        left, right = r[p : gap.ref_span[0]], r[gap.ref_span[1] : q]
        if rs == 0:
            keep = left  # leading text before the first token stays
        elif re_ == len(seg.ref_tokens) or (_is_strong(right) and not _is_strong(left)):
            keep = right  # trailing text, or sentence punctuation that only the right side has
        else:
            keep = left
        return p, q, keep
    # Insertion: place the words where the hypothesis punctuation suggests.
    hs, he = gap.hyp_tokens
    hp, hq = _separators(seg.hypothesis, seg.hyp_tokens, hs, he)
    left_h = seg.hypothesis[hp : gap.hyp_span[0]]
    right_h = seg.hypothesis[gap.hyp_span[1] : hq]
    if rs == len(seg.ref_tokens) or (_is_strong(right_h) and not _is_strong(left_h)):
        return p, p, (" " if p > 0 else "") + gap.hyp_text
    return q, q, gap.hyp_text + " "


def _apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply non-overlapping, sorted edits, guarding every junction against fused tokens."""
    out = ""
    pos = 0
    for a, b, new in edits:
        out = _join(_join(out, text[pos:a]), new)
        pos = b
    return _join(out, text[pos:])
