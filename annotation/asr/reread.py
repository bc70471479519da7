"""Re-read recognizer labels under a new rubric -> label sheets the importer reads.

The first recognizer labels (``annotation/asr/labels/``, rubric v1) judged the literal token. Rubric
asr-v2 (``annotation/prompts/rubric_asr.v2.txt``) judges what a careful reader of the transcript
takes away, so every labelled gap was read again. A re-read sheet has one row per distinct gap
(``pair_id``, ``gap_id``) with the earlier labels (``tier_v1``: the majority of its v1 readers, as
the importer computes it; ``direction_v1``, ``readers_v1``, ``note_v1``) and the re-reader's
``tier_v2``, ``direction_v2`` and, whenever the tier changed, a one-line ``change_reason``.

``python -m annotation.asr reread SRC.csv [...] --dest annotation/asr/labels-v2 --reader R1``
checks every filled re-read sheet (every row has a v2 tier, every change a reason, directions legal)
and writes it as an ordinary label sheet, ``reread-NN.<reader>.csv``: ``tier``/``direction`` are
the v2 labels, ``note`` the change reason, and the v1 columns stay beside them, so the file is
both the record of every change and an input of ``python -m annotation.asr labels``.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sitar.errors import InputError

__all__ = ["REREAD_COLUMNS", "export_reread", "transitions"]

#: Columns of a written re-read label sheet, in order.
REREAD_COLUMNS = (
    "pair_id", "gap_id", "reference", "hypothesis", "gap_reference_text", "gap_hypothesis_text",
    "marked_reference", "single_gap_hypothesis", "tier", "direction", "rank", "note",
    "tier_v1", "direction_v1", "readers_v1", "note_v1",
)  # fmt: skip
_TIERS = ("T0", "T1", "T2")
_NAME = re.compile(r"reread-(\d+)")


def _check_row(row: dict[str, str], where: str) -> tuple[str, str]:
    tier = (row.get("tier_v2") or "").strip().upper()
    if tier not in _TIERS:
        raise InputError(f"{where}: tier_v2 must be T0, T1 or T2, got {row.get('tier_v2')!r}")
    direction = (row.get("direction_v2") or "").strip()
    if direction not in ("", "+", "-"):
        raise InputError(f"{where}: direction_v2 must be empty, '+' or '-', got {direction!r}")
    if (tier, direction) in (("T2", "+"), ("T0", "-")):
        raise InputError(
            f"{where}: {tier}{direction} is not a position (no '+' on T2, no '-' on T0)"
        )
    if (
        tier != (row.get("tier_v1") or "").strip().upper()
        and not (row.get("change_reason") or "").strip()
    ):
        raise InputError(
            f"{where}: tier changed from {row.get('tier_v1')} to {tier} without a change_reason"
        )
    return tier, direction


def export_reread(src: str | Path, dest: str | Path, *, reader: str) -> dict[str, Any]:
    """Check one filled re-read sheet and write it as ``dest/reread-NN.<reader>.csv`` (``NN`` from
    the source name). Returns the v1 -> v2 transition counts."""
    src, dest = Path(src), Path(dest)
    m = _NAME.search(src.name)
    if m is None:
        raise InputError(f"{src}: a re-read sheet is named reread-NN*.csv")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", reader):
        raise InputError(f"reader id {reader!r}: letters, digits, '_' and '-' only")
    try:
        rows = list(csv.DictReader(src.open(encoding="utf-8-sig", newline="")))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{src}: cannot read the sheet ({e})") from e
    if not rows:
        raise InputError(f"{src}: no rows")
    out_rows = []
    counts: Counter[str] = Counter()
    for line, row in enumerate(rows, start=2):
        tier, direction = _check_row(row, f"{src}:{line}")
        counts[f"{row['tier_v1']}->{tier}"] += 1
        out_rows.append(
            {**{c: row.get(c, "") for c in REREAD_COLUMNS}, "tier": tier, "direction": direction,
             "rank": "", "note": (row.get("change_reason") or "").strip()}
        )  # fmt: skip
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"reread-{m.group(1)}.{reader}.csv"
    tmp = path.with_name(path.name + ".part")
    with tmp.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(REREAD_COLUMNS))
        w.writeheader()
        w.writerows(out_rows)
    tmp.replace(path)
    return {"file": path.name, "rows": len(out_rows), "transitions": dict(sorted(counts.items()))}


def transitions(files: Sequence[str | Path]) -> dict[str, int]:
    """v1 -> v2 tier transitions summed over written re-read sheets (``tier_v1`` -> ``tier``)."""
    counts: Counter[str] = Counter()
    for f in files:
        for row in csv.DictReader(Path(f).open(encoding="utf-8", newline="")):
            counts[f"{row['tier_v1']}->{row['tier']}"] += 1
    return dict(sorted(counts.items()))
