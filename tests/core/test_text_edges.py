"""Text edges of issue #30: variation selectors are T0, and a wrong-length predict_fn is reported
with the right counts."""

from __future__ import annotations

import pytest

from sitar.errors import InputError
from sitar.text import presentation_key

VS16, VS15 = "\ufe0f", "\ufe0e"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("I like it \u2764" + VS16, "I like it \u2764"),  # a dropped emoji-style selector
        ("the cafe" + VS16 + " is open", "the cafe is open"),
        ("a" + VS15 + " b", "a b"),
        ("x \U000e0100y", "x y"),  # Variation Selectors Supplement
        ("I like it \U0001f44d", "I like it \U0001f44e"),  # 👍 -> 👎: no word either way
    ],
)
def test_variation_selectors_are_not_words(a, b):
    assert presentation_key(a) == presentation_key(b)


def test_presentation_key_keeps_real_differences():
    assert presentation_key("the cafe is open") != presentation_key("the cafe is closed")
    assert presentation_key("na\u0308ive") != presentation_key("naive")  # a real mark stays


@pytest.fixture(scope="module")
def default_scorer():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    from sitar.scorer import Scorer

    return Scorer.load()


def test_dropped_variation_selector_scores_zero(default_scorer):
    refs = ["I like it \u2764" + VS16, "the cafe" + VS16 + " is open"]
    hyps = ["I like it \u2764", "the cafe is open"]
    result = default_scorer.score(references=refs, hypotheses=hyps)
    assert result.scores == (0.0, 0.0)
    assert result.identical == (True, True)


def test_variation_selector_gap_is_t0_next_to_a_real_gap(default_scorer):
    ref = "my cafe" + VS16 + " is nice. the shop is open today"
    hyp = "my cafe is nice. the shop is closed today"
    (analysis,) = default_scorer.analyze(references=[ref], hypotheses=[hyp])
    gaps = analysis.segmentation.gaps
    assert len(gaps) == 2
    vs = [
        k
        for k, g in enumerate(gaps)
        if presentation_key(g.ref_text) == presentation_key(g.hyp_text)
    ]
    assert len(vs) == 1
    assert analysis.gaps[vs[0]].step == 0 and analysis.gaps[vs[0]].tier == 0
    real = 1 - vs[0]
    assert analysis.gaps[real].step > 0


def test_explain_many_wrong_length_predict_fn_names_pairs_and_inputs():
    from sitar.diagnostics import explain_many

    refs = ["turn left at the light", "send it to the client"]
    hyps = ["turn right at the light", "send it to a client now"]

    def predict_fn(references, hypotheses):
        return [0.1] * len(refs)  # one per pair, not per model input

    with pytest.raises(InputError) as info:
        explain_many(predict_fn, references=refs, hypotheses=hyps)
    message = str(info.value)
    assert "2 pairs" in message
    # The call also held each pair's single-gap hypotheses: the count of inputs is named.
    assert "for 2 pairs" not in message
    import re

    n_inputs = int(re.search(r"(\d+) (?:model )?inputs", message).group(1))
    assert n_inputs > 2


def test_composed_and_decomposed_text_are_the_same_words() -> None:
    """NFC and NFD forms of one text made a phantom gap (0.038, issue #30): the presentation key
    is in NFC, so the pair is identical (score 0, no model call) and such a gap is T0, while the
    tokens, the segmentation and the spans stay those of spec §1 (the tokenizer is unchanged)."""
    import unicodedata

    from sitar import Scorer
    from sitar.text import presentation_key

    composed = "Le café est fermé, señor."
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    assert presentation_key(composed) == presentation_key(decomposed)
    scorer = Scorer.load()
    res = scorer.score(
        references=[composed, "Le café est fermé."],
        hypotheses=[decomposed, unicodedata.normalize("NFD", "Le café est ouvert.")],
    )
    assert res.identical == (True, False) and res.scores[0] == 0.0
    reference = "The café is closed. Please send the red box to Anna."
    hypothesis = reference.replace("café", unicodedata.normalize("NFD", "café")).replace(
        "red", "blue"
    )
    (analysis,) = scorer.analyze(references=[reference], hypotheses=[hypothesis])
    gaps = analysis.segmentation.gaps
    assert [g.ref_text for g in gaps] == ["café", "red"]  # spec §1 tokens still differ
    assert [g.tier for g in analysis.gaps] == [0, 2]  # the form alone is T0 by rule
