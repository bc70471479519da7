"""The wave-3 recognizer inputs (issue 31, item 2): ``annotation/asr/references-w3.jsonl`` (900
hand-written references) and ``annotation/asr/systems-w3.json`` (the built-in systems plus three
new ones). Offline; nothing is decoded."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from annotation.asr.corpus import load_external_references
from annotation.asr.severity import check_references, known_texts, normalise
from annotation.asr.systems import DEFAULT_SYSTEMS, load_systems

ROOT = Path(__file__).resolve().parents[2]
REFERENCES = ROOT / "annotation" / "asr" / "references-w3.jsonl"
SYSTEMS = ROOT / "annotation" / "asr" / "systems-w3.json"
DOMAINS = {
    "call_centre", "meetings_work", "healthcare_admin", "finance", "travel_bookings",
    "announcements", "sports_culture", "factual", "everyday", "assistant",
}  # fmt: skip


def _rows() -> list[dict[str, str]]:
    return [json.loads(line) for line in REFERENCES.read_text(encoding="utf-8").splitlines()]


def test_w3_systems_hold_the_builtins_and_three_new_ones() -> None:
    systems = load_systems(SYSTEMS)
    assert tuple(systems[: len(DEFAULT_SYSTEMS)]) == tuple(DEFAULT_SYSTEMS)
    new = systems[len(DEFAULT_SYSTEMS) :]
    assert [s.id for s in new] == ["g-rp-f5-snr25", "h-f2-fast-lw10", "i-m1-slow-lw4"]
    builtin = [s.to_dict() | {"id": ""} for s in DEFAULT_SYSTEMS]
    for s in new:  # each differs from every built-in in settings, not just in name
        assert s.to_dict() | {"id": ""} not in builtin
        assert s.voice not in {b.voice for b in DEFAULT_SYSTEMS}


def test_w3_references_load_for_build_and_keep_their_shape() -> None:
    refs, digest = load_external_references(REFERENCES, known=set(), fold=5)
    assert len(refs) == 900 and len(digest) == 64
    rows = _rows()
    assert [r["id"] for r in rows] == [f"w3-{k:04d}" for k in range(1, 901)]
    per_domain = Counter(r["domain"] for r in rows)
    assert set(per_domain) == DOMAINS
    assert min(per_domain.values()) >= 85
    lengths = [len(r["text"].split()) for r in rows]
    assert min(lengths) >= 2 and max(lengths) <= 60
    assert sum(n <= 6 for n in lengths) >= 100 and sum(n >= 46 for n in lengths) >= 70
    norms = [normalise(r["text"]) for r in rows]
    assert len(set(norms)) == len(norms)


@pytest.mark.slow
def test_w3_references_are_not_close_to_any_training_or_evaluation_text() -> None:
    sources = [
        ROOT / "annotation" / d
        for d in ("sources", "devset", "ab", "challenge", "asr/labels", "asr/labels-v2")
    ] + [ROOT / "benchmarks" / "severity", ROOT / "benchmarks" / "invariance"]
    texts, patterns, _ = known_texts(sources)
    assert check_references(_rows(), texts, patterns, threshold=85.0) == []
