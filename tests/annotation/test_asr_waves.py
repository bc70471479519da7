"""The hand-written recognizer inputs of issue 31, item 2: ``annotation/asr/references-w3.jsonl``
(900 references), ``annotation/asr/references-w4.jsonl`` (1,100) and
``annotation/asr/systems-w3.json`` (the built-in systems plus three new ones). Offline; nothing is
decoded."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from annotation.asr.corpus import load_external_references
from annotation.asr.severity import check_references, known_texts, normalise
from annotation.asr.systems import DEFAULT_SYSTEMS, load_systems

ROOT = Path(__file__).resolve().parents[2]
ASR = ROOT / "annotation" / "asr"
SYSTEMS = ASR / "systems-w3.json"
#: wave -> (references, the domains, the fewest per domain, the fewest of 2-6 and of >= 41 words)
WAVES = {
    "w3": (900, {
        "call_centre", "meetings_work", "healthcare_admin", "finance", "travel_bookings",
        "announcements", "sports_culture", "factual", "everyday", "assistant",
    }, 85, 100, 70),
    "w4": (1100, {
        "logistics_delivery", "legal_insurance", "education_school", "tech_support",
        "home_repairs", "public_services", "retail_orders", "safety_instructions", "science_lab",
        "news_reports", "personal_messages",
    }, 100, 120, 130),
}  # fmt: skip


def _rows(wave: str) -> list[dict[str, str]]:
    text = (ASR / f"references-{wave}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_w3_systems_hold_the_builtins_and_three_new_ones() -> None:
    systems = load_systems(SYSTEMS)
    assert tuple(systems[: len(DEFAULT_SYSTEMS)]) == tuple(DEFAULT_SYSTEMS)
    new = systems[len(DEFAULT_SYSTEMS) :]
    assert [s.id for s in new] == ["g-rp-f5-snr25", "h-f2-fast-lw10", "i-m1-slow-lw4"]
    builtin = [s.to_dict() | {"id": ""} for s in DEFAULT_SYSTEMS]
    for s in new:  # each differs from every built-in in settings, not just in name
        assert s.to_dict() | {"id": ""} not in builtin
        assert s.voice not in {b.voice for b in DEFAULT_SYSTEMS}


@pytest.mark.parametrize("wave", sorted(WAVES))
def test_references_load_for_build_and_keep_their_shape(wave: str) -> None:
    n, domains, per_domain_min, short_min, long_min = WAVES[wave]
    refs, digest = load_external_references(ASR / f"references-{wave}.jsonl", known=set(), fold=5)
    assert len(refs) == n and len(digest) == 64
    rows = _rows(wave)
    assert [r["id"] for r in rows] == [f"{wave}-{k:04d}" for k in range(1, n + 1)]
    per_domain = Counter(r["domain"] for r in rows)
    assert set(per_domain) == domains
    assert min(per_domain.values()) >= per_domain_min
    lengths = [len(r["text"].split()) for r in rows]
    assert min(lengths) >= 2 and max(lengths) <= 60
    assert sum(n <= 6 for n in lengths) >= short_min and sum(n >= 41 for n in lengths) >= long_min
    norms = [normalise(r["text"]) for r in rows]
    assert len(set(norms)) == len(norms)


def test_waves_share_no_reference() -> None:
    norms = [normalise(r["text"]) for wave in WAVES for r in _rows(wave)]
    assert len(set(norms)) == len(norms)


@pytest.mark.slow
@pytest.mark.parametrize("wave", sorted(WAVES))
def test_references_are_not_close_to_any_training_or_evaluation_text(wave: str, tmp_path) -> None:
    sources = [
        ROOT / "annotation" / d
        for d in ("sources", "devset", "ab", "challenge", "asr/labels", "asr/labels-v2")
    ] + [ROOT / "benchmarks" / "severity", ROOT / "benchmarks" / "invariance"]
    for other in WAVES:  # each wave is also checked against the earlier ones
        if other < wave:
            (tmp_path / other).mkdir()
            (tmp_path / other / f"references-{other}.jsonl").write_bytes(
                (ASR / f"references-{other}.jsonl").read_bytes()
            )
            sources.append(tmp_path / other)
    texts, patterns, _ = known_texts(sources)
    assert check_references(_rows(wave), texts, patterns, threshold=85.0) == []
