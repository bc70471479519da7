"""Every figure the v11 ship rule names, for one checkpoint, in one run (the measurements only;
the rule is applied in results.json by the ledger).

    python experiments/v11-wave3/evaluate.py --checkpoint DIR --records-dir DIR --out OUT.json

``--records-dir`` holds the recognizer and synthetic held-out record files in the form the
checkpoint is scored in (``asr_test.jsonl``, ``asr_validation.jsonl``; for v5 the files as
written, for a ``normalize: sitar`` candidate the ``python -m training.normal_form`` output).
Scoring uses the checkpoint's defaults (int8row, tie-breaker 3, its training form). The severity
benchmark (with the public A/B set) and the speed benchmark run as their own commands
(``python -m benchmarks severity|speed --checkpoint DIR``), as the README of this entry lists.
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "inference")]


def paper_example(scorer: object) -> dict[str, int]:
    """Ordered pairs of the paper's worked example (of 55) as written, both sides in recognizer
    form, and a written reference against recognizer-form variants."""
    import test_paper_example as ex

    from benchmarks.invariance import strip

    names = list(ex.PROFILES)
    hyps = [ex.variant(ex.PROFILES[p]) for p in names]
    forms = {
        "written": ([ex.REFERENCE] * 11, hyps),
        "stripped": ([strip(ex.REFERENCE)] * 11, [strip(h) for h in hyps]),
        "mixed": ([ex.REFERENCE] * 11, [strip(h) for h in hyps]),
    }
    out = {}
    for form, (refs, hs) in forms.items():
        s = scorer.score(references=refs, hypotheses=hs).scores  # type: ignore[attr-defined]
        out[form] = sum(1 for i, j in itertools.combinations(range(11), 2) if s[i] < s[j])
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--records-dir", required=True, type=Path)
    p.add_argument("--out", required=True, type=Path)
    args = p.parse_args()

    from benchmarks.invariance import run_suite
    from sitar import Scorer
    from training.evaluate_checkpoint import _load_devset

    scorer = Scorer.load(args.checkpoint)
    rows = _load_devset(ROOT / "annotation/devset/sitar_dev_v1.jsonl")
    result: dict[str, object] = {
        "checkpoint": args.checkpoint,
        "signature": scorer.signature,
        "normalize_default": scorer.normalize,
        "paper_example": paper_example(scorer),
        "invariance": run_suite(scorer, rows),
    }
    tmp = args.out.with_suffix(".parts")
    tmp.mkdir(parents=True, exist_ok=True)
    py = sys.executable
    runs = {
        "recognizer_test": [py, "-m", "training.evaluate_checkpoint", "--checkpoint",
                            args.checkpoint, "--records", str(args.records_dir / "asr_test.jsonl"),
                            "--by-selection", "-o", str(tmp / "recognizer_test.json")],
        "recognizer_validation": [py, "-m", "training.evaluate_checkpoint", "--checkpoint",
                                  args.checkpoint, "--no-devset", "--records",
                                  str(args.records_dir / "asr_validation.jsonl"),
                                  "-o", str(tmp / "recognizer_validation.json")],
        "challenge": [py, "-m", "annotation.challenge.evaluate", "--checkpoint", args.checkpoint,
                      "--json", str(tmp / "challenge.json")],
        "scope_challenge": [py, "-m", "annotation.challenge.evaluate", "--checkpoint",
                            args.checkpoint, "--file",
                            "annotation/challenge/sitar_challenge_scope_v2.jsonl",
                            "--json", str(tmp / "scope_challenge.json")],
    }  # fmt: skip
    for name, cmd in runs.items():
        print("+", " ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True, cwd=ROOT)
        part = tmp / (name + ".json")
        result[name] = json.loads(part.read_text(encoding="utf-8"))
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("paper_example",)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
