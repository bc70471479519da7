"""``sitar compare``: compare two or more ASR systems on the same references.

A thin layer over :func:`sitar.comparison.compare`. Inputs: one reference file and, per system,
``--system NAME=PATH``, all in one ``--format`` (as in every command, see :mod:`sitar.io`):

* ``text`` (default): one utterance per line; ids are the 1-based line numbers;
* ``kaldi``: ``utt_id text`` per line;
* ``jsonl``: objects with ``id`` and ``reference`` (reference file) or ``hypothesis`` (systems);
* ``trn``, ``stm``, ``nemo``, ``csv``, ``tsv`` (:mod:`sitar.formats`): the reference file gives the
  references and each system's file its hypotheses (``--ref-column``/``--hyp-column``).

Without ``--format``, the files' common extension names the format, and files that a plain reading
would misread are refused as ambiguous (:func:`sitar.io.resolve_format`). Systems are joined to the references by id; missing
and extra ids are reported by name. An optional ``--groups FILE`` (``utt_id group`` per line) adds
per-group breakdowns. The output is a readable table (default; ``-o``) and/or one JSON document
(``--json-out PATH``, ``-`` for standard output in place of the table), both with the seed and
the signature.
"""

from __future__ import annotations

import argparse
import json
import os

from sitar.commands._model import (
    DeprecatedFlag,
    add_model_arguments,
    add_run_arguments,
    load_scorer,
    notice,
    want_progress,
)
from sitar.errors import InputError, OutputError
from sitar.io import (
    _is_stdout,
    add_format_argument,
    check_output_path,
    columns_from_args,
    input_paths,
    open_output,
    read_system_inputs,
)

__all__ = [
    "add_statistics_arguments",
    "add_system_argument",
    "add_system_input_arguments",
    "read_compare_inputs",
    "read_groups",
    "register",
    "run",
]


def add_system_input_arguments(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    """``--ref-file``, ``--system NAME=PATH`` (repeated), ``--format`` and ``--groups``."""
    group = parser.add_argument_group("input")
    group.add_argument(
        "--ref-file", metavar="PATH", required=required, help="reference transcripts (see --format)"
    )
    add_system_argument(group)
    add_format_argument(group)
    group.add_argument(
        "--groups",
        metavar="PATH",
        default=None,
        help="optional 'utt_id group' lines (speaker, domain...) for per-group breakdowns",
    )


def add_system_argument(group: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--system",
        dest="systems",
        metavar="NAME=PATH",
        action="append",
        default=[],
        help="a system's hypotheses (repeat for each system)",
    )


def read_groups(path: str) -> dict[str, str]:
    """``utt_id group`` lines (the group may contain spaces) into a map."""
    from sitar.io import read_lines

    groups: dict[str, str] = {}
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        parts = line.strip().split(maxsplit=1)
        if len(parts) != 2:
            raise InputError(f"{path}:{lineno}: expected 'utt_id group', got {line!r}")
        if parts[0] in groups:
            raise InputError(f"{path}:{lineno}: duplicate utterance id {parts[0]!r}")
        groups[parts[0]] = parts[1].strip()
    return groups


def read_compare_inputs(
    args: argparse.Namespace,
) -> tuple[dict[str, str], dict[str, dict[str, str]], dict[str, str] | None]:
    """References, systems and groups for ``compare``/``report``, joined and checked by id before
    any model is loaded, so that a bad file fails fast and names every missing or extra id."""
    from sitar.comparison import join_by_id

    references, systems = read_system_inputs(
        args.ref_file,
        args.systems,
        args.file_format,
        columns_from_args(args),
        report=lambda m: notice(args, m),
    )
    groups = read_groups(args.groups) if args.groups else None
    join_by_id(references, systems)
    return references, systems, groups


def add_statistics_arguments(parser: argparse.ArgumentParser) -> None:
    """Bootstrap and WER options shared by ``sitar compare`` and ``sitar report``."""
    from sitar.comparison import MAX_BOOTSTRAP

    stats = parser.add_argument_group("statistics")
    stats.add_argument(
        "--bootstrap",
        type=_bootstrap_count,
        default=1000,
        metavar="B",
        help=f"bootstrap resamples, 1 to {MAX_BOOTSTRAP:,} (default 1000)",
    )
    stats.add_argument("--seed", type=_seed, default=0, help="bootstrap seed (default 0)")
    stats.add_argument(
        "--confidence",
        type=_confidence,
        default=0.95,
        help="confidence level, strictly between 0 and 1 (default 0.95)",
    )
    stats.add_argument("--no-wer", dest="wer", action="store_false", help="skip the WER column")


def _bootstrap_count(text: str) -> int:
    from sitar.comparison import MAX_BOOTSTRAP

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 1 <= value <= MAX_BOOTSTRAP:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_BOOTSTRAP:,}, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2**63 - 1, got {text}")
    return value


