"""Ray scoring overhead: N pairs through `sitar.integrations.ray` with K actors vs Scorer.score.

    python -m benchmarks ray [--n 100000] [--num-actors 2] [--rounds 5] \
        [--checkpoint CKPT] [--rows-per-batch 1024] [--json out.json]

Both paths score the same synthetic pairs in the same run, with the same CPU budget: the offline
peer is ``Scorer.score`` in this process with ``--num-actors`` ONNX Runtime threads, the Ray path
is a local Ray instance with ``--num-actors`` CPUs and one single-threaded actor per CPU.

The pairs are cut into ``--rounds`` equal chunks and the two paths take turns, chunk by chunk
(offline, then Ray, then the next chunk), so a change in the machine's load during a long run
falls on both paths alike; wall times are summed over the rounds. Ray's time includes building
the dataset and starting the actors (one model load per actor) in every round, but not
``ray.init``, so more rounds charge Ray more start-up. Reported: pairs/s of each, the overhead
ratio (Ray wall time / offline wall time), the ratio in each round, lost rows, and the largest
score difference between the two paths, matched by id (0 once the model is batch invariant).
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.harness import timed, write_result
from benchmarks.pairs import synthetic_pairs
from sitar._main import ArgumentParser, tool_main


def _score_on_ray(
    args: argparse.Namespace, ids: list[str], refs: list[str], hyps: list[str], got: dict
) -> None:
    """One round of the Ray path: build the dataset, score it with the actors, collect the scores
    into ``got`` (``id -> score``)."""
    from sitar.integrations.ray import dataset_from_pairs, score_dataset

    ds = dataset_from_pairs(ids, refs, hyps)
    scored = score_dataset(
        ds,
        checkpoint=args.checkpoint,
        variant=args.variant,
        num_actors=args.num_actors,
        batch_size=args.batch_size,
        rows_per_batch=args.rows_per_batch,
    )
    for batch in scored.dataset.select_columns(["id", "score"]).iter_batches(
        batch_format="numpy", batch_size=65536
    ):
        got.update(zip(batch["id"].tolist(), batch["score"].tolist(), strict=True))


@tool_main("python -m benchmarks ray")
def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(prog="python -m benchmarks ray", description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000, help="pairs (default 100000)")
    p.add_argument("--num-actors", type=int, default=2)
    p.add_argument("--checkpoint", default=None, help="default: the packaged checkpoint")
    p.add_argument("--variant", default=None, choices=("int8", "fp32"))
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--rows-per-batch", type=int, default=1024)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--rounds", type=int, default=5, help="chunks the two paths take turns on (default 5)"
    )
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)

    import ray

    from sitar.scorer import Scorer

    ids, refs, hyps = synthetic_pairs(args.n, seed=args.seed)

    if args.rounds < 1 or args.rounds > args.n:
        p.error("--rounds must be between 1 and --n")
    scorer = Scorer.load(args.checkpoint, variant=args.variant, threads=args.num_actors)
    scorer.score(references=refs[:64], hypotheses=hyps[:64])  # warm-up
    signature = scorer.signature

    ray.init(num_cpus=args.num_actors, include_dashboard=False, log_to_driver=False)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    bounds = [round(k * args.n / args.rounds) for k in range(args.rounds + 1)]
    offline: dict[str, float] = {}
    got: dict[str, float] = {}
    offline_s = ray_s = 0.0
    rounds = []
    try:
        for k in range(args.rounds):
            lo, hi = bounds[k], bounds[k + 1]
            t = timed(
                scorer.score,
                references=refs[lo:hi],
                hypotheses=hyps[lo:hi],
                batch_size=args.batch_size,
            )
            off_k = t.wall
            offline.update(zip(ids[lo:hi], t.value.scores, strict=True))
            ray_k = timed(_score_on_ray, args, ids[lo:hi], refs[lo:hi], hyps[lo:hi], got).wall
            offline_s += off_k
            ray_s += ray_k
            rounds.append({"pairs": hi - lo, "offline_s": off_k, "ray_s": ray_k})
            print(
                f"round {k + 1}/{args.rounds}: {hi - lo} pairs, offline {off_k:.1f} s, "
                f"Ray {ray_k:.1f} s, ratio {ray_k / off_k:.2f}",
                file=sys.stderr,
                flush=True,
            )
    finally:
        ray.shutdown()
    lost = args.n - len(got)
    diff = max((abs(got[i] - offline[i]) for i in ids if i in got), default=float("nan"))
    out = {
        "n": args.n,
        "num_actors": args.num_actors,
        "rounds": args.rounds,
        "signature": signature,
        "offline_pairs_per_s": args.n / offline_s,
        "ray_pairs_per_s": args.n / ray_s,
        "overhead_ratio": ray_s / offline_s,
        "lost": lost,
        "max_abs_diff": diff,
        "ray_version": ray.__version__,
        "per_round": rounds,
    }
    print(f"\nsignature: {out['signature']}")
    print("| pairs | path | wall s | pairs/s | ratio |")
    print("|---|---|---|---|---|")
    print(f"| {args.n} | Scorer.score, {args.num_actors} threads | {offline_s:.1f} | "
          f"{out['offline_pairs_per_s']:.1f} | 1.00 |")  # fmt: skip
    print(f"| {args.n} | Ray, {args.num_actors} actors x 1 thread | {ray_s:.1f} | "
          f"{out['ray_pairs_per_s']:.1f} | {out['overhead_ratio']:.2f} |")  # fmt: skip
    print(f"lost rows: {lost}; max |score diff| Ray vs offline: {diff:.2e}")
    write_result(args.json, "ray", out)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
