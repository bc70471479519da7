"""Reading (reference, hypothesis) pairs from the inputs every ``sitar`` command accepts.

Input forms, shared by ``sitar gaps``, ``score`` and ``explain`` (and the annotation pipeline):

* one pair on the command line (``--ref TEXT --hyp TEXT``);
* a reference and a hypothesis file (``--ref-file R --hyp-file H``) in one ``--format``;
* one JSONL file of pairs (``--jsonl FILE`` or ``-`` for stdin) with ``id``, ``reference`` and
  ``hypothesis``.

``compare``, ``report`` (and ``score`` with ``--system``) read a reference file and one file per
system (``--system NAME=PATH``), in the same ``--format`` (:func:`read_reference_sets`, which also
reads several reference files: every one must hold the first one's ids, in ``text`` the same
number of lines; STM segments any of them ignores are left out of every file). ``--format`` means
the same in every command (:data:`FORMATS`):

* ``text`` (the default): one utterance per line; ids are 1-based line numbers; every line counts,
  including empty ones, and the line counts must agree;
* ``kaldi``: ``utt_id text`` per line, joined by id in reference order; ids missing on either side
  are reported by name, never dropped;
* ``jsonl``: objects with ``id`` and ``reference`` (reference file) or ``hypothesis``, joined by id;
* ``trn``, ``stm`` (sclite), ``nemo`` (NeMo manifests), ``csv`` and ``tsv``: read by
  :mod:`sitar.formats` (its docstring gives each id rule), joined by id. In ``nemo``, ``csv`` and
  ``tsv``, ``--ref-column``, ``--hyp-column`` and ``--id-column`` name the fields, and
  ``--ref-file`` alone reads both sides from one file. STM segments marked
  ``ignore_time_segment_in_scoring`` in the reference are left out of every file and reported.

Without ``--format``: when every input file name ends in the same one of ``.trn``, ``.stm``,
``.csv``, ``.tsv``, that is the format (names that disagree are refused). Otherwise files are read
as ``text``, except where that reading would misread them: when every line of every input file
starts with a different id-like word (one holding a digit or ``_``, as ``utt_01``), the text and
Kaldi readings pair different texts; when every line of a file ends in ``(utt_id)`` or is an STM
segment, a text reading keeps the ids in the transcripts. :func:`resolve_format` refuses these
with an :class:`InputError` that names the ``--format`` to give. NeMo manifests are never
detected (their ``.json`` names are shared with other JSON): give ``--format nemo``.

Every file argument also accepts ``-`` (standard input, read once), ``/dev/stdin``, named pipes and
process substitutions (``<(...)``). Files must be UTF-8 (a byte-order mark is accepted); anything
else is an :class:`InputError` naming the file and line. Lines end at ``\n``, ``\r\n`` or a lone
``\r`` (old Mac files): all three split utterances. Texts must be valid Unicode (a lone surrogate,
e.g. from ``"\ud800"`` in JSON, is refused).

Outputs go through :func:`open_output` (:mod:`sitar.outputs`, re-exported here): checked before
any work, written atomically.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitar.errors import InputError
from sitar.formats import (
    COLUMN_FORMATS,
    EXTENSIONS,
    IGNORE_SEGMENT,
    Columns,
    Table,
    drop_ignored,
    parse_delimited,
    parse_nemo,
    parse_stm,
    parse_trn,
    stm_like,
    trn_like,
)
from sitar.outputs import _is_stdout as _is_stdout  # re-exported for the commands
from sitar.outputs import check_output_path, open_output, remove_stale_parts
from sitar.validation import check_text  # the one text check, re-exported

__all__ = [
    "FORMATS",
    "Columns",
    "Pair",
    "ReferenceSets",
    "Report",
    "add_format_argument",
    "add_pair_input_arguments",
    "check_output_path",
    "check_same_ids",
    "check_text",
    "columns_from_args",
    "open_output",
    "pairs_from_args",
    "parse_system",
    "parse_systems",
    "parse_table",
    "read_jsonl_rows",
    "read_kaldi",
    "read_lines",
    "read_pairs",
    "read_reference_sets",
    "read_system_inputs",
    "read_table",
    "remove_stale_parts",
    "resolve_format",
]

#: Input file formats, the same in every command (``--format``); the ASR formats after ``jsonl``
#: are read in :mod:`sitar.formats`.
FORMATS = ("text", "kaldi", "jsonl", "trn", "stm", "nemo", "csv", "tsv")

_LINE_END = re.compile(r"\r\n|\r|\n")

_MAX_LISTED_IDS = 10


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    reference: str
    hypothesis: str


def read_bytes(path: str | Path) -> tuple[bytes, str]:
    """The bytes of ``path`` (``-``: standard input) and the name to show in messages.

    Works on regular files, ``/dev/stdin``, named pipes and process substitutions; every failure
    is a one-line :class:`InputError` (not found, is a directory, permission denied...).
    """
    if str(path) == "-":
        stdin = sys.stdin
        if stdin is None or stdin.closed:
            raise InputError("standard input is closed; pass a file instead of '-'")
        try:
            return stdin.buffer.read(), "<stdin>"
        except (OSError, ValueError) as e:
            raise InputError(f"cannot read standard input: {e}") from e
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            return fh.read(), str(p)
    except FileNotFoundError as e:
        raise InputError(f"input file not found: {p}") from e
    except IsADirectoryError as e:
        raise InputError(f"{p} is a directory, not a file") from e
    except PermissionError as e:
        raise InputError(f"{p}: permission denied") from e
    except OSError as e:
        raise InputError(f"cannot read {p}: {e.strerror or e}") from e


def read_lines(path: str | Path) -> list[str]:
    """Lines of a UTF-8 text file without their line endings; a final line end ends the last line.

    ``\n``, ``\r\n`` and a lone ``\r`` all end a line.
    """
    data, name = read_bytes(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = len(_LINE_END.findall(data[: e.start].decode("utf-8", "replace"))) + 1
        raise InputError(
            f"{name}:{line}: not valid UTF-8 ({e.reason} at byte {e.start}); re-encode the file as UTF-8"
        ) from e
    if text == "":
        return []
    lines = _LINE_END.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def _list_ids(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_MAX_LISTED_IDS])
    more = f" and {len(ids) - _MAX_LISTED_IDS} more" if len(ids) > _MAX_LISTED_IDS else ""
    return shown + more


def parse_kaldi(lines: Sequence[str], name: str | Path) -> dict[str, str]:
    """``utt_id -> text`` from the lines of a Kaldi-style file; duplicate ids and blank lines are
    errors."""
    table: dict[str, str] = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            raise InputError(
                f"{name}:{lineno}: empty line in a Kaldi-style file (expected 'utt_id text')"
            )
        parts = line.strip().split(maxsplit=1)
        utt = parts[0]
        if utt in table:
            raise InputError(f"{name}:{lineno}: duplicate utterance id {utt!r}")
        table[utt] = parts[1] if len(parts) > 1 else ""
    return table


def read_kaldi(path: str | Path) -> dict[str, str]:
    """``utt_id -> text`` from a Kaldi-style file; duplicate ids and blank lines are errors."""
    return parse_kaldi(read_lines(path), path)


def read_table(
    lines: Sequence[str],
    name: str | Path,
    file_format: str,
    key: str,
    columns: Columns | None = None,
) -> Table:
    """One side (``key``: ``reference`` or ``hypothesis``) of one input file in ``file_format``
    (:data:`FORMATS`): ``text`` ids are 1-based line numbers (every line counts), ``kaldi`` ids
    the first word, ``jsonl`` objects with ``id`` and ``key``; the ASR formats are read by
    :mod:`sitar.formats` (``columns``: ``--ref-column``/``--hyp-column``/``--id-column``). STM
    segments marked ``ignore_time_segment_in_scoring`` are in :attr:`Table.ignored`, not in the
    texts. Every id and text must be valid Unicode (:func:`check_text`)."""
    cols = columns or Columns()
    if file_format == "stm":
        table = parse_stm(lines, name)
    else:
        if file_format == "text":
            texts = {str(i): line for i, line in enumerate(lines, start=1)}
        elif file_format == "kaldi":
            texts = parse_kaldi(lines, name)
        elif file_format == "jsonl":
            texts = _parse_jsonl_side(lines, name, key)
        elif file_format == "trn":
            texts = parse_trn(lines, name)
        elif file_format == "nemo":
            texts = parse_nemo(lines, name, key, cols)
        elif file_format in ("csv", "tsv"):
            texts = parse_delimited(lines, name, file_format, key, cols)
        else:
            raise InputError(
                f"unknown format {file_format!r}; expected one of {', '.join(FORMATS)}"
            )
        table = Table(texts, {})
    for utt, text in table.texts.items():
        check_text(utt, f"{name}: id")
        check_text(text, f"{name}: {key} of id {utt!r}")
    return table


def parse_table(
    lines: Sequence[str],
    name: str | Path,
    file_format: str,
    key: str,
    columns: Columns | None = None,
) -> dict[str, str]:
    """``id -> text`` of :func:`read_table` (STM segments marked
    ``ignore_time_segment_in_scoring`` are left out, with a :class:`UserWarning` that counts them;
    :func:`read_table` lists them)."""
    table = read_table(lines, name, file_format, key, columns)
    if table.ignored:
        _warn(f"{name}: {len(table.ignored)} segment(s) marked {IGNORE_SEGMENT} are left out")
    return table.texts


def _parse_jsonl_side(lines: Sequence[str], name: str | Path, key: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}:{lineno}"
        obj = parse_json_line(line, where)
        if not isinstance(obj, dict) or "id" not in obj or key not in obj:
            raise InputError(f"{where}: expected a JSON object with 'id' and {key!r}")
        utt, text = obj["id"], obj[key]
        if isinstance(utt, bool) or not isinstance(utt, (str, int)):
            raise InputError(f"{where}: id must be a string or an integer, got {utt!r}")
        if not isinstance(text, str):
            raise InputError(f"{where}: {key} must be a string, got {type(text).__name__}")
        utt = check_text(str(utt), f"{where}: id")
        if utt in table:
            raise InputError(f"{where}: duplicate id {utt!r}")
        table[utt] = check_text(text, f"{where}: {key}")
    return table


# A first word that could be a Kaldi utterance id: it holds a digit or an underscore.
_ID_LIKE = re.compile(r"\S*[0-9_]\S*")


def _kaldi_like(lines: Sequence[str]) -> bool:
    """Every line starts with an id-like word (a digit or ``_`` in it), all of them different."""
    firsts = []
    for line in lines:
        words = line.split(maxsplit=1)
        if not words or not _ID_LIKE.fullmatch(words[0]):
            return False
        firsts.append(words[0])
    return bool(firsts) and len(set(firsts)) == len(firsts)


def _format_by_name(files: Mapping[str, Sequence[str]]) -> str | None:
    """The format the file names give (:data:`sitar.formats.EXTENSIONS`): ``None`` when no name
    ends in a known extension; an :class:`InputError` when the names disagree."""
    found = {name: EXTENSIONS.get(Path(name).suffix.lower()) for name in files}
    kinds = set(found.values())
    if kinds == {None} or not kinds:
        return None
    if len(kinds) == 1:
        return kinds.pop()
    shown = ", ".join(f"{name} ({kind or 'no known extension'})" for name, kind in found.items())
    raise InputError(
        f"the file names suggest different formats: {shown}; say which with --format "
        f"{'|'.join(FORMATS)}"
    )


def resolve_format(file_format: str | None, files: Mapping[str, Sequence[str]]) -> str:
    """The format to read ``files`` (name -> lines) in.

    ``file_format`` when given. Otherwise: the format every file name's extension names
    (``.trn``, ``.stm``, ``.csv``, ``.tsv``; names that disagree are an :class:`InputError`);
    else ``text``, unless a plain-text reading would misread the files, which is an
    :class:`InputError` asking for ``--format``: every file would also read as Kaldi ``utt_id
    text`` lines (each line starts with a different id-like word such as ``utt_01``; the two
    readings pair different texts), or any file reads as sclite ``trn`` (every line ends in
    ``(utt_id)``) or ``stm`` (every line a segment or a ``;;`` comment)."""
    if file_format is not None:
        if file_format not in FORMATS:
            raise InputError(
                f"unknown format {file_format!r}; expected one of {', '.join(FORMATS)}"
            )
        return file_format
    by_name = _format_by_name(files)
    if by_name is not None:
        return by_name
    for fmt, looks_like in (("trn", trn_like), ("stm", stm_like)):
        like = [str(n) for n, lines in files.items() if looks_like(lines)]
        if like:
            raise InputError(
                f"{', '.join(like)}: every line reads as sclite {fmt}, which a plain-text reading "
                f"(one utterance per line, the default) would keep in the transcripts; say which "
                f"with --format {fmt} or --format text"
            )
    if files and all(_kaldi_like(lines) for lines in files.values()):
        names = ", ".join(str(n) for n in files)
        raise InputError(
            f"{names}: every line starts with a different id-like word, so these files read "
            "both as plain text (one utterance per line, the default) and as Kaldi 'utt_id "
            "text' lines, which pair different texts; say which with --format text or "
            "--format kaldi"
        )
    return "text"


#: Called with a one-line notice (e.g. STM segments not scored); the CLI prints it on stderr.
Report = Callable[[str], None]


def _warn(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=3)


def _check_columns(file_format: str, columns: Columns) -> None:
    given = columns.given()
    if given and file_format not in COLUMN_FORMATS:
        raise InputError(
            f"{', '.join(given)}: only for --format {', '.join(COLUMN_FORMATS)} (files with "
            f"named fields); these files are read as {file_format}"
        )


def parse_json_line(line: str, where: str) -> object:
    """One JSON value; malformed, too deeply nested or over-long numbers are an InputError."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}: invalid JSON ({e.msg} at column {e.colno})") from e
    except RecursionError as e:
        raise InputError(f"{where}: JSON nested too deeply") from e
    except ValueError as e:  # e.g. an integer with more digits than Python converts
        raise InputError(f"{where}: invalid JSON value ({e})") from e


