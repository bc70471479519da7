"""The public severity benchmark: how well each metric tracks readers' severity on real output.

    python -m benchmarks severity [--items ...] [--labels ...] [--ab annotation/ab/sitar_ab_v1.jsonl]
        [--ab-ceiling RECORDS ...] [--checkpoint CKPT] [--no-embeddings] [--json OUT]

Items (``data/items.jsonl``) are real recognizer transcripts that differ from their reference;
labels (``data/labels.jsonl``, from :mod:`benchmarks.severity.labels`) are two blind readers' tier
of the worst deviation (resolved by a third reader where they differ) and their mean damage 0-10.
For SITAR's score, ``swer``, WER, CER, 1 - chrF, the BERTScore-style distance and SemDist (all:
higher = worse) it prints:

* AUC(T2 vs rest) and AUC(T1+ vs T0) (ties count half, as in the Mann-Whitney statistic);
* Spearman's rho with damage, over all items and inside reader-T2;
* the system ranking: each system's corpus value (micro for the error rates, the mean for the
  others) against the readers' mean damage per system, with Kendall's tau;
* for SITAR's score, the share of reader-T0 and reader-T1 transcripts in the T2 band (>= 5/7);
* agreement with the judge on the public A/B set (``--ab``), overall and split by the difference
  in word-error counts of the two transcripts (<= 1, 2, >= 3); with ``--ab-ceiling RECORDS``
  (the hand-labelled recognizer records) also what the readers' own tiers achieve there
  (:func:`ab_ceiling`), the reference line for any model trained on those labels.

WER, CER and chrF are computed on the spec §1 normalised tokens (docs/spec.md), joined by spaces, so
case and punctuation do not count against any metric.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.severity.labels import read_items
from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
T2_BAND = 5.0 / 7.0
METRICS = ("sitar", "swer", "wer", "cer", "chrf", "bertscore", "semdist")

__all__ = ["METRICS", "auc", "evaluate", "main", "metric_values"]


def _norm(text: str) -> str:
    from sitar.text import tokenize

    return " ".join(t.norm for t in tokenize(text))


def auc(labels: Sequence[bool], values: Sequence[float]) -> float:
    """Area under the ROC curve of ``values`` for the positive ``labels`` (ties count half);
    ``nan`` without both classes."""
    from scipy.stats import rankdata

    y = np.asarray(labels, dtype=bool)
    v = np.asarray(values, dtype=float)
    n1, n0 = int(y.sum()), int((~y).sum())
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = rankdata(v)
    return float((ranks[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _error_counts(
    refs: Sequence[str], hyps: Sequence[str], unit: str
) -> tuple[list[float], list[float]]:
    from rapidfuzz.distance import Levenshtein

    errs, lens = [], []
    for r, h in zip(refs, hyps, strict=True):
        rn, hn = _norm(r), _norm(h)
        a, b = (rn.split(), hn.split()) if unit == "words" else (rn, hn)
        errs.append(float(Levenshtein.distance(a, b)))
        lens.append(float(len(a)))
    return errs, lens


def metric_values(
    refs: Sequence[str],
    hyps: Sequence[str],
    *,
    scorer: Any,
    embeddings: Any = None,
) -> dict[str, dict[str, list[float]]]:
    """Per pair, for each metric: ``value`` (higher = worse) and, for the rates, the ``num`` and
    ``den`` whose sums give the corpus value."""
    from sacrebleu.metrics import CHRF

    res = scorer.score(references=list(refs), hypotheses=list(hyps))
    out: dict[str, dict[str, list[float]]] = {"sitar": {"value": list(res.scores)}}
    if res.swer is not None:
        out["swer"] = {
            "value": list(res.swer),
            "num": list(res.swer_numerators),
            "den": list(res.swer_lengths),
        }
    for name, unit in (("wer", "words"), ("cer", "chars")):
        errs, lens = _error_counts(refs, hyps, unit)
        vals = [e / d if d else float(e > 0) for e, d in zip(errs, lens, strict=True)]
        out[name] = {"value": vals, "num": errs, "den": lens}
    chrf = CHRF()
    out["chrf"] = {
        "value": [
            1.0 - chrf.sentence_score(_norm(h), [_norm(r)]).score / 100.0
            for r, h in zip(refs, hyps, strict=True)
        ]
    }
    if embeddings is not None:
        got = embeddings.score(list(refs), list(hyps), ("bertscore", "semdist"))
        out["bertscore"] = {"value": list(got["bertscore"])}
        out["semdist"] = {"value": list(got["semdist"])}
    return out


def _corpus(m: dict[str, list[float]], idx: Sequence[int]) -> float:
    if "num" in m:
        den = sum(m["den"][i] for i in idx)
        return sum(m["num"][i] for i in idx) / den if den else float("nan")
    return float(np.mean([m["value"][i] for i in idx]))


def evaluate(
    items: Sequence[dict[str, Any]],
    labels: dict[str, dict[str, Any]],
    values: dict[str, dict[str, list[float]]],
) -> dict[str, Any]:
    """Every severity measure of the module docstring, per metric."""
    from scipy.stats import kendalltau, spearmanr

    tiers = np.array([labels[it["item_id"]]["tier"] for it in items])
    damage = np.array([labels[it["item_id"]]["damage"] for it in items], dtype=float)
    systems = sorted({it["system"] for it in items})
    by_system = {s: [i for i, it in enumerate(items) if it["system"] == s] for s in systems}
    reader_rank = {s: float(damage[idx].mean()) for s, idx in by_system.items()}
    t2 = tiers == 2
    report: dict[str, Any] = {
        "items": len(items),
        "tiers": {f"T{t}": int((tiers == t).sum()) for t in range(3)},
        "systems": {s: len(idx) for s, idx in by_system.items()},
        "reader_mean_damage": reader_rank,
        "metrics": {},
    }
    for name, m in values.items():
        v = np.asarray(m["value"], dtype=float)
        corpus = {s: _corpus(m, idx) for s, idx in by_system.items()}
        row = {
            "auc_t2": auc(t2, v),
            "auc_t1plus": auc(tiers >= 1, v),
            "spearman_damage": float(spearmanr(v, damage).statistic),
            "spearman_damage_in_t2": float(spearmanr(v[t2], damage[t2]).statistic)
            if t2.sum() > 2
            else float("nan"),
            "system_values": corpus,
            "system_kendall_tau": float(
                kendalltau(
                    [corpus[s] for s in systems], [reader_rank[s] for s in systems]
                ).statistic
            ),
        }
        if name == "sitar":
            for t in (0, 1):
                sel = tiers == t
                row[f"reader_t{t}_in_t2_band"] = (
                    float((v[sel] >= T2_BAND - 1e-9).mean()) if sel.any() else float("nan")
                )
        report["metrics"][name] = row
    return report


def evaluate_ab(ab_items: Sequence[dict[str, Any]], values_a: dict[str, dict[str, list[float]]],
                values_b: dict[str, dict[str, list[float]]]) -> dict[str, Any]:  # fmt: skip
    """Agreement with the judge on A/B items (``same`` left out, metric ties count half), overall
    and by the difference in word-error counts: <= 1, 2, >= 3."""
    refs = [it["reference"] for it in ab_items]
    ea, _ = _error_counts(refs, [it["a"] for it in ab_items], "words")
    eb, _ = _error_counts(refs, [it["b"] for it in ab_items], "words")
    bucket = [
        "<=1" if abs(x - y) <= 1 else "2" if abs(x - y) == 2 else ">=3"
        for x, y in zip(ea, eb, strict=True)
    ]
    out: dict[str, Any] = {"n": {}}
    for name in values_a:
        row = {}
        for part in ("all", "<=1", "2", ">=3"):
            hits = n = 0.0
            for k, it in enumerate(ab_items):
                if it["judgement"] == "same" or (part != "all" and bucket[k] != part):
                    continue
                n += 1
                va, vb = values_a[name]["value"][k], values_b[name]["value"][k]
                hits += 0.5 if va == vb else float((va < vb) == (it["judgement"] == "A"))
            row[part] = hits / n if n else float("nan")
            out["n"][part] = int(n)
        out[name] = row
    return out


def ab_ceiling(ab_items: Sequence[dict[str, Any]], records: Sequence[Any]) -> dict[str, Any]:
    """What the readers' own tiers achieve on the A/B set: agreement with the judge of ``labels``
    (spec §5 of each transcript's labelled tiers), ``labels+extent`` (the same with the share
    of tokens inside gaps as the tie-breaker) and ``swer-labels`` (``swer`` of the labelled tiers
    under the parameters best on this set, named by ``swer_labels_params``), from hand-labelled records
    (:func:`training.evaluate_ab.ceiling_values`), overall and by |Δerrors| as
    :func:`evaluate_ab`. Only items whose two transcripts are both labelled (or equal their
    reference) count; ``items`` says how many of the set's items that is."""
    from training.evaluate_ab import ceiling_values

    kept, rows, swer_params = ceiling_values(ab_items, records)
    out = evaluate_ab(
        kept,
        {name: {"value": va} for name, (va, _) in rows.items()},
        {name: {"value": vb} for name, (_, vb) in rows.items()},
    )
    out["items"] = {"labelled": len(kept), "of": len(ab_items)}
    out["swer_labels_params"] = swer_params.version
    return out


