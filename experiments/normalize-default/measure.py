"""What the one normaliser does to the shipped model's scores: the dev set in three forms and the
invariance suite, with the model fed (a) the text as given and (b) both sides normalised.

    python experiments/normalize-default/measure.py [--checkpoint CKPT] [--json OUT]

Forms of the public dev set: ``written`` (as in the file), ``stripped`` (both sides lowercased, with
punctuation removed, word-internal apostrophes kept) and ``mixed`` (the reference as written, the
hypothesis stripped). For each form and input treatment it reports the dev set's pairwise agreement
and Spearman (spec §8 controlled ordering), and how far pair scores move against the written form
with the text as given (share moving more than 0.05, largest move). On the invariance suite it
reports the share of format pairs scored in the T0 band and of flips in their expected band.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.invariance import band, load_suite, strip  # noqa: E402
from sitar import Scorer  # noqa: E402
from sitar.normalize import normalize_pair, normalizer_id  # noqa: E402
from training.evaluate_checkpoint import _load_devset, system_metrics  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    scorer = Scorer.load(args.checkpoint) if args.checkpoint else Scorer.load()
    rows = _load_devset(ROOT / "annotation/devset/sitar_dev_v1.jsonl")
    forms = {
        "written": [(r["reference"], r["hypothesis"]) for r in rows],
        "stripped": [(strip(r["reference"]), strip(r["hypothesis"])) for r in rows],
        "mixed": [(r["reference"], strip(r["hypothesis"])) for r in rows],
    }

    def run(pairs: list[tuple[str, str]], normalized: bool) -> list[float]:
        if normalized:
            pairs = [normalize_pair(r, h).texts for r, h in pairs]
        res = scorer.score(references=[p[0] for p in pairs], hypotheses=[p[1] for p in pairs])
        return list(res.scores)

    out: dict = {
        "signature": scorer.signature,
        "normalizer": normalizer_id(),
        "dev": {},
        "suite": {},
    }
    base = np.array(run(forms["written"], False))
    for treat in ("as-given", "normalized"):
        for name, pairs in forms.items():
            s = np.array(run(pairs, treat == "normalized"))
            m = system_metrics(rows, s.tolist())
            move = np.abs(s - base)
            out["dev"][f"{treat}/{name}"] = {
                "pairwise": m["pairwise_agreement"],
                "spearman": m["mean_spearman"],
                "within_tier": m["within_tier_agreement"],
                "moved_gt_0.05": float((move > 0.05).mean()),
                "max_move": float(move.max()),
            }
            d = out["dev"][f"{treat}/{name}"]
            print(
                f"dev {treat:10s} {name:8s} pairwise {d['pairwise']:.3f} spearman {d['spearman']:.3f} "
                f"within {d['within_tier']:.3f} moved>0.05 {d['moved_gt_0.05']:.3f} max {d['max_move']:.3f}"
            )
    for kind in ("format", "flips"):
        items = load_suite(kind)
        for treat in ("as-given", "normalized"):
            s = run([(i.reference, i.hypothesis) for i in items], treat == "normalized")
            if kind == "format":
                hit = [band(x) == "T0" for x in s]
            else:
                hit = [band(x) == i.expected for x, i in zip(s, items, strict=True)]
            out["suite"][f"{kind}/{treat}"] = {"n": len(items), "in_band": float(np.mean(hit))}
            print(f"suite {kind:6s} {treat:10s} in band {np.mean(hit):.3f} (n {len(items)})")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
