"""SPEC §7b aggregation (sitar.gapscore): rounding of expected steps, exact SPEC §5 scores, and a
tie-breaker that never reorders two different predicted count vectors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitar.errors import InputError
from sitar.gapscore import (
    DECODE_RULES,
    TIE_BREAK_MAX,
    GapPrediction,
    aggregate,
    calibrate_steps,
    decoded_steps,
    expected_steps,
    gap_extent,
    predict_gaps,
    severity_extent_fraction,
    step_fraction,
    step_to_tier,
    tie_fraction,
)
from sitar.targets import score_from_tiers


def test_step_to_tier_covers_the_seven_positions():
    assert [step_to_tier(s) for s in range(7)] == [
        (0, 0), (0, 1), (1, -1), (1, 0), (1, 1), (2, -1), (2, 0)
    ]  # fmt: skip
    for bad in (-1, 7, 1.5, True):
        with pytest.raises(InputError):
            step_to_tier(bad)


def test_expected_steps_and_rounding():
    logits = np.array([[9.0, 9.0, 9.0, -9.0, -9.0, -9.0], [-9.0] * 6, [9.0] * 6])
    e = expected_steps(logits)
    assert e == pytest.approx([3.0, 0.0, 6.0], abs=1e-3)
    assert [g.step for g in predict_gaps([0.49, 0.51, 2.5, 5.9, 6.0, -0.2, 7.0])] == [
        0, 1, 3, 6, 6, 0, 6
    ]  # fmt: skip
    with pytest.raises(InputError):
        expected_steps(np.array([np.nan]))
    with pytest.raises(InputError):
        predict_gaps([math.inf])


def test_median_decoding_counts_the_thresholds_passed():
    """``median``: the step is the number of logits above 0 (the usual ordinal decode), and the
    value the tie-breaker reads is the expected step moved into that step's range; ``mean`` is
    the expected step itself."""
    hedged = np.array([[9.0, 9.0, 9.0, 9.0, 2.0, 0.4]])  # all six passed, the last two unsure
    assert expected_steps(hedged)[0] < 5.5  # the mean rounds to 5: T2 -> T1
    assert [g.step for g in predict_gaps(decoded_steps(hedged, "mean"))] == [5]
    assert [g.step for g in predict_gaps(decoded_steps(hedged, "median"))] == [6]
    assert np.array_equal(decoded_steps(hedged), expected_steps(hedged))
    # near the bottom the clipped value must still round down: the float just below 1/2 plus 1/2
    # is 1.0 in floating point
    low = np.array(
        [[-0.01, -9.0, -9.0, -9.0, -9.0, -9.0]] * 2 + [[-0.2, -0.3, -0.4, -0.5, -0.6, -0.7]]
    )
    assert [g.step for g in predict_gaps(decoded_steps(low, "median"))] == [0, 0, 0]
    with pytest.raises(InputError, match="decode"):
        decoded_steps(hedged, "mode")
    assert DECODE_RULES == ("mean", "median", "tier")


def test_tier_decoding_keeps_the_means_tier_at_direction_0():
    """``tier``: the tier the mean rounds to, at its middle step (3t), the value clipped into
    that step's range so that the tie-breaker still reads where the gap sits."""
    logits = np.array(
        [
            [9.0, 9.0, 9.0, 9.0, -9.0, -9.0],  # mean 4: T1+ -> T1
            [9.0, 9.0, -9.0, -9.0, -9.0, -9.0],  # mean 2: T1- -> T1
            [9.0, -9.0, -9.0, -9.0, -9.0, -9.0],  # mean 1: T0+ -> T0
            [9.0, 9.0, 9.0, 9.0, 9.0, -9.0],  # mean 5: T2- -> T2
            [9.0] * 6,  # mean 6: T2
        ]
    )
    gaps = predict_gaps(decoded_steps(logits, "tier"))
    assert [(g.tier, g.direction) for g in gaps] == [(1, 0), (1, 0), (0, 0), (2, 0), (2, 0)]
    assert [g.tier for g in gaps] == [g.tier for g in predict_gaps(expected_steps(logits))]
    value = decoded_steps(logits, "tier")
    assert value[0] > value[1]  # T1+ sits above T1- inside the same step, for the tie-breaker


