"""Unit tests for answer validation (annotation.schema) and the SPEC §6 rules (annotation.protocol)."""

from __future__ import annotations

import json

import pytest

from annotation.protocol import (
    AnswerRecord,
    CallPending,
    annotate_pair,
    committee_tier,
    majority_tier,
    round_contradictions,
)
from annotation.schema import AnswerError, parse_answer
from sitar.targets import score_from_tiers

IDS = ("g1", "g2", "g3")


def test_parse_valid_answers_and_code_fence():
    assert parse_answer("tiers", '{"tiers": {"g1": "T0", "g2": "T2", "g3": "T1"}}', IDS) == {
        "g1": 0,
        "g2": 2,
        "g3": 1,
    }
    fenced = '```json\n{"ranking": [["baseline", "g1"], ["g3"], ["g2"]]}\n```'
    assert parse_answer("ranking", fenced, IDS) == [["baseline", "g1"], ["g3"], ["g2"]]
    text = '{"tiers": {"g1": "T1", "g2": "T1", "g3": "T1"}, "rationale": "why"}'
    assert parse_answer("review", text, IDS)["g1"] == 1


@pytest.mark.parametrize(
    ("task", "text", "needle"),
    [
        ("tiers", '{"tiers": {"g1": "T0",', "not valid JSON"),
        ("tiers", "Sure! Here it is: {}", "not valid JSON"),
        ("tiers", "[1, 2]", "JSON object"),
        ("tiers", '{"tiers": {"g1": "T0", "g2": "T1"}}', "no tier for"),
        ("tiers", '{"tiers": {"g1": "T0", "g2": "T1", "g3": "T3"}}', "must be 'T0'"),
        ("tiers", '{"tiers": {"g1": 0, "g2": 1, "g3": 2}}', "must be 'T0'"),
        ("tiers", '{"tiers": {"g1": "T0", "g2": "T1", "g3": "T1", "g9": "T1"}}', "unknown gap"),
        ("tiers", '{"tiers": {"g1": "T0", "g2": "T1", "g3": "T1"}, "x": 1}', "unexpected key"),
        ("ranking", '{"ranking": [["g1"], ["baseline", "g2", "g3"]]}', "first group"),
        ("ranking", '{"ranking": [["baseline", "g1"], ["g2"]]}', "lacks id"),
        ("ranking", '{"ranking": [["baseline", "g1", "g1"], ["g2", "g3"]]}', "more than once"),
        ("ranking", '{"ranking": [["baseline"], []]}', "non-empty"),
        ("ranking", '{"ranking": "baseline < g1"}', "non-empty list"),
    ],
)
def test_invalid_answers_raise(task, text, needle):
    with pytest.raises(AnswerError, match=needle):
        parse_answer(task, text, IDS)


def test_round_contradictions_cover_the_three_rules():
    ranking = [["baseline", "g1"], ["g2", "g3"]]
    assert round_contradictions(ranking, {"g1": 0, "g2": 1, "g3": 1}) == []
    # g1 ≈ baseline but not T0
    assert any("baseline" in p for p in round_contradictions(ranking, {"g1": 1, "g2": 1, "g3": 1}))
    # g2 ≈ g3 with different tiers
    assert any("≈" in p for p in round_contradictions(ranking, {"g1": 0, "g2": 1, "g3": 2}))
    # g2 ≺ g3 but t2 > t3
    ranking = [["baseline"], ["g1"], ["g2"], ["g3"]]
    problems = round_contradictions(ranking, {"g1": 0, "g2": 2, "g3": 1})
    assert problems == ["g2 ≺ g3 but T2 > T1"]
    # ≺ with equal tiers is allowed (a strict ranking inside one tier)
    assert round_contradictions(ranking, {"g1": 1, "g2": 1, "g3": 1}) == []


def test_majority_and_dissent():
    assert majority_tier([1, 1, 1]) == (1, None)
    assert majority_tier([1, 2, 1]) == (1, 2)
    assert majority_tier([0, 1, 2]) == (None, None)


def test_committee_majority_and_ties():
    assert committee_tier([2, 2, 1, 0], t_maj=1) == 2
    # tie 0 vs 2 with t_maj 1: both at distance 1 -> lower tier
    assert committee_tier([0, 0, 2, 2], t_maj=1) == 0
    # tie 1 vs 2 with t_maj 2 -> nearest to t_maj
    assert committee_tier([1, 1, 2, 2], t_maj=2) == 2
    assert committee_tier([1, 1, 0, 0], t_maj=2) == 1


