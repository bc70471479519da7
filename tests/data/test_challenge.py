"""The public challenge file (annotation/challenge, issue #12): well-formed, kept out of every
training source, and scored by its evaluation script.

The gate "the shipped model puts >= 95 % of the cases in their band" runs only with
``SITAR_CHALLENGE_GATE=1`` (it needs the packaged checkpoint and onnxruntime, and no shipped model
meets it yet).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

from annotation.challenge import (
    CATEGORIES,
    CHALLENGE_FILE,
    POSITIONS,
    SCOPE_CATEGORIES,
    SCOPE_FILE,
    band_of,
    load_challenge,
)
from annotation.challenge.evaluate import evaluate, wer
from sitar.errors import InputError
from sitar.text import tokenize

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "annotation" / "sources"
SLOT = re.compile(r"\{[a-z_0-9]+\}")


def _key(text: str) -> tuple[str, ...]:
    return tuple(t.norm for t in tokenize(text))


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_file_is_well_formed() -> None:
    items = load_challenge()
    assert len(items) >= 150
    assert len({it.id for it in items}) == len(items)
    assert len({(it.reference, it.hypothesis) for it in items}) == len(items)
    per_category = Counter(it.category for it in items)
    assert set(per_category) == set(CATEGORIES)
    assert min(per_category.values()) >= 15
    for it in items:
        assert _key(it.reference) != _key(it.hypothesis), it.id  # a real gap to judge
        assert it.band == band_of(it.expected)
        assert it.reason and len(it.reason.splitlines()) == 1
        assert it.source.startswith("hand:")
    # every tier is represented, and T0 cases are not a minority of the rewordings
    assert {it.expected for it in items} >= {"T0", "T1", "T2"}
    assert Counter(it.expected for it in items if it.category == "rewording")["T0"] >= 20


def test_scope_file_is_well_formed_and_separate() -> None:
    """The quantifier/frequency scope file: its own categories, every tier, T0 rewordings of the
    same quantity, and no case shared with the main file."""
    items = load_challenge(SCOPE_FILE)
    assert len(items) >= 40
    per_category = Counter(it.category for it in items)
    assert set(per_category) == set(SCOPE_CATEGORIES) and min(per_category.values()) >= 10
    assert {it.expected for it in items} >= {"T0", "T1", "T2"}
    assert {it.expected for it in items if it.category == "scope_rewording"} == {"T0"}
    for it in items:
        assert _key(it.reference) != _key(it.hypothesis), it.id
        assert it.reason and it.source.startswith("hand:")
    main = {(_key(it.reference), _key(it.hypothesis)) for it in load_challenge()}
    assert not main & {(_key(it.reference), _key(it.hypothesis)) for it in items}


def test_bands_follow_spec_section_5() -> None:
    assert band_of("T0") == (Fraction(0), Fraction(1, 7))
    assert band_of("T1") == (Fraction(3, 7), Fraction(4, 7))
    assert band_of("T2") == (Fraction(6, 7), Fraction(1))
    assert band_of("T0->T1") == (Fraction(1, 7), Fraction(2, 7))
    assert set(POSITIONS) == {"T0", "T0->T1", "T1->T0", "T1", "T1->T2", "T2->T1", "T2"}
    with pytest.raises(InputError, match="expected must be one of"):
        band_of("T3")


def _training_texts() -> tuple[set[tuple[str, ...]], set[tuple[tuple[str, ...], tuple[str, ...]]]]:
    """Texts of every generator source (pool, short commands, templates as word patterns,
    rewrites and their flips) and every (reference, hypothesis) pair of those sources and of the
    public dev set, as normalised token tuples."""
    texts: set[tuple[str, ...]] = set()
    pairs: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for path in [*sorted((SOURCES / "pool").glob("*.jsonl")), *(SOURCES / "short").glob("*.jsonl")]:
        texts.update(_key(d["text"]) for d in _jsonl(path))
    for path in sorted((SOURCES / "rewrites").glob("*.jsonl")):
        for d in _jsonl(path):
            ref, rw = _key(d["reference"]), _key(d["rewrite"])
            texts.update((ref, rw))
            pairs.add((ref, rw))
            if d.get("flip"):
                flipped = _key(d["rewrite"].replace(d["flip"]["old"], d["flip"]["new"], 1))
                texts.add(flipped)
                pairs.update({(ref, flipped), (rw, flipped)})
    dev = ROOT / "annotation" / "devset"
    for d in _jsonl(dev / "sitar_dev_v1.jsonl"):
        texts.add(_key(d["reference"]))
        pairs.add((_key(d["reference"]), _key(d["hypothesis"])))
    return texts, pairs


def _template_patterns() -> list[re.Pattern[str]]:
    out = []
    for path in sorted(SOURCES.glob("templates*.jsonl")):
        for d in _jsonl(path):
            parts = SLOT.split(d["template"])
            words = [" ".join(_key(p)) for p in parts]
            out.append(re.compile("^" + r"(?: .+ |.*)".join(re.escape(w) for w in words) + "$"))
    return out


def test_no_overlap_with_training_sources_or_the_dev_set() -> None:
    texts, pairs = _training_texts()
    assert len(texts) > 1500 and len(pairs) > 500  # the sources were found
    patterns = _template_patterns()
    for it in [*load_challenge(), *load_challenge(SCOPE_FILE)]:
        ref, hyp = _key(it.reference), _key(it.hypothesis)
        assert (ref, hyp) not in pairs, it.id
        assert ref not in texts and hyp not in texts, it.id
        line = " ".join(ref)
        assert not any(p.match(line) for p in patterns), it.id


def test_overlap_check_can_fail(tmp_path: Path) -> None:
    """The overlap test would see a pool sentence used as a challenge reference."""
    texts, _ = _training_texts()
    pool = _jsonl(sorted((SOURCES / "pool").glob("*.jsonl"))[0])[0]["text"]
    assert _key(pool) in texts
    short = _jsonl(SOURCES / "short" / "commands.jsonl")[0]["text"]
    assert _key(short.upper()) in texts


def _write(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _row(**kw: str) -> dict:
    row = {
        "id": "x-1", "category": "direction", "reference": "Turn left.", "hypothesis": "Turn right.",
        "expected": "T2", "band": ["6/7", "1"], "reason": "opposite way", "source": "hand:test",
    }  # fmt: skip
    row.update(kw)
    return row


def test_loader_rejects_malformed_cases(tmp_path: Path) -> None:
    assert len(load_challenge(_write(tmp_path, [_row()]))) == 1
    bad = [
        ([_row(band=["0", "1/7"])], "is not the band"),
        ([_row(category="colour")], "unknown category"),
        ([_row(), _row(id="x-2")], "duplicate"),
        ([_row(hypothesis="Turn left.")], "equals the reference"),
        ([{k: v for k, v in _row().items() if k != "reason"}], "fields"),
        ([_row(reason="")], "non-empty"),
    ]
    for rows, message in bad:
        with pytest.raises(InputError, match=message):
            load_challenge(_write(tmp_path, rows))
    with pytest.raises(InputError, match="not found"):
        load_challenge(tmp_path / "missing.jsonl")


class _FakeScorer:
    """Scores each pair with a fixed function of its expected band."""

    def __init__(self, items, pick) -> None:
        self.by_pair = {(it.reference, it.hypothesis): pick(it) for it in items}

    def score(self, *, references, hypotheses, batch_size=32):
        scores = [self.by_pair[(r, h)] for r, h in zip(references, hypotheses, strict=True)]
        return SimpleNamespace(scores=scores, signature="fake")


def test_evaluate_counts_band_hits_and_orderings() -> None:
    items = load_challenge()
    middle = _FakeScorer(items, lambda it: float(sum(it.band) / 2))
    report = evaluate(middle, items)
    overall = report["per_category"]["overall"]
    assert overall["n"] == len(items) and overall["in_band"] == 1.0 and overall["in_region"] == 1.0
    assert overall["sitar_pair_order"] == 1.0 and overall["ordered_pairs"] > 0
    zero = evaluate(_FakeScorer(items, lambda it: 0.0), items)["per_category"]
    n_t0 = sum(1 for it in items if it.expected == "T0")
    assert zero["overall"]["in_band"] == pytest.approx(n_t0 / len(items))
    assert zero["overall"]["sitar_pair_order"] == 0.5  # all ties
    # just below the band's upper end is in, the upper end itself is out
    edge = evaluate(_FakeScorer(items, lambda it: float(it.band[1]) - 1e-9), items)
    assert edge["per_category"]["overall"]["in_band"] == 1.0
    below_t2 = [it for it in items if it.expected != "T2"]
    over = evaluate(_FakeScorer(below_t2, lambda it: float(it.band[1])), below_t2)
    assert over["per_category"]["overall"]["in_band"] == 0.0
    scope = load_challenge(SCOPE_FILE)
    t0_only = evaluate(_FakeScorer(scope, lambda it: 0.0), scope)["per_category"]
    assert set(t0_only) == {*SCOPE_CATEGORIES, "overall"}  # the scope categories are reported
    assert t0_only["scope_rewording"]["in_band"] == 1.0 and t0_only["frequency"]["in_band"] == 0.0


def test_wer_baseline() -> None:
    assert wer("turn left now", "turn right now") == pytest.approx(1 / 3)
    assert wer("Turn left.", "turn left") == 0.0
    assert wer("", "hello there") == 2.0


@pytest.mark.skipif(
    os.environ.get("SITAR_CHALLENGE_GATE") != "1",
    reason="gate on the shipped model; set SITAR_CHALLENGE_GATE=1 to run it",
)
def test_shipped_model_puts_95_percent_in_band() -> None:
    pytest.importorskip("onnxruntime")
    from sitar import Scorer

    report = evaluate(Scorer.load(), load_challenge(CHALLENGE_FILE))
    overall = report["per_category"]["overall"]
    misses = [r["id"] for r in report["items"] if not r["in_band"]]
    assert overall["in_band"] >= 0.95, (overall, misses)


def test_the_report_names_the_file_it_scored(tmp_path: Path, capsys) -> None:
    pytest.importorskip("onnxruntime")
    from annotation.challenge.evaluate import main
    from sitar.integrity import sha256_file

    small = tmp_path / "two.jsonl"
    small.write_text("".join(CHALLENGE_FILE.read_text("utf-8").splitlines(True)[:2]), "utf-8")
    out = tmp_path / "report.json"
    assert main(["--file", str(small), "--json", str(out)]) == 0
    report = json.loads(out.read_text("utf-8"))
    assert report["file"] == {"name": "two.jsonl", "sha256": sha256_file(small)}
    assert len(report["items"]) == 2
    assert f"file: two.jsonl (sha256 {sha256_file(small)[:12]})" in capsys.readouterr().out
