"""The training loop: one explicit ``accelerate`` loop over length-grouped batches.

``train(config)`` builds the regressor on the configured backbone, encodes the record files with the
backbone's fast tokenizer (saved as the run's ``tokenizer.json``, the file export ships), and
optimises ``L = L_mse + λ_b L_boundary + λ_o L_ordinal`` with AdamW, linear/cosine warm-up and
decay, gradient accumulation and clipping. Precision is bf16 autocast on a bf16-capable GPU and
fp32 on CPU; fp16 is never used. Every ``eval_every`` optimiser steps it evaluates on the
validation split (spec §8 (docs/spec.md) regression metrics), keeps the best weights in ``best/`` and stops early
after ``patience`` evaluations without improvement.

Crash safety: at every evaluation the complete state (model, optimiser, scheduler, RNG states of
every process via ``Accelerator.save_state``, plus the step, the data position ``(epoch, batch)``,
early-stopping counters and the metric history in ``trainer_state.json``) is written to a temporary
folder and renamed to ``checkpoints/last``. ``train(config, resume=True)`` continues from there and
reproduces an uninterrupted run. A save that fails (a full disk) removes the partial folder, keeps
the previous ``checkpoints/last`` and raises :class:`~sitar.errors.OutputError` naming the step,
the error and the free space. Multi-GPU works unchanged with ``accelerate launch -m training``.

Run layout: ``<output_dir>/config.yaml``, ``tokenizer.json``, ``data.json`` (data signature,
skipped pairs), ``metrics.jsonl``, ``checkpoints/last/``, ``best/torch/``, ``summary.json``.

The validation pass (predictions, gap-head metrics, the selection value) is
:mod:`training.predict`; the run folder's checks and file writes are :mod:`training.run_folder`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sitar._version import __version__
from sitar.errors import InputError, OutputError
from sitar.integrity import sha256_file
from sitar.modeling import (
    HeadConfig,
    SitarLoss,
    SitarRegressor,
    add_gap_markers,
    build_regressor,
    grow_gap_closeness,
    load_regressor,
    load_tokenizer,
    save_regressor,
)
from sitar.modeling.model import find_pad_id
from training.config import CONFIG_FILE, TrainConfig
from training.data import (
    check_normal_form,
    collate,
    data_signature,
    encode_records,
    encode_validation,
    length_grouped_batches,
    load_splits,
    read_teacher,
    shard_batches,
    tier_only_ids,
)
from training.evaluate import regression_metrics
from training.predict import gap_metrics, gap_outputs, metric_value, predict_split
from training.run_folder import (
    RESUMABLE_KEYS,
    append_jsonl,
    check_output_dir,
    check_resume_config,
    clear_unstarted_run,
    truncate_metrics,
    write_json,
)

__all__ = ["RESUMABLE_KEYS", "TrainResult", "gap_metrics", "predict_split", "train"]

log = logging.getLogger("training")

#: Settings that may differ between a run and its resumption; all others must match.
STATE_FILE = "trainer_state.json"
_LOWER_IS_BETTER = {"neg_mae", "neg_loss"}  # stored negated, so higher is always better


@dataclass
class TrainState:
    """Everything besides tensors needed to resume exactly."""

    step: int = 0
    epoch: int = 0
    batch_in_epoch: int = 0
    best_metric: float | None = None
    best_step: int | None = None
    evals_without_improvement: int = 0
    stopped_early: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class TrainResult:
    run_dir: Path
    steps: int
    best_step: int | None
    best_metric: float | None
    stopped_early: bool
    last_eval: dict[str, float]
    #: Training loss (total) per optimiser step of this process, in order.
    losses: tuple[float, ...]


def _precision(config: TrainConfig) -> str:
    gpu = torch.cuda.is_available() and not config.cpu
    if config.precision == "fp32":
        return "no"
    if config.precision == "bf16":
        if not (gpu and torch.cuda.is_bf16_supported()):
            raise InputError(
                "precision bf16 needs a GPU with bf16 support; use precision=auto or fp32 on CPU"
            )
        return "bf16"
    return "bf16" if gpu and torch.cuda.is_bf16_supported() else "no"


def _param_groups(model: Any, config: TrainConfig) -> list[dict[str, Any]]:
    """AdamW groups: backbone with/without weight decay, heads at their own learning rate."""
    decay, no_decay, head = [], [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if not name.startswith("backbone."):
            head.append(param)
        elif param.ndim < 2 or "LayerNorm" in name or "layer_norm" in name:
            no_decay.append(param)
        else:
            decay.append(param)
    return [
        {"params": decay, "lr": config.learning_rate, "weight_decay": config.weight_decay},
        {"params": no_decay, "lr": config.learning_rate, "weight_decay": 0.0},
        {"params": head, "lr": config.head_learning_rate, "weight_decay": 0.0},
    ]


def _lr_lambda(config: TrainConfig):
    warmup = int(config.warmup_ratio * config.max_steps)

    def factor(step: int) -> float:
        if warmup and step < warmup:
            return (step + 1) / (warmup + 1)
        if config.scheduler == "constant":
            return 1.0
        progress = (step - warmup) / max(1, config.max_steps - warmup)
        progress = min(max(progress, 0.0), 1.0)
        if config.scheduler == "cosine":
            return 0.5 * (1.0 + math.cos(math.pi * progress))
        return 1.0 - progress

    return factor


def _had_gap_head(config: TrainConfig) -> bool:
    from safetensors import safe_open

    from sitar.modeling.model import _HEAD_METADATA_KEY, _torch_dir

    weights = _torch_dir(config.init_from) / "model.safetensors"
    with safe_open(str(weights), framework="pt") as fh:
        meta = fh.metadata() or {}
    return bool(json.loads(meta.get(_HEAD_METADATA_KEY, "{}")).get("gap_head", False))


def _head_config(config: TrainConfig) -> HeadConfig:
    """The heads a run builds when it does not keep those of ``init_from``."""
    return HeadConfig(
        pooling=config.pooling,
        dropout=config.dropout,
        gap_head=config.gap_head,
        gap_closeness=config.gap_closeness,
    )


def _init_from(config: TrainConfig, base_vocab: int, init_score: float | None) -> SitarRegressor:
    """The regressor saved in ``config.init_from``, in train mode, checked against the run: a
    vocabulary the run's tokenizer fits (the same backbone) and, when its heads are kept, the same
    pooling. With ``init_from_heads`` false only its backbone is kept and the heads start afresh
    (``pooling``, ``dropout``, ``init_score``). A gap head without closeness features gains them
    when the run asks for ``gap_closeness`` (:func:`~sitar.modeling.grow_gap_closeness`: their
    weights start at zero, so the outputs at step 0 are the saved model's)."""
    model = load_regressor(config.init_from)
    head = model.head_config
    if not config.init_from_heads:
        _check_vocabulary(config, model, base_vocab)
        fresh = build_regressor(
            model.backbone,
            _head_config(config),
            init_score=init_score,
        )
        fresh.train()
        log.info("initialised the backbone from %s (new heads)", config.init_from)
        return fresh
    if head.pooling != config.pooling:
        raise InputError(
            f"init_from {config.init_from!r} uses pooling {head.pooling!r}, the config asks for "
            f"{config.pooling!r}"
        )
    if head.gap_head != config.gap_head:
        raise InputError(
            f"init_from {config.init_from!r} has gap_head={head.gap_head}, the config asks for "
            f"{config.gap_head}; set init_from_heads=false to start new heads"
        )
    if head.gap_closeness and not config.gap_closeness:
        raise InputError(
            f"init_from {config.init_from!r} reads gap closeness features, the config does not; "
            "set gap_closeness: true, or init_from_heads=false to start new heads"
        )
    _check_vocabulary(config, model, base_vocab)
    if config.gap_closeness and not head.gap_closeness:
        grow_gap_closeness(model)
        head = model.head_config
        log.info("gap head of %s: closeness inputs added, starting at zero", config.init_from)
    if head.dropout != config.dropout:
        model.head_config = dataclasses.replace(head, dropout=config.dropout)
        model.dropout.p = config.dropout
    model.train()
    log.info("initialised from %s", config.init_from)
    return model


def _check_vocabulary(config: TrainConfig, model: SitarRegressor, base_vocab: int) -> None:
    vocab = int(getattr(model.backbone.config, "vocab_size", 0))
    if base_vocab > vocab:
        raise InputError(
            f"init_from {config.init_from!r} has a vocabulary of {vocab} tokens but the tokenizer "
            f"of backbone {config.backbone!r} has {base_vocab}; init_from must be "
            "a regressor trained on the same backbone"
        )


def _finished_result(run_dir: Path, last_dir: Path, config: TrainConfig) -> TrainResult | None:
    """The result of a run that already ended (max_steps reached or stopped early, summary
    written), read from disk; None when the run has steps left. Resuming a finished run is a
    no-op: summary.json, metrics and weights stay as they are."""
    summary_path = run_dir / "summary.json"
    if not summary_path.is_file():
        return None
    try:
        state = json.loads((last_dir / STATE_FILE).read_text(encoding="utf-8"))
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read the state of {run_dir}: {e}") from e
    stopped = bool(state.get("stopped_early"))
    if not stopped and int(state.get("step", 0)) < config.max_steps:
        return None
    return TrainResult(
        run_dir,
        int(state.get("step", 0)),
        state.get("best_step"),
        state.get("best_metric"),
        stopped,
        dict(summary.get("last_eval") or {}),
        (),
    )


def _fresh_accelerator_state() -> None:
    """Start a run in a single process from a clean ``accelerate`` state.

    ``accelerate`` keeps one state per process, and refuses an ``Accelerator`` whose device or
    precision differs from the first one's, so a second ``train`` in the same process (a GPU run
    after a CPU one, bf16 after fp32: tests, notebooks, sweeps) failed with "AcceleratorState has
    already been initialized". A process launched by ``accelerate launch`` or ``torchrun``
    (``WORLD_SIZE`` > 1) keeps its state: its process group belongs to the launcher."""
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        return
    from accelerate.state import AcceleratorState, GradientState

    # The reset accelerate's own test suite uses between runs (a private, stable helper).
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()


def train(
    config: TrainConfig,
    *,
    resume: bool = False,
    stop_after_steps: int | None = None,
) -> TrainResult:
    """Train (or resume) a run; returns a summary. ``stop_after_steps`` ends this invocation after
    that many optimiser steps without a final save, as a crash would (for tests and time-boxed
    jobs); the run then continues with ``resume=True``."""
    from accelerate import Accelerator
    from accelerate.utils import set_seed

    run_dir = Path(config.output_dir)
    last_dir = run_dir / "checkpoints" / "last"
    check_output_dir(run_dir)
    has_run = (run_dir / CONFIG_FILE).exists()
    has_state = (last_dir / STATE_FILE).is_file()
    if has_run and not has_state:
        # Killed before its first checkpoint: nothing can be continued and nothing is worth
        # keeping, so the run starts over (with or without --resume) instead of needing `rm`.
        log.warning("%s holds a run that never reached a checkpoint; starting it over", run_dir)
        clear_unstarted_run(run_dir)
        has_run, resume = False, False
    if resume and not has_state:
        raise InputError(f"nothing to resume in {run_dir}: {last_dir / STATE_FILE} is missing")
    if not resume and has_run:
        raise InputError(
            f"{run_dir} already holds a run; pass --resume to continue it or choose another "
            "output_dir"
        )
    if resume:
        check_resume_config(run_dir, config)
        finished = _finished_result(run_dir, last_dir, config)
        if finished is not None:
            log.info("%s is finished (step %d); nothing to resume", run_dir, finished.steps)
            return finished

    _fresh_accelerator_state()
    accelerator = Accelerator(
        mixed_precision=_precision(config), cpu=config.cpu, step_scheduler_with_optimizer=False
    )
    set_seed(config.seed)
    main = accelerator.is_main_process

    # Data: the tokenizer the run uses is the one that gets exported.
    tokenizer = load_tokenizer(config.backbone)
    pad_id = find_pad_id(tokenizer)
    base_vocab = tokenizer.get_vocab_size()
    if config.gap_head:
        from sitar.encoding import GapMarkers

        GapMarkers.add_to(tokenizer)
    dropped: dict[str, int] = {}
    splits = load_splits(
        config.data,
        config.data_repeat,
        train_split=config.train_split,
        profile_repeat=config.profile_repeat,
        drop_ops=config.drop_ops,
        dropped=dropped,
    )
    if config.drop_ops:
        log.info("drop_ops %s left out %s records", list(config.drop_ops), dropped)
    check_normal_form(splits, config.normalize, config.normal_form)
    if config.train_split not in splits:
        raise InputError(f"no records with split {config.train_split!r} in {list(config.data)}")
    if config.eval_split not in splits:
        raise InputError(f"no records with split {config.eval_split!r} in {list(config.data)}")
    teacher = None
    named = 0
    if config.teacher:
        teacher = read_teacher(config.teacher)
        named = len({r.id for r in splits[config.train_split]} & set(teacher))
        if not named:
            raise InputError(
                f"teacher file {config.teacher} names none of the {config.train_split!r} records"
            )
        log.info("teacher targets for %d distinct training records", named)
    tier_ids = tier_only_ids(config.data, config.tier_only, split=config.train_split)
    if config.tier_only:
        log.info("tier-only gap targets for %d distinct training records", len(tier_ids))
    train_data = encode_records(
        splits[config.train_split],
        tokenizer,
        max_length=config.max_length,
        long_pairs=config.long_pairs,
        gap_marked=config.gap_head,
        gap_closeness=config.gap_closeness,
        teacher=teacher,
        tier_only=tier_ids if config.tier_only else None,
    )
    eval_data = encode_validation(splits[config.eval_split], tokenizer, config)
    if len(train_data) == 0 or len(eval_data) == 0:
        raise InputError("the train or validation split is empty after leaving out long pairs")
    if main:
        run_dir.mkdir(parents=True, exist_ok=True)
        if not resume:
            config.save(run_dir)
        tokenizer.save(str(run_dir / "tokenizer.json"))
        write_json(
            run_dir / "data.json",
            {
                "files": list(config.data),
                "train": {
                    "n": len(train_data),
                    "signature": data_signature(splits[config.train_split]),
                    "skipped_long": train_data.skipped_long,
                },
                "validation": {
                    "n": len(eval_data),
                    "signature": data_signature(splits[config.eval_split]),
                    "skipped_long": eval_data.skipped_long,
                },
                **(
                    {
                        "teacher": {
                            "file": config.teacher,
                            "sha256": sha256_file(config.teacher),
                            "training_records_named": named,
                        }
                    }
                    if config.teacher
                    else {}
                ),
                **({"tier_only": {"training_records": len(tier_ids)}} if config.tier_only else {}),
                **(
                    {"drop_ops": {"ops": list(config.drop_ops), "records_left_out": dropped}}
                    if config.drop_ops
                    else {}
                ),
            },
        )
        for name, part in (("train", train_data), ("validation", eval_data)):
            if part.skipped_long:
                log.warning(
                    "%d %s pairs exceed max_length=%d and are left out (listed in data.json)",
                    len(part.skipped_long),
                    name,
                    config.max_length,
                )

    init = float(np.mean(train_data.dataset["score"])) if config.init_bias_from_data else None
    if config.init_from:
        model = _init_from(config, base_vocab, init)
    else:
        model = build_regressor(
            config.backbone,
            _head_config(config),
            init_score=init,
        )
    if config.gap_head:
        # New marker embeddings unless the starting model already read gap-marked input.
        had_markers = bool(config.init_from) and _had_gap_head(config)
        add_gap_markers(model, tokenizer, init=not had_markers)
    optimizer = torch.optim.AdamW(
        _param_groups(model, config),
        betas=(config.adam_beta1, config.adam_beta2),
        eps=config.adam_eps,
    )
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _lr_lambda(config))
    model, optimizer = accelerator.prepare(model, optimizer)
    # Stepped by hand once per optimiser step; saved/restored with the accelerate state.
    accelerator.register_for_checkpointing(scheduler)
    loss_fn = SitarLoss(
        lambda_boundary=config.lambda_boundary,
        lambda_ordinal=config.lambda_ordinal,
        lambda_gap=config.lambda_gap,
        teacher_weight=config.teacher_weight,
    ).to(accelerator.device)
    input_names = accelerator.unwrap_model(model).input_names

    state = TrainState()
    if resume:
        accelerator.load_state(str(last_dir))
        saved = json.loads((last_dir / STATE_FILE).read_text(encoding="utf-8"))
        state = TrainState(**saved)
        if main:
            truncate_metrics(run_dir / "metrics.jsonl", state.step)
            log.info("resumed %s at step %d (epoch %d, batch %d)", run_dir, *_pos(state))

    def save_last() -> None:
        tmp = run_dir / "checkpoints" / ".last.tmp"
        if main and tmp.exists():
            shutil.rmtree(tmp)
        accelerator.wait_for_everyone()
        try:
            accelerator.save_state(str(tmp))
            if main:
                write_json(tmp / STATE_FILE, state.to_dict())
        except (OSError, RuntimeError) as e:  # torch.save reports a full disk as RuntimeError
            if main:  # the partial state is useless and may hold most of the disk
                shutil.rmtree(tmp, ignore_errors=True)
            free = shutil.disk_usage(run_dir).free / 2**20
            kept = (
                f"the resume state in {last_dir} is kept; free space and continue with --resume"
                if last_dir.exists()
                else "no earlier resume state exists"
            )
            raise OutputError(
                f"could not save the resume state of step {state.step} to {tmp} "
                f"({type(e).__name__}: {' '.join(str(e).split())}); {free:.0f} MiB free on "
                f"that disk; {kept}"
            ) from e
        if main:
            if last_dir.exists():
                shutil.rmtree(last_dir)
            os.replace(tmp, last_dir)
        accelerator.wait_for_everyone()

    def evaluate_now() -> dict[str, float]:
        gap_logits: dict[int, np.ndarray] = {}
        preds, mean_loss = predict_split(
            model,
            eval_data,
            batch_size=config.eval_batch_size,
            pad_id=pad_id,
            accelerator=accelerator,
            loss_fn=loss_fn,
            gap_logits_out=gap_logits,
        )
        metrics = regression_metrics(
            preds, eval_data.dataset["score"], bases=eval_data.dataset["base"]
        )
        if config.gap_head:
            metrics.update(gap_metrics(eval_data, preds, gap_logits, config.rho))
        metrics["loss"] = mean_loss
        return metrics

    losses: list[float] = []
    last_eval: dict[str, float] = {}
    metrics_path = run_dir / "metrics.jsonl"
    steps_this_run = 0
    micro = 0
    window: list[dict[str, float]] = []
    t0 = time.time()
    model.train()
    done = state.step >= config.max_steps or state.stopped_early
    while not done:
        batches = length_grouped_batches(
            train_data.lengths,
            batch_size=config.batch_size,
            group_size=config.length_group_size,
            seed=config.seed,
            epoch=state.epoch,
        )
        mine = shard_batches(
            batches,
            num_processes=accelerator.num_processes,
            process_index=accelerator.process_index,
        )
        for b in range(state.batch_in_epoch, len(mine)):
            arrays = collate(train_data, mine[b], pad_id=pad_id, input_names=input_names)
            feed = {k: torch.from_numpy(arrays[k]).to(accelerator.device) for k in input_names}
            target = torch.from_numpy(arrays["score"]).to(accelerator.device)
            base = torch.from_numpy(arrays["base"]).to(accelerator.device)
            micro += 1
            sync = micro % config.grad_accum_steps == 0
            # Skip the gradient all-reduce on micro-batches that do not end an accumulation group.
            ctx = contextlib.nullcontext() if sync else accelerator.no_sync(model)
            with ctx:
                with accelerator.autocast():
                    outputs = model(**feed)
                gap_logits, gap_steps = gap_outputs(outputs, arrays, accelerator.device)
                gap_soft = (
                    torch.from_numpy(arrays["gap_soft"]).to(accelerator.device)
                    if "gap_soft" in arrays
                    else None
                )
                gap_tier_only = (
                    torch.from_numpy(arrays["gap_tier_only"]).to(accelerator.device)
                    if "gap_tier_only" in arrays
                    else None
                )
                # losses in fp32
                out = loss_fn(
                    outputs[0].float(),
                    outputs[1].float(),
                    target,
                    base,
                    gap_logits,
                    gap_steps,
                    gap_soft,
                    gap_tier_only,
                )
                accelerator.backward(out.total / config.grad_accum_steps)
            window.append(out.as_floats())
            state.batch_in_epoch = b + 1
            if not sync:
                continue
            if config.max_grad_norm > 0:
                accelerator.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            state.step += 1
            steps_this_run += 1
            step_loss = float(np.mean([w["loss"] for w in window]))
            losses.append(step_loss)
            if state.step % config.log_every == 0 and main:
                entry = {
                    "step": state.step,
                    "epoch": state.epoch,
                    "lr": scheduler.get_last_lr()[0],
                    **{k: float(np.mean([w[k] for w in window])) for k in window[0]},
                    "elapsed_s": round(time.time() - t0, 2),
                }
                append_jsonl(metrics_path, {"train": entry})
                log.info("step %d loss %.4f", state.step, step_loss)
            window = []
            if state.step % config.eval_every == 0 or state.step >= config.max_steps:
                last_eval = evaluate_now()
                value = metric_value(config, last_eval)
                improved = state.best_metric is None or value > state.best_metric
                if improved:
                    state.best_metric, state.best_step = value, state.step
                    state.evals_without_improvement = 0
                    if main:
                        best = run_dir / "best"
                        save_regressor(accelerator.unwrap_model(model), best / "torch")
                        write_json(best / "best.json", {"step": state.step, **last_eval})
                else:
                    state.evals_without_improvement += 1
                if config.keep_eval_weights and main:
                    save_regressor(
                        accelerator.unwrap_model(model), run_dir / "evals" / f"step-{state.step}"
                    )
                    write_json(
                        run_dir / "evals" / f"step-{state.step}" / "eval.json",
                        {"step": state.step, **last_eval},
                    )
                if config.patience and state.evals_without_improvement >= config.patience:
                    state.stopped_early = True
                entry = {"step": state.step, config.metric: value, **last_eval}
                state.history.append(entry)
                if main:
                    append_jsonl(metrics_path, {"eval": entry})
                    log.info("eval step %d: %s", state.step, json.dumps(last_eval))
                save_last()
            if state.step >= config.max_steps or state.stopped_early:
                done = True
                break
            if stop_after_steps is not None and steps_this_run >= stop_after_steps:
                # Simulated crash: leave without saving; checkpoints/last holds the last evaluation.
                return TrainResult(
                    run_dir,
                    state.step,
                    state.best_step,
                    state.best_metric,
                    False,
                    last_eval,
                    tuple(losses),
                )
        else:
            state.epoch += 1
            state.batch_in_epoch = 0
    if main:
        write_json(
            run_dir / "summary.json",
            {
                "steps": state.step,
                "best_step": state.best_step,
                "best_metric": state.best_metric,
                "metric": config.metric,
                "stopped_early": state.stopped_early,
                "last_eval": last_eval,
                "training_config_hash": config.hash(),
                "sitar_version": __version__,
                "torch_version": torch.__version__,
                "precision": accelerator.mixed_precision,
                "num_processes": accelerator.num_processes,
                "device": accelerator.device.type,
                "device_name": (
                    torch.cuda.get_device_name(accelerator.device)
                    if accelerator.device.type == "cuda"
                    else None
                ),
            },
        )
    accelerator.wait_for_everyone()
    return TrainResult(
        run_dir,
        state.step,
        state.best_step,
        state.best_metric,
        state.stopped_early,
        last_eval,
        tuple(losses),
    )


def _pos(state: TrainState) -> tuple[int, int, int]:
    return state.step, state.epoch, state.batch_in_epoch
