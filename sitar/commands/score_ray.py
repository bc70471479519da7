"""``sitar score --engine ray``: score the pairs on a Ray cluster, write sharded outputs + manifest.

The pairs are read on the driver with the same readers and checks as ``sitar score`` (the same
ids, the same error messages), cut into blocks and scored by :func:`sitar.integrations.ray.
score_dataset` with ``--num-actors`` actors, each loading the model once. The result is written
to ``--output-dir`` as Parquet or JSONL shards (one record per pair: ``id``, ``score``, ``raw``,
``windowed``, ``identical``, ``n_windows``, ``signature``, as ``sitar score --jsonl-out``; and
``reference_index`` with several references per utterance, from repeated ``--ref-file`` or JSONL
``reference`` lists: each pair keeps its closest reference, as without Ray), in input order, plus ``manifest.json``: the signature, the pair count, the system score (macro mean,
computed from the written shards with :func:`sitar.result.system_score`, exact and so independent
of the shard order),
the shard files with their row counts, and how the run was made (sitar and Ray versions, actors,
batch sizes, the scorer options, input). Every scorer option of ``sitar score`` applies here too
(:func:`sitar.options.options_from_args`); ``--threads`` means threads per actor. The shards are read back before the manifest is written; a shard
set with more or fewer rows than input pairs is an error, never a manifest.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sitar.errors import InputError, OutputError, SitarError
from sitar.options import options_from_args
from sitar.result import AGGREGATION, system_score

__all__ = ["MANIFEST_NAME", "add_engine_arguments", "reject_ray_options", "run_ray"]

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = "sitar-sharded-scores"
MANIFEST_VERSION = 1
_OUTPUT_COLUMNS = ["id", "score", "raw", "windowed", "identical", "n_windows", "signature"]


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and the options of ``--engine ray``."""
    group = parser.add_argument_group("engine")
    group.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: this process (default); ray: a Ray cluster, sharded output (needs sitar[ray])",
    )
    group.add_argument(
        "--address",
        default=None,
        help="Ray cluster address (e.g. 10.0.0.1:6379, or 'auto'); default: RAY_ADDRESS, or a "
        "local Ray instance started for this run",
    )
    group.add_argument(
        "--num-actors", type=int, default=2, metavar="N", help="Ray actors, one model each (2)"
    )
    group.add_argument(
        "--threads-per-actor",
        type=int,
        default=None,
        metavar="N",
        help="threads per actor (default: --threads, else 1)",
    )
    group.add_argument(
        "--output-dir",
        metavar="DIR",
        default=None,
        help="--engine ray: new or empty folder for the shards and manifest.json",
    )
    group.add_argument(
        "--shard-format",
        choices=("parquet", "jsonl"),
        default="parquet",
        help="--engine ray: shard file format (default parquet)",
    )