def _print(report: dict[str, Any], ab: dict[str, Any] | None) -> None:
    print(f"items {report['items']}  tiers {report['tiers']}  systems {report['systems']}")
    print(
        f"{'metric':10s} {'AUC T2':>7s} {'AUC T1+':>7s} {'rho dmg':>7s} {'rho T2':>7s} {'tau sys':>7s}"
    )
    for name, r in report["metrics"].items():
        print(
            f"{name:10s} {r['auc_t2']:7.3f} {r['auc_t1plus']:7.3f} {r['spearman_damage']:7.3f} "
            f"{r['spearman_damage_in_t2']:7.3f} {r['system_kendall_tau']:7.3f}"
        )
    s = report["metrics"].get("sitar", {})
    if s:
        print(
            f"SITAR T2 band: reader-T0 {s['reader_t0_in_t2_band']:.3f}, reader-T1 {s['reader_t1_in_t2_band']:.3f}"
        )
    print("system ranking (readers' mean damage, then each metric's corpus value):")
    systems = sorted(report["reader_mean_damage"], key=report["reader_mean_damage"].get)
    print("  readers   " + "  ".join(f"{x}={report['reader_mean_damage'][x]:.2f}" for x in systems))
    for name, r in report["metrics"].items():
        order = sorted(r["system_values"], key=r["system_values"].get)
        print(f"  {name:9s} " + " < ".join(order))
    if ab:
        print(f"A/B agreement (items: {ab['n']})")
        for name in METRICS:
            if name in ab:
                print(f"  {name:10s} " + "  ".join(f"{k} {v:.3f}" for k, v in ab[name].items()))
        ceiling = ab.get("ceiling")
        if ceiling:
            items = ceiling["items"]
            print(
                f"A/B ceiling from the hand labels ({items['labelled']} of {items['of']} items "
                f"with both transcripts labelled; items: {ceiling['n']}; swer-labels: "
                f"{ceiling['swer_labels_params']}, the best on this set)"
            )
            for name in ("labels", "labels+extent", "swer-labels"):
                row = ceiling[name]
                print(f"  {name:13s} " + "  ".join(f"{k} {v:.3f}" for k, v in row.items()))


