"""spec §8 (docs/spec.md) evaluation as pure functions: numpy/scipy in, floats out; no torch, no I/O.

Regression metrics on a held-out split (raw scale ``[0, 7/3)``): Pearson, Spearman, Kendall τ
(τ-b), mean absolute error and the interval hit rate (share of predictions inside the target's base
interval ``[β, β + 1/3)``).

The controlled-ordering protocol: per reference, variants with count vectors ``(c2, c1, c0)`` and a
predicted score. Every pair of variants whose vectors differ must score *strictly* higher for the
lexicographically larger vector (T2 first); a tie fails; pairs with equal vectors are skipped. The
protocol reports the mean over references of the per-reference pairwise agreement and of the
per-reference Spearman correlation between vector order and score (average ranks for ties).

Degenerate inputs have defined results: correlations of constant inputs are ``nan`` in
:func:`pearson`/:func:`spearman`/:func:`kendall`; in :func:`controlled_ordering` a reference whose
predictions are all equal (while its vectors differ) counts as Spearman 0, and a reference with
fewer than two distinct vectors is skipped (it holds no ordered pair).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from sitar.errors import InputError
from sitar.targets import MAX_SCORE

__all__ = [
    "OrderingResult",
    "base_of",
    "controlled_ordering",
    "interval_hit_rate",
    "kendall",
    "mae",
    "pearson",
    "regression_metrics",
    "spearman",
]

_EPS = 1e-9


def _pair(predictions: Sequence[float], targets: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(predictions, dtype=np.float64)
    t = np.asarray(targets, dtype=np.float64)
    if p.ndim != 1 or t.ndim != 1:
        raise InputError(f"predictions and targets must be 1-D, got shapes {p.shape} and {t.shape}")
    if p.shape != t.shape:
        raise InputError(
            f"predictions and targets must have the same length, got {len(p)} and {len(t)}"
        )
    if len(p) == 0:
        raise InputError("metrics need at least one (prediction, target) pair")
    if not (np.isfinite(p).all() and np.isfinite(t).all()):
        raise InputError("predictions and targets must be finite numbers")
    return p, t


def _constant(x: np.ndarray) -> bool:
    return bool(len(x) < 2 or np.all(x == x[0]))


def pearson(predictions: Sequence[float], targets: Sequence[float]) -> float:
    """Pearson r; ``nan`` when either side is constant or there are fewer than 2 pairs."""
    p, t = _pair(predictions, targets)
    if _constant(p) or _constant(t):
        return math.nan
    return float(stats.pearsonr(p, t)[0])


def spearman(predictions: Sequence[float], targets: Sequence[float]) -> float:
    """Spearman ρ with average ranks for ties; ``nan`` when either side is constant."""
    p, t = _pair(predictions, targets)
    if _constant(p) or _constant(t):
        return math.nan
    return float(stats.spearmanr(p, t)[0])


def kendall(predictions: Sequence[float], targets: Sequence[float]) -> float:
    """Kendall τ-b; ``nan`` when either side is constant."""
    p, t = _pair(predictions, targets)
    if _constant(p) or _constant(t):
        return math.nan
    return float(stats.kendalltau(p, t)[0])


def mae(predictions: Sequence[float], targets: Sequence[float]) -> float:
    """Mean absolute error on the raw scale (predictions as given, not clipped)."""
    p, t = _pair(predictions, targets)
    return float(np.mean(np.abs(p - t)))


def base_of(targets: Sequence[float]) -> np.ndarray:
    """``β`` of each target: the largest multiple of 1/3 not above it (spec §5 interval)."""
    t = np.asarray(targets, dtype=np.float64)
    return np.clip(np.floor(t * 3.0 + _EPS), 0, 6) / 3.0


def interval_hit_rate(
    predictions: Sequence[float],
    targets: Sequence[float],
    bases: Sequence[float] | None = None,
) -> float:
    """Share of predictions in ``[β, β + 1/3)`` of their target (β from ``bases`` if given)."""
    p, t = _pair(predictions, targets)
    if bases is None:
        lo = base_of(t)
    else:
        lo = np.asarray(bases, dtype=np.float64)
        if lo.shape != t.shape:
            raise InputError(f"bases must have one entry per target, got {len(lo)} and {len(t)}")
    hit = (p >= lo - _EPS) & (p < lo + 1.0 / 3.0 - _EPS)
    return float(np.mean(hit))


def regression_metrics(
    predictions: Sequence[float],
    targets: Sequence[float],
    bases: Sequence[float] | None = None,
) -> dict[str, float]:
    """All spec §8 regression metrics in one dict (raw predictions, raw targets), plus ``n``."""
    p, t = _pair(predictions, targets)
    if np.any(t < -_EPS) or np.any(t >= MAX_SCORE + _EPS):
        raise InputError("targets must lie on the raw scale [0, 7/3)")
    return {
        "n": float(len(p)),
        "pearson": pearson(p, t),
        "spearman": spearman(p, t),
        "kendall": kendall(p, t),
        "mae": mae(p, t),
        "interval_hit_rate": interval_hit_rate(p, t, bases),
    }


@dataclass(frozen=True)
class OrderingResult:
    """Controlled-ordering summary: macro means over the references that hold ordered pairs."""

    #: Mean over references of (strictly correct pairs / ordered pairs).
    pairwise_agreement: float
    #: Mean over references of Spearman(vector order, predicted score).
    mean_spearman: float
    #: References used, and references skipped (fewer than two distinct vectors).
    n_references: int
    n_skipped: int
    #: Ordered pairs compared in total (micro count, for reporting).
    n_pairs: int
    #: Share of the ordered pairs whose two vectors have the same highest tier (T0 vs 2T0, T2 vs
    #: T2+T1, ...) that are strictly correct, over all references (micro); nan when there are none.
    #: These are the pairs only spec §5 counts decide; the rest are decided by tier priority.
    within_tier_agreement: float = float("nan")
    n_within_tier_pairs: int = 0
    #: Per used reference, in group order: (agreement, Spearman, within-tier correct, within-tier
    #: pairs): what a bootstrap over references resamples (:func:`reference_bootstrap`).
    per_reference: tuple[tuple[float, float, int, int], ...] = ()
    #: Index in ``groups`` of each used reference (the rows of ``per_reference``).
    used_groups: tuple[int, ...] = ()


def _vector(item: object, where: str) -> tuple[int, int, int]:
    if not isinstance(item, (tuple, list)) or len(item) != 3:
        raise InputError(f"{where}: count vector must be (c2, c1, c0), got {item!r}")
    out = []
    for c in item:
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 0:
            raise InputError(f"{where}: counts must be non-negative integers, got {item!r}")
        out.append(int(c))
    return out[0], out[1], out[2]


def _top_tier(vector: tuple[int, int, int]) -> int:
    """The highest tier with a gap (2, 1 or 0); -1 for the zero vector."""
    for k, c in zip((2, 1, 0), vector, strict=True):
        if c > 0:
            return k
    return -1


def controlled_ordering(
    groups: Sequence[Sequence[tuple[Sequence[int], float]]],
) -> OrderingResult:
    """spec §8 controlled ordering over ``groups``: one group per reference, each a list of
    ``(count_vector=(c2, c1, c0), predicted_score)``.

    Vectors compare lexicographically with T2 first. For each reference, agreement is the share of
    pairs with different vectors whose more severe variant has a strictly higher score; Spearman is
    computed between the vector order (rank of the vector; equal vectors tie) and the scores with
    average ranks. References with fewer than two distinct vectors are skipped; raises
    :class:`InputError` when no reference is usable.
    """
    if isinstance(groups, (str, bytes)):
        raise InputError("groups must be a list of lists of (count_vector, score)")
    agreements: list[float] = []
    correlations: list[float] = []
    per_reference: list[tuple[float, float, int, int]] = []
    used: list[int] = []
    skipped = 0
    n_pairs = 0
    within_good = within_total = 0
    for g, group in enumerate(groups):
        vectors, scores = [], []
        for v, item in enumerate(group):
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise InputError(
                    f"group {g} item {v}: expected (count_vector, score), got {item!r}"
                )
            vectors.append(_vector(item[0], f"group {g} item {v}"))
            score = item[1]
            if isinstance(score, bool) or not isinstance(score, (int, float, np.floating)):
                raise InputError(f"group {g} item {v}: score must be a number, got {score!r}")
            if not math.isfinite(float(score)):
                raise InputError(f"group {g} item {v}: score must be finite, got {score!r}")
            scores.append(float(score))
        if len(set(vectors)) < 2:
            skipped += 1
            continue
        good = total = 0
        ref_within_good = ref_within_total = 0
        for i in range(len(vectors)):
            for j in range(i + 1, len(vectors)):
                if vectors[i] == vectors[j]:
                    continue
                total += 1
                hi, lo = (i, j) if vectors[i] > vectors[j] else (j, i)
                correct = scores[hi] > scores[lo]
                good += correct
                if _top_tier(vectors[i]) == _top_tier(vectors[j]):
                    ref_within_total += 1
                    ref_within_good += correct
        within_good += ref_within_good
        within_total += ref_within_total
        agreements.append(good / total)
        n_pairs += total
        # Rank the vectors (lexicographic order -> integer key); constant scores count as 0.
        distinct = sorted(set(vectors))
        order_key = [distinct.index(v) for v in vectors]
        s = np.asarray(scores)
        rho = 0.0 if np.all(s == s[0]) else float(stats.spearmanr(order_key, s)[0])
        correlations.append(rho)
        per_reference.append((good / total, rho, ref_within_good, ref_within_total))
        used.append(g)
    if not agreements:
        raise InputError(
            "controlled ordering needs at least one reference with two different count vectors"
        )
    return OrderingResult(
        pairwise_agreement=float(np.mean(agreements)),
        mean_spearman=float(np.mean(correlations)),
        n_references=len(agreements),
        n_skipped=skipped,
        n_pairs=n_pairs,
        within_tier_agreement=within_good / within_total if within_total else float("nan"),
        n_within_tier_pairs=within_total,
        per_reference=tuple(per_reference),
        used_groups=tuple(used),
    )


def _ordering_stats(rows: np.ndarray) -> np.ndarray:
    """(pairwise agreement, mean Spearman, within-tier agreement) of per-reference rows
    ``(agreement, spearman, within good, within total)``; rows may be (draws, refs, 4)."""
    within = rows[..., 3].sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        within_rate = np.where(within > 0, rows[..., 2].sum(axis=-1) / within, np.nan)
    return np.stack([rows[..., 0].mean(axis=-1), rows[..., 1].mean(axis=-1), within_rate], -1)


ORDERING_STATS = ("pairwise_agreement", "mean_spearman", "within_tier_agreement")


def reference_bootstrap(
    per_reference: Sequence[Sequence[float]],
    other: Sequence[Sequence[float]] | None = None,
    *,
    n_draws: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap intervals over references (resampled with replacement, the unit a
    controlled-ordering set is drawn in) for :data:`ORDERING_STATS`; with ``other`` (the same
    references, in the same order, scored by another system), intervals of the paired difference
    ``self − other``. Deterministic for a seed. A statistic that is nan in a draw (no within-tier
    pair drawn) is left out of that statistic's interval."""
    a = np.asarray(per_reference, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != 4 or len(a) == 0:
        raise InputError("per_reference must be a non-empty list of 4-tuples")
    b = None
    if other is not None:
        b = np.asarray(other, dtype=np.float64)
        if b.shape != a.shape:
            raise InputError(
                f"paired bootstrap needs the same references: {a.shape[0]} against {b.shape[0]}"
            )
    if not 0.0 < level < 1.0 or n_draws < 1:
        raise InputError("level must lie in (0, 1) and n_draws be positive")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(a), size=(n_draws, len(a)))
    draws = _ordering_stats(a[idx])
    if b is not None:
        draws = draws - _ordering_stats(b[idx])
    tail = (1.0 - level) / 2.0 * 100.0
    out = {}
    for k, name in enumerate(ORDERING_STATS):
        col = draws[:, k][np.isfinite(draws[:, k])]
        if not len(col):
            out[name] = (float("nan"), float("nan"))
            continue
        lo, hi = np.percentile(col, [tail, 100.0 - tail])
        out[name] = (float(lo), float(hi))
    return out
