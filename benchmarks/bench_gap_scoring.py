"""Scorer throughput and batch invariance, side by side in one run (spec §7b (docs/spec.md), issue: gap-aware
scoring).

    python -m benchmarks gap-scoring --checkpoint CKPT [--checkpoint PEER ...] \
        [--variant V ...] --data records.jsonl [--n 1024] [--threads 2] [--batch-size 32] \
        [--json out.json]

Every checkpoint scores the same ``--n`` pairs (a seeded sample of a record file; realistic ASR
utterances) through :class:`sitar.scorer.Scorer` end to end: identical-pair check, CGD and gap
marking (for gap-aware checkpoints), tokenization, ONNX Runtime, aggregation. Reports pairs/s
(median of ``--repeats`` timed passes after a warm-up; the checkpoints take turns pass by pass, so
load changes on a shared machine hit all of them), the ratio against the last checkpoint, and
``explain`` cost (model inputs and time for ``--n-explain`` pairs).

Batch invariance: the same pairs are scored at batch sizes 1, 8, 32 and 128 and in a shuffled
order; the report gives the largest absolute difference of any pair's raw score from the
batch-size-1 run (spec §7b requires <= 1e-6).
"""

from __future__ import annotations

import json
import random
import statistics
import sys
from typing import Any

import numpy as np

from benchmarks.harness import timed, write_result
from benchmarks.pairs import sample_pairs
from sitar._main import ArgumentParser, tool_main


def invariance(scorer: Any, refs: list[str], hyps: list[str], seed: int) -> dict[str, float]:
    base = np.array(scorer.score(references=refs, hypotheses=hyps, batch_size=1).raw)
    out: dict[str, float] = {}
    for bs in (8, 32, 128):
        got = np.array(scorer.score(references=refs, hypotheses=hyps, batch_size=bs).raw)
        out[f"batch_{bs}"] = float(np.max(np.abs(got - base)))
    order = list(range(len(refs)))
    random.Random(seed).shuffle(order)
    got = np.array(
        scorer.score(
            references=[refs[i] for i in order], hypotheses=[hyps[i] for i in order], batch_size=32
        ).raw
    )
    out["shuffled"] = float(np.max(np.abs(got - base[order])))
    out["max"] = max(out.values())
    return out


def _explain_each(scorer: Any, refs: list[str], hyps: list[str]) -> list[Any]:
    return [scorer.explain(r, h) for r, h in zip(refs, hyps, strict=True)]


@tool_main("python -m benchmarks gap-scoring")
def main(argv: list[str] | None = None) -> int:
    from sitar.scorer import Scorer

    p = ArgumentParser(
        prog="python -m benchmarks gap-scoring", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--checkpoint", action="append", required=True, help="checkpoint (repeatable)")
    p.add_argument(
        "--variant",
        action="append",
        help="ONNX variant: once for every checkpoint, or once per --checkpoint in order "
        "('default': that checkpoint's own default, also what no --variant gives)",
    )
    p.add_argument("--data", required=True, help="record file (JSONL) to sample pairs from")
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--n-invariance", type=int, default=1000)
    p.add_argument("--n-explain", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--skip-invariance", action="store_true")
    p.add_argument("--json", help="write the report here")
    args = p.parse_args(argv)

    variants = args.variant or [None]
    if len(variants) == 1:
        variants = variants * len(args.checkpoint)
    if len(variants) != len(args.checkpoint):
        p.error("give --variant once, or once per --checkpoint")
    variants = [None if v in (None, "default") else v for v in variants]
    refs, hyps = sample_pairs(args.data, args.n, args.seed)
    words = statistics.mean(len(r.split()) for r in refs)
    report: dict[str, Any] = {"n": len(refs), "mean_reference_words": words, "systems": {}}
    scorers = {}
    for ckpt, variant in zip(args.checkpoint, variants, strict=True):
        key = ckpt if variant is None else f"{ckpt} ({variant})"
        scorers[key] = Scorer.load(ckpt, variant=variant, threads=args.threads)
        scorers[key].score(references=refs[:64], hypotheses=hyps[:64])  # warm-up
    # Timed passes take turns (round robin), so a change of machine load mid-run hits every
    # checkpoint alike and the ratios stay meaningful on a shared machine.
    times: dict[str, list[float]] = {key: [] for key in scorers}
    for _ in range(args.repeats):
        for ckpt, scorer in scorers.items():
            t = timed(scorer.score, references=refs, hypotheses=hyps, batch_size=args.batch_size)
            times[ckpt].append(t.wall)
    for ckpt, scorer in scorers.items():
        t = statistics.median(times[ckpt])
        k = args.n_explain
        timing = timed(_explain_each, scorer, refs[:k], hyps[:k])
        exps, t_explain = timing.value, timing.wall
        entry: dict[str, Any] = {
            "signature": scorer.signature,
            "pairs_per_s": len(refs) / t,
            "explain_pairs_per_s": k / t_explain,
            "explain_model_inputs_per_pair": float(np.mean([e.n_model_inputs for e in exps])),
        }
        if not args.skip_invariance:
            m = args.n_invariance
            entry["invariance_max_abs_diff"] = invariance(scorer, refs[:m], hyps[:m], args.seed)
        report["systems"][str(ckpt)] = entry
        print(json.dumps({str(ckpt): entry}, indent=2), flush=True)
    names = list(report["systems"])
    peer = report["systems"][names[-1]]["pairs_per_s"] if len(names) > 1 else None
    for name in names:
        sysrep = report["systems"][name]
        if peer:
            sysrep["speed_vs_last"] = sysrep["pairs_per_s"] / peer
    print(f"{len(refs)} pairs, mean {words:.1f} reference words, {args.threads} threads")
    for name in names:
        s = report["systems"][name]
        inv = s.get("invariance_max_abs_diff", {}).get("max", float("nan"))
        ratio = f"{s['speed_vs_last']:.2f}x" if "speed_vs_last" in s else "-"
        print(
            f"{name}: {s['pairs_per_s']:.1f} pairs/s ({ratio} the last), explain "
            f"{s['explain_pairs_per_s']:.1f} pairs/s with {s['explain_model_inputs_per_pair']:.2f} "
            f"model inputs/pair, batch invariance max |d| {inv:.3g}"
        )
    write_result(args.json, "gap-scoring", report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
