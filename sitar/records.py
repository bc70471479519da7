"""The versioned supervision record shared by ``annotation/`` and ``training/``.

The two pipelines never import each other; they exchange JSONL files of records in this schema.
One record is one (reference, hypothesis) pair with its CGD gaps, per-gap tiers and boundary
directions, the spec §5 (docs/spec.md) target ``score`` (raw scale ``[0, 7/3)``), the split, and provenance. A
record is validated on read: malformed lines raise :class:`~sitar.errors.RecordError` naming the
file and line, and the score must equal :func:`sitar.targets.score_from_tiers` of its labels.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitar.errors import InputError, RecordError
from sitar.targets import DEFAULT_RHO, score_from_tiers

__all__ = [
    "RECORD_SCHEMA",
    "SPLITS",
    "Record",
    "read_records",
    "write_lines_atomic",
    "write_records",
]

#: Schema id written into every record; bump on incompatible changes.
RECORD_SCHEMA = "sitar.record/1"
SPLITS = ("train", "validation", "test")
_GAP_KEYS = ("ref_tokens", "hyp_tokens", "ref_span", "hyp_span", "ref_text", "hyp_text")


@dataclass(frozen=True)
class Record:
    """One supervision pair. ``gaps`` hold the spec §4 gap dicts (``Gap.to_dict()`` fields)."""

    id: str
    reference: str
    hypothesis: str
    gaps: tuple[Mapping[str, Any], ...]
    tiers: tuple[int, ...]
    directions: tuple[int, ...]
    score: float
    rho: float = DEFAULT_RHO
    split: str | None = None
    #: Free-form: source, generator/annotator, seeds, parent id for augmented variants, ...
    provenance: Mapping[str, Any] = field(default_factory=dict)
    #: spec §9 signature of the segmentation and targets.
    signature: str = ""

    @property
    def normalized_score(self) -> float:
        return self.score / (7.0 / 3.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": RECORD_SCHEMA,
            "id": self.id,
            "reference": self.reference,
            "hypothesis": self.hypothesis,
            "gaps": [dict(g) for g in self.gaps],
            "tiers": list(self.tiers),
            "directions": list(self.directions),
            "score": self.score,
            "rho": self.rho,
            "split": self.split,
            "provenance": dict(self.provenance),
            "signature": self.signature,
        }

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "record") -> Record:
        """Validate and build a record; every problem raises :class:`RecordError` naming ``where``."""
        if not isinstance(data, dict):
            raise RecordError(f"{where}: expected a JSON object, got {type(data).__name__}")
        schema = data.get("schema")
        if schema != RECORD_SCHEMA:
            raise RecordError(f"{where}: schema is {schema!r}, expected {RECORD_SCHEMA!r}")
        missing = [
            k
            for k in ("id", "reference", "hypothesis", "gaps", "tiers", "directions", "score")
            if k not in data
        ]
        if missing:
            raise RecordError(f"{where}: missing field(s) {', '.join(missing)}")
        for key in ("id", "reference", "hypothesis"):
            if not isinstance(data[key], str):
                raise RecordError(
                    f"{where}: {key} must be a string, got {type(data[key]).__name__}"
                )
        gaps, tiers, directions = data["gaps"], data["tiers"], data["directions"]
        if not (
            isinstance(gaps, list) and isinstance(tiers, list) and isinstance(directions, list)
        ):
            raise RecordError(f"{where}: gaps, tiers and directions must be lists")
        if not len(gaps) == len(tiers) == len(directions):
            raise RecordError(
                f"{where}: {len(gaps)} gaps but {len(tiers)} tiers and {len(directions)} directions"
            )
        for i, gap in enumerate(gaps):
            if not isinstance(gap, dict) or any(k not in gap for k in _GAP_KEYS):
                raise RecordError(f"{where}: gap {i} must be an object with {', '.join(_GAP_KEYS)}")
        rho = data.get("rho", DEFAULT_RHO)
        score = data["score"]
        if (
            isinstance(score, bool)
            or not isinstance(score, (int, float))
            or not math.isfinite(score)
        ):
            raise RecordError(f"{where}: score must be a finite number, got {score!r}")
        try:
            expected = score_from_tiers(tiers, directions, rho=rho)
        except InputError as e:
            raise RecordError(f"{where}: {e}") from e
        if abs(expected - score) > 1e-9:
            raise RecordError(
                f"{where}: score {score!r} does not match its tiers/directions (expected {expected!r})"
            )
        split = data.get("split")
        if split is not None and split not in SPLITS:
            raise RecordError(f"{where}: split must be one of {SPLITS} or null, got {split!r}")
        provenance = data.get("provenance") or {}
        if not isinstance(provenance, dict):
            raise RecordError(f"{where}: provenance must be an object")
        return cls(
            id=data["id"],
            reference=data["reference"],
            hypothesis=data["hypothesis"],
            gaps=tuple(gaps),
            tiers=tuple(int(t) for t in tiers),
            directions=tuple(int(d) for d in directions),
            score=float(score),
            rho=float(rho),
            split=split,
            provenance=provenance,
            signature=str(data.get("signature", "")),
        )


def read_records(path: str | os.PathLike[str]) -> Iterator[Record]:
    """Yield validated records from a JSONL file; blank lines are skipped, anything else malformed
    raises :class:`RecordError` with ``file:line``. Duplicate ids are an error."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"record file not found: {path}")
    seen: set[str] = set()
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise RecordError(f"{where}: not valid UTF-8 ({e.reason} at byte {e.start})") from e
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as e:
                raise RecordError(f"{where}: invalid JSON ({e.msg} at column {e.colno})") from e
            record = Record.from_dict(data, where=where)
            if record.id in seen:
                raise RecordError(f"{where}: duplicate record id {record.id!r}")
            seen.add(record.id)
            yield record


def write_records(path: str | os.PathLike[str], records: Iterable[Record]) -> int:
    """Write records as JSONL atomically (temp file + rename); returns how many were written."""
    return write_lines_atomic(
        path,
        (json.dumps(r.to_dict(), ensure_ascii=False, sort_keys=True) + "\n" for r in records),
    )


def write_lines_atomic(path: str | os.PathLike[str], lines: Iterable[str]) -> int:
    """Write text ``lines`` (each with its newline) to ``path`` atomically: a temp file in the
    same folder, fsynced, made world-readable, then renamed; on any error nothing is left behind
    and an existing file is untouched. Returns how many lines were written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    n = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line)
                n += 1
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp creates the file private (0600); a dataset is meant to be shared.
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return n
