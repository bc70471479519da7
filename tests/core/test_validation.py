"""The one text check (sitar.validation), shared by the CLI, the API and the service: a lone
surrogate (valid JSON, ``"\\ud800"``) is a typed InputError everywhere, never the tokenizer's
TypeError (issue #30)."""

from __future__ import annotations

import pytest

from sitar import io, validation
from sitar.errors import InputError
from sitar.validation import check_pairs, check_text

TINY = "tests/fixtures/tiny_onnx"
BAD = ["a\ud800", "\udfff", "ok \ud83d then"]


@pytest.fixture(scope="module")
def scorer():
    from sitar.scorer import Scorer

    return Scorer.load(TINY, variant="fp32")


@pytest.mark.parametrize("text", BAD)
def test_check_text_refuses_lone_surrogates(text):
    with pytest.raises(
        InputError, match=r"references\[0\]: not valid Unicode \(lone surrogate U\+D"
    ):
        check_pairs([text], ["b"])
    with pytest.raises(InputError, match="lone surrogate"):
        check_text(text, "x")


def test_every_other_string_is_taken():
    texts = ["a\x00b", "\ufffe\uffff", "\U0010ffff", "e\u0301", "", "\t\r\n", "👍\ufe0f"]
    assert check_pairs(texts, texts) == (texts, texts)
    with pytest.raises(InputError, match="references must be a list of str, got generator"):
        check_pairs((t for t in texts), texts)


def test_the_cli_reader_uses_the_same_check():
    assert io.check_text is validation.check_text


@pytest.mark.parametrize("text", BAD)
def test_scorer_score_and_explain_raise_input_error(scorer, text):
    with pytest.raises(InputError, match=r"hypotheses\[1\]: not valid Unicode"):
        scorer.score(references=["a", "b"], hypotheses=["a", text])
    with pytest.raises(InputError, match="reference: not valid Unicode"):
        scorer.explain(text, "b")
    with pytest.raises(InputError, match="lone surrogate"):
        scorer.encoder.encode([text], ["b"])
    # a NUL and other odd characters are scored, not refused
    assert len(scorer.score(references=["a\x00b"], hypotheses=["a b"]).scores) == 1
