"""``python -m benchmarks NAME [args]``: run one benchmark; ``python -m benchmarks`` lists them.

Every benchmark is a module of this package with ``main(argv) -> int``; ``NAME --help`` shows its
options. Results written with ``--json`` (``--out`` for ``report``) share one schema
(:func:`benchmarks.harness.result`) with provenance.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from sitar._main import tool_main

#: NAME -> (module, what it measures), in the order of benchmarks/README.md.
BENCHMARKS: dict[str, tuple[str, str]] = {
    "cgd": ("bench_cgd", "CGD segmentation speed and memory vs jiwer and the v1 implementation"),
    "inference": ("bench_inference", "one checkpoint: torch fp32 vs ONNX fp32 vs ONNX int8"),
    "gap-scoring": ("bench_gap_scoring", "Scorer throughput and batch invariance per checkpoint"),
    "vs-release": ("bench_vs_release", "Scorer vs an earlier release's code and checkpoint"),
    "vs-large": ("bench_vs_large", "a checkpoint vs a DeBERTa-v3-large-shaped cross-encoder"),
    "encoder-size": ("bench_encoder_size", "a checkpoint vs its design on a larger encoder"),
    "explain-report": ("bench_explain_report", "cost of explain and report vs score and compare"),
    "report": ("bench_report", "sitar report at 10,000 utterances (build, size, browser)"),
    "serve": ("bench_serve", "load test of sitar serve vs offline scoring"),
    "ray": ("bench_ray", "Ray scoring overhead vs Scorer.score"),
    "speed": ("bench_speed", "shipped default vs the BERTScore-style baseline; normaliser share"),
    "severity": (
        "severity.run",
        "real recognizer output: each metric against blind readers' severity (AUC, Spearman, A/B)",
    ),
    "severity-labels": ("severity.labels", "the severity benchmark's reader sheets -> labels"),
    "normalizer-choice": ("normalizer_choice", "normaliser candidates on the invariance suite"),
}


def _usage() -> str:
    width = max(map(len, BENCHMARKS))
    lines = ["usage: python -m benchmarks NAME [args]   (NAME --help for its options)", ""]
    lines += [f"  {name:<{width}}  {what}" for name, (_, what) in BENCHMARKS.items()]
    return "\n".join(lines)


@tool_main("python -m benchmarks")
def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "list"):
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in BENCHMARKS:
        print(f"python -m benchmarks: unknown benchmark {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"benchmarks.{BENCHMARKS[name][0]}")
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
