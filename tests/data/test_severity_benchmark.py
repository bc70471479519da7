"""The severity benchmark's measures and label resolution (benchmarks/severity/)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from benchmarks.severity.labels import agreement_report, read_reader, resolve
from benchmarks.severity.run import auc, evaluate, evaluate_ab
from sitar.errors import InputError


def test_auc_counts_ties_half_and_needs_both_classes() -> None:
    assert auc([True, False], [0.9, 0.1]) == 1.0
    assert auc([True, False], [0.1, 0.9]) == 0.0
    assert auc([True, False, True, False], [0.5, 0.5, 0.7, 0.2]) == pytest.approx(0.875)
    assert math.isnan(auc([True, True], [0.1, 0.2]))


def _items() -> list[dict]:
    return [
        {"item_id": f"i{k}", "system": "s1" if k < 3 else "s2", "reference": "r", "hypothesis": "h"}
        for k in range(6)
    ]


def test_evaluate_reports_every_measure() -> None:
    items = _items()
    labels = {
        f"i{k}": {"tier": t, "damage": d}
        for k, (t, d) in enumerate([(0, 0.0), (1, 2.0), (2, 8.0), (2, 9.0), (1, 3.0), (2, 7.0)])
    }
    good = [0.0, 0.3, 0.8, 0.95, 0.4, 0.75]  # sorted like the damage
    values = {
        "sitar": {"value": good},
        "wer": {"value": [0.1] * 6, "num": [1, 1, 1, 1, 1, 1], "den": [10, 10, 10, 10, 10, 10]},
    }
    rep = evaluate(items, labels, values)
    s = rep["metrics"]["sitar"]
    assert s["auc_t2"] == 1.0 and s["auc_t1plus"] == 1.0
    assert s["spearman_damage"] == pytest.approx(1.0)
    assert s["reader_t0_in_t2_band"] == 0.0 and s["reader_t1_in_t2_band"] == 0.0
    assert rep["metrics"]["wer"]["auc_t2"] == 0.5  # a constant is a coin flip
    assert rep["tiers"] == {"T0": 1, "T1": 2, "T2": 3}


def test_ab_split_by_error_difference() -> None:
    ab = [
        {"reference": "send four copies now", "a": "send four copies", "b": "send for copies now",
         "judgement": "A"},
        {"reference": "turn left here", "a": "turn right here", "b": "turn left here please and now",
         "judgement": "B"},
        {"reference": "x y", "a": "x", "b": "y", "judgement": "same"},
    ]  # fmt: skip
    va = {"m": {"value": [0.1, 0.9, 0.0]}}
    vb = {"m": {"value": [0.2, 0.1, 0.0]}}
    out = evaluate_ab(ab, va, vb)
    assert out["m"]["all"] == 1.0
    assert out["n"] == {"all": 2, "<=1": 1, "2": 1, ">=3": 0}


def _sheet(path: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["item_id", "reference", "hypothesis", "tier", "damage", "reason"])
        for iid, tier, dmg, why in rows:
            w.writerow([iid, "r", "h", tier, dmg, why])
    return path


def test_resolution_rule_and_agreement(tmp_path: Path) -> None:
    items = [{"item_id": i} for i in ("a", "b", "c")]
    ids = {"a", "b", "c"}
    ra = read_reader([_sheet(tmp_path / "A.csv", [("a", "T2", "8", "x"), ("b", "T0", "1", "x"),
                                                   ("c", "T2", "9", "x")])], ids)  # fmt: skip
    rb = read_reader([_sheet(tmp_path / "B1.csv", [("a", "T2", "6", "y")]),
                      _sheet(tmp_path / "B2.csv", [("b", "T1", "3", "y"), ("c", "T0", "1", "y")])],
                     ids)  # fmt: skip
    with pytest.raises(InputError, match="no adjudicator"):
        resolve(items, ra, rb, None)
    rc = read_reader(
        [_sheet(tmp_path / "C.csv", [("b", "T1", "2", "z"), ("c", "T1", "5", "z")])], ids
    )
    got = {r["item_id"]: r for r in resolve(items, ra, rb, rc)}
    assert (got["a"]["tier"], got["a"]["damage"], got["a"]["resolved_by"]) == (2, 7.0, "agreed")
    assert (got["b"]["tier"], got["b"]["resolved_by"]) == (1, "majority")
    assert (got["c"]["tier"], got["c"]["resolved_by"]) == (1, "all-differ")
    rep = agreement_report(ra, rb)
    assert rep["items"] == 3 and rep["tier_agreement"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    "row, msg",
    [(("zz", "T1", "3", "x"), "unknown item_id"), (("a", "T3", "3", "x"), "tier must be"),
     (("a", "T1", "11", "x"), "damage must lie"), (("a", "T1", "3", ""), "reason")],
)  # fmt: skip
def test_bad_sheet_rows_name_file_and_line(tmp_path: Path, row: tuple, msg: str) -> None:
    with pytest.raises(InputError, match=msg):
        read_reader([_sheet(tmp_path / "A.csv", [row])], {"a"})
