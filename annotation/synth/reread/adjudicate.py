"""An adjudication sheet: the rows two readers read with two different tiers, for a third reader.

    python -m annotation.synth.reread.adjudicate --number N [--reads DIR] [--keys DIR] [--out DIR]

Writes ``sheets/synth-adjudication-NN.csv``: every row of the read sheets whose readers have no
majority tier (:func:`annotation.synth.reread.apply.no_majority_rows`) and that is on no earlier
adjudication sheet, copied from its blank sheet with its own row id and in row-id order, with the
columns of every sheet. The third reader fills it like a sheet and saves it as
``reads/synth-adjudication-NN.READER.csv``; ``apply`` then counts that reader's tier with the
other two (a row on which all three differ still has no majority and stays as planned).
"""

from __future__ import annotations

import csv
from pathlib import Path

from annotation.synth.reread.apply import no_majority_rows
from annotation.synth.reread.make_sheets import COLUMNS, HERE
from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError


def adjudication_rows(reads: Path, keys: Path, sheets: Path) -> list[dict[str, str]]:
    """The blank-sheet rows of every no-majority row not on an earlier adjudication sheet."""
    earlier = set()
    for path in sorted(sheets.glob("synth-adjudication-*.csv")):
        with path.open(encoding="utf-8", newline="") as fh:
            earlier.update(row["row"] for row in csv.DictReader(fh))
    wanted = [rid for rid in no_majority_rows(reads, keys) if rid not in earlier]
    blank: dict[str, dict[str, str]] = {}
    for sheet in sorted({rid.split("-")[0] for rid in wanted}):
        path = sheets / f"synth-sheet-{sheet}.csv"
        if not path.is_file():
            raise InputError(f"the blank sheet {path} is missing")
        with path.open(encoding="utf-8", newline="") as fh:
            blank.update((row["row"], row) for row in csv.DictReader(fh))
    return [{c: blank[rid][c] for c in COLUMNS[:7]} for rid in wanted]


@tool_main("python -m annotation.synth.reread.adjudicate")
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(
        prog="python -m annotation.synth.reread.adjudicate",
        description="An adjudication sheet of the rows two readers read differently.",
    )
    ap.add_argument("--number", type=int, required=True, help="NN of the new sheet")
    ap.add_argument("--reads", type=Path, default=HERE / "reads", help="filled sheets")
    ap.add_argument("--keys", type=Path, default=HERE / "keys", help="the sheets' keys")
    ap.add_argument("--out", type=Path, default=HERE, help="folder holding sheets/ (default: here)")
    args = ap.parse_args(argv)
    if args.number < 1:
        raise InputError("--number must be >= 1")
    sheets = args.out / "sheets"
    target = sheets / f"synth-adjudication-{args.number:02d}.csv"
    if target.exists():
        raise InputError(f"{target} exists; choose another --number")
    rows = adjudication_rows(args.reads, args.keys, sheets)
    if not rows:
        print("no row without a majority is left; nothing written")
        return 0
    sheets.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    print(f"{target}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
