"""Two scorers taking turns on the same pairs: the timing loop shared by the same-run benchmarks."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


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
            t0 = time.perf_counter()
            systems[name].score(references=refs, hypotheses=hyps, batch_size=batch_size)
            rates[name].append(len(refs) / (time.perf_counter() - t0))
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
) -> dict[str, Any]:
    """The report of a "checkpoint" against ``other`` (``extra`` describes ``other``; ``args``: the
    parsed ``--threads``, ``--batch-size``, ``--data`` and ``--json``): printed as one line naming
    ``other`` by ``label``, written to ``--json`` when given, returned."""
    from _provenance import provenance

    ratios = [
        x / y
        for x, y in zip(runs["checkpoint"]["pairs_per_s"], runs[other]["pairs_per_s"], strict=True)
    ]
    ratio = statistics.median(ratios)
    report = {
        "n": len(refs),
        "mean_reference_words": sum(len(x.split()) for x in refs) / len(refs),
        "threads": args.threads,
        "batch_size": args.batch_size,
        "data": str(args.data),
        **extra,
        "systems": runs,
        f"ratio_checkpoint_vs_{other}": ratio,
        "ratios_per_round": ratios,
        "provenance": provenance(),
    }
    print(
        f"{report['n']} pairs, mean {report['mean_reference_words']:.1f} reference words: "
        f"checkpoint {runs['checkpoint']['median_pairs_per_s']:.1f} pairs/s, "
        f"{label} {runs[other]['median_pairs_per_s']:.2f} pairs/s, ratio {ratio:.2f}x"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
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
        t0 = time.perf_counter()
        build(folder)
        print(f"built {folder} in {time.perf_counter() - t0:.0f} s", flush=True)
    return folder, tmp
