"""Shared fixtures for the diagnostics tests: a model-free score double, the tiny ONNX scorer,
and a small two-system corpus where system B is system A plus negation flips."""

from __future__ import annotations

import html as html_lib
import itertools
import json
import os
import re
import shutil
import subprocess
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


_CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
]

# Installed first in <head>: records script errors and every alert/confirm/prompt call, so that an
# injected script that runs is seen even when it does nothing visible.
_WATCH = (
    "<script>window.__errs=[];window.__alerts=[];window.addEventListener('error',"
    "function(e){window.__errs.push(String(e.message));});"
    "window.alert=window.confirm=window.prompt=function(m){window.__alerts.push(String(m));};"
    "</script>"
)


@pytest.fixture
def run_chromium(chromium, tmp_path):
    """``run_chromium(*args)``: headless Chromium with a fresh profile; the CompletedProcess."""
    profiles = itertools.count()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        profile = tmp_path / f"profile{next(profiles)}"
        return subprocess.run(
            [chromium, *_CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    return run


@pytest.fixture
def browser_probe(run_chromium, tmp_path):
    """``browser_probe(page, probe_js) -> dict``: load ``page`` in headless Chromium, run
    ``probe_js`` (a function body that returns a JSON-able object) after the page's own scripts,
    and return that object plus ``errors`` (script errors) and ``alerts`` (alert/confirm/prompt
    calls). Fails on a non-zero exit and on any console line (the report logs nothing)."""
    pages = itertools.count()

    def probe(page: str, probe_js: str) -> dict:
        script = (
            "<script>(function () { var res = (function () {" + probe_js + "})();"
            "res.errors = window.__errs; res.alerts = window.__alerts;"
            "var pre = document.createElement('pre'); pre.id = 'probe-result';"
            "pre.textContent = JSON.stringify(res); document.body.appendChild(pre); })();</script>"
        )
        assert page.count("<head>") >= 1 and "</body>" in page
        head = page.index("<head>") + len("<head>")
        body_end = page.rindex("</body>")
        wrapped = page[:head] + _WATCH + page[head:body_end] + script + page[body_end:]
        path = tmp_path / f"probe{next(pages)}.html"
        path.write_text(wrapped, encoding="utf-8")
        run = run_chromium("--dump-dom", path.as_uri())
        assert run.returncode == 0, run.stderr[-2000:]
        console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
        assert console == [], console  # the page logs nothing; any console line is an error
        match = re.search(r"<pre id=\"probe-result\">(.*?)</pre>", run.stdout, re.S)
        assert match, run.stdout[-2000:]
        return json.loads(html_lib.unescape(match.group(1)))

    return probe
