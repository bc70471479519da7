"""One teacher file from several: some kept as they are, one blended with the hand labels.

    python -m training.teacher_mix --out mix.jsonl [--keep base.jsonl ...] \
        [--blend teacher.jsonl --weight W --records FILE [FILE ...] [--split train]]

A training config reads one teacher file at one ``teacher_weight`` (``python -m training.teacher``).
To distil two teachers at different strengths, for example v5's written-form reading of the
synthetic records at full weight and a stronger encoder's reading of the recognizer records at
half weight, this tool writes the file that a config with ``teacher_weight: 1.0`` trains on:

- every line of each ``--keep`` file, unchanged;
- for every ``--split`` record of ``--records`` that the ``--blend`` file covers, per gap and
  threshold ``k`` (1..6), ``W · p_k + (1 − W) · 1[step ≥ k]``: the record's hand label (its gap
  step ``3t + δ``) mixed with the teacher at weight ``W``. That is the loss target
  (``GapOrdinalLoss``) the record would get from the blend teacher alone at ``teacher_weight: W``.

Records the blend teacher leaves out (longer than its ``max_length``) get no line, so training
uses their labels alone; they are counted (records that a kept file covers are not). An id named
twice (in two kept files, or kept and blended) is an error, as is a teacher whose gap count differs
from the record's. The output is written atomically, next to ``<out>.manifest.json`` (the inputs
with their SHA-256, the weight, counts, versions, time). The lines are a model's outputs mixed
with labels, not labels; a data card must say so.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError, RecordError
from sitar.records import write_lines_atomic
from training.data import (
    GAP_THRESHOLDS,
    TEACHER_SCHEMA,
    gap_step,
    read_record_file,
    read_teacher,
    teacher_line,
)
from training.teacher import write_manifest

__all__ = ["blend_with_labels", "main"]


def blend_with_labels(
    probs: Sequence[Sequence[float]], steps: Sequence[int], weight: float
) -> list[list[float]]:
    """Per gap and threshold ``k`` (1-based), ``weight · p_k + (1 − weight) · 1[step ≥ k]``,
    rounded to 6 decimals. ``probs``: the teacher's (gaps, 6) probabilities; ``steps``: the gaps'
    labelled steps 0..6."""
    if not 0.0 <= weight <= 1.0:
        raise InputError(f"--weight must lie in [0, 1], got {weight}")
    if len(probs) != len(steps):
        raise InputError(f"the teacher has {len(probs)} gaps, the record {len(steps)}")
    out = []
    for row, step in zip(probs, steps, strict=True):
        if len(row) != GAP_THRESHOLDS:
            raise InputError(f"a teacher gap has {len(row)} probabilities, not {GAP_THRESHOLDS}")
        out.append(
            [
                round(weight * float(p) + (1.0 - weight) * float(step >= k), 6)
                for k, p in enumerate(row, start=1)
            ]
        )
    return out


def _blended_lines(
    teacher: Mapping[str, list[list[float]]],
    record_files: Iterable[str],
    *,
    split: str,
    weight: float,
    seen: set[str],
    counts: dict[str, int],
) -> list[str]:
    lines = []
    for path in record_files:
        for record in read_record_file(path):
            if record.split != split or not record.gaps:
                continue
            probs = teacher.get(record.id)
            if probs is not None and record.id in seen:
                raise RecordError(f"{path}: record {record.id!r} already has a teacher line")
            if probs is None:
                # a kept line covers it, or it keeps its labels alone
                counts["blend_no_teacher"] += record.id not in seen
                continue
            steps = [gap_step(t, d) for t, d in zip(record.tiers, record.directions, strict=True)]
            try:
                mixed = blend_with_labels(probs, steps, weight)
            except InputError as e:
                raise RecordError(f"{path}: record {record.id!r}: {e}") from e
            seen.add(record.id)
            lines.append(teacher_line(record.id, mixed))
    counts["blended"] = len(lines)
    return lines


@tool_main("python -m training.teacher_mix")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.teacher_mix", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--out", required=True, help="teacher file to write (JSONL)")
    parser.add_argument("--keep", nargs="*", default=[], metavar="FILE",
                        help="teacher files copied as they are")  # fmt: skip
    parser.add_argument("--blend", metavar="FILE", help="teacher file blended with hand labels")
    parser.add_argument("--weight", type=float, help="the blend teacher's weight W in [0, 1]")
    parser.add_argument("--records", nargs="*", default=[], metavar="FILE",
                        help="record files holding the blended records' labels")  # fmt: skip
    parser.add_argument("--split", default="train", help="records of this split (default train)")
    args = parser.parse_args(argv)
    from sitar.integrity import sha256_file

    if args.blend is None and not args.keep:
        raise InputError("nothing to write: give --keep files, --blend, or both")
    if args.blend is not None and (args.weight is None or not args.records):
        raise InputError("--blend needs --weight and --records (the labels it is mixed with)")
    if args.blend is None and (args.weight is not None or args.records):
        raise InputError("--weight and --records go with --blend")
    out = Path(args.out)
    if out.is_dir():
        raise InputError(f"--out {out} is a folder; give a file path")
    seen: set[str] = set()
    lines: list[str] = []
    counts = {"kept": 0, "blended": 0, "blend_no_teacher": 0}
    for path in args.keep:
        for rid, probs in read_teacher(path).items():
            if rid in seen:
                raise RecordError(f"{path}: record {rid!r} already has a teacher line")
            seen.add(rid)
            lines.append(teacher_line(rid, probs))
    counts["kept"] = len(lines)
    if args.blend is not None:
        lines += _blended_lines(
            read_teacher(args.blend),
            args.records,
            split=args.split,
            weight=args.weight,
            seen=seen,
            counts=counts,
        )
    write_lines_atomic(out, lines)
    inputs = [*args.keep, *([args.blend] if args.blend else []), *args.records]
    write_manifest(
        out,
        {
            "schema": TEACHER_SCHEMA,
            "mix": {
                "keep": list(args.keep),
                "blend": args.blend,
                "weight": args.weight,
                "records": list(args.records),
                "split": args.split,
            },
            "inputs": [{"file": str(p), "sha256": sha256_file(p)} for p in inputs],
            "counts": counts,
        },
        argv=argv,
        modules=("sitar",),
    )
    print(f"{len(lines)} teacher lines written to {out} ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
