"""explain / explain_many, the estimated-tier rule and the meaning-critical rate."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from sitar.diagnostics import (
    MEANING_CRITICAL_THRESHOLD,
    TIER_RULE,
    estimate_tier,
    explain,
    explain_many,
    meaning_critical_rate,
)
from sitar.errors import InputError
from sitar.signature import parse_signature
from sitar.targets import MAX_SCORE, score_from_tiers

PAIRS = [
    (
        "please send the report to the client today",
        "please do not send the report to the client today",
    ),
    (
        "turn left at the next light. call the bank tomorrow",
        "turn right at the next light. call a bank today",
    ),
    ("the meeting is at noon", "the meeting is at noon"),
]


def test_gap_scores_match_score_on_single_gap_hypotheses(tiny_scorer):
    for ref, hyp in PAIRS[:2]:
        e = explain(tiny_scorer, ref, hyp)
        assert len(e.gaps) >= 1
        singles = [g.hypothesis for g in e.gaps]
        direct = tiny_scorer.score(references=[ref] * len(singles), hypotheses=singles)
        np.testing.assert_allclose([g.score for g in e.gaps], direct.scores, atol=1e-6)
        pair = tiny_scorer.score(references=[ref], hypotheses=[hyp])
        assert e.score == pytest.approx(pair.scores[0], abs=1e-6)
        assert e.signature == tiny_scorer.signature
        # Each single-gap hypothesis is the reference with only that gap applied (SPEC §4).
        from sitar.cgd import segment

        seg = segment(ref, hyp, analyzer=tiny_scorer.analyzer)
        assert singles == list(seg.single_gap_hypotheses())
        assert e.n_model_inputs == 1 + len(e.gaps)


def test_pair_without_gaps_is_empty_and_zero(tiny_scorer, stub_analyzer):
    e = explain(tiny_scorer, "Hello, there!", "hello there")
    assert e.gaps == () and e.score == 0.0 and e.n_model_inputs == 0
    assert e.max_gap_score == 0.0 and e.tier_score == 0.0
    # Even a score source that would say otherwise cannot give a gap-free pair a score.
    e = explain(
        lambda r, h: np.full(len(r), 0.5), "same words", "Same words.", analyzer=stub_analyzer
    )
    assert e.gaps == () and e.score == 0.0


def test_explain_many_uses_one_batched_call(fake_predict):
    refs = [r for r, _ in PAIRS]
    hyps = [h for _, h in PAIRS]
    out = explain_many(fake_predict, references=refs, hypotheses=hyps)
    n_gaps = sum(len(e.gaps) for e in out)
    assert n_gaps >= 3
    assert fake_predict.calls == [len(PAIRS) + n_gaps]
    first = out[0]
    assert [g.gap.kind for g in first.gaps] == ["insertion"]
    assert first.gaps[0].score == pytest.approx(0.91)  # "do not": negation + 1 more token
    assert (first.gaps[0].tier, first.gaps[0].direction) == (2, 0)
    assert first.meaning_critical and first.gaps[0].meaning_critical
    # With a predict_fn the cost is unknown (-1) and the signature names the source.
    assert first.n_model_inputs == -1
    fields = parse_signature(first.signature)
    assert fields["scorer"] == "predict_fn" and fields["analyzer"] == "stub-test"
    assert out[2].gaps == ()


def test_tier_score_relates_pair_to_gaps(fake_predict):
    e = explain(fake_predict, *PAIRS[1])
    tiers = [g.tier for g in e.gaps]
    dirs = [g.direction for g in e.gaps]
    assert e.tier_score == pytest.approx(score_from_tiers(tiers, dirs) / MAX_SCORE)
    assert e.max_gap_score == max(g.score for g in e.gaps)
    d = json.loads(json.dumps(e.to_dict()))
    assert d["tier_rule"] == TIER_RULE and d["n_gaps"] == len(e.gaps)
    assert d["gaps"][0]["single_gap_hypothesis"] == e.gaps[0].hypothesis
    assert "signature" in d and "segmentation_signature" in d


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (0.0, (0, 0)),
        (0.33, (0, 0)),
        (1 / 3, (0, 1)),
        (0.66, (0, 1)),
        (2 / 3, (1, -1)),
        (1.0, (1, 0)),
        (4 / 3, (1, 1)),
        (1.66, (1, 1)),
        (5 / 3, (2, -1)),
        (2.0, (2, 0)),
        (7 / 3, (2, 0)),
    ],
)
def test_estimate_tier_bands(raw, expected):
    assert estimate_tier(raw / MAX_SCORE) == expected


def test_estimate_tier_rejects_nan():
    with pytest.raises(InputError):
        estimate_tier(math.nan)


def test_meaning_critical_rate():
    assert MEANING_CRITICAL_THRESHOLD == pytest.approx(5 / 7)
    # raw exactly 5/3, normalised by float division, is in the band; just below is not.
    at_band = (5 / 3) / (7 / 3)
    assert meaning_critical_rate([0.0, at_band, 0.7, 0.99]) == 0.5
    assert meaning_critical_rate(np.array([0.1, 0.2])) == 0.0
    assert math.isnan(meaning_critical_rate([]))
    with pytest.raises(InputError):
        meaning_critical_rate([0.1, math.nan])


def test_bad_inputs_raise_typed_errors(fake_predict, stub_analyzer):
    stub = stub_analyzer
    with pytest.raises(InputError, match="same length"):
        explain_many(fake_predict, references=["a"], hypotheses=["a", "b"])
    with pytest.raises(InputError, match="list of str"):
        explain_many(fake_predict, references="a b", hypotheses="a c")
    with pytest.raises(InputError, match="outside"):
        explain(lambda r, h: np.full(len(r), 3.0), "a b", "a c", analyzer=stub)
    with pytest.raises(InputError, match="scores for"):
        explain(lambda r, h: np.zeros(1), "a b c d", "x b y d", analyzer=stub)
    with pytest.raises(InputError, match="Scorer"):
        explain(42, "a", "b", analyzer=stub)
