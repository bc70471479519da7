"""Agreement of SITAR and baselines with a judge on an A/B set (schema ``sitar-ab-1``).

    python -m training.evaluate_ab --set annotation/ab/sitar_ab_v1.jsonl \
        [--checkpoint CKPT] [--baselines semdist,bertscore] [--labels RECORDS ...] \
        [--second-judge SET] [--json out.json]

For every item the judge picked the transcript (A or B) that better keeps what the reference
means, or ``same``. A metric *agrees* when it gives the judge's pick the lower distortion (SITAR
score, WER, SemDist, BERTScore distance: lower is better for all). Items judged ``same`` are left
out; a metric tie (equal values) counts half. The default checkpoint is the shipped one.

``--labels`` (hand-labelled record files, ``sitar.record/1`` JSONL or Parquet; e.g. the
recognizer labels of ``data_cards/sitar-asr-labels-v1.md``) adds a **ceiling** section: on the items whose two
transcripts both have a labelled record (matched by reference and spec §1 (docs/spec.md) normalised hypothesis; a
transcript equal to its reference after normalisation scores 0), every metric is evaluated again,
next to two rows that read the labels instead of a model: ``labels``, the spec §5 score of the
hand-labelled tiers (what a perfect per-gap model with no tie-breaker would give), and
``labels+extent``, the same score with the share of tokens inside gaps as the tie-breaker
(``S_lo + x (S_hi - S_lo)``, :func:`sitar.gapscore.gap_extent`; the extent half of tie-breaker
version 3). They bound what any per-gap model scored by spec §5 can reach on those items.
A third row, ``swer-labels``, is the ``swer`` of the hand-labelled tiers (:func:`label_swers`)
under the parameters that agree best with the judge on those same items (:func:`best_label_swer`;
``swer_labels_params`` names them): an optimistic bound for what ``swer`` can reach there when its
tiers are the readers' own.

``--second-judge SET`` (the same items judged by another judge, e.g. with ``python -m
annotation.asr ab-merge``): how the two judges agree (``annotation.asr.ab.judge_agreement``:
Cohen's kappa over A / B / same), every metric's agreement with the second judge, and on the
*consensus* items, those both judges decided the same way (A or B).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sitar._main import ArgumentParser, tool_main
from sitar.options import add_scorer_arguments, options_from_args

__all__ = ["SWER_T1_GRID", "agreement", "evaluate_ab", "main", "swer_choice_key"]

#: The T1 weights ``swer``'s parameters are chosen from, with each extent of
#: :data:`sitar.swer.EXTENTS` (``experiments/swer-params/choose.py`` on the validation A/B set;
#: :func:`best_label_swer`).
SWER_T1_GRID: tuple[float, ...] = (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.75, 1.0)


def swer_choice_key(agreement: float, t1_weight: float, extent: str) -> tuple[float, float, bool]:
    """The order ``swer``'s parameters are chosen by: the highest agreement with the judge, a tie
    going to the smaller T1 weight, then to ``words`` (the simpler measure)."""
    return (agreement, -t1_weight, extent == "words")


def agreement(items: Sequence[dict[str, Any]], values_a: Sequence[float],
              values_b: Sequence[float]) -> dict[str, float]:  # fmt: skip
    """Agreement with the judge over items judged A or B (ties in the metric count half)."""
    hits = 0.0
    n = 0
    ties = 0
    for it, va, vb in zip(items, values_a, values_b, strict=True):
        if it["judgement"] == "same":
            continue
        n += 1
        if va == vb:
            hits += 0.5
            ties += 1
        elif (va < vb) == (it["judgement"] == "A"):
            hits += 1.0
    return {"agreement": hits / n if n else float("nan"), "items": n, "metric_ties": ties}


def evaluate_ab(
    items: Sequence[dict[str, Any]],
    metrics: dict[str, Callable[[list[str], list[str]], list[float]]],
) -> dict[str, dict[str, float]]:
    """``metrics``: name -> function(references, hypotheses) -> distances (lower is better)."""
    refs = [it["reference"] for it in items]
    out = {}
    for name, fn in metrics.items():
        va = fn(refs, [it["a"] for it in items])
        vb = fn(refs, [it["b"] for it in items])
        out[name] = agreement(items, va, vb)
    return out


def _label_table(
    records: Sequence[Any], value: Callable[[Any], float]
) -> dict[tuple[str, tuple[str, ...]], float]:
    """``(reference, normalised hypothesis tokens) -> value(record)`` over labelled records. Two
    records of the same key with different values raise :class:`~sitar.errors.RecordError` (the
    key would be ambiguous)."""
    from sitar.errors import RecordError
    from sitar.text import tokenize

    out: dict[tuple[str, tuple[str, ...]], float] = {}
    owner: dict[tuple[str, tuple[str, ...]], str] = {}
    for rec in records:
        key = (rec.reference, tuple(t.norm for t in tokenize(rec.hypothesis)))
        v = value(rec)
        if key in out and out[key] != v:
            raise RecordError(
                f"records {owner[key]!r} and {rec.id!r} label the same transcript of the same "
                f"reference differently ({out[key]} and {v})"
            )
        out[key], owner[key] = v, rec.id
    return out


def label_scores(
    records: Sequence[Any], *, extent: bool = False
) -> dict[tuple[str, tuple[str, ...]], float]:
    """``(reference, normalised hypothesis tokens) -> score`` from labelled records
    (:class:`sitar.records.Record`): the record's spec §5 score ``S_lo``, or with ``extent``
    ``S_lo + x (S_hi − S_lo)`` with ``x`` its gap extent as the tie-breaker fraction
    (:func:`sitar.gapscore.score_interval`). Two records of the same key with different scores
    raise :class:`~sitar.errors.RecordError` (the key would be ambiguous)."""
    from sitar.gapscore import TIE_BREAK_MAX, score_interval
    from training.data import record_gap_extent

    def value(rec: Any) -> float:
        if extent and rec.tiers:
            lo, hi = score_interval(rec.tiers, rec.directions, rho=rec.rho)
            return float(lo + min(record_gap_extent(rec), TIE_BREAK_MAX) * (hi - lo))
        return float(rec.score)

    return _label_table(records, value)


def label_swers(records: Sequence[Any], params: Any) -> dict[tuple[str, tuple[str, ...]], float]:
    """``(reference, normalised hypothesis tokens) -> swer`` from labelled records: the pair value
    of :func:`sitar.swer.swer_parts` over the record's gaps (their token intervals ``ref_tokens`` /
    ``hyp_tokens``) with its hand-labelled nominal tiers and ``params``
    (:class:`sitar.swer.SwerParams`): the ``swer`` a model that reproduced the labels exactly would
    report. Clashing records raise as in :func:`label_scores`."""
    from sitar.swer import pair_value, swer_parts
    from sitar.text import tokenize
    from training.data import record_gap_intervals

    def value(rec: Any) -> float:
        return pair_value(*swer_parts(
            [t.norm for t in tokenize(rec.reference)],
            [t.norm for t in tokenize(rec.hypothesis)],
            record_gap_intervals(rec), rec.tiers, params,
        ))  # fmt: skip

    return _label_table(records, value)


def best_label_swer(
    items: Sequence[dict[str, Any]], records: Sequence[Any]
) -> tuple[Any, list[float], list[float]]:
    """The ``swer`` parameters (every T1 weight of :data:`SWER_T1_GRID` with every extent of
    :data:`sitar.swer.EXTENTS`) under which the labels' ``swer`` (:func:`label_swers`) agrees best
    with the judge of ``items`` (:func:`swer_choice_key`, the order
    ``experiments/swer-params/choose.py`` chooses by), with the A and B values of the labelled items
    (:func:`labelled_items`) under them. Chosen on ``items`` themselves, so it is an optimistic
    bound for that set, not a choice to report as a result."""
    from sitar.swer import EXTENTS, SwerParams

    best: tuple[tuple[float, float, bool], Any, list[float], list[float]] | None = None
    for ext in EXTENTS:
        for w in SWER_T1_GRID:
            params = SwerParams(t1_weight=w, extent=ext)
            kept, va, vb = labelled_items(items, label_swers(records, params))
            key = swer_choice_key(agreement(kept, va, vb)["agreement"], w, ext)
            if best is None or key > best[0]:
                best = (key, params, va, vb)
    assert best is not None  # the grid is not empty
    return best[1], best[2], best[3]


def labelled_items(
    items: Sequence[dict[str, Any]], labels: dict[tuple[str, tuple[str, ...]], float]
) -> tuple[list[dict[str, Any]], list[float], list[float]]:
    """The items whose two transcripts both have a label in ``labels`` (or equal their reference
    after spec §1 normalisation: score 0), with the labels' values for A and B."""
    from sitar.text import tokenize

    kept, va, vb = [], [], []
    for it in items:
        ref_norms = tuple(t.norm for t in tokenize(it["reference"]))
        values = []
        for side in ("a", "b"):
            norms = tuple(t.norm for t in tokenize(it[side]))
            value = 0.0 if norms == ref_norms else labels.get((it["reference"], norms))
            values.append(value)
        if values[0] is not None and values[1] is not None:
            kept.append(it)
            va.append(values[0])
            vb.append(values[1])
    return kept, va, vb