def _check_args(args: argparse.Namespace) -> Path:
    if args.output_dir is None:
        raise InputError("--engine ray writes sharded files: give --output-dir DIR")
    clashes = [
        flag
        for flag, on in (
            ("-o/--output", args.output),
            ("--jsonl-out", args.as_jsonl),
            ("--system-only", args.system_only),
        )
        if on
    ]
    if clashes:
        raise InputError(
            f"--engine ray writes --output-dir shards; it cannot be combined with {', '.join(clashes)}"
        )
    if args.threads is not None and args.threads_per_actor is not None:
        if args.threads != args.threads_per_actor:
            raise InputError(
                f"--threads {args.threads} and --threads-per-actor {args.threads_per_actor} "
                "disagree; with --engine ray they mean the same (threads per actor): give one"
            )
    if args.threads_per_actor is None:
        args.threads_per_actor = args.threads if args.threads is not None else 1
    for name in ("num_actors", "threads_per_actor"):
        if getattr(args, name) < 1:
            raise InputError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    out = Path(args.output_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(
            f"--output-dir {out} exists and is not an empty folder; shards of different runs "
            "must not mix: pass a new folder"
        )
    # The folder is made after scoring; check now that it can be (the nearest existing folder
    # on its path must be a writable directory), before Ray starts.
    probe = out
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise OutputError(f"--output-dir {out} cannot be created: {probe} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(f"--output-dir {out} cannot be written: {probe} is not writable")
    return out


def _shard_stats(out: Path, fmt: str) -> tuple[list[dict[str, Any]], list[float]]:
    """Shard files with row counts, and every score (read back from disk)."""
    import pyarrow.parquet as pq

    shards: list[dict[str, Any]] = []
    sums: list[float] = []
    suffix = ".parquet" if fmt == "parquet" else ".jsonl"
    for path in sorted(out.glob(f"*{suffix}")):
        if fmt == "parquet":
            scores = pq.read_table(path, columns=["score"]).column("score").to_pylist()
        else:
            with open(path, encoding="utf-8") as f:
                scores = [json.loads(line)["score"] for line in f if line.strip()]
        shards.append({"path": path.name, "rows": len(scores)})
        sums.extend(scores)
    return shards, sums


def reject_ray_options(args: argparse.Namespace) -> None:
    """With ``--engine local``, options of ``--engine ray`` are a mistake, not something to ignore."""
    given = [
        flag
        for flag, on in (
            ("--address", args.address is not None),
            ("--output-dir", args.output_dir is not None),
            ("--num-actors", args.num_actors != 2),
            ("--threads-per-actor", args.threads_per_actor is not None),
            ("--shard-format", args.shard_format != "parquet"),
        )
        if on
    ]
    if given:
        raise InputError(f"{', '.join(given)} only apply with --engine ray")


#: ``(id, candidate references, hypothesis)`` rows, read after the output folder is checked.
ReadRows = Callable[[], list[tuple[str, list[str], str]]]


def run_ray(args: argparse.Namespace, read_rows: ReadRows | None = None) -> int:
    """``--engine ray``: the pairs of the input options, or the rows ``read_rows`` gives (several
    references per utterance: ``reference`` becomes a list column, and the shards gain
    ``reference_index``)."""
    from sitar.commands._model import notice
    from sitar.integrations.ray import (
        _ray,
        check_address,
        check_pairs,
        dataset_from_pairs,
        score_dataset,
        unwrap_ray_error,
    )
    from sitar.io import pairs_from_args

    out = _check_args(args)
    if read_rows is None:
        pairs = pairs_from_args(args, report=lambda m: notice(args, m))
        rows = [(p.id, [p.reference], p.hypothesis) for p in pairs]
    else:
        rows = read_rows()
    several = any(len(refs) > 1 for _, refs, _ in rows)
    columns = [*_OUTPUT_COLUMNS, "reference_index"] if several else _OUTPUT_COLUMNS
    # Everything that can fail is checked here, on the driver, with the local path's code (same
    # messages, exit 2), before Ray starts: the checkpoint, every pair, the cluster address.
    from sitar.commands._model import load_scorer

    check_pairs(
        load_scorer(args),
        [r for _, refs, _ in rows for r in refs],
        [h for _, refs, h in rows for _ in refs],
    )
    check_address(args.address if args.address is not None else os.environ.get("RAY_ADDRESS"))
    ray = _ray()
    started = False
    if not ray.is_initialized():
        ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.execution_options.preserve_order = True  # shards in input order
        ctx.enable_progress_bars = bool(args.progress)
        ds = dataset_from_pairs(
            [u for u, _, _ in rows],
            [refs if several else refs[0] for _, refs, _ in rows],
            [h for _, _, h in rows],
        )
        options = options_from_args(args, threads=args.threads_per_actor)
        scored = score_dataset(
            ds,
            options,
            num_actors=args.num_actors,
            threads_per_actor=args.threads_per_actor,
            batch_size=args.batch_size,
        )
        table = scored.dataset.select_columns(columns)
        out.mkdir(parents=True, exist_ok=True)
        try:
            if args.shard_format == "parquet":
                table.write_parquet(str(out))
            else:
                from sitar.integrations.ray import write_jsonl_shards

                write_jsonl_shards(table, str(out))
        except SitarError:
            raise
        except Exception as e:
            cause = unwrap_ray_error(e)
            if cause is not None:
                raise type(cause)(str(cause)) from e
            raise
        shards, scores = _shard_stats(out, args.shard_format)
        n_rows = len(scores)
        if n_rows != len(rows):
            raise SitarError(
                f"the shards in {out} hold {n_rows} rows for {len(rows)} input pairs; "
                "the run lost or duplicated rows and no manifest was written"
            )
        system = system_score(scores)
        from sitar._version import __version__

        manifest = {
            "format": MANIFEST_FORMAT,
            "format_version": MANIFEST_VERSION,
            "signature": scored.signature,
            "n_pairs": n_rows,
            "system_score": None if math.isnan(system) else system,
            "aggregation": AGGREGATION,
            "shard_format": args.shard_format,
            "columns": columns,
            "shards": shards,
            "made_by": {
                "command": "sitar score --engine ray",
                "sitar": __version__,
                "ray": ray.__version__,
                "num_actors": args.num_actors,
                "threads_per_actor": args.threads_per_actor,
                "batch_size": args.batch_size,
                "scorer": options.to_dict(),
                "address": args.address,
                "input": _describe_input(args),
                "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            },
        }
        (out / MANIFEST_NAME).write_text(
            json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    finally:
        if started:
            ray.shutdown()
    sys.stdout.write(f"#signature\t{scored.signature}\n")
    sys.stdout.write(f"#system\t{system:.6f}\t{AGGREGATION}\tn={n_rows}\n")
    sys.stdout.write(f"#manifest\t{out / MANIFEST_NAME}\n")
    return 0


def _describe_input(args: argparse.Namespace) -> dict[str, Any]:
    if args.jsonl is not None:
        return {"jsonl": args.jsonl}
    if args.ref_file is not None:
        return {"ref_file": args.ref_file, "hyp_file": args.hyp_file, "format": args.file_format}
    return {"ref": "<command line>"}
