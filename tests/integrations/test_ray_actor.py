"""The Ray actor's batch call, run directly (no Ray needed): with a gap-head checkpoint and
``explain=True`` the model runs once per batch, and the score columns equal the explanations'."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from sitar.integrations.ray import _ScoreBatch
from sitar.options import ScorerOptions
from sitar.scorer import Scorer

REFS = [
    "please send the invoice on friday",
    "turn left at the second light",
    "do not unlock the back door",
]
HYPS = [
    "please send an invoice on monday",
    "turn left at the second light",
    "do unlock the back door uh",
]


@pytest.mark.parametrize("explain", [False, True])
def test_gap_head_batch_runs_the_model_once(explain):
    options = ScorerOptions(threads=1)
    expected = Scorer.load(options)
    assert expected.head == "gaps"
    actor = _ScoreBatch(options, 8, "ref", "hyp", explain, expected.signature)
    calls = []
    analyze = actor.scorer.analyze
    actor.scorer.analyze = lambda **kw: calls.append(1) or analyze(**kw)  # type: ignore[method-assign]
    out = actor({"ref": np.asarray(REFS, dtype=object), "hyp": np.asarray(HYPS, dtype=object)})
    assert len(calls) == 1
    want = expected.score(references=REFS, hypotheses=HYPS)
    np.testing.assert_array_equal(out["raw"], np.asarray(want.raw))
    assert out["identical"].tolist() == list(want.identical)
    if explain:
        explained = [json.loads(e) for e in out["explanation"]]
        assert [e["score"] for e in explained] == pytest.approx(list(want.scores), abs=1e-12)
        for e, r, h in zip(explained, REFS, HYPS, strict=True):
            assert e == json.loads(json.dumps(expected.explain(r, h).to_dict()))
    else:
        assert "explanation" not in out