def read_jsonl_rows(path: str | Path, *, lists: bool = False) -> list[tuple[str, list[str], str]]:
    """``(id, references, hypothesis)`` per ``--jsonl`` pair; ``lists``: ``reference`` may be a list."""
    rows: list[tuple[str, list[str], str]] = []
    seen: set[str] = set()
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        obj = parse_json_line(line, where)
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object with id, reference, hypothesis")
        missing = [k for k in ("id", "reference", "hypothesis") if k not in obj]
        if missing:
            raise InputError(f"{where}: missing field(s) {', '.join(missing)}")
        utt, refs = obj["id"], obj["reference"]
        if isinstance(utt, bool) or not isinstance(utt, (str, int)):
            raise InputError(f"{where}: id must be a string or an integer, got {utt!r}")
        listed = lists and isinstance(refs, list)
        if listed and not refs:
            raise InputError(f"{where}: reference is an empty list; give at least one")
        texts = [(f"reference[{j}]", t) for j, t in enumerate(refs)] if listed else []
        texts = texts or [("reference", refs)]
        for key, text in [*texts, ("hypothesis", obj["hypothesis"])]:
            if not isinstance(text, str):
                raise InputError(f"{where}: {key} must be a string, got {type(text).__name__}")
        utt = check_text(str(utt), f"{where}: id")
        for key, text in [*texts, ("hypothesis", obj["hypothesis"])]:
            check_text(text, f"{where}: {key}")
        if utt in seen:
            raise InputError(f"{where}: duplicate id {utt!r}")
        seen.add(utt)
        rows.append((utt, [t for _, t in texts], obj["hypothesis"]))
    return rows


