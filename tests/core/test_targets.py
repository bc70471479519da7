"""SPEC §5: worked values, tier priority, saturation and input validation."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitar.errors import InputError
from sitar.targets import (
    MAX_SCORE,
    normalize_score,
    q_rho,
    refinement_counts,
    score_from_tiers,
    severity_position,
)

# (tiers, directions, raw, normalized) from SPEC §5 with rho = 1/2.
WORKED = [
    ([], None, 0.0, 0.0),
    ([0], None, 0.0, 0.0),
    ([0, 0], None, 1 / 6, 0.0714),
    ([1], None, 1.0, 0.4286),
    ([1, 0], None, 1.0833, 0.4643),
    ([2], None, 2.0, 0.8571),
    ([2, 0, 0], None, 2.0625, 0.8839),
    ([2, 1], None, 2.0833, 0.8929),
    ([2, 2], None, 2.1667, 0.9286),
    ([1], [1], 4 / 3, 0.5714),
]


@pytest.mark.parametrize(("tiers", "directions", "raw", "norm"), WORKED)
def test_worked_values(tiers, directions, raw, norm):
    s = score_from_tiers(tiers, directions)
    assert s == pytest.approx(raw, abs=5e-5)
    assert round(normalize_score(s), 4) == pytest.approx(norm, abs=1e-12)


def test_order_of_gaps_does_not_matter():
    assert score_from_tiers([0, 2, 1, 0]) == score_from_tiers([2, 1, 0, 0])


def test_boundary_directions_set_beta():
    # T2 -> T1 boundary case alone sits at 5/3; a plain T1 with a T1 -> T2 neighbour at 4/3 + Q.
    assert score_from_tiers([2], [-1]) == pytest.approx(5 / 3)
    assert score_from_tiers([1, 1], [1, 0]) == pytest.approx(4 / 3 + 0.5 / 3)
    # Refinement counts use nominal tiers, irrespective of directions.
    assert refinement_counts([2, 1, 1, 0]) == (1, 2, 0)


def _counts_to_tiers(counts):
    return [k for k, c in enumerate(counts) for _ in range(c)]


count_vectors = st.lists(st.integers(0, 12), min_size=3, max_size=3)


@given(count_vectors, count_vectors, st.sampled_from([0.25, 0.5, 0.75]))
def test_tier_priority(a, b, rho):
    """More gaps at the highest tier where two count vectors differ always scores higher."""
    if a == b or sum(a) == 0 or sum(b) == 0:
        return
    sa = score_from_tiers(_counts_to_tiers(a), rho=rho)
    sb = score_from_tiers(_counts_to_tiers(b), rho=rho)
    # Compare lexicographically from T2 down. The exact difference can fall below float64
    # resolution (a T0 difference under 8 T2 and 10 T1 gaps at rho = 0.25 is about 1e-15): then the
    # two floats may be equal, but never in the wrong order.
    exact_a, exact_b = _exact_score(a, rho), _exact_score(b, rho)
    assert sa == pytest.approx(float(exact_a), abs=1e-12)
    assert sb == pytest.approx(float(exact_b), abs=1e-12)
    gap = abs(exact_a - exact_b)
    key_a, key_b = a[::-1], b[::-1]
    hi, lo = (sa, sb) if key_a > key_b else (sb, sa)
    if gap > 1e-12:
        assert hi > lo
    else:
        assert hi >= lo


def _exact_score(counts, rho):
    """SPEC §5 with exact rationals (no directions): the reference for the float implementation."""
    from fractions import Fraction

    r = Fraction(rho)
    top = max(k for k, c in enumerate(counts) if c)
    refined = [c - (k == top) for k, c in enumerate(counts[: top + 1])]
    q = 1 - r ** refined[0]
    for x in refined[1:]:
        q = 1 - r**x * (1 - (1 - r) * q)
    return top + q / 3


@given(count_vectors, st.sampled_from([0.25, 0.5, 0.75]))
def test_score_stays_in_base_interval(counts, rho):
    if sum(counts) == 0:
        return
    tiers = _counts_to_tiers(counts)
    beta = max(tiers)
    s = score_from_tiers(tiers, rho=rho)
    assert beta <= s < beta + 1 / 3
    assert 0 <= s < MAX_SCORE


@given(st.lists(st.integers(0, 30), min_size=1, max_size=4), st.floats(0.05, 0.95))
def test_q_is_bounded(counts, rho):
    q = q_rho(counts, rho)
    assert 0.0 <= q < 1.0 or math.isclose(q, 1.0)


def test_saturation_of_t0_gaps():
    # Each extra T0 gap adds less; many T0 gaps never reach T1.
    scores = [score_from_tiers([0] * n) for n in range(1, 12)]
    steps = [b - a for a, b in itertools.pairwise(scores)]
    assert all(s > 0 for s in steps)
    assert all(b < a for a, b in itertools.pairwise(steps))
    assert scores[-1] < 1 / 3
    assert score_from_tiers([0] * 500) < 1.0


def test_huge_counts_never_leave_the_interval():
    assert score_from_tiers([1] * 2000) < 4 / 3
    assert score_from_tiers([2] * 2000) < MAX_SCORE


def test_severity_position():
    assert severity_position(1, 1) == pytest.approx(4 / 3)
    assert severity_position(0) == 0


@pytest.mark.parametrize(
    ("tiers", "directions", "match"),
    [
        ([3], None, "tier must be 0, 1 or 2"),
        ([-1], None, "tier must be"),
        ([1.0], None, "tier must be"),
        ([True], None, "tier must be"),
        ([1], [2], "direction must be"),
        ([2], [1], "impossible at tier 2"),
        ([0], [-1], "impossible at tier 0"),
        ([1, 1], [0], "same length"),
        ("12", None, "not a string"),
    ],
)
def test_invalid_labels(tiers, directions, match):
    with pytest.raises(InputError, match=match):
        score_from_tiers(tiers, directions)


@pytest.mark.parametrize("rho", [0, 1, -0.5, 1.5, float("nan"), "0.5", True])
def test_invalid_rho(rho):
    with pytest.raises(InputError, match="rho"):
        score_from_tiers([1], rho=rho)


def test_numpy_integers_are_accepted():
    np = pytest.importorskip("numpy")
    assert score_from_tiers(np.array([2, 0, 0])) == pytest.approx(2.0625)


def test_normalize_clips():
    assert normalize_score(-1) == 0.0
    assert normalize_score(10) == 1.0
    with pytest.raises(InputError):
        normalize_score(float("nan"))
