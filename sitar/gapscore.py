"""spec §7b (docs/spec.md): from per-gap ordinal logits to exact spec §5 scores (pure numpy, no model).

A gap-aware model gives every gap ``K = 6`` ordinal logits, one per threshold ``1/3 … 2`` of its
severity position ``p = t + δ/3``. The rules here turn them into a score [C]:

* **expected step** ``e = Σ_k σ(logit_k)`` ∈ ``[0, 6]``: the expected number of thresholds the gap
  passes (its expected position in thirds);
* **predicted step** ``s = clip(floor(e + 1/2), 0, 6)``, so ``p = s/3``; nominal tier
  ``t = (s + 1) // 3`` and direction ``δ = s − 3t`` (``1/3`` is T0→T1, ``2/3`` is T1→T0, …).
  That is the ``mean`` decoding (the default). The ``median`` decoding (opt-in, ``dec:median`` in
  the signature; :func:`decoded_steps`) takes ``s`` = the number of thresholds passed with
  probability above 1/2 -- the usual ordinal decode -- and keeps ``e`` clipped into the range
  that rounds to ``s`` for the tie-breaker. Rounding the mean cannot reach the top step unless
  nearly every threshold is certain, so T2 gaps hedge at T2→T1; the median does not. Measured on
  ``sitar-minilm-gap-v4`` (its model card, in git history): better on validation Spearman and on every test set but
  the public dev set, where it fell below the gate set for it, so it is not the default. The
  ``tier`` decoding (opt-in, ``dec:tier``) keeps the mean's tier and drops its direction (every
  gap at ``δ = 0``), for a head whose directions order pairs worse than none: chosen and measured
  in ``experiments/decode-tier/``;
* **T1/T2 cut** (a checkpoint's ``scoring.t2_cut``, default 4.5 = no change; ``cut:`` in the
  signature otherwise; :func:`calibrate_steps`): before the ``mean`` and ``tier`` decodings round
  it, the expected step is mapped by the increasing piecewise-linear ``g`` with ``g(e) = e`` up
  to 1.5, ``g(c) = 4.5`` and ``g(6) = 6``, linear in between, so a gap is T2 exactly when
  ``e >= c`` and the T0/T1 cut (1.5) does not move. It is the operating point of the T1/T2
  decision, chosen on transcript-level validation labels (``experiments/severity-val-cut/``).
  The ``median`` decoding counts logits and has no expected-step cut: a scorer refuses it for a
  checkpoint with a cut other than 4.5;
* **exact aggregation**: ``S_lo = score_from_tiers(t, δ)`` (spec §5), so one more gap at the highest
  tier always scores higher and many T0 never add up to a T1, by construction;
* **tie-breaker inside the interval**: ``S_hi`` is the spec §5 score of the same gaps plus one more
  T0 gap, the next larger value spec §5 can give with the same base (count vectors are compared
  lexicographically, and adding one T0 is the immediate successor). A fraction ``u ∈ [0, 1)``
  places the pair inside ``[S_lo, S_hi)``: ``S = S_lo + u · (S_hi − S_lo)``. Two pairs whose
  predicted gaps give different spec §5 scores are therefore never reordered by the tie-breaker;
  it only orders pairs with the same predicted counts (and bases). ``u = 0`` gives spec §5
  exactly. Two rules, named by the version in the signature's ``tb:`` field:

  - **version 3** (default, :func:`severity_extent_fraction`): ``u = (a + x) / 2``, capped at
    ``1 − 2⁻²⁰``, where ``a`` is the mean, over the gaps at the top predicted step ``s``, of
    where the expected step lies inside the range that rounds to ``s`` (``[s − ½, s + ½)``, cut
    to ``[0, 6]``): how far past the middle of its position the model places each top gap; and
    ``x`` is the **extent** of the distortion, the share of the pair's tokens (reference and
    hypothesis together) that lie inside gaps (:func:`gap_extent`). Of two pairs with the same
    predicted counts, the one whose top gaps the model rates more severe and whose gaps cover
    more of what was said scores higher: one long garbled stretch against one short slip, both
    T2, is the commonest such case in real recognizer output. It does not use the pair head.
  - **version 2** (:func:`tie_fraction`): the pair head's raw score ``f`` gives
    ``u = 1/2 + y / (2 (1 + |y|))`` with ``y = (f − m) / h`` (``m`` the interval's midpoint,
    ``h`` its half-width), capped at ``1 − 2⁻²⁰``; strictly increasing in ``f``. (Version 1
    clipped ``(f − S_lo) / (S_hi − S_lo)`` to ``[0, 1)``, which tied every pair outside the
    interval at an end of it.)

  Version 3 replaced version 2 as the default on 2026-12-01, chosen on validation data only
  (``sitar-minilm-gap-v4``; see its model card, in git history): agreement with a blind judge on the 165 decided
  items of the validation A/B set ``annotation/ab/sitar_ab_val_v1.jsonl`` 87.9 % -> 90.3 %,
  hand-labelled recognizer validation Spearman 0.647 -> 0.662, synthetic validation (1,000
  pairs) 0.9027 -> 0.9013.

Everything is a function of one pair's own outputs: nothing depends on other pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitar.errors import InputError
from sitar.targets import DEFAULT_RHO, score_from_tiers

__all__ = [
    "DECODE_RULES",
    "DEFAULT_DECODE",
    "DEFAULT_T2_CUT",
    "T2_CUT_RANGE",
    "TIE_BREAK_MAX",
    "TIE_BREAK_VERSION",
    "TIE_BREAK_VERSIONS",
    "GapPrediction",
    "aggregate",
    "calibrate_steps",
    "check_decode_cut",
    "check_t2_cut",
    "decoded_steps",
    "expected_steps",
    "gap_extent",
    "predict_gaps",
    "score_interval",
    "segmentation_extent",
    "severity_extent_fraction",
    "step_fraction",
    "step_to_tier",
    "tie_fraction",
]

#: The tie-breaker fraction ``u`` stays below this, so ``S < S_hi`` strictly.
TIE_BREAK_MAX = 1.0 - 2.0**-20
#: The default tie-breaker rule (in every gap-head score signature as ``tb:``).
TIE_BREAK_VERSION = 3
#: The tie-breaker rules a scorer can use (see the module docstring).
TIE_BREAK_VERSIONS = (2, 3)
#: How a gap's ordinal logits become its step (see the module docstring); the default is not
#: written into signatures, any other rule is (``dec:``).
DECODE_RULES = ("mean", "median", "tier")
DEFAULT_DECODE = "mean"
#: The expected step at which the mean/tier decodings read T2 when no cut is given: where the
#: rounding reaches step 5.
DEFAULT_T2_CUT = 4.5
#: The cuts a checkpoint may name (closed range): above the T0/T1 cut and below the top step.
T2_CUT_RANGE = (3.0, 5.75)
_ROUND_MARGIN = 1e-9
_T1_CUT = 1.5


def expected_steps(gap_logits: np.ndarray) -> np.ndarray:
    """``Σ_k σ(logit_k)`` over the last axis: (..., K) -> (...), float64 in ``[0, K]``."""
    x = np.asarray(gap_logits, dtype=np.float64)
    if x.ndim < 1 or not np.all(np.isfinite(x)):
        raise InputError("gap logits must be a finite array with thresholds on the last axis")
    # A numerically stable logistic: 0.5 * (1 + tanh(x / 2)).
    return (0.5 * (1.0 + np.tanh(0.5 * x))).sum(axis=-1)


def check_t2_cut(value: object) -> float:
    """``value`` as a T1/T2 cut: a finite number in :data:`T2_CUT_RANGE`, else :class:`InputError`."""
    lo, hi = T2_CUT_RANGE
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not lo <= value <= hi
    ):
        raise InputError(f"the T1/T2 cut must be a number in [{lo}, {hi}], got {value!r}")
    return float(value)


def check_decode_cut(rule: str, t2_cut: float) -> None:
    """Refuse the ``median`` decoding with a T1/T2 cut other than 4.5: it counts logits and has
    no expected step to cut (:class:`InputError`)."""
    if rule == "median" and check_t2_cut(t2_cut) != DEFAULT_T2_CUT:
        raise InputError(
            f"the median decoding counts logits and has no T1/T2 cut (this one is {t2_cut:g}, "
            "a checkpoint's scoring.t2_cut): use decode 'mean' or 'tier'"
        )


def calibrate_steps(expected: np.ndarray, t2_cut: float = DEFAULT_T2_CUT) -> np.ndarray:
    """The expected steps mapped so that ``t2_cut`` lands on 4.5 (the module docstring's ``g``):
    identity up to 1.5, linear from 1.5 to ``t2_cut`` onto 1.5-4.5 and from ``t2_cut`` to 6 onto
    4.5-6; the identity when ``t2_cut`` is 4.5. Increasing, so no two gaps swap order."""
    e = np.asarray(expected, dtype=np.float64)
    c = check_t2_cut(t2_cut)
    if c == DEFAULT_T2_CUT:
        return e
    return np.interp(e, [0.0, _T1_CUT, c, 6.0], [0.0, _T1_CUT, DEFAULT_T2_CUT, 6.0])


def decoded_steps(
    gap_logits: np.ndarray, rule: str = DEFAULT_DECODE, t2_cut: float = DEFAULT_T2_CUT
) -> np.ndarray:
    """The values :func:`predict_gaps` rounds, (..., K) -> (...): ``mean``, the expected step
    (:func:`expected_steps`); ``median``, the expected step clipped into ``[m − ½, m + ½)`` (cut
    to ``[0, K]``) with ``m`` the number of logits above 0, so that it rounds to ``m`` and still
    tells the tie-breaker where the gap sits inside its step; ``tier``, the expected step clipped
    the same way into the range of ``m = 3t``, the middle step of the tier ``t`` that the mean
    rounds to, so every gap gets direction 0 (spec §5 from tiers alone, with the tie-breaker).
    ``t2_cut`` (:func:`calibrate_steps`) maps the expected step first, for ``mean`` and ``tier``;
    ``median`` takes none."""
    if rule not in DECODE_RULES:
        raise InputError(f"decode must be one of {DECODE_RULES}, got {rule!r}")
    check_decode_cut(rule, t2_cut)
    e = calibrate_steps(expected_steps(gap_logits), t2_cut)
    if rule == "mean":
        return e
    x = np.asarray(gap_logits, dtype=np.float64)
    k = x.shape[-1]
    if rule == "tier":  # the mean's tier, at its middle step (direction 0)
        m = 3.0 * np.floor((np.clip(np.floor(e + 0.5), 0.0, float(k)) + 1.0) / 3.0)
    else:
        m = (x > 0.0).sum(axis=-1).astype(np.float64)
    lo = np.maximum(m - 0.5, 0.0)
    # below m + 1/2 by a margin that survives the "+ 1/2" of the rounding (the float just below
    # 1/2 plus 1/2 rounds to 1.0), so that it rounds to m; the top step keeps K itself
    hi = np.where(m >= k, float(k), m + 0.5 - _ROUND_MARGIN)
    return np.clip(e, lo, hi)


def step_to_tier(step: int) -> tuple[int, int]:
    """Position in thirds (0..6) -> ``(nominal tier, direction)``: 1 -> (0, +1), 2 -> (1, -1)."""
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or not 0 <= step <= 6:
        raise InputError(f"a step must be an integer in 0..6, got {step!r}")
    tier = (int(step) + 1) // 3
    return tier, int(step) - 3 * tier


@dataclass(frozen=True)
class GapPrediction:
    """One gap's predicted severity: expected step ``expected`` (0..6), step, tier, direction."""

    expected: float
    step: int
    tier: int
    direction: int

    @property
    def position(self) -> float:
        """``t + δ/3`` (spec §5)."""
        return self.step / 3.0


def predict_gaps(expected: Sequence[float]) -> list[GapPrediction]:
    """Round expected steps to positions (see the module docstring)."""
    out = []
    for e in expected:
        e = float(e)
        if not math.isfinite(e):
            raise InputError(f"expected steps must be finite, got {e!r}")
        step = min(max(math.floor(e + 0.5), 0), 6)
        tier, direction = step_to_tier(step)
        out.append(GapPrediction(expected=e, step=step, tier=tier, direction=direction))
    return out


def score_interval(
    tiers: Sequence[int], directions: Sequence[int], *, rho: float = DEFAULT_RHO
) -> tuple[float, float]:
    """``(S_lo, S_hi)``: the spec §5 score of these gaps and of the same gaps plus one more T0,
    the next larger value spec §5 can give with the same base; a tie-breaker places a pair
    inside ``[S_lo, S_hi)`` (see the module docstring)."""
    lo = score_from_tiers(tiers, directions, rho=rho)
    hi = score_from_tiers([*tiers, 0], [*directions, 0], rho=rho)
    return lo, hi


def _bounds(gaps: Sequence[GapPrediction], rho: float) -> tuple[float, float]:
    return score_interval([g.tier for g in gaps], [g.direction for g in gaps], rho=rho)


def tie_fraction(
    gaps: Sequence[GapPrediction], *, pair_raw: float, rho: float = DEFAULT_RHO
) -> float:
    """Tie-breaker version 2: where the pair head's raw score ``pair_raw`` places the pair inside
    the spec §5 interval ``[S_lo, S_hi)`` of these gaps: ``u = 1/2 + x / (2 (1 + |x|))`` with
    ``x = (f − m) / h`` (``m`` the midpoint, ``h`` the half-width), capped below 1; strictly
    increasing in ``f`` (0 without gaps). See the module docstring."""
    f = float(pair_raw)
    if not math.isfinite(f):
        raise InputError(f"the pair head's raw score must be finite, got {f!r}")
    if not gaps:
        return 0.0
    lo, hi = _bounds(gaps, rho)
    if not hi > lo:
        return 0.0
    x = (f - (lo + hi) / 2.0) / ((hi - lo) / 2.0)
    return min(0.5 + 0.5 * x / (1.0 + abs(x)), TIE_BREAK_MAX)


def aggregate(
    gaps: Sequence[GapPrediction],
    *,
    pair_raw: float | None = None,
    u: float | None = None,
    rho: float = DEFAULT_RHO,
) -> tuple[float, float, float]:
    """``(S, S_lo, S_hi)`` on the raw scale for one pair's predicted gaps.

    ``S_lo`` is spec §5 exactly; ``S = S_lo + u (S_hi − S_lo)`` with the tie-breaker fraction
    ``u`` given directly or computed from the pair head's ``pair_raw`` (:func:`tie_fraction`);
    neither gives ``S = S_lo``. No gaps: ``(0, 0, 0)``.
    """
    if pair_raw is not None and u is not None:
        raise InputError("give pair_raw or u, not both")
    if not gaps:
        return 0.0, 0.0, 0.0
    lo, hi = _bounds(gaps, rho)
    if u is None:
        u = 0.0 if pair_raw is None else tie_fraction(gaps, pair_raw=pair_raw, rho=rho)
    u = float(u)
    if not 0.0 <= u < 1.0:
        raise InputError(f"the tie-breaker fraction u must lie in [0, 1), got {u!r}")
    return lo + u * (hi - lo), lo, hi


def step_fraction(gaps: Sequence[GapPrediction]) -> float:
    """Mean, over the gaps at the top predicted step ``s``, of where each expected step lies in
    the range that rounds to ``s`` (``[s − ½, s + ½)`` cut to ``[0, 6]``), in ``[0, 1)``; 0 without
    gaps."""
    if not gaps:
        return 0.0
    top = max(g.step for g in gaps)
    lo, hi = max(top - 0.5, 0.0), min(top + 0.5, 6.0)
    parts = [
        min(max((g.expected - lo) / (hi - lo), 0.0), TIE_BREAK_MAX) for g in gaps if g.step == top
    ]
    return min(sum(parts) / len(parts), TIE_BREAK_MAX)


def gap_extent(
    ref_intervals: Sequence[tuple[int, int]],
    hyp_intervals: Sequence[tuple[int, int]],
    n_ref: int,
    n_hyp: int,
) -> float:
    """Share of a pair's tokens inside its gaps: the gaps' token intervals ``[a, b)`` on each
    side (spec §2-3) summed, over ``n_ref + n_hyp`` tokens; in ``[0, 1]`` (0 for no tokens)."""
    if n_ref < 0 or n_hyp < 0:
        raise InputError(f"token counts must be non-negative, got {n_ref}, {n_hyp}")
    total = n_ref + n_hyp
    if total == 0:
        return 0.0
    inside = 0
    for intervals, n in ((ref_intervals, n_ref), (hyp_intervals, n_hyp)):
        for a, b in intervals:
            if not 0 <= a <= b <= n:
                raise InputError(f"gap token interval {(a, b)} outside [0, {n}]")
            inside += b - a
    return min(inside / total, 1.0)


def segmentation_extent(segmentation: Any) -> float:
    """:func:`gap_extent` of a :class:`sitar.Segmentation` (its gaps' token intervals over its
    token counts): what tie-breaker version 3 reads."""
    gaps = segmentation.gaps
    return gap_extent(
        [g.ref_tokens for g in gaps],
        [g.hyp_tokens for g in gaps],
        len(segmentation.ref_tokens),
        len(segmentation.hyp_tokens),
    )


def severity_extent_fraction(gaps: Sequence[GapPrediction], *, extent: float) -> float:
    """Tie-breaker version 3: ``u = (step_fraction(gaps) + extent) / 2``, capped below 1 (0
    without gaps). ``extent`` is :func:`gap_extent` of the pair. See the module docstring."""
    x = float(extent)
    if not 0.0 <= x <= 1.0:
        raise InputError(f"the gap extent must lie in [0, 1], got {extent!r}")
    if not gaps:
        return 0.0
    return min(0.5 * (step_fraction(gaps) + x), TIE_BREAK_MAX)