@tool_main("python -m benchmarks severity")
def main(argv: Sequence[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m benchmarks severity", description=__doc__.splitlines()[0])
    ap.add_argument("--items", default=str(DATA / "items.jsonl"))
    ap.add_argument("--labels", default=str(DATA / "labels.jsonl"))
    ap.add_argument("--ab", default=str(ROOT / "annotation/ab/sitar_ab_v1.jsonl"))
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument(
        "--no-embeddings", action="store_true", help="skip BERTScore-style and SemDist (torch)"
    )
    ap.add_argument(
        "--ab-ceiling", nargs="+", metavar="RECORDS", default=None,
        help="hand-labelled recognizer record files (sitar.record/1): add what the readers' own "
        "tiers achieve on the A/B set (labels, labels+extent, swer-labels), overall and by "
        "|delta errors|",
    )  # fmt: skip
    ap.add_argument("--json", default=None, help="also write the report here (harness schema)")
    args = ap.parse_args(argv)
    if args.ab_ceiling and not args.ab:
        ap.error("--ab-ceiling needs an A/B set (--ab)")

    from sitar import Scorer

    items = read_items(args.items)
    labels = {r["item_id"]: r for r in read_items(args.labels)}
    missing = [it["item_id"] for it in items if it["item_id"] not in labels]
    if missing:
        raise InputError(
            f"{len(missing)} items have no label in {args.labels} (e.g. {missing[:3]})"
        )
    scorer = Scorer.load(args.checkpoint) if args.checkpoint else Scorer.load()
    emb = None
    if not args.no_embeddings:
        from training.baselines import EmbeddingBaselines

        emb = EmbeddingBaselines()
    refs = [it["reference"] for it in items]
    values = metric_values(refs, [it["hypothesis"] for it in items], scorer=scorer, embeddings=emb)
    report = evaluate(items, labels, values)
    ab = None
    if args.ab:
        ab_items = [json.loads(x) for x in Path(args.ab).read_text("utf-8").splitlines() if x]
        ab_refs = [it["reference"] for it in ab_items]
        va = metric_values(ab_refs, [it["a"] for it in ab_items], scorer=scorer, embeddings=emb)
        vb = metric_values(ab_refs, [it["b"] for it in ab_items], scorer=scorer, embeddings=emb)
        ab = evaluate_ab(ab_items, va, vb)
        if args.ab_ceiling:
            from training.data import read_record_file

            records = [r for path in args.ab_ceiling for r in read_record_file(path)]
            ab["ceiling"] = ab_ceiling(ab_items, records)
    _print(report, ab)
    if args.json:
        from benchmarks.harness import write_result

        write_result(
            args.json, "severity", {"signature": scorer.signature, "report": report, "ab": ab}
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
