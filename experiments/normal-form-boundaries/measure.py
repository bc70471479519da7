"""The public dev set in three forms, scored in normal form with and without rule 11's boundary
marks (``sitar.normalize``, normaliser version 2 against version 1's plain token join), and with
an optional ``max_bridge_tokens`` for CGD. One JSON line per run on stdout (with the scorer's signature and the versions).

    python experiments/normal-form-boundaries/measure.py CHECKPOINT --marks {1,2} [--max-bridge K]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("checkpoint")
    p.add_argument("--marks", choices=("1", "2"), required=True, help="normal form version")
    p.add_argument("--max-bridge", type=int, default=None)
    args = p.parse_args()

    import sitar.cgd as cgd
    import sitar.normalize as norm
    from benchmarks.invariance import run_suite
    from sitar import Scorer
    from training.evaluate_checkpoint import _load_devset

    if args.marks == "1":  # version 1: the tokens joined by spaces, no boundary marks
        norm.Normalized.text = property(lambda self: " ".join(self.tokens))  # type: ignore[assignment]
    if args.max_bridge is not None:
        plain = cgd.segment

        def segment(r: str, h: str, **kw: object) -> object:
            kw.setdefault("max_bridge_tokens", args.max_bridge)
            return plain(r, h, **kw)

        cgd.segment = segment  # type: ignore[assignment]
    scorer = Scorer.load(args.checkpoint, normalize="sitar")
    rows = _load_devset(ROOT / "annotation/devset/sitar_dev_v1.jsonl")
    suite = run_suite(scorer, rows)
    import importlib.metadata as md

    out = {
        "checkpoint": args.checkpoint,
        "signature": scorer.signature,
        "normal_form": args.marks,
        "max_bridge_tokens": args.max_bridge,
        "flips_in_band": suite["flips_in_band"],
        "format_t0": suite["format_t0"],
        "dev": suite["dev"],
        "versions": {
            name: md.version(name) for name in ("sitar", "onnxruntime", "whisper-normalizer")
        },
        "note": "normal_form 1 is emulated (the tokens joined by spaces); the signature's norm: "
        "field names the installed normaliser",
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
