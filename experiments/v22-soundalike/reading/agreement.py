"""Compare the two blind readings of the sound-alike sheet with the generator's tiers.

    python experiments/v22-soundalike/reading/agreement.py [--json OUT]

Prints, per operator: rows, the readers' tier counts, the share where each reader and both
readers give the generator's tier, and the share both readers call T0; then Cohen's kappa between
the readers over all rows.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOUNDALIKE = ("phonetic_outcome", "inform_phonetic", "direction_neighbour", "contrast_neighbour")


def _tiers(path: Path) -> dict[str, int]:
    with path.open(encoding="utf-8", newline="") as fh:
        return {r["row"]: int(r["tier"].strip().upper()[1]) for r in csv.DictReader(fh)}


def kappa(a: list[int], b: list[int]) -> float:
    n = len(a)
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return (po - pe) / (1 - pe)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    key = json.loads((HERE / "key.json").read_text(encoding="utf-8"))["rows"]
    r1, r2 = _tiers(HERE / "read-R1.csv"), _tiers(HERE / "read-R2.csv")
    if not set(key) == set(r1) == set(r2):
        raise SystemExit("the readings and the key name different rows")
    groups: dict[str, list[str]] = defaultdict(list)
    for row, k in key.items():
        groups[k["op"]].append(row)
        if k["op"] in SOUNDALIKE:
            groups["sound-alike (all four)"].append(row)
        else:
            groups["controls (all)"].append(row)
    out = {}
    print(f"{'operator':<24} {'n':>4} {'gen':>5} {'R1 T0/T1/T2':>12} {'R2 T0/T1/T2':>12} "
          f"{'R1=gen':>7} {'R2=gen':>7} {'both=gen':>8} {'both T0':>7}")  # fmt: skip
    for op in sorted(groups, key=lambda g: (g.startswith(("sound", "controls")), g)):
        rows = groups[op]
        gen = Counter(key[r]["tier"] for r in rows)
        c1, c2 = Counter(r1[r] for r in rows), Counter(r2[r] for r in rows)
        n = len(rows)
        fig = {
            "n": n,
            "generator_tiers": [gen[t] for t in range(3)],
            "r1_tiers": [c1[t] for t in range(3)],
            "r2_tiers": [c2[t] for t in range(3)],
            "r1_agrees_pct": round(100 * sum(r1[r] == key[r]["tier"] for r in rows) / n, 1),
            "r2_agrees_pct": round(100 * sum(r2[r] == key[r]["tier"] for r in rows) / n, 1),
            "both_agree_pct": round(
                100 * sum(r1[r] == r2[r] == key[r]["tier"] for r in rows) / n, 1
            ),
            "both_t0_pct": round(100 * sum(r1[r] == r2[r] == 0 for r in rows) / n, 1),
        }
        out[op] = fig
        g = "/".join(str(x) for x in fig["generator_tiers"])
        print(f"{op:<24} {n:>4} {g:>5} {'/'.join(map(str, fig['r1_tiers'])):>12} "
              f"{'/'.join(map(str, fig['r2_tiers'])):>12} {fig['r1_agrees_pct']:>7} "
              f"{fig['r2_agrees_pct']:>7} {fig['both_agree_pct']:>8} {fig['both_t0_pct']:>7}")  # fmt: skip
    rows = sorted(key)
    k = kappa([r1[r] for r in rows], [r2[r] for r in rows])
    agree = sum(r1[r] == r2[r] for r in rows)
    out["readers"] = {"agree": agree, "n": len(rows), "kappa": round(k, 3)}
    print(f"readers agree on {agree}/{len(rows)} rows, kappa {k:.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
