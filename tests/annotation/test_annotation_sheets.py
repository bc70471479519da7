"""Human sheets: export a blank sheet, fill it like a person would, read it back as records."""

from __future__ import annotations

import csv
import json

import pytest

from annotation.__main__ import main
from annotation.sheets import export_sheet, import_sheets
from sitar.errors import InputError
from sitar.io import Pair
from sitar.records import read_records
from sitar.targets import score_from_tiers

PAIRS = [
    Pair("a", "we met alpha today, then we paid bravo", "we met alfa today, then we paid brave"),
    Pair("b", "nothing changed here", "nothing changed here"),
    Pair("c", "do not send the draft", "do send the draft"),
]


def _fill_csv(src, dst, labels):
    with open(src, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        key = (row["pair_id"], row["gap_id"])
        if key in labels:
            row["tier"], row["rank"] = labels[key]
    with open(dst, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


def test_export_fill_import_csv(tmp_path):
    blank = tmp_path / "blank.csv"
    assert export_sheet(PAIRS, blank) == 2 + 1 + 1
    filled = tmp_path / "filled.csv"
    rows = _fill_csv(
        blank,
        filled,
        {("a", "g1"): ("T0", "0"), ("a", "g2"): ("T1", "1"), ("c", "g1"): ("T2", "")},
    )
    assert rows[0]["marked_reference"].startswith("we met [[alpha => alfa]] today")
    assert rows[0]["single_gap_hypothesis"] == "we met alfa today, then we paid bravo"
    result = import_sheets([filled])
    assert result.rejected == []
    by_id = {r.id: r for r in result.records}
    assert by_id["a"].tiers == (0, 1) and by_id["a"].directions == (0, 0)
    assert by_id["a"].score == score_from_tiers([0, 1])
    assert by_id["b"].gaps == () and by_id["b"].score == 0.0
    assert by_id["c"].tiers == (2,)
    assert by_id["a"].provenance["annotator"]["kind"] == "human"


def test_unlabeled_contradiction_and_majority(tmp_path):
    blank = tmp_path / "blank.jsonl"
    export_sheet(PAIRS, blank)
    rows = [json.loads(line) for line in blank.read_text().splitlines()]

    def sheet(name, labels):
        path = tmp_path / name
        out = []
        for row in rows:
            tier, rank = labels.get((row["pair_id"], row["gap_id"]), ("", ""))
            out.append({**row, "tier": tier, "rank": rank})
        path.write_text("".join(json.dumps(r) + "\n" for r in out))
        return path

    # g1 ranked as baseline-equal but labelled T1: a contradiction; pair c left empty.
    one = sheet("one.jsonl", {("a", "g1"): ("T1", "0"), ("a", "g2"): ("T1", "1")})
    result = import_sheets([one])
    assert result.reasons() == {"contradiction": 1, "unlabeled": 1}
    # Three annotators: majority per gap; two annotators who disagree: no majority.
    s1 = sheet(
        "s1.jsonl", {("a", "g1"): ("T0", ""), ("a", "g2"): ("T2", ""), ("c", "g1"): ("2", "")}
    )
    s2 = sheet(
        "s2.jsonl", {("a", "g1"): ("T0", ""), ("a", "g2"): ("T1", ""), ("c", "g1"): ("T2", "")}
    )
    s3 = sheet(
        "s3.jsonl", {("a", "g1"): ("T1", ""), ("a", "g2"): ("T2", ""), ("c", "g1"): ("T2", "")}
    )
    result = import_sheets([s1, s2, s3])
    assert {r.id: r.tiers for r in result.records} == {"a": (0, 2), "b": (), "c": (2,)}
    result = import_sheets([s1, s2])
    assert result.reasons() == {"no_majority": 1}


def test_misaligned_or_invalid_sheets_are_errors(tmp_path):
    blank = tmp_path / "blank.jsonl"
    export_sheet(PAIRS, blank)
    rows = [json.loads(line) for line in blank.read_text().splitlines()]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps({**r, "tier": "T4"}) + "\n" for r in rows))
    with pytest.raises(InputError, match=r"bad.jsonl:1: tier must be"):
        import_sheets([bad])
    edited = [dict(r) for r in rows]
    edited[0]["gap_hypothesis_text"] = "something else"
    moved = tmp_path / "moved.jsonl"
    moved.write_text("".join(json.dumps(r) + "\n" for r in edited))
    with pytest.raises(InputError, match="do not match the segmentation"):
        import_sheets([moved])
    missing = tmp_path / "missing.jsonl"
    missing.write_text("".join(json.dumps(r) + "\n" for r in rows[1:]))
    with pytest.raises(InputError, match="CGD finds"):
        import_sheets([missing])


