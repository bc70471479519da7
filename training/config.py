"""The training configuration: one dataclass, loaded from YAML, overridable from the command line.

:class:`TrainConfig` holds everything that decides a training run (backbone, data files, optimiser
and schedule, loss weights, evaluation and early stopping, precision). It is loaded with
:func:`load_config` from a YAML file plus ``key=value`` overrides (values parsed as YAML, so
``lr=2e-5`` and ``data.train=[a.jsonl]`` work), validated, and saved into every run directory as
``config.yaml``. :meth:`TrainConfig.hash` is the SHA-256 of its canonical JSON form; checkpoints
record it as ``training_config_hash``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from sitar.checkpoint import NORMALIZATIONS
from sitar.errors import InputError
from sitar.normalize import NORMAL_FORM_VERSIONS, NORMALIZER_VERSION, check_normal_form_version
from sitar.targets import DEFAULT_RHO

__all__ = ["CONFIG_FILE", "TrainConfig", "load_config", "load_yaml", "parse_overrides"]

#: Name of the saved config inside a run directory.
CONFIG_FILE = "config.yaml"
_PRECISIONS = ("auto", "bf16", "fp32")
_SCHEDULERS = ("linear", "cosine", "constant")
_METRICS = ("spearman", "pearson", "kendall", "neg_mae", "interval_hit_rate", "neg_loss")
_LONG_POLICIES = ("skip", "error")
#: As sitar.modeling.model.POOLINGS (not imported: this module must load without torch).
_POOLINGS = ("mean", "cls", "mean_max")


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of a training run. Paths are relative to the working directory."""

    #: Run / checkpoint name (goes into exported checkpoints).
    name: str = "sitar"
    #: Backbone: hub id, local folder or ``package:<distribution>`` (sitar.modeling.resolve_backbone).
    backbone: str = "microsoft/deberta-v3-large"
    #: Pooling of the encoder output for the heads: ``mean``, ``cls`` or ``mean_max``.
    pooling: str = "mean"
    dropout: float = 0.1
    #: Max tokens of the pair encoding, special tokens included.
    max_length: int = 512
    #: Record files (JSONL or Parquet, schema sitar.record/1); each record's ``split`` selects its use.
    data: tuple[str, ...] = ()
    #: Times each ``data`` file's training records are used per pass (one number per file; empty:
    #: once each). Oversamples a small file, e.g. hand labels next to a large synthetic corpus;
    #: validation and test records are never repeated.
    data_repeat: tuple[int, ...] = ()
    #: Times the training records of a given ``provenance.profile`` are used, on top of
    #: ``data_repeat`` (e.g. ``{quantifier: 4}`` upweights one synthetic family without
    #: splitting its file); profiles not named are used once. Empty: no effect (and left out of
    #: the config's dict and hash, which stay as before the option existed).
    profile_repeat: dict[str, int] = field(default_factory=dict)
    #: Synthetic edit operators (``provenance.edits[].op`` of an edit that made a gap) whose
    #: records are left out of every split, e.g. the sound-alike families whose literal-token
    #: tiers contradict rubric asr-v2 [C]. A named operator that no record has is an error.
    #: Empty: no effect (and left out of the config's dict and hash).
    drop_ops: tuple[str, ...] = ()
    #: Files whose gaps train the gap head on their *tier* only (one flag per ``data`` file): for
    #: their training records, the two thresholds inside a gap's tier (T0 / T0+; T1− / T1 / T1+;
    #: T2− / T2) carry no loss, so the direction inside the tier comes from the other files (e.g.
    #: hand labels whose +/- marks follow a different convention from the synthetic data's)
    #: [C]. Empty: every gap trains on its step (and the setting is left out of the config's
    #: dict and hash, which stay as before the option existed).
    tier_only: tuple[bool, ...] = ()
    train_split: str = "train"
    eval_split: str = "validation"
    #: What to do with training pairs longer than max_length: ``skip`` (counted and logged) or
    #: ``error``. They are never truncated.
    long_pairs: str = "skip"
    #: Where runs go: ``<output_dir>/`` holds config.yaml, metrics.jsonl, checkpoints/, best/.
    output_dir: str = "runs/sitar"
    seed: int = 13
    #: Per-device micro-batch size, and micro-batches per optimiser step.
    batch_size: int = 16
    grad_accum_steps: int = 1
    eval_batch_size: int = 32
    learning_rate: float = 1e-5
    #: Learning rate of the two heads (they start from scratch).
    head_learning_rate: float = 1e-4
    weight_decay: float = 0.01
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_eps: float = 1e-6
    #: Optimiser steps in total (the stopping criterion; early stopping may end sooner).
    max_steps: int = 10000
    warmup_ratio: float = 0.06
    scheduler: str = "linear"
    max_grad_norm: float = 1.0
    #: Batches are drawn by length inside mega-batches of ``batch_size * length_group_size`` pairs.
    length_group_size: int = 50
    #: Evaluate (and save the resumable checkpoint) every N optimiser steps.
    eval_every: int = 500
    #: Early stopping: evaluations without improvement of ``metric`` before stopping (0 = never).
    patience: int = 5
    metric: str = "spearman"
    log_every: int = 50
    #: spec §7 (docs/spec.md) loss weights.
    lambda_boundary: float = 1.0
    lambda_ordinal: float = 0.5
    #: spec §7b: read gap-marked input and train the per-gap head too (multi-task) [C].
    gap_head: bool = False
    #: Weight of the per-gap ordinal loss (with ``gap_head``).
    lambda_gap: float = 1.0
    #: spec §7b [C]: the gap head also reads each gap's two closeness features (character and
    #: phonetic similarity of its spans, :mod:`sitar.closeness`) as the ``gap_closeness`` input
    #: (needs ``gap_head``). With ``init_from`` a checkpoint without them, their weights start at
    #: zero (the outputs at step 0 are the old model's). False: left out of the config's dict and
    #: hash, which stay as before the option existed.
    gap_closeness: bool = False
    #: Teacher targets for the gap head (distillation [C]): a file of ``python -m training.teacher``
    #: (a checkpoint's per-gap threshold probabilities on training records). For the training
    #: records it names, threshold ``k``'s BCE target becomes ``(1 − w) · label + w · teacher``
    #: with ``w = teacher_weight``; other records keep their labels. Empty: no teacher (and both
    #: settings are left out of the config's dict and hash).
    teacher: str = ""
    teacher_weight: float = 0.5
    rho: float = DEFAULT_RHO
    #: The input form the model is trained on, and so the form a checkpoint of this run is scored
    #: in by default (``scoring.normalize`` in its config): ``none`` (text as written) or
    #: ``sitar`` (both sides through :mod:`sitar.normalize`). With ``sitar`` every record must be
    #: in that normal form (``python -m training.normal_form``; checked when the data is loaded).
    normalize: str = "none"
    #: With ``normalize: sitar``, the normal form the records are in and the checkpoint is scored
    #: in (``scoring.normal_form``): ``"2"`` (rule 11's boundary marks) or ``"3"`` (none); see
    #: :mod:`sitar.normalize`. ``"2"`` is left out of the config's dict and hash.
    normal_form: str = NORMALIZER_VERSION
    #: ``auto``: bf16 on a bf16-capable GPU, fp32 otherwise. fp16 is not offered (DeBERTa overflows).
    precision: str = "auto"
    #: Force CPU even when a GPU is visible.
    cpu: bool = False
    #: Initialise the regression bias at the mean training target.
    init_bias_from_data: bool = True
    #: Start from a saved regressor instead of the bare backbone (fine-tuning further): a run's
    #: ``best/`` folder or an exported checkpoint with torch weights. Its backbone must be
    #: ``backbone`` (same tokenizer); its heads are kept, so ``init_bias_from_data`` is ignored.
    #: Empty: start from ``backbone``.
    init_from: str = ""
    #: With ``init_from``: also take its two heads (``true``), or only its backbone weights and
    #: start the heads afresh from ``pooling`` and ``init_bias_from_data`` (``false``; the pooling
    #: may then differ from the saved one).
    init_from_heads: bool = True
    #: Also keep the weights of every evaluation in ``<output_dir>/evals/step-<N>/`` (for selecting
    #: a step on other data, e.g. the public dev set; ``python -m training.export --step N``).
    keep_eval_weights: bool = False
    #: Free-form notes saved with the run.
    notes: str = ""
    #: Free-form metadata saved with the run (e.g. dataset card, annotator versions).
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        def bad(key: str, expected: str) -> InputError:
            return InputError(f"config {key}: expected {expected}, got {getattr(self, key)!r}")

        if isinstance(self.data, (str, bytes)):
            object.__setattr__(self, "data", (self.data,))
        object.__setattr__(self, "data", tuple(str(p) for p in self.data))

        def per_file(key: str, ok: Callable[[Any], bool], what: str) -> None:
            """A list with one entry per ``data`` file (or empty), each passing ``ok``."""
            value = getattr(self, key)
            if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
                raise bad(key, f"a list of {what}, one per data file")
            object.__setattr__(self, key, tuple(value))
            if value and (len(value) != len(self.data) or not all(ok(x) for x in value)):
                raise bad(key, f"{len(self.data)} {what} (one per data file)")

        per_file(
            "data_repeat",
            lambda k: not isinstance(k, bool) and isinstance(k, int) and k >= 1,
            "positive integers",
        )
        per_file("tier_only", lambda f: isinstance(f, bool), "flags true/false")
        if any(self.tier_only) and not self.gap_head:
            raise InputError("config tier_only: tier-only targets are for the gap head (gap_head)")
        if not isinstance(self.profile_repeat, Mapping) or any(
            not isinstance(k, str)
            or not k
            or isinstance(v, bool)
            or not isinstance(v, int)
            or v < 1
            for k, v in self.profile_repeat.items()
        ):
            raise bad("profile_repeat", "a mapping of profile name to a positive integer")
        object.__setattr__(self, "profile_repeat", dict(self.profile_repeat))
        if not isinstance(self.drop_ops, (list, tuple)) or not all(
            isinstance(op, str) and op for op in self.drop_ops
        ):
            raise bad("drop_ops", "a list of operator names")
        object.__setattr__(self, "drop_ops", tuple(self.drop_ops))
        for key in ("max_length", "batch_size", "grad_accum_steps", "eval_batch_size", "max_steps"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise bad(key, "a positive integer")
        for key in ("eval_every", "log_every", "length_group_size"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise bad(key, "a positive integer")
        for key in ("patience", "seed"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise bad(key, "a non-negative integer")
        for key in (
            "learning_rate",
            "head_learning_rate",
            "weight_decay",
            "max_grad_norm",
            "lambda_boundary",
            "lambda_ordinal",
            "lambda_gap",
            "adam_eps",
        ):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise bad(key, "a non-negative number")
            object.__setattr__(self, key, float(v))
        if not isinstance(self.teacher, str):
            raise bad("teacher", "a teacher file path, or empty")
        w = self.teacher_weight
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= w <= 1.0:
            raise bad("teacher_weight", "a number in [0, 1]")
        object.__setattr__(self, "teacher_weight", float(w))
        if self.normalize not in NORMALIZATIONS:
            raise bad("normalize", "'none' or 'sitar'")
        try:
            check_normal_form_version(self.normal_form)
        except InputError as e:
            raise bad("normal_form", f"one of {NORMAL_FORM_VERSIONS} (a string)") from e
        if self.normal_form != NORMALIZER_VERSION and self.normalize != "sitar":
            raise bad("normal_form", f"{NORMALIZER_VERSION!r} unless normalize is 'sitar'")
        if self.teacher and not self.gap_head:
            raise InputError("config teacher: teacher targets are for the gap head (gap_head)")
        if not 0.0 <= self.warmup_ratio < 1.0:
            raise bad("warmup_ratio", "a number in [0, 1)")
        if not 0.0 <= self.dropout < 1.0:
            raise bad("dropout", "a number in [0, 1)")
        if not 0.0 < self.rho < 1.0:
            raise bad("rho", "a number with 0 < rho < 1")
        if self.precision == "fp16":
            raise InputError(
                "config precision: fp16 is not supported (DeBERTa overflows in fp16); "
                "use 'bf16' on a GPU that supports it, 'fp32', or 'auto'"
            )
        choices = (
            ("precision", _PRECISIONS),
            ("scheduler", _SCHEDULERS),
            ("metric", _METRICS),
            ("pooling", _POOLINGS),
            ("long_pairs", _LONG_POLICIES),
        )
        for key, allowed in choices:
            if getattr(self, key) not in allowed:
                raise bad(key, f"one of {allowed}")
        if not isinstance(self.backbone, str) or not self.backbone:
            raise bad("backbone", "a non-empty string")
        if not isinstance(self.init_from, str):
            raise bad("init_from", "a folder path, or empty")
        for key in ("init_from_heads", "keep_eval_weights", "gap_head", "gap_closeness"):
            if not isinstance(getattr(self, key), bool):
                raise bad(key, "true or false")
        if self.gap_closeness and not self.gap_head:
            raise InputError("config gap_closeness: the features feed the gap head (gap_head)")

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["data"] = list(self.data)
        out["data_repeat"] = list(self.data_repeat)
        if self.tier_only:
            out["tier_only"] = list(self.tier_only)
        else:
            del out["tier_only"]  # configs without it keep their hash
        if self.profile_repeat:
            out["profile_repeat"] = dict(sorted(self.profile_repeat.items()))
        else:
            del out["profile_repeat"]  # configs without it keep their hash
        if self.drop_ops:
            out["drop_ops"] = list(self.drop_ops)
        else:
            del out["drop_ops"]  # likewise
        if not self.teacher:
            del out["teacher"], out["teacher_weight"]  # likewise
        if self.normalize == "none":
            del out["normalize"]  # likewise
        if self.normal_form == NORMALIZER_VERSION:
            del out["normal_form"]  # likewise
        if not self.gap_closeness:
            del out["gap_closeness"]  # likewise
        out["extra"] = dict(self.extra)
        return out

    def hash(self) -> str:
        """``sha256:<hex>`` of the canonical JSON of :meth:`to_dict`."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "config") -> TrainConfig:
        if not isinstance(data, Mapping):
            raise InputError(f"{where}: expected a mapping of settings, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InputError(
                f"{where}: unknown setting(s) {unknown}; known settings are {sorted(known)}"
            )
        try:
            return cls(**dict(data))
        except TypeError as e:
            raise InputError(f"{where}: {e}") from e

    def replace(self, **changes: Any) -> TrainConfig:
        return dataclasses.replace(self, **changes)

    def save(self, folder: str | os.PathLike[str]) -> Path:
        """Write ``config.yaml`` into ``folder`` (with the hash as a comment); returns its path."""
        path = Path(folder) / CONFIG_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        text = f"# training_config_hash: {self.hash()}\n" + yaml.safe_dump(
            self.to_dict(), sort_keys=True, allow_unicode=True
        )
        path.write_text(text, encoding="utf-8")
        return path


#: Limits of :func:`load_yaml`: a config is a few kB, nests a few levels and needs no more than a
#: few anchors; an alias bomb ("billion laughs") or a 5000-deep list is refused before it expands.
MAX_YAML_BYTES = 1024 * 1024
MAX_YAML_ALIASES = 100
MAX_YAML_DEPTH = 64
MAX_YAML_VALUES = 100_000


def load_yaml(text: str, *, where: str) -> Any:
    """``yaml.safe_load`` with limits: at most :data:`MAX_YAML_BYTES` bytes,
    :data:`MAX_YAML_ALIASES` aliases, :data:`MAX_YAML_DEPTH` levels of nesting and
    :data:`MAX_YAML_VALUES` values once aliases are expanded. Every failure is an
    :class:`InputError` naming ``where``."""
    if len(text.encode("utf-8")) > MAX_YAML_BYTES:
        raise InputError(f"{where}: larger than {MAX_YAML_BYTES} bytes; a config is a few kB")
    try:
        # The event stream is flat (no recursion): count aliases and depth before composing.
        aliases = depth = 0
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_YAML_ALIASES:
                    raise InputError(
                        f"{where}: more than {MAX_YAML_ALIASES} YAML aliases (*name); a config "
                        "needs a few at most (an alias bomb expands exponentially)"
                    )
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    raise InputError(f"{where}: YAML nested more than {MAX_YAML_DEPTH} levels deep")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InputError(f"{where}: invalid YAML: {e}") from e
    _count_values(loaded, where)
    return loaded


def _count_values(value: Any, where: str) -> None:
    # Aliases share objects: walk the expanded tree with an explicit stack and a budget.
    budget = MAX_YAML_VALUES
    stack = [value]
    while stack:
        item = stack.pop()
        budget -= 1
        if budget < 0:
            raise InputError(
                f"{where}: the YAML expands to more than {MAX_YAML_VALUES} values through its "
                "aliases; write the settings out"
            )
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def parse_overrides(overrides: Sequence[str]) -> dict[str, Any]:
    """``["key=value", ...]`` -> dict; values are parsed as YAML scalars/lists."""
    out: dict[str, Any] = {}
    for item in overrides:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(
                f"override {item!r} must look like key=value (e.g. learning_rate=2e-5)"
            )
        out[key] = load_yaml(value, where=f"override {item[:60]!r}") if value.strip() else ""
        # YAML reads 1e-5 as a string (no dot); accept it as a float.
        if isinstance(out[key], str):
            try:
                out[key] = float(out[key]) if any(c in out[key] for c in "eE.") else out[key]
            except ValueError:
                pass
    return out


def load_config(
    path: str | os.PathLike[str] | None = None, overrides: Sequence[str] = ()
) -> TrainConfig:
    """Load a YAML config file (or the defaults when ``path`` is None) and apply overrides."""
    data: dict[str, Any] = {}
    where = "config"
    if path is not None:
        path = Path(path)
        where = str(path)
        if not path.is_file():
            raise InputError(f"config file not found: {path}")
        try:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_YAML_BYTES + 1)
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"cannot read {path}: {e}") from e
        loaded = load_yaml(text, where=str(path))
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise InputError(f"{path}: expected a mapping of settings at the top level")
        data.update(loaded)
    data.update(parse_overrides(overrides))
    # YAML reads numbers like 1e-5 as strings; coerce numeric fields declared as float.
    for f in fields(TrainConfig):
        if f.type == "float" and isinstance(data.get(f.name), str):
            try:
                data[f.name] = float(data[f.name])
            except ValueError as e:
                raise InputError(f"{where}: {f.name} must be a number, got {data[f.name]!r}") from e
    return TrainConfig.from_dict(data, where=where)
