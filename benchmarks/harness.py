"""What every benchmark shares: one timer, one result schema with provenance, and the same-run
turn-taking loop.

* :func:`timed` is the one timer: wall time (``time.perf_counter``) and process CPU time
  (``time.process_time``, every thread of the process, ONNX Runtime's included) of one call.
* :func:`result` / :func:`write_result` give every benchmark's JSON the same envelope:
  ``{"schema": RESULT_SCHEMA, "benchmark": NAME, ...the benchmark's numbers..., "provenance":
  {...}}``, where :func:`provenance` records the command line, commit, UTC time, Python and
  package versions and the CPU (int8 kernels differ with AVX2 / VNNI).
* :func:`take_turns` / :func:`same_run_report` / :func:`built_folder`: two scorers timed on the
  same pairs in turns within one run (machines here are noisy: ratios from one run, not absolute
  numbers across runs).

Pairs come from :mod:`benchmarks.pairs`.
"""

from __future__ import annotations

import datetime
import functools
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: Version of the result envelope written by :func:`write_result`.
RESULT_SCHEMA = "sitar.benchmark/1"
PACKAGES = ("sitar", "numpy", "onnxruntime", "tokenizers", "rapidfuzz", "jiwer", "ray")


# -- the timer ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """One timed call: wall seconds, process CPU seconds (all threads), and what it returned."""

    wall: float
    cpu: float
    value: Any


def clock() -> float:
    """The timer's wall clock (``time.perf_counter``), for spans that are not one call (a request
    awaited inside an event loop)."""
    return time.perf_counter()


def timed(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Timing:
    """Call ``fn(*args, **kwargs)`` once and time it (wall and process CPU time)."""
    w0, c0 = clock(), time.process_time()
    value = fn(*args, **kwargs)
    return Timing(clock() - w0, time.process_time() - c0, value)


# -- provenance and the result schema ------------------------------------------------------------------


def _commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
        )
    except OSError:
        return None
    return out.stdout.strip() or None


def _cpu_flags() -> list[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    wanted = {"avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8"}
    return sorted(wanted & set(text.split()))


def provenance() -> dict[str, Any]:
    """The command line, git commit, UTC time, Python and package versions, and the CPU (int8
    kernels differ with AVX2 / VNNI)."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return {
        "argv": sys.argv,
        "commit": _commit(),
        "utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "versions": versions,
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "cpu_flags": _cpu_flags(),
    }


def result(benchmark: str, numbers: dict[str, Any]) -> dict[str, Any]:
    """``numbers`` in the shared envelope: schema, benchmark name, the numbers, provenance."""
    reserved = {"schema", "benchmark", "provenance"} & set(numbers)
    if reserved:
        raise ValueError(f"a benchmark's numbers may not use the keys {sorted(reserved)}")
    return {"schema": RESULT_SCHEMA, "benchmark": benchmark, **numbers, "provenance": provenance()}


def write_result(
    path: str | Path | None, benchmark: str, numbers: dict[str, Any]
) -> dict[str, Any]:
    """:func:`result`, written as indented JSON to ``path`` when one is given; returned."""
    report = result(benchmark, numbers)
    if path:
        Path(path).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


# -- two scorers taking turns ----------------------------------------------------------------------------
def take_turns(
    systems: dict[str, Any],
    refs: list[str],
    hyps: list[str],
    *,
    rounds: int,
    batch_size: int,
) -> dict[str, dict[str, Any]]:
    """Warm each scorer up on 16 pairs, then let them score all pairs in turn for ``rounds``
    rounds (the order alternating, so neither always runs first). Returns, per system, its
    signature, pairs/s per round and their median."""
    for scorer in systems.values():  # warm-up
        scorer.score(references=refs[:16], hypotheses=hyps[:16], batch_size=batch_size)
    rates: dict[str, list[float]] = {name: [] for name in systems}
    names = list(systems)
    for r in range(rounds):
        for name in names[r % 2 :] + names[: r % 2]:
            t = timed(systems[name].score, references=refs, hypotheses=hyps, batch_size=batch_size)
            rates[name].append(len(refs) / t.wall)
            print(f"round {r + 1}: {name}: {rates[name][-1]:.2f} pairs/s", flush=True)
    return {
        name: {
            "signature": systems[name].signature,
            "pairs_per_s": rates[name],
            "median_pairs_per_s": statistics.median(rates[name]),
        }
        for name in systems
    }


def same_run_report(
    refs: list[str],
    runs: dict[str, dict[str, Any]],
    args: Any,
    *,
    other: str,
    label: str,
    extra: dict[str, Any],
    benchmark: str,
) -> dict[str, Any]:
    """The report of a "checkpoint" against ``other`` (``extra`` describes ``other``; ``args``: the
    parsed ``--threads``, ``--batch-size``, ``--data`` and ``--json``): printed as one line naming
    ``other`` by ``label``, written to ``--json`` (as ``benchmark``'s result) when given, returned."""
    ratios = [
        x / y
        for x, y in zip(runs["checkpoint"]["pairs_per_s"], runs[other]["pairs_per_s"], strict=True)
    ]
    ratio = statistics.median(ratios)
    numbers = {
        "n": len(refs),
        "mean_reference_words": sum(len(x.split()) for x in refs) / len(refs),
        "threads": args.threads,
        "batch_size": args.batch_size,
        "data": str(args.data),
        **extra,
        "systems": runs,
        f"ratio_checkpoint_vs_{other}": ratio,
        "ratios_per_round": ratios,
    }
    report = write_result(args.json, benchmark, numbers)
    print(
        f"{report['n']} pairs, mean {report['mean_reference_words']:.1f} reference words: "
        f"checkpoint {runs['checkpoint']['median_pairs_per_s']:.1f} pairs/s, "
        f"{label} {runs[other]['median_pairs_per_s']:.2f} pairs/s, ratio {ratio:.2f}x"
    )
    return report


def built_folder(
    kept: str | None, name: str, build: Callable[[Path], object]
) -> tuple[Path, tempfile.TemporaryDirectory[str] | None]:
    """The folder of a model built for the run: ``kept`` (built there unless it already holds a
    checkpoint, then reused) or a temporary folder (returned too, for the caller to clean up)."""
    tmp = None
    if kept:
        folder = Path(kept)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="sitar-bench-")
        folder = Path(tmp.name) / name
    if not (folder / "sitar_config.json").is_file():
        t = timed(build, folder)
        print(f"built {folder} in {t.wall:.0f} s", flush=True)
    return folder, tmp


@functools.cache
def frozen_reference(name: str) -> Any:
    """A frozen earlier implementation kept in ``tests/reference/`` as a test reference
    (``cgd_exact_v1``, ``text_v1``), loaded once from its file: the benchmarks time today's code
    against it."""
    import importlib.util

    path = ROOT / "tests" / "reference" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_sitar_frozen_{name}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the frozen reference {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
