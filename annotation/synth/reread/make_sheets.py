"""Blank reading sheets for re-reading the planned T1/T2 gaps of the synthetic corpus under
rubric asr-v2 (the rubric of the recognizer labels; see ``README.md`` here).

One row per distinct gap (the same reference text, reference words and recognized words), drawn
from a synthetic record file in normal form: ``--per-sheet`` rows a sheet, ``--soundalike`` of them
from the sound-alike operators (``phonetic_outcome``, ``inform_phonetic``, ``direction_neighbour``,
``contrast_neighbour``) and the rest from the other operators with a planned T1/T2 tier, shuffled
with a fixed seed; gaps already on an earlier sheet (``--exclude`` keys) are skipped. The sheets
have the columns of the recognizer labelling sheets; each sheet's key (row -> operator, planned
tier and direction, and every record and gap index the row stands for) is written apart, under
``keys/``, and is never shown to a reader.

    python -m annotation.synth.reread.make_sheets RECORDS --first-sheet 1 --sheets 8 \
        [--exclude KEY.json ...] [--out DIR]
"""

from __future__ import annotations

import csv
import json
import random
import re
from collections import defaultdict
from pathlib import Path

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError

HERE = Path(__file__).resolve().parent
SOUNDALIKE = ("phonetic_outcome", "inform_phonetic", "direction_neighbour", "contrast_neighbour")
COLUMNS = [
    "row", "reference", "hypothesis", "gap_reference_text", "gap_hypothesis_text",
    "marked_reference", "single_gap_hypothesis", "tier", "direction", "note",
]  # fmt: skip


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w' ]+", " ", text.casefold()).split())


def gaps_of(records_path: str) -> dict[tuple[str, str, str, int], dict]:
    """Every planned T1/T2 gap of the file, keyed by (reference, reference words, recognized
    words, start), with the records and gap indices it occurs in."""
    found: dict[tuple[str, str, str, int], dict] = {}
    with open(records_path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            ref = rec["reference"]
            for edit in rec["provenance"].get("edits", []):
                if edit["tier"] == 0 or len(edit["gaps"]) != 1:
                    continue
                i = edit["gaps"][0]
                if i >= len(rec["gaps"]):
                    continue
                gap = rec["gaps"][i]
                if _words(gap["ref_text"]) != _words(edit["ref_text"]) or _words(
                    gap["hyp_text"]
                ) != _words(edit["new_text"]):
                    continue  # the normal form merged or moved the gap: not drawn
                a, b = gap["ref_span"]
                key = (ref, gap["ref_text"], gap["hyp_text"], a)
                row = found.setdefault(
                    key,
                    {
                        "op": edit["op"],
                        "tier": edit["tier"],
                        "direction": edit["direction"],
                        "occurs": [],
                        "reference": ref,
                        "hypothesis": rec["hypothesis"],
                        "gap_reference_text": gap["ref_text"],
                        "gap_hypothesis_text": gap["hyp_text"],
                        "marked_reference": f"{ref[:a]}[[{gap['ref_text']} => "
                        f"{gap['hyp_text']}]]{ref[b:]}",
                        "single_gap_hypothesis": " ".join(
                            (ref[:a] + gap["hyp_text"] + ref[b:]).split()
                        ),
                    },
                )
                row["occurs"].append([rec["id"], i])
    return found


@tool_main("python -m annotation.synth.reread.make_sheets")
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(
        prog="python -m annotation.synth.reread.make_sheets",
        description="Blank sheets for re-reading planned T1/T2 synthetic gaps (README.md).",
    )
    ap.add_argument("records")
    ap.add_argument("--first-sheet", type=int, required=True)
    ap.add_argument("--sheets", type=int, required=True)
    ap.add_argument("--per-sheet", type=int, default=250)
    ap.add_argument("--soundalike", type=int, default=200)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--exclude", nargs="*", default=[], help="earlier keys whose gaps to skip")
    ap.add_argument("--out", default=str(HERE), help="folder for sheets/ and keys/ (default: here)")
    args = ap.parse_args(argv)
    if args.sheets < 1 or args.per_sheet < 1 or not 0 <= args.soundalike <= args.per_sheet:
        raise InputError("--sheets and --per-sheet must be >= 1, --soundalike within 0..per-sheet")
    if not Path(args.records).is_file():
        raise InputError(f"{args.records}: no such record file")
    out = Path(args.out)
    seen: set[tuple[str, str, str]] = set()
    for path in args.exclude:
        for k in json.loads(Path(path).read_text(encoding="utf-8"))["rows"].values():
            seen.add((k["reference"], k["gap_reference_text"], k["gap_hypothesis_text"]))
    pools: dict[bool, list[dict]] = defaultdict(list)
    for row in gaps_of(args.records).values():
        if (row["reference"], row["gap_reference_text"], row["gap_hypothesis_text"]) in seen:
            continue
        pools[row["op"] in SOUNDALIKE].append(row)
    rng = random.Random(args.seed)
    for pool in pools.values():
        pool.sort(key=lambda r: (r["occurs"][0][0], r["marked_reference"]))
        rng.shuffle(pool)
    (out / "sheets").mkdir(parents=True, exist_ok=True)
    (out / "keys").mkdir(parents=True, exist_ok=True)
    for s in range(args.first_sheet, args.first_sheet + args.sheets):
        rows = [pools[True].pop() for _ in range(min(args.soundalike, len(pools[True])))]
        rest = args.per_sheet - len(rows)
        rows += [pools[False].pop() for _ in range(min(rest, len(pools[False])))]
        rng.shuffle(rows)
        key = {}
        with (out / "sheets" / f"synth-sheet-{s:02d}.csv").open(
            "w", encoding="utf-8", newline=""
        ) as fh:
            w = csv.DictWriter(fh, fieldnames=COLUMNS)
            w.writeheader()
            for i, r in enumerate(rows, 1):
                rid = f"{s:02d}-{i:03d}"
                key[rid] = {
                    k: r[k]
                    for k in ("op", "tier", "direction", "occurs", "reference",
                              "gap_reference_text", "gap_hypothesis_text")
                }  # fmt: skip
                w.writerow({"row": rid, **{c: r[c] for c in COLUMNS[1:7]}})
        (out / "keys" / f"synth-sheet-{s:02d}.json").write_text(
            json.dumps({"source": args.records, "seed": args.seed, "rows": key}, indent=1) + "\n",
            encoding="utf-8",
        )
        print(f"sheet {s:02d}: {len(rows)} rows")
    print(f"left: {len(pools[True])} sound-alike, {len(pools[False])} other gaps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
