"""The gap head's T1/T2 cut chosen on the transcript-level validation set (issue #31; study).

    python experiments/severity-val-cut/measure.py --checkpoint DIR \
        --validation F.jsonl [...] [--json OUT.json]

The rule is ``preregistration.md``'s, committed before the validation labels existed:

* per item of ``annotation/asr/severity-val`` (resolved labels in ``data/labels.jsonl``): ``top``,
  the highest raw expected step of its gaps (``decode="mean"``; 0 for a pair the scorer finds
  identical); the item is in the T2 band at cut ``c`` exactly when ``top >= c``;
* Youden's ``J(c) = P(band | reader T2) - P(band | reader T0 or T1)`` over the grid; ``c*`` the
  best, a tie going to the value nearest 4.5;
* condition 2: the mean per-gap tier accuracy over the ``--validation`` files at each cut
  (``experiments/t2-cut/measure.py``'s ``validation_gaps``);
* condition 3: Cohen's kappa of readers A and B (``data/agreement.json``).

Also reported (choosing nothing): band shares and reader-T2 recall at 4.5 and ``c*``, and
``python -m benchmarks severity``'s measures for SITAR's score, ``swer``, WER, CER and 1 - chrF on
the validation items. The benchmark is not read.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
VAL = ROOT / "annotation/asr/severity-val"
GRID = (4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.5, 5.75)
TODAY = 4.5


def _t2_cut_module():
    spec = importlib.util.spec_from_file_location("t2_cut", ROOT / "experiments/t2-cut/measure.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def youden(top: np.ndarray, reader: np.ndarray, cut: float) -> dict[str, float]:
    band = top >= cut
    out = {f"reader_t{k}_in_t2_band": float(band[reader == k].mean()) for k in (0, 1, 2)}
    out["J"] = out["reader_t2_in_t2_band"] - float(band[reader <= 1].mean())
    return {k: round(v, 4) for k, v in out.items()}


def choose(rows: dict[float, dict[str, float]]) -> float:
    best = max(r["J"] for r in rows.values())
    return min((c for c, r in rows.items() if r["J"] == best), key=lambda c: abs(c - TODAY))


def main(argv: list[str] | None = None) -> int:
    from benchmarks.severity.labels import read_items
    from benchmarks.severity.run import auc, evaluate, metric_values
    from sitar import Scorer

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--validation", nargs="+", required=True, help="per-gap validation files")
    p.add_argument("--set", type=Path, default=VAL, help="the validation set's folder")
    p.add_argument("--json")
    args = p.parse_args(argv)

    items = read_items(args.set / "data/items.jsonl")
    labels = {r["item_id"]: r for r in read_items(args.set / "data/labels.jsonl")}
    agreement = json.loads((args.set / "data/agreement.json").read_text("utf-8"))
    reader = np.array([labels[it["item_id"]]["tier"] for it in items])
    scorer = Scorer.load(args.checkpoint, decode="mean")
    analyses = scorer.analyze(
        references=[it["reference"] for it in items], hypotheses=[it["hypothesis"] for it in items]
    )
    top = np.array([max((g.expected for g in a.gaps or ()), default=0.0) for a in analyses])

    rows = {c: youden(top, reader, c) for c in GRID}
    best = choose(rows)
    t2cut = _t2_cut_module()
    per_file = {}
    for f in args.validation:
        e, t = t2cut.validation_gaps(scorer, Path(f))
        per_file[Path(f).name] = {str(c): float((t2cut._tiers(e, c) == t).mean()) for c in GRID}
    gap_acc = {str(c): round(float(np.mean([v[str(c)] for v in per_file.values()])), 4)
               for c in GRID}  # fmt: skip
    kappa = agreement["kappa"]
    conditions = {
        "1_moves_and_J_gain_ge_0.02": best != TODAY and rows[best]["J"] - rows[TODAY]["J"] >= 0.02,
        "2_gap_accuracy_drop_le_1pt": gap_acc[str(TODAY)] - gap_acc[str(best)] <= 0.01,
        "3_kappa_ge_0.6": kappa >= 0.6,
    }
    out = {
        "checkpoint": args.checkpoint,
        "signature": scorer.signature,
        "items": len(items),
        "reader_tiers": {f"T{k}": int((reader == k).sum()) for k in (0, 1, 2)},
        "kappa_A_B": kappa,
        "by_cut": {str(c): r for c, r in rows.items()},
        "chosen_cut": best,
        "gap_tier_accuracy_mean": gap_acc,
        "gap_tier_accuracy_per_file": per_file,
        "conditions": conditions,
        "adopt": all(conditions.values()),
        "diagnostic": {
            "auc_t2_top": round(auc(reader == 2, top), 4),
            "auc_t1plus_top": round(auc(reader >= 1, top), 4),
        },
    }
    values = metric_values(
        [it["reference"] for it in items],
        [it["hypothesis"] for it in items],
        scorer=Scorer.load(args.checkpoint),
    )
    report = evaluate(items, labels, values)
    out["diagnostic"]["metrics"] = {
        name: {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()
               if k != "system_values"}
        for name, row in report["metrics"].items()
    }  # fmt: skip
    print(json.dumps({k: v for k, v in out.items() if k not in ("signature",)}, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
