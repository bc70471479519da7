"""Teacher targets for the gap head: a checkpoint's per-gap threshold probabilities on records.

    python -m training.teacher --checkpoint CKPT --records FILE [FILE ...] --out teacher.jsonl \
        [--split train] [--skip-profile quantifier ...] [--batch-size 32] [--threads 2]

For every record of ``--split`` with at least one gap (and not of a ``--skip-profile`` provenance
profile), the checkpoint's ONNX graph reads the pair with **the record's own gaps** marked (the
input training builds for it) and its gap head's six logits per gap are written as probabilities
``σ(logit)``, one line per record: ``{"schema": "sitar.teacher/1", "id", "gap_probs": [[p1 … p6],
…]}``, in record order. Pairs longer than the checkpoint's ``max_length`` are left out and
counted. Inputs are batched by exact length, so a record's probabilities do not depend on its
neighbours. The file is written atomically at the end, next to ``<out>.manifest.json`` (the
checkpoint's score signature, the record files and their SHA-256, the options, counts, versions,
time); a crash loses the run, which is deterministic and can simply be repeated.

A training config uses it with ``teacher: teacher.jsonl`` and ``teacher_weight: w``: for the
training records the file names, the gap loss's target for threshold ``k`` becomes
``(1 − w) · label + w · p_k`` (distillation: the student keeps the teacher's reading of those
records while it learns new ones from their labels alone). Teacher targets are a model's outputs,
not labels; a data card must say so.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError
from sitar.records import write_lines_atomic
from training.data import GAP_THRESHOLDS, TEACHER_SCHEMA, read_record_file, teacher_line

__all__ = ["main", "teacher_probabilities", "write_manifest"]


def teacher_probabilities(
    scorer: Any, records: Sequence[Any], *, batch_size: int = 32, progress: bool | str = False
) -> list[list[list[float]] | None]:
    """Per record, the gap head's threshold probabilities ``σ(logit)`` for each of its gaps,
    rounded to 6 decimals (None for a record longer than the scorer's ``max_length``), from
    :meth:`sitar.Scorer.gap_logits` on the records' own gaps. ``scorer``: a gap-aware scorer."""
    logits = scorer.gap_logits(
        [
            (
                r.reference,
                r.hypothesis,
                [(tuple(g["ref_span"]), tuple(g["hyp_span"])) for g in r.gaps],
            )
            for r in records
        ],
        batch_size=batch_size,
        progress=progress,
    )
    out: list[list[list[float]] | None] = []
    for values in logits:
        if values is None:
            out.append(None)
            continue
        if values.ndim != 2 or values.shape[-1] != GAP_THRESHOLDS:
            raise InputError(
                f"the teacher's gap logits have shape {values.shape}; expected (gaps, "
                f"{GAP_THRESHOLDS})"
            )
        probs = 1.0 / (1.0 + np.exp(-values))
        out.append([[round(float(p), 6) for p in gap] for gap in probs])
    return out


def write_manifest(
    out: Path, fields: dict[str, Any], *, argv: Sequence[str] | None, modules: Sequence[str]
) -> None:
    """``<out>.manifest.json``, written atomically: ``fields`` plus the output's SHA-256, the
    command line, the versions of ``modules`` and the time (how a teacher file was made)."""
    from importlib.metadata import version

    from sitar.integrity import sha256_file

    manifest = {
        **fields,
        "output_sha256": sha256_file(out),
        "argv": list(sys.argv if argv is None else argv),
        "versions": {m: version(m) for m in modules},
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_lines_atomic(f"{out}.manifest.json", [json.dumps(manifest, indent=2) + "\n"])


@tool_main("python -m training.teacher")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.teacher", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--checkpoint", help="teacher checkpoint (default: the shipped one)")
    parser.add_argument("--variant", help="ONNX variant (default: the checkpoint's)")
    parser.add_argument("--records", nargs="+", required=True, help="record files (JSONL/Parquet)")
    parser.add_argument("--out", required=True, help="teacher file to write (JSONL)")
    parser.add_argument("--split", default="train", help="records of this split (default train)")
    parser.add_argument("--skip-profile", nargs="*", default=[], metavar="PROFILE",
                        help="leave out records of these provenance profiles")  # fmt: skip
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    from sitar.integrity import sha256_file
    from sitar.scorer import Scorer

    out = Path(args.out)
    if out.is_dir():
        raise InputError(f"--out {out} is a folder; give a file path")
    scorer = Scorer.load(args.checkpoint, variant=args.variant, threads=args.threads)
    skip = set(args.skip_profile)
    chosen, counts = [], {"read": 0, "other_split": 0, "no_gaps": 0, "skipped_profile": 0}
    for path in args.records:
        for record in read_record_file(path):
            counts["read"] += 1
            if record.split != args.split:
                counts["other_split"] += 1
            elif not record.gaps:
                counts["no_gaps"] += 1
            elif record.provenance.get("profile") in skip:
                counts["skipped_profile"] += 1
            else:
                chosen.append(record)
    if not chosen:
        raise InputError(f"no {args.split!r} record with gaps in {args.records}")
    probs = teacher_probabilities(
        scorer, chosen, batch_size=args.batch_size, progress="teacher targets"
    )
    lines = [teacher_line(r.id, p) for r, p in zip(chosen, probs, strict=True) if p is not None]
    counts["written"] = len(lines)
    counts["too_long"] = sum(p is None for p in probs)
    write_lines_atomic(out, lines)
    write_manifest(
        out,
        {
            "schema": TEACHER_SCHEMA,
            "teacher": {
                "checkpoint": scorer.config.name,
                "variant": scorer.variant,
                "signature": scorer.signature,
            },
            "records": [{"file": str(p), "sha256": sha256_file(p)} for p in args.records],
            "split": args.split,
            "skip_profiles": sorted(skip),
            "counts": counts,
        },
        argv=argv,
        modules=("sitar", "onnxruntime", "numpy"),
    )
    print(f"{counts['written']} records written to {out} ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
