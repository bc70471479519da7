"""Pair records of a build: reference, hypothesis, system, utterance id and WER.

``OUT/pairs.jsonl`` holds one JSON object per line, sorted by ``(system, reference_id)``, schema
``sitar-asr-pair-1``:

=================== ===========================================================================
``schema``          ``"sitar-asr-pair-1"``
``id``              ``"{system}/{reference_id}"`` (unique; also the pair id of the sheets)
``utterance_id``    same as ``id`` (one utterance per system and reference)
``system``          system id (its settings: ``OUT/manifest.json`` -> ``config.systems``)
``reference_id``    pool id, or ``tpl-...fN`` for the N-th fill of a template
``group``           pool item or template id (folds and splits are drawn per group)
``fold``            LM fold (the LM that decoded it never saw this reference)
``split``           train / validation / test, grouped by ``group`` (``OUT/splits.json``)
``domain``          pool domain
``reference``       spoken form of the reference (what was synthesized; case and punctuation kept)
``reference_original`` the pool text as written (digits, symbols)
``hypothesis``      the decoder's output (lowercase words, no punctuation; may be empty)
``errors``          substitutions + deletions + insertions over spec §1 (docs/spec.md) normalized tokens
``reference_words`` number of reference tokens
``wer``             ``errors / reference_words`` (per utterance; corpus WER is the ratio of sums)
=================== ===========================================================================
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sitar.errors import InputError
from sitar.text import tokenize

__all__ = ["PAIR_SCHEMA", "edit_distance", "make_pair", "read_pairs", "system_wer", "write_pairs"]

PAIR_SCHEMA = "sitar-asr-pair-1"
_FIELDS = (
    "schema", "id", "utterance_id", "system", "reference_id", "group", "fold", "split", "domain",
    "reference", "reference_original", "hypothesis", "errors", "reference_words", "wer",
)  # fmt: skip


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance over tokens (unit substitution, insertion and deletion costs)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """``(errors, reference_words)`` over spec §1 normalized tokens."""
    r = [t.norm for t in tokenize(reference)]
    h = [t.norm for t in tokenize(hypothesis)]
    return edit_distance(r, h), len(r)


def make_pair(
    reference: Mapping[str, Any], decode: Mapping[str, Any], split: str | None
) -> dict[str, Any]:
    """One pair record from a reference row (``references.jsonl``) and a decode row."""
    if reference["id"] != decode["reference_id"]:
        raise InputError(
            f"decode of {decode['reference_id']!r} paired with reference {reference['id']!r}"
        )
    errors, n = word_errors(reference["text"], decode["hypothesis"])
    pid = f"{decode['system']}/{reference['id']}"
    return {
        "schema": PAIR_SCHEMA,
        "id": pid,
        "utterance_id": pid,
        "system": decode["system"],
        "reference_id": reference["id"],
        "group": reference["group"],
        "fold": reference["fold"],
        "split": split,
        "domain": reference["domain"],
        "reference": reference["text"],
        "reference_original": reference["original"],
        "hypothesis": decode["hypothesis"],
        "errors": errors,
        "reference_words": n,
        "wer": round(errors / n, 6) if n else (0.0 if not errors else float("inf")),
    }


def write_pairs(path: str | os.PathLike[str], pairs: Iterable[Mapping[str, Any]]) -> int:
    """Write pair records sorted by ``(system, reference_id)`` (atomic replace); returns count."""
    rows = sorted(pairs, key=lambda p: (p["system"], p["reference_id"]))
    ids = [p["id"] for p in rows]
    if len(set(ids)) != len(ids):
        raise InputError("duplicate pair ids; each (system, reference) must occur once")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        for p in rows:
            missing = [k for k in _FIELDS if k not in p]
            if missing:
                raise InputError(f"pair {p.get('id')!r} lacks field(s) {missing}")
            f.write(json.dumps({k: p[k] for k in _FIELDS}, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
    return len(rows)


def read_pairs(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read a pairs file, checking the schema of every line."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"pairs file not found: {path}")
    out = []
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{k}: invalid JSON ({e.msg})") from e
        if not isinstance(row, dict) or row.get("schema") != PAIR_SCHEMA:
            raise InputError(f"{path}:{k}: not a {PAIR_SCHEMA} record")
        out.append(row)
    return out


def system_wer(pairs: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Corpus (micro) WER, pair count and exact-match share per system."""
    acc: dict[str, list[int]] = {}
    for p in pairs:
        a = acc.setdefault(p["system"], [0, 0, 0, 0])
        a[0] += p["errors"]
        a[1] += p["reference_words"]
        a[2] += 1
        a[3] += p["errors"] == 0
    return {
        s: {"wer": round(e / n, 4) if n else 0.0, "pairs": k, "exact": round(x / k, 4)}
        for s, (e, n, k, x) in sorted(acc.items())
    }
