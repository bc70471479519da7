"""Command line: ``python -m annotation.asr build OUT`` (see :mod:`annotation.asr`)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from sitar.errors import SitarError

__all__ = ["main"]


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _cmd_build(args: argparse.Namespace) -> int:
    from annotation.asr.build import BuildConfig, run_build
    from annotation.asr.systems import DEFAULT_SYSTEMS, load_systems

    systems = load_systems(args.systems) if args.systems else tuple(DEFAULT_SYSTEMS)
    config = BuildConfig(seed=args.seed, folds=args.folds, limit=args.limit, systems=systems)
    counts = run_build(args.out, config, log=_log, stop_after_s=args.stop_after)
    _log(f"decodes per system: {counts}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m annotation.asr",
        description="Real recognizer output: espeak-ng + sox + pocketsphinx over the pool",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="synthesize and decode every reference (resumable)")
    b.add_argument("out", type=Path, help="output folder (audio is not kept; data is)")
    b.add_argument("--systems", type=Path, help="JSON list of systems (default: the built-in)")
    b.add_argument("--seed", type=int, default=12)
    b.add_argument("--folds", type=int, default=5)
    b.add_argument("--limit", type=int, help="only the first N references of the seeded order")
    b.add_argument("--stop-after", type=float, help="stop cleanly after this many seconds")
    b.set_defaults(func=_cmd_build)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except SitarError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