def read_pairs(
    *,
    ref: str | None = None,
    hyp: str | None = None,
    ref_file: str | Path | None = None,
    hyp_file: str | Path | None = None,
    jsonl: str | Path | None = None,
    file_format: str | None = None,
    columns: Columns | None = None,
    report: Report | None = None,
) -> list[Pair]:
    """Read pairs from exactly one input form (see the module docstring). In the formats whose
    rows hold both sides (``nemo``, ``csv``, ``tsv``), ``hyp_file`` may be left out: both sides
    come from ``ref_file``. ``report`` receives notices such as STM segments not scored
    (default: a :class:`UserWarning`)."""
    cols = columns or Columns()
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
    if jsonl is not None or ref is not None or hyp is not None:
        if cols.given():
            raise InputError(
                f"{', '.join(cols.given())} apply to --ref-file/--hyp-file in --format "
                f"{', '.join(COLUMN_FORMATS)}, not to {given[0]}"
            )
    if jsonl is not None:
        return [Pair(u, refs[0], h) for u, refs, h in read_jsonl_rows(jsonl)]
    if ref is not None or hyp is not None:
        if ref is None or hyp is None:
            raise InputError("--ref and --hyp must be given together")
        return [Pair("1", check_text(ref, "--ref"), check_text(hyp, "--hyp"))]
    if ref_file is None:
        raise InputError("--ref-file and --hyp-file must be given together")
    ref_lines = read_lines(ref_file)
    if hyp_file is None or str(hyp_file) == str(ref_file):
        hyp_name, hyp_lines = ref_file, ref_lines
        fmt = resolve_format(file_format, {str(ref_file): ref_lines})
        if hyp_file is None and fmt not in COLUMN_FORMATS:
            raise InputError(
                "--ref-file and --hyp-file must be given together (only --format "
                f"{', '.join(COLUMN_FORMATS)} read both sides from one file)"
            )
    else:
        hyp_name, hyp_lines = hyp_file, read_lines(hyp_file)
        fmt = resolve_format(file_format, {str(ref_file): ref_lines, str(hyp_file): hyp_lines})
    _check_columns(fmt, cols)
    if fmt == "text":
        check_same_ids(ref_file, _line_ids(ref_lines), hyp_name, _line_ids(hyp_lines), fmt)
        return [
            Pair(str(i), r, h)
            for i, (r, h) in enumerate(zip(ref_lines, hyp_lines, strict=True), start=1)
        ]
    ref_table = read_table(ref_lines, ref_file, fmt, "reference", cols)
    hyp_table = read_table(hyp_lines, hyp_name, fmt, "hypothesis", cols)
    refs_k = ref_table.texts
    kept, note = drop_ignored(ref_file, ref_table, {str(hyp_name): hyp_table})
    if note:
        (report or _warn)(note)
    hyps_k = kept[str(hyp_name)]
    check_same_ids(ref_file, refs_k, hyp_name, hyps_k, fmt)
    return [Pair(u, refs_k[u], hyps_k[u]) for u in refs_k]


