"""The committed hand labels of the wave-3 and wave-4 pools (``annotation/asr/labels-w3``,
``labels-w4``): every filled sheet is its blank sheet with only the label columns filled, legally; every adjudication row is
a row of some sheet; and the files import, leaving out only pairs on which three readers split."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from annotation.asr.labels import LABEL_FILE_RE, label_files
from annotation.sheets import import_sheets

ASR = Path(__file__).resolve().parents[2] / "annotation" / "asr"
FOLDERS = ("labels-w3", "labels-w4")
LABEL_COLUMNS = ("tier", "direction", "rank", "note")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _text(row: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in row.items() if k not in LABEL_COLUMNS}


FILES = [f for folder in FOLDERS for f in label_files(ASR / folder)]


@pytest.mark.parametrize("path", FILES, ids=[f"{f.parent.name}/{f.name}" for f in FILES])
def test_a_filled_file_is_its_sheet_with_legal_labels(path: Path) -> None:
    sheets = path.parent / "sheets"
    m = LABEL_FILE_RE.match(path.name)
    assert m is not None
    rows = _rows(path)
    assert rows, path
    for row in rows:
        assert row["tier"] in {"T0", "T1", "T2"}, row
        assert row["direction"] in {"", "+", "-"}, row
        assert not (row["tier"] == "T2" and row["direction"] == "+"), row
        assert not (row["tier"] == "T0" and row["direction"] == "-"), row
        assert row["rank"] == "", row
    if m.group("sheet").startswith("asr-sheet"):
        blank = _rows(sheets / f"{m.group('sheet')}.csv")
        assert [_text(r) for r in rows] == [_text(r) for r in blank]
        assert all(r["tier"] == "" for r in blank)
    else:  # an adjudication: every row is a row of a sheet, text unchanged
        sheet_rows = {
            (r["pair_id"], r["gap_id"]): _text(r)
            for f in sorted(sheets.glob("asr-sheet-*.csv"))
            for r in _rows(f)
        }
        for row in rows:
            assert sheet_rows[(row["pair_id"], row["gap_id"])] == _text(row)


def test_sheets_are_read_by_distinct_readers() -> None:
    readers: dict[str, list[str]] = {}
    for f in FILES:  # sheet numbers run on across the pools
        m = LABEL_FILE_RE.match(f.name)
        assert m is not None
        readers.setdefault(m.group("sheet"), []).append(m.group("reader"))
    for sheet, names in readers.items():
        assert len(set(names)) == len(names), sheet
    assert all(re.fullmatch(r"N\d+", r) for names in readers.values() for r in names)


@pytest.mark.parametrize("folder", FOLDERS)
def test_labels_import_with_only_three_way_splits_left_out(folder: str) -> None:
    # the documented rule: a pair with a gap on which all three readers differ is left out
    result = import_sheets([str(f) for f in label_files(ASR / folder)])
    assert result.records
    assert set(result.reasons()) <= {"no_majority"}, result.reasons()
    assert len(result.rejected) <= 0.005 * len(result.records)
