"""The explain/report benchmark runs end to end (tiny inputs; its numbers are not checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
ROOT = Path(__file__).resolve().parents[2]

from benchmarks import bench_explain_report as bench  # noqa: E402
from benchmarks.pairs import two_systems  # noqa: E402


def test_two_systems_and_bad_rows(tmp_path):
    data = tmp_path / "d.jsonl"
    rows = [
        ("call the doctor", "call the office"),
        ("call the doctor", "call a doctor"),
        ("call the doctor", "call the office"),
        ("send it", "send"),
    ]
    data.write_text("".join(json.dumps({"reference": r, "hypothesis": h}) + "\n" for r, h in rows))
    refs, systems = two_systems(str(data), 10, seed=0)
    assert list(refs.values()) == ["call the doctor"]  # "send it" has one hypothesis only
    assert systems == {"A": {"u00000": "call the office"}, "B": {"u00000": "call a doctor"}}
    data.write_text('{"reference": "a"}\n')
    with pytest.raises(SystemExit, match="d.jsonl:1"):
        two_systems(str(data), 10, seed=0)


def test_benchmark_runs_on_the_dev_set(tmp_path):
    out = tmp_path / "bench.json"
    dev = ROOT / "annotation" / "devset" / "sitar_dev_v1.jsonl"
    argv = [
        "--data",
        str(dev),
        "--n-references",
        "3",
        "--repeats",
        "1",
        "--bootstrap",
        "10",
        "--threads",
        "1",
        "--json",
        str(out),
    ]
    assert bench.main(argv) == 0
    result = json.loads(out.read_text())
    assert (result["schema"], result["benchmark"]) == ("sitar.benchmark/1", "explain-report")
    assert result["n_pairs"] == 6
    prov = result["provenance"]  # how the result was made
    assert "sitar" in prov["versions"] and "onnxruntime" in prov["versions"] and prov["python"]
    (row,) = result["checkpoints"].values()
    gaps, rescore = row["methods"]["gaps"], row["methods"]["rescore"]
    assert 0 < gaps["explain_inputs_per_pair"] <= 1.0  # the same pass (0 for identical pairs)
    assert rescore["explain_inputs_per_pair"] > 1.0  # plus one input per gap