def _line_ids(lines: Sequence[str]) -> list[str]:
    return [str(i) for i in range(1, len(lines) + 1)]


def check_same_ids(
    ref_name: str | Path,
    ref_ids: Iterable[str],
    name: str | Path,
    ids: Iterable[str],
    file_format: str,
) -> None:
    """An :class:`InputError` unless file ``name`` holds exactly the ids of ``ref_name``: in
    ``text``, the same number of lines; else every missing and extra id is named."""
    ref_ids, ids = list(ref_ids), list(ids)
    if file_format == "text":
        if len(ref_ids) != len(ids):
            raise InputError(
                f"parallel files differ in length: {ref_name} has {len(ref_ids)} lines, "
                f"{name} has {len(ids)}; use --format kaldi to join by utterance id"
            )
        return
    have, want = set(ids), set(ref_ids)
    missing = [u for u in ref_ids if u not in have]
    extra = [u for u in ids if u not in want]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"{len(missing)} id(s) missing from {name}: {_list_ids(missing)}")
        if extra:
            parts.append(f"{len(extra)} id(s) in {name} but not in {ref_name}: {_list_ids(extra)}")
        raise InputError(
            f"{_LABELS.get(file_format, file_format.upper() + ' files')} do not match: "
            + "; ".join(parts)
        )


