"""spec §5 (docs/spec.md): the SITAR score from per-gap tiers and boundary directions.

Pure functions, no I/O. Each gap has a nominal tier ``t`` in {0, 1, 2} (T0 expression only, T1
uptake changes, T2 outcome changes) and a direction ``d`` in {-1, 0, +1} for the boundary cases
``T_t -> T_{t+d}``. The highest severity position ``t + d/3`` sets the base score ``beta``; the
remaining gaps, counted by nominal tier, refine the score inside ``[beta, beta + 1/3)`` through the
saturating recursion ``Q_rho`` that keeps tier priority (one more gap at the highest tier where two
count vectors differ always wins).

Floating point: ``rho ** x`` underflows relative to 1 once ``x`` exceeds about 53 / log2(1/rho), so
for absurd counts (over ~50 gaps at one tier with rho = 1/2) distinct count vectors can share a
score. The result is clamped below ``beta + 1/3`` so the base interval is never left.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence

from sitar.errors import InputError

__all__ = [
    "DEFAULT_RHO",
    "MAX_SCORE",
    "T2_BAND_RAW",
    "TIERS",
    "normalize_score",
    "q_rho",
    "refinement_counts",
    "score_from_tiers",
    "severity_position",
]

#: Tiers: 0 = expression only, 1 = uptake changes, 2 = outcome changes.
TIERS = (0, 1, 2)
#: Upper bound (exclusive) of the raw score scale.
MAX_SCORE = 7.0 / 3.0
#: Default saturation parameter rho (spec §5 [C]).
DEFAULT_RHO = 0.5
#: Raw score from which a pair sits in the T2 band (position 5/3: a T1 -> T2 boundary case or worse).
T2_BAND_RAW = 5.0 / 3.0


def _check_rho(rho: float) -> float:
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not 0.0 < float(rho) < 1.0:
        raise InputError(f"rho must be a number with 0 < rho < 1, got {rho!r}")
    return float(rho)


def _check_tier_direction(tier: object, direction: object, where: str) -> tuple[int, int]:
    if isinstance(tier, bool) or not isinstance(tier, numbers.Integral) or tier not in TIERS:
        raise InputError(f"{where}: tier must be 0, 1 or 2, got {tier!r}")
    if (
        isinstance(direction, bool)
        or not isinstance(direction, numbers.Integral)
        or direction not in (-1, 0, 1)
    ):
        raise InputError(f"{where}: direction must be -1, 0 or +1, got {direction!r}")
    if tier == 2 and direction == 1:
        raise InputError(f"{where}: direction +1 is impossible at tier 2 (there is no T3)")
    if tier == 0 and direction == -1:
        raise InputError(f"{where}: direction -1 is impossible at tier 0 (there is no T-1)")
    return int(tier), int(direction)


def severity_position(tier: int, direction: int = 0) -> float:
    """Position ``tier + direction / 3`` of one gap on the severity axis, in ``[0, 2]``."""
    t, d = _check_tier_direction(tier, direction, "severity_position")
    return t + d / 3.0


def q_rho(counts: Sequence[int], rho: float = DEFAULT_RHO) -> float:
    """The saturating aggregation ``Q_rho(x_0, ..., x_j)`` over non-negative integer counts.

    ``Q(x_0) = 1 - rho**x_0`` and ``Q(x_0..x_j) = 1 - rho**x_j * (1 - (1 - rho) * Q(x_0..x_{j-1}))``;
    counts run from the lowest tier to the highest. An empty sequence gives 0.
    """
    rho = _check_rho(rho)
    q = 0.0
    for level, x in enumerate(counts):
        if isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 0:
            raise InputError(f"q_rho: counts must be non-negative integers, got {x!r} at {level}")
        # Level 0 is the plain saturation; each higher level maps the lower value into
        # [1 - rho**x, 1 - rho**(x + 1)).
        x = int(x)
        q = 1.0 - rho**x if level == 0 else 1.0 - rho**x * (1.0 - (1.0 - rho) * q)
    return q


def refinement_counts(tiers: Sequence[int]) -> tuple[int, ...]:
    """``c̄_k = c_k - [k = k_max]`` for ``k = 0 .. k_max``; empty for no gaps."""
    if not tiers:
        return ()
    k_max = max(tiers)
    counts = [sum(1 for t in tiers if t == k) for k in range(k_max + 1)]
    counts[k_max] -= 1
    return tuple(counts)


def score_from_tiers(
    tiers: Sequence[int],
    directions: Sequence[int] | None = None,
    *,
    rho: float = DEFAULT_RHO,
) -> float:
    """Raw SITAR score ``S`` in ``[0, 7/3)`` from per-gap tiers and directions (spec §5).

    >>> score_from_tiers([2, 0, 0])
    2.0625
    >>> round(score_from_tiers([1], [1]), 4)  # a T1 -> T2 boundary case alone
    1.3333
    """
    rho = _check_rho(rho)
    if isinstance(tiers, (str, bytes)):
        raise InputError("tiers must be a sequence of integers, not a string")
    if not isinstance(tiers, Iterable):
        raise InputError(
            f"tiers must be a sequence of integers (0, 1 or 2 per gap), got {type(tiers).__name__}"
        )
    tiers = list(tiers)
    if directions is None:
        directions = [0] * len(tiers)
    if isinstance(directions, (str, bytes)) or not isinstance(directions, Iterable):
        raise InputError(
            "directions must be a sequence of integers (-1, 0 or 1 per gap) or None, got "
            f"{type(directions).__name__}"
        )
    directions = list(directions)
    if len(directions) != len(tiers):
        raise InputError(
            f"tiers and directions must have the same length, got {len(tiers)} and {len(directions)}"
        )
    if not tiers:
        return 0.0
    checked = [
        _check_tier_direction(t, d, f"gap {i}")
        for i, (t, d) in enumerate(zip(tiers, directions, strict=True))
    ]
    tiers = [t for t, _ in checked]
    directions = [d for _, d in checked]
    beta = max(t + d / 3.0 for t, d in zip(tiers, directions, strict=True))
    refined = beta + q_rho(refinement_counts(tiers), rho) / 3.0
    # Stay inside [beta, beta + 1/3) even when rho**x underflows (see the module docstring).
    return min(refined, math.nextafter(beta + 1.0 / 3.0, -math.inf))


def normalize_score(raw: float, scale: float = MAX_SCORE) -> float:
    """Map a raw score to ``[0, 1]``: ``clip(raw, 0, scale) / scale`` (``scale`` is a checkpoint's
    ``score_scale``, default 7/3). The clip comes first, so the result is in ``[0, 1]`` by
    construction whatever the raw value and the (positive) scale."""
    for name, value in (("raw", raw), ("scale", scale)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
            raise InputError(f"normalize_score expects a real {name}, got {value!r}")
    if not 0.0 < scale < math.inf:
        raise InputError(f"normalize_score expects a positive finite scale, got {scale!r}")
    return min(max(float(raw), 0.0), float(scale)) / float(scale)
