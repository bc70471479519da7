"""Blank reading sheets for re-reading the challenge files under rubric asr-v2 (``README.md``).

Every case of ``sitar_challenge_v1.jsonl`` and ``sitar_challenge_scope_v1.jsonl`` goes on each
reader's sheet once, in the reader's own seeded order, under a neutral id (``A001``... for
reader A, ``B001``... for reader B). A sheet has the columns ``item, reference, hypothesis,
tier, reason`` (the last two blank); ``key.json`` maps each sheet id to its case id and is never
shown to a reader.

    python -m annotation.challenge.reread.make_sheets [--check]
"""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

from annotation.challenge import CHALLENGE_V1_FILE, SCOPE_V1_FILE, load_challenge
from annotation.sheets import write_derived
from sitar._main import ArgumentParser, tool_main

HERE = Path(__file__).resolve().parent
READERS = ("A", "B")
SEED = "challenge-reread-2026-12-05"
SHEET_COLUMNS = ["item", "reference", "hypothesis", "tier", "reason"]


def sheets() -> tuple[dict[str, str], dict[str, str]]:
    """(sheet file name -> CSV text, sheet id -> case id)."""
    cases = [*load_challenge(CHALLENGE_V1_FILE), *load_challenge(SCOPE_V1_FILE)]
    texts: dict[str, str] = {}
    key: dict[str, str] = {}
    for reader in READERS:
        order = list(range(len(cases)))
        random.Random(f"{SEED}:{reader}").shuffle(order)
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(SHEET_COLUMNS)
        for n, k in enumerate(order, 1):
            sheet_id = f"{reader}{n:03d}"
            key[sheet_id] = cases[k].id
            writer.writerow([sheet_id, cases[k].reference, cases[k].hypothesis, "", ""])
        texts[f"sheet_{reader}.csv"] = buf.getvalue()
    return texts, key


@tool_main("python -m annotation.challenge.reread.make_sheets")
def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(
        prog="python -m annotation.challenge.reread.make_sheets",
        description="Write the two blank reading sheets and key.json for the challenge re-read.",
    )
    p.add_argument("--check", action="store_true", help="only say whether the files are stale")
    args = p.parse_args(argv)
    texts, key = sheets()
    texts["key.json"] = json.dumps(key, indent=0) + "\n"
    outputs = {HERE / name: text for name, text in texts.items()}
    if args.check:
        return write_derived(outputs, check=True)
    write_derived(outputs, check=False)
    print(f"{len(key) // len(READERS)} cases a sheet, readers {', '.join(READERS)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
