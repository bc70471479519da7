"""The validation pass of a training run: a split's predictions (and gap-head logits) in row order,
the gap head's validation metrics, and the value that selects a step.

:func:`predict_split` and :func:`gap_metrics` are what :func:`training.loop.train` runs at every
evaluation, and what ``experiments/_pipeline/reselect.py`` runs on a finished run's kept weights.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from sitar.modeling import SitarLoss
from training.config import TrainConfig
from training.data import EncodedSplit, collate
from training.evaluate import regression_metrics

__all__ = ["gap_metrics", "gap_outputs", "metric_value", "predict_split"]


def predict_split(
    model: Any,
    split: EncodedSplit,
    *,
    batch_size: int,
    pad_id: int,
    accelerator: Any,
    loss_fn: SitarLoss | None = None,
    gap_logits_out: dict[int, np.ndarray] | None = None,
) -> tuple[np.ndarray, float]:
    """Raw predictions for a split in its row order (sharded across processes and gathered), and
    the mean loss (nan without ``loss_fn``). For a gap-aware model, ``gap_logits_out`` (a dict,
    filled in place) receives each row's gap logits, ``(n_gaps, K)``."""
    unwrapped = accelerator.unwrap_model(model)
    order = np.argsort(-split.lengths, kind="stable")
    batches = [order[i : i + batch_size].tolist() for i in range(0, len(order), batch_size)]
    mine = batches[accelerator.process_index :: accelerator.num_processes]
    results: list[tuple[int, float]] = []
    gap_results: list[tuple[int, np.ndarray]] = []
    loss_sum = 0.0
    was_training = model.training
    # Forward through the unwrapped module: a DDP forward may broadcast buffers, a collective that
    # would hang while processes hold different numbers of evaluation batches.
    model = unwrapped
    model.eval()
    with torch.no_grad():
        for idx in mine:
            arrays = collate(split, idx, pad_id=pad_id, input_names=unwrapped.input_names)
            feed = {
                k: torch.from_numpy(arrays[k]).to(accelerator.device) for k in unwrapped.input_names
            }
            with accelerator.autocast():
                outputs = model(**feed)
            score, logits = outputs[0].float(), outputs[1].float()
            gap_logits, gap_steps = gap_outputs(outputs, arrays, accelerator.device)
            if loss_fn is not None:
                target = torch.from_numpy(arrays["score"]).to(accelerator.device)
                base = torch.from_numpy(arrays["base"]).to(accelerator.device)
                out = loss_fn(score, logits, target, base, gap_logits, gap_steps)
                loss_sum += float(out.total) * len(idx)
            results.extend(zip(idx, score.cpu().tolist(), strict=True))
            if gap_logits is not None:
                rows = gap_logits.cpu().numpy().astype(np.float64)  # (B, G, K)
                n_gaps = (arrays["gap_steps"] >= 0).sum(axis=1)
                gap_results.extend((i, rows[row, : n_gaps[row]]) for row, i in enumerate(idx))
    if was_training:
        model.train()
    if accelerator.num_processes > 1:
        from accelerate.utils import gather_object

        results = gather_object(results)
        gap_results = gather_object(gap_results)
        loss_sum = float(sum(gather_object([loss_sum])))
    preds = np.full(len(split), np.nan)
    for i, s in results:
        preds[i] = s
    mean_loss = loss_sum / len(split) if loss_fn is not None else math.nan
    if gap_logits_out is not None:
        gap_logits_out.clear()
        gap_logits_out.update(gap_results)
    return preds, mean_loss


def gap_outputs(
    outputs: tuple[Any, ...], arrays: dict[str, np.ndarray], device: Any
) -> tuple[Any, Any]:
    """``(gap_logits, gap_steps)`` tensors of a gap-aware forward pass, else ``(None, None)``."""
    if len(outputs) < 3:
        return None, None
    return outputs[2].float(), torch.from_numpy(arrays["gap_steps"]).to(device)


def gap_metrics(
    split: EncodedSplit, preds: np.ndarray, gap_logits: dict[int, np.ndarray], rho: float
) -> dict[str, float]:
    """Validation metrics of the gap head: per-gap step and tier accuracy, and the regression
    metrics of the spec §7b score as the scorer computes it by default (exact spec §5 on the
    predicted gaps, tie-breaker version 3, mean decoding: ``gaps_*``, ``gap_step_accuracy``,
    ``gap_tier_accuracy``), with tie-breaker version 2 (the pair head inside the interval:
    ``gaps_tb2_*``) and with the opt-in median decoding (``gaps_median_*``,
    ``gap_median_step_accuracy``, ``gap_median_tier_accuracy``). The default's ``gaps_*`` is
    what selects a step."""
    from sitar.gapscore import aggregate, decoded_steps, predict_gaps, severity_extent_fraction

    steps_true = split.dataset["gap_steps"]
    extents = split.dataset["gap_extent"]
    targets, bases = split.dataset["score"], split.dataset["base"]
    metrics: dict[str, float] = {}
    for rule, prefix in (("mean", ""), ("median", "median_")):
        scores = np.zeros(len(split))
        scores_tb2 = np.zeros(len(split))
        hit_step = hit_tier = total = 0
        for i in range(len(split)):
            logits = gap_logits.get(i)
            values = [] if logits is None or not len(logits) else decoded_steps(logits, rule)
            gaps = predict_gaps(values)
            u = severity_extent_fraction(gaps, extent=float(extents[i]))
            scores[i] = aggregate(gaps, u=u, rho=rho)[0]
            if rule == "mean":  # tie-breaker 2 is reported for the default decoding only
                scores_tb2[i] = aggregate(gaps, pair_raw=float(preds[i]), rho=rho)[0]
            for g, true in zip(gaps, steps_true[i], strict=True):
                total += 1
                hit_step += g.step == true
                hit_tier += g.tier == (true + 1) // 3
        for k, v in regression_metrics(scores, targets, bases=bases).items():
            metrics[f"gaps_{prefix}{k}"] = v
        if rule == "mean":
            for k, v in regression_metrics(scores_tb2, targets, bases=bases).items():
                metrics[f"gaps_tb2_{k}"] = v
        metrics[f"gap_{prefix}step_accuracy"] = hit_step / total if total else math.nan
        metrics[f"gap_{prefix}tier_accuracy"] = hit_tier / total if total else math.nan
    return metrics


def metric_value(config: TrainConfig, metrics: dict[str, float]) -> float:
    """The selection metric; for a gap-aware run, of the spec §7b score (``gaps_*``)."""
    prefix = "gaps_" if config.gap_head else ""
    if config.metric == "neg_mae":
        return -metrics[prefix + "mae"]
    if config.metric == "neg_loss":
        return -metrics["loss"]
    value = metrics[prefix + config.metric]
    return -math.inf if math.isnan(value) else value
