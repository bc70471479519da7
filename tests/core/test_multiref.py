"""Several references per utterance (issue #32 item 2): :mod:`sitar.multiref` and the metric."""

from __future__ import annotations

import math

import pytest

from sitar import metric
from sitar.errors import InputError
from sitar.multiref import check_reference_lists, choose, score_multi
from sitar.result import system_score
from sitar.scorer import Scorer

HYPS = ["turn right at the bank", "the meeting is at nine"]
REFS = [
    ["turn left at the bank", "turn right at the bank"],
    ["the meeting is at five"],
]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def scorer():
    return Scorer.load()


def test_choose_takes_the_lowest_score():
    assert choose([0.5, 0.1, 0.3]) == 1


def test_choose_breaks_a_score_tie_by_the_lowest_swer():
    assert choose([0.2, 0.2, 0.1 + 0.3], [0.4, 0.1, 0.0]) == 1


def test_choose_breaks_a_full_tie_by_the_first_reference():
    assert choose([0.2, 0.2, 0.2], [0.1, 0.1, 0.1]) == 0
    assert choose([0.3, 0.2, 0.2]) == 1


def test_choose_needs_a_candidate():
    with pytest.raises(InputError):
        choose([])


@pytest.mark.parametrize(
    ("references", "message"),
    [
        ("abc", "references must be a list"),
        ([["a"], []], r"references\[1\] is empty"),
        ([["a", 3]], r"references\[0\]\[1\] must be a str"),
        ([["a"]], "same length"),
    ],
)
def test_bad_reference_lists_are_input_errors(references, message):
    with pytest.raises(InputError, match=message):
        check_reference_lists(references, 2 if message == "same length" else len(references))


def test_score_multi_scores_all_pairs_in_one_call_and_keeps_the_closest(scorer, monkeypatch):
    calls = []
    real = scorer.score

    def spy(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(scorer, "score", spy)
    multi = score_multi(scorer, references=REFS, hypotheses=HYPS)
    assert len(calls) == 1 and len(calls[0]["references"]) == 3
    assert multi.chosen == (1, 0)
    assert multi.references == ("turn right at the bank", "the meeting is at five")
    single = real(references=list(multi.references), hypotheses=HYPS)
    assert multi.result.scores == single.scores and multi.result.scores[0] == 0.0
    assert multi.result.system_score == single.system_score == system_score(single.scores)
    assert multi.result.swer == single.swer
    assert multi.result.system_swer == single.system_swer


def test_a_bare_string_is_one_candidate(scorer):
    multi = score_multi(scorer, references=["turn left at the bank"], hypotheses=HYPS[:1])
    assert multi.chosen == (0,)


def test_zero_utterances(scorer):
    multi = score_multi(scorer, references=[], hypotheses=[])
    assert multi.chosen == () and math.isnan(multi.result.system_score)


def test_compute_takes_lists_of_references_and_says_which_was_chosen():
    out = metric.compute(predictions=HYPS, references=REFS)
    assert out["chosen_reference"] == [1, 0]
    plain = metric.compute(predictions=HYPS, references=[REFS[0][1], REFS[1][0]])
    assert "chosen_reference" not in plain
    assert out["scores"] == plain["scores"] and out["score"] == plain["score"]
    assert out["swer"] == plain["swer"]


def test_compute_with_a_bad_reference_list_is_an_input_error():
    with pytest.raises(InputError, match=r"references\[1\] is empty"):
        metric.compute(predictions=HYPS, references=[["a"], []])
    with pytest.raises(InputError, match="same length"):
        metric.compute(predictions=HYPS, references=[["a"]])
