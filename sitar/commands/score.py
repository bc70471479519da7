"""``sitar score``: score (reference, hypothesis) pairs with a SITAR checkpoint.

A thin layer over :meth:`sitar.scorer.Scorer.score`; the inputs are those of ``sitar gaps``
(:mod:`sitar.io`, plain text by default), or a reference file and several systems with
``--ref-file R --system NAME=PATH ...`` as in ``sitar compare``. The default output is TSV: a
``#signature`` line, a header ``id score raw windowed``, one line per pair (normalised score, raw
clipped score, 1 if the pair was longer than the checkpoint's max_length and scored in windows)
and a final ``#system`` line with the system score, its aggregation and the number of pairs. With
``--system``, the rows start with a ``system`` column and there is one ``#system NAME ...`` line
per system. ``--jsonl-out`` writes one JSON object per pair and a final ``{"system": ...}``
object, each with the signature (and ``system_name`` with ``--system``). ``--system-only``
writes only the signature and the system line(s).

Several references per utterance (``--ref-file`` repeated, or a JSONL ``reference`` list): each
hypothesis keeps its closest reference (:mod:`sitar.multiref`); the TSV rows end with a ``ref``
column and the JSONL records carry ``reference_index``, the 1-based number of the chosen one.
``--system`` and repeated ``--ref-file`` combine (:func:`run_joined`): every system against every
reference of each utterance in one model pass, files read by :func:`sitar.io.read_reference_sets`.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any, TextIO

from sitar.commands._model import (
    DeprecatedFlag,
    add_model_arguments,
    add_run_arguments,
    load_scorer,
    notice,
    want_progress,
)
from sitar.commands.compare import add_system_argument
from sitar.commands.score_ray import add_engine_arguments, reject_ray_options, run_ray
from sitar.errors import InputError
from sitar.io import (
    Pair,
    add_pair_input_arguments,
    check_same_ids,
    columns_from_args,
    input_paths,
    open_output,
    pairs_from_args,
    read_jsonl_rows,
)

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score pairs with a SITAR checkpoint",
        description=(
            "Score (reference, hypothesis) pairs with a SITAR checkpoint: per-pair normalised "
            "scores in [0, 1] (lower is less distortion), the system score and the signature."
        ),
    )
    add_pair_input_arguments(parser, several_references=True)
    add_system_argument(parser.add_argument_group("systems (instead of --hyp-file)"))
    add_model_arguments(parser)
    add_run_arguments(parser)
    out = parser.add_argument_group("output")
    out.add_argument(
        "--jsonl-out",
        dest="as_jsonl",
        action="store_true",
        help="write JSONL (one object per pair, then a system object) instead of TSV",
    )
    out.add_argument("--json", dest="as_jsonl", action=DeprecatedFlag, replacement="--jsonl-out")
    out.add_argument(
        "--system-only", action="store_true", help="write only the signature and the system score"
    )
    out.add_argument(
        "-o", "--output", metavar="PATH", help="write to a file instead of stdout ('-': stdout)"
    )
    add_engine_arguments(parser)
    parser.set_defaults(func=run)


def _json_float(x: float) -> float | None:
    return None if math.isnan(x) else x


def _system_record(result: Any) -> dict[str, Any]:
    record = {
        "system": _json_float(result.system_score),
        "aggregation": result.aggregation,
        "n_pairs": len(result),
        "n_identical": result.n_identical,
        "n_windowed": result.n_windowed,
        "signature": result.signature,
    }
    if result.swer is not None:
        record["swer"] = _json_float(result.system_swer)
        record["swer_version"] = result.swer_version
    return record


def write_tsv(
    out: TextIO,
    ids: list[str],
    result: Any,
    *,
    system_only: bool,
    chosen: tuple[int, ...] | None = None,
) -> None:
    """``id score raw windowed [swer] [ref]`` rows (``swer`` with a gap head, ``ref`` with
    several references: the 1-based index of the chosen one), then ``#system`` and, with a gap
    head, ``#swer`` (the corpus value and its version)."""
    out.write(f"#signature\t{result.signature}\n")
    swer = result.swer
    if not system_only:
        head = "id\tscore\traw\twindowed" + ("\tswer" if swer is not None else "")
        out.write(head + ("\tref" if chosen is not None else "") + "\n")
        for i, pair_id in enumerate(ids):
            row = (
                f"{pair_id}\t{result.scores[i]:.6f}\t{result.raw[i]:.6f}\t{int(result.windowed[i])}"
            )
            row += f"\t{swer[i]:.6f}" if swer is not None else ""
            out.write(row + (f"\t{chosen[i] + 1}" if chosen is not None else "") + "\n")
    out.write(f"#system\t{result.system_score:.6f}\t{result.aggregation}\tn={len(result)}\n")
    if swer is not None:
        out.write(f"#swer\t{result.system_swer:.6f}\t{result.swer_version}\tn={len(result)}\n")