def test_sheet_cli_round_trip(tmp_path, capsys):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        "".join(
            json.dumps({"id": p.id, "reference": p.reference, "hypothesis": p.hypothesis}) + "\n"
            for p in PAIRS
        )
    )
    blank = tmp_path / "sheet.csv"
    assert main(["export-sheet", "--jsonl", str(pairs), "--out", str(blank)]) == 0
    filled = tmp_path / "filled.csv"
    _fill_csv(
        blank, filled, {("a", "g1"): ("T0", ""), ("a", "g2"): ("T0", ""), ("c", "g1"): ("T2", "")}
    )
    out = tmp_path / "records.jsonl"
    assert main(["import-sheet", str(filled), "--out", str(out)]) == 0
    assert "wrote 3 records" in capsys.readouterr().out
    assert [r.id for r in read_records(out)] == ["a", "b", "c"]


def _fill_directions(src, dst, labels):
    with open(src, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        if (row["pair_id"], row["gap_id"]) in labels:
            row["tier"], row["direction"] = labels[(row["pair_id"], row["gap_id"])]
    with open(dst, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_directions_from_column_or_suffix_and_majority(tmp_path):
    blank = tmp_path / "blank.csv"
    export_sheet(PAIRS, blank)
    assert "direction" in open(blank, encoding="utf-8").readline()
    one, two, three = (tmp_path / f"{k}.csv" for k in ("one", "two", "three"))
    _fill_directions(blank, one, {("a", "g1"): ("T0+", ""), ("a", "g2"): ("T1", "-"),
                                  ("c", "g1"): ("T2", "")})  # fmt: skip
    _fill_directions(blank, two, {("a", "g1"): ("T0", "+"), ("a", "g2"): ("T1", ""),
                                  ("c", "g1"): ("T2", "-")})  # fmt: skip
    _fill_directions(blank, three, {("a", "g1"): ("T1", ""), ("a", "g2"): ("T1", "0"),
                                    ("c", "g1"): ("T2-", "-")})  # fmt: skip
    single = {r.id: r for r in import_sheets([one]).records}
    assert single["a"].tiers == (0, 1) and single["a"].directions == (1, -1)
    assert single["a"].score == score_from_tiers([0, 1], [1, -1])
    merged = {r.id: r for r in import_sheets([one, two, three]).records}
    # a/g1: tier T0 (2 of 3), both T0 votes say "+"; a/g2: T1 by all, one "-": not a majority.
    assert merged["a"].tiers == (0, 1) and merged["a"].directions == (1, 0)
    assert merged["c"].directions == (-1,)


@pytest.mark.parametrize(
    "tier, direction, message",
    [
        ("T2+", "", "impossible"),
        ("T0", "-", "impossible"),
        ("T1+", "-", "disagree"),
        ("T1", "sideways", "direction must be"),
        ("", "+", "without a tier"),
    ],
)
def test_bad_directions_are_input_errors(tmp_path, tier, direction, message):
    blank = tmp_path / "blank.csv"
    export_sheet(PAIRS, blank)
    filled = tmp_path / "filled.csv"
    _fill_directions(blank, filled, {("a", "g1"): (tier, direction)})
    with pytest.raises(InputError, match=message):
        import_sheets([filled])


def test_sheet_agreement_kappa_and_confusion(tmp_path, capsys):
    from annotation.sheets import sheet_agreement

    blank = tmp_path / "blank.csv"
    export_sheet(PAIRS, blank)
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    _fill_directions(blank, one, {("a", "g1"): ("T0", ""), ("a", "g2"): ("T1", "+"),
                                  ("c", "g1"): ("T2", "")})  # fmt: skip
    _fill_directions(blank, two, {("a", "g1"): ("T0", ""), ("a", "g2"): ("T2", "-"),
                                  ("c", "g1"): ("T2", "")})  # fmt: skip
    report = sheet_agreement(one, two)
    assert report["gaps"] == 3
    assert report["confusion"] == [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
    assert report["agreement"] == pytest.approx(2 / 3)
    # p_o = 2/3; p_e = (1/3)(1/3) + (1/3)(0) + (1/3)(2/3) = 1/3; kappa = (2/3 - 1/3) / (2/3)
    assert report["kappa"] == pytest.approx(0.5)
    assert report["position_agreement"] == pytest.approx(2 / 3)
    assert report["disagreements"] == [["a", "g2"]]
    assert main(["agreement", str(one), str(two)]) == 0
    assert "kappa 0.500" in capsys.readouterr().out
    with pytest.raises(InputError, match="no labelled gap in common"):
        sheet_agreement(one, blank)
