"""``sitar score``: score (reference, hypothesis) pairs with a SITAR checkpoint.

A thin layer over :meth:`sitar.scorer.Scorer.score`; the inputs are those of ``sitar gaps``. The
default output is TSV: a ``#signature`` line, a header ``id score raw windowed``, one line per pair
(normalised score, raw clipped score, 1 if the pair was longer than the checkpoint's max_length and
scored in windows) and a final ``#system`` line with the system score, its aggregation and the
number of pairs. ``--jsonl-out`` writes one JSON object per pair and a final ``{"system": ...}``
object, each with the signature. ``--system-only`` writes only the signature and the system line.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, TextIO

from sitar.commands._model import add_model_arguments, load_scorer
from sitar.commands.score_ray import add_engine_arguments, reject_ray_options, run_ray
from sitar.io import add_pair_input_arguments, pairs_from_args

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score pairs with a SITAR checkpoint",
        description=(
            "Score (reference, hypothesis) pairs with a SITAR checkpoint: per-pair normalised "
            "scores in [0, 1] (lower is less distortion), the system score and the signature."
        ),
    )
    add_pair_input_arguments(parser)
    add_model_arguments(parser)
    run_group = parser.add_argument_group("run")
    run_group.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: only when stderr is a terminal)",
    )
    out = parser.add_argument_group("output")
    out.add_argument(
        "--jsonl-out",
        "--json",
        dest="as_jsonl",
        action="store_true",
        help="write JSONL (one object per pair, then a system object) instead of TSV",
    )
    out.add_argument(
        "--system-only", action="store_true", help="write only the signature and the system score"
    )
    out.add_argument("-o", "--output", metavar="PATH", help="write to a file instead of stdout")
    add_engine_arguments(parser)
    parser.set_defaults(func=run)


def _want_progress(flag: bool | None) -> bool:
    if flag is not None:
        return flag
    if not sys.stderr.isatty():
        return False
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False  # the automatic bar is cosmetic; --progress asks for it explicitly
    return True


def _json_float(x: float) -> float | None:
    return None if math.isnan(x) else x


def _system_record(result: Any) -> dict[str, Any]:
    return {
        "system": _json_float(result.system_score),
        "aggregation": result.aggregation,
        "n_pairs": len(result),
        "n_identical": result.n_identical,
        "n_windowed": result.n_windowed,
        "signature": result.signature,
    }


def write_tsv(out: TextIO, ids: list[str], result: Any, *, system_only: bool) -> None:
    out.write(f"#signature\t{result.signature}\n")
    if not system_only:
        out.write("id\tscore\traw\twindowed\n")
        for pair_id, score, raw, windowed in zip(
            ids, result.scores, result.raw, result.windowed, strict=True
        ):
            out.write(f"{pair_id}\t{score:.6f}\t{raw:.6f}\t{int(windowed)}\n")
    out.write(f"#system\t{result.system_score:.6f}\t{result.aggregation}\tn={len(result)}\n")


def write_jsonl(out: TextIO, ids: list[str], result: Any, *, system_only: bool) -> None:
    if not system_only:
        for i, pair_id in enumerate(ids):
            record = {
                "id": pair_id,
                "score": result.scores[i],
                "raw": result.raw[i],
                "windowed": result.windowed[i],
                "identical": result.identical[i],
                "n_windows": result.n_windows[i],
                "signature": result.signature,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    out.write(json.dumps(_system_record(result), ensure_ascii=False) + "\n")


def run(args: argparse.Namespace) -> int:
    if args.engine == "ray":
        return run_ray(args)
    reject_ray_options(args)
    pairs = pairs_from_args(args)
    scorer = load_scorer(args)
    result = scorer.score(
        references=[p.reference for p in pairs],
        hypotheses=[p.hypothesis for p in pairs],
        batch_size=args.batch_size,
        progress=_want_progress(args.progress),
    )
    ids = [p.id for p in pairs]
    out: TextIO = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        writer = write_jsonl if args.as_jsonl else write_tsv
        writer(out, ids, result, system_only=args.system_only)
    finally:
        if out is not sys.stdout:
            out.close()
    return 0