def ceiling_values(
    items: Sequence[dict[str, Any]], records: Sequence[Any]
) -> tuple[list[dict[str, Any]], dict[str, tuple[list[float], list[float]]], Any]:
    """The ceiling rows of the A/B set from hand-labelled records: the items whose two
    transcripts are both labelled (:func:`labelled_items`) and, for ``labels`` (spec §5 of the
    labelled tiers), ``labels+extent`` (extent as the tie-breaker, :func:`label_scores`) and
    ``swer-labels`` (the labels' ``swer`` under the parameters that suit this set best,
    :func:`best_label_swer`), the values of sides A and B on those items; then those parameters
    (:class:`sitar.swer.SwerParams`)."""
    kept, label_a, label_b = labelled_items(items, label_scores(records))
    _, ext_a, ext_b = labelled_items(items, label_scores(records, extent=True))
    params, swer_a, swer_b = best_label_swer(items, records)
    rows = {"labels": (label_a, label_b), "labels+extent": (ext_a, ext_b),
            "swer-labels": (swer_a, swer_b)}  # fmt: skip
    return kept, rows, params


def _print_rows(report: dict[str, dict[str, float]]) -> None:
    for name, row in report.items():
        print(f"  {name:13s} agreement {row['agreement']:.3f}  (metric ties {row['metric_ties']})")