@settings(max_examples=300, deadline=None)
@given(
    logits=st.lists(st.floats(min_value=-12, max_value=12, allow_nan=False), min_size=6, max_size=6)
)
def test_tier_decoding_never_changes_the_tier(logits):
    x = np.array([logits])
    (mean,) = predict_gaps(expected_steps(x))
    (tier,) = predict_gaps(decoded_steps(x, "tier"))
    assert (tier.tier, tier.direction, tier.step) == (mean.tier, 0, 3 * mean.tier)


@settings(max_examples=300, deadline=None)
@given(
    logits=st.lists(st.floats(min_value=-12, max_value=12, allow_nan=False), min_size=6, max_size=6)
)
def test_median_step_is_the_count_of_positive_logits(logits):
    x = np.array([logits])
    value = float(decoded_steps(x, "median")[0])
    (gap,) = predict_gaps([value])
    assert gap.step == int((x > 0).sum())
    e = float(expected_steps(x)[0])
    if min(max(math.floor(e + 0.5), 0), 6) == gap.step:
        assert value == e  # the mean already rounds there: nothing moves


def test_aggregate_is_spec5_without_tie_breaker():
    gaps = predict_gaps([6.0, 0.0, 0.0])  # T2 + 2 T0
    s, lo, hi = aggregate(gaps)
    assert s == lo == pytest.approx(score_from_tiers([2, 0, 0]))
    assert hi == pytest.approx(score_from_tiers([2, 0, 0, 0]))
    assert aggregate([]) == (0.0, 0.0, 0.0)


def test_tie_breaker_stays_inside_the_interval():
    gaps = predict_gaps([3.0])  # T1 alone: [1, 1 + 1/6)
    lo, hi = score_from_tiers([1]), score_from_tiers([1, 0])
    assert lo < aggregate(gaps, pair_raw=-5.0)[0] < aggregate(gaps, pair_raw=-4.0)[0]
    assert aggregate(gaps, pair_raw=(lo + hi) / 2)[0] == pytest.approx((lo + hi) / 2)
    assert lo < aggregate(gaps, pair_raw=1.05)[0] < hi
    assert aggregate(gaps, pair_raw=50.0)[0] < aggregate(gaps, pair_raw=60.0)[0] < hi
    # x = (f - m) / h; u = 1/2 + x / (2 (1 + |x|)): at the interval's ends u = 1/4 and 3/4
    assert tie_fraction(gaps, pair_raw=lo) == pytest.approx(0.25)
    assert tie_fraction(gaps, pair_raw=hi) == pytest.approx(0.75)
    assert tie_fraction(gaps, pair_raw=1e300) == TIE_BREAK_MAX
    with pytest.raises(InputError):
        aggregate(gaps, pair_raw=1.0, u=0.5)
    with pytest.raises(InputError):
        aggregate(gaps, u=1.0)


@settings(max_examples=300, deadline=None)
@given(
    f=st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    d=st.floats(min_value=1e-6, max_value=1e3, allow_nan=False),
)
def test_tie_breaker_is_strictly_increasing_and_below_one(f, d):
    """Pairs with the same predicted gaps are ordered by the pair head wherever it lies (no ties
    at the interval's ends), and the fraction stays in (0, 1)."""
    gaps = predict_gaps([6.0, 1.0])  # T2 + T0->T1
    u1, u2 = tie_fraction(gaps, pair_raw=f), tie_fraction(gaps, pair_raw=f + d)
    assert 0.0 < u1 <= u2 < 1.0
    if abs(f) < 1e3:  # far out the fraction saturates in floating point, never reverses
        assert u1 < u2


positions = st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=7)


def _gaps(steps):
    return [GapPrediction(float(s), s, *step_to_tier(s)) for s in steps]


@settings(max_examples=400, deadline=None)
@given(a=positions, b=positions, u=st.floats(min_value=0.0, max_value=TIE_BREAK_MAX))
def test_tie_breaker_never_reorders_different_count_vectors(a, b, u):
    """If SPEC §5 orders two predicted gap sets, the tie-broken scores keep that order: one more
    T0 gives the next SPEC §5 value, so the tie-breaker's interval holds no other score."""
    ga, gb = _gaps(a), _gaps(b)
    sa, lo_a, hi_a = aggregate(ga, u=u)
    lo_b = aggregate(gb)[1]
    assert lo_a <= sa < hi_a or (lo_a == hi_a == sa)
    if lo_b > lo_a + 1e-12:
        assert hi_a <= lo_b + 1e-12
        assert sa < lo_b


