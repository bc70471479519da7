"""Compare tie-breaker rules of the gap head on validation data (how version 3 was chosen).

    python -m training.compare_tie_breakers \\
        --ab annotation/ab/sitar_ab_val_v1.jsonl \\
        --records asr_validation.jsonl synth_validation.jsonl [--checkpoint CKPT] [--json OUT]

One analysis per pair (plus a version-2 scoring pass) gives the predicted gaps, their spec §5 (docs/spec.md)
interval ``[S_lo, S_hi)`` and what each rule reads; every rule then places the pair at
``S_lo + u (S_hi − S_lo)``, so the rules differ only for pairs with the same predicted counts. The rules (``u``, capped below 1):

* ``none``: 0 (spec §5 exactly);
* ``v2``: the pair head (tie-breaker version 2, :func:`sitar.gapscore.tie_fraction`);
* ``v3``: (step place + extent) / 2 (version 3, the default,
  :func:`sitar.gapscore.severity_extent_fraction`);
* ``extent``: the share of the pair's tokens inside gaps (:func:`sitar.gapscore.gap_extent`);
* ``step``: where the top gaps' expected steps lie inside their step
  (:func:`sitar.gapscore.step_fraction`);
* ``v2+extent``, ``v2+step``: the mean of the two; ``all``: the mean of the three.

For an A/B set (``sitar-ab-1``) it reports agreement with the judge (items judged ``same`` left
out, a metric tie counted half, as ``training.evaluate_ab``); for record files, the Spearman
correlation of the raw scores with the records' spec §5 targets. Use validation data: the choice
this reports is a model-selection decision.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sitar._main import ArgumentParser, tool_main

RULES: dict[str, Callable[[dict[str, float]], float]] = {
    "none": lambda f: 0.0,
    "v2": lambda f: f["pair"],
    "v3": lambda f: (f["step"] + f["extent"]) / 2,
    "extent": lambda f: f["extent"],
    "step": lambda f: f["step"],
    "v2+extent": lambda f: (f["pair"] + f["extent"]) / 2,
    "v2+step": lambda f: (f["pair"] + f["step"]) / 2,
    "all": lambda f: (f["pair"] + f["step"] + f["extent"]) / 3,
}


def pair_features(
    checkpoint: str | None, references: Sequence[str], hypotheses: Sequence[str]
) -> list[dict[str, float]]:
    """Per pair: ``lo``, ``hi`` (the spec §5 interval of the predicted gaps) and the fractions
    the rules read (``pair``: version 2's, ``step``, ``extent``); identical pairs get zeros."""
    from sitar.gapscore import aggregate, segmentation_extent, step_fraction
    from sitar.scorer import Scorer

    v3 = Scorer.load(checkpoint, tie_breaker=3)
    v2 = Scorer.load(checkpoint, tie_breaker=2)
    analyses = v3.analyze(references=list(references), hypotheses=list(hypotheses))
    raw_v2 = v2.score(references=list(references), hypotheses=list(hypotheses)).raw
    out = []
    for a, r2 in zip(analyses, raw_v2, strict=True):
        if a.identical or not a.gaps or a.segmentation is None:
            out.append({"lo": 0.0, "hi": 0.0, "pair": 0.0, "step": 0.0, "extent": 0.0})
            continue
        _, lo, hi = aggregate(a.gaps)
        out.append(
            {
                "lo": lo,
                "hi": hi,
                "pair": (r2 - lo) / (hi - lo) if hi > lo else 0.0,
                "step": step_fraction(a.gaps),
                "extent": segmentation_extent(a.segmentation),
            }
        )
    return out


def rule_score(features: dict[str, float], rule: str) -> float:
    from sitar.gapscore import TIE_BREAK_MAX

    u = min(max(RULES[rule](features), 0.0), TIE_BREAK_MAX)
    return features["lo"] + u * (features["hi"] - features["lo"])


def ab_agreement(items: Sequence[dict[str, Any]], checkpoint: str | None) -> dict[str, Any]:
    judged = [it for it in items if it["judgement"] != "same"]
    refs = [it["reference"] for it in judged]
    feats = pair_features(
        checkpoint, refs + refs, [it["a"] for it in judged] + [it["b"] for it in judged]
    )
    n = len(judged)
    report: dict[str, Any] = {
        "items": n,
        "same_interval": sum(feats[i]["lo"] == feats[n + i]["lo"] for i in range(n)),
    }
    for rule in RULES:
        agree = 0.0
        for i, it in enumerate(judged):
            sa, sb = rule_score(feats[i], rule), rule_score(feats[n + i], rule)
            if sa == sb:
                agree += 0.5
            elif (sa < sb) == (it["judgement"] == "A"):
                agree += 1.0
        report[rule] = agree / n if n else float("nan")
    return report


def records_spearman(path: Path, checkpoint: str | None) -> dict[str, Any]:
    from scipy.stats import spearmanr

    from sitar.records import read_records

    records = list(read_records(path))
    feats = pair_features(
        checkpoint, [r.reference for r in records], [r.hypothesis for r in records]
    )
    targets = [float(r.score) for r in records]
    report: dict[str, Any] = {"records": len(records)}
    for rule in RULES:
        report[rule] = float(spearmanr([rule_score(f, rule) for f in feats], targets)[0])
    return report


@tool_main("python -m training.compare_tie_breakers")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m training.compare_tie_breakers", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--checkpoint", help="gap-aware checkpoint (default: the shipped one)")
    parser.add_argument("--ab", type=Path, action="append", default=[], help="A/B set JSONL")
    parser.add_argument("--records", type=Path, nargs="*", default=[], help="record files")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    if not args.ab and not args.records:
        parser.error("give at least one --ab set or --records file")
    from annotation.asr.ab import load_ab
    from sitar.scorer import Scorer

    signature = Scorer.load(args.checkpoint).signature
    report: dict[str, Any] = {"signature": signature, "rules": list(RULES), "sets": {}}
    for path in args.ab:
        report["sets"][str(path)] = ab_agreement(load_ab(path), args.checkpoint)
    for path in args.records:
        report["sets"][str(path)] = records_spearman(path, args.checkpoint)
    print(f"signature: {signature}")
    names = list(RULES)
    print("set".ljust(48) + "".join(n.rjust(10) for n in names))
    for path, row in report["sets"].items():
        print(Path(path).name[:47].ljust(48) + "".join(f"{row[n]:10.4f}" for n in names))
    report["argv"] = sys.argv
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
