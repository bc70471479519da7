"""``sitar report``: write one self-contained HTML report for one or more systems.

A thin layer over :func:`sitar.report.build_report`. Inputs are those of ``sitar compare``
(``--ref-file``, ``--system NAME=PATH`` repeated, ``--format``, ``--groups``); one system is
enough. The report holds the comparison statistics, score and tier distributions (inline SVG) and
a sortable, paginated table of all utterances with gaps highlighted by estimated tier.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sitar.commands._model import (
    add_explain_method_argument,
    add_model_arguments,
    add_run_arguments,
    load_scorer,
    notice,
    want_progress,
)
from sitar.commands.compare import (
    add_statistics_arguments,
    add_system_input_arguments,
    check_wer_available,
    read_compare_inputs,
)
from sitar.errors import InputError
from sitar.io import _is_stdout, check_output_path, input_paths, open_output

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write a self-contained HTML report (plots, worst utterances, highlighted gaps)",
        description=(
            "Score and explain one or more systems and write one offline HTML file: system "
            "statistics, score distributions, and a sortable table of utterances with gaps "
            "highlighted by estimated tier (hover for single-gap scores)."
        ),
    )
    add_system_input_arguments(parser)
    add_model_arguments(parser)
    add_statistics_arguments(parser)
    out = parser.add_argument_group("output")
    out.add_argument("--title", default="SITAR report", help="report title")
    out.add_argument("-o", "--output", metavar="PATH", required=True, help="HTML file to write")
    add_run_arguments(parser)
    add_explain_method_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sitar.report import build_report

    if not args.systems:
        raise InputError("give at least one system with --system NAME=PATH")
    if _is_stdout(args.output):
        raise InputError("-o/--output needs a file name for the HTML report")
    check_output_path(args.output, inputs=input_paths(args))
    references, systems, groups = read_compare_inputs(args)
    check_wer_available(args)
    report_html = build_report(
        load_scorer(args),
        references=references,
        systems=systems,
        groups=groups,
        n_bootstrap=args.bootstrap,
        seed=args.seed,
        confidence=args.confidence,
        wer=args.wer,
        batch_size=args.batch_size,
        title=args.title,
        analyzer=args.analyzer,
        progress=want_progress(args),
        method=args.method,
    )
    with open_output(args.output, inputs=input_paths(args)) as out:
        out.write(report_html)
    path = Path(args.output)
    notice(args, f"wrote {path} ({path.stat().st_size} bytes)")
    return 0
