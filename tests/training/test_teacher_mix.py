"""Mixing teacher files (``python -m training.teacher_mix``): a blended line is the target the gap
loss would give the record from that teacher alone at the blend weight, kept lines are copied, and
bad mixes (an id twice, a gap count that differs, a missing weight) are refused with a clear
message and no file."""

from __future__ import annotations

import json

import pytest
import torch

from sitar.errors import InputError
from sitar.modeling.losses import GapOrdinalLoss
from sitar.records import read_records
from training.data import gap_step
from training.teacher_mix import blend_with_labels, main


def _teacher_line(rid, probs):
    return json.dumps({"schema": "sitar.teacher/1", "id": rid, "gap_probs": probs}) + "\n"


def test_blend_is_the_label_mixed_with_the_teacher_by_threshold():
    probs = [[0.9, 0.8, 0.7, 0.2, 0.1, 0.0], [0.5] * 6]
    assert blend_with_labels(probs, [3, 0], 1.0) == probs
    assert blend_with_labels(probs, [3, 0], 0.0) == [[1, 1, 1, 0, 0, 0], [0] * 6]
    assert blend_with_labels(probs, [3, 0], 0.25) == [
        [0.975, 0.95, 0.925, 0.05, 0.025, 0.0],
        [0.125] * 6,
    ]
    with pytest.raises(InputError, match="gaps"):
        blend_with_labels(probs, [3], 0.5)
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        blend_with_labels(probs, [3, 0], 1.5)
    with pytest.raises(InputError, match="probabilities"):
        blend_with_labels([[0.5] * 5], [3], 0.5)


@pytest.mark.parametrize("weight", [0.3, 0.5, 0.8])
def test_a_blended_line_at_teacher_weight_one_trains_as_the_teacher_at_its_weight(weight):
    torch.manual_seed(0)
    logits = torch.randn(1, 4, 6)
    steps = [0, 2, 4, 6]
    teacher = torch.rand(1, 4, 6)
    blended = torch.tensor([blend_with_labels(teacher[0].tolist(), steps, weight)])
    st = torch.tensor([steps])
    direct = GapOrdinalLoss(weight)(logits, st, teacher)
    via_mix = GapOrdinalLoss(1.0)(logits, st, blended)
    assert via_mix == pytest.approx(float(direct), abs=1e-5)


def test_the_tool_keeps_blends_counts_and_records_how(records_file, tmp_path, capsys):
    train = [r for r in read_records(records_file) if r.split == "train" and r.gaps]
    kept, blended, missing = train[:5], train[5:20], train[20:]
    keep = tmp_path / "keep.jsonl"
    keep.write_text("".join(_teacher_line(r.id, [[0.25] * 6] * len(r.gaps)) for r in kept))
    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text("".join(_teacher_line(r.id, [[0.5] * 6] * len(r.gaps)) for r in blended))
    out = tmp_path / "mix.jsonl"
    argv = ["--out", str(out), "--keep", str(keep), "--blend", str(teacher), "--weight", "0.5"]
    assert main([*argv, "--records", str(records_file)]) == 0
    assert "20 teacher lines written" in capsys.readouterr().out
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [r.id for r in kept + blended]
    assert rows[0]["gap_probs"] == [[0.25] * 6] * len(kept[0].gaps)
    for row, record in zip(rows[5:], blended, strict=True):
        for probs, t, d in zip(row["gap_probs"], record.tiers, record.directions, strict=True):
            step = gap_step(t, d)
            assert probs == [0.5 * 0.5 + 0.5 * (step >= k) for k in range(1, 7)]
    manifest = json.loads((tmp_path / "mix.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"] == {
        "kept": len(kept),
        "blended": len(blended),
        "blend_no_teacher": len(missing),
    }
    assert manifest["mix"]["weight"] == 0.5
    assert [i["file"] for i in manifest["inputs"]] == [str(keep), str(teacher), str(records_file)]
    assert all(len(i["sha256"]) == 64 for i in manifest["inputs"])


def test_bad_mixes_are_refused_without_writing(records_file, tmp_path, capsys):
    train = [r for r in read_records(records_file) if r.split == "train" and r.gaps]
    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text("".join(_teacher_line(r.id, [[0.5] * 6] * len(r.gaps)) for r in train))
    out = tmp_path / "mix.jsonl"
    blend = ["--out", str(out), "--blend", str(teacher), "--records", str(records_file)]
    # an id kept and blended
    assert main([*blend, "--weight", "0.5", "--keep", str(teacher)]) == 2
    assert f"record {train[0].id!r} already has a teacher line" in capsys.readouterr().err
    # the teacher's gaps do not match the record's
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(_teacher_line(train[0].id, [[0.5] * 6] * (len(train[0].gaps) + 1)))
    argv = ["--out", str(out), "--blend", str(wrong), "--records", str(records_file)]
    assert main([*argv, "--weight", "0.5"]) == 2
    assert "gaps" in capsys.readouterr().err
    # usage
    assert main(blend) == 2
    assert "--blend needs --weight and --records" in capsys.readouterr().err
    assert main(["--out", str(out)]) == 2
    assert "nothing to write" in capsys.readouterr().err
    assert main(["--out", str(out), "--keep", str(teacher), "--weight", "0.5"]) == 2
    assert "go with --blend" in capsys.readouterr().err
    assert main([*blend, "--weight", "2"]) == 2
    assert "[0, 1]" in capsys.readouterr().err
    assert not out.exists()
