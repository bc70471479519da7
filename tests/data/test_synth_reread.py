"""The blank sheets for re-reading planned synthetic tiers (annotation/synth/reread)."""

from __future__ import annotations

import csv
import json

import pytest

from annotation.synth.reread.make_sheets import COLUMNS, main

REF = "please leave the key under the mat at 7"


def _record(rid: str, op: str, tier: int, new: str, *, bad_gap: bool = False) -> dict:
    start = REF.index("leave")
    hyp = REF[:start] + new + REF[start + len("leave") :]
    gap = {
        "ref_span": [start, start + 5],
        "ref_text": "leave",
        "hyp_text": "stay" if bad_gap else new,  # bad_gap: the normal form moved the gap
    }
    return {
        "id": rid,
        "reference": REF,
        "hypothesis": hyp,
        "gaps": [gap],
        "provenance": {
            "edits": [
                {"op": op, "tier": tier, "direction": 0, "gaps": [0], "ref_text": "leave",
                 "new_text": new},
                {"op": "filler_insert", "tier": 0, "direction": 0, "gaps": [0], "ref_text": "",
                 "new_text": "um "},
            ]
        },
    }  # fmt: skip


def test_one_row_per_distinct_gap_with_a_key_apart_from_the_blind_sheet(tmp_path, capsys):
    records = tmp_path / "r.jsonl"
    rows = [
        _record("a", "phonetic_outcome", 2, "live"),
        _record("b", "phonetic_outcome", 2, "live"),  # the same gap again: one row, two occurrences
        _record("c", "action_verb", 2, "take"),
        _record("d", "phonetic_outcome", 2, "lave", bad_gap=True),  # not drawn
    ]
    records.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    argv = [
        str(records),
        "--first-sheet",
        "3",
        "--sheets",
        "1",
        "--per-sheet",
        "5",
        "--soundalike",
        "4",
    ]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    with (tmp_path / "o/sheets/synth-sheet-03.csv").open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == COLUMNS  # no operator or planned tier on the sheet
        sheet = list(reader)
    assert sorted(r["gap_hypothesis_text"] for r in sheet) == ["live", "take"]
    assert all(not r["tier"] and not r["direction"] for r in sheet)
    live = next(r for r in sheet if r["gap_hypothesis_text"] == "live")
    assert live["marked_reference"] == "please [[leave => live]] the key under the mat at 7"
    assert live["single_gap_hypothesis"] == "please live the key under the mat at 7"
    key = json.loads((tmp_path / "o/keys/synth-sheet-03.json").read_text(encoding="utf-8"))
    entry = key["rows"][live["row"]]
    assert entry["op"] == "phonetic_outcome" and entry["tier"] == 2
    assert entry["occurs"] == [["a", 0], ["b", 0]]
    # a later batch skips the gaps of an earlier key
    out2 = str(tmp_path / "o2")
    assert (
        main([*argv, "--exclude", str(tmp_path / "o/keys/synth-sheet-03.json"), "--out", out2]) == 0
    )
    assert "left: 0 sound-alike, 0 other" in capsys.readouterr().out
    assert len((tmp_path / "o2/sheets/synth-sheet-03.csv").read_text().splitlines()) == 1


@pytest.mark.parametrize(
    "sizes", [["--sheets", "1", "--soundalike", "9"], ["--sheets", "0", "--soundalike", "1"]]
)
def test_bad_arguments_exit_with_a_message(tmp_path, sizes, capsys):
    records = tmp_path / "r.jsonl"
    records.write_text("", encoding="utf-8")
    argv = [str(records), "--first-sheet", "1", "--per-sheet", "5", *sizes]
    assert main([*argv, "--out", str(tmp_path)]) == 2
    assert "error" in capsys.readouterr().err.lower()


@pytest.mark.parametrize("folder", ["", "validation"])
def test_every_committed_read_is_complete_and_keeps_its_blank_sheet(folder):
    """Each filled sheet under reads/ (and each third reading of an adjudication sheet) has its
    blank sheet's rows, order and text, and a valid tier (and direction) on every row; each row
    has its key. ``validation/`` holds the sheets of the synthetic validation file, read the
    same way."""
    from pathlib import Path

    here = Path(__file__).resolve().parents[2] / "annotation" / "synth" / "reread" / folder
    reads = sorted((here / "reads").glob("synth-*.*.csv"))
    assert reads, "no reads committed"
    for path in reads:
        sheet = path.name.split(".")[0]
        with (here / "sheets" / f"{sheet}.csv").open(encoding="utf-8", newline="") as fh:
            blank = list(csv.DictReader(fh))
        with path.open(encoding="utf-8", newline="") as fh:
            filled = list(csv.DictReader(fh))
        assert [r["row"] for r in filled] == [r["row"] for r in blank], path.name
        if sheet.startswith("synth-sheet-"):
            key = json.loads((here / "keys" / f"{sheet}.json").read_text(encoding="utf-8"))
            assert set(key["rows"]) == {r["row"] for r in blank}, path.name
        else:  # an adjudication sheet: rows of earlier sheets, under their own ids
            for r in blank:
                key = here / "keys" / f"synth-sheet-{r['row'].split('-')[0]}.json"
                assert r["row"] in json.loads(key.read_text(encoding="utf-8"))["rows"], r["row"]
        for b, f in zip(blank, filled, strict=True):
            assert {c: f[c] for c in COLUMNS[:7]} == {c: b[c] for c in COLUMNS[:7]}, f["row"]
            assert f["tier"] in ("T0", "T1", "T2"), f["row"]
            assert f["direction"] in ("", "+", "-"), f["row"]
            assert (f["tier"], f["direction"]) not in (("T2", "+"), ("T0", "-")), f["row"]
