"""Command line: ``python -m annotation.asr build OUT`` (see :mod:`annotation.asr`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from sitar._main import ArgumentParser, tool_main

__all__ = ["main"]


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _cmd_build(args: argparse.Namespace) -> int:
    from annotation.asr.build import BuildConfig, run_build
    from annotation.asr.systems import DEFAULT_SYSTEMS, load_systems

    systems = load_systems(args.systems) if args.systems else tuple(DEFAULT_SYSTEMS)
    config = BuildConfig(
        seed=args.seed,
        folds=args.folds,
        limit=args.limit,
        systems=systems,
        short_commands=not args.no_short_commands,
        references=str(args.references) if args.references else None,
    )
    counts = run_build(
        args.out,
        config,
        log=_log,
        stop_after_s=args.stop_after,
        jobs=args.jobs,
        splits=args.splits.split(",") if args.splits else None,
        split_seed=args.split_seed,
    )
    _log(f"decodes per system: {counts}")
    if args.no_export:
        return 0
    _collect(args)
    _sheets(args)
    return 0


def _collect(args: argparse.Namespace) -> None:
    from annotation.asr.export import collect

    summary = collect(args.out, split_seed=args.split_seed)
    _log(
        f"wrote {summary['pairs']} pairs over {summary['references_decoded']} references to "
        f"{args.out / 'pairs.jsonl'}; splits.json, summary.json"
    )
    for system, row in summary["systems"].items():
        _log(
            f"  {system}: WER {row['wer']:.4f} over {row['pairs']} pairs, exact {row['exact']:.3f}"
        )


def _sheets(args: argparse.Namespace) -> None:
    from annotation.asr.export import export_sheets

    m = export_sheets(
        args.out,
        target_gaps=args.sheet_gaps,
        seed=args.sheet_seed,
        gaps_per_sheet=args.gaps_per_sheet,
        append=args.append_sheets,
        splits=args.sheet_splits.split(",") if args.sheet_splits else None,
    )
    _log(
        f"wrote {len(m['sheets'])} sheets with {m['gaps']} gaps ({m['pairs']} pairs, "
        f"{m['references']} references) to {args.out / 'sheets'}"
    )


def _cmd_export(args: argparse.Namespace) -> int:
    _collect(args)
    _sheets(args)
    return 0


def _cmd_labels(args: argparse.Namespace) -> int:
    from annotation.asr.labels import import_labels

    summary = import_labels(args.out, args.labels, args.records)
    _log(
        f"wrote {summary['records']} records ({summary['gaps']} gaps) to {args.records}: "
        f"per split {summary['records_per_split']}, gaps per split {summary['gaps_per_split']}"
    )
    _log(f"positions {summary['positions']}; readers per record {summary['readers_per_record']}")
    for row in summary["rejected"]:
        _log(f"  not labelled: {row['id']}: {row['reason']}: {row['detail']}")
    if args.summary:
        args.summary.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


def _cmd_reread(args: argparse.Namespace) -> int:
    from annotation.asr.reread import export_reread

    for src in args.sources:
        m = export_reread(src, args.dest, reader=args.reader)
        _log(f"{src} -> {args.dest / m['file']}: {m['rows']} rows, {m['transitions']}")
    return 0


def _cmd_active_sheets(args: argparse.Namespace) -> int:
    from annotation.asr.active import write_active_sheets
    from sitar import Scorer

    scorer = Scorer.load(args.checkpoint) if args.checkpoint else Scorer.load()
    m = write_active_sheets(
        args.out,
        scorer=scorer,
        exclude_labels=args.exclude_labels,
        target_gaps=args.gaps,
        first_sheet=args.first_sheet,
        active_share=args.active_share,
        double_share=args.double_share,
        gaps_per_sheet=args.gaps_per_sheet,
        seed=args.seed,
    )
    _log(
        f"wrote {len(m['sheets'])} sheets with {m['gaps']} gaps ({m['gaps_active']} active, "
        f"{m['gaps_random']} random, {m['gaps_double']} to be read twice) over {m['references']} "
        f"references; {m['excluded_references']} labelled references left out"
    )
    return 0


def _cmd_ab_build(args: argparse.Namespace) -> int:
    from annotation.asr.ab import build_ab

    m = build_ab(
        args.out,
        args.dest,
        n=args.n or None,
        seed=args.seed,
        splits=args.splits.split(","),
        exclude=args.exclude,
    )
    _log(
        f"wrote {m['items']} A/B items {m['per_split']} to {args.dest} (ab_blind.csv: for the "
        f"judge); {m['excluded_references']} references of --exclude left out"
    )
    return 0


def _cmd_ab_merge(args: argparse.Namespace) -> int:
    from annotation.asr.ab import merge_judgements

    counts = merge_judgements(args.folder, args.judged, judge=args.judge, out=args.set)
    _log(f"wrote {args.set}: judgements {counts}")
    return 0


def _cmd_ab_agreement(args: argparse.Namespace) -> int:
    from annotation.asr.ab import judge_agreement, load_ab

    report = judge_agreement(load_ab(args.first), load_ab(args.second))
    labels = report["labels"]
    print(f"{report['items']} items: agreement {report['agreement']:.3f}, Cohen's kappa "
          f"{report['kappa']:.3f}; both decided {report['decided_by_both']}, opposite picks "
          f"{report['opposite']}")  # fmt: skip
    print("confusion (rows: first, columns: second): " + ", ".join(labels))
    for name, row in zip(labels, report["confusion"], strict=True):
        print(f"  {name:5s} " + " ".join(f"{x:4d}" for x in row))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from annotation.asr.build import verify

    report = verify(args.out, n=args.n)
    bad = [r for r in report if not r["same"]]
    _log(f"re-decoded {len(report)} utterances: {len(report) - len(bad)} identical")
    for r in bad:
        _log(f"  differs: {r['system']}/{r['reference_id']}")
    return 1 if bad else 0


def _cmd_card(args: argparse.Namespace) -> int:
    from annotation.asr.card import render_card

    text = render_card(args.out)
    target = args.card or args.out / "data_card.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    _log(f"wrote {target}")
    return 0


def _cmd_severity_check(args: argparse.Namespace) -> int:
    from annotation.asr.severity import check_references, known_texts

    refs = [json.loads(line) for line in args.references.read_text(encoding="utf-8").splitlines()
            if line.strip()]  # fmt: skip
    texts, patterns, files = known_texts(args.sources)
    conflicts = check_references(refs, texts, patterns, threshold=args.threshold)
    _log(
        f"{len(refs)} references against {len(texts)} texts and {len(patterns)} templates of "
        f"{files} files (ratio >= {args.threshold:g}): {len(conflicts)} too close"
    )
    for c in conflicts:
        _log(f"  {c.reference_id} ({c.ratio:.0f}): {c.text!r} ~ {c.known!r}")
    return 1 if conflicts else 0


def _cmd_severity_items(args: argparse.Namespace) -> int:
    from annotation.asr.severity import build_items

    s = build_items(
        args.out, args.dest, target=args.target, seed=args.seed, per_reference=args.per_reference
    )
    _log(
        f"{s['items']} items over {s['references_with_items']} references: {s['items_per_system']}"
    )
    for system, row in s["systems"].items():
        _log(
            f"  {system}: WER {row['wer']:.4f} over {row['pairs']} decodes, exact {row['exact']:.3f}"
        )
    _log(f"sheets: {s['sheets']}")
    if args.summary:
        args.summary.write_text(json.dumps(s, indent=2) + "\n", encoding="utf-8")
    return 0


def _cmd_severity_val_items(args: argparse.Namespace) -> int:
    from annotation.asr.severity import validation_items

    s = validation_items(
        args.records,
        args.dest,
        target=args.target,
        seed=args.seed,
        per_reference=args.per_reference,
    )
    _log(
        f"{s['items']} items over {s['references_with_items']} references "
        f"(of {s['candidates']} validation records): {s['items_per_system']}"
    )
    _log(f"sheets: {s['sheets']}")
    if args.summary:
        args.summary.write_text(json.dumps(s, indent=2) + "\n", encoding="utf-8")
    return 0


def _export_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--split-seed",
        type=int,
        default=13,
        help="seed of the grouped split (13: the synthetic corpora's, so splits agree)",
    )
    parser.add_argument("--sheet-gaps", type=int, default=2500, help="gaps to put on sheets")
    parser.add_argument("--sheet-seed", type=int, default=12, help="seed of the sheet sample")
    parser.add_argument("--gaps-per-sheet", type=int, default=250, help="gaps per sheet")
    parser.add_argument(
        "--sheet-splits", help="only references of these splits on new sheets (e.g. test)"
    )
    parser.add_argument(
        "--append-sheets",
        action="store_true",
        help="keep the sheets already written (out for labelling) and add new ones from "
        "references on no sheet yet",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
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
    b.add_argument(
        "--jobs", type=int, default=1, help="decoding processes (the output does not depend on it)"
    )
    b.add_argument("--no-short-commands", action="store_true", help="leave out the short commands")
    b.add_argument(
        "--references",
        type=Path,
        help="decode the references of this JSONL file (id, domain, text) instead of the pool's, "
        "with an LM of the whole pool plus perturbed variants of them (never them)",
    )
    b.add_argument(
        "--splits",
        help="decode only the references of these splits, comma-separated (e.g. validation); "
        "the split is export's, at --split-seed",
    )
    b.add_argument("--no-export", action="store_true", help="decode only (no pairs, sheets)")
    _export_flags(b)
    b.set_defaults(func=_cmd_build)
    e = sub.add_parser("export", help="pairs.jsonl, splits and sheets from the decodes so far")
    e.add_argument("out", type=Path)
    _export_flags(e)
    e.set_defaults(func=_cmd_export)
    c = sub.add_parser("card", help="render the data card from the build's files")
    c.add_argument("out", type=Path)
    c.add_argument("--out", dest="card", type=Path, help="card path (default OUT/data_card.md)")
    c.set_defaults(func=_cmd_card)
    lab = sub.add_parser("labels", help="filled sheets -> records with the build's split")
    lab.add_argument("out", type=Path, help="the build folder (splits.json, references, sheets)")
    lab.add_argument("--labels", type=Path, required=True, help="folder of <sheet>.<reader>.csv")
    lab.add_argument("--records", type=Path, required=True, help="records JSONL to write")
    lab.add_argument("--summary", type=Path, help="also write the summary as JSON here")
    lab.set_defaults(func=_cmd_labels)
    rr = sub.add_parser("reread", help="filled re-read sheets -> label sheets (rubric asr-v2)")
    rr.add_argument("sources", type=Path, nargs="+", help="filled reread-NN*.csv sheets")
    rr.add_argument("--dest", type=Path, required=True, help="labels folder to write into")
    rr.add_argument("--reader", required=True, help="the re-reader's id (e.g. R1)")
    rr.set_defaults(func=_cmd_reread)
    act = sub.add_parser(
        "active-sheets", help="sheets for unlabelled references, half chosen by model uncertainty"
    )
    act.add_argument("out", type=Path, help="the build folder (pairs.jsonl)")
    act.add_argument(
        "--exclude-labels", type=Path, action="append", required=True,
        help="labels folder whose references are left out (repeatable)",
    )  # fmt: skip
    act.add_argument("--gaps", type=int, required=True, help="gaps to put on the new sheets")
    act.add_argument("--first-sheet", type=int, required=True, help="number of the first sheet")
    act.add_argument("--active-share", type=float, default=0.5)
    act.add_argument("--double-share", type=float, default=0.15)
    act.add_argument("--gaps-per-sheet", type=int, default=250)
    act.add_argument("--seed", type=int, default=31)
    act.add_argument("--checkpoint", help="model that scores the candidates (default: shipped)")
    act.set_defaults(func=_cmd_active_sheets)
    ab = sub.add_parser("ab-build", help="A/B items from held-out references (no metric used)")
    ab.add_argument("out", type=Path, help="the build folder (pairs.jsonl)")
    ab.add_argument("--dest", type=Path, required=True, help="folder for ab_items / ab_blind")
    ab.add_argument("--n", type=int, default=240, help="items (0: every eligible reference)")
    ab.add_argument("--seed", type=int, default=17)
    ab.add_argument(
        "--splits",
        default="test,validation",
        help="splits to draw references from, in this order, comma-separated",
    )
    ab.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help="an A/B set JSONL whose references are left out (repeatable)",
    )
    ab.set_defaults(func=_cmd_ab_build)
    abm = sub.add_parser("ab-merge", help="join a judge's filled ab_blind.csv into the public set")
    abm.add_argument("folder", type=Path, help="the ab-build folder")
    abm.add_argument("--judged", type=Path, required=True)
    abm.add_argument("--judge", required=True, help="who judged (recorded with every item)")
    abm.add_argument("--set", type=Path, required=True, help="public set JSONL to write")
    abm.set_defaults(func=_cmd_ab_merge)
    aba = sub.add_parser("ab-agreement", help="how two judges of the same A/B items agree")
    aba.add_argument("first", type=Path, help="A/B set JSONL (one judge)")
    aba.add_argument("second", type=Path, help="the same items judged by another judge")
    aba.add_argument("--json", type=Path, help="also write the report as JSON here")
    aba.set_defaults(func=_cmd_ab_agreement)
    sc = sub.add_parser(
        "severity-check", help="new references vs every training/evaluation text (exit 1: close)"
    )
    sc.add_argument("references", type=Path, help="JSONL of new references (id, text)")
    sc.add_argument(
        "--sources",
        type=Path,
        nargs="+",
        default=[
            Path("annotation") / d for d in ("sources", "devset", "ab", "challenge", "asr/labels")
        ],
        help="folders whose *.jsonl / *.csv texts the references must not (nearly) equal",
    )
    sc.add_argument("--threshold", type=float, default=90.0, help="rapidfuzz ratio (0-100)")
    sc.set_defaults(func=_cmd_severity_check)
    si = sub.add_parser("severity-items", help="benchmark items and blind reader sheets")
    si.add_argument("out", type=Path, help="a `build OUT --references FILE` folder")
    si.add_argument("--dest", type=Path, required=True, help="e.g. benchmarks/severity")
    si.add_argument("--target", type=int, default=900, help="items to select")
    si.add_argument("--seed", type=int, default=31, help="selection and sheet-order seed")
    si.add_argument("--per-reference", type=int, default=3, help="most items per reference")
    si.add_argument("--summary", type=Path, help="also write the summary as JSON here")
    si.set_defaults(func=_cmd_severity_items)
    sv = sub.add_parser(
        "severity-val-items",
        help="transcript-level validation items and blind sheets from labelled record files",
    )
    sv.add_argument(
        "records", type=Path, nargs="+", help="sitar.record/1 files (their validation split)"
    )
    sv.add_argument("--dest", type=Path, required=True, help="e.g. annotation/asr/severity-val")
    sv.add_argument("--target", type=int, default=480, help="items to select")
    sv.add_argument("--seed", type=int, default=41, help="selection and sheet-order seed")
    sv.add_argument("--per-reference", type=int, default=2, help="most items per reference")
    sv.add_argument("--summary", type=Path, help="also write the summary as JSON here")
    sv.set_defaults(func=_cmd_severity_val_items)
    v = sub.add_parser("verify", help="re-decode a few finished utterances; same output?")
    v.add_argument("out", type=Path)
    v.add_argument("--n", type=int, default=3, help="utterances per system")
    v.set_defaults(func=_cmd_verify)
    return parser


@tool_main("python -m annotation.asr")
def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
