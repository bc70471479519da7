"""Build the blind reading sheet of the sound-alike reading of candidate v22 (../preregistration.md).

Draws single gaps of the synthetic training file (normal form version 2, as the model reads it),
one row per distinct (reference, reference words, recognized words): every sound-alike family
(``phonetic_outcome``, ``inform_phonetic``, ``direction_neighbour``, ``contrast_neighbour``) and,
so that the reader cannot tell the study's question from the sheet, control gaps of other
operators. Rows are shuffled and get neutral ids. The sheet has the columns of the recognizer
labelling sheets; the key (row id -> record id, operator, generator tier and direction) goes to a
separate file that the reader never sees.

    python experiments/v22-soundalike/reading/make_sheet.py RECORDS SHEET.csv KEY.json
"""

from __future__ import annotations

import csv
import json
import random
import sys
from collections import defaultdict

# the sheet's columns and the word comparison are the re-reading tool's (run from the repo root)
sys.path.insert(0, ".")
from annotation.synth.reread.make_sheets import COLUMNS, _words

SEED = 31
QUOTA = {
    "phonetic_outcome": 100,
    "inform_phonetic": 90,
    "direction_neighbour": 15,
    "contrast_neighbour": 15,
    # controls
    "action_verb": 15,
    "value_change": 15,
    "entity_swap": 15,
    "homophone": 10,
    "antonym": 10,
    "inform_drop_word": 10,
    "drop_function_word": 5,
}


def _gap_of(rec: dict, edit: dict) -> dict | None:
    """The normal-form gap of a written-form edit: its index when the words agree (the normal
    form can merge or drop gaps, so an index alone is not trusted), else None (not drawn)."""
    i = edit["gaps"][0]
    if i >= len(rec["gaps"]):
        return None
    gap = rec["gaps"][i]
    same = _words(gap["ref_text"]) == _words(edit["ref_text"]) and _words(
        gap["hyp_text"]
    ) == _words(edit["new_text"])
    return gap if same else None


def main(records_path: str, sheet_path: str, key_path: str) -> None:
    by_op: dict[str, dict[tuple[str, str, str], dict]] = defaultdict(dict)
    with open(records_path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            ref = rec["reference"]
            for edit in rec["provenance"].get("edits", []):
                if edit["op"] not in QUOTA or len(edit["gaps"]) != 1:
                    continue
                gap = _gap_of(rec, edit)
                if gap is None:
                    continue
                a, b = gap["ref_span"]
                key = (ref, gap["ref_text"], gap["hyp_text"])
                by_op[edit["op"]].setdefault(
                    key,
                    {
                        "record": rec["id"],
                        "op": edit["op"],
                        "tier": edit["tier"],
                        "direction": edit["direction"],
                        "reference": ref,
                        "hypothesis": rec["hypothesis"],
                        "gap_reference_text": gap["ref_text"],
                        "gap_hypothesis_text": gap["hyp_text"],
                        "marked_reference": f"{ref[:a]}[[{gap['ref_text']} => {gap['hyp_text']}]]"
                        f"{ref[b:]}",
                        "single_gap_hypothesis": " ".join(
                            (ref[:a] + gap["hyp_text"] + ref[b:]).split()
                        ),
                    },
                )
    rng = random.Random(SEED)
    rows = []
    for op, n in QUOTA.items():
        pool = sorted(by_op[op].values(), key=lambda r: (r["record"], r["gap_reference_text"]))
        rows.extend(rng.sample(pool, min(n, len(pool))))
    rng.shuffle(rows)
    key = {}
    with open(sheet_path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for i, r in enumerate(rows, 1):
            rid = f"s{i:03d}"
            key[rid] = {k: r[k] for k in ("record", "op", "tier", "direction")}
            w.writerow({"row": rid, **{c: r.get(c, "") for c in COLUMNS[1:7]}})
    with open(key_path, "w", encoding="utf-8") as fh:
        json.dump({"seed": SEED, "source": records_path, "rows": key}, fh, indent=1)
    print(f"{len(rows)} rows -> {sheet_path}; key -> {key_path}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