def _confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {text}")
    return value


def check_wer_available(args: argparse.Namespace) -> None:
    """jiwer is a core dependency; in an environment without it the WER column is skipped with a
    notice instead of failing the whole run."""
    if not args.wer:
        return
    try:
        import jiwer  # noqa: F401
    except ImportError:
        notice(args, "jiwer is not installed: the WER column is skipped (pip install jiwer)")
        args.wer = False


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare ASR systems: mean score with bootstrap CIs, p-values, WER, MCR",
        description=(
            "Compare two or more systems on the same references (joined by utterance id): mean "
            "SITAR score per system with a paired-bootstrap confidence interval, pairwise "
            "p-values and win probabilities, WER (jiwer) and the meaning-critical rate, "
            "optionally per group. Lower scores are better."
        ),
    )
    add_system_input_arguments(parser)
    add_model_arguments(parser)
    add_statistics_arguments(parser)
    out = parser.add_argument_group("output")
    out.add_argument(
        "--json-out",
        metavar="PATH",
        help="write the result as one JSON document to PATH; '-': to standard output, in place "
        "of the table",
    )
    out.add_argument(
        "--json",
        dest="legacy_json",
        action=DeprecatedFlag,
        default=False,
        replacement="--json-out - (or --json-out FILE)",
    )
    out.add_argument(
        "-o", "--output", metavar="PATH", help="write the table to a file instead of stdout"
    )
    add_run_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sitar.comparison import compare

    if len(args.systems) < 2:
        raise InputError(
            f"give at least two systems with --system NAME=PATH, got {len(args.systems)}"
        )
    inputs = input_paths(args)
    # -o (default: stdout) carries the table, or the JSON document with the deprecated --json;
    # --json-out PATH writes the JSON document too ('-': stdout, which then gets no table).
    main_is_json = bool(getattr(args, "legacy_json", False))
    json_path = args.json_out
    if json_path is not None and _is_stdout(json_path):
        if not _is_stdout(args.output) or main_is_json:
            raise InputError("--json-out - and -o/--output/--json cannot both use standard output")
        main_is_json, json_path = True, None
    if json_path is not None:
        check_output_path(json_path, inputs=inputs, flag="--json-out")
        if not _is_stdout(args.output) and os.path.realpath(json_path) == os.path.realpath(
            args.output
        ):
            raise OutputError("--json-out and -o/--output name the same file")
    check_output_path(args.output, inputs=inputs)
    references, systems, groups = read_compare_inputs(args)
    check_wer_available(args)
    result = compare(
        load_scorer(args),
        references=references,
        systems=systems,
        groups=groups,
        n_bootstrap=args.bootstrap,
        seed=args.seed,
        confidence=args.confidence,
        wer=args.wer,
        batch_size=args.batch_size,
        progress=want_progress(args),
    )
    as_json = json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n"
    if json_path is not None:
        with open_output(json_path, inputs=inputs, flag="--json-out") as out:
            out.write(as_json)
    with open_output(args.output, inputs=inputs) as out:
        out.write(as_json if main_is_json else result.to_table())
    return 0