def _wer(errors: np.ndarray, words: np.ndarray) -> list[float]:
    """Per-pair WER from ``sitar.comparison.word_error_counts`` (the dev-set evaluation's WER)."""
    return [float(x) for x in errors / np.maximum(words, 1)]


@tool_main("python -m training.evaluate_ab")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.evaluate_ab", description=__doc__)
    parser.add_argument("--set", required=True, help="A/B set JSONL (sitar-ab-1)")
    add_scorer_arguments(parser, threads_help="CPU threads (scorer and baselines; default 2)")
    parser.set_defaults(threads=2)
    parser.add_argument("--baselines", default="semdist,bertscore", help="'' for none")
    parser.add_argument(
        "--labels", nargs="+", metavar="RECORDS",
        help="hand-labelled record files: add the ceiling section (see above)",
    )  # fmt: skip
    parser.add_argument(
        "--second-judge", metavar="SET",
        help="the same items judged by another judge: add agreement with that judge and on the "
        "items both judges decided the same way",
    )  # fmt: skip
    parser.add_argument("--json", help="also write the report as JSON here")
    args = parser.parse_args(argv)
    from annotation.asr.ab import load_ab
    from sitar.comparison import word_error_counts
    from sitar.scorer import Scorer

    items = load_ab(args.set)
    scorer = Scorer.load(options_from_args(args))
    metrics: dict[str, Callable[[list[str], list[str]], list[float]]] = {
        "sitar": lambda r, h: list(scorer.score(references=r, hypotheses=h).raw),
        "wer": lambda r, h: _wer(*word_error_counts(references=r, hypotheses=h)),
    }
    names = [b for b in args.baselines.split(",") if b.strip()]
    if names:
        from training.baselines import EmbeddingBaselines

        base = EmbeddingBaselines(threads=args.threads)
        if "semdist" in names:
            metrics["semdist"] = base.semdist
        if "bertscore" in names:
            metrics["bertscore"] = base.bertscore
    report = evaluate_ab(items, metrics)
    ceiling: dict[str, Any] | None = None
    if args.labels:
        from training.data import read_record_file

        records = [r for path in args.labels for r in read_record_file(path)]
        kept, rows, swer_params = ceiling_values(items, records)
        ceiling = {
            "labels_files": list(args.labels),
            "items": len(kept),
            "swer_labels_params": swer_params.version,
            "metrics": {
                **{name: agreement(kept, va, vb) for name, (va, vb) in rows.items()},
                **evaluate_ab(kept, metrics),
            },
        }
    second: dict[str, Any] | None = None
    if args.second_judge:
        from annotation.asr.ab import judge_agreement

        others = load_ab(args.second_judge)
        judges = judge_agreement(items, others)
        by_id = {it["id"]: it for it in others}
        paired = [by_id[it["id"]] for it in items]
        consensus = [
            it
            for it, other in zip(items, paired, strict=True)
            if it["judgement"] == other["judgement"] != "same"
        ]
        second = {
            "set": args.second_judge,
            "judges": judges,
            "metrics": evaluate_ab(paired, metrics),
            "consensus": {"items": len(consensus), "metrics": evaluate_ab(consensus, metrics)},
        }
    judged = sum(it["judgement"] != "same" for it in items)
    print(f"{len(items)} items, {judged} judged A or B ({len(items) - judged} same, left out)")
    print(f"signature: {scorer.signature}")
    _print_rows(report)
    out: dict[str, Any] = {"set": args.set, "signature": scorer.signature, "metrics": report}
    if ceiling is not None:
        n_judged = sum(it["judgement"] != "same" for it in items)
        sub = ceiling["metrics"]["labels"]["items"]
        print(f"ceiling: {ceiling['items']} items with both transcripts labelled "
              f"({sub} of the {n_judged} judged A or B)")  # fmt: skip
        _print_rows(ceiling["metrics"])
        out["ceiling"] = ceiling
    if second is not None:
        j = second["judges"]
        print(f"second judge ({args.second_judge}): agreement between the judges "
              f"{j['agreement']:.3f}, Cohen's kappa {j['kappa']:.3f}, opposite picks "
              f"{j['opposite']} of {j['decided_by_both']} decided by both")  # fmt: skip
        _print_rows(second["metrics"])
        print(f"consensus: {second['consensus']['items']} items both judges decided the same way")
        _print_rows(second["consensus"]["metrics"])
        out["second_judge"] = second
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