# -- reference and system files joined by id ---------------------------------------------------
# Several systems (--system NAME=PATH) and several references per utterance (--ref-file
# repeated), every file in one format and read once: reference files must hold the first one's
# ids; systems are joined by sitar.comparison.join_by_id, which names what each lacks or adds.


def parse_system(spec: str) -> tuple[str, str]:
    """``NAME=PATH`` of ``--system`` into ``(NAME, PATH)``."""
    name, sep, path = spec.partition("=")
    if not sep or not name.strip() or not path:
        raise InputError(f"--system expects NAME=PATH, got {spec!r}")
    return name.strip(), path


def parse_systems(specs: Sequence[str]) -> dict[str, str]:
    """``--system`` specs into ``name -> path`` in the order given; a repeated name is an error."""
    out: dict[str, str] = {}
    for name, path in map(parse_system, specs):
        if name in out:
            raise InputError(f"system name {name!r} is given twice; names must be unique")
        out[name] = path
    return out


@dataclass(frozen=True)
class ReferenceSets:
    """What :func:`read_reference_sets` read: ``references`` holds one ``id -> text`` map per
    reference file, all in the first file's id order; ``hypotheses`` one ``id -> text`` map per
    hypothesis file (by name), not yet joined; ``format`` the format they were read in."""

    references: list[dict[str, str]]
    hypotheses: dict[str, dict[str, str]]
    format: str

    @property
    def ids(self) -> list[str]:
        return list(self.references[0])

    def candidates(self) -> list[list[str]]:
        """Each utterance's reference texts, one per reference file, in :attr:`ids` order."""
        return [[refs[u] for refs in self.references] for u in self.references[0]]


