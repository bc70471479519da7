"""Reading reference files and hypothesis files that are joined by id: several systems
(``--system NAME=PATH``) and several references per utterance (``--ref-file`` repeated).

Every file is in one ``--format`` (:func:`sitar.io.resolve_format` over all of them, so the same
detection rule as a single pair of files) and read by :func:`sitar.io.read_table`, so a bad row
is an :class:`~sitar.errors.InputError` that names the file and line. Each file is read once,
even when it is named twice (``-`` is standard input, read once).

Several reference files must hold the same ids as the first one (in ``text``: the same number of
lines); the rows follow the first reference file, and any difference is refused with every
missing and extra id named (:func:`sitar.io.check_same_ids`). Systems are not joined here:
:func:`sitar.comparison.join_by_id` joins them to the references and names the ids each system
lacks or adds. STM segments that any reference file marks ``ignore_time_segment_in_scoring`` are
left out of every file and reported once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sitar.errors import InputError
from sitar.formats import Columns, Table, drop_ignored
from sitar.io import (
    Report,
    _check_columns,
    _warn,
    check_same_ids,
    read_lines,
    read_table,
    resolve_format,
)

__all__ = [
    "ReferenceSets",
    "parse_system",
    "parse_systems",
    "read_reference_sets",
    "read_system_inputs",
]


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
