"""Normal form version 4 against version 3: which public pairs it changes, and what the same
weights score on the constructed sets when they read version 4 instead of version 3.

    python experiments/normal-form-4/measure.py --checkpoint NF3_DIR --checkpoint NF4_DIR \
        --out experiments/normal-form-4/results.json

Part 1 (no model): for the challenge files, the public dev set, the invariance suite and the
paper's worked example, the pairs whose version-4 texts differ from their version-3 texts, and
those whose gaps vanish. Part 2 (per checkpoint): the worked example, the invariance suite and
the two challenge files, scored with the checkpoint's defaults (its ``scoring.normal_form``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "inference")]

CHALLENGES = {
    "challenge": "annotation/challenge/sitar_challenge_v1.jsonl",
    "scope_challenge": "annotation/challenge/sitar_challenge_scope_v1.jsonl",
}


def _pairs() -> dict[str, list[tuple[str, str, str]]]:
    """(id, reference, hypothesis) of every public constructed pair, by set."""
    import test_paper_example as ex

    from benchmarks.invariance import load_suite, strip
    from training.evaluate_checkpoint import _load_devset

    out: dict[str, list[tuple[str, str, str]]] = {}
    for name, path in CHALLENGES.items():
        with open(ROOT / path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        out[name] = [(r["id"], r["reference"], r["hypothesis"]) for r in rows]
    dev = _load_devset(ROOT / "annotation/devset/sitar_dev_v1.jsonl")
    out["dev"] = [(str(i), r["reference"], r["hypothesis"]) for i, r in enumerate(dev)]
    out["dev_stripped"] = [(i, strip(a), strip(b)) for i, a, b in out["dev"]]
    for suite in ("format", "flips"):
        out[suite] = [(i.id, i.reference, i.hypothesis) for i in load_suite(suite)]
    out["paper_example"] = [(p, ex.REFERENCE, ex.variant(ex.PROFILES[p])) for p in ex.PROFILES]
    return out


def text_changes() -> dict[str, object]:
    from sitar import segment
    from sitar.normalize import normalize_pair

    result: dict[str, object] = {}
    for name, pairs in _pairs().items():
        changed, vanished, examples = 0, [], []
        for pid, ref, hyp in pairs:
            v3 = normalize_pair(ref, hyp, version="3").texts
            v4 = normalize_pair(ref, hyp, version="4").texts
            if v3 == v4:
                continue
            changed += 1
            if len(examples) < 12:
                examples.append({"id": pid, "v3": list(v3), "v4": list(v4)})
            if segment(*v3).gaps and not segment(*v4).gaps:
                vanished.append(pid)
        result[name] = {
            "pairs": len(pairs),
            "changed": changed,
            "gaps_vanish": vanished,
            "examples": examples,
        }
    return result


def scored(checkpoint: str) -> dict[str, object]:
    from benchmarks.invariance import run_suite
    from sitar import Scorer
    from training.evaluate_checkpoint import _load_devset

    spec = importlib.util.spec_from_file_location(
        "v11_evaluate", ROOT / "experiments/v11-wave3/evaluate.py"
    )
    assert spec is not None and spec.loader is not None
    v11 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(v11)
    scorer = Scorer.load(checkpoint)
    rows = _load_devset(ROOT / "annotation/devset/sitar_dev_v1.jsonl")
    out: dict[str, object] = {
        "signature": scorer.signature,
        "paper_example": v11.paper_example(scorer),
        "invariance": run_suite(scorer, rows),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in CHALLENGES.items():
            part = Path(tmp) / f"{name}.json"
            cmd = [sys.executable, "-m", "annotation.challenge.evaluate", "--checkpoint",
                   checkpoint, "--file", path, "--json", str(part)]  # fmt: skip
            subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
            out[name] = json.loads(part.read_text(encoding="utf-8"))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", action="append", default=[], help="repeat for each")
    p.add_argument("--out", required=True, type=Path)
    args = p.parse_args()
    from sitar.normalize import normalizer_id

    doc: dict[str, object] = {
        "normalizers": [normalizer_id("3"), normalizer_id("4")],
        "text_changes": text_changes(),
        "checkpoints": {c: scored(c) for c in args.checkpoint},
    }
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    changes = doc["text_changes"]
    assert isinstance(changes, dict)
    for name, row in changes.items():
        print(f"{name}: {row['changed']} of {row['pairs']} changed, "
              f"{len(row['gaps_vanish'])} lose every gap")  # fmt: skip
    for c, row in doc["checkpoints"].items():  # type: ignore[union-attr]
        inv = row["invariance"]
        print(c, "paper", row["paper_example"], "challenge",
              _in_band(row["challenge"]), "scope", _in_band(row["scope_challenge"]),
              "flips", inv.get("flips_in_band"), "format", inv.get("format_t0"))  # fmt: skip
    return 0


def _in_band(result: dict[str, object]) -> float:
    items = result["items"]
    assert isinstance(items, list)
    return round(100 * sum(1 for i in items if i["in_band"]) / len(items), 1)


if __name__ == "__main__":
    raise SystemExit(main())
