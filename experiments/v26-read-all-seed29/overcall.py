"""Where a candidate's T2 band holds transcripts the readers rated below T2 (severity benchmark).

    python experiments/v26-read-all-seed29/overcall.py --checkpoint /work/data/runs/cand26 \
        --json experiments/v26-read-all-seed29/eval/overcall_cand26.json

For each reader tier: how many of its transcripts score in the T2 band (>= 5/7), how many of
those have a single gap, how many score below 0.75 (the smallest T2 extents), and how many of
the gaps the gap head calls T2 span two or more words on one side (a garbled stretch rather than
a one-word slip). Up to 25 examples of reader-T1 transcripts in the band are kept with the
readers' reasons.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sitar._main import ArgumentParser, tool_main  # noqa: E402


@tool_main("python experiments/v26-read-all-seed29/overcall.py")
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="overcall.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    from benchmarks.severity.labels import read_items
    from benchmarks.severity.run import DATA, T2_BAND
    from sitar import Scorer

    scorer = Scorer.load(args.checkpoint)
    items = {it["item_id"]: it for it in read_items(DATA / "items.jsonl")}
    labels = read_items(DATA / "labels.jsonl")
    refs = [items[lab["item_id"]]["reference"] for lab in labels]
    hyps = [items[lab["item_id"]]["hypothesis"] for lab in labels]
    pairs = scorer.analyze(references=refs, hypotheses=hyps)
    scores = scorer.result_of(pairs).scores
    report: dict = {
        "checkpoint": args.checkpoint,
        "signature": scorer.signature,
        "by_reader_tier": {},
    }
    for tier in (0, 1, 2):
        idx = [i for i, lab in enumerate(labels) if lab["tier"] == tier]
        band = [i for i in idx if scores[i] >= T2_BAND - 1e-9]
        called = [
            (g, p)
            for i in band
            for g, p in zip(pairs[i].segmentation.gaps, pairs[i].gaps, strict=True)
            if p.tier == 2
        ]
        report["by_reader_tier"][f"T{tier}"] = {
            "transcripts": len(idx),
            "in_t2_band": len(band),
            "in_band_single_gap": sum(len(pairs[i].gaps) == 1 for i in band),
            "in_band_below_0.75": sum(scores[i] < 0.75 for i in band),
            "t2_called_gaps": len(called),
            "t2_called_gaps_2plus_words": sum(
                max(len(g.ref_text.split()), len(g.hyp_text.split())) >= 2 for g, _ in called
            ),
        }
        print(f"reader-T{tier}:", report["by_reader_tier"][f"T{tier}"])
    examples = []
    for i, lab in enumerate(labels):
        if lab["tier"] == 1 and scores[i] >= T2_BAND - 1e-9 and len(examples) < 25:
            a = pairs[i]
            examples.append(
                {
                    "score": round(float(scores[i]), 3),
                    "reference": refs[i],
                    "hypothesis": hyps[i],
                    "t2_gaps": [
                        f"{g.ref_text!r} -> {g.hyp_text!r}"
                        for g, p in zip(a.segmentation.gaps, a.gaps, strict=True)
                        if p.tier == 2
                    ],
                    "reader_reasons": [r["reason"] for r in lab["readers"].values()],
                }
            )
    report["reader_t1_in_band_examples"] = examples
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
