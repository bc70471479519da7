"""Tier-only gap targets (config ``tier_only``): the gap loss leaves out the thresholds inside a
flagged gap's tier and nothing else, the flags reach the loss from the config through the encoded
split, and a run records them and is changed by them."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from sitar.errors import InputError
from sitar.modeling.losses import GapOrdinalLoss, SitarLoss
from sitar.records import read_records


def _grad(steps, tier_only):
    logits = torch.zeros(1, len(steps), 6, requires_grad=True)
    flags = None if tier_only is None else torch.tensor([tier_only])
    GapOrdinalLoss(0.5)(logits, torch.tensor([steps]), None, flags).backward()
    return logits.grad[0]


@pytest.mark.parametrize(
    ("step", "free"),
    [(0, {0}), (1, {0}), (2, {2, 3}), (3, {2, 3}), (4, {2, 3}), (5, {5}), (6, {5})],
)
def test_a_tier_only_gap_leaves_out_exactly_the_thresholds_inside_its_tier(step, free):
    grad = _grad([step], [True])
    for k in range(6):
        assert (grad[0, k] == 0) == (k in free), (step, k)
    # every step of the tier then has the same loss: the direction is left to other data
    tier = (step + 1) // 3
    same = [s for s in range(7) if (s + 1) // 3 == tier]
    losses = set()
    for s in same:
        logits = torch.zeros(1, 1, 6)
        logits[0, 0, :] = torch.tensor([4.0 if k < s else -4.0 for k in range(6)])
        loss = GapOrdinalLoss()(logits, torch.tensor([[step]]), None, torch.tensor([[True]]))
        losses.add(round(float(loss), 6))
    assert len(losses) == 1


def test_unflagged_gaps_keep_the_plain_loss_and_flags_are_checked():
    torch.manual_seed(1)
    logits = torch.randn(2, 3, 6)
    steps = torch.tensor([[6, 2, -1], [0, 3, 4]])
    plain = GapOrdinalLoss()(logits, steps)
    none = torch.zeros(2, 3, dtype=torch.bool)
    assert torch.allclose(GapOrdinalLoss()(logits, steps, None, none), plain)
    some = torch.tensor([[False, True, True], [False, False, True]])  # a padded slot flagged too
    mixed = GapOrdinalLoss()(logits, steps, None, some)
    assert not torch.allclose(mixed, plain)
    # by hand: the BCE over the entries that carry loss
    labels = (steps.clamp(min=0).unsqueeze(-1) >= torch.arange(1, 7)).float()
    bce = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels, reduction="none")
    keep = (steps >= 0).unsqueeze(-1).expand(-1, -1, 6).clone()
    keep[0, 1, [2, 3]] = False  # step 2: T1-
    keep[1, 2, [2, 3]] = False  # step 4: T1+
    assert torch.allclose(mixed, bce[keep].mean())
    with pytest.raises(InputError, match="tier-only flags"):
        GapOrdinalLoss()(logits, steps, None, some[:, :2])
    out = SitarLoss()(torch.zeros(2), torch.zeros(2, 6), torch.ones(2), None, logits, steps,
                      None, some)  # fmt: skip
    assert torch.allclose(out.gap, mixed)


def test_config_validates_tier_only_and_keeps_old_hashes():
    from training.config import TrainConfig

    plain = TrainConfig(backbone="x", data=("a", "b"), gap_head=True)
    flagged = TrainConfig(backbone="x", data=("a", "b"), gap_head=True, tier_only=[False, True])
    assert "tier_only" not in plain.to_dict()
    assert flagged.to_dict()["tier_only"] == [False, True] and flagged.hash() != plain.hash()
    for bad in ([True], [1, 0], "true", [True, "no"]):
        with pytest.raises(InputError, match="tier_only"):
            TrainConfig(backbone="x", data=("a", "b"), gap_head=True, tier_only=bad)
    with pytest.raises(InputError, match="gap_head"):
        TrainConfig(backbone="x", data=("a", "b"), tier_only=[True, False])
    # all false is allowed (recorded, trains like no flags)
    TrainConfig(backbone="x", data=("a", "b"), tier_only=[False, False])


def test_flags_reach_the_batches_and_a_run_records_them(make_config, records_file, tmp_path):
    from tokenizers import Tokenizer

    from sitar.encoding import GapMarkers
    from training.data import collate, encode_records, load_splits, tier_only_ids
    from training.loop import train

    train_ids = {r.id for r in read_records(records_file) if r.split == "train"}
    assert tier_only_ids([records_file], [True]) == train_ids
    assert tier_only_ids([records_file], [False]) == frozenset()
    assert tier_only_ids([records_file], []) == frozenset()
    with pytest.raises(InputError, match="flags for"):
        tier_only_ids([records_file], [True, False])

    config = make_config("flags", gap_head=True)
    tok = Tokenizer.from_file(str(config.backbone) + "/tokenizer.json")
    GapMarkers.add_to(tok)
    records = load_splits([records_file])["train"]
    flagged = {records[0].id, records[2].id}
    split = encode_records(records, tok, max_length=64, gap_marked=True, tier_only=flagged)
    with pytest.raises(InputError, match="gap-marked"):
        encode_records(records, tok, max_length=64, tier_only=flagged)
    ids = split.dataset["id"]
    names = ("input_ids", "attention_mask", "token_type_ids", "gap_index")
    arrays = collate(split, list(range(len(ids))), pad_id=0, input_names=names)
    mask = arrays["gap_tier_only"]
    assert mask.shape == arrays["gap_steps"].shape and mask.dtype == bool
    for row, rid in enumerate(ids):
        real = arrays["gap_steps"][row] >= 0
        assert np.array_equal(mask[row], real & (rid in flagged))
    plain = encode_records(records, tok, max_length=64, gap_marked=True)
    assert "gap_tier_only" not in collate(plain, [0], pad_id=0, input_names=names)

    def first_gap_loss(run_dir):
        rows = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
        return next(r["train"]["gap"] for r in rows if "train" in r)

    train(make_config("plain", gap_head=True, max_steps=2))
    from training.config import load_config

    settings = make_config("tier", gap_head=True, max_steps=2).to_dict()
    settings["tier_only"] = [True]
    train(load_config(None, [f"{k}={json.dumps(v)}" for k, v in settings.items()]))
    data = json.loads((tmp_path / "tier" / "data.json").read_text(encoding="utf-8"))
    assert data["tier_only"]["training_records"] == len(train_ids)
    assert "tier_only" not in json.loads((tmp_path / "plain" / "data.json").read_text())
    assert first_gap_loss(tmp_path / "plain") != pytest.approx(first_gap_loss(tmp_path / "tier"))
