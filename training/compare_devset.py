"""Paired comparison of two controlled-ordering reports (the dev set, or synthetic ladders).

    python -m training.compare_devset A.json B.json [--system sitar] [--ladders] [--draws 2000]

``A.json`` and ``B.json`` are reports of :mod:`training.evaluate_checkpoint` (two checkpoints, or
one checkpoint under two scoring options) on the same references. For the pairwise agreement,
the mean Spearman and the within-tier agreement it prints A, B, the difference A − B and its 95 %
percentile bootstrap interval over references (resampled with replacement, the same draw for
both: a paired bootstrap). The dev set has 15 references, so differences of a point or two can be
well inside the noise; this says how far.

Errors (a missing file, a report without per-reference results, different references) exit with
code 2 and a one-line message.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError
from training.evaluate import ORDERING_STATS, reference_bootstrap

__all__ = ["compare_reports", "main"]


def _section(report: dict[str, Any], system: str, ladders: bool, where: str) -> dict[str, Any]:
    try:
        section = report["records"]["ladders"] if ladders else report["devset"][system]
    except (KeyError, TypeError):
        what = "records.ladders" if ladders else f"devset.{system}"
        raise InputError(f"{where}: no {what} section (run training.evaluate_checkpoint)") from None
    if "per_reference" not in section:
        raise InputError(
            f"{where}: no per-reference results (made by an older training.evaluate_checkpoint; "
            "run it again)"
        )
    return section


def compare_reports(
    a: dict[str, Any],
    b: dict[str, Any],
    *,
    system: str = "sitar",
    ladders: bool = False,
    n_draws: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """A, B, A − B and the paired bootstrap interval of the difference for each statistic."""
    sa = _section(a, system, ladders, "A")
    sb = _section(b, system, ladders, "B")
    refs = list(sa["per_reference"])
    if sorted(refs) != sorted(sb["per_reference"]):
        raise InputError("the two reports are not on the same references")
    rows_a = [sa["per_reference"][r] for r in refs]
    rows_b = [sb["per_reference"][r] for r in refs]
    intervals = reference_bootstrap(rows_a, rows_b, n_draws=n_draws, seed=seed)
    return {
        "n_references": len(refs),
        "n_draws": n_draws,
        "seed": seed,
        "signatures": [a.get("signature"), b.get("signature")],
        "stats": {
            name: {
                "a": sa[name],
                "b": sb[name],
                "difference": sa[name] - sb[name],
                "ci95": list(intervals[name]),
            }
            for name in ORDERING_STATS
        },
    }


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"report not found: {path}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{path}: not a JSON report ({e})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: not a JSON report")
    return data


@tool_main("python -m training.compare_devset")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m training.compare_devset", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("a", type=Path, help="report A (training.evaluate_checkpoint -o)")
    parser.add_argument("b", type=Path, help="report B, on the same references")
    parser.add_argument("--system", default="sitar", help="dev-set system (default sitar)")
    parser.add_argument("--ladders", action="store_true", help="compare the records' ladders")
    parser.add_argument("--draws", type=int, default=2000, help="bootstrap draws (default 2000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args(argv)
    result = compare_reports(
        _load(args.a),
        _load(args.b),
        system=args.system,
        ladders=args.ladders,
        n_draws=args.draws,
        seed=args.seed,
    )
    print(f"{result['n_references']} references, paired bootstrap ({args.draws} draws)")
    print(f"{'statistic':24s} {'A':>8s} {'B':>8s} {'A - B':>8s}  95 % interval of A - B")
    for name, row in result["stats"].items():
        lo, hi = row["ci95"]
        print(
            f"{name:24s} {row['a']:8.4f} {row['b']:8.4f} {row['difference']:+8.4f}  "
            f"[{lo:+.4f}, {hi:+.4f}]"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