def read_reference_sets(
    ref_files: Sequence[str],
    hyp_files: Mapping[str, str],
    file_format: str | None = None,
    columns: Columns | None = None,
    *,
    report: Report | None = None,
) -> ReferenceSets:
    """Reference files (one or more) and hypothesis files (``name -> path``), read in one format
    (``None``: :func:`sitar.io.resolve_format`); the reference files' ids are checked equal."""
    if not ref_files:
        raise InputError("give at least one reference file (--ref-file PATH)")
    cols = columns or Columns()
    lines: dict[str, list[str]] = {}
    for path in [*ref_files, *hyp_files.values()]:
        if path not in lines:
            lines[path] = read_lines(path)
    fmt = resolve_format(file_format, lines)
    _check_columns(fmt, cols)
    refs = [read_table(lines[path], path, fmt, "reference", cols) for path in ref_files]
    hyps = {name: read_table(lines[p], p, fmt, "hypothesis", cols) for name, p in hyp_files.items()}
    # Only a reference marks segments that are not scored; with several, any of them does.
    ignored = {u: n for table in reversed(refs) for u, n in table.ignored.items()}
    marker = Table(refs[0].texts, ignored)
    names = ", ".join(dict.fromkeys(ref_files))
    kept_refs, note = drop_ignored(names, marker, {str(j): t for j, t in enumerate(refs)})
    kept_hyps, _ = drop_ignored(names, marker, {p: hyps[name] for name, p in hyp_files.items()})
    if note:
        (report or _warn)(note)
    first = kept_refs["0"]
    out = [first]
    for j in range(1, len(ref_files)):
        other = kept_refs[str(j)]
        check_same_ids(ref_files[0], first, ref_files[j], other, fmt)
        out.append({u: other[u] for u in first})
    return ReferenceSets(out, {name: kept_hyps[p] for name, p in hyp_files.items()}, fmt)


