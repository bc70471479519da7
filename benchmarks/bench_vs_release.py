"""Scorer throughput against an earlier release's code *and* checkpoint, side by side in one run.

    python -m benchmarks vs-release --release ac6edcc \
        --checkpoint checkpoints/sitar-minilm-gap-v5 [--variant V] [--checkpoint ... ] \
        --data records.jsonl [--task score|explain|report] [--n 1024] [--rounds 5] \
        [--threads 2] [--json out.json]

``bench_gap_scoring.py`` runs every checkpoint through *today's* ``sitar``, so an old checkpoint
there also gets today's batching and pre-processing. The question "is the scorer at least as fast as
the one we shipped before" needs the old code too: this script checks the release commit out into a
temporary git worktree (``--release-dir`` reuses one) and times its ``Scorer`` on its own default
checkpoint (``--release-checkpoint``, relative to the release tree) against the given checkpoints
scored by this tree's ``sitar``.

Every timing is one fresh Python process (so each ``sitar`` is imported from its own tree; the
report records which file was imported): load, a warm-up on 64 pairs, then one timed
``Scorer.score`` over the same ``--n`` seeded pairs. Systems take turns round by round, and the
starting system rotates each round, so a change of machine load hits all of them alike. The report
gives the median pairs/s of each system and its ratio against the release (the median of the
per-round ratios, which is robust to rounds where the whole machine was slower).

``--task explain`` and ``--task report`` time what ``sitar explain`` and ``sitar report`` run
instead (``sitar.diagnostics.explain_many`` over both systems' pairs; ``sitar.report.build_report``
with its default bootstrap), each with its default method, on two systems over ``--n // 2`` seeded
references that have two different hypotheses (as ``bench_explain_report.py`` picks them), so a
release that explains by rescoring every gap is timed as its users ran it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.harness import ROOT, write_result
from sitar._main import ArgumentParser, tool_main

# Runs in a child process of the release's tree, so it cannot import this tree's harness: it draws
# benchmarks.pairs.sample_pairs' sample itself and times the one call with time.perf_counter (the
# harness timer's clock). argv = src ckpt variant data n seed threads batch_size task pairs.
CHILD = r"""
import json, random, sys, time
src, ckpt, variant, data, n, seed, threads, batch, task, pairs = sys.argv[1:11]
import sitar  # from src: the parent runs this with PYTHONPATH=src, in src
from sitar.scorer import Scorer
kw = {} if variant == "default" else {"variant": variant}
scorer = Scorer.load(ckpt, threads=int(threads), **kw)
if task == "score":
    with open(data, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    chosen = random.Random(int(seed)).sample(records, min(int(n), len(records)))
    refs = [r["reference"] for r in chosen]
    hyps = [r["hypothesis"] for r in chosen]
    run = lambda: scorer.score(references=refs, hypotheses=hyps, batch_size=int(batch))
else:
    with open(pairs, encoding="utf-8") as f:
        spec = json.load(f)
    references, systems = spec["references"], spec["systems"]
    refs = list(references.values()) * len(systems)
    hyps = [systems[s][u] for s in systems for u in references]
    if task == "explain":
        from sitar.diagnostics import explain_many
        run = lambda: explain_many(scorer, references=refs, hypotheses=hyps, batch_size=int(batch))
    else:
        from sitar.report import build_report
        run = lambda: build_report(scorer, references=references, systems=systems,
                                   seed=int(seed), batch_size=int(batch))
scorer.score(references=refs[:64], hypotheses=hyps[:64], batch_size=int(batch))
t0 = time.perf_counter()
run()
dt = time.perf_counter() - t0
words = sum(len(r.split()) for r in refs) / len(refs)
print(json.dumps({"pairs_per_s": len(refs) / dt, "signature": scorer.signature,
                  "sitar_file": sitar.__file__, "n": len(refs), "mean_reference_words": words}))
"""


def _time_once(src: Path, ckpt: str, variant: str, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, "-c", CHILD, str(src), ckpt, variant, args.data, str(args.n)]
    cmd += [str(args.seed), str(args.threads), str(args.batch_size), args.task, args.pairs or ""]
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(src))
    if out.returncode != 0:
        raise SystemExit(f"timing {ckpt} with {src} failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    if not Path(result["sitar_file"]).resolve().is_relative_to(src.resolve()):
        raise SystemExit(f"{src}: the child imported sitar from {result['sitar_file']}")
    return result


def _worktree(release: str, where: str | None) -> tuple[Path, bool]:
    if where and Path(where, "sitar").is_dir():
        return Path(where), False
    path = Path(where or tempfile.mkdtemp(prefix="sitar-release-"))
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(path), release],
        check=True,
        capture_output=True,
    )
    return path, True


@tool_main("python -m benchmarks vs-release")
def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(prog="python -m benchmarks vs-release", description=__doc__.split("\n\n")[0])
    p.add_argument("--release", required=True, help="git commit of the release to compare with")
    p.add_argument("--release-dir", help="an existing checkout of --release (else a temp worktree)")
    p.add_argument(
        "--release-checkpoint",
        default="checkpoints/sitar-minilm-synth-v2",
        help="the release's checkpoint, relative to its tree (default: %(default)s)",
    )
    p.add_argument("--checkpoint", action="append", required=True, help="checkpoint (repeatable)")
    p.add_argument(
        "--variant", action="append", help="ONNX variant, once per --checkpoint ('default')"
    )
    p.add_argument("--data", required=True, help="record file (JSONL) to sample pairs from")
    p.add_argument(
        "--task",
        choices=("score", "explain", "report"),
        default="score",
        help="what to time: Scorer.score on --n records, or explain_many / build_report (the "
        "CLI's explain and report, default method) on two systems of --n // 2 references",
    )
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--json", help="write the report here")
    args = p.parse_args(argv)
    variants = args.variant or ["default"] * len(args.checkpoint)
    if len(variants) != len(args.checkpoint):
        p.error("give --variant once per --checkpoint (or not at all)")
    args.data = str(Path(args.data).resolve())
    args.pairs = None
    if args.task != "score":
        from benchmarks.pairs import two_systems

        refs, two = two_systems(args.data, max(1, args.n // 2), args.seed)
        fd, args.pairs = tempfile.mkstemp(prefix="sitar-bench-pairs-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"references": refs, "systems": two}, fh)

    tree, made = _worktree(args.release, args.release_dir)
    try:
        systems = [("release", tree, args.release_checkpoint, "default")]
        for ckpt, variant in zip(args.checkpoint, variants, strict=True):
            name = ckpt if variant == "default" else f"{ckpt} ({variant})"
            systems.append((name, ROOT, str(Path(ckpt).resolve()), variant))
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name, *_ in systems}
        for r in range(args.rounds):
            order = systems[r % len(systems) :] + systems[: r % len(systems)]
            for name, src, ckpt, variant in order:
                runs[name].append(_time_once(src, ckpt, variant, args))
                rate = runs[name][-1]["pairs_per_s"]
                print(f"round {r + 1}: {args.task} {name}: {rate:.1f} pairs/s")
    finally:
        if args.pairs:
            Path(args.pairs).unlink(missing_ok=True)
        if made:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                capture_output=True,
            )
    base = [x["pairs_per_s"] for x in runs["release"]]
    report: dict[str, Any] = {
        "task": args.task,
        "release": args.release,
        "n": runs["release"][0]["n"],
        "mean_reference_words": runs["release"][0]["mean_reference_words"],
        "threads": args.threads,
        "batch_size": args.batch_size,
        "systems": {},
    }
    for name, _src, _ckpt, _variant in systems:
        rates = [x["pairs_per_s"] for x in runs[name]]
        report["systems"][name] = {
            "signature": runs[name][0]["signature"],
            "pairs_per_s": rates,
            "median_pairs_per_s": statistics.median(rates),
            "ratio_vs_release": statistics.median(a / b for a, b in zip(rates, base, strict=True)),
        }
    print(f"{report['n']} pairs, mean {report['mean_reference_words']:.1f} reference words")
    for name, s in report["systems"].items():
        print(
            f"{name}: median {s['median_pairs_per_s']:.1f} pairs/s, "
            f"{s['ratio_vs_release']:.2f}x the release ({args.release})"
        )
    write_result(args.json, "vs-release", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
