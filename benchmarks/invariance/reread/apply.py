"""Suite version 2 from version 1 and two blind re-reads (``README.md`` in this folder).

Reads ``flips_v1.jsonl`` (the flips as first written), ``read_A.csv`` and ``read_B.csv`` (two
readers' tiers, each on its own shuffled sheet; ``key.json`` maps a sheet item to its suite id)
and writes ``../flips.jsonl`` and ``../slips.jsonl``. The rule:

* both readers give the same tier: that tier;
* they differ: version 1's tier when one of them gave it, else the reader's tier nearer to it;
* a final tier T0 moves the item to ``slips.jsonl`` (recoverable slips, expected T0, ids
  ``slip-NNN`` in version 1's order); T1 and T2 stay in ``flips.jsonl``.

A changed item's reason is the reason of a reader who gave the final tier. Rerunning it on the
committed inputs reproduces the committed files (``tests/data/test_invariance_reread.py``).

    python -m benchmarks.invariance.reread.apply [--check]
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from annotation.sheets import reread_tier, write_derived
from benchmarks.invariance import _FIELDS
from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError

HERE = Path(__file__).resolve().parent
TIERS = ("T0", "T1", "T2")


def reads() -> dict[str, dict[str, tuple[str, str]]]:
    """suite id -> reader ("A"/"B") -> (tier, reason)."""
    key = json.loads((HERE / "key.json").read_text(encoding="utf-8"))
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for reader in ("A", "B"):
        with open(HERE / f"read_{reader}.csv", encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                if row["tier"] not in TIERS:
                    raise InputError(f"read_{reader}.csv {row['item']}: tier {row['tier']!r}")
                out.setdefault(key[row["item"]], {})[reader] = (row["tier"], row["reason"])
    return out


def build() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    items = [
        json.loads(line)
        for line in (HERE / "flips_v1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    read = reads()
    if set(read) != {i["id"] for i in items} or any(len(r) != 2 for r in read.values()):
        raise InputError("every version-1 item needs exactly one tier from each reader")
    flips: list[dict[str, str]] = []
    slips: list[dict[str, str]] = []
    for item in items:
        r = read[item["id"]]
        tier = reread_tier(item["expected"], r["A"][0], r["B"][0])
        out = dict(item)
        if tier != item["expected"]:
            reader = "A" if r["A"][0] == tier else "B"
            out["expected"] = tier
            out["reason"] = f"re-read: {r[reader][1]}"
        if tier == "T0":
            out["id"] = f"slip-{len(slips) + 1:03d}"
            slips.append(out)
        else:
            flips.append(out)
    return flips, slips


def render(rows: list[dict[str, str]]) -> str:
    return "".join(json.dumps({f: r[f] for f in _FIELDS}, ensure_ascii=False) + "\n" for r in rows)


@tool_main("python -m benchmarks.invariance.reread.apply")
def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(
        prog="python -m benchmarks.invariance.reread.apply",
        description="Write the suite's flips.jsonl and slips.jsonl from version 1 and the reads.",
    )
    p.add_argument("--check", action="store_true", help="only say whether the files are stale")
    args = p.parse_args(argv)
    flips, slips = build()
    outputs = {
        HERE.parent / "flips.jsonl": render(flips),
        HERE.parent / "slips.jsonl": render(slips),
    }
    if args.check:
        return write_derived(outputs, check=True)
    write_derived(outputs, check=False)
    print(f"{len(flips)} flips, {len(slips)} slips")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
