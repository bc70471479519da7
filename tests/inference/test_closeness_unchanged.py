"""Checkpoints without closeness features (spec §7b [C], sitar.closeness) score as before: the
shipped ``sitar-minilm-gap-v5`` gets the raw scores pinned at commit 9ccab60, before the features
existed (bit-identical there on this machine), the same signature without ``feat:``, and its encoder
computes no features."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitar.checkpoint import CheckpointConfig
from sitar.scorer import Scorer
from sitar.signature import parse_signature

SHIPPED = Path(__file__).resolve().parents[2] / "checkpoints" / "sitar-minilm-gap-v5"

# (reference, hypothesis, raw score at 9ccab60)
PINNED = [
    ("I need four copies by noon.", "i need for copies by noon", 2.0241509108325295),
    (
        "The lab results were collected on Monday.",
        "the lab results were connected on monday",
        2.00470839590078,
    ),
    ("Turn left at the bank.", "turn right at the bank", 1.372675409532643),
    ("Please call the doctor tomorrow.", "please call the office tomorrow", 1.678689506131706),
    ("We will meet at three.", "we will uh meet at three", 0.007577368874130054),
    ("Do not cancel the order.", "do cancel the order", 2.02278779019363),
    ("book a table for two", "book table for two people", 1.0518302481144923),
    ("call me later", "call me", 1.355578959300356),
]
SIGNATURE = (
    "spec:1|tok:1|bw:1|analyzer:lexicon-1+lemminflect-0.2.3|rho:0.5|ckpt:sitar-minilm-gap-v5@f7b09939"
    "|onnx:int8row|head:gaps|mark:1|tb:3|win:1"
)


def test_v5_scores_as_before_the_closeness_features():
    config = CheckpointConfig.load(SHIPPED)
    assert "gap_closeness" not in config.onnx.inputs and "closeness" not in config.extra
    scorer = Scorer.load(SHIPPED)
    assert scorer.encoder.closeness is False
    result = scorer.score(references=[p[0] for p in PINNED], hypotheses=[p[1] for p in PINNED])
    assert list(result.raw) == pytest.approx([p[2] for p in PINNED], abs=1e-6)
    assert "feat" not in parse_signature(result.signature)
    assert result.signature.split("|", 1)[1] == SIGNATURE


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("closeness", 5, "'closeness' must be an object"),
        ("closeness", {"features": ["char"]}, "closeness.version"),
        ("head", {"gap_head": True, "gap_closeness": "yes"}, "head.gap_closeness"),
    ],
)
def test_malformed_closeness_config_is_refused(key, value, message):
    import json

    from sitar.errors import CheckpointError

    data = json.loads((SHIPPED / "sitar_config.json").read_text(encoding="utf-8"))
    data[key] = value
    with pytest.raises(CheckpointError, match=message):
        CheckpointConfig.from_dict(data)
