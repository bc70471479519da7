"""The on-disk journal of an annotation run (SQLite, standard library only).

One file ``journal.sqlite`` in the run folder holds: the run configuration (``meta``), the input
pairs in input order (``pairs``), and every finished annotator call (``calls``), keyed by
:func:`call_key` -- a hash of the pair, its gap set, the prompt version, the model, the task, the
round or reviewer number and the exact request messages. A call row is written in one transaction
only after the call finished (validated answer, or failure after the bounded re-asks), so a run
killed at any moment loses at most the calls that were in flight, and a resumed run reuses every
finished one. Raw answer texts of every attempt are stored, so targets can be recomputed offline.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitar.errors import InputError, OutputError

__all__ = ["CallRow", "Journal", "PairRow", "call_key", "gap_set_hash", "pair_hash"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pairs (
    idx INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    reference TEXT NOT NULL,
    hypothesis TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    pair_id TEXT NOT NULL,
    task TEXT NOT NULL,
    idx INTEGER NOT NULL,
    prompt_version TEXT NOT NULL,
    model TEXT NOT NULL,
    ok INTEGER NOT NULL,
    parsed TEXT,
    problem TEXT NOT NULL DEFAULT '',
    attempts TEXT NOT NULL,
    messages TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost REAL NOT NULL,
    requests INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_pair ON calls(pair_id);
"""


def _sha(obj: Any) -> str:
    blob = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def pair_hash(reference: str, hypothesis: str) -> str:
    return _sha(["pair", reference, hypothesis])


def gap_set_hash(gaps: Sequence[Mapping[str, Any]]) -> str:
    """Hash of the gap set: token intervals, spans and texts of each gap, in order."""
    return _sha(
        [[list(g["ref_tokens"]), list(g["hyp_tokens"]), g["ref_text"], g["hyp_text"]] for g in gaps]
    )


def call_key(
    *,
    pair: str,
    gap_set: str,
    prompt_version: str,
    model: str,
    task: str,
    index: int,
    messages: Sequence[Mapping[str, str]],
) -> str:
    """The journal key of one call (see the module docstring)."""
    return _sha(
        {
            "pair": pair,
            "gaps": gap_set,
            "prompt": prompt_version,
            "model": model,
            "task": task,
            "index": index,
            "messages": [dict(m) for m in messages],
        }
    )


@dataclass(frozen=True)
class PairRow:
    idx: int
    id: str
    reference: str
    hypothesis: str
    extra: Mapping[str, Any]


@dataclass(frozen=True)
class CallRow:
    key: str
    pair_id: str
    task: str
    index: int
    prompt_version: str
    model: str
    ok: bool
    parsed: Any
    problem: str
    attempts: list[dict[str, Any]]
    messages: list[dict[str, str]]
    prompt_tokens: int
    completion_tokens: int
    cost: float
    requests: int


class Journal:
    """A thread-safe handle on one run's SQLite journal."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise self._write_error(e) from e
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.OperationalError as e:
            raise self._write_error(e) from e
        except sqlite3.DatabaseError as e:
            raise InputError(f"{self.path} is not a usable journal database: {e}") from e
        self._lock = threading.Lock()

    def _write_error(self, e: Exception) -> OutputError:
        """A journal that cannot be written (read-only folder or file system, full disk): one
        message that names the run folder; everything journaled before stays as it was."""
        return OutputError(
            f"cannot write the journal {self.path}: {getattr(e, 'strerror', None) or e}; the run "
            "folder may be read-only or the disk full (nothing journaled so far is lost: fix "
            "that, then resume)"
        )

    def _write(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, params)
        except sqlite3.OperationalError as e:
            raise self._write_error(e) from e

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta ------------------------------------------------------------------------------
    def get_meta(self, key: str) -> Any:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        with self._lock:
            self._write(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                (key, json.dumps(value, ensure_ascii=False, sort_keys=True)),
            )

    # -- pairs -----------------------------------------------------------------------------
    def add_pairs(self, pairs: Sequence[tuple[str, str, str, Mapping[str, Any]]]) -> None:
        """Store the input pairs ``(id, reference, hypothesis, extra)`` once, in one transaction."""
        with self._lock:
            self._write("BEGIN")
            try:
                for i, (pid, ref, hyp, extra) in enumerate(pairs):
                    self._write(
                        "INSERT INTO pairs (idx, id, reference, hypothesis, extra) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (i, pid, ref, hyp, json.dumps(dict(extra), ensure_ascii=False)),
                    )
                self._write("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise

    def pairs(self) -> list[PairRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT idx, id, reference, hypothesis, extra FROM pairs ORDER BY idx"
            ).fetchall()
        return [PairRow(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    # -- calls -----------------------------------------------------------------------------
    def get_call(self, key: str) -> CallRow | None:
        with self._lock:
            row = self._db.execute(
                "SELECT key, pair_id, task, idx, prompt_version, model, ok, parsed, problem, "
                "attempts, messages, prompt_tokens, completion_tokens, cost, requests "
                "FROM calls WHERE key = ?",
                (key,),
            ).fetchone()
        return None if row is None else _call_row(row)

    def put_call(self, row: CallRow) -> bool:
        """Record a finished call; returns False (and changes nothing) if the key exists."""
        with self._lock:
            cur = self._write(
                "INSERT OR IGNORE INTO calls (key, pair_id, task, idx, prompt_version, model, ok, "
                "parsed, problem, attempts, messages, prompt_tokens, completion_tokens, cost, "
                "requests, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.key,
                    row.pair_id,
                    row.task,
                    row.index,
                    row.prompt_version,
                    row.model,
                    int(row.ok),
                    json.dumps(row.parsed, ensure_ascii=False),
                    row.problem,
                    json.dumps(row.attempts, ensure_ascii=False),
                    json.dumps(row.messages, ensure_ascii=False),
                    row.prompt_tokens,
                    row.completion_tokens,
                    row.cost,
                    row.requests,
                    time.time(),
                ),
            )
            return cur.rowcount == 1

    def calls(self) -> Iterator[CallRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT key, pair_id, task, idx, prompt_version, model, ok, parsed, problem, "
                "attempts, messages, prompt_tokens, completion_tokens, cost, requests "
                "FROM calls ORDER BY rowid"
            ).fetchall()
        return (_call_row(r) for r in rows)

    def totals(self) -> dict[str, Any]:
        """Calls, failed calls, HTTP requests, tokens and cost of all finished calls."""
        with self._lock:
            row = self._db.execute(
                "SELECT COUNT(*), COALESCE(SUM(1 - ok), 0), COALESCE(SUM(requests), 0), "
                "COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), "
                "COALESCE(SUM(cost), 0.0) FROM calls"
            ).fetchone()
        return {
            "calls": row[0],
            "failed_calls": row[1],
            "requests": row[2],
            "prompt_tokens": row[3],
            "completion_tokens": row[4],
            "cost": row[5],
        }


def _call_row(r: Sequence[Any]) -> CallRow:
    return CallRow(
        key=r[0],
        pair_id=r[1],
        task=r[2],
        index=r[3],
        prompt_version=r[4],
        model=r[5],
        ok=bool(r[6]),
        parsed=json.loads(r[7]) if r[7] is not None else None,
        problem=r[8],
        attempts=json.loads(r[9]),
        messages=json.loads(r[10]),
        prompt_tokens=r[11],
        completion_tokens=r[12],
        cost=r[13],
        requests=r[14],
    )
