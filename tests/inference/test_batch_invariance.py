"""SPEC §7b: a pair's score depends only on the pair and the checkpoint. Every ONNX variant of the
shipped checkpoint scores the public dev set identically (|Δ| <= 1e-6) at batch sizes 1, 8, 32 and
128 and in a shuffled order, with the default and the opt-in median decoding. (benchmarks/bench_gap_scoring.py runs the same check on 1,000
synthetic pairs.)"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from sitar.checkpoint import CheckpointConfig, default_checkpoint_path
from sitar.scorer import Scorer

DEVSET = Path(__file__).resolve().parents[2] / "annotation" / "devset" / "sitar_dev_v1.jsonl"


def _devset() -> tuple[list[str], list[str]]:
    rows = [json.loads(x) for x in DEVSET.read_text(encoding="utf-8").splitlines() if x.strip()]
    return [r["reference"] for r in rows], [r["hypothesis"] for r in rows]


@pytest.mark.parametrize("decode", ["mean", "median"])
@pytest.mark.parametrize("variant", CheckpointConfig.load(default_checkpoint_path()).onnx.available)
def test_shipped_scores_do_not_depend_on_the_batch(variant, decode):
    refs, hyps = _devset()
    scorer = Scorer.load(variant=variant, decode=decode)
    base = np.array(scorer.score(references=refs, hypotheses=hyps, batch_size=1).raw)
    for batch_size in (8, 32, 128):
        got = np.array(scorer.score(references=refs, hypotheses=hyps, batch_size=batch_size).raw)
        assert np.max(np.abs(got - base)) <= 1e-6, (variant, batch_size)
    order = list(range(len(refs)))
    random.Random(3).shuffle(order)
    got = scorer.score(
        references=[refs[i] for i in order], hypotheses=[hyps[i] for i in order], batch_size=32
    ).raw
    assert np.max(np.abs(np.array(got) - base[order])) <= 1e-6, (variant, "shuffled")
