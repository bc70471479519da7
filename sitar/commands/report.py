"""``sitar report``: write one self-contained HTML report for one or more systems.

A thin layer over :func:`sitar.report.build_report`. Inputs are those of ``sitar compare``
(``--ref-file``, ``--system NAME=PATH`` repeated, ``--format``, ``--groups``); one system is
enough. The report holds the comparison statistics, score and tier distributions (inline SVG) and
a sortable, paginated table of all utterances with gaps highlighted by estimated tier.
"""

from __future__ import annotations

import argparse
import sys

from sitar.commands._model import add_model_arguments, load_scorer
from sitar.commands.compare import (
    add_statistics_arguments,
    add_system_input_arguments,
    read_compare_inputs,
)
from sitar.errors import InputError

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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sitar.report import build_report, write_report

    if not args.systems:
        raise InputError("give at least one system with --system NAME=PATH")
    references, systems, groups = read_compare_inputs(args)
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
    )
    path = write_report(args.output, report_html)
    print(f"wrote {path} ({path.stat().st_size} bytes)", file=sys.stderr)
    return 0
