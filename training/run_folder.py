"""A run folder's files: the checks before a run starts or resumes, the files an unstarted run
leaves, and the JSON writes of :func:`training.loop.train` (atomic for state, appended for logs).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from sitar.errors import InputError, OutputError
from training.config import CONFIG_FILE, TrainConfig, load_config

__all__ = [
    "RESUMABLE_KEYS",
    "UNSTARTED_DIRS",
    "UNSTARTED_FILES",
    "append_jsonl",
    "check_output_dir",
    "check_resume_config",
    "clear_unstarted_run",
    "truncate_metrics",
    "write_json",
]

#: Settings that may differ between a run and its resumption.
RESUMABLE_KEYS = frozenset({"max_steps", "patience", "log_every", "notes"})


def write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2, allow_nan=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def check_resume_config(run_dir: Path, config: TrainConfig) -> None:
    saved = load_config(run_dir / CONFIG_FILE)
    a, b = saved.to_dict(), config.to_dict()
    diff = sorted(k for k in a if a[k] != b.get(k) and k not in RESUMABLE_KEYS)
    if diff:
        raise InputError(
            f"cannot resume {run_dir}: settings {diff} differ from the saved config.yaml "
            f"(only {sorted(RESUMABLE_KEYS)} may change); start a new output_dir instead"
        )


def check_output_dir(run_dir: Path) -> None:
    """An output_dir that cannot hold a run is one clear error, before any data or model loads."""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(
            f"cannot create output_dir {run_dir}: {e.strerror or e}; choose a writable folder"
        ) from e
    if not os.access(run_dir, os.W_OK | os.X_OK):
        raise OutputError(f"output_dir {run_dir} is read-only (not writable); choose another")


#: What a run writes before its first checkpoint (removed when such a run starts over).
UNSTARTED_FILES = (CONFIG_FILE, "tokenizer.json", "data.json", "metrics.jsonl", "summary.json")
UNSTARTED_DIRS = ("best", "evals", "checkpoints")


def clear_unstarted_run(run_dir: Path) -> None:
    for name in UNSTARTED_FILES:
        (run_dir / name).unlink(missing_ok=True)
    for name in UNSTARTED_DIRS:
        shutil.rmtree(run_dir / name, ignore_errors=True)


def append_jsonl(path: Path, obj: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(obj, allow_nan=True) + "\n")


def truncate_metrics(path: Path, step: int) -> None:
    """Drop log lines written after the checkpoint we resume from (they will be redone)."""
    if not path.is_file():
        return
    kept = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        inner = next(iter(entry.values()))
        if int(inner.get("step", 0)) <= step:
            kept.append(line)
    path.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
