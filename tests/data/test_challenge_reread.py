"""Version 2 of the challenge files: the blind re-read under rubric asr-v2 and its rule
(annotation/challenge/reread)."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from annotation.challenge import CHALLENGE_V1_FILE, SCOPE_V1_FILE, band_of, load_challenge
from annotation.challenge.reread import apply, make_sheets
from annotation.sheets import reread_tier
from sitar.errors import InputError


def _write_reads(folder: Path, tiers: dict[str, dict[str, str]]) -> None:
    """Fill both readers' sheets: each case at its version-1 nominal tier unless ``tiers`` gives
    that reader's tier for it."""
    shutil.copy(make_sheets.HERE / "key.json", folder / "key.json")
    key = json.loads((folder / "key.json").read_text(encoding="utf-8"))
    cases = {c.id: c for p in (CHALLENGE_V1_FILE, SCOPE_V1_FILE) for c in load_challenge(p)}
    for reader in make_sheets.READERS:
        with open(make_sheets.HERE / f"sheet_{reader}.csv", encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
        for row in rows:
            case = cases[key[row["item"]]]
            written = apply.nominal_tier(case.expected)
            row["tier"] = tiers.get(case.id, {}).get(reader, written)
            row["reason"] = f"reader {reader} on {case.id}"
        with open(folder / f"read_{reader}.csv", "w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=make_sheets.SHEET_COLUMNS)
            w.writeheader()
            w.writerows(rows)


def test_the_disagreement_rule() -> None:
    assert reread_tier("T2", "T0", "T0") == "T0"  # the readers agree: their tier
    assert reread_tier("T2", "T1", "T2") == "T2"  # one gave the written tier: kept
    assert reread_tier("T2", "T0", "T1") == "T1"  # neither did: the nearer one
    assert reread_tier("T0", "T2", "T1") == "T1"
    with pytest.raises(InputError, match="T0, T1 or T2"):
        reread_tier("T0->T1", "T0", "T0")


def test_sheets_are_blind_and_complete() -> None:
    assert make_sheets.main(["--check"]) == 0
    key = json.loads((make_sheets.HERE / "key.json").read_text(encoding="utf-8"))
    cases = [*load_challenge(CHALLENGE_V1_FILE), *load_challenge(SCOPE_V1_FILE)]
    for reader in make_sheets.READERS:
        text = (make_sheets.HERE / f"sheet_{reader}.csv").read_text(encoding="utf-8")
        rows = list(csv.DictReader(text.splitlines()))
        assert list(rows[0]) == make_sheets.SHEET_COLUMNS
        assert sorted(key[r["item"]] for r in rows) == sorted(c.id for c in cases)
        assert all(r["tier"] == r["reason"] == "" for r in rows)
        assert not re.search(r"\b(ch|sc)-\d{3}\b|\bT[012]\b", text)  # no case id, no tier
    a = [key[r] for r in key if r.startswith("A")]
    b = [key[r] for r in key if r.startswith("B")]
    assert a != b  # each reader has its own order


def test_build_applies_the_rule_case_by_case(tmp_path: Path) -> None:
    _write_reads(
        tmp_path,
        {
            "ch-001": {"A": "T1", "B": "T1"},  # T2 read T1 by both: becomes T1
            "ch-002": {"A": "T1"},  # one reader keeps T2: stays T2
            "ch-165": {"A": "T0", "B": "T0"},  # T0->T1, read T0: its nominal tier, unchanged
            "sc-001": {"A": "T0", "B": "T1"},  # T2, neither kept it: the nearer, T1
        },
    )
    out = apply.build(tmp_path)
    v2 = {
        json.loads(line)["id"]: json.loads(line)
        for text in out.values()
        for line in text.splitlines()
    }
    v1 = {c.id: c for p in (CHALLENGE_V1_FILE, SCOPE_V1_FILE) for c in load_challenge(p)}
    assert v2["ch-001"]["expected"] == "T1"
    assert v2["ch-001"]["band"] == [str(x) for x in band_of("T1")]
    assert v2["ch-001"]["reason"].startswith("re-read: reader ")
    assert v2["ch-002"]["expected"] == "T2" and v2["ch-002"]["reason"] == v1["ch-002"].reason
    assert v2["ch-165"]["expected"] == "T0->T1"
    assert v2["sc-001"]["expected"] == "T1"
    changed = [cid for cid in v1 if v2[cid]["expected"] != v1[cid].expected]
    assert changed == ["ch-001", "sc-001"]
    for path, text in out.items():  # version 2 loads as a challenge file
        (tmp_path / path.name).write_text(text, encoding="utf-8")
        assert len(load_challenge(tmp_path / path.name)) == len(text.splitlines())


def test_readings_are_checked(tmp_path: Path) -> None:
    _write_reads(tmp_path, {})
    path = tmp_path / "read_B.csv"
    good = path.read_text(encoding="utf-8")
    lines = good.splitlines(keepends=True)
    path.write_text(lines[0] + lines[1].replace(",T", ",X", 1) + "".join(lines[2:]), "utf-8")
    with pytest.raises(InputError, match="read_B.csv:2: need a tier"):
        apply.readings(tmp_path)
    first = next(csv.DictReader(lines[:2]))
    edited = lines[1].replace(first["hypothesis"], first["hypothesis"] + " now", 1)
    path.write_text(lines[0] + edited + "".join(lines[2:]), "utf-8")
    with pytest.raises(InputError, match="differs from the sheet"):
        apply.readings(tmp_path)
    path.write_text("".join(lines[:-1]), "utf-8")
    with pytest.raises(InputError, match="1 cases unread"):
        apply.readings(tmp_path)
    path.unlink()
    with pytest.raises(InputError, match="reader B's reading is missing"):
        apply.readings(tmp_path)


def test_committed_version_2_is_the_rule_applied_to_the_reads() -> None:
    from annotation.challenge import CHALLENGE_FILE, SCOPE_FILE

    assert set(apply.VERSIONS.values()) == {CHALLENGE_FILE, SCOPE_FILE}
    assert apply.main(["--check"]) == 0
    v1 = {c.id: c for c in load_challenge(CHALLENGE_V1_FILE)}
    v2 = {c.id: c for c in load_challenge(CHALLENGE_FILE)}
    assert list(v1) == list(v2)
    changed = {cid: v2[cid].expected for cid in v1 if v1[cid] != v2[cid]}
    assert changed == {"ch-007": "T0", "ch-031": "T1", "ch-080": "T1", "ch-165": "T1"}
    assert [c.expected for c in load_challenge(SCOPE_FILE)] == [
        c.expected for c in load_challenge(SCOPE_V1_FILE)
    ]


def test_write_derived_writes_and_reports_stale_files(tmp_path: Path, capsys) -> None:
    from annotation.sheets import write_derived

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    b.write_text("old\n", encoding="utf-8")
    outputs = {a: "new a\n", b: "new b\n"}
    assert write_derived(outputs, check=True) == 1
    assert capsys.readouterr().out == "stale: a.jsonl, b.jsonl\n"
    assert not a.exists() and b.read_text(encoding="utf-8") == "old\n"  # a check writes nothing
    assert write_derived(outputs, check=False) == 0
    assert write_derived(outputs, check=True) == 0
    assert capsys.readouterr().out == "up to date\n"
