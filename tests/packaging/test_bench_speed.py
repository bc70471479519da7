"""``python -m benchmarks speed``: its pairs and its code path on a few pairs (structure, not
timings: the machine is shared, and the numbers are the benchmark's business)."""

from __future__ import annotations

import json

import pytest

from benchmarks import bench_speed
from benchmarks.pairs import recognizer_pairs


def test_recognizer_pairs_are_a_seeded_sample_of_distinct_real_pairs():
    refs, hyps = recognizer_pairs(1024, 31)
    assert len(refs) == len(hyps) == 1024
    assert len(set(zip(refs, hyps, strict=True))) == 1024  # no repeats
    assert (refs, hyps) == recognizer_pairs(1024, 31)
    assert (refs, hyps) != recognizer_pairs(1024, 32)
    # written references from the severity items: digits and punctuation as typed
    assert any(any(c.isdigit() for c in r) for r in refs)
    with pytest.raises(SystemExit, match="only 1724 distinct"):
        recognizer_pairs(1725, 31)


def test_a_tiny_run_reports_every_task_and_both_targets(tmp_path, tiny_backbones, capsys):
    encoder = tiny_backbones("deberta-v3")  # the baseline tests' tiny encoder
    out = tmp_path / "speed.json"
    argv = ["--n", "8", "--rounds", "1", "--encoder", str(encoder), "--json", str(out)]
    assert bench_speed.main(argv) == 0
    data = json.loads(out.read_text())
    assert data["benchmark"] == "speed" and data["n"] == 8 and data["rounds"] == 1
    assert data["threads"] == 2 and data["seed"] == 31 and data["provenance"]["versions"]
    # the packaged default is scored as written; normalize="sitar" is timed beside it
    assert data["default_normalize"] == "none"
    assert set(data["tasks"]) == {"sitar", "sitar-normalize-sitar", "bertscore", "normalizer"}
    assert "norm:" in data["signatures"]["sitar"] and "norm:" not in data["signatures"]["none"]
    for task in data["tasks"].values():
        assert len(task["seconds"]) == len(task["cpu_seconds"]) == len(task["pairs_per_s"]) == 1
    for key in ("ratio_sitar_vs_bertscore", "normalizer_share_of_score"):
        assert data[key] == data["per_round"][key][0] > 0
    assert isinstance(data["speed_target_met"], bool)
    assert isinstance(data["normalizer_target_met"], bool)
    printed = capsys.readouterr().out
    assert "SITAR / BERTScore-style:" in printed and "target >= 0.5" in printed
    assert "target <= 5%" in printed


def test_bad_counts_are_refused(capsys):
    with pytest.raises(SystemExit) as info:
        bench_speed.main(["--rounds", "0"])
    assert info.value.code == 2
    assert "must be positive" in capsys.readouterr().err
