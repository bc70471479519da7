"""Would moving the gap head's thresholds fix its tier errors? A diagnostic, not a tuner.

    python -m training.teacher --checkpoint CKPT --records FILE --split validation --out T.jsonl
    python -m training.threshold_shift --records FILE --teacher T.jsonl [--split validation]
        [--shifts -1.5 -1 -0.5 0 0.5]

The teacher file holds the checkpoint's threshold probabilities for each record's own gaps
(:mod:`training.teacher`). This script turns them back into logits, adds a shift ``s`` either to
all six thresholds or only to the two that separate T1+ from T2- and T2- from T2 (the T1/T2
boundary), decodes each gap as the scorer does by default (the rounded expected step), and prints
per-gap tier accuracy and the confusion matrix (rows: label tier, columns: predicted tier) for
every shift.

If the errors were a matter of calibration (the head ranks gaps correctly but places the cut in
the wrong place), some shift would raise accuracy on recognizer output without costing much on
the synthetic records. It reads a fixed set of shifts and reports; it does not choose one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sitar._main import ArgumentParser, tool_main
from sitar.gapscore import decoded_steps, predict_gaps
from training.data import read_record_file, read_teacher

_EPS = 1e-6


def load(records: Path, teacher: Path, split: str | None) -> tuple[np.ndarray, np.ndarray]:
    """``(logits (n_gaps, 6), label tiers (n_gaps,))`` for the records the teacher file covers."""
    recs = {r.id: r for r in read_record_file(records) if split is None or r.split == split}
    probs_by_id = read_teacher(teacher)
    logits, tiers = [], []
    for rid, gap_probs in probs_by_id.items():
        rec = recs.get(rid)
        if rec is None:
            continue
        probs = np.clip(np.asarray(gap_probs, dtype=np.float64), _EPS, 1 - _EPS)
        if probs.shape[0] != len(rec.tiers):
            raise SystemExit(
                f"record {rec.id}: {probs.shape[0]} teacher gaps, {len(rec.tiers)} tiers"
            )
        logits.append(np.log(probs / (1 - probs)))
        tiers.extend(rec.tiers)
    if not logits:
        raise SystemExit("no record of the teacher file is in the records file (check --split)")
    return np.concatenate(logits), np.asarray(tiers, dtype=np.int64)


def predicted_tiers(logits: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Each gap's tier as the scorer decodes it by default, after adding ``shift`` to its logits."""
    return np.array([g.tier for g in predict_gaps(decoded_steps(logits + shift))], dtype=np.int64)


@tool_main("python -m training.threshold_shift")
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m training.threshold_shift", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--records", type=Path, required=True)
    parser.add_argument("--teacher", type=Path, required=True)
    parser.add_argument("--split", default=None, help="only records of this split")
    parser.add_argument("--shifts", type=float, nargs="+", default=[-1.5, -1.0, -0.5, 0.0, 0.5])
    args = parser.parse_args(argv)
    logits, tiers = load(args.records, args.teacher, args.split)
    print(f"{len(tiers)} gaps; label tiers T0/T1/T2: {np.bincount(tiers, minlength=3).tolist()}")
    for name, mask in (("all thresholds", np.ones(6)), ("T1/T2 thresholds", np.eye(6)[4:].sum(0))):
        for s in args.shifts:
            pred = predicted_tiers(logits, s * mask)
            confusion = np.zeros((3, 3), dtype=np.int64)
            np.add.at(confusion, (tiers, pred), 1)
            print(
                f"{name:17s} shift {s:+.2f}: tier accuracy {(pred == tiers).mean():.3f}  "
                f"confusion {confusion.tolist()}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
