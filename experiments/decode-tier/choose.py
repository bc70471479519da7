"""Choose a checkpoint's gap-head decoding on validation data (issue #28, #31).

    python experiments/decode-tier/choose.py --checkpoint DIR RECORDS.jsonl [...] \
        [--json OUT.json] [--write]

For each rule of :data:`sitar.gapscore.DECODE_RULES` (``mean``, ``median``, ``tier``), the
Spearman correlation between the checkpoint's scores and the labelled scores of each file's
``validation`` records (records in the checkpoint's own input form), and their mean over the
files. The rule with the highest mean is chosen (ties: the earlier rule in that order);
``--write`` records it as the checkpoint's ``scoring.decode``, which :class:`sitar.Scorer` uses
when no ``decode`` is given, and signs the checkpoint again.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--checkpoint", required=True)
    p.add_argument("records", nargs="+")
    p.add_argument("--json")
    p.add_argument("--write", action="store_true", help="record the choice as scoring.decode")
    args = p.parse_args(argv)

    from scipy.stats import spearmanr

    from sitar import Scorer
    from sitar.gapscore import DECODE_RULES

    files = []
    for f in args.records:
        rows = [json.loads(line) for line in Path(f).read_text(encoding="utf-8").splitlines()]
        files.append((Path(f).name, [r for r in rows if r.get("split") == "validation"]))
    out: dict[str, dict[str, float]] = {}
    signatures = {}
    for rule in DECODE_RULES:
        scorer = Scorer.load(args.checkpoint, decode=rule)
        signatures[rule] = scorer.signature
        per = {}
        for name, rows in files:
            scores = scorer.score(
                references=[r["reference"] for r in rows],
                hypotheses=[r["hypothesis"] for r in rows],
            ).scores
            per[name] = round(float(spearmanr(scores, [r["score"] for r in rows])[0]), 4)
        per["mean"] = round(sum(per.values()) / len(files), 4)
        out[rule] = per
        print(rule, per)
    best = max(DECODE_RULES, key=lambda r: (out[r]["mean"], -DECODE_RULES.index(r)))
    print(f"chosen: {best}")
    if args.json:
        doc = {
            "checkpoint": args.checkpoint,
            "files": {name: len(rows) for name, rows in files},
            "spearman": out,
            "chosen": best,
            "signatures": signatures,
        }
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    if args.write:
        spec = importlib.util.spec_from_file_location(
            "swer_choose", ROOT / "experiments/swer-params/choose.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module._record(args.checkpoint, best, key="decode")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