def _scripted(answers):
    calls = []

    def ask(task, index, proposed):
        calls.append((task, index, proposed))
        value = answers[(task, index)]
        if isinstance(value, AnswerRecord):
            return value
        if value is None:
            raise CallPending("missing")
        return AnswerRecord(ok=True, parsed=value)

    return ask, calls


def _rounds(tiers_by_round, ranking=None):
    answers = {}
    for k, tiers in enumerate(tiers_by_round, start=1):
        groups = ranking or [["baseline", *[g for g, t in tiers.items() if t == 0]]] + [
            [g for g, t in tiers.items() if t == lvl] for lvl in (1, 2) if lvl in tiers.values()
        ]
        answers[("ranking", k)] = groups
        answers[("tiers", k)] = tiers
    return answers


def test_annotate_pair_accepts_with_direction_from_dissent():
    answers = _rounds([{"g1": 1, "g2": 0}, {"g1": 1, "g2": 0}, {"g1": 2, "g2": 0}])
    for j in range(1, 5):
        answers[("review", j)] = {"g1": 2, "g2": 0}
    ask, calls = _scripted(answers)
    out = annotate_pair(n_gaps=2, ask=ask, reviewers=4)
    assert out.status == "accepted"
    assert out.tiers == (2, 0)
    assert out.directions == (-1, 0)  # sign(t_maj - t_rev) = sign(1 - 2)
    assert out.score == score_from_tiers([2, 0], [-1, 0])
    assert [c[0] for c in calls].count("review") == 4
    assert calls[-1][2] == (1, 0)  # reviewers see the majority tiers


def test_annotate_pair_rejections():
    base = _rounds([{"g1": 1}] * 3)
    for j in range(1, 3):
        base[("review", j)] = {"g1": 0}
    out = annotate_pair(n_gaps=1, ask=_scripted(base)[0], reviewers=2)
    assert (out.status, out.reason) == ("rejected", "filter")

    split = _rounds([{"g1": 0}, {"g1": 1}, {"g1": 2}])
    ask, calls = _scripted(split)
    out = annotate_pair(n_gaps=1, ask=ask)
    assert out.reason == "no_majority"
    assert not any(c[0] == "review" for c in calls)

    contradiction = _rounds([{"g1": 2}] * 3, ranking=[["baseline", "g1"]])
    ask, calls = _scripted(contradiction)
    out = annotate_pair(n_gaps=1, ask=ask)
    assert out.reason == "contradiction"
    assert len(calls) == 2  # the first round already rejects the pair

    failed = _rounds([{"g1": 2}] * 3)
    failed[("tiers", 2)] = AnswerRecord(ok=False, problem="no valid answer")
    out = annotate_pair(n_gaps=1, ask=_scripted(failed)[0])
    assert out.reason == "failure" and "round 2" in out.detail


def test_annotate_pair_pending_and_no_gaps():
    answers = _rounds([{"g1": 2}] * 3)
    answers[("review", 1)] = None
    out = annotate_pair(n_gaps=1, ask=_scripted(answers)[0], reviewers=1)
    assert out.status == "pending"
    out = annotate_pair(n_gaps=0, ask=lambda *a: pytest.fail("no calls for a pair without gaps"))
    assert (out.status, out.score) == ("accepted", 0.0)
    assert json.dumps(out.to_dict())


def test_prompts_are_versioned_and_carry_the_rubric():
    from annotation.prompts import TASKS, GapView, load_prompt, render_prompt

    gaps = [GapView("g1", "deletion", 'do "not"', "", "do send it")]
    for task in TASKS:
        prompt = load_prompt(task)
        assert prompt.version.startswith(f"{task}.v1+") and len(prompt.version) == len(task) + 16
        view = [GapView(**{**gaps[0].__dict__, "proposed_tier": 2})] if task == "review" else gaps
        text = render_prompt(prompt, reference="do not send it", gaps=view)
        for needle in ("T0 (expression only)", "T1 (uptake", "T2 (outcome", "fluent", "JSON only"):
            assert needle in text, (task, needle)
        assert 'g1 (deletion): reference "do \\"not\\"" -> hypothesis ""' in text
    assert "baseline" in render_prompt(load_prompt("ranking"), reference="r", gaps=gaps)
    with pytest.raises(ValueError, match="proposed tier"):
        render_prompt(load_prompt("review"), reference="r", gaps=gaps)
