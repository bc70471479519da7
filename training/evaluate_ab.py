"""Agreement of SITAR and baselines with a judge on an A/B set (schema ``sitar-ab-1``).

    python -m training.evaluate_ab --set annotation/ab/sitar_ab_v1.jsonl \
        [--checkpoint CKPT] [--baselines semdist,bertscore] [--json out.json]

For every item the judge picked the transcript (A or B) that better keeps what the reference
means, or ``same``. A metric *agrees* when it gives the judge's pick the lower distortion (SITAR
score, WER, SemDist, BERTScore distance: lower is better for all). Items judged ``same`` are left
out; a metric tie (equal values) counts half. The default checkpoint is the shipped one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sitar.errors import SitarError

__all__ = ["agreement", "evaluate_ab", "main"]


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


def _wer(errors: np.ndarray, words: np.ndarray) -> list[float]:
    """Per-pair WER from ``sitar.diagnostics.word_error_counts`` (the dev-set evaluation's WER)."""
    return [float(x) for x in errors / np.maximum(words, 1)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.evaluate_ab", description=__doc__)
    parser.add_argument("--set", required=True, help="A/B set JSONL (sitar-ab-1)")
    parser.add_argument("--checkpoint", help="SITAR checkpoint (default: the shipped one)")
    parser.add_argument("--variant", help="ONNX variant (default: the checkpoint's)")
    parser.add_argument("--head", help="gaps or pair (default: the checkpoint's)")
    parser.add_argument("--tie-breaker", type=int, choices=(2, 3), help="gap head (default 3)")
    parser.add_argument(
        "--decode", choices=("mean", "median"), help="gap head decoding (default mean)"
    )
    parser.add_argument("--baselines", default="semdist,bertscore", help="'' for none")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", help="also write the report as JSON here")
    args = parser.parse_args(argv)
    try:
        from annotation.asr.ab import load_ab
        from sitar.diagnostics import word_error_counts
        from sitar.scorer import Scorer

        items = load_ab(args.set)
        scorer = Scorer.load(
            args.checkpoint,
            variant=args.variant,
            head=args.head,
            threads=args.threads,
            tie_breaker=args.tie_breaker,
            decode=args.decode,
        )
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
    except SitarError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    judged = sum(it["judgement"] != "same" for it in items)
    print(f"{len(items)} items, {judged} judged A or B ({len(items) - judged} same, left out)")
    print(f"signature: {scorer.signature}")
    for name, row in report.items():
        print(f"  {name:10s} agreement {row['agreement']:.3f}  (metric ties {row['metric_ties']})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"set": args.set, "signature": scorer.signature, "metrics": report}, fh,
                      indent=2)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
