"""Readers for the ASR file formats of ``--format``: sclite ``trn`` and ``stm``, NeMo manifests,
CSV and TSV (the line formats ``text``, ``kaldi`` and ``jsonl`` are read in :mod:`sitar.io`).

Each reader turns the lines of one input file into ``id -> text`` for one side (``reference`` or
``hypothesis``); :mod:`sitar.io` joins the sides by id and decides the format
(:func:`sitar.io.resolve_format`). Every bad row is an :class:`InputError` naming the file and the
line; no row is skipped, except what each format's rule below says, and that is counted:

* ``trn`` (sclite): ``text (utt_id)`` per line; the id is the last parenthesised word. The text is
  kept as written (sclite's optionally deletable ``(word)`` and ``{ a / b }`` alternations are not
  interpreted). A blank line is an error.
* ``stm`` (sclite): ``waveform channel speaker begin end [<label>] transcript`` per line; lines
  starting with ``;;`` are comments. The id of a segment is ``waveform_channel_begin``, with
  ``begin`` written as a decimal without trailing zeros (``0.50`` -> ``0.5``, ``12.00`` -> ``12``),
  so that the same segment in two files has the same id. A segment whose transcript is
  ``ignore_time_segment_in_scoring`` (any case) is not scored: it is returned in
  :attr:`Table.ignored`; :func:`drop_ignored` leaves it out of every file (only the reference
  marks segments so) with a note that counts them, which :mod:`sitar.io` reports.
* ``nemo``: a NeMo manifest, one JSON object per line (blank lines are skipped, as in every JSONL
  input); the reference is ``text`` and the hypothesis ``pred_text`` unless ``--ref-column`` /
  ``--hyp-column`` name other fields. The id is ``audio_filepath`` (or the ``--id-column`` field)
  when every row has it, else the 1-based line number.
* ``csv`` and ``tsv``: a header row, then one row per utterance, read with Python's :mod:`csv`
  module. Columns ``reference``, ``hypothesis`` and ``id`` unless ``--ref-column``,
  ``--hyp-column``, ``--id-column`` name others; without an id column the ids are the 1-based row
  numbers (the header not counted). CSV follows RFC 4180 quoting (strictly: a stray quote is an
  error, not a silent change of the text); TSV has no quoting (a ``"`` is an ordinary character),
  so a field cannot hold a tab or a line break.

In ``nemo``, ``csv`` and ``tsv`` one row holds both sides, so one file can be both the reference
and the hypothesis file (``--ref-file`` alone).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from sitar.errors import InputError

__all__ = [
    "COLUMN_FORMATS",
    "EXTENSIONS",
    "IGNORE_SEGMENT",
    "Columns",
    "Table",
    "drop_ignored",
    "parse_delimited",
    "parse_nemo",
    "parse_stm",
    "parse_trn",
    "stm_like",
    "trn_like",
]

#: Formats whose rows name their fields; one row holds both sides (``--ref-column`` ...).
COLUMN_FORMATS = ("nemo", "csv", "tsv")
#: File name endings that name a format when ``--format`` is not given (all files must agree).
EXTENSIONS = {".trn": "trn", ".stm": "stm", ".csv": "csv", ".tsv": "tsv"}
#: The sclite transcript of an STM segment that is not scored (compared in lower case).
IGNORE_SEGMENT = "ignore_time_segment_in_scoring"
_MAX_LISTED = 10

# Default field names per format: (reference, hypothesis, id).
_DEFAULT_COLUMNS = {
    "nemo": ("text", "pred_text", "audio_filepath"),
    "csv": ("reference", "hypothesis", "id"),
    "tsv": ("reference", "hypothesis", "id"),
}


@dataclass(frozen=True, slots=True)
class Columns:
    """``--ref-column``, ``--hyp-column`` and ``--id-column`` (``None``: the format's default)."""

    ref: str | None = None
    hyp: str | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        for flag, value in self._flags():
            if value is not None and not value.strip():
                raise InputError(f"{flag} needs a field name, got {value!r}")

    def _flags(self) -> tuple[tuple[str, str | None], ...]:
        return (("--ref-column", self.ref), ("--hyp-column", self.hyp), ("--id-column", self.id))

    def given(self) -> list[str]:
        """The flags that were given, for messages."""
        return [flag for flag, value in self._flags() if value is not None]


@dataclass(frozen=True, slots=True)
class Table:
    """One side of one file: ``id -> text`` in file order, and the ids of STM segments marked
    :data:`IGNORE_SEGMENT` (not in ``texts``) with their line numbers."""

    texts: dict[str, str]
    ignored: dict[str, int]


# -- trn ------------------------------------------------------------------------------------------

# `text (utt_id)`: the id is the last parenthesised word; earlier parentheses belong to the text.
_TRN = re.compile(r"^(?P<text>.*?)\s*\((?P<id>[^()\s]+)\)\s*$")


def parse_trn(lines: Sequence[str], name: str | Path) -> dict[str, str]:
    """``utt_id -> text`` from sclite ``text (utt_id)`` lines."""
    table: dict[str, str] = {}
    for lineno, line in enumerate(lines, start=1):
        match = _TRN.match(line)
        if match is None:
            what = "empty line" if not line.strip() else f"got {_clip(line)!r}"
            raise InputError(
                f"{name}:{lineno}: expected a trn line 'text (utt_id)' ending in the utterance id "
                f"in parentheses, {what}"
            )
        utt = match["id"]
        if utt in table:
            raise InputError(f"{name}:{lineno}: duplicate utterance id {utt!r}")
        table[utt] = match["text"].strip()
    return table


def trn_like(lines: Sequence[str]) -> bool:
    """Every line ends in a parenthesised id (a file a plain-text reading would misread)."""
    return bool(lines) and all(_TRN.match(line) for line in lines)


# -- stm ------------------------------------------------------------------------------------------


def _stm_time(text: str, what: str, where: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise InputError(
            f"{where}: {what} time must be a number of seconds, got {text!r}"
        ) from None
    if not value.is_finite() or value < 0:
        raise InputError(f"{where}: {what} time must be a number of seconds >= 0, got {text!r}")
    return value


def _stm_id(waveform: str, channel: str, begin: Decimal) -> str:
    # `normalize` drops trailing zeros; format "f" keeps 100 as "100", not "1E+2".
    return f"{waveform}_{channel}_{format(begin.normalize(), 'f')}"


def parse_stm(lines: Sequence[str], name: str | Path) -> Table:
    """Segments of an sclite STM file (see the module docstring for the id rule)."""
    texts: dict[str, str] = {}
    ignored: dict[str, int] = {}
    lines_of: dict[str, int] = {}
    for lineno, line in enumerate(lines, start=1):
        if line.startswith(";;"):
            continue
        where = f"{name}:{lineno}"
        fields = line.split(maxsplit=5)
        if len(fields) < 5:
            what = "empty line" if not fields else f"got {len(fields)} field(s)"
            raise InputError(
                f"{where}: expected an STM line 'waveform channel speaker begin end [<label>] "
                f"transcript', {what}"
            )
        waveform, channel, _speaker, begin_text, end_text = fields[:5]
        begin = _stm_time(begin_text, "begin", where)
        if _stm_time(end_text, "end", where) < begin:
            raise InputError(f"{where}: end time {end_text} is before begin time {begin_text}")
        transcript = fields[5] if len(fields) > 5 else ""
        if transcript.startswith("<"):
            label, sep, rest = transcript.partition(">")
            if not sep or any(c.isspace() for c in label):
                raise InputError(f"{where}: unclosed STM label {_clip(label)!r}; expected <label>")
            transcript = rest
        transcript = transcript.strip()
        utt = _stm_id(waveform, channel, begin)
        if utt in lines_of:
            raise InputError(
                f"{where}: duplicate segment {utt!r} (waveform {waveform}, channel {channel}, "
                f"begin {begin_text}; first on line {lines_of[utt]})"
            )
        lines_of[utt] = lineno
        if transcript.lower() == IGNORE_SEGMENT:
            ignored[utt] = lineno
        else:
            texts[utt] = transcript
    return Table(texts, ignored)


def drop_ignored(
    ref_name: str | Path, ref: Table, hyps: Mapping[str, Table]
) -> tuple[dict[str, dict[str, str]], str | None]:
    """The hypothesis tables (by file name) without the STM segments the reference marks
    :data:`IGNORE_SEGMENT`, and a note that counts them (``None`` when there are none), for the
    caller to report: they are never dropped in silence. Only the reference decides: a hypothesis
    segment marked so is an error unless its reference segment is marked too."""
    out = {}
    for name, table in hyps.items():
        for utt, lineno in table.ignored.items():
            if utt not in ref.ignored:
                raise InputError(
                    f"{name}:{lineno}: segment {utt!r} is marked {IGNORE_SEGMENT} in the "
                    f"hypotheses but not in {ref_name}; only the reference marks segments that "
                    "are not scored"
                )
        out[name] = {u: t for u, t in table.texts.items() if u not in ref.ignored}
    if not ref.ignored:
        return out, None
    lines = ", ".join(str(n) for n in list(ref.ignored.values())[:_MAX_LISTED])
    more = ", ..." if len(ref.ignored) > _MAX_LISTED else ""
    return out, (
        f"{ref_name}: {len(ref.ignored)} segment(s) marked {IGNORE_SEGMENT} (line(s) "
        f"{lines}{more}) are not scored; they are left out of the references and of every "
        "hypothesis file"
    )


_SECONDS = r"(\d+\.?\d*|\.\d+)"
_STM_LINE = re.compile(rf"^\S+\s+\S+\s+\S+\s+{_SECONDS}\s+{_SECONDS}(\s.*)?$")


def stm_like(lines: Sequence[str]) -> bool:
    """Every line is an STM comment or segment, and there is a segment."""
    segments = [line for line in lines if not line.startswith(";;")]
    return bool(segments) and all(_STM_LINE.match(line) for line in segments)


# -- nemo -----------------------------------------------------------------------------------------


def _field_names(fmt: str, key: str, columns: Columns) -> tuple[str, str, bool]:
    """The text field for ``key`` (reference/hypothesis), the id field, and whether the id field
    was named (then every row needs it)."""
    ref, hyp, utt = _DEFAULT_COLUMNS[fmt]
    named = columns.ref if key == "reference" else columns.hyp
    text_field = named if named is not None else (ref if key == "reference" else hyp)
    if columns.id is not None:
        return text_field, columns.id, True
    return text_field, utt, False


def parse_nemo(
    lines: Sequence[str], name: str | Path, key: str, columns: Columns
) -> dict[str, str]:
    """``id -> text`` for ``key`` (``reference`` or ``hypothesis``) from a NeMo manifest."""
    text_field, id_field, id_named = _field_names("nemo", key, columns)
    flag = "--ref-column" if key == "reference" else "--hyp-column"
    rows: list[tuple[int, dict[str, object]]] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}:{lineno}"
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError, ValueError) as e:
            raise InputError(f"{where}: invalid JSON in a NeMo manifest ({e})") from e
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        if text_field not in obj:
            raise InputError(
                f"{where}: no field {text_field!r} (the {key}; name another with {flag}); "
                f"fields: {', '.join(map(str, obj)) or 'none'}"
            )
        if not isinstance(obj[text_field], str):
            raise InputError(
                f"{where}: {text_field} must be a string, got {type(obj[text_field]).__name__}"
            )
        rows.append((lineno, obj))
    with_id = [lineno for lineno, obj in rows if id_field in obj]
    use_ids = id_named or (bool(rows) and len(with_id) == len(rows))
    if not id_named and with_id and not use_ids:
        lacking = next(lineno for lineno, obj in rows if id_field not in obj)
        raise InputError(
            f"{name}:{lacking}: no field {id_field!r}, which other rows have (line {with_id[0]}); "
            "give every row one, or name the id field with --id-column"
        )
    table: dict[str, str] = {}
    for lineno, obj in rows:
        where = f"{name}:{lineno}"
        if use_ids:
            if id_field not in obj:
                raise InputError(f"{where}: no id field {id_field!r} (--id-column)")
            value = obj[id_field]
            if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
                raise InputError(f"{where}: {id_field} must be a non-empty string or an integer")
            utt = str(value)
        else:
            utt = str(lineno)
        if utt in table:
            raise InputError(
                f"{where}: duplicate id {utt!r} (field {id_field!r}); name a unique field with "
                "--id-column"
            )
        table[utt] = str(obj[text_field])
    return table


