"""Hand-labelled recognizer gaps -> training and test records.

``python -m annotation.asr labels BUILD --labels annotation/asr/labels --out records.jsonl`` reads
every filled sheet in the labels folder (``<sheet>.<reader>.csv``: one file per sheet and reader;
``adjudication-*.<reader>.csv``: a third reader on the pairs two readers disagreed on) through the
human-sheet path (:func:`annotation.sheets.import_sheets`, all files at once, so a pair gets the
labels of every file that holds it), then gives each record the split of its reference's group
from ``BUILD/splits.json``. A gap's tier is the majority of its readers: one reader, two who agree,
or two who disagree plus the third reader (a pair with a gap on which all three differ is dropped
and reported as ``no_majority``). Records keep the recognizer system(s) and the readers in their
provenance, and, for pairs of sheets written by ``active-sheets`` (:mod:`annotation.asr.active`),
how their reference was chosen (``provenance.selection``: ``active`` or ``random``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from annotation.sheets import _read_sheet, import_sheets
from sitar.errors import InputError
from sitar.records import write_records

__all__ = ["LABEL_FILE_RE", "import_labels"]

#: ``asr-sheet-07.L8.csv`` / ``adjudication-01.L11.csv`` / ``reread-01.R1.csv`` (a re-read under
#: a new rubric, :mod:`annotation.asr.reread`): sheet stem and reader id.
LABEL_FILE_RE = re.compile(
    r"^(?P<sheet>(asr-sheet|adjudication|reread)-\d+)\.(?P<reader>[A-Za-z0-9_-]+)\.csv$"
)


def label_files(folder: str | Path) -> list[Path]:
    """The filled sheets of a labels folder, sorted; anything else ending in .csv is an error."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"labels folder not found: {folder}")
    files = sorted(folder.glob("*.csv"))
    bad = [f.name for f in files if not LABEL_FILE_RE.match(f.name)]
    if bad:
        raise InputError(
            f"{folder}: {bad} are not named <sheet>.<reader>.csv (e.g. asr-sheet-07.L8.csv)"
        )
    if not files:
        raise InputError(f"{folder}: no filled sheets (*.csv)")
    return files


def import_labels(build: str | Path, labels: str | Path, out: str | Path) -> dict[str, Any]:
    """Write the records of every labelled pair to ``out``; returns a summary (counts per split,
    system, tier, reader and the rejected pairs)."""
    build = Path(build)
    files = label_files(labels)
    for name in ("splits.json", "references.jsonl"):
        if not (build / name).is_file():
            raise InputError(f"{build / name} not found; run `python -m annotation.asr export`")
    groups = json.loads((build / "splits.json").read_text(encoding="utf-8"))["groups"]
    group_of = {}
    for line in (build / "references.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            ref = json.loads(line)
            group_of[ref["id"]] = ref["group"]
    sheet_pairs: dict[str, dict[str, Any]] = {}
    for f in sorted((build / "sheets").glob("*.pairs.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                sheet_pairs[row["id"]] = {"sheet": f.name.split(".")[0], **row}
    result = import_sheets([str(f) for f in files])
    readers_of: dict[str, list[str]] = {}
    for f in files:
        m = LABEL_FILE_RE.match(f.name)
        assert m is not None
        for pid in {row["pair_id"] for _, row in _read_sheet(f)}:
            readers_of.setdefault(pid, []).append(m.group("reader"))
    records = []
    for r in result.records:
        system, _, ref_id = r.id.partition("/")
        if ref_id not in group_of:
            raise InputError(f"labelled pair {r.id!r}: reference {ref_id!r} is not in {build}")
        meta = sheet_pairs.get(r.id, {})
        provenance = {
            **r.provenance,
            "source": "asr-hand",
            "system": system,
            "also_systems": meta.get("also_systems", []),
            "sheet": meta.get("sheet"),
            "readers": readers_of.get(r.id, []),
            "reference_id": ref_id,
            "pool_id": group_of[ref_id],
        }
        if meta.get("selection") is not None:
            # how an active-sheets reference was chosen ("active" / "random"; annotation.asr.
            # active), so metrics can be reported per part; earlier sheets have no tag
            provenance["selection"] = meta["selection"]
        records.append(
            dataclasses.replace(r, split=groups[group_of[ref_id]], provenance=provenance)
        )
    write_records(out, records)
    tiers: Counter[str] = Counter()
    gaps_per_split: Counter[str] = Counter()
    for r in records:
        tiers.update(f"T{t}{'+' if d > 0 else '-' if d < 0 else ''}" for t, d in
                     zip(r.tiers, r.directions, strict=True))  # fmt: skip
        gaps_per_split[str(r.split)] += len(r.tiers)
    return {
        "files": [f.name for f in files],
        "records": len(records),
        "gaps": sum(len(r.tiers) for r in records),
        "records_per_split": dict(sorted(Counter(str(r.split) for r in records).items())),
        "gaps_per_split": dict(sorted(gaps_per_split.items())),
        "records_per_system": dict(
            sorted(Counter(r.provenance["system"] for r in records).items())
        ),
        "positions": dict(sorted(tiers.items())),
        "readers_per_record": dict(
            sorted(Counter(len(r.provenance["readers"]) for r in records).items())
        ),
        "rejected": result.rejected,
    }
