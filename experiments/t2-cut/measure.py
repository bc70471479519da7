"""Is the over-call on real output an offset of the T1/T2 cut? (issue #31; study, no training)

    python experiments/t2-cut/measure.py --checkpoint DIR --validation F.jsonl [...] \
        [--test F.jsonl ...] [--json OUT.json]

The gap head's ``tier`` decoding calls a gap T2 when its expected step ``e`` (the sum of its six
threshold probabilities, :func:`sitar.gapscore.expected_steps`) rounds to 5 or 6, i.e. ``e >=
4.5``. This measures what moving that cut to ``c`` would do, the T0/T1 cut (1.5) kept:

* on each validation file (hand-labelled gaps whose spans match the scorer's segmentation, as
  ``training.evaluate_checkpoint.gap_report`` counts them): tier accuracy and the T1 -> T2 and
  T2 -> T1 confusions;
* on the public severity benchmark (diagnostic only, never used to choose): the share of
  reader-T0, reader-T1 and reader-T2 transcripts with at least one gap at or above the cut, which
  is what puts a transcript in the T2 band under spec §5's tier priority;
* on each ``--test`` file (diagnostic only): by the record's worst labelled tier, the share of
  records with a gap the ``tier`` decoding reads T2, the same question as the benchmark's band
  asked of the per-gap labels.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CUTS = (4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.5)
T1_CUT = 1.5


def _tiers(expected: np.ndarray, cut: float) -> np.ndarray:
    return np.where(expected >= cut, 2, np.where(expected >= T1_CUT, 1, 0))


def validation_gaps(scorer, path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Expected steps and labelled tiers of the matched gaps of ``path``'s validation records."""
    from sitar.records import read_records
    from training.evaluate_checkpoint import same_gaps

    records = [r for r in read_records(path) if r.split == "validation"]
    analyses = scorer.analyze(
        references=[r.reference for r in records], hypotheses=[r.hypothesis for r in records]
    )
    expected, tiers = [], []
    for record, a in zip(records, analyses, strict=True):
        if not record.gaps or not same_gaps(record, a):
            continue
        for p, t in zip(a.gaps, record.tiers, strict=True):
            expected.append(p.expected)
            tiers.append(t)
    return np.asarray(expected, dtype=np.float64), np.asarray(tiers, dtype=np.int64)


def benchmark_top(scorer) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per transcript of the severity benchmark: the highest expected step of its gaps (0 for a
    transcript the scorer finds identical), the readers' resolved tier, the number of gaps and
    the number read T2 at today's cut (4.5)."""
    data = ROOT / "benchmarks/severity/data"
    items = [json.loads(x) for x in (data / "items.jsonl").read_text("utf-8").splitlines()]
    labels = {
        row["item_id"]: row
        for row in map(json.loads, (data / "labels.jsonl").read_text("utf-8").splitlines())
    }
    items = [i for i in items if i["item_id"] in labels]
    analyses = scorer.analyze(
        references=[i["reference"] for i in items], hypotheses=[i["hypothesis"] for i in items]
    )
    top = [max((p.expected for p in a.gaps or ()), default=0.0) for a in analyses]
    n_gaps = [len(a.gaps or ()) for a in analyses]
    n_t2 = [sum(p.expected >= 4.5 for p in a.gaps or ()) for a in analyses]
    reader = [labels[i["item_id"]]["tier"] for i in items]
    return np.asarray(top), np.asarray(reader), np.asarray(n_gaps), np.asarray(n_t2)


def records_in_band(scorer, path: Path) -> dict[str, dict[str, float]]:
    """By worst labelled tier: the records of ``path`` with a gap read T2 (``e >= 4.5``)."""
    from sitar.records import read_records

    records = [r for r in read_records(path) if r.gaps]
    analyses = scorer.analyze(
        references=[r.reference for r in records], hypotheses=[r.hypothesis for r in records]
    )
    out = {}
    for tier in (0, 1, 2):
        hits = [
            max((p.expected for p in a.gaps or ()), default=0.0) >= 4.5
            for r, a in zip(records, analyses, strict=True)
            if max(r.tiers) == tier
        ]
        out[f"worst_label_t{tier}"] = {
            "n": len(hits),
            "read_t2_share": round(float(np.mean(hits)), 4) if hits else None,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--validation", nargs="+", required=True)
    p.add_argument("--test", nargs="*", default=[], help="test record files (diagnostic)")
    p.add_argument("--json")
    args = p.parse_args(argv)

    from sitar import Scorer

    scorer = Scorer.load(args.checkpoint, decode="mean")  # raw expected steps
    out: dict = {"checkpoint": args.checkpoint, "signature": scorer.signature, "cuts": CUTS}
    per_file = {}
    for f in args.validation:
        e, t = validation_gaps(scorer, Path(f))
        rows = {}
        for c in CUTS:
            pred = _tiers(e, c)
            rows[str(c)] = {
                "tier_accuracy": round(float((pred == t).mean()), 4),
                "t1_as_t2": int(((t == 1) & (pred == 2)).sum()),
                "t2_as_t1": int(((t == 2) & (pred == 1)).sum()),
            }
        per_file[Path(f).name] = {"n_gaps": len(t), "by_cut": rows}
        print(Path(f).name, len(t), {c: r["tier_accuracy"] for c, r in rows.items()})
    out["validation"] = per_file
    out["validation_mean_tier_accuracy"] = {
        str(c): round(
            float(np.mean([v["by_cut"][str(c)]["tier_accuracy"] for v in per_file.values()])), 4
        )
        for c in CUTS
    }
    print("mean", out["validation_mean_tier_accuracy"])
    top, reader, n_gaps, n_t2 = benchmark_top(scorer)
    bench = {}
    for c in CUTS:
        bench[str(c)] = {
            f"reader_t{k}_in_t2_band": round(float((top[reader == k] >= c).mean()), 4)
            for k in (0, 1, 2)
        }
    out["severity_benchmark_diagnostic"] = {
        "n": {f"reader_t{k}": int((reader == k).sum()) for k in (0, 1, 2)},
        "by_cut": bench,
        "reader_t1_in_band_at_4.5": {
            "n": int(((reader == 1) & (n_t2 > 0)).sum()),
            "with_one_gap_read_t2": int(((reader == 1) & (n_t2 == 1)).sum()),
            "with_one_gap": int(((reader == 1) & (n_t2 > 0) & (n_gaps == 1)).sum()),
        },
    }
    print("benchmark", bench)
    if args.test:
        out["test_records_diagnostic"] = {
            Path(f).name: records_in_band(scorer, Path(f)) for f in args.test
        }
        print("test", out["test_records_diagnostic"])
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