# -- csv / tsv ------------------------------------------------------------------------------------


def parse_delimited(
    lines: Sequence[str], name: str | Path, fmt: str, key: str, columns: Columns
) -> dict[str, str]:
    """``id -> text`` for ``key`` from a CSV (``fmt="csv"``) or TSV file with a header row."""
    text_field, id_field, id_named = _field_names(fmt, key, columns)
    flag = "--ref-column" if key == "reference" else "--hyp-column"
    # Lines were split at any line end (sitar.io.read_lines); a quoted CSV field may span lines.
    text = "".join(line + "\n" for line in lines)
    if fmt == "csv":
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    else:
        reader = csv.reader(
            io.StringIO(text, newline=""),
            delimiter="\t",
            quoting=csv.QUOTE_NONE,
        )
    table: dict[str, str] = {}
    header: list[str] | None = None
    text_at = id_at = -1
    row_number = 0
    start = 1
    try:
        for row in reader:
            where = f"{name}:{start}"
            start = reader.line_num + 1
            if header is None:
                header = row
                if not row or row == [""]:
                    raise InputError(
                        f"{where}: expected a header row naming the columns, got an empty line"
                    )
                dupes = sorted({c for c in row if row.count(c) > 1})
                if dupes:
                    raise InputError(
                        f"{where}: the header names {', '.join(map(repr, dupes))} twice"
                    )
                if text_field not in row:
                    raise InputError(
                        f"{where}: the header row has no column {text_field!r} (the {key}; name "
                        f"another with {flag}); columns: {', '.join(row)}"
                    )
                if id_named and id_field not in row:
                    raise InputError(
                        f"{where}: the header row has no column {id_field!r} (--id-column); "
                        f"columns: {', '.join(row)}"
                    )
                text_at = row.index(text_field)
                id_at = row.index(id_field) if id_field in row else -1
                continue
            row_number += 1
            if len(row) != len(header):
                what = "an empty line" if not row else f"{len(row)}"
                raise InputError(
                    f"{where}: expected {len(header)} field(s) as in the header, got {what}"
                )
            utt = row[id_at] if id_at >= 0 else str(row_number)
            if not utt:
                raise InputError(f"{where}: empty id in column {id_field!r}")
            if utt in table:
                raise InputError(f"{where}: duplicate id {utt!r}")
            table[utt] = row[text_at]
    except csv.Error as e:
        raise InputError(f"{name}:{reader.line_num}: not valid {fmt.upper()} ({e})") from e
    if header is None:
        raise InputError(
            f"{name}: empty {fmt.upper()} file; a header row naming the columns is required"
        )
    return table


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