def test_step_fraction_reads_where_the_top_gaps_lie_inside_their_step():
    # Only the gaps at the top step count; their expected steps are read inside [s - 1/2, s + 1/2).
    gaps = predict_gaps([3.2, 5.6, 5.9, 0.1])  # steps 3, 6, 6, 0
    assert [g.step for g in gaps] == [3, 6, 6, 0]
    # Step 6's range is [5.5, 6]: 5.6 -> 0.2, 5.9 -> 0.8; mean 0.5.
    assert step_fraction(gaps) == pytest.approx(0.5)
    assert step_fraction(predict_gaps([0.25])) == pytest.approx(0.5)  # step 0: [0, 0.5)
    assert step_fraction(predict_gaps([2.6])) == pytest.approx(0.1)  # step 3: [2.5, 3.5)
    assert step_fraction(predict_gaps([6.0])) == TIE_BREAK_MAX  # never reaches 1
    assert step_fraction([]) == 0.0


def test_gap_extent_is_the_share_of_tokens_inside_gaps():
    # "do not send it" -> "do send it": one deleted token of 4 + 3.
    assert gap_extent([(1, 2)], [(1, 1)], 4, 3) == pytest.approx(1 / 7)
    assert gap_extent([(0, 4)], [(0, 3)], 4, 3) == 1.0
    assert gap_extent([], [], 0, 0) == 0.0
    with pytest.raises(InputError, match="outside"):
        gap_extent([(2, 5)], [(0, 0)], 4, 3)
    with pytest.raises(InputError, match="non-negative"):
        gap_extent([], [], -1, 3)


def test_tie_breaker_v3_orders_ties_by_severity_and_extent_and_stays_in_the_interval():
    one_t2 = predict_gaps([5.8])
    short_slip = severity_extent_fraction(one_t2, extent=0.1)
    long_garble = severity_extent_fraction(one_t2, extent=0.8)
    assert 0.0 < short_slip < long_garble < 1.0
    # A gap the model places higher inside the same step scores higher at the same extent.
    assert severity_extent_fraction(predict_gaps([5.9]), extent=0.1) > short_slip
    # Everything covered and the top of the step: still strictly inside the interval.
    u = severity_extent_fraction(predict_gaps([6.0]), extent=1.0)
    s, lo, hi = aggregate(predict_gaps([6.0]), u=u)
    assert u == TIE_BREAK_MAX and lo <= s < hi
    assert severity_extent_fraction([], extent=0.0) == 0.0
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(InputError, match="extent"):
            severity_extent_fraction(one_t2, extent=bad)


def test_a_t2_cut_moves_only_the_t1_t2_boundary():
    """``calibrate_steps``: identity at the default cut 4.5; with cut ``c`` a gap is T2 exactly
    when its expected step is at least ``c``, the T0/T1 cut stays at 1.5, and no two gaps swap."""
    e = np.linspace(0.0, 6.0, 601)
    assert np.array_equal(calibrate_steps(e), e)
    for c in (3.0, 4.0, 4.75, 5.25, 5.75):
        g = calibrate_steps(e, c)
        assert np.all(np.diff(g) > 0) and g[0] == 0.0 and g[-1] == 6.0
        tiers = np.array([p.tier for p in predict_gaps(g)])
        assert np.array_equal(tiers == 2, e >= c - 1e-12)
        assert np.array_equal(tiers == 0, e < 1.5)
    logits = np.array([[9.0, 9.0, 9.0, 9.0, 1.0, -9.0]])  # expected step about 4.73
    assert [p.tier for p in predict_gaps(decoded_steps(logits, "tier"))] == [2]
    assert [p.tier for p in predict_gaps(decoded_steps(logits, "tier", 4.75))] == [1]
    assert [p.tier for p in predict_gaps(decoded_steps(logits, "mean", 4.75))] == [1]
    assert decoded_steps(logits, "median", 4.5).shape == (1,)  # the default cut is no cut
    with pytest.raises(InputError, match="median"):
        decoded_steps(logits, "median", 4.75)
    for bad in (2.9, 5.8, math.nan, "4.75", True, None):
        with pytest.raises(InputError, match="T1/T2 cut"):
            calibrate_steps(e, bad)
