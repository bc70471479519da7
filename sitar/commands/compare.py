"""``sitar compare``: compare two or more ASR systems on the same references.

A thin layer over :func:`sitar.diagnostics.compare`. Inputs: one reference file and, per system,
``--system NAME=PATH``, all in one ``--format``:

* ``text``: one utterance per line; ids are the 1-based line numbers;
* ``kaldi``: ``utt_id text`` per line;
* ``jsonl``: objects with ``id`` and ``reference`` (reference file) or ``hypothesis`` (systems).

Systems are joined to the references by id; missing and extra ids are reported by name. An
optional ``--groups FILE`` (``utt_id group`` per line) adds per-group breakdowns. The output is a
readable table (default) or JSON (``--json``), both with the seed and the signature.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from sitar.commands._model import add_model_arguments, load_scorer
from sitar.errors import InputError

__all__ = [
    "add_statistics_arguments",
    "add_system_input_arguments",
    "read_compare_inputs",
    "read_groups",
    "read_system_inputs",
    "register",
    "run",
]


def add_system_input_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("input")
    group.add_argument(
        "--ref-file", metavar="PATH", required=True, help="reference transcripts (see --format)"
    )
    group.add_argument(
        "--system",
        dest="systems",
        metavar="NAME=PATH",
        action="append",
        default=[],
        help="a system's hypotheses (repeat for each system; at least two)",
    )
    group.add_argument(
        "--format",
        dest="file_format",
        choices=("text", "kaldi", "jsonl"),
        default="kaldi",
        help="text: one utterance per line (ids = line numbers); kaldi: 'utt_id text' lines "
        "(default); jsonl: objects with id and reference / hypothesis",
    )
    group.add_argument(
        "--groups",
        metavar="PATH",
        default=None,
        help="optional 'utt_id group' lines (speaker, domain...) for per-group breakdowns",
    )


def _parse_system(spec: str) -> tuple[str, str]:
    name, sep, path = spec.partition("=")
    if not sep or not name.strip() or not path:
        raise InputError(f"--system expects NAME=PATH, got {spec!r}")
    return name.strip(), path


def _read_table(path: str, file_format: str, key: str) -> dict[str, str]:
    from sitar.io import read_kaldi, read_lines

    if file_format == "text":
        return {str(i): line for i, line in enumerate(read_lines(path), start=1)}
    if file_format == "kaldi":
        return read_kaldi(path)
    if file_format != "jsonl":
        raise InputError(f"unknown format {file_format!r}; expected text, kaldi or jsonl")
    table: dict[str, str] = {}
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{where}: invalid JSON ({e.msg} at column {e.colno})") from e
        if not isinstance(obj, dict) or "id" not in obj or key not in obj:
            raise InputError(f"{where}: expected a JSON object with 'id' and {key!r}")
        utt, text = obj["id"], obj[key]
        if isinstance(utt, bool) or not isinstance(utt, (str, int)):
            raise InputError(f"{where}: id must be a string or an integer, got {utt!r}")
        if not isinstance(text, str):
            raise InputError(f"{where}: {key} must be a string, got {type(text).__name__}")
        if str(utt) in table:
            raise InputError(f"{where}: duplicate id {str(utt)!r}")
        table[str(utt)] = text
    return table


def read_system_inputs(
    ref_file: str, systems: list[str], file_format: str
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """References (``id -> text``) and systems (``name -> {id -> text}``) from files."""
    references = _read_table(ref_file, file_format, "reference")
    tables: dict[str, dict[str, str]] = {}
    for spec in systems:
        name, path = _parse_system(spec)
        if name in tables:
            raise InputError(f"system name {name!r} is given twice; names must be unique")
        tables[name] = _read_table(path, file_format, "hypothesis")
    return references, tables


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
    from sitar.diagnostics import join_by_id

    references, systems = read_system_inputs(args.ref_file, args.systems, args.file_format)
    groups = read_groups(args.groups) if args.groups else None
    join_by_id(references, systems)
    return references, systems, groups


def add_statistics_arguments(parser: argparse.ArgumentParser) -> None:
    """Bootstrap and WER options shared by ``sitar compare`` and ``sitar report``."""
    stats = parser.add_argument_group("statistics")
    stats.add_argument(
        "--bootstrap", type=int, default=1000, metavar="B", help="bootstrap resamples (1000)"
    )
    stats.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    stats.add_argument(
        "--confidence", type=float, default=0.95, help="confidence level (default 0.95)"
    )
    stats.add_argument(
        "--no-wer", dest="wer", action="store_false", help="skip the WER column (no jiwer)"
    )


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
        "--json", dest="as_json", action="store_true", help="write JSON instead of the table"
    )
    out.add_argument("--json-out", metavar="PATH", help="also write the JSON result to PATH")
    out.add_argument("-o", "--output", metavar="PATH", help="write to a file instead of stdout")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sitar.diagnostics import compare

    if len(args.systems) < 2:
        raise InputError(
            f"give at least two systems with --system NAME=PATH, got {len(args.systems)}"
        )
    references, systems, groups = read_compare_inputs(args)
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
    )
    as_json = json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n"
    if args.json_out:
        Path(args.json_out).write_text(as_json, encoding="utf-8")
    out: TextIO = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        out.write(as_json if args.as_json else result.to_table())
    finally:
        if out is not sys.stdout:
            out.close()
    return 0
