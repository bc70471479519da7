"""SPEC §8 metrics and the controlled-ordering protocol against hand-computed values."""

from __future__ import annotations

import math

import pytest

from sitar.errors import InputError
from training.evaluate import (
    base_of,
    controlled_ordering,
    interval_hit_rate,
    kendall,
    mae,
    pearson,
    regression_metrics,
    spearman,
)


def test_correlations_hand_values():
    pred, gold = [1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0]
    # Ranks differ by one swap: Spearman 1 - 6*(1+1)/(4*15) = 0.8; Kendall (5-1)/6.
    assert spearman(pred, gold) == pytest.approx(0.8)
    assert kendall(pred, gold) == pytest.approx(4 / 6)
    # Pearson of x and y with means 2.5: cov 4 -> r = 4 / 5 = 0.8.
    assert pearson(pred, gold) == pytest.approx(0.8)
    assert mae(pred, gold) == pytest.approx(0.5)


def test_spearman_uses_average_ranks_for_ties():
    # gold ranks [1.5, 1.5, 3], pred ranks [1, 2, 3]: r = 0.866...
    assert spearman([1.0, 2.0, 3.0], [0.0, 0.0, 1.0]) == pytest.approx(math.sqrt(3) / 2)


def test_constant_inputs_give_nan():
    assert math.isnan(spearman([1.0, 1.0], [0.0, 1.0]))
    assert math.isnan(pearson([1.0, 2.0], [0.5, 0.5]))
    assert math.isnan(kendall([1.0], [1.0]))


def test_interval_hit_rate():
    gold = [0.0, 1.0833, 2.0625, 1.3333333333333333]
    assert base_of(gold).tolist() == pytest.approx([0.0, 1.0, 2.0, 4 / 3])
    # hits: 0.2 in [0, 1/3); 1.4 not in [1, 4/3); 2.1 in [2, 7/3); 1.33 just below 4/3 misses.
    assert interval_hit_rate([0.2, 1.4, 2.1, 1.33], gold) == pytest.approx(0.5)
    # Explicit bases take precedence.
    assert interval_hit_rate([0.2], [0.2], bases=[1.0]) == 0.0


def test_regression_metrics_bundle_and_validation():
    m = regression_metrics([0.1, 1.1, 2.1], [0.0, 1.0, 2.0])
    assert m["n"] == 3 and m["interval_hit_rate"] == 1.0 and m["spearman"] == pytest.approx(1.0)
    assert m["mae"] == pytest.approx(0.1)
    with pytest.raises(InputError, match="same length"):
        regression_metrics([0.1], [0.1, 0.2])
    with pytest.raises(InputError, match="raw scale"):
        regression_metrics([0.1], [3.0])
    with pytest.raises(InputError, match="finite"):
        regression_metrics([float("nan")], [0.1])
    with pytest.raises(InputError, match="at least one"):
        regression_metrics([], [])


def test_controlled_ordering_hand_example():
    # Reference A: vectors ordered (0,0,1) < (0,1,0) < (1,0,0); scores in order -> 3/3 pairs.
    a = [((0, 0, 1), 0.1), ((0, 1, 0), 0.5), ((1, 0, 0), 0.9)]
    # Reference B: (0,0,2) < (0,1,0) < (1,0,0) by T2-first order; scores 0.4, 0.3, 0.4:
    # (0,0,2)<(0,1,0): 0.3 > 0.4? no. (0,0,2)<(1,0,0): 0.4 > 0.4? tie fails. (0,1,0)<(1,0,0): yes.
    # Also two equal vectors (0,1,0) skipped against each other.
    b = [((0, 0, 2), 0.4), ((0, 1, 0), 0.3), ((1, 0, 0), 0.4), ((0, 1, 0), 0.35)]
    result = controlled_ordering([a, b])
    # B pairs with differing vectors: 5 (the pair of equal vectors is skipped).
    # (0,0,2) vs (0,1,0)@0.3: fail; vs (1,0,0): tie fail; vs (0,1,0)@0.35: fail;
    # (0,1,0)@0.3 vs (1,0,0): ok; (0,1,0)@0.35 vs (1,0,0): ok -> 2/5.
    assert result.pairwise_agreement == pytest.approx((1.0 + 2 / 5) / 2)
    assert result.n_pairs == 3 + 5 and result.n_references == 2 and result.n_skipped == 0
    # Spearman B: order ranks [1, 2.5, 4, 2.5] vs score ranks [3.5, 1, 3.5, 2].
    from scipy.stats import spearmanr

    expected_b = spearmanr([0, 1, 2, 1], [0.4, 0.3, 0.4, 0.35])[0]
    assert result.mean_spearman == pytest.approx((1.0 + expected_b) / 2)


def test_within_tier_agreement_by_hand():
    group = [
        ((0, 0, 1), 0.1),
        ((0, 0, 2), 0.2),
        ((0, 1, 0), 0.5),
        ((0, 1, 1), 0.4),
        ((1, 0, 0), 0.9),
    ]
    result = controlled_ordering([group])
    # Inside T0: (0,0,1) < (0,0,2) right; inside T1: (0,1,0) < (0,1,1) wrong.
    assert result.n_within_tier_pairs == 2 and result.within_tier_agreement == 0.5
    # 10 ordered pairs, only the T1 pair wrong.
    assert result.pairwise_agreement == pytest.approx(9 / 10)
    across = controlled_ordering([[((0, 0, 1), 0.1), ((1, 0, 0), 0.9)]])
    assert across.n_within_tier_pairs == 0 and math.isnan(across.within_tier_agreement)


def test_controlled_ordering_lexicographic_t2_first():
    # (1,0,0) beats (0,5,5): one T2 outweighs any number of lower-tier gaps.
    good = controlled_ordering([[((0, 5, 5), 1.9), ((1, 0, 0), 2.0)]])
    bad = controlled_ordering([[((0, 5, 5), 2.0), ((1, 0, 0), 1.9)]])
    assert good.pairwise_agreement == 1.0 and bad.pairwise_agreement == 0.0
    assert good.mean_spearman == pytest.approx(1.0) and bad.mean_spearman == pytest.approx(-1.0)


def test_controlled_ordering_degenerate_groups():
    # Equal vectors only: skipped. Constant scores with different vectors: agreement 0, rho 0.
    result = controlled_ordering(
        [[((0, 1, 0), 0.2), ((0, 1, 0), 0.3)], [((0, 0, 1), 0.5), ((0, 1, 0), 0.5)]]
    )
    assert result.n_skipped == 1 and result.n_references == 1
    assert result.pairwise_agreement == 0.0 and result.mean_spearman == 0.0
    with pytest.raises(InputError, match="at least one reference"):
        controlled_ordering([[((0, 1, 0), 0.2)]])
    with pytest.raises(InputError, match=r"\(c2, c1, c0\)"):
        controlled_ordering([[((0, 1), 0.2), ((1, 0, 0), 0.3)]])
    with pytest.raises(InputError, match="finite"):
        controlled_ordering([[((0, 1, 0), float("nan")), ((1, 0, 0), 0.3)]])
