"""Bootstrap intervals over references for controlled ordering, and the paired comparison of two
reports (training.evaluate.reference_bootstrap, training.compare_devset)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sitar.errors import InputError
from training.compare_devset import compare_reports, main
from training.evaluate import controlled_ordering, reference_bootstrap

# Two references, each with a T0, a T1 and a T2 variant (and a second T2 variant to make a
# within-tier pair); vectors are (c2, c1, c0).
_VECTORS = [(0, 0, 1), (0, 1, 0), (1, 0, 0), (1, 0, 1)]


def _groups(scores_per_ref):
    return [list(zip(_VECTORS, scores, strict=True)) for scores in scores_per_ref]


def test_per_reference_rows_reproduce_the_summary():
    result = controlled_ordering(_groups([[0.1, 0.4, 0.8, 0.9], [0.1, 0.4, 0.9, 0.8]]))
    rows = np.asarray(result.per_reference)
    assert rows.shape == (2, 4)
    assert rows[:, 0].mean() == pytest.approx(result.pairwise_agreement)
    assert rows[:, 1].mean() == pytest.approx(result.mean_spearman)
    assert rows[:, 2].sum() / rows[:, 3].sum() == pytest.approx(result.within_tier_agreement)
    assert list(rows[:, 3]) == [1, 1] and list(rows[:, 2]) == [1, 0]  # the T2 pair, right / wrong


def test_bootstrap_is_deterministic_and_brackets_the_estimate():
    rows = [(1.0, 1.0, 1, 1), (0.5, 0.2, 0, 1), (0.75, 0.6, 1, 2), (1.0, 0.9, 2, 2)]
    a = reference_bootstrap(rows, seed=3)
    assert a == reference_bootstrap(rows, seed=3)
    lo, hi = a["pairwise_agreement"]
    assert lo <= np.mean([r[0] for r in rows]) <= hi and 0.5 <= lo < hi <= 1.0
    same = reference_bootstrap(rows, rows)
    assert all(v == (0.0, 0.0) for v in same.values())  # a system against itself: no difference
    better = [(r[0] + 0.1, r[1], r[2], r[3]) for r in rows]
    lo, hi = reference_bootstrap(better, rows)["pairwise_agreement"]
    assert lo == pytest.approx(0.1) and hi == pytest.approx(0.1)  # a constant shift, every draw
    with pytest.raises(InputError, match="same references"):
        reference_bootstrap(rows, rows[:2])
    with pytest.raises(InputError):
        reference_bootstrap([])


def _report(rows, name="sitar"):
    keys = [f"dev-{k}" for k in range(len(rows))]
    stats = reference_bootstrap(rows, n_draws=10)  # any values: only the rows are read
    return {
        "signature": name,
        "devset": {
            "sitar": {
                "pairwise_agreement": float(np.mean([r[0] for r in rows])),
                "mean_spearman": float(np.mean([r[1] for r in rows])),
                "within_tier_agreement": sum(r[2] for r in rows) / sum(r[3] for r in rows),
                "ci95": {k: list(v) for k, v in stats.items()},
                "per_reference": dict(zip(keys, [list(r) for r in rows], strict=True)),
            }
        },
    }


def test_compare_reports_pairs_references_by_id(tmp_path, capsys):
    rows_a = [(1.0, 1.0, 1, 1), (0.8, 0.7, 1, 2), (0.9, 0.8, 2, 2)]
    rows_b = [(0.9, 0.9, 1, 1), (0.8, 0.7, 0, 2), (0.7, 0.6, 1, 2)]
    a, b = _report(rows_a, "A"), _report(rows_b, "B")
    # the same references in another order in B: matched by id, not by position
    b["devset"]["sitar"]["per_reference"] = dict(
        reversed(b["devset"]["sitar"]["per_reference"].items())
    )
    result = compare_reports(a, b, n_draws=500)
    row = result["stats"]["pairwise_agreement"]
    assert row["difference"] == pytest.approx(0.1)
    assert row["ci95"][0] <= 0.1 <= row["ci95"][1]
    assert result["signatures"] == ["A", "B"]
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    assert main([str(pa), str(pb), "--draws", "200", "--json", str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr().out
    assert "3 references" in out and "pairwise_agreement" in out
    assert json.loads((tmp_path / "c.json").read_text())["n_draws"] == 200


def test_compare_reports_errors(tmp_path, capsys):
    a = _report([(1.0, 1.0, 1, 1), (0.5, 0.5, 0, 1)])
    other = _report([(1.0, 1.0, 1, 1), (0.5, 0.5, 0, 1), (0.5, 0.5, 0, 1)])
    with pytest.raises(InputError, match="same references"):
        compare_reports(a, other)
    old = json.loads(json.dumps(a))
    del old["devset"]["sitar"]["per_reference"]
    with pytest.raises(InputError, match="per-reference"):
        compare_reports(old, a)
    with pytest.raises(InputError, match="records.ladders"):
        compare_reports(a, a, ladders=True)
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe not json")
    assert main([str(bad), str(bad)]) == 2
    assert "not a JSON report" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.json"), str(bad)]) == 2
    assert "not found" in capsys.readouterr().err
