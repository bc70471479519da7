"""Version 2 of the challenge files from version 1 and two blind re-reads (``README.md`` here).

Reads ``read_A.csv`` and ``read_B.csv`` (each reader's filled sheet, made by
:mod:`annotation.challenge.reread.make_sheets`; ``key.json`` maps a sheet id to its case id) and
the version-1 files, and writes ``sitar_challenge_v2.jsonl`` and ``sitar_challenge_scope_v2.jsonl``
beside them. Each case's tier is :func:`annotation.sheets.reread_tier` of its version-1 tier (the
first tier of a boundary position such as ``T0->T1``) and the two readings. A case whose final
tier is its version-1 tier is copied unchanged; otherwise ``expected`` becomes the final tier,
``band`` that tier's band and ``reason`` the reason of a reader who gave it, after ``re-read: ``.
Rerunning it on the committed inputs reproduces the committed files
(``tests/data/test_challenge_reread.py``).

    python -m annotation.challenge.reread.apply [--check]
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from annotation.challenge import (
    _FIELDS,
    CHALLENGE_V1_FILE,
    SCOPE_V1_FILE,
    ChallengeItem,
    band_of,
    load_challenge,
)
from annotation.challenge.reread.make_sheets import HERE, READERS
from annotation.sheets import reread_tier, write_derived
from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError

#: version-1 file -> its version 2 (written by :func:`main`).
VERSIONS = {
    CHALLENGE_V1_FILE: CHALLENGE_V1_FILE.with_name("sitar_challenge_v2.jsonl"),
    SCOPE_V1_FILE: SCOPE_V1_FILE.with_name("sitar_challenge_scope_v2.jsonl"),
}


@dataclass(frozen=True)
class Reading:
    """One reader's tier and reason for one case."""

    tier: str
    reason: str


def nominal_tier(expected: str) -> str:
    """The tier of a spec §5 position label: ``"T0->T1"`` -> ``"T0"``, ``"T2"`` -> ``"T2"``."""
    return expected.split("->")[0]


def readings(reads_dir: Path = HERE) -> dict[str, dict[str, Reading]]:
    """case id -> reader -> reading, checked against the key and the cases' texts: every case
    read exactly once by each reader, with the sheet's reference and hypothesis unchanged."""
    key = json.loads((reads_dir / "key.json").read_text(encoding="utf-8"))
    cases = {c.id: c for path in VERSIONS for c in load_challenge(path)}
    out: dict[str, dict[str, Reading]] = {}
    for reader in READERS:
        path = reads_dir / f"read_{reader}.csv"
        if not path.is_file():
            raise InputError(f"{path}: reader {reader}'s reading is missing")
        with open(path, encoding="utf-8", newline="") as fh:
            for n, row in enumerate(csv.DictReader(fh), 2):
                where = f"{path.name}:{n}"
                case = cases.get(key.get(row.get("item", ""), ""))
                if case is None or case.id in out.get(reader, {}):
                    raise InputError(f"{where}: item {row.get('item')!r} is not on the sheet once")
                if (row["reference"], row["hypothesis"]) != (case.reference, case.hypothesis):
                    raise InputError(f"{where}: the pair's text differs from the sheet's")
                tier, reason = row["tier"].strip(), row["reason"].strip()
                if tier not in ("T0", "T1", "T2") or not reason:
                    raise InputError(f"{where}: need a tier T0, T1 or T2 and a reason")
                out.setdefault(reader, {})[case.id] = Reading(tier, reason)
        if set(out.get(reader, {})) != set(cases):
            raise InputError(f"{path.name}: {len(cases) - len(out.get(reader, {}))} cases unread")
    return {cid: {r: out[r][cid] for r in READERS} for cid in cases}


def reread(item: ChallengeItem, read: dict[str, Reading]) -> dict[str, object]:
    """The version-2 line of one case."""
    written = nominal_tier(item.expected)
    tier = reread_tier(written, *(read[r].tier for r in READERS))
    line: dict[str, object] = {
        "id": item.id,
        "category": item.category,
        "reference": item.reference,
        "hypothesis": item.hypothesis,
        "expected": item.expected,
        "band": [str(item.band[0]), str(item.band[1])],
        "reason": item.reason,
        "source": item.source,
    }
    if tier != written:
        reader = next(r for r in READERS if read[r].tier == tier)
        lo, hi = band_of(tier)
        line |= {"expected": tier, "band": [str(lo), str(hi)]}
        line["reason"] = f"re-read: {read[reader].reason}"
    return line


def build(reads_dir: Path = HERE) -> dict[Path, str]:
    """version-2 path -> its text."""
    read = readings(reads_dir)
    return {
        v2: "".join(
            json.dumps({f: line[f] for f in _FIELDS}, ensure_ascii=False) + "\n"
            for line in (reread(item, read[item.id]) for item in load_challenge(v1))
        )
        for v1, v2 in VERSIONS.items()
    }


@tool_main("python -m annotation.challenge.reread.apply")
def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(
        prog="python -m annotation.challenge.reread.apply",
        description="Write version 2 of the challenge files from version 1 and the two reads.",
    )
    p.add_argument("--check", action="store_true", help="only say whether the files are stale")
    args = p.parse_args(argv)
    outputs = build()
    if args.check:
        return write_derived(outputs, check=True)
    write_derived(outputs, check=False)
    for path, text in outputs.items():
        changed = sum('"reason": "re-read: ' in line for line in text.splitlines())
        print(f"{path.name}: {len(text.splitlines())} cases, {changed} changed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
