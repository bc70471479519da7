"""training/threshold_shift.py (``python -m training.threshold_shift``): teacher probabilities back to logits, decoded per gap with a
shift, and scored against the records' label tiers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sitar.records import read_records
from training import threshold_shift as ts


def _teacher(records, path, *, wrong=()):
    """A teacher file that puts every gap at its label's nominal step 3t (0.99 below it, 0.01
    above), except gaps ``(record id, index)`` in ``wrong``, put at step 6 instead."""
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            probs = []
            for j, t in enumerate(r.tiers):
                step = 6 if (r.id, j) in wrong else 3 * t
                probs.append([0.99 if k < step else 0.01 for k in range(6)])
            f.write(
                json.dumps({"schema": "sitar.teacher/1", "id": r.id, "gap_probs": probs}) + "\n"
            )


def test_accuracy_and_confusion_under_shifts(records_file, tmp_path, capsys):
    records = [r for r in read_records(records_file) if r.split == "validation" and r.gaps]
    tiers = np.array([t for r in records for t in r.tiers])
    assert len(set(tiers.tolist())) > 1  # the fixture has several tiers
    t0 = next((r.id, j) for r in records for j, t in enumerate(r.tiers) if t == 0)
    teacher = tmp_path / "t.jsonl"
    _teacher(records, teacher, wrong={t0})
    logits, labels = ts.load(records_file, teacher, "validation")
    assert logits.shape == (len(tiers), 6) and labels.tolist() == tiers.tolist()
    pred = ts.predicted_tiers(logits, np.zeros(6))
    assert (pred != labels).sum() == 1  # only the gap put at step 6
    # a large negative shift on every threshold reads every gap as T0
    assert ts.predicted_tiers(logits, np.full(6, -20.0)).tolist() == [0] * len(tiers)
    # shifting only the T1/T2 thresholds down moves T2 readings to T1 and leaves T0/T1 alone
    low = ts.predicted_tiers(logits, np.array([0, 0, 0, 0, -20.0, -20.0]))
    assert low.max() == 1 and (low[pred < 2] == pred[pred < 2]).all()
    assert (
        ts.main(["--records", str(records_file), "--teacher", str(teacher), "--shifts", "0"]) == 0
    )
    out = capsys.readouterr().out
    accuracy = 1 - 1 / len(tiers)
    assert f"all thresholds    shift +0.00: tier accuracy {accuracy:.3f}" in out
    confusion = np.zeros((3, 3), dtype=int)
    np.add.at(confusion, (labels, pred), 1)
    assert f"confusion {confusion.tolist()}" in out


def test_teacher_file_that_does_not_match_the_records(records_file, tmp_path):
    records = [r for r in read_records(records_file) if r.split == "validation" and r.gaps]
    teacher = tmp_path / "t.jsonl"
    _teacher(records, teacher)
    with pytest.raises(SystemExit, match="check --split"):
        ts.load(records_file, teacher, "train")
    row = json.loads(teacher.read_text().splitlines()[0])
    row["gap_probs"].append([0.5] * 6)
    teacher.write_text(json.dumps(row) + "\n")
    with pytest.raises(SystemExit, match="teacher gaps"):
        ts.load(records_file, teacher, None)
