"""Reading (reference, hypothesis) pairs from the inputs every ``sitar`` command accepts.

Four input forms, shared by ``sitar gaps`` and ``sitar score`` (and the annotation pipeline):

* one pair on the command line (``--ref TEXT --hyp TEXT``);
* parallel text files (``--ref-file R --hyp-file H``, one utterance per line; ids are 1-based line
  numbers; every line counts, including empty ones, and the line counts must agree);
* Kaldi-style files (``--format kaldi``: ``utt_id text`` per line), joined by id in reference order;
  ids missing on either side are reported by name, never dropped;
* JSONL (``--jsonl FILE`` or ``-`` for stdin) with ``id``, ``reference`` and ``hypothesis``.

Files must be UTF-8 (a byte-order mark is accepted); anything else is an :class:`InputError`
naming the file and line.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sitar.errors import InputError

__all__ = [
    "Pair",
    "add_pair_input_arguments",
    "pairs_from_args",
    "read_kaldi",
    "read_lines",
    "read_pairs",
]

_MAX_LISTED_IDS = 10


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    reference: str
    hypothesis: str


def read_lines(path: str | Path) -> list[str]:
    """Lines of a UTF-8 text file without their line endings; a final newline ends the last line."""
    if str(path) == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        p = Path(path)
        if not p.is_file():
            raise InputError(f"input file not found: {p}")
        data = p.read_bytes()
        name = str(p)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(
            f"{name}:{line}: not valid UTF-8 ({e.reason} at byte {e.start}); re-encode the file as UTF-8"
        ) from e
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _list_ids(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_MAX_LISTED_IDS])
    more = f" and {len(ids) - _MAX_LISTED_IDS} more" if len(ids) > _MAX_LISTED_IDS else ""
    return shown + more


def read_kaldi(path: str | Path) -> dict[str, str]:
    """``utt_id -> text`` from a Kaldi-style file; duplicate ids and blank lines are errors."""
    table: dict[str, str] = {}
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            raise InputError(
                f"{path}:{lineno}: empty line in a Kaldi-style file (expected 'utt_id text')"
            )
        parts = line.strip().split(maxsplit=1)
        utt = parts[0]
        if utt in table:
            raise InputError(f"{path}:{lineno}: duplicate utterance id {utt!r}")
        table[utt] = parts[1] if len(parts) > 1 else ""
    return table


def _read_jsonl(path: str | Path) -> list[Pair]:
    pairs: list[Pair] = []
    seen: set[str] = set()
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{where}: invalid JSON ({e.msg} at column {e.colno})") from e
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object with id, reference, hypothesis")
        missing = [k for k in ("id", "reference", "hypothesis") if k not in obj]
        if missing:
            raise InputError(f"{where}: missing field(s) {', '.join(missing)}")
        utt = obj["id"]
        if isinstance(utt, bool) or not isinstance(utt, (str, int)):
            raise InputError(f"{where}: id must be a string or an integer, got {utt!r}")
        for key in ("reference", "hypothesis"):
            if not isinstance(obj[key], str):
                raise InputError(f"{where}: {key} must be a string, got {type(obj[key]).__name__}")
        utt = str(utt)
        if utt in seen:
            raise InputError(f"{where}: duplicate id {utt!r}")
        seen.add(utt)
        pairs.append(Pair(utt, obj["reference"], obj["hypothesis"]))
    return pairs


def read_pairs(
    *,
    ref: str | None = None,
    hyp: str | None = None,
    ref_file: str | Path | None = None,
    hyp_file: str | Path | None = None,
    jsonl: str | Path | None = None,
    file_format: str = "text",
) -> list[Pair]:
    """Read pairs from exactly one input form (see the module docstring)."""
    given = [
        name
        for name, on in (
            ("--ref/--hyp", ref is not None or hyp is not None),
            ("--ref-file/--hyp-file", ref_file is not None or hyp_file is not None),
            ("--jsonl", jsonl is not None),
        )
        if on
    ]
    if len(given) != 1:
        raise InputError(
            "give exactly one input: --ref/--hyp, --ref-file/--hyp-file or --jsonl"
            + (f" (got {' and '.join(given)})" if given else "")
        )
    if jsonl is not None:
        return _read_jsonl(jsonl)
    if ref is not None or hyp is not None:
        if ref is None or hyp is None:
            raise InputError("--ref and --hyp must be given together")
        return [Pair("1", ref, hyp)]
    if ref_file is None or hyp_file is None:
        raise InputError("--ref-file and --hyp-file must be given together")
    if file_format == "text":
        refs, hyps = read_lines(ref_file), read_lines(hyp_file)
        if len(refs) != len(hyps):
            raise InputError(
                f"parallel files differ in length: {ref_file} has {len(refs)} lines, "
                f"{hyp_file} has {len(hyps)}; use --format kaldi to join by utterance id"
            )
        return [
            Pair(str(i), r, h) for i, (r, h) in enumerate(zip(refs, hyps, strict=True), start=1)
        ]
    if file_format == "kaldi":
        refs_k, hyps_k = read_kaldi(ref_file), read_kaldi(hyp_file)
        missing = [u for u in refs_k if u not in hyps_k]
        extra = [u for u in hyps_k if u not in refs_k]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"{len(missing)} id(s) missing from {hyp_file}: {_list_ids(missing)}")
            if extra:
                parts.append(
                    f"{len(extra)} id(s) in {hyp_file} but not in {ref_file}: {_list_ids(extra)}"
                )
            raise InputError("Kaldi files do not match: " + "; ".join(parts))
        return [Pair(u, refs_k[u], hyps_k[u]) for u in refs_k]
    raise InputError(f"unknown file format {file_format!r}; expected 'text' or 'kaldi'")


def add_pair_input_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the shared input options to a subcommand parser."""
    group = parser.add_argument_group("input (choose one)")
    group.add_argument("--ref", metavar="TEXT", help="reference transcript of a single pair")
    group.add_argument("--hyp", metavar="TEXT", help="hypothesis transcript of a single pair")
    group.add_argument("--ref-file", metavar="PATH", help="reference file (one utterance per line)")
    group.add_argument(
        "--hyp-file", metavar="PATH", help="hypothesis file (one utterance per line)"
    )
    group.add_argument(
        "--format",
        dest="file_format",
        choices=("text", "kaldi"),
        default="text",
        help="format of --ref-file/--hyp-file: parallel lines (text) or 'utt_id text' lines "
        "joined by id (kaldi); default: text",
    )
    group.add_argument(
        "--jsonl",
        metavar="PATH",
        help="JSONL with id, reference, hypothesis per line ('-' = stdin)",
    )


def pairs_from_args(args: argparse.Namespace) -> list[Pair]:
    return read_pairs(
        ref=args.ref,
        hyp=args.hyp,
        ref_file=args.ref_file,
        hyp_file=args.hyp_file,
        jsonl=args.jsonl,
        file_format=args.file_format,
    )
