"""The public SITAR challenge file (issue #12): hand-written pairs with an expected tier band.

``sitar_challenge_v2.jsonl`` (:data:`CHALLENGE_FILE`; version 1, as first written, is
``sitar_challenge_v1.jsonl``, and ``reread/`` turns it into version 2 by two blind readings under
rubric asr-v2) holds one case per line: ``id``, ``category``, ``reference``,
``hypothesis``, ``expected`` (the highest spec §5 (docs/spec.md) severity position of the pair's gaps: ``T0``,
``T1``, ``T2`` or a boundary position such as ``T0->T1``), ``band`` (the normalised interval that
position gives, ``[beta / (7/3), (beta + 1/3) / (7/3))``, as exact fractions), a one-line
``reason`` and ``source``. Every case was written and judged by hand against spec §0/§6 (T0
expression only, T1 uptake changes with the outcome preserved, T2 outcome changes); in version 2
a case whose two readers under rubric asr-v2 moved it carries their tier and a ``re-read:``
reason (4 of 169; none of the scope file's 48). None of its
pairs occurs in the synthetic generator's sources or the dev set (``tests/data/test_challenge.py``).

:func:`load_challenge` reads and validates the file; :mod:`annotation.challenge.evaluate` scores
it with any checkpoint. ``sitar_challenge_scope_v2.jsonl`` (:data:`SCOPE_FILE`, categories
:data:`SCOPE_CATEGORIES`) is a second file of the same format on quantifier and frequency scope,
scored on its own with ``--file``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from sitar.errors import InputError

__all__ = [
    "CATEGORIES",
    "CHALLENGE_FILE",
    "CHALLENGE_V1_FILE",
    "POSITIONS",
    "SCOPE_CATEGORIES",
    "SCOPE_FILE",
    "SCOPE_V1_FILE",
    "ChallengeItem",
    "band_of",
    "load_challenge",
]

_HERE = Path(__file__).resolve().parent
#: The challenge file as first written (waves 1-2) and the scope file; version 2 of each is the
#: re-read under rubric asr-v2 (``reread/``), which the gate reads.
CHALLENGE_V1_FILE = _HERE / "sitar_challenge_v1.jsonl"
SCOPE_V1_FILE = _HERE / "sitar_challenge_scope_v1.jsonl"
CHALLENGE_FILE = _HERE / "sitar_challenge_v2.jsonl"
CATEGORIES = (
    "direction", "antonym", "rewording", "flip", "short_command", "number_date", "negation",
    "disfluency",
)  # fmt: skip
#: The scope file (2026-12-02): quantifier and frequency scope, written by hand by a helper
#: session that saw neither the generator's quantifier family nor any model output. Scored on its
#: own (``--file``), so the numbers of the main file stay comparable.
SCOPE_FILE = _HERE / "sitar_challenge_scope_v2.jsonl"
SCOPE_CATEGORIES = ("quantifier", "frequency", "scope_rewording")
#: spec §5 severity positions ``t + delta / 3`` by label.
POSITIONS: dict[str, Fraction] = {
    "T0": Fraction(0), "T0->T1": Fraction(1, 3), "T1->T0": Fraction(2, 3), "T1": Fraction(1),
    "T1->T2": Fraction(4, 3), "T2->T1": Fraction(5, 3), "T2": Fraction(2),
}  # fmt: skip
_FIELDS = ("id", "category", "reference", "hypothesis", "expected", "band", "reason", "source")


def band_of(expected: str) -> tuple[Fraction, Fraction]:
    """The normalised band ``[beta / (7/3), (beta + 1/3) / (7/3))`` of a position label."""
    if expected not in POSITIONS:
        raise InputError(f"expected must be one of {sorted(POSITIONS)}, got {expected!r}")
    beta = POSITIONS[expected]
    return beta / Fraction(7, 3), (beta + Fraction(1, 3)) / Fraction(7, 3)


@dataclass(frozen=True)
class ChallengeItem:
    """One challenge case; ``band`` is ``[lo, hi)`` on the normalised scale."""

    id: str
    category: str
    reference: str
    hypothesis: str
    expected: str
    band: tuple[Fraction, Fraction]
    reason: str
    source: str

    def in_band(self, score: float) -> bool:
        """Whether a normalised score lies in ``[lo, hi)``."""
        return float(self.band[0]) <= score < float(self.band[1])


def load_challenge(path: str | os.PathLike[str] = CHALLENGE_FILE) -> list[ChallengeItem]:
    """Read and validate a challenge file: every field present and a non-empty string, a known
    category and position, the band equal to the position's, unique ids and unique pairs, and a
    hypothesis that differs from its reference. Raises :class:`InputError` naming the line."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"challenge file not found: {path}")
    items: list[ChallengeItem] = []
    ids: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{lineno}"
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{where}: invalid JSON ({e.msg})") from e
        if not isinstance(d, dict) or set(d) != set(_FIELDS):
            raise InputError(f"{where}: need exactly the fields {_FIELDS}")
        if not all(isinstance(d[k], str) and d[k].strip() for k in _FIELDS if k != "band"):
            raise InputError(f"{where}: every field but 'band' must be a non-empty string")
        if d["category"] not in CATEGORIES + SCOPE_CATEGORIES:
            known = CATEGORIES + SCOPE_CATEGORIES
            raise InputError(f"{where}: unknown category {d['category']!r} (one of {known})")
        band = band_of(d["expected"])
        if d["band"] != [str(band[0]), str(band[1])]:
            raise InputError(f"{where}: band {d['band']} is not the band of {d['expected']}")
        if d["id"] in ids or (d["reference"], d["hypothesis"]) in pairs:
            raise InputError(f"{where}: duplicate id or pair")
        if d["reference"] == d["hypothesis"]:
            raise InputError(f"{where}: the hypothesis equals the reference")
        ids.add(d["id"])
        pairs.add((d["reference"], d["hypothesis"]))
        items.append(
            ChallengeItem(
                d["id"],
                d["category"],
                d["reference"],
                d["hypothesis"],
                d["expected"],
                band,
                d["reason"],
                d["source"],
            )
        )
    return items
