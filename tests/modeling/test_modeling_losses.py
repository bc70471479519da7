"""SPEC §7 losses against hand-computed values, and their input validation."""

from __future__ import annotations

import math

import pytest
import torch

from sitar.errors import InputError
from sitar.modeling import BoundaryLoss, MSELoss, OrdinalLoss, SitarLoss, base_interval
from sitar.targets import score_from_tiers


def t(*values):
    return torch.tensor(values, dtype=torch.float32)


def softplus(x: float) -> float:
    return math.log1p(math.exp(x))


def test_mse_hand_value():
    # ((0.5 - 0)^2 + (1.0 - 1.5)^2) / 2
    assert MSELoss()(t(0.5, 1.0), t(0.0, 1.5)).item() == pytest.approx(0.25)


def test_boundary_hand_value():
    # Targets: T1+T0 (beta = 1) and T2 (beta = 2). Prediction 0.9 is 0.1 below [1, 4/3);
    # prediction 2.5 is 2.5 - 7/3 = 1/6 above [2, 7/3).
    target = t(score_from_tiers([1, 0]), score_from_tiers([2]))
    loss = BoundaryLoss()(t(0.9, 2.5), target, t(1.0, 2.0))
    expected = (0.1**2 + (2.5 - 7 / 3) ** 2) / 2
    assert loss.item() == pytest.approx(expected, rel=1e-5)


def test_boundary_is_zero_inside_interval_and_base_recovered_from_target():
    target = t(score_from_tiers([1, 0]), score_from_tiers([0, 0]), score_from_tiers([1], [1]))
    assert base_interval(target).tolist() == pytest.approx([1.0, 0.0, 4 / 3])
    inside = t(1.2, 0.1, 1.5)
    assert BoundaryLoss()(inside, target).item() == 0.0
    below = t(0.8, 0.1, 1.5)
    assert BoundaryLoss()(below, target).item() == pytest.approx(0.2**2 / 3, rel=1e-5)


def test_ordinal_hand_value():
    # S = 1.0 reaches thresholds 1/3, 2/3, 1 (labels 1,1,1,0,0,0).
    logits = t(2.0, 0.0, -1.0, 1.0, 0.0, -3.0).unsqueeze(0)
    per = [
        softplus(-2.0),
        softplus(0.0),
        softplus(1.0),
        softplus(1.0),
        softplus(0.0),
        softplus(-3.0),
    ]
    loss = OrdinalLoss()(logits, t(1.0))
    assert loss.item() == pytest.approx(sum(per) / 6, rel=1e-5)


def test_ordinal_threshold_reached_exactly():
    # A T0 -> T1 boundary case alone scores exactly 1/3 and reaches the first threshold.
    s = score_from_tiers([0], [1])
    logits = torch.zeros(1, 6)
    logits[0, 0] = 20.0  # confident "reached" on threshold 1/3
    logits[0, 1:] = -20.0  # confident "not reached" above
    assert OrdinalLoss()(logits, t(s)).item() < 1e-6


def test_total_is_weighted_sum():
    score, target = t(0.2, 2.4), t(0.0, score_from_tiers([2, 2]))
    logits = torch.linspace(-2, 2, 12).reshape(2, 6)
    out = SitarLoss(lambda_boundary=2.0, lambda_ordinal=0.25)(score, logits, target)
    expected = out.mse + 2.0 * out.boundary + 0.25 * out.ordinal
    assert out.total.item() == pytest.approx(expected.item())
    assert SitarLoss(lambda_boundary=2.0, lambda_ordinal=0.25).weights == {
        "boundary": 2.0,
        "ordinal": 0.25,
        "gap": 1.0,
    }


def test_gradients_flow():
    score = t(0.5, 1.9).requires_grad_()
    logits = torch.zeros(2, 6, requires_grad=True)
    SitarLoss()(score, logits, t(1.0, 2.0)).total.backward()
    assert score.grad is not None and torch.any(score.grad != 0)
    assert logits.grad is not None and torch.any(logits.grad != 0)


@pytest.mark.parametrize(
    ("prediction", "target", "match"),
    [
        (t(0.1, 0.2), t(0.1), "expected 2"),
        (torch.zeros(2, 1), t(0.1, 0.2), "shape"),
        (torch.tensor([1, 2]), t(0.1, 0.2), "floating"),
        (t(0.1), t(float("nan")), "NaN"),
        (t(0.1), t(2.5), "raw scale"),
        (t(0.1), t(-0.5), "raw scale"),
        (t(), t(), "empty"),
    ],
)
def test_mse_validates(prediction, target, match):
    with pytest.raises(InputError, match=match):
        MSELoss()(prediction, target)


def test_boundary_validates_base():
    with pytest.raises(InputError, match="multiples of 1/3"):
        BoundaryLoss()(t(1.0), t(1.0), t(0.5))
    with pytest.raises(InputError, match="outside its base interval"):
        BoundaryLoss()(t(1.0), t(1.5), t(1.0))


def test_ordinal_validates_shape_and_thresholds():
    with pytest.raises(InputError, match=r"\(batch, 6\)"):
        OrdinalLoss()(torch.zeros(2, 5), t(0.0, 1.0))
    with pytest.raises(InputError, match="increasing"):
        OrdinalLoss([1.0, 0.5])
    with pytest.raises(InputError, match="non-negative"):
        SitarLoss(lambda_boundary=-1.0)
