"""Command line of the annotation pipeline: ``python -m annotation <command> ...``.

Commands: ``run`` (start a run folder and annotate), ``resume`` (continue a run), ``status``
(recompute outcomes offline and print counts), ``export-sheet`` / ``import-sheet`` (human labels),
``build-dataset`` (records, split, augmentation, stats and data card). Thin wrappers over the
importable functions; any :class:`~sitar.errors.SitarError` becomes a one-line message and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sitar._main import ArgumentParser, tool_main
from sitar.errors import SitarError
from sitar.io import add_pair_input_arguments, pairs_from_args

__all__ = ["main"]


def _client_flags(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    p = f"--{prefix}" if prefix else "--"
    who = "reviewer" if prefix else "annotator"
    parser.add_argument(f"{p}base-url", help=f"{who} endpoint, e.g. https://api.deepseek.com/v1")
    parser.add_argument(f"{p}model", help=f"{who} model name")
    parser.add_argument(f"{p}api-key-env", help="environment variable holding the API key")
    if not prefix:
        parser.add_argument("--temperature", type=float)
        parser.add_argument("--seed", type=int, help="base seed; round k sends seed + k")
        parser.add_argument("--concurrency", type=int)
        parser.add_argument("--rpm", type=float, help="requests per minute at most")
        parser.add_argument("--timeout", type=float, help="seconds per request")
        parser.add_argument("--max-retries", type=int)
        parser.add_argument("--price-in", type=float, help="price per 1M prompt tokens")
        parser.add_argument("--price-out", type=float, help="price per 1M completion tokens")


def _build_config(args: argparse.Namespace):
    from annotation.client import ClientConfig
    from annotation.config import RunConfig, load_config

    config = load_config(args.config) if args.config else RunConfig()
    a = config.annotator.to_dict()
    for flag, key in (
        ("base_url", "base_url"),
        ("model", "model"),
        ("api_key_env", "api_key_env"),
        ("temperature", "temperature"),
        ("seed", "seed"),
        ("concurrency", "concurrency"),
        ("rpm", "rpm"),
        ("timeout", "timeout_s"),
        ("max_retries", "max_retries"),
        ("price_in", "price_input_per_mtok"),
        ("price_out", "price_output_per_mtok"),
    ):
        if getattr(args, flag) is not None:
            a[key] = getattr(args, flag)
    config.annotator = ClientConfig.from_dict(a)
    if args.reviewer_model or args.reviewer_base_url or args.reviewer_api_key_env:
        r = (config.reviewer or config.annotator).to_dict()
        for flag, key in (
            ("reviewer_base_url", "base_url"),
            ("reviewer_model", "model"),
            ("reviewer_api_key_env", "api_key_env"),
        ):
            if getattr(args, flag) is not None:
                r[key] = getattr(args, flag)
        config.reviewer = ClientConfig.from_dict(r)
    proto = dict(config.protocol.__dict__)
    for flag in ("reviewers", "max_invalid", "analyzer", "rho"):
        if getattr(args, flag) is not None:
            proto[flag] = getattr(args, flag)
    config = type(config).from_dict({**config.to_dict(), "protocol": proto})
    if args.budget is not None:
        config.budget = args.budget
    return config


def _print_summary(summary: Any) -> None:
    out = sys.stdout
    d = summary.to_dict()
    outcomes = ", ".join(f"{k} {v}" for k, v in d["outcomes"].items()) or "none"
    print(f"pairs: {d['pairs']} ({outcomes})", file=out)
    print(
        f"calls: {d['new_calls']} new, {d['reused_calls']} from the journal; "
        f"HTTP requests {d['requests']}; tokens {d['prompt_tokens']} prompt + "
        f"{d['completion_tokens']} completion; cost {d['cost']:.6f}",
        file=out,
    )
    if d["stopped"]:
        print(f"stopped early: {d['stopped']}; run `resume` to continue", file=out)
    if d["outcomes"].get("pending"):
        print("some pairs are pending; run `resume` to finish them", file=out)


def _cmd_run(args: argparse.Namespace) -> int:
    from annotation.pipeline import run_pairs, start_run

    config = _build_config(args)
    # Fail before creating the run folder when a key is missing.
    config.annotator.api_key()
    config.review_client.api_key()
    pairs = pairs_from_args(args)
    source = args.jsonl or args.ref_file or "command line"
    start_run(args.run_dir, pairs, config, source=str(source))
    summary = run_pairs(args.run_dir, progress=not args.no_progress)
    _print_summary(summary)
    return 0


def _cmd_resume(args: argparse.Namespace) -> int:
    from annotation.pipeline import run_pairs

    summary = run_pairs(args.run_dir, budget=args.budget, progress=not args.no_progress)
    _print_summary(summary)
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    from annotation.pipeline import recompute

    evaluated, meta = recompute(args.run_dir)
    counts = Counter(ev.outcome.reason or ev.outcome.status for ev in evaluated)
    status = {"pairs": len(evaluated), "outcomes": dict(sorted(counts.items())), **meta["totals"]}
    if args.json:
        print(json.dumps(status, sort_keys=True))
    else:
        outcomes = ", ".join(f"{k} {v}" for k, v in status["outcomes"].items())
        print(f"pairs: {status['pairs']} ({outcomes})")
        print(
            f"calls: {status['calls']} (failed {status['failed_calls']}); HTTP requests "
            f"{status['requests']}; tokens {status['prompt_tokens']} prompt + "
            f"{status['completion_tokens']} completion; cost {status['cost']:.6f}"
        )
    return 0


def _cmd_export_sheet(args: argparse.Namespace) -> int:
    from annotation.sheets import export_sheet

    n = export_sheet(pairs_from_args(args), args.out, analyzer=args.analyzer)
    print(f"wrote {n} rows to {args.out}; fill the 'tier' column (T0/T1/T2), optionally 'rank'")
    return 0


def _cmd_import_sheet(args: argparse.Namespace) -> int:
    from annotation.sheets import import_sheets
    from sitar.records import write_records

    result = import_sheets(args.sheets, analyzer=args.analyzer, rho=args.rho)
    n = write_records(args.out, result.records)
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(result.reasons().items())) or "none"
    print(f"wrote {n} records to {args.out}; not labelled: {len(result.rejected)} ({reasons})")
    for row in result.rejected:
        print(f"  {row['id']}: {row['reason']}: {row['detail']}")
    return 0


def _cmd_agreement(args: argparse.Namespace) -> int:
    from annotation.sheets import sheet_agreement

    report = sheet_agreement(args.first, args.second)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{report['gaps']} gaps labelled in both: tier agreement {report['agreement']:.3f}, "
        f"Cohen's kappa {report['kappa']:.3f}, position agreement "
        f"{report['position_agreement']:.3f}"
    )
    print("confusion (rows: first sheet T0/T1/T2, columns: second sheet):")
    for k, row in enumerate(report["confusion"]):
        print(f"  T{k}: " + " ".join(f"{v:5d}" for v in row))
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from annotation.dataset import build_dataset, write_dataset

    common = {
        "seed": args.seed,
        "augment": not args.no_augment,
        "card_path": args.card,
        "name": args.name,
    }
    if (args.run_dir is None) == (args.records is None):
        raise SitarError("give exactly one of RUN_DIR or --records FILE")
    if args.run_dir is not None:
        stats = build_dataset(args.run_dir, args.out, **common)
    else:
        from sitar.records import read_records

        records = list(read_records(args.records))
        stats = write_dataset(
            records,
            args.out,
            made_with={"annotator": "records file", "source": str(args.records)},
            analyzer=args.analyzer,
            **common,
        )
    print(
        f"records: {stats['splits']} (accepted {stats['accepted']} of {stats['pairs']} pairs; "
        f"rejected {stats['rejected']}, pending {stats['pending']})"
    )
    aug = stats["augmentation"]
    if aug.get("enabled"):
        print(
            f"augmentation: {aug['variants_added']} variants, {aug['duplicates_added']} "
            f"duplicates; bins {aug['bins_before']} -> {aug['bins_after_upsampling']}"
        )
    print(f"wrote {args.out}/records.jsonl, stats.json; data card {stats['card']}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="python -m annotation", description="SITAR offline annotation pipeline (SPEC §6)"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="start a run folder and annotate its pairs")
    run.add_argument("run_dir", type=Path)
    add_pair_input_arguments(run)
    run.add_argument("--config", type=Path, help="JSON run configuration (flags override it)")
    _client_flags(run)
    _client_flags(run, prefix="reviewer-")
    run.add_argument("--reviewers", type=int, help="committee size N (default 4)")
    run.add_argument("--max-invalid", type=int, help="re-asks after an unusable answer")
    run.add_argument("--analyzer", help="CGD analyzer (default lexicon)")
    run.add_argument("--rho", type=float)
    run.add_argument("--budget", type=float, help="stop cleanly once this much is spent")
    run.add_argument("--no-progress", action="store_true")
    run.set_defaults(func=_cmd_run)

    resume = sub.add_parser("resume", help="continue a run; finished calls are not repeated")
    resume.add_argument("run_dir", type=Path)
    resume.add_argument("--budget", type=float, help="new budget cap (total, all sessions)")
    resume.add_argument("--no-progress", action="store_true")
    resume.set_defaults(func=_cmd_resume)

    status = sub.add_parser("status", help="recompute outcomes from the journal (offline)")
    status.add_argument("run_dir", type=Path)
    status.add_argument("--json", action="store_true")
    status.set_defaults(func=_cmd_status)

    export = sub.add_parser("export-sheet", help="write a blank human annotation sheet")
    add_pair_input_arguments(export)
    export.add_argument("--out", type=Path, required=True, help=".csv or .jsonl")
    export.add_argument("--analyzer", default="lexicon")
    export.set_defaults(func=_cmd_export_sheet)

    imp = sub.add_parser("import-sheet", help="read filled sheets into records")
    imp.add_argument("sheets", nargs="+", type=Path)
    imp.add_argument("--out", type=Path, required=True, help="records JSONL to write")
    imp.add_argument("--analyzer", default="lexicon")
    imp.add_argument("--rho", type=float, default=0.5)
    imp.set_defaults(func=_cmd_import_sheet)

    agree = sub.add_parser("agreement", help="Cohen's kappa of two readers' filled sheets")
    agree.add_argument("first", type=Path)
    agree.add_argument("second", type=Path)
    agree.add_argument("--json", action="store_true", help="the full report as JSON")
    agree.set_defaults(func=_cmd_agreement)

    build = sub.add_parser("build-dataset", help="records, split, augmentation, stats, card")
    build.add_argument("run_dir", type=Path, nargs="?")
    build.add_argument("--records", type=Path, help="build from a records file instead")
    build.add_argument("--out", type=Path, required=True)
    build.add_argument("--seed", type=int, default=0)
    build.add_argument("--no-augment", action="store_true")
    build.add_argument("--card", type=Path, help="data card path (default data_cards/NAME.md)")
    build.add_argument("--name", help="dataset name (default: the --out folder name)")
    build.add_argument("--analyzer", default="lexicon", help="for --records: re-segmentation")
    build.set_defaults(func=_cmd_build)
    return parser


@tool_main("python -m annotation")
def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        # run_pairs has let in-flight calls finish and be journaled; nothing is lost.
        run_dir = getattr(args, "run_dir", "RUN_DIR")
        print(
            f"interrupted; every finished call is journaled: continue with "
            f"`python -m annotation resume {run_dir}`",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