def read_system_inputs(
    ref_file: str,
    systems: Sequence[str],
    file_format: str | None = None,
    columns: Columns | None = None,
    *,
    report: Report | None = None,
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """References (``id -> text``) and systems (``name -> {id -> text}``, from ``NAME=PATH``
    specs) from files in one format: :func:`read_reference_sets` with one reference file. Ids are
    not joined here (:func:`sitar.comparison.join_by_id` does, naming missing and extra ids)."""
    sets = read_reference_sets(
        [ref_file], parse_systems(systems), file_format, columns, report=report
    )
    return sets.references[0], sets.hypotheses


_LABELS = {"kaldi": "Kaldi files", "jsonl": "JSONL files", "nemo": "NeMo manifests"}


def add_format_argument(group: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--format`` and the column options, the same in every command: the format of every
    input file."""
    group.add_argument(
        "--format",
        dest="file_format",
        choices=FORMATS,
        default=None,
        help="format of the input files: text (one utterance per line, ids = line numbers; the "
        "default), kaldi ('utt_id text' lines), jsonl (objects with id and reference / "
        "hypothesis), trn (sclite 'text (utt_id)'), stm (sclite segments; id "
        "waveform_channel_begin), nemo (manifest: text / pred_text, id audio_filepath), csv or "
        "tsv (header row; columns reference, hypothesis, id); all but text are joined by id. "
        "Not given: the files' common extension (.trn .stm .csv .tsv), else text; files that "
        "would also read as kaldi, trn or stm are refused as ambiguous",
    )
    group.add_argument(
        "--ref-column",
        metavar="NAME",
        default=None,
        help="nemo/csv/tsv: the field holding the reference (default: text in nemo, reference "
        "in csv/tsv)",
    )
    group.add_argument(
        "--hyp-column",
        metavar="NAME",
        default=None,
        help="nemo/csv/tsv: the field holding the hypothesis (default: pred_text in nemo, "
        "hypothesis in csv/tsv)",
    )
    group.add_argument(
        "--id-column",
        metavar="NAME",
        default=None,
        help="nemo/csv/tsv: the field holding the utterance id (default: audio_filepath in nemo, "
        "id in csv/tsv, where present; else line / row numbers)",
    )


def columns_from_args(args: argparse.Namespace) -> Columns:
    """``--ref-column``, ``--hyp-column``, ``--id-column`` of a parsed command line."""
    return Columns(
        ref=getattr(args, "ref_column", None),
        hyp=getattr(args, "hyp_column", None),
        id=getattr(args, "id_column", None),
    )


def add_pair_input_arguments(
    parser: argparse.ArgumentParser, *, several_references: bool = False
) -> None:
    """Add the shared input options to a subcommand parser (``several_references``: ``--ref-file``
    may be repeated and is a list, None when not given; ``sitar score``)."""
    group = parser.add_argument_group("input (choose one)")
    group.add_argument("--ref", metavar="TEXT", help="reference transcript of a single pair")
    group.add_argument("--hyp", metavar="TEXT", help="hypothesis transcript of a single pair")
    many: dict[str, Any] = {"action": "append"} if several_references else {}  # else SingleValue
    group.add_argument("--ref-file", metavar="PATH", help="reference file (see --format)", **many)
    group.add_argument("--hyp-file", metavar="PATH", help="hypothesis file (see --format)")
    add_format_argument(group)
    group.add_argument(
        "--jsonl",
        metavar="PATH",
        help="one JSONL file of pairs: id, reference, hypothesis per line ('-' = stdin)",
    )


def pairs_from_args(args: argparse.Namespace, report: Report | None = None) -> list[Pair]:
    """The pairs of a command line's input options (:func:`add_pair_input_arguments`)."""
    return read_pairs(
        ref=args.ref,
        hyp=args.hyp,
        ref_file=args.ref_file,
        hyp_file=args.hyp_file,
        jsonl=args.jsonl,
        file_format=args.file_format,
        columns=columns_from_args(args),
        report=report,
    )


def input_paths(args: argparse.Namespace) -> list[str]:
    """Every input file named on a command line (for the same-file check of outputs)."""
    refs = getattr(args, "ref_file", None)  # a list in ``sitar score`` (repeatable)
    paths = [*(refs if isinstance(refs, list) else [refs])]
    paths += [getattr(args, k, None) for k in ("hyp_file", "jsonl", "groups")]
    for spec in getattr(args, "systems", None) or []:
        paths.append(str(spec).partition("=")[2])
    return [p for p in paths if p]
