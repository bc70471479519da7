"""Cost of ``explain`` and ``report`` against plain scoring and ``compare``, in one run.

    python -m benchmarks explain-report --data records.jsonl [--checkpoint CKPT ...] \
        [--n-references 512] [--threads 2] [--repeats 3] [--json out.json]

Two systems over the same references: the first two hypotheses of each of ``--n-references``
references (a seeded sample) of a JSONL file with ``reference`` and ``hypothesis`` fields (a
record file such as the ``sitar-synth`` test split, the public dev set, an ASR ``pairs.jsonl``). For
every checkpoint (default: the packaged one; repeat ``--checkpoint`` to add peers, such as an older
pair-head checkpoint) and every explain method it supports (``gaps``, the same-pass gap head, on a
gap-aware checkpoint; ``rescore``, one extra model input per gap, on every checkpoint), it times
what the CLI commands run:

* ``score``: :meth:`Scorer.score` over both systems' pairs;
* ``compare``: :func:`sitar.comparison.compare` (scores, paired bootstrap, WER);
* ``explain``: :func:`sitar.diagnostics.explain_many` over both systems' pairs;
* ``report``: :func:`sitar.report.build_report` (explain, compare, plots, HTML).

Wall time and process CPU time (ONNX Runtime's threads included) are the medians of ``--repeats``
passes; every pass visits all (checkpoint, method) cells in turn, so a change of machine load hits
them alike. Reported: explain / score and report / compare (CPU), model inputs per pair, and the
speed-up of each method over ``rescore`` on the same checkpoint and over the last checkpoint's
``rescore`` (the way the first-wave pair-head checkpoint explained).
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from typing import Any

from benchmarks.harness import timed, write_result
from benchmarks.pairs import two_systems
from sitar._main import ArgumentParser, tool_main


@tool_main("python -m benchmarks explain-report")
def main(argv: list[str] | None = None) -> int:
    from sitar.comparison import compare
    from sitar.diagnostics import explain_many
    from sitar.report import build_report
    from sitar.scorer import Scorer

    p = ArgumentParser(
        prog="python -m benchmarks explain-report", description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "--checkpoint", action="append", help="checkpoint (repeatable; default packaged)"
    )
    p.add_argument(
        "--data", required=True, help="JSONL with reference and hypothesis fields (records, ...)"
    )
    p.add_argument("--n-references", type=int, default=512)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--json", help="write the results here")
    args = p.parse_args(argv)

    refs, systems = two_systems(args.data, args.n_references, args.seed)
    ref_list = list(refs.values()) * 2
    hyp_list = [systems[s][u] for s in systems for u in refs]
    n_pairs = len(hyp_list)
    scorers = {}
    for ckpt in args.checkpoint or [None]:
        scorer = Scorer.load(ckpt, threads=args.threads)
        scorer.score(references=ref_list[:64], hypotheses=hyp_list[:64])  # warm-up
        scorers[str(ckpt) if ckpt else scorer.config.name] = scorer

    def cells(name: str, scorer: Scorer) -> dict[str, Any]:
        out: dict[str, Any] = {
            "score": lambda: scorer.score(
                references=ref_list, hypotheses=hyp_list, batch_size=args.batch_size
            ),
            "compare": lambda: compare(
                scorer,
                references=refs,
                systems=systems,
                n_bootstrap=args.bootstrap,
                seed=args.seed,
                batch_size=args.batch_size,
            ),
        }
        methods = ["gaps", "rescore"] if scorer.head == "gaps" else ["rescore"]
        for m in methods:
            out[f"explain:{m}"] = lambda m=m: explain_many(
                scorer,
                references=ref_list,
                hypotheses=hyp_list,
                method=m,
                batch_size=args.batch_size,
            )
            out[f"report:{m}"] = lambda m=m: build_report(
                scorer,
                references=refs,
                systems=systems,
                n_bootstrap=args.bootstrap,
                seed=args.seed,
                batch_size=args.batch_size,
                method=m,
            )
        return out

    plan = {name: cells(name, scorer) for name, scorer in scorers.items()}
    wall: dict[tuple[str, str], list[float]] = defaultdict(list)
    cpu: dict[tuple[str, str], list[float]] = defaultdict(list)
    inputs: dict[tuple[str, str], float] = {}
    for rep in range(args.repeats):
        for name, jobs in plan.items():
            for cell, fn in jobs.items():
                t = timed(fn)
                w, c, out = t.wall, t.cpu, t.value
                wall[name, cell].append(w)
                cpu[name, cell].append(c)
                if cell.startswith("explain:"):
                    inputs[name, cell] = sum(e.n_model_inputs for e in out) / n_pairs
                print(
                    f"pass {rep + 1}: {name} {cell}: {w:.2f} s wall, {c:.2f} s CPU",
                    file=sys.stderr,
                    flush=True,
                )

    med_w = {k: statistics.median(v) for k, v in wall.items()}
    med_c = {k: statistics.median(v) for k, v in cpu.items()}
    last = list(plan)[-1]
    results: dict[str, Any] = {}
    print(
        f"\n{len(refs)} references x 2 systems = {n_pairs} pairs, {args.threads} threads, "
        f"median of {args.repeats} passes"
    )
    print(
        "| checkpoint | method | explain inputs/pair | explain / score (CPU) | "
        "report / compare (CPU) | explain speed-up vs rescore | vs last ckpt rescore |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, jobs in plan.items():
        row: dict[str, Any] = {
            "signature": scorers[name].signature,
            "score_wall_s": med_w[name, "score"],
            "score_cpu_s": med_c[name, "score"],
            "compare_wall_s": med_w[name, "compare"],
            "compare_cpu_s": med_c[name, "compare"],
            "methods": {},
        }
        for m in ("gaps", "rescore"):
            if f"explain:{m}" not in jobs:
                continue
            e, r = (name, f"explain:{m}"), (name, f"report:{m}")
            cell = {
                "explain_wall_s": med_w[e],
                "explain_cpu_s": med_c[e],
                "report_wall_s": med_w[r],
                "report_cpu_s": med_c[r],
                "explain_inputs_per_pair": inputs[e],
                "explain_over_score_cpu": med_c[e] / med_c[name, "score"],
                "report_over_compare_cpu": med_c[r] / med_c[name, "compare"],
                "explain_speedup_vs_rescore": med_c[name, "explain:rescore"] / med_c[e],
                "report_speedup_vs_rescore": med_c[name, "report:rescore"] / med_c[r],
                "explain_speedup_vs_last_rescore": med_c[last, "explain:rescore"] / med_c[e],
                "report_speedup_vs_last_rescore": med_c[last, "report:rescore"] / med_c[r],
            }
            row["methods"][m] = cell
            print(
                f"| {name} | {m} | {cell['explain_inputs_per_pair']:.2f} | "
                f"{cell['explain_over_score_cpu']:.2f} | {cell['report_over_compare_cpu']:.2f} | "
                f"explain {cell['explain_speedup_vs_rescore']:.2f}x, report "
                f"{cell['report_speedup_vs_rescore']:.2f}x | explain "
                f"{cell['explain_speedup_vs_last_rescore']:.2f}x, report "
                f"{cell['report_speedup_vs_last_rescore']:.2f}x |"
            )
        results[name] = row
    numbers = {
        "n_references": len(refs),
        "n_pairs": n_pairs,
        "threads": args.threads,
        "repeats": args.repeats,
        "data": args.data,
        "checkpoints": results,
    }
    write_result(args.json, "explain-report", numbers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