def write_jsonl(
    out: TextIO,
    ids: list[str],
    result: Any,
    *,
    system_only: bool,
    system_name: str | None = None,
    chosen: tuple[int, ...] | None = None,
) -> None:
    """One object per pair, then the system object; ``system_name`` (``--system``) adds a
    ``system_name`` field to each, ``chosen`` (several references) a 1-based
    ``reference_index`` to each pair's."""
    named = {} if system_name is None else {"system_name": system_name}
    if not system_only:
        for i, pair_id in enumerate(ids):
            record = {
                **named,
                "id": pair_id,
                "score": result.scores[i],
                "raw": result.raw[i],
                "windowed": result.windowed[i],
                "identical": result.identical[i],
                "n_windows": result.n_windows[i],
                "signature": result.signature,
            }
            if result.swer is not None:
                record["swer"] = result.swer[i]
            if chosen is not None:
                record["reference_index"] = chosen[i] + 1
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    out.write(json.dumps({**named, **_system_record(result)}, ensure_ascii=False) + "\n")


def check_tsv_ids(ids: list[str]) -> None:
    """Ids a TSV reader would misread (``#``, tab, line ends) are refused before any work."""
    for pair_id in ids:
        bad = [name for ch, name in _TSV_UNSAFE if ch in pair_id]
        if bad:
            raise InputError(
                f"id {pair_id!r} contains {' and '.join(bad)}, which TSV output cannot hold "
                "(readers such as pandas.read_csv(..., comment='#') would misread the row); "
                "use --jsonl-out, or rename the id"
            )


_TSV_UNSAFE = (("\t", "a tab"), ("\n", "a line break"), ("\r", "a line break"), ("#", "'#'"))


def run(args: argparse.Namespace) -> int:
    if args.systems or (args.ref_file is not None and len(args.ref_file) > 1):
        return run_joined(args)
    args.ref_file = args.ref_file[0] if args.ref_file else None
    rows = None
    if _jsonl_alone(args):  # a 'reference' may be a list of candidates
        if args.engine == "ray":
            return run_ray(args, lambda: read_jsonl_rows(args.jsonl, lists=True))
        reject_ray_options(args)
        check_output_path_args(args)
        rows = read_jsonl_rows(args.jsonl, lists=True)
        if any(len(refs) > 1 for _, refs, _ in rows):
            return write_references(args, rows)
    if args.engine == "ray":
        return run_ray(args)
    reject_ray_options(args)
    check_output_path_args(args)
    if rows is not None:
        pairs = [Pair(u, refs[0], h) for u, refs, h in rows]
    else:
        pairs = pairs_from_args(args, report=lambda m: notice(args, m))
    ids = [p.id for p in pairs]
    if not args.as_jsonl and not args.system_only:
        check_tsv_ids(ids)
    scorer = load_scorer(args)
    result = scorer.score(
        references=[p.reference for p in pairs],
        hypotheses=[p.hypothesis for p in pairs],
        batch_size=args.batch_size,
        progress=want_progress(args),
    )
    with open_output(args.output, inputs=input_paths(args)) as out:
        writer = write_jsonl if args.as_jsonl else write_tsv
        writer(out, ids, result, system_only=args.system_only)
    return 0


def _jsonl_alone(args: argparse.Namespace) -> bool:
    """``--jsonl`` is the only input (else the usual checks refuse it)."""
    others = (args.ref, args.hyp, args.ref_file, args.hyp_file, *columns_from_args(args).given())
    return args.jsonl is not None and not args.systems and not any(others)


def write_references(args: argparse.Namespace, rows: list[tuple[str, list[str], str]]) -> int:
    """Score ``(id, candidate references, hypothesis)`` rows and write them with the chosen
    reference's 1-based index (TSV column ``ref``, JSONL field ``reference_index``)."""
    from sitar.multiref import score_multi

    ids = [pair_id for pair_id, _, _ in rows]
    if not args.as_jsonl and not args.system_only:
        check_tsv_ids(ids)
    multi = score_multi(
        load_scorer(args),
        references=[refs for _, refs, _ in rows],
        hypotheses=[hyp for _, _, hyp in rows],
        batch_size=args.batch_size,
        progress=want_progress(args),
    )
    with open_output(args.output, inputs=input_paths(args)) as out:
        writer = write_jsonl if args.as_jsonl else write_tsv
        writer(out, ids, multi.result, system_only=args.system_only, chosen=multi.chosen)
    return 0


