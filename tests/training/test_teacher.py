"""Teacher targets for the gap head (distillation): the loss mixes them into the ordinal targets of
the gaps that have them, the teacher file is written from a checkpoint's own gap head on the
records' own gaps, and a training run reads it, records it and is changed by it."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from sitar.errors import InputError, RecordError
from sitar.modeling.losses import GapOrdinalLoss, SitarLoss
from sitar.records import read_records


def _hard_labels(steps):
    return (steps.unsqueeze(-1) >= torch.arange(1, 7)).float()


def test_gap_loss_mixes_teacher_probabilities_where_given():
    torch.manual_seed(0)
    logits = torch.randn(2, 3, 6)
    steps = torch.tensor([[6, 2, -1], [0, 3, 4]])
    soft = torch.full((2, 3, 6), float("nan"))
    soft[0, 1] = torch.tensor([0.9, 0.8, 0.3, 0.2, 0.1, 0.05])
    soft[1, 2] = torch.tensor([1.0, 1.0, 1.0, 0.5, 0.0, 0.0])
    valid = steps >= 0
    hard = _hard_labels(steps.clamp(min=0))
    for w in (0.0, 0.3, 1.0):
        loss = GapOrdinalLoss(w)
        mixed = hard.clone()
        known = ~torch.isnan(soft)
        mixed[known] = (1 - w) * hard[known] + w * soft[known]
        bce = torch.nn.functional.binary_cross_entropy_with_logits(logits, mixed, reduction="none")
        assert torch.allclose(loss(logits, steps, soft), bce[valid].mean())
    # without soft targets (or all NaN) it is the plain gap loss
    plain = GapOrdinalLoss(0.7)
    nan = torch.full((2, 3, 6), float("nan"))
    assert torch.equal(plain(logits, steps, nan), plain(logits, steps))
    assert not torch.allclose(plain(logits, steps, soft), plain(logits, steps))
    with pytest.raises(InputError, match="shape"):
        plain(logits, steps, soft[:, :2])
    with pytest.raises(InputError, match="probabilities"):
        plain(logits, steps, soft * 2)
    for bad in (-0.1, 1.5, True, "0.5"):
        with pytest.raises(InputError, match="teacher_weight"):
            GapOrdinalLoss(bad)
    total = SitarLoss(teacher_weight=1.0)
    score, ordinal, target = torch.zeros(2), torch.zeros(2, 6), torch.ones(2)
    out = total(score, ordinal, target, None, logits, steps, soft)
    assert torch.allclose(out.gap, GapOrdinalLoss(1.0)(logits, steps, soft))


def test_read_teacher_refuses_malformed_files(tmp_path):
    from training.data import read_teacher

    path = tmp_path / "t.jsonl"
    good = {"schema": "sitar.teacher/1", "id": "a", "gap_probs": [[0.5] * 6]}
    path.write_text(json.dumps(good) + "\n\n", encoding="utf-8")
    assert read_teacher(path) == {"a": [[0.5] * 6]}
    bad_lines = [
        "not json",
        json.dumps({**good, "schema": "other"}),
        json.dumps({**good, "gap_probs": [[0.5] * 5]}),
        json.dumps({**good, "gap_probs": [[1.5] * 6]}),
        json.dumps({**good, "id": 3}),
    ]
    for line in bad_lines:
        path.write_text(line + "\n", encoding="utf-8")
        with pytest.raises(RecordError, match=r"t\.jsonl:1"):
            read_teacher(path)
    path.write_text((json.dumps(good) + "\n") * 2, encoding="utf-8")
    with pytest.raises(RecordError, match="duplicate"):
        read_teacher(path)
    path.write_bytes(b"\xff\xfe\n")
    with pytest.raises(RecordError, match="not a JSON line"):
        read_teacher(path)
    with pytest.raises(InputError, match="not found"):
        read_teacher(tmp_path / "missing.jsonl")


def test_teacher_file_from_the_shipped_checkpoint_reads_the_records_own_gaps(
    records_file, tmp_path, capsys
):
    from sitar.scorer import Scorer
    from training.teacher import main, teacher_probabilities

    out = tmp_path / "teacher.jsonl"
    assert main(["--records", str(records_file), "--out", str(out), "--threads", "1"]) == 0
    assert "teacher targets" in capsys.readouterr().err  # the progress bar says what it runs
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    train = [r for r in read_records(records_file) if r.split == "train" and r.gaps]
    assert [r["id"] for r in rows] == [r.id for r in train]
    assert all(len(row["gap_probs"]) == len(r.gaps) for row, r in zip(rows, train, strict=True))
    manifest = json.loads((tmp_path / "teacher.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["written"] == len(rows)
    assert manifest["teacher"]["signature"].startswith("sitar:")
    assert manifest["records"][0]["file"] == str(records_file)
    # The probabilities are the gap head's: where the scorer's own segmentation has the same
    # gaps, their sum is the expected step it reports, and batching changes nothing.
    scorer = Scorer.load(threads=1)
    one = teacher_probabilities(scorer, train, batch_size=1)
    assert one == [row["gap_probs"] for row in rows]
    analyses = scorer.analyze(
        references=[r.reference for r in train], hypotheses=[r.hypothesis for r in train]
    )
    compared = 0
    for r, probs, a in zip(train, one, analyses, strict=True):
        spans = [(list(g.ref_span), list(g.hyp_span)) for g in a.segmentation.gaps]
        if spans == [(g["ref_span"], g["hyp_span"]) for g in r.gaps]:
            for p, g in zip(probs, a.gaps, strict=True):
                assert sum(p) == pytest.approx(g.expected, abs=1e-4)
                compared += 1
    assert compared >= 8  # 11 gaps of these records match the scorer's own segmentation
    assert main(["--records", str(records_file), "--out", str(out), "--split", "none"]) == 2
    assert "no 'none' record with gaps" in capsys.readouterr().err


def test_training_with_a_teacher_records_it_and_changes_the_gap_loss(make_config, tmp_path):
    from training.config import TrainConfig
    from training.loop import train

    records = [r for r in read_records(make_config().data[0]) if r.split == "train" and r.gaps]
    teacher = tmp_path / "teacher.jsonl"
    # A teacher that is sure every gap is T0: far from most labels.
    teacher.write_text(
        "".join(
            json.dumps(
                {"schema": "sitar.teacher/1", "id": r.id, "gap_probs": [[0.0] * 6] * len(r.gaps)}
            )
            + "\n"
            for r in records
        ),
        encoding="utf-8",
    )

    def first_gap_loss(run_dir):
        rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
        return next(r["train"]["gap"] for r in rows if "train" in r)

    base = make_config("plain", gap_head=True, max_steps=2)
    taught = make_config("taught", gap_head=True, max_steps=2, teacher=str(teacher),
                         teacher_weight=1.0)  # fmt: skip
    train(base)
    train(taught)
    data = json.loads((tmp_path / "taught" / "data.json").read_text(encoding="utf-8"))
    assert data["teacher"]["file"] == str(teacher)
    assert data["teacher"]["training_records_named"] == len(records)
    assert "teacher" not in json.loads((tmp_path / "plain" / "data.json").read_text())
    assert first_gap_loss(tmp_path / "plain") != pytest.approx(first_gap_loss(tmp_path / "taught"))
    # configs without a teacher keep their dict (and hash); a teacher needs the gap head
    assert "teacher" not in base.to_dict() and "teacher_weight" not in base.to_dict()
    assert taught.to_dict()["teacher_weight"] == 1.0
    with pytest.raises(InputError, match="gap_head"):
        TrainConfig(backbone="x", data=("a",), teacher=str(teacher))
    with pytest.raises(InputError, match="teacher_weight"):
        TrainConfig(backbone="x", data=("a",), gap_head=True, teacher="t", teacher_weight=2)
    # a teacher file that names no training record, or the wrong number of gaps, is an error
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"schema": "sitar.teacher/1", "id": "zz", "gap_probs": []}) + "\n")
    with pytest.raises(InputError, match="names none"):
        train(make_config("none", gap_head=True, max_steps=1, teacher=str(other)))
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(
        json.dumps({"schema": "sitar.teacher/1", "id": records[0].id,
                    "gap_probs": [[0.5] * 6] * (len(records[0].gaps) + 1)}) + "\n"
    )  # fmt: skip
    with pytest.raises(InputError, match="have .* gaps, the record"):
        train(make_config("wrong", gap_head=True, max_steps=1, teacher=str(wrong)))
    assert np.isfinite(first_gap_loss(tmp_path / "taught"))
