"""Record files in the scorer's normal form: train on what the model sees (issue #28).

A checkpoint trained with ``normalize: sitar`` is scored, by default, on both sides put through
:func:`sitar.normalize.normalize_pair`; CGD then finds its gaps on the normalised texts, and the
model reads the normalised, gap-marked pair. This module turns labelled records (text as written,
gaps and tiers on it) into records of exactly that form:

1. both texts are normalised with :func:`~sitar.normalize.normalize_pair` and segmented again
   with :func:`sitar.segment` (the scorer's defaults);
2. each new gap takes the highest severity step ``3t + δ`` of the labelled gaps it overlaps in the
   original text (the normaliser maps every normalised token back to the original characters it
   came from). A labelled gap that overlaps no new gap was a difference of written form only
   (``350`` against ``three hundred and fifty``) and disappears with it; a new gap that overlaps
   no labelled gap has no label, and its record is left out (counted);
3. the score is recomputed from the new tiers (spec §5).

**Mixed-form variants** (``--mixed-share``): for a seeded share of the records, one side (chosen at
random) is first put in recognizer form (lowercase, punctuation replaced by spaces, so every
character keeps its offset and the labelled spans still apply) and the pair is then normalised
and relabelled as above. A variant is written only when its normal form differs from the plain
record's (punctuation carried meaning for the normaliser: ``-2``, ``3:30``, ``$5``, a pause
inside a list of numbers); otherwise it would only duplicate it. Variants get the id
``<id>#mixed-ref`` or ``<id>#mixed-hyp`` and the parent's split.

Every output record's provenance records ``normal_form`` (:func:`sitar.normalize.normalizer_id`)
and, for a variant, ``mixed_form`` and ``parent``. A training config with ``normalize: sitar``
refuses records without the ``normal_form`` of its config's version
(:func:`training.data.check_normal_form`).

**Normal form version** (``--normal-form``, default ``2``): version 3 has no boundary marks
(:mod:`sitar.normalize`), so a pair and its recognizer form are one text and mixed-form variants
can only differ where the normaliser reads punctuation (``-2``, ``3:30``). Records already in
version 2 convert to version 3 directly (normalising is idempotent on the tokens; the labelled
spans are read in the version-2 text); an input variant whose version-3 texts equal its parent's
is dropped (counted as ``variant_same_as_parent``). Version 4 (rule 12: clock phrases and dates)
reads tokens only, so version-2 or -3 records convert to it too, with one loss: ``3rd of May``
is ``3 of may`` there, and without ``the`` rule 12 reads ``3 of may`` as a count, not a date.
Converting from the records as written avoids it.

Run::

    python -m training.normal_form IN.jsonl [IN2.jsonl ...] --out-dir DIR [--mixed-share 0.3] \
        [--normal-form 3]

Each input file ``NAME.jsonl`` becomes ``DIR/NAME.jsonl``; ``DIR/normal_form.json`` holds the
counts (records in, out, left out and why, gaps vanished by tier, variants), the normaliser id,
the seed and the versions.

**Teacher targets read in the written form** (``--teacher FILE``, a ``python -m training.teacher``
file on the input records as written): a teacher that reads the cased, punctuated pair can teach a
student that reads its normal form. Each output record (variants included) whose source record
has teacher targets gets them carried to its new gaps, threshold by threshold the highest
probability of the labelled gaps the new gap overlaps (:func:`carry_teacher`, the counterpart of
the highest step [C]), in ``DIR/teacher.jsonl``, ready for a config's ``teacher:``; the teacher
file's hash and signature go into ``normal_form.json``. Records without gaps in normal form need
no targets; records the teacher left out (too long) keep their labels alone (counted).
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError
from sitar.integrity import sha256_file
from sitar.normalize import NORMAL_FORM_VERSIONS, NORMALIZER_VERSION
from sitar.records import Record, read_records, write_lines_atomic, write_records
from training.data import read_teacher, teacher_line

__all__ = [
    "MIXED_SIDES",
    "carry_teacher",
    "main",
    "normal_form_record",
    "recognizer_form_keep_offsets",
]

#: The sides a mixed-form variant puts in recognizer form.
MIXED_SIDES = ("ref", "hyp")


def recognizer_form_keep_offsets(text: str) -> str:
    """Lowercase, with every character that is not a letter, digit, space or word-internal
    apostrophe replaced by a space: what a recognizer writes, with each character at its original
    offset (so character spans into ``text`` stay valid). Characters whose lowercase is longer
    than one character (``İ``) are kept as they are."""
    chars = list(text)
    out: list[str] = []
    for i, ch in enumerate(chars):
        low = ch.lower()
        if len(low) != 1:
            low = ch
        if low.isalnum() or low.isspace():
            out.append(low)
        elif (
            low in "'\u2019"
            and 0 < i < len(chars) - 1
            and chars[i - 1].isalnum()
            and chars[i + 1].isalnum()
        ):
            out.append(low)
        else:
            out.append(" ")
    return "".join(out)


def _overlaps(span: Sequence[int], other: Sequence[int]) -> bool:
    """Whether two half-open character spans touch the same text; an empty span (an insertion
    point) overlaps a span that contains or borders its point."""
    a, b = span
    c, d = other
    if a == b and c == d:
        return a == c
    if a == b:
        return c <= a <= d
    if c == d:
        return a <= c <= b
    return a < d and c < b


def normal_form_record(
    record: Record,
    *,
    reference: str | None = None,
    hypothesis: str | None = None,
    normal_form: str = NORMALIZER_VERSION,
) -> tuple[Record | None, str, Counter[int]]:
    """``record`` in normal form, or None with the reason it was left out.

    ``reference``/``hypothesis`` replace the record's texts before normalising (same length and
    offsets: :func:`recognizer_form_keep_offsets`); the labelled spans are read against them.
    Returns ``(record or None, reason, vanished)`` where ``vanished`` counts, by tier, the
    labelled gaps that only differed in written form. ``normal_form`` is the version written
    (:data:`sitar.normalize.NORMAL_FORM_VERSIONS`)."""
    out, reason, vanished, _ = _normal_form(
        record, reference=reference, hypothesis=hypothesis, normal_form=normal_form
    )
    return out, reason, vanished


def carry_teacher(
    sources: Sequence[Sequence[int]], probs: Sequence[Sequence[float]]
) -> list[list[float]]:
    """Teacher targets for the gaps of a record's normal form: new gap ``i`` takes, threshold by
    threshold, the highest probability of the labelled gaps ``sources[i]`` it overlaps (the
    counterpart of taking their highest step [C]). ``probs``: the teacher's per-gap threshold
    probabilities on the record as written (``python -m training.teacher``)."""
    width = {len(p) for p in probs}
    if len(width) > 1:
        raise ValueError("every gap needs the same number of threshold probabilities")
    out: list[list[float]] = []
    for hits in sources:
        if not hits or any(not 0 <= k < len(probs) for k in hits):
            raise ValueError(f"gap sources {list(hits)} do not index {len(probs)} teacher gaps")
        out.append([max(probs[k][j] for k in hits) for j in range(len(probs[hits[0]]))])
    return out


def _normal_form(
    record: Record,
    *,
    reference: str | None = None,
    hypothesis: str | None = None,
    normal_form: str = NORMALIZER_VERSION,
) -> tuple[Record | None, str, Counter[int], list[list[int]]]:
    """:func:`normal_form_record`, also returning for each new gap the indices of the labelled
    gaps it overlaps (what its step, and any teacher target, are carried from)."""
    from sitar import segment
    from sitar.normalize import normalize_pair, normalizer_id
    from sitar.targets import score_from_tiers

    ref = record.reference if reference is None else reference
    hyp = record.hypothesis if hypothesis is None else hypothesis
    if len(ref) != len(record.reference) or len(hyp) != len(record.hypothesis):
        raise ValueError("replacement texts must keep every character offset")
    pair = normalize_pair(ref, hyp, version=normal_form)
    seg = segment(*pair.texts)
    old = [
        (tuple(g["ref_span"]), tuple(g["hyp_span"]), 3 * t + d)
        for g, t, d in zip(record.gaps, record.tiers, record.directions, strict=True)
    ]
    used: set[int] = set()
    steps: list[int] = []
    sources: list[list[int]] = []
    for gap in seg.gaps:
        rs = pair.reference.original_span(*gap.ref_tokens)
        hs = pair.hypothesis.original_span(*gap.hyp_tokens)
        hits = [
            k
            for k, (ors, ohs, _) in enumerate(old)
            if (ors[0] != ors[1] and rs[0] != rs[1] and _overlaps(ors, rs))
            or (ohs[0] != ohs[1] and hs[0] != hs[1] and _overlaps(ohs, hs))
            or (
                (ors[0] == ors[1] or rs[0] == rs[1] or ohs[0] == ohs[1] or hs[0] == hs[1])
                and _overlaps(ors, rs)
                and _overlaps(ohs, hs)
            )
        ]
        if not hits:
            return None, "new gap without a labelled gap", Counter(), []
        used.update(hits)
        sources.append(hits)
        steps.append(max(old[k][2] for k in hits))
    vanished = Counter((old[k][2] + 1) // 3 for k in range(len(old)) if k not in used)
    tiers = [(s + 1) // 3 for s in steps]
    directions = [s - 3 * t for s, t in zip(steps, tiers, strict=True)]
    score = score_from_tiers(tiers, directions, rho=record.rho)
    provenance = dict(record.provenance)
    provenance["normal_form"] = normalizer_id(normal_form)
    out = Record(
        id=record.id,
        reference=pair.texts[0],
        hypothesis=pair.texts[1],
        gaps=tuple(g.to_dict() for g in seg.gaps),
        tiers=tuple(tiers),
        directions=tuple(directions),
        score=score,
        rho=record.rho,
        split=record.split,
        provenance=provenance,
        signature=record.signature,
    )
    return out, "", vanished, sources


def _convert(
    records: Iterable[Record],
    *,
    mixed_share: float,
    rng: random.Random,
    stats: Counter[str],
    teacher: Mapping[str, Sequence[Sequence[float]]] | None = None,
    carried: dict[str, list[list[float]]] | None = None,
    normal_form: str = NORMALIZER_VERSION,
) -> Iterator[Record]:
    """Records in normal form ``normal_form`` (and mixed-form variants). With ``teacher`` (record
    id -> the teacher's probabilities on the record as written), each output record with gaps
    whose source has teacher targets gets them carried (:func:`carry_teacher`) into ``carried``.
    An input record that is itself a mixed-form variant (``provenance.parent``, from an earlier
    conversion) is dropped when its normal form equals its parent's, by the variants' rule."""
    plain: dict[str, tuple[str, str]] = {}

    def carry(rid: str, source: Record, out: Record, hits: list[list[int]]) -> None:
        if teacher is None or carried is None or not out.gaps:
            return
        probs = teacher.get(source.id)
        if probs is None:
            stats["teacher_missing"] += 1
            return
        if len(probs) != len(source.gaps):
            raise InputError(
                f"teacher targets of record {source.id!r} have {len(probs)} gaps, the record "
                f"{len(source.gaps)}"
            )
        carried[rid] = carry_teacher(hits, probs)
        stats["teacher_carried"] += 1

    for record in records:
        stats["in"] += 1
        new, reason, vanished, hits = _normal_form(record, normal_form=normal_form)
        for tier, n in vanished.items():
            stats[f"vanished_T{tier}"] += n
        if new is None:
            stats[f"left_out: {reason}"] += 1
            continue
        parent = record.provenance.get("parent")
        if parent is not None and plain.get(parent) == (new.reference, new.hypothesis):
            stats["variant_same_as_parent"] += 1
            continue
        plain[record.id] = (new.reference, new.hypothesis)
        stats["out"] += 1
        carry(new.id, record, new, hits)
        yield new
        if mixed_share <= 0 or rng.random() >= mixed_share:
            continue
        side = rng.choice(MIXED_SIDES)
        texts = {
            "reference": recognizer_form_keep_offsets(record.reference) if side == "ref" else None,
            "hypothesis": recognizer_form_keep_offsets(record.hypothesis)
            if side == "hyp"
            else None,
        }
        variant, reason, _, vhits = _normal_form(record, **texts, normal_form=normal_form)
        if variant is None:
            stats[f"mixed_left_out: {reason}"] += 1
            continue
        if (variant.reference, variant.hypothesis) == (new.reference, new.hypothesis):
            stats["mixed_same_as_plain"] += 1
            continue
        provenance = dict(variant.provenance)
        provenance.update({"mixed_form": side, "parent": record.id})
        stats["mixed_out"] += 1
        vid = f"{record.id}#mixed-{side}"
        carry(vid, record, variant, vhits)
        yield dataclasses.replace(variant, id=vid, provenance=provenance)


def _parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="python -m training.normal_form",
        description="Labelled record files -> the same records in the scorer's normal form "
        "(normalised texts, gaps found again, tiers carried over by overlap).",
    )
    p.add_argument("inputs", nargs="+", type=Path, help="record files (JSONL)")
    p.add_argument("--out-dir", type=Path, required=True, help="folder for the converted files")
    p.add_argument(
        "--mixed-share",
        type=float,
        default=0.0,
        help="share of records that also get a mixed-form variant (default 0)",
    )
    p.add_argument("--seed", type=int, default=13)
    p.add_argument(
        "--normal-form",
        choices=NORMAL_FORM_VERSIONS,
        default=NORMALIZER_VERSION,
        help="the normal form written: 2 (default; rule 11's boundary marks) or 3 (none); a "
        "training config with normal_form: '3' needs 3 (sitar.normalize)",
    )
    p.add_argument(
        "--teacher",
        type=Path,
        help="teacher file on the input records as written (python -m training.teacher): "
        "its targets are carried to the normal-form gaps and written to DIR/teacher.jsonl",
    )
    return p


@tool_main("python -m training.normal_form")
def main(argv: Sequence[str] | None = None) -> int:
    import importlib.metadata as md

    from sitar.normalize import normalizer_id

    args = _parser().parse_args(argv)
    if not 0.0 <= args.mixed_share <= 1.0:
        raise InputError(f"--mixed-share must be in [0, 1], got {args.mixed_share}")
    names = [p.name for p in args.inputs]
    if len(set(names)) != len(names):
        raise InputError(f"input files must have distinct names, got {names}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    teacher = read_teacher(args.teacher) if args.teacher is not None else None
    carried: dict[str, list[list[float]]] = {}
    report: dict[str, Any] = {
        "normalizer": normalizer_id(args.normal_form),
        "mixed_share": args.mixed_share,
        "seed": args.seed,
        "versions": {
            "sitar": md.version("sitar"),
            "whisper-normalizer": md.version("whisper-normalizer"),
        },
        "files": {},
    }
    for path in args.inputs:
        stats: Counter[str] = Counter()
        rng = random.Random(f"{args.seed}:{path.name}")
        n = write_records(
            args.out_dir / path.name,
            _convert(
                read_records(path),
                mixed_share=args.mixed_share,
                rng=rng,
                stats=stats,
                teacher=teacher,
                carried=carried,
                normal_form=args.normal_form,
            ),
        )
        report["files"][str(path)] = dict(sorted(stats.items()))
        print(f"{path} -> {args.out_dir / path.name}: {n} records; {dict(stats)}", file=sys.stderr)
    if args.teacher is not None:
        out = args.out_dir / "teacher.jsonl"
        write_lines_atomic(
            out,
            [teacher_line(rid, probs) for rid, probs in carried.items()],
        )
        manifest = Path(f"{args.teacher}.manifest.json")
        report["teacher"] = {
            "source": str(args.teacher),
            "source_sha256": sha256_file(args.teacher),
            "source_signature": json.loads(manifest.read_text(encoding="utf-8"))["teacher"][
                "signature"
            ]
            if manifest.is_file()
            else None,
            "rule": "per threshold, the highest probability of the labelled gaps a gap overlaps",
            "records": len(carried),
            "output_sha256": sha256_file(out),
        }
    (args.out_dir / "normal_form.json").write_text(
        json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
