"""``sitar.metric.compute``: the metric-function interface (issue #32 item 1)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import sitar
from sitar import metric
from sitar.errors import InputError
from sitar.scorer import Scorer

ROOT = Path(__file__).resolve().parents[2]
REFS = ["turn left at the bank", "the meeting is at five", "send two hundred dollars"]
HYPS = ["turn right at the bank", "the meeting is at nine", "send two hundred dollars"]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_compute_equals_the_scorer_on_the_same_pairs():
    out = metric.compute(predictions=HYPS, references=REFS)
    result = Scorer.load().score(references=REFS, hypotheses=HYPS)
    assert out["score"] == result.system_score
    assert out["scores"] == list(result.scores)
    assert out["swer"] == result.system_swer
    assert out["swers"] == list(result.swer)
    assert out["swer_version"] == result.swer_version
    assert out["signature"] == result.signature
    assert set(out) == {"score", "scores", "swer", "swers", "swer_version", "signature"}
    assert out["scores"][2] == 0.0 and out["scores"][0] > 0.0  # hypotheses are the predictions


def test_options_reach_the_scorer_and_the_signature():
    out = metric.compute(predictions=HYPS, references=REFS, head="pair", normalize="sitar")
    assert "head:pair" in out["signature"] and "norm:" in out["signature"]
    assert "swer" not in out and "swers" not in out  # the pair head has no gap tiers
    expected = Scorer.load(head="pair", normalize="sitar").score(references=REFS, hypotheses=HYPS)
    assert out["scores"] == list(expected.scores)


def test_zero_pairs_give_nan_corpus_values():
    out = metric.compute(predictions=[], references=[])
    assert math.isnan(out["score"]) and math.isnan(out["swer"])
    assert out["scores"] == [] and out["swers"] == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"predictions": "turn right", "references": ["turn left"]}, "predictions must be a list"),
        ({"predictions": ["turn right"], "references": None}, "references must be a list"),
        ({"predictions": ["a", 3], "references": ["a", "b"]}, r"predictions\[1\] must be a str"),
        ({"predictions": ["a"], "references": [b"a"]}, r"references\[0\] must be a str"),
        ({"predictions": ["a", "b"], "references": ["a"]}, "2 predictions and 1 references"),
    ],
)
def test_bad_inputs_are_input_errors(kwargs, message):
    with pytest.raises(InputError, match=message):
        metric.compute(**kwargs)


def test_a_bad_batch_size_is_an_input_error():
    with pytest.raises(InputError, match="batch_size must be a positive integer"):
        metric.compute(predictions=HYPS, references=REFS, batch_size=0)


def test_inputs_are_keyword_only():
    with pytest.raises(TypeError):
        metric.compute(HYPS, REFS)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"heads": "pair"}, r"unknown scorer option\(s\) \['heads'\]"),
        ({"threads": 0}, "threads must be a positive integer"),
        ({"normalize": "nfc"}, "normalize must be one of"),
    ],
)
def test_bad_options_are_input_errors_before_loading(options, message, monkeypatch):
    def no_load(*args, **kwargs):
        raise AssertionError("a model was loaded for bad options")

    monkeypatch.setattr(Scorer, "load", no_load)
    with pytest.raises(InputError, match=message):
        metric.compute(predictions=["a"], references=["b"], **options)


def test_scorers_are_cached_per_options(monkeypatch):
    metric.clear_cache()
    loads = []
    real = Scorer.from_options

    def counting(options):
        loads.append(options)
        return real(options)

    monkeypatch.setattr(Scorer, "from_options", counting)
    first = metric.load_scorer()
    assert metric.load_scorer() is first
    metric.compute(predictions=HYPS, references=REFS)
    assert len(loads) == 1
    other = metric.load_scorer(head="pair")
    assert other is not first and len(loads) == 2
    assert metric.load_scorer(head="pair") is other and len(loads) == 2


def test_the_cache_is_bounded_least_recently_used_first_out(monkeypatch):
    metric.clear_cache()
    monkeypatch.setattr(metric, "CACHE_SIZE", 2)
    monkeypatch.setattr(Scorer, "from_options", classmethod(lambda cls, options: object()))
    a = metric.load_scorer(threads=1)
    b = metric.load_scorer(threads=2)
    assert metric.load_scorer(threads=1) is a  # a is now the most recent
    metric.load_scorer(threads=3)  # evicts b
    assert metric.load_scorer(threads=1) is a
    assert metric.load_scorer(threads=2) is not b
    metric.clear_cache()


def test_unhashable_options_load_without_the_cache(monkeypatch):
    class Unhashable:
        __hash__ = None  # type: ignore[assignment]
        id = "unhashable"

    loads = []
    monkeypatch.setattr(
        Scorer, "from_options", classmethod(lambda cls, options: loads.append(options) or object())
    )
    metric.load_scorer(analyzer=Unhashable())
    metric.load_scorer(analyzer=Unhashable())
    assert len(loads) == 2


def test_import_sitar_stays_light_and_exports_metric_lazily():
    code = (
        "import sys, json, sitar;"
        "before = [m for m in ('sitar.metric', 'onnxruntime', 'torch', 'transformers') "
        "if m in sys.modules];"
        "f = sitar.metric.compute;"
        "after = [m for m in ('onnxruntime', 'torch', 'transformers') if m in sys.modules];"
        "print(json.dumps([before, after, 'metric' in sitar.__all__]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert json.loads(out) == [[], [], True]
    assert sitar.metric is metric
