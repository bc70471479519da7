"""spec §7 (docs/spec.md) training losses as tensor-in/tensor-out modules.

``L = L_mse + λ_b · L_boundary + λ_o · L_ordinal`` on the raw score scale ``[0, 7/3)``:

- :class:`MSELoss`: mean squared error of the regression head against the target ``S``.
- :class:`BoundaryLoss`: mean of ``relu(lo - f)² + relu(f - hi)²`` where ``[lo, hi) = [β, β + 1/3)``
  is the target's base interval (``β`` from the gap labels, or recovered from ``S`` itself).
- :class:`OrdinalLoss`: binary cross-entropy of one logit per threshold
  ``τ = (1/3, 2/3, 1, 4/3, 5/3, 2)`` against ``[S ≥ τ_k]``, averaged over pairs and thresholds.

Every module validates its inputs (shapes, dtypes, finite values, targets on the scale) and raises
:class:`~sitar.errors.InputError` saying what was expected; losses never see text.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from sitar.checkpoint import DEFAULT_THRESHOLDS
from sitar.errors import InputError
from sitar.targets import MAX_SCORE

__all__ = [
    "BoundaryLoss",
    "GapOrdinalLoss",
    "LossOutput",
    "MSELoss",
    "OrdinalLoss",
    "SitarLoss",
    "base_interval",
]

#: Width of one base interval on the raw scale (spec §5: ``S ∈ [β, β + 1/3)``).
INTERVAL = 1.0 / 3.0
# Tolerance for float round-off when comparing targets with thresholds and interval edges.
_EPS = 1e-6


def base_interval(target: Tensor) -> Tensor:
    """``β`` for each target: the largest multiple of 1/3 not above ``S`` (shape as ``target``).

    Prefer the exact ``β`` from the gap labels where it is known; this recovers it from ``S`` and can
    differ only for saturated scores within float round-off of the next multiple of 1/3.
    """
    k = torch.floor(target * 3.0 + _EPS).clamp(0.0, 6.0)
    return k / 3.0


def _check_vector(name: str, x: Tensor, n: int | None = None) -> None:
    if not isinstance(x, Tensor):
        raise InputError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.dim() != 1:
        raise InputError(f"{name} must have shape (batch,), got {tuple(x.shape)}")
    if not x.is_floating_point():
        raise InputError(f"{name} must be a floating-point tensor, got {x.dtype}")
    if x.numel() == 0:
        raise InputError(f"{name} is empty; a loss needs at least one pair")
    if n is not None and x.shape[0] != n:
        raise InputError(f"{name} has {x.shape[0]} entries, expected {n} (one per prediction)")


def _check_targets(target: Tensor, n: int) -> None:
    _check_vector("target", target, n)
    if not bool(torch.isfinite(target).all()):
        raise InputError("target holds NaN or infinite values; targets must be finite raw scores")
    if bool((target < -_EPS).any()) or bool((target >= MAX_SCORE + _EPS).any()):
        raise InputError(
            f"target must lie on the raw scale [0, 7/3), got values in "
            f"[{target.min().item():.6g}, {target.max().item():.6g}]"
        )


def _check_base(base: Tensor, target: Tensor) -> None:
    _check_vector("base", base, target.shape[0])
    on_grid = torch.abs(base * 3.0 - torch.round(base * 3.0)) < _EPS
    if not bool(on_grid.all()) or bool((base < -_EPS).any()) or bool((base > 2.0 + _EPS).any()):
        raise InputError("base must hold multiples of 1/3 in [0, 2] (the SPEC §5 positions)")
    inside = (target >= base - _EPS) & (target < base + INTERVAL + _EPS)
    if not bool(inside.all()):
        i = int(torch.nonzero(~inside)[0, 0])
        raise InputError(
            f"target {target[i].item():.6g} at index {i} is outside its base interval "
            f"[{base[i].item():.6g}, {base[i].item() + INTERVAL:.6g})"
        )


class MSELoss(nn.Module):
    """``L_mse``: mean of ``(f - S)²`` over the batch."""

    def forward(self, prediction: Tensor, target: Tensor) -> Tensor:
        _check_vector("prediction", prediction)
        _check_targets(target, prediction.shape[0])
        return F.mse_loss(prediction.float(), target.float())


class BoundaryLoss(nn.Module):
    """``L_boundary``: mean of ``relu(β - f)² + relu(f - (β + 1/3))²``; zero inside the interval."""

    def forward(self, prediction: Tensor, target: Tensor, base: Tensor | None = None) -> Tensor:
        _check_vector("prediction", prediction)
        _check_targets(target, prediction.shape[0])
        if base is None:
            base = base_interval(target.float())
        else:
            _check_base(base, target)
        f = prediction.float()
        lo = base.float()
        hi = lo + INTERVAL
        return (F.relu(lo - f) ** 2 + F.relu(f - hi) ** 2).mean()


class OrdinalLoss(nn.Module):
    """``L_ordinal``: mean binary cross-entropy of logit ``k`` against ``[S ≥ τ_k]``."""

    thresholds: Tensor

    def __init__(self, thresholds: Sequence[float] = DEFAULT_THRESHOLDS) -> None:
        super().__init__()
        thresholds = [float(t) for t in thresholds]
        if not thresholds or any(b <= a for a, b in itertools.pairwise(thresholds)):
            raise InputError(f"thresholds must be a non-empty increasing list, got {thresholds}")
        # A buffer so it follows .to(device); not a parameter.
        self.register_buffer("thresholds", torch.tensor(thresholds), persistent=False)

    def forward(self, logits: Tensor, target: Tensor) -> Tensor:
        k = int(self.thresholds.shape[0])
        if not isinstance(logits, Tensor) or logits.dim() != 2 or logits.shape[1] != k:
            shape = tuple(logits.shape) if isinstance(logits, Tensor) else type(logits).__name__
            raise InputError(f"ordinal logits must have shape (batch, {k}), got {shape}")
        if not logits.is_floating_point():
            raise InputError(f"ordinal logits must be floating point, got {logits.dtype}")
        _check_targets(target, logits.shape[0])
        # (B, K): 1 where the target reaches threshold k; the tolerance absorbs 1/3-step round-off.
        labels = (target.float()[:, None] >= self.thresholds[None, :] - _EPS).float()
        return F.binary_cross_entropy_with_logits(logits.float(), labels)


class GapOrdinalLoss(nn.Module):
    """spec §7b gap loss [C]: for every real gap, binary cross-entropy of logit ``k`` against
    ``[step ≥ k + 1]`` where ``step = 3t + δ`` ∈ 0..6 is the gap's position ``t + δ/3`` in thirds
    (ordinal thresholds ``1/3 … 2``, so the loss respects the order of positions), averaged over
    real gaps and thresholds. ``steps`` is (B, G) int with ``-1`` in padded gap slots.

    Teacher targets (distillation, [C]): ``soft`` (B, G, K) holds a teacher model's probabilities
    ``σ(teacher logit k)`` for the gaps that have them and NaN elsewhere; there the BCE target of
    threshold ``k`` is ``(1 − w) · [step ≥ k + 1] + w · soft_k`` with ``w = teacher_weight``.

    Tier-only targets ([C]): ``tier_only`` (B, G) bool marks gaps whose label fixes the tier ``t``
    but not the direction. The steps ``3t − 1 … 3t + 1`` (cut to ``0 … K``) are then all right, so
    the thresholds between them, levels ``3t`` and ``3t + 1`` (logits ``3t − 1`` and ``3t``), carry
    no loss; the others are trained as usual. The mean is then over the entries that carry loss.
    """

    def __init__(self, teacher_weight: float = 0.5) -> None:
        super().__init__()
        w = teacher_weight
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= w <= 1.0:
            raise InputError(f"teacher_weight must be a number in [0, 1], got {w!r}")
        self.teacher_weight = float(w)

    def forward(
        self,
        gap_logits: Tensor,
        steps: Tensor,
        soft: Tensor | None = None,
        tier_only: Tensor | None = None,
    ) -> Tensor:
        if not isinstance(gap_logits, Tensor) or gap_logits.dim() != 3:
            raise InputError("gap_logits must have shape (batch, gaps, K)")
        if not isinstance(steps, Tensor) or steps.shape != gap_logits.shape[:2]:
            raise InputError(
                f"gap steps must have shape {tuple(gap_logits.shape[:2])} (batch, gaps), got "
                f"{tuple(steps.shape) if isinstance(steps, Tensor) else type(steps).__name__}"
            )
        k = gap_logits.shape[-1]
        if bool((steps > k).any()) or bool((steps < -1).any()):
            raise InputError(f"gap steps must lie in 0..{k} (or -1 for padding)")
        valid = steps >= 0  # (B, G)
        if not bool(valid.any()):
            raise InputError("a batch for the gap loss needs at least one real gap")
        levels = torch.arange(1, k + 1, device=steps.device)  # (K,)
        labels = (steps.unsqueeze(-1) >= levels).float()  # (B, G, K)
        if soft is not None:
            if not isinstance(soft, Tensor) or soft.shape != gap_logits.shape:
                raise InputError(
                    f"teacher targets must have shape {tuple(gap_logits.shape)} (batch, gaps, K), "
                    f"got {tuple(soft.shape) if isinstance(soft, Tensor) else type(soft).__name__}"
                )
            soft = soft.float()
            known = ~torch.isnan(soft)
            if bool(((soft < 0) | (soft > 1))[known].any()):
                raise InputError("teacher targets must be probabilities in [0, 1] (or NaN)")
            w = self.teacher_weight
            labels = torch.where(known, (1.0 - w) * labels + w * torch.nan_to_num(soft), labels)
        bce = F.binary_cross_entropy_with_logits(gap_logits.float(), labels, reduction="none")
        if tier_only is None:
            return bce[valid].mean()
        if not isinstance(tier_only, Tensor) or tier_only.shape != steps.shape:
            raise InputError(
                f"tier-only flags must have shape {tuple(steps.shape)} (batch, gaps), got "
                f"{tuple(tier_only.shape) if isinstance(tier_only, Tensor) else type(tier_only).__name__}"
            )
        tier = torch.div(steps + 1, 3, rounding_mode="floor").unsqueeze(-1)  # (B, G, 1)
        inside = (levels == 3 * tier) | (levels == 3 * tier + 1)  # (B, G, K)
        keep = valid.unsqueeze(-1) & ~(tier_only.bool().unsqueeze(-1) & inside)
        return bce[keep].mean()


@dataclass(frozen=True)
class LossOutput:
    """The weighted total and its unweighted parts (all scalar tensors)."""

    total: Tensor
    mse: Tensor
    boundary: Tensor
    ordinal: Tensor
    gap: Tensor | None = None

    def as_floats(self) -> dict[str, float]:
        out = {
            "loss": float(self.total.detach()),
            "mse": float(self.mse.detach()),
            "boundary": float(self.boundary.detach()),
            "ordinal": float(self.ordinal.detach()),
        }
        if self.gap is not None:
            out["gap"] = float(self.gap.detach())
        return out


class SitarLoss(nn.Module):
    """``L = L_mse + λ_b · L_boundary + λ_o · L_ordinal`` (spec §7); weights are saved with runs."""

    def __init__(
        self,
        *,
        lambda_boundary: float = 1.0,
        lambda_ordinal: float = 0.5,
        lambda_gap: float = 1.0,
        thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
        teacher_weight: float = 0.5,
    ) -> None:
        super().__init__()
        for name, value in (
            ("lambda_boundary", lambda_boundary),
            ("lambda_ordinal", lambda_ordinal),
            ("lambda_gap", lambda_gap),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise InputError(f"{name} must be a non-negative number, got {value!r}")
        self.lambda_boundary = float(lambda_boundary)
        self.lambda_ordinal = float(lambda_ordinal)
        self.lambda_gap = float(lambda_gap)
        self.mse = MSELoss()
        self.gap = GapOrdinalLoss(teacher_weight)
        self.boundary = BoundaryLoss()
        self.ordinal = OrdinalLoss(thresholds)

    @property
    def weights(self) -> dict[str, float]:
        """The weights as recorded in checkpoints (``loss_weights``)."""
        return {
            "boundary": self.lambda_boundary,
            "ordinal": self.lambda_ordinal,
            "gap": self.lambda_gap,
        }

    def forward(
        self,
        score: Tensor,
        ordinal_logits: Tensor,
        target: Tensor,
        base: Tensor | None = None,
        gap_logits: Tensor | None = None,
        gap_steps: Tensor | None = None,
        gap_soft: Tensor | None = None,
        gap_tier_only: Tensor | None = None,
    ) -> LossOutput:
        """The spec §7 loss, plus ``λ_g · L_gap`` (spec §7b) when ``gap_logits`` and
        ``gap_steps`` are given (with teacher targets ``gap_soft`` and tier-only flags
        ``gap_tier_only``, see :class:`GapOrdinalLoss`)."""
        mse = self.mse(score, target)
        boundary = self.boundary(score, target, base)
        ordinal = self.ordinal(ordinal_logits, target)
        total = mse + self.lambda_boundary * boundary + self.lambda_ordinal * ordinal
        gap = None
        if gap_logits is not None:
            if gap_steps is None:
                raise InputError("gap_logits given without gap_steps")
            gap = self.gap(gap_logits, gap_steps, gap_soft, gap_tier_only)
            total = total + self.lambda_gap * gap
        return LossOutput(total=total, mse=mse, boundary=boundary, ordinal=ordinal, gap=gap)
