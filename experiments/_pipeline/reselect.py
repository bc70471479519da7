"""The step a finished run would select with one of its validation files replaced.

A run records its validation metric per evaluation step (``metrics.jsonl``) on the validation
files of its config. This script scores every kept step (``evals/step-N/``, written with
``keep_eval_weights: true``) on the same validation files with one of them swapped for another,
with the training loop's own functions (``predict_split``, ``gap_metrics``), and reports which
step the same rule (highest gap-head Spearman, the first on a tie) would pick then. Used for the
synthetic validation file with its read tiers in place of its planned ones
(``annotation/synth/reread/validation/``; ``../v27-families6/preregistration.md``)::

    python experiments/_pipeline/reselect.py /work/runs/v25 \\
        --replace /work/data/v16/nf_eval/synth_validation_1k.jsonl=/work/data/v25/synth_validation_read.jsonl \\
        --json experiments/v25-read-all/eval/reselect_v25.json

It first re-scores the run's own files at its selected step and refuses to go on unless that
reproduces the Spearman the run logged (so the swap is the only difference).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sitar._main import ArgumentParser, tool_main  # noqa: E402
from sitar.errors import InputError  # noqa: E402


def logged_by_step(run: Path) -> dict[int, float]:
    """Step -> the validation gap-head Spearman a run logged (``metrics.jsonl``'s eval lines)."""
    out: dict[int, float] = {}
    for line in (run / "metrics.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line).get("eval", {})  # {"train": ...} and {"eval": ...} lines
        if "gaps_spearman" in row and "step" in row:
            out[int(row["step"])] = float(row["gaps_spearman"])
    return out


def select_step(by_step: dict[int, float]) -> int:
    """The candidate pipeline's step rule: the highest value, the first step on a tie."""
    return max(sorted(by_step), key=lambda s: by_step[s])


def _scorer(run: Path, files: list[str]):
    """A function step -> validation metrics on ``files`` for this run's kept weights."""
    from accelerate import Accelerator

    from sitar.modeling import load_regressor, load_tokenizer
    from sitar.modeling.model import find_pad_id
    from training.config import CONFIG_FILE, load_config
    from training.data import encode_validation, load_splits
    from training.export import _eval_weights, _load_step_weights
    from training.predict import gap_metrics, predict_split

    config = load_config(run / CONFIG_FILE)
    tokenizer = load_tokenizer(run / "tokenizer.json")
    splits = load_splits(files, drop_ops=config.drop_ops)
    if config.eval_split not in splits:
        raise InputError(f"no {config.eval_split!r} records in {files}")
    data = encode_validation(splits[config.eval_split], tokenizer, config)
    accelerator = Accelerator(cpu=True)
    model = load_regressor(run / "best")
    pad_id = find_pad_id(tokenizer)

    def score(step: int) -> dict[str, float]:
        m = _load_step_weights(model, _eval_weights(run, step))
        logits: dict[int, np.ndarray] = {}
        preds, _ = predict_split(
            m,
            data,
            batch_size=config.eval_batch_size,
            pad_id=pad_id,
            accelerator=accelerator,
            gap_logits_out=logits,
        )
        metrics = gap_metrics(data, preds, logits, config.rho)
        return {"n": len(data), **{k: float(v) for k, v in metrics.items()}}

    return score


@tool_main("python experiments/_pipeline/reselect.py")
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="reselect.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument(
        "--replace",
        required=True,
        metavar="OLD=NEW",
        help="a validation file of the run's config and the file to use instead",
    )
    ap.add_argument("--json", type=Path, help="write the report here")
    args = ap.parse_args(argv)
    old, sep, new = args.replace.partition("=")
    if not sep or not Path(new).is_file():
        raise InputError(f"--replace wants OLD=NEW with NEW an existing file, got {args.replace!r}")
    from training.config import CONFIG_FILE, load_config

    if not (args.run / CONFIG_FILE).is_file():
        raise InputError(f"{args.run} is not a training run ({CONFIG_FILE} is missing)")
    files = list(load_config(args.run / CONFIG_FILE).data)
    if old not in files:
        raise InputError(f"{old} is not one of the run's data files: {files}")
    logged = logged_by_step(args.run)
    if not logged:
        raise InputError(f"{args.run}/metrics.jsonl has no evaluation with gaps_spearman")
    chosen = select_step(logged)
    own = _scorer(args.run, files)
    check = own(chosen)["gaps_spearman"]
    if abs(check - logged[chosen]) > 1e-6:
        raise InputError(
            f"re-scoring step {chosen} on the run's own files gives {check:.6f}, the run logged "
            f"{logged[chosen]:.6f}: the scorer here is not the run's"
        )
    swapped = _scorer(args.run, [new if f == old else f for f in files])
    by_step = {}
    for step in sorted(logged):
        by_step[step] = swapped(step)
        print(
            f"step {step}: logged {logged[step]:.4f}, swapped {by_step[step]['gaps_spearman']:.4f}",
            flush=True,
        )
    pick = select_step({st: m["gaps_spearman"] for st, m in by_step.items()})
    report = {
        "run": str(args.run),
        "replaced": {"old": old, "new": new},
        "rule": "highest validation gap-head Spearman, the first step on a tie",
        "logged": {
            "by_step": {str(s): round(v, 4) for s, v in sorted(logged.items())},
            "step": chosen,
            "reproduced": round(check, 6),
        },
        "swapped": {
            "by_step": {str(s): round(m["gaps_spearman"], 4) for s, m in by_step.items()},
            "tier_accuracy_by_step": {
                str(s): round(m["gap_tier_accuracy"], 4) for s, m in by_step.items()
            },
            "step": pick,
            "n": by_step[pick]["n"],
        },
        "same_step": pick == chosen,
    }
    print(json.dumps({k: report[k] for k in ("logged", "swapped", "same_step")}, indent=1))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
