"""Write the read tiers of the synthetic re-reading sheets into the records they were drawn from.

Each sheet row stands for one distinct gap and names, in its key (``keys/``), every record and gap
index it occurs in. A row's read tier is the majority of its readers (more than half; a direction
counts when more than half of the readers who gave that tier gave it), as for the recognizer
sheets (:mod:`annotation.sheets`). For every occurrence the record's tier and direction at that gap
become the read ones and its score is recomputed from all its tiers (spec §5,
:func:`sitar.targets.score_from_tiers`, at the record's own ``rho``); the record's other gaps keep
their planned tiers. A changed record carries ``provenance.reread``: per read gap its index, the
sheet row, the readers, the planned and the read ``[tier, direction]``. Every other record is
copied byte for byte, in the same order.

A teacher file (``python -m training.teacher``) holds a model's reading of the planned tiers'
world; at ``teacher_weight: 1`` a record with a teacher line trains on the teacher alone. With
``--teacher IN --teacher-out OUT`` the lines of every record that got a read tier are left out of
OUT, so those records train on the read tiers.

    python -m annotation.synth.reread.apply RECORDS --out OUT.jsonl \
        [--teacher TEACHER.jsonl --teacher-out TEACHER_OUT.jsonl] [--reads DIR] [--keys DIR]

The keys must have been drawn from RECORDS (the same ids and gap texts): any occurrence whose
record is missing or whose gap texts differ is an error, and nothing is written. Rows that no
reader filled, or on which the readers have no majority, change nothing and are counted. A
summary (counts and the planned -> read tier table) is printed and written beside OUT as
``OUT.summary.json``, with the SHA-256 of every input, the command line and the sitar version.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from annotation.sheets import _parse_tier, majority_label
from annotation.synth.reread.make_sheets import HERE, _words
from sitar._main import ArgumentParser, tool_main
from sitar._version import __version__
from sitar.errors import InputError
from sitar.integrity import sha256_file
from sitar.outputs import open_output
from sitar.targets import DEFAULT_RHO, score_from_tiers

READ_FILE = re.compile(
    r"^synth-(?P<kind>sheet|adjudication)-(?P<sheet>\d+)\.(?P<reader>[A-Za-z0-9_-]+)\.csv$"
)


def collect_labels(
    reads: Path, keys: Path
) -> tuple[dict[str, list[tuple[str, int, int]]], dict[str, dict[str, Any]]]:
    """Every reader's label of every row (``synth-sheet-NN.READER.csv``, and the third readings
    ``synth-adjudication-NN.READER.csv``, whose rows keep their sheet's row ids) and each row's
    key. A reader who labels a row twice is an error."""
    files = sorted(reads.glob("*.csv"))
    if not files:
        raise InputError(f"{reads}: no read sheets (synth-sheet-NN.READER.csv)")
    labels: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
    key_of: dict[str, dict[str, Any]] = {}
    keys_of_sheet: dict[str, dict[str, Any]] = {}

    def key_rows(sheet: str, where: str) -> dict[str, Any]:
        if sheet not in keys_of_sheet:
            path = keys / f"synth-sheet-{sheet}.json"
            if not path.is_file():
                raise InputError(f"{where}: its key {path} is missing")
            keys_of_sheet[sheet] = json.loads(path.read_text(encoding="utf-8"))["rows"]
        return keys_of_sheet[sheet]

    for f in files:
        m = READ_FILE.match(f.name)
        if m is None:
            raise InputError(
                f"{f}: not a read sheet name (synth-sheet-NN.READER.csv or "
                "synth-adjudication-NN.READER.csv)"
            )
        reader = m.group("reader")
        with f.open(encoding="utf-8", newline="") as fh:
            for lineno, row in enumerate(csv.DictReader(fh), start=2):
                where = f"{f}:{lineno}"
                rid = row.get("row", "")
                sheet = m.group("sheet") if m.group("kind") == "sheet" else rid.split("-")[0]
                rows = key_rows(sheet, where)
                if rid not in rows:
                    raise InputError(f"{where}: row {rid!r} is not in synth-sheet-{sheet}.json")
                tier, direction = _parse_tier(
                    row.get("tier") or "", where, row.get("direction") or ""
                )
                key_of[rid] = rows[rid]
                if tier is None:
                    continue
                if any(r == reader for r, _, _ in labels[rid]):
                    raise InputError(f"{where}: reader {reader} labels row {rid} a second time")
                labels[rid].append((reader, tier, direction))
    return labels, key_of


def read_tiers(reads: Path, keys: Path) -> tuple[dict[str, dict[str, Any]], Counter[str]]:
    """Sheet row -> ``{"tier", "direction", "readers", "key"}`` for every row with a majority
    tier; the counter says how many rows were read, unread or without a majority."""
    labels, key_of = collect_labels(reads, keys)
    counts: Counter[str] = Counter()
    out: dict[str, dict[str, Any]] = {}
    for rid, key in key_of.items():
        given = labels.get(rid, [])
        if not given:
            counts["rows_unread"] += 1
            continue
        decided = majority_label([(t, d) for _, t, d in given])
        if decided is None:
            counts["rows_no_majority"] += 1
            continue
        out[rid] = {
            "tier": decided[0],
            "direction": decided[1],
            "readers": sorted(r for r, _, _ in given),
            "key": key,
        }
        counts["rows_read"] += 1
    return out, counts


def no_majority_rows(reads: Path, keys: Path) -> list[str]:
    """The rows whose readers have no majority tier (two readers who disagree), sorted."""
    labels, _ = collect_labels(reads, keys)
    return sorted(
        rid
        for rid, given in labels.items()
        if majority_label([(t, d) for _, t, d in given]) is None
    )


def _write(path: Path, lines: list[str], inputs: list[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open_output(path, inputs=inputs, flag=str(path)) as fh:
        fh.writelines(lines)


def apply_reads(
    records: Path,
    out: Path,
    *,
    reads: Path,
    keys: Path,
    teacher: Path | None = None,
    teacher_out: Path | None = None,
) -> dict[str, Any]:
    """Write ``out`` (and ``teacher_out``); returns the summary. Nothing is written on an error."""
    if (teacher is None) != (teacher_out is None):
        raise InputError("--teacher and --teacher-out go together")
    if not records.is_file():
        raise InputError(f"{records}: no such record file")
    if teacher is not None and not teacher.is_file():
        raise InputError(f"{teacher}: no such teacher file")
    if out.resolve() == records.resolve() or (
        teacher is not None
        and teacher_out is not None
        and teacher_out.resolve() == teacher.resolve()
    ):
        raise InputError("the outputs must not overwrite the inputs")
    rows, counts = read_tiers(reads, keys)
    wanted: dict[str, list[tuple[int, str, dict[str, Any]]]] = defaultdict(list)
    for rid, read in sorted(rows.items()):
        for record_id, gap in read["key"]["occurs"]:
            wanted[record_id].append((gap, rid, read))
    lines = records.read_text(encoding="utf-8").splitlines(keepends=True)
    changed: set[str] = set()
    transitions: Counter[str] = Counter()
    out_lines = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        rec = json.loads(line)
        todo = wanted.pop(rec.get("id"), None)
        if todo is None:
            out_lines.append(line if line.endswith("\n") else line + "\n")
            continue
        where = f"{records}:{lineno}"
        tiers, directions = list(rec["tiers"]), list(rec["directions"])
        log = []
        for gap, rid, read in sorted(todo, key=lambda t: t[0]):
            key = read["key"]
            if not 0 <= gap < len(rec["gaps"]):
                raise InputError(f"{where}: sheet row {rid} names gap {gap}; the record has "
                                 f"{len(rec['gaps'])}: were the keys drawn from this file?")  # fmt: skip
            g = rec["gaps"][gap]
            if (_words(g["ref_text"]), _words(g["hyp_text"])) != (
                _words(key["gap_reference_text"]),
                _words(key["gap_hypothesis_text"]),
            ):
                raise InputError(
                    f"{where}: gap {gap} is {g['ref_text']!r} -> {g['hyp_text']!r}, sheet row {rid} "
                    f"read {key['gap_reference_text']!r} -> {key['gap_hypothesis_text']!r}: were "
                    "the keys drawn from this file?"
                )
            planned = [tiers[gap], directions[gap]]
            tiers[gap], directions[gap] = read["tier"], read["direction"]
            transitions[f"T{planned[0]}->T{read['tier']}"] += 1
            log.append({"gap": gap, "row": rid, "readers": read["readers"], "planned": planned,
                        "read": [read["tier"], read["direction"]]})  # fmt: skip
        rec["tiers"], rec["directions"] = tiers, directions
        rec["score"] = score_from_tiers(tiers, directions, rho=rec.get("rho", DEFAULT_RHO))
        rec["provenance"] = {**rec.get("provenance", {}), "reread": log}
        changed.add(rec["id"])
        out_lines.append(json.dumps(rec, ensure_ascii=False) + "\n")
    if wanted:
        missing = sorted(wanted)[:3]
        raise InputError(
            f"{len(wanted)} record(s) named by the keys are not in {records} (e.g. {missing}): "
            "were the keys drawn from this file?"
        )
    teacher_lines = None
    if teacher is not None:
        teacher_lines = []
        for line in teacher.read_text(encoding="utf-8").splitlines(keepends=True):
            if line.strip() and json.loads(line).get("id") in changed:
                counts["teacher_lines_dropped"] += 1
            elif line.strip():
                teacher_lines.append(line if line.endswith("\n") else line + "\n")
    summary = {
        **dict(sorted(counts.items())),
        "records": len(out_lines),
        "records_changed": len(changed),
        "gaps_changed": sum(transitions.values()),
        "planned_to_read": dict(sorted(transitions.items())),
        "argv": list(sys.argv),
        "sitar_version": __version__,
        "inputs": {
            "records": {"path": str(records), "sha256": sha256_file(records)},
            **(
                {"teacher": {"path": str(teacher), "sha256": sha256_file(teacher)}}
                if teacher is not None
                else {}
            ),
            "reads": {p.name: sha256_file(p) for p in sorted(reads.glob("*.csv"))},
        },
    }
    inputs = [records, *([teacher] if teacher is not None else [])]
    _write(out, out_lines, inputs)
    if teacher_out is not None and teacher_lines is not None:
        _write(teacher_out, teacher_lines, inputs)
    _write(
        out.with_name(out.name + ".summary.json"), [json.dumps(summary, indent=1) + "\n"], inputs
    )
    return summary


@tool_main("python -m annotation.synth.reread.apply")
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(
        prog="python -m annotation.synth.reread.apply",
        description="Write the read tiers of the synthetic re-reading sheets into the records.",
    )
    ap.add_argument("records", type=Path, help="the record file the keys were drawn from")
    ap.add_argument("--out", type=Path, required=True, help="records with the read tiers")
    ap.add_argument("--teacher", type=Path, help="a teacher file for RECORDS")
    ap.add_argument("--teacher-out", type=Path, help="it, without the changed records' lines")
    ap.add_argument("--reads", type=Path, default=HERE / "reads", help="filled sheets")
    ap.add_argument("--keys", type=Path, default=HERE / "keys", help="the sheets' keys")
    args = ap.parse_args(argv)
    summary = apply_reads(
        args.records, args.out, reads=args.reads, keys=args.keys,
        teacher=args.teacher, teacher_out=args.teacher_out,
    )  # fmt: skip
    for k, v in summary.items():
        if k not in ("inputs", "argv", "sitar_version"):
            print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
