"""The public invariance suite with the shipped checkpoint (issue #28).

Runs in the normal test command. It pins what the shipped model does today (floors, so a change
that makes it worse fails), and checks the issue's targets only when ``SITAR_INVARIANCE_GATE=1``
(the gate for a new default: ``sitar-minilm-gap-v5`` was trained on written text and does not
meet them; see experiments/normalize-default and experiments/v11-wave3).
"""

from __future__ import annotations

import os

import pytest

from benchmarks.invariance import TARGETS, run_suite, strip
from sitar import Scorer

GATE = os.environ.get("SITAR_INVARIANCE_GATE") == "1"


def test_strip_writes_recognizer_form() -> None:
    assert strip("Don't wire $300, Anna!") == "don't wire 300 anna"
    # a typographic apostrophe inside a word is kept, as a recognizer writes it
    assert strip("We haven\u2019t got \u2018the\u2019 keys.") == "we haven't got the keys"


@pytest.fixture(scope="module")
def report() -> dict:
    from pathlib import Path

    from training.evaluate_checkpoint import _load_devset

    rows = _load_devset(
        Path(__file__).resolve().parents[2] / "annotation/devset/sitar_dev_v1.jsonl"
    )
    return {
        "given": run_suite(Scorer.load(normalize="none"), rows),
        "normalized": run_suite(Scorer.load(normalize="sitar")),
    }


def test_format_pairs_make_no_gap_when_normalised(report) -> None:
    # every written-vs-spoken pair is identical after normalisation: score 0, T0 band
    assert report["normalized"]["format_t0"] == 1.0
    # as given, v5 reads a fifth of them as real changes (0.795 measured)
    assert report["given"]["format_t0"] >= 0.75


def test_flips_floor(report) -> None:
    # v5: 0.721 either way on suite version 2 (0.741 on version 1; normalisation never erases a
    # flip); a model that gets worse fails
    assert report["normalized"]["suite_version"] == 2
    assert report["normalized"]["flips_in_band"] >= 0.70
    assert report["given"]["flips_in_band"] >= 0.70


def test_slips_ceiling(report) -> None:
    # recoverable recognizer slips (expected T0, reported, not gated): v5 over-calls them, 0.864
    # of them in the T2 band normalised and 0.909 as given; a model that over-calls more fails
    assert report["normalized"]["slips_t2"] <= 0.90
    assert report["given"]["slips_t2"] <= 0.95


def test_dev_set_in_three_forms_floor(report) -> None:
    dev = report["given"]["dev"]
    assert dev["written"]["pairwise"] >= 0.985 and dev["written"]["spearman"] >= 0.985
    assert dev["mixed"]["pairwise"] >= 0.97  # 0.982 measured
    assert dev["stripped"]["pairwise"] >= 0.92  # 0.937 measured


@pytest.mark.skipif(
    not GATE, reason="the issue's targets gate a new default: SITAR_INVARIANCE_GATE=1"
)
def test_issue_targets(report) -> None:
    dev = report["given"]["dev"]
    for form in ("stripped", "mixed"):
        for metric in ("pairwise", "spearman"):
            assert dev["written"][metric] - dev[form][metric] <= TARGETS["dev_delta"], (
                form,
                metric,
            )
        assert dev[form]["moved_share"] <= TARGETS["dev_moved_share"], form
        assert dev[form]["max_move"] <= TARGETS["dev_max_move"], form
    assert report["given"]["format_t0"] >= TARGETS["format_t0"]
    assert report["normalized"]["flips_in_band"] >= TARGETS["flips_in_band"]
