"""The public invariance suite (issue #28): its two hand-written JSONL files and their loader.

``benchmarks/invariance/format_pairs.jsonl``: a reference as written (cased, punctuated, digits,
symbols) against the same words as a recognizer writes them (lowercase, no punctuation, numbers
spoken). Expected: no gap after :func:`sitar.normalize.normalize_pair`, so tier ``T0``.

``benchmarks/invariance/flips.jsonl``: lowercase unpunctuated pairs with one real change of value
(magnitude words, digits, units, times, dates, amounts in long sentences) or of a contrast word
(enable/disable, lock/unlock, buy/sell, ... and phonetic neighbours). Expected: tier ``T2`` or
``T1`` as given, and at least one gap after normalisation.

Each line: ``id``, ``category``, ``reference``, ``hypothesis``, ``expected`` (``T0``/``T1``/``T2``)
and a one-line ``reason``. :func:`load_suite` checks the schema, so a scoring test can iterate it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SUITE_DIR = Path(__file__).parent
FILES = {"format": "format_pairs.jsonl", "flips": "flips.jsonl"}
_FIELDS = ("id", "category", "reference", "hypothesis", "expected", "reason")
_TIERS = {"format": {"T0"}, "flips": {"T1", "T2"}}


@dataclass(frozen=True)
class SuiteItem:
    id: str
    category: str
    reference: str
    hypothesis: str
    expected: str
    reason: str


def load_suite(part: str) -> tuple[SuiteItem, ...]:
    """The items of one part, ``"format"`` or ``"flips"``, in file order; ValueError on a bad line."""
    if part not in FILES:
        raise ValueError(f"part must be one of {sorted(FILES)}, got {part!r}")
    path = SUITE_DIR / FILES[part]
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        record = json.loads(line)
        if set(record) != set(_FIELDS) or not all(isinstance(record[f], str) for f in _FIELDS):
            raise ValueError(
                f"{path.name}:{number}: expected string fields {_FIELDS}, got {record}"
            )
        if record["expected"] not in _TIERS[part]:
            raise ValueError(f"{path.name}:{number}: expected tier {record['expected']!r}")
        items.append(SuiteItem(**record))
    return tuple(items)
