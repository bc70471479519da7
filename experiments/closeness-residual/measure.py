"""Do the closeness features know what the gap head misses on real output? (issue #31 item 5; study)

    python experiments/closeness-residual/measure.py --checkpoint DIR --validation F.jsonl [...] \
        [--json OUT.json]

For the hand-labelled gaps of the validation files (those whose spans match the scorer's
segmentation, ``training.evaluate_checkpoint.same_gaps``), with the gap head's raw expected step
``e`` (``decode="mean"``) and the gap's two :mod:`sitar.closeness` features:

* T2 against T1 (gaps labelled T1 or T2): the AUC of ``e`` alone, and the 5-fold cross-validated
  AUC of a logistic regression on ``e`` alone and on ``e`` plus the features (folds by record);
* all tiers: 5-fold cross-validated tier accuracy of an ordinal-free multinomial regression on
  the same two inputs, against ``e``'s own rounding (today's ``tier`` decoding);
* the labelled T1 gaps that ``e`` reads T2 (``e >= 4.5``): their mean features against the T2
  gaps read T2.

Validation only: a gain here says the features carry what the head has not learnt, which is what
a run with ``gap_closeness: true`` would have to learn.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def gaps(scorer, path: Path):
    from sitar.closeness import gap_closeness
    from sitar.records import read_records
    from training.evaluate_checkpoint import same_gaps

    records = [r for r in read_records(path) if r.split == "validation"]
    analyses = scorer.analyze(
        references=[r.reference for r in records], hypotheses=[r.hypothesis for r in records]
    )
    rows = []
    for k, (record, a) in enumerate(zip(records, analyses, strict=True)):
        if not record.gaps or not same_gaps(record, a):
            continue
        feats = gap_closeness([(g.ref_text, g.hyp_text) for g in a.segmentation.gaps])
        for p, t, f, g in zip(a.gaps, record.tiers, feats, a.segmentation.gaps, strict=True):
            rows.append(
                (
                    f"{path.name}:{k}",
                    p.expected,
                    t,
                    float(f[0]),
                    float(f[1]),
                    g.ref_text,
                    g.hyp_text,
                )
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold, cross_val_predict

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--validation", nargs="+", required=True)
    p.add_argument("--json")
    args = p.parse_args(argv)

    from sitar import Scorer

    scorer = Scorer.load(args.checkpoint, decode="mean")
    rows = [r for f in args.validation for r in gaps(scorer, Path(f))]
    group = np.array([r[0] for r in rows])
    e = np.array([r[1] for r in rows])
    t = np.array([r[2] for r in rows])
    f = np.array([[r[3], r[4]] for r in rows])
    out: dict = {"checkpoint": args.checkpoint, "signature": scorer.signature, "n_gaps": len(t)}
    cv = GroupKFold(n_splits=5)

    m = t >= 1
    y = (t[m] == 2).astype(int)
    inputs = {"e": e[m, None], "e+closeness": np.column_stack([e[m], f[m], e[m] * f[m, 0]])}
    out["t2_vs_t1"] = {"n": int(m.sum()), "auc_e": round(float(roc_auc_score(y, e[m])), 4)}
    for name, x in inputs.items():
        prob = cross_val_predict(
            LogisticRegression(max_iter=1000), x, y, groups=group[m], cv=cv, method="predict_proba"
        )[:, 1]
        out["t2_vs_t1"][f"cv_auc_{name}"] = round(float(roc_auc_score(y, prob)), 4)

    rounded = np.where(e >= 4.5, 2, np.where(e >= 1.5, 1, 0))
    out["tier_accuracy"] = {"e_rounded": round(float((rounded == t).mean()), 4)}
    for name, x in {"e": e[:, None], "e+closeness": np.column_stack([e, f, e * f[:, 0]])}.items():
        pred = cross_val_predict(LogisticRegression(max_iter=1000), x, t, groups=group, cv=cv)
        out["tier_accuracy"][f"cv_{name}"] = round(float((pred == t).mean()), 4)

    over = (t == 1) & (e >= 4.5)
    right = (t == 2) & (e >= 4.5)
    out["t1_read_t2"] = {
        "n": int(over.sum()),
        "mean_char": round(float(f[over, 0].mean()), 4),
        "mean_phonetic": round(float(f[over, 1].mean()), 4),
        "t2_read_t2_mean_char": round(float(f[right, 0].mean()), 4),
        "t2_read_t2_mean_phonetic": round(float(f[right, 1].mean()), 4),
        "examples": [(r[5], r[6], round(r[1], 2)) for r, o in zip(rows, over, strict=True) if o][
            :25
        ],
    }
    print(json.dumps({k: v for k, v in out.items() if k != "signature"}, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
