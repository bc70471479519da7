"""Shared fixtures for the diagnostics tests: a model-free score double, the tiny ONNX scorer,
and a small two-system corpus where system B is system A plus negation flips."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from sitar.text import tokenize

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx"
NEGATIONS = frozenset({"not", "no", "never", "dont", "doesnt", "didnt"})


class StubAnalyzer:
    """Deterministic CGD analyzer: no token is a predicate, so consolidation depends only on
    fragments and boundaries. It also keeps these tests from importing the default lexicon
    analyzer (lemminflect pulls in spaCy and torch, seconds of import time)."""

    id = "stub-test"

    def predicates(self, text, tokens):
        return frozenset()


class FakePredict:
    """A deterministic ``predict_fn`` double that counts its calls.

    Normalised score of a pair: 0 when the normalised tokens are equal; 0.9 (T2) when the token
    multisets differ by a negation word; else 0.3 (raw 0.7: a T1 gap at its T0 boundary), plus
    0.01 per extra differing token so that multi-gap pairs score a little higher.
    """

    def __init__(self) -> None:
        self.calls: list[int] = []
        #: explain_many uses a source's ``analyzer`` attribute for CGD, as for a Scorer.
        self.analyzer = StubAnalyzer()

    def __call__(self, references, hypotheses):
        self.calls.append(len(references))
        out = []
        for r, h in zip(references, hypotheses, strict=True):
            rt = [t.norm for t in tokenize(r)]
            ht = [t.norm for t in tokenize(h)]
            if rt == ht:
                out.append(0.0)
                continue
            diff = set(rt) ^ set(ht)
            base = 0.9 if diff & NEGATIONS else 0.3
            out.append(min(0.99, base + 0.01 * max(0, len(diff) - 1)))
        return np.asarray(out)


@pytest.fixture
def stub_analyzer() -> StubAnalyzer:
    return StubAnalyzer()


@pytest.fixture
def fake_predict() -> FakePredict:
    return FakePredict()


@pytest.fixture(scope="session")
def tiny_scorer():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    from sitar.scorer import Scorer

    return Scorer.load(TINY, variant="fp32", analyzer=StubAnalyzer())


_SUBJECTS = ["the client", "the team", "the doctor", "the customer", "the bank"]
_VERBS = [
    "will send the report",
    "can pay the invoice",
    "should call the office",
    "will book the flight",
    "can open the account",
    "must check the order",
    "would cancel the meeting",
    "will move the car",
]
_TIMES = ["today", "tomorrow", "on friday", "next week", "this morning"]


def negation_corpus(n: int = 40) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """References, system A (a few article errors) and system B = A with "not" inserted after
    the modal in 30 % of the utterances (ids u01...)."""
    refs: dict[str, str] = {}
    k = 0
    for subject in _SUBJECTS:
        for verb in _VERBS:
            if k < n:
                refs[f"u{k + 1:02d}"] = f"{subject} {verb} {_TIMES[k % len(_TIMES)]}"
            k += 1
    a: dict[str, str] = {}
    b: dict[str, str] = {}
    for i, (utt, ref) in enumerate(refs.items()):
        hyp = ref.replace("the report", "a report") if i % 5 == 1 else ref
        a[utt] = hyp
        if i % 10 in (0, 3, 6):
            words = hyp.split()
            words.insert(3, "not")
            b[utt] = " ".join(words)
        else:
            b[utt] = hyp
    return refs, a, b


@pytest.fixture
def corpus():
    return negation_corpus()


@pytest.fixture(scope="session")
def artifact_dir(tmp_path_factory) -> Path:
    """Where screenshots go: $SITAR_TEST_ARTIFACTS if set (CI uploads it), else a pytest temp
    folder (kept for the last runs by pytest); never the git tree."""
    env = os.environ.get("SITAR_TEST_ARTIFACTS")
    path = Path(env) if env else tmp_path_factory.mktemp("artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture
def chromium() -> str:
    binary = chromium_binary()
    if binary is None:
        pytest.skip(
            "headless Chromium is not installed (Debian: apt-get install -y chromium "
            "chromium-driver); the browser check of the HTML report is skipped"
        )
    return binary
