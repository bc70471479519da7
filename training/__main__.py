"""``python -m training --config FILE [--set key=value ...] [--resume]``: train a SITAR regressor.

Under ``accelerate launch -m training ...`` the same command runs on several GPUs. The exit code is
0 on success and 2 on a SITAR error (bad config, bad records), with a one-line message.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from sitar._main import ArgumentParser, tool_main

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="python -m training",
        description="Train the SITAR regressor (SPEC §7) from sitar.record/1 files.",
    )
    parser.add_argument("--config", help="YAML config file (training/configs/*.yaml)")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one setting, e.g. --set learning_rate=2e-5 (repeatable)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in output_dir from checkpoints/last",
    )
    parser.add_argument("--quiet", action="store_true", help="log warnings only")
    return parser


@tool_main("python -m training")
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    from training.config import load_config
    from training.loop import train

    config = load_config(args.config, args.overrides)
    result = train(config, resume=args.resume)
    best = "n/a" if result.best_metric is None else f"{result.best_metric:.4f}"
    print(
        f"run {result.run_dir}: {result.steps} steps, best {config.metric} {best} at step "
        f"{result.best_step}{' (stopped early)' if result.stopped_early else ''}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
