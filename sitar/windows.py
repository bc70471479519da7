"""Long pairs are windowed, never truncated: the windowing strategy of :class:`~sitar.scorer.Scorer`.

Strategy version :data:`WINDOWING_VERSION` (``win:`` in every score signature). When the pair
encoding ``[CLS] r [SEP] h [SEP]`` is longer than the checkpoint's ``max_length``, the pair is
segmented with CGD (:func:`sitar.segment`, the scorer's analyzer) and cut only inside anchor
(matched) token runs: consecutive gaps are grouped greedily while the group's span fits, and each
group is widened with the same number of matched context tokens on both sides (as many as fit,
never crossing another gap). Every gap lies in exactly one window, so no text is dropped or counted
twice. A single gap too long for a window on its own is cut into the fewest equal-share pieces (by
token count on each side) that fit; its pieces are scored separately and the gap takes the maximum
of their scores, because they are one gap. Windows are then combined with
:func:`combine_window_scores`, which reads each window like a gap of SPEC §5: the highest window
fixes the base interval ``[β, β + 1/3)`` and the other windows refine inside it through the
``Q_ρ`` recursion, by their tiers (head ``pair``). With the head ``gaps`` no approximation is
needed: each gap is classified in the window that holds it (marked, with its context), the pieces
of a split gap count once at their highest position, and SPEC §5 aggregates all gaps of the pair
exactly. A pair with one token longer than ``max_length`` on its own raises
:class:`~sitar.errors.InputError`.

Everything here is pure (no model): :func:`plan_windows` plans windows from a segmentation and a
``fits`` predicate the scorer supplies (it knows the tokenizer and ``max_length``), and
:func:`marked_windows` turns that plan into gap-marked inputs with the encoding function the
scorer supplies.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitar.errors import InputError
from sitar.targets import DEFAULT_RHO, MAX_SCORE
from sitar.text import Token, presentation_key

if TYPE_CHECKING:
    from sitar.gaps import Segmentation

__all__ = [
    "WINDOWING_VERSION",
    "MarkedWindow",
    "Spans",
    "Windower",
    "combine_window_scores",
    "marked_item",
    "marked_windows",
    "norms",
    "plan_windows",
    "window_item",
]

#: Version of the long-input windowing strategy; part of every score signature (``win:``).
WINDOWING_VERSION = "1"


def combine_window_scores(
    window_scores: Sequence[float], *, rho: float = DEFAULT_RHO, scale: float = MAX_SCORE
) -> float:
    """Combine the raw scores of disjoint windows of one pair into one raw score (SPEC §5 logic).

    Each window holds at least one gap and is read like a gap of SPEC §5: its score ``s_j`` gives
    a severity position ``β_j = floor(3 s_j) / 3`` (at most 2), a nominal tier
    ``t_j = round(β_j)`` (the tier of ``t + δ/3``) and a refinement ``q_j = 3 (s_j - β_j)`` in
    ``[0, 1]`` that stands for the window's own further gaps. Then

    * ``β = max β_j`` is the base, as in SPEC §5; ``K`` its nominal tier;
    * per tier level ``k``, ``P_k = Π ρ (1 - q_j)`` over the windows of nominal tier ``k``
      (each counts as one gap of that tier plus its own refinement), except that the windows at
      ``β`` itself contribute ``ρ^(m-1) Π (1 - q_j)`` (one of the ``m`` is the base gap);
    * ``Q`` follows the ``Q_ρ`` recursion with ``P_k`` in place of ``ρ^(c̄_k)``:
      ``Q = 1 - P_0``, then ``Q = 1 - P_k (1 - (1 - ρ) Q)`` for ``k = 1 .. K``;
    * the result is ``β + Q / 3``, kept below ``β + 1/3``.

    One window returns its own score unchanged, and the result never leaves the highest window's
    base interval, nor falls below the highest window score; raising one window's score inside
    its own third-wide interval never lowers it (crossing into the next interval may, because the
    refinement restarts there, as in SPEC §5). It equals SPEC §5 exactly when every window holds
    one gap; otherwise it approximates it.

    >>> round(combine_window_scores([1.0, 1.0]), 4)  # T1 + T1, as score_from_tiers([1, 1])
    1.1667
    >>> round(combine_window_scores([2.0, 0.0]), 4)  # T2 + T0, as score_from_tiers([2, 0])
    2.0417
    """
    if not window_scores:
        return 0.0
    clipped = [min(max(float(s), 0.0), scale) for s in window_scores]
    if len(clipped) == 1:
        return clipped[0]
    # The small epsilon keeps grid values computed in floating point (1.0 as 0.999...) in place.
    steps = [min(math.floor(3.0 * s + 1e-9), 6) for s in clipped]  # beta_j = step / 3
    qs = [min(max(3.0 * s - k, 0.0), 1.0) for s, k in zip(clipped, steps, strict=True)]
    top_step = max(steps)
    top_tier = round(top_step / 3.0)
    factors = [1.0] * (top_tier + 1)
    m = 0
    for k, q in zip(steps, qs, strict=True):
        if k == top_step:
            m += 1
            factors[top_tier] *= 1.0 - q
        else:
            factors[round(k / 3.0)] *= rho * (1.0 - q)
    factors[top_tier] *= rho ** (m - 1)
    q = 0.0
    for level, p in enumerate(factors):
        q = 1.0 - p if level == 0 else 1.0 - p * (1.0 - (1.0 - rho) * q)
    beta = top_step / 3.0
    return min(beta + q / 3.0, math.nextafter(beta + 1.0 / 3.0, -math.inf))


def span(text: str, tokens: Sequence[Token], a: int, b: int) -> str:
    """Original text of tokens ``[a, b)`` (from the first token's start to the last one's end)."""
    return text[tokens[a].start : tokens[b - 1].end] if a < b else ""


def norms(text: str) -> tuple[str, ...]:
    """What two texts must share to be the same words (equal tuples: an identical pair): the
    spec §1 normalised tokens with variation selectors dropped (:func:`sitar.text.presentation_key`)."""
    return presentation_key(text)


Spans = tuple[tuple[int, int], tuple[int, int]]


class Windower:
    """Plans the windows of one over-long pair as texts (head ``pair``; see the module docstring)."""

    def __init__(self, fits: Callable[[str, str], bool], analyzer: Any = None) -> None:
        self._fits = fits
        self._analyzer = analyzer

    def plan(self, reference: str, hypothesis: str) -> list[list[tuple[str, str]]]:
        """Units of (reference, hypothesis) window texts; a unit with several pieces is one
        oversized gap (its pieces are combined by max)."""
        return [
            [self._texts(reference, hypothesis, r, h) for r, h in unit]
            for unit in self.plan_spans(reference, hypothesis)
        ]

    def _texts(
        self, reference: str, hypothesis: str, ref: tuple[int, int], hyp: tuple[int, int]
    ) -> tuple[str, str]:
        return (
            span(reference, self._ref_tokens, *ref),
            span(hypothesis, self._hyp_tokens, *hyp),
        )

    def plan_spans(self, reference: str, hypothesis: str) -> list[list[Spans]]:
        """Like :meth:`plan`, as half-open SPEC §1 token intervals ``((ra, rb), (ha, hb))``."""
        from sitar.cgd import segment

        seg = segment(reference, hypothesis, analyzer=self._analyzer)
        self._ref_tokens, self._hyp_tokens = seg.ref_tokens, seg.hyp_tokens

        def fits(ra: int, rb: int, ha: int, hb: int, first: int, last: int) -> bool:
            return self._fits(*self._texts(reference, hypothesis, (ra, rb), (ha, hb)))

        return [[spans for spans, _ in unit] for unit in plan_windows(seg, fits)]

    @staticmethod
    def _split_gap(
        ref: tuple[int, int],
        hyp: tuple[int, int],
        fits: Callable[[int, int, int, int], bool],
    ) -> list[Spans]:
        """Cut one gap into the fewest k equal-share pieces (by token count per side) that fit."""
        nr, nh = ref[1] - ref[0], hyp[1] - hyp[0]
        for k in range(2, max(nr, nh) + 1):
            pieces = [
                (
                    (ref[0] + p * nr // k, ref[0] + (p + 1) * nr // k),
                    (hyp[0] + p * nh // k, hyp[0] + (p + 1) * nh // k),
                )
                for p in range(k)
            ]
            if all(fits(*r, *h) for r, h in pieces):
                return pieces
        raise InputError(
            "a pair cannot be split into windows that fit the checkpoint's max_length: a single "
            "token is longer than max_length on its own; shorten or clean that token"
        )


def plan_windows(
    seg: Segmentation, fits: Callable[[int, int, int, int, int, int], bool]
) -> list[list[tuple[Spans, tuple[int, int]]]]:
    """The windows of one over-long segmented pair (see the module docstring).

    ``fits(ra, rb, ha, hb, first, last)`` says whether the window with token intervals
    ``[ra, rb)``/``[ha, hb)`` holding gaps ``first..last`` (inclusive) fits the model. Returns units;
    each unit is a list of ``(((ra, rb), (ha, hb)), (first, last))``: one window holding gaps
    ``first..last`` with matched context, or the pieces of one oversized gap (``first == last``).
    """
    n_ref, n_hyp, gaps = len(seg.ref_tokens), len(seg.hyp_tokens), seg.gaps
    units: list[list[tuple[Spans, tuple[int, int]]]] = []
    i = 0
    while i < len(gaps):
        g = gaps[i]
        if not fits(*g.ref_tokens, *g.hyp_tokens, i, i):

            def piece_fits(ra: int, rb: int, ha: int, hb: int, k: int = i) -> bool:
                return fits(ra, rb, ha, hb, k, k)

            pieces = Windower._split_gap(g.ref_tokens, g.hyp_tokens, piece_fits)
            units.append([(piece, (i, i)) for piece in pieces])
            i += 1
            continue
        # Greedy grouping: add the next gap while the span from gap i to it still fits.
        j = i
        while j + 1 < len(gaps) and fits(
            g.ref_tokens[0],
            gaps[j + 1].ref_tokens[1],
            g.hyp_tokens[0],
            gaps[j + 1].hyp_tokens[1],
            i,
            j + 1,
        ):
            j += 1
        ra, ha = g.ref_tokens[0], g.hyp_tokens[0]
        rb, hb = gaps[j].ref_tokens[1], gaps[j].hyp_tokens[1]
        # Matched context available on each side, up to the neighbouring gaps (anchors pair up
        # one to one, so both sides have the same count; min() is only a safeguard).
        prev_r, prev_h = (
            gaps[i - 1].ref_tokens[1] if i else 0,
            gaps[i - 1].hyp_tokens[1] if i else 0,
        )
        last = j + 1 == len(gaps)
        next_r = n_ref if last else gaps[j + 1].ref_tokens[0]
        next_h = n_hyp if last else gaps[j + 1].hyp_tokens[0]
        avail_left = min(ra - prev_r, ha - prev_h)
        avail_right = min(next_r - rb, next_h - hb)

        def with_context(
            n: int, ra=ra, rb=rb, ha=ha, hb=hb, al=avail_left, ar=avail_right
        ) -> tuple[int, int, int, int]:
            left, right = min(n, al), min(n, ar)
            return ra - left, rb + right, ha - left, hb + right

        # Largest n whose window fits (fitting is monotone in n); n = 0 fits by construction.
        lo, hi = 0, max(avail_left, avail_right)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(*with_context(mid), i, j):
                lo = mid
            else:
                hi = mid - 1
        wra, wrb, wha, whb = with_context(lo)
        units.append([(((wra, wrb), (wha, whb)), (i, j))])
        i = j + 1
    return units


def marked_item(
    seg: Segmentation,
) -> tuple[str, str, list[tuple[tuple[int, int], tuple[int, int]]]]:
    """Texts of a whole segmented pair and the character spans of all its gaps (marked input)."""
    return seg.reference, seg.hypothesis, [(g.ref_span, g.hyp_span) for g in seg.gaps]


def window_item(
    seg: Segmentation, ref: tuple[int, int], hyp: tuple[int, int], first: int, last: int
) -> tuple[str, str, list[tuple[tuple[int, int], tuple[int, int]]]]:
    """Texts of the token window ``ref``/``hyp`` and the spans of gaps ``first..last`` inside it.

    A window that is one piece of an oversized gap is marked as that gap whole.
    """
    r_text = span(seg.reference, seg.ref_tokens, *ref)
    h_text = span(seg.hypothesis, seg.hyp_tokens, *hyp)
    r0 = seg.ref_tokens[ref[0]].start if ref[0] < ref[1] else 0
    h0 = seg.hyp_tokens[hyp[0]].start if hyp[0] < hyp[1] else 0
    gaps = seg.gaps[first : last + 1]

    def inside(a: int, b: int, lo: int, hi: int) -> bool:
        return lo <= a and b <= hi

    if first == last and not (
        inside(*gaps[0].ref_tokens, *ref) and inside(*gaps[0].hyp_tokens, *hyp)
    ):
        return r_text, h_text, [((0, len(r_text)), (0, len(h_text)))]

    def shift(span: tuple[int, int], offset: int, size: int) -> tuple[int, int]:
        return (min(max(span[0] - offset, 0), size), min(max(span[1] - offset, 0), size))

    return (
        r_text,
        h_text,
        [(shift(g.ref_span, r0, len(r_text)), shift(g.hyp_span, h0, len(h_text))) for g in gaps],
    )


#: A gap-marked item: the texts and the character spans of the gaps to mark
#: (:func:`marked_item`, :func:`window_item`).
MarkedItem = tuple[str, str, list[tuple[tuple[int, int], tuple[int, int]]]]


@dataclass(frozen=True)
class MarkedWindow:
    """One gap-marked model input (whatever the encoding function returned for it) and the
    pair's gap indices it marks, in order."""

    encoded: Any
    gap_ids: tuple[int, ...]


def marked_windows(
    seg: Segmentation, encode: Callable[[MarkedItem], Any], max_length: int
) -> list[list[MarkedWindow]]:
    """Gap-marked windows of one over-long pair, grouped by gap unit (:func:`plan_windows`);
    every gap lies in exactly one window (the pieces of an oversized gap each carry that gap).
    ``encode`` turns a :data:`MarkedItem` into a model input whose ``len`` is its token count;
    a window fits when that count is at most ``max_length``. Each window is encoded once."""
    cache: dict[tuple[int, ...], Any] = {}

    def encoded(ra: int, rb: int, ha: int, hb: int, first: int, last: int) -> Any:
        key = (ra, rb, ha, hb, first, last)
        if key not in cache:
            cache[key] = encode(window_item(seg, (ra, rb), (ha, hb), first, last))
        return cache[key]

    def fits(ra: int, rb: int, ha: int, hb: int, first: int, last: int) -> bool:
        return len(encoded(ra, rb, ha, hb, first, last)) <= max_length

    return [
        [
            MarkedWindow(encoded(*r, *h, first, last), tuple(range(first, last + 1)))
            for ((r, h), (first, last)) in unit
        ]
        for unit in plan_windows(seg, fits)
    ]