def run_joined(args: argparse.Namespace) -> int:
    """Files joined by id: ``--ref-file R --system A=a --system B=b`` (several systems, as in
    ``sitar compare``), ``--ref-file R1 --ref-file R2 --hyp-file H`` (several references) or
    both. Every file is read in one format (:func:`sitar.io.read_reference_sets`); every system is scored
    against every reference of each utterance in one model pass and keeps the closest
    (:func:`sitar.multiref.score_systems`)."""
    from sitar.comparison import join_by_id
    from sitar.io import parse_systems, read_reference_sets
    from sitar.multiref import score_systems

    what = "--system" if args.systems else "several --ref-file"
    clashes = [
        flag
        for flag, on in (
            ("--engine ray", args.engine == "ray" and bool(args.systems)),
            ("--hyp-file", bool(args.systems) and args.hyp_file is not None),
            ("--ref/--hyp", args.ref is not None or args.hyp is not None),
            ("--jsonl", args.jsonl is not None),
        )
        if on
    ]
    if clashes:
        fix = (
            "--engine ray scores one system (give --hyp-file)"
            if "--engine ray" in clashes
            else "give --ref-file PATH (repeatable) with --hyp-file PATH or --system NAME=PATH"
        )
        raise InputError(f"{what} cannot be combined with {', '.join(clashes)}; {fix}")
    if not args.ref_file:
        raise InputError("--system NAME=PATH needs --ref-file PATH (the references)")
    if not args.systems and args.hyp_file is None:
        raise InputError(
            "several --ref-file need the hypotheses in --hyp-file PATH (or --system NAME=PATH)"
        )
    hyp_files = parse_systems(args.systems) if args.systems else {"": args.hyp_file}

    def read() -> tuple[list[str], dict[str, list[str]], list[list[str]]]:
        sets = read_reference_sets(
            args.ref_file,
            hyp_files,
            args.file_format,
            columns_from_args(args),
            report=lambda m: notice(args, m),
        )
        if args.systems:
            _, joined = join_by_id(sets.references[0], sets.hypotheses)
        else:
            hyps = sets.hypotheses[""]
            check_same_ids(args.ref_file[0], sets.ids, args.hyp_file, hyps, sets.format)
            joined = {"": [hyps[u] for u in sets.ids]}
        return sets.ids, joined, sets.candidates()

    if args.engine == "ray":  # one system, several references (refused above with --system)

        def rows() -> list[tuple[str, list[str], str]]:
            ids, joined, candidates = read()
            return list(zip(ids, candidates, joined[""], strict=True))

        return run_ray(args, rows)
    reject_ray_options(args)
    check_output_path_args(args)
    ids, joined, candidates = read()
    if not args.as_jsonl and not args.system_only:
        check_tsv_ids(ids + list(joined))
    multi = score_systems(
        load_scorer(args),
        references=candidates,
        systems=joined,
        batch_size=args.batch_size,
        progress=want_progress(args),
    )
    several = len(args.ref_file) > 1
    results = {name: m.result for name, m in multi.items()}
    chosen = {name: m.chosen for name, m in multi.items()} if several else None
    with open_output(args.output, inputs=input_paths(args)) as out:
        if not args.systems:
            writer = write_jsonl if args.as_jsonl else write_tsv
            writer(out, ids, results[""], system_only=args.system_only, chosen=_of(chosen, ""))
        elif args.as_jsonl:
            for name, result in results.items():
                write_jsonl(
                    out,
                    ids,
                    result,
                    system_only=args.system_only,
                    system_name=name,
                    chosen=_of(chosen, name),
                )
        else:
            write_systems_tsv(out, ids, results, system_only=args.system_only, chosen=chosen)
    return 0


def _of(chosen: dict[str, tuple[int, ...]] | None, name: str) -> tuple[int, ...] | None:
    return None if chosen is None else chosen[name]


def write_systems_tsv(
    out: TextIO,
    ids: list[str],
    results: dict[str, Any],
    *,
    system_only: bool,
    chosen: dict[str, tuple[int, ...]] | None = None,
) -> None:
    """Several systems in one TSV: the signature once, rows ``system id score raw windowed``
    (then ``swer`` with a gap head, and ``ref``, the 1-based chosen reference, with several), then
    the system table: one ``#system NAME score aggregation n=N`` line per system and, with a gap
    head, one ``#swer NAME value version n=N`` line per system."""
    first = next(iter(results.values()))
    has_swer = first.swer is not None
    out.write(f"#signature\t{first.signature}\n")
    if not system_only:
        head = "system\tid\tscore\traw\twindowed" + ("\tswer" if has_swer else "")
        out.write(head + ("\tref" if chosen is not None else "") + "\n")
        for name, result in results.items():
            swer = result.swer
            for i, pair_id in enumerate(ids):
                row = (
                    f"{name}\t{pair_id}\t{result.scores[i]:.6f}\t{result.raw[i]:.6f}"
                    f"\t{int(result.windowed[i])}"
                )
                row += f"\t{swer[i]:.6f}" if swer is not None else ""
                out.write(row + (f"\t{chosen[name][i] + 1}" if chosen is not None else "") + "\n")
    for name, result in results.items():
        out.write(
            f"#system\t{name}\t{result.system_score:.6f}\t{result.aggregation}\tn={len(result)}\n"
        )
    if has_swer:
        for name, result in results.items():
            out.write(
                f"#swer\t{name}\t{result.system_swer:.6f}\t{result.swer_version}\tn={len(result)}\n"
            )


def check_output_path_args(args: argparse.Namespace) -> None:
    from sitar.io import check_output_path

    check_output_path(args.output, inputs=input_paths(args))
