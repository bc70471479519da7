"""Read synthetic tiers written into their records (annotation/synth/reread/apply.py)."""

from __future__ import annotations

import csv
import json

import pytest

from annotation.synth.reread.apply import apply_reads, main
from annotation.synth.reread.make_sheets import COLUMNS
from sitar.errors import InputError
from sitar.targets import score_from_tiers

REF = "please leave the key under the mat at 7"


def _gap(ref: str, hyp: str, a: int) -> dict:
    return {"ref_tokens": [], "hyp_tokens": [], "ref_span": [a, a + len(ref)],
            "hyp_span": [a, a + len(hyp)], "ref_text": ref, "hyp_text": hyp}  # fmt: skip


def _record(rid: str, gaps: list[dict], tiers: list[int], directions: list[int]) -> dict:
    return {"schema": "sitar.record/1", "id": rid, "reference": REF, "hypothesis": "x",
            "gaps": gaps, "tiers": tiers, "directions": directions,
            "score": score_from_tiers(tiers, directions), "rho": 0.5, "split": "train",
            "provenance": {"source": "synth"}, "signature": "sig"}  # fmt: skip


@pytest.fixture
def corpus(tmp_path):
    live = _gap("leave", "live", 7)
    mat = _gap("mat", "map", 31)
    records = [
        _record("a", [live], [2], [0]),
        _record("b", [mat, live], [1, 2], [1, 0]),  # the same gap at index 1, beside another
        _record("c", [_gap("key", "kiwi", 17)], [2], [0]),  # on no sheet
        _record("d", [mat], [1], [1]),
    ]
    path = tmp_path / "r.jsonl"
    # unchanged records keep their bytes (odd spacing on purpose)
    path.write_text("".join(json.dumps(r, indent=None, separators=(",", ": ")) + "\n"
                            for r in records), encoding="utf-8")  # fmt: skip
    keys = tmp_path / "keys"
    keys.mkdir()
    rows = {
        "01-001": {"op": "phonetic_outcome", "tier": 2, "direction": 0,
                   "occurs": [["a", 0], ["b", 1]], "reference": REF,
                   "gap_reference_text": "leave", "gap_hypothesis_text": "live"},
        "01-002": {"op": "inform_phonetic", "tier": 1, "direction": 1,
                   "occurs": [["b", 0], ["d", 0]], "reference": REF,
                   "gap_reference_text": "mat", "gap_hypothesis_text": "map"},
    }  # fmt: skip
    (keys / "synth-sheet-01.json").write_text(json.dumps({"rows": rows}), encoding="utf-8")
    reads = tmp_path / "reads"
    reads.mkdir()

    def read(reader: str, labels: dict[str, tuple[str, str]]) -> None:
        with (reads / f"synth-sheet-01.{reader}.csv").open("w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=COLUMNS)
            w.writeheader()
            for rid, (tier, direction) in labels.items():
                w.writerow({"row": rid, "tier": tier, "direction": direction})

    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text("".join(json.dumps({"id": i, "probs": [[0.5] * 6]}) + "\n" for i in "abcd"),
                       encoding="utf-8")  # fmt: skip
    return path, keys, reads, read, teacher


def test_read_tiers_replace_the_planned_ones_at_every_occurrence(corpus, tmp_path, capsys):
    path, keys, reads, read, teacher = corpus
    read("S1", {"01-001": ("T0", ""), "01-002": ("T1", "-")})
    out, t_out = tmp_path / "o.jsonl", tmp_path / "t.jsonl"
    argv = [str(path), "--out", str(out), "--reads", str(reads), "--keys", str(keys),
            "--teacher", str(teacher), "--teacher-out", str(t_out)]  # fmt: skip
    assert main(argv) == 0
    got = {json.loads(line)["id"]: json.loads(line) for line in out.read_text().splitlines()}
    assert list(got) == ["a", "b", "c", "d"]  # same order, nothing lost
    assert got["a"]["tiers"] == [0] and got["a"]["score"] == 0.0
    assert got["b"]["tiers"] == [1, 0] and got["b"]["directions"] == [-1, 0]
    assert got["b"]["score"] == score_from_tiers([1, 0], [-1, 0])
    assert got["b"]["provenance"]["reread"] == [
        {"gap": 0, "row": "01-002", "readers": ["S1"], "planned": [1, 1], "read": [1, -1]},
        {"gap": 1, "row": "01-001", "readers": ["S1"], "planned": [2, 0], "read": [0, 0]},
    ]
    assert got["b"]["provenance"]["source"] == "synth"
    # the record on no sheet is copied byte for byte
    assert out.read_text().splitlines()[2] == path.read_text().splitlines()[2]
    assert [json.loads(line)["id"] for line in t_out.read_text().splitlines()] == ["c"]
    summary = json.loads((tmp_path / "o.jsonl.summary.json").read_text())
    assert summary["records_changed"] == 3 and summary["gaps_changed"] == 4
    assert summary["planned_to_read"] == {"T1->T1": 2, "T2->T0": 2}
    assert summary["teacher_lines_dropped"] == 3 and summary["rows_read"] == 2
    assert "records_changed: 3" in capsys.readouterr().out


def test_two_readers_need_a_majority(corpus, tmp_path):
    path, keys, reads, read, _ = corpus
    read("S1", {"01-001": ("T0", ""), "01-002": ("T2", "")})
    read("S2", {"01-001": ("T0", ""), "01-002": ("T1", "")})
    summary = apply_reads(path, tmp_path / "o.jsonl", reads=reads, keys=keys)
    assert summary["rows_read"] == 1 and summary["rows_no_majority"] == 1
    got = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert got[3]["tiers"] == [1] and "reread" not in got[3]["provenance"]  # no majority: kept
    assert got[0]["provenance"]["reread"][0]["readers"] == ["S1", "S2"]


def test_keys_from_another_file_are_refused_and_nothing_is_written(corpus, tmp_path):
    path, keys, reads, read, _ = corpus
    read("S1", {"01-001": ("T0", ""), "01-002": ("T1", "")})
    other = tmp_path / "other.jsonl"
    lines = path.read_text().splitlines()
    rec = json.loads(lines[0])
    rec["gaps"][0]["hyp_text"] = "love"
    other.write_text("\n".join([json.dumps(rec), *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="were the keys drawn from this file"):
        apply_reads(other, tmp_path / "o.jsonl", reads=reads, keys=keys)
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"1 record\(s\) named by the keys are not in"):
        apply_reads(short, tmp_path / "o.jsonl", reads=reads, keys=keys)
    assert not (tmp_path / "o.jsonl").exists()


def test_bad_calls_exit_2_with_one_line(corpus, tmp_path, capsys):
    path, keys, reads, read, teacher = corpus
    read("S1", {"01-001": ("T3", "")})
    base = [str(path), "--reads", str(reads), "--keys", str(keys)]
    assert main([*base, "--out", str(tmp_path / "o.jsonl")]) == 2  # T3 is no tier
    assert "tier must be T0, T1 or T2" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "o.jsonl"), "--teacher", str(teacher)]) == 2
    assert "--teacher and --teacher-out go together" in capsys.readouterr().err
    assert main([*base, "--out", str(path)]) == 2
    assert "must not overwrite" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_a_third_reading_on_an_adjudication_sheet_decides(corpus, tmp_path, capsys):
    from annotation.synth.reread.adjudicate import main as adjudicate

    path, keys, reads, read, _ = corpus
    read("S1", {"01-001": ("T0", ""), "01-002": ("T2", "")})
    read("S2", {"01-001": ("T0", ""), "01-002": ("T1", "+")})
    sheets = tmp_path / "sheets"
    sheets.mkdir()
    with (sheets / "synth-sheet-01.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for rid, ref_text, hyp_text in (("01-001", "leave", "live"), ("01-002", "mat", "map")):
            w.writerow({"row": rid, "reference": REF, "gap_reference_text": ref_text,
                        "gap_hypothesis_text": hyp_text})  # fmt: skip
    base = ["--reads", str(reads), "--keys", str(keys), "--out", str(tmp_path)]
    assert adjudicate(["--number", "1", *base]) == 0
    with (sheets / "synth-adjudication-01.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["row"] for r in rows] == ["01-002"] and rows[0]["gap_hypothesis_text"] == "map"
    assert not rows[0]["tier"]  # blank: the earlier tiers are not shown
    assert adjudicate(["--number", "1", *base]) == 2  # the sheet exists
    assert "exists" in capsys.readouterr().err
    assert adjudicate(["--number", "2", *base]) == 0  # 01-002 is already on sheet 1
    assert "nothing written" in capsys.readouterr().out
    with (reads / "synth-adjudication-01.S3.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        w.writerow({"row": "01-002", "tier": "T1", "direction": "+"})
    summary = apply_reads(path, tmp_path / "o.jsonl", reads=reads, keys=keys)
    assert summary["rows_read"] == 2 and "rows_no_majority" not in summary
    got = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert got[3]["tiers"] == [1] and got[3]["directions"] == [1]
    assert got[3]["provenance"]["reread"][0]["readers"] == ["S1", "S2", "S3"]  # all who read it
    # the same reader may not label a row twice
    with (reads / "synth-adjudication-01.S2.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        w.writerow({"row": "01-002", "tier": "T1", "direction": ""})
    with pytest.raises(InputError, match="labels row 01-002 a second time"):
        apply_reads(path, tmp_path / "o2.jsonl", reads=reads, keys=keys)
