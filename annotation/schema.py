"""Parse and validate annotator answers against the JSON shapes the prompts ask for.

A small hand-written validator (no jsonschema dependency). Every answer must be one JSON object,
optionally inside a single Markdown code fence; nothing is extracted from surrounding prose and
nothing is guessed. Shapes, with gap ids ``g1 .. gm``:

- ranking: ``{"ranking": [[id, ...], ...]}`` -- groups from least to most distortion; items in one
  group are about equal (≈), each later group is strictly worse (≺). ``"baseline"`` (the
  zero-deviation case) must sit in the first group, and every gap id appears exactly once.
- tiers / review: ``{"tiers": {id: "T0" | "T1" | "T2", ...}}`` with exactly the gap ids as keys.

An optional string ``"rationale"`` is allowed next to the main key; any other key is an error.
Problems raise :class:`AnswerError`, whose message is sent back to the model when re-asking.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from sitar.errors import SitarError

__all__ = ["BASELINE", "AnswerError", "gap_ids", "parse_answer"]

BASELINE = "baseline"
_TIER_LABELS = {"T0": 0, "T1": 1, "T2": 2}
_FENCE = re.compile(r"^```(?:json|JSON)?\s*\n(.*)\n\s*```$", re.DOTALL)


class AnswerError(SitarError):
    """An annotator answer is not valid JSON or does not follow the requested shape."""


def gap_ids(n_gaps: int) -> tuple[str, ...]:
    """The ids used in prompts and answers for ``n_gaps`` gaps: ``g1 .. gN``."""
    return tuple(f"g{i + 1}" for i in range(n_gaps))


def _load_object(text: str) -> dict[str, Any]:
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as e:
        raise AnswerError(f"the answer is not valid JSON ({e.msg} at line {e.lineno})") from e
    if not isinstance(data, dict):
        raise AnswerError(f"the answer must be a JSON object, got {type(data).__name__}")
    return data


def _check_keys(data: dict[str, Any], main: str) -> None:
    if main not in data:
        raise AnswerError(f"the answer lacks the key {main!r}")
    extra = sorted(set(data) - {main, "rationale"})
    if extra:
        raise AnswerError(f"unexpected key(s) {extra}; only {main!r} and 'rationale' are allowed")
    if "rationale" in data and not isinstance(data["rationale"], str):
        raise AnswerError("'rationale' must be a string")


def _parse_ranking(data: dict[str, Any], ids: Sequence[str]) -> list[list[str]]:
    _check_keys(data, "ranking")
    groups = data["ranking"]
    if not isinstance(groups, list) or not groups:
        raise AnswerError("'ranking' must be a non-empty list of groups (lists of ids)")
    seen: list[str] = []
    out: list[list[str]] = []
    for k, group in enumerate(groups):
        if not isinstance(group, list) or not group:
            raise AnswerError(f"ranking group {k} must be a non-empty list of ids")
        for item in group:
            if not isinstance(item, str):
                raise AnswerError(f"ranking items must be id strings, got {item!r}")
        out.append(list(group))
        seen.extend(group)
    expected = {*ids, BASELINE}
    unknown = sorted(set(seen) - expected)
    if unknown:
        raise AnswerError(f"unknown id(s) {unknown} in ranking; valid ids are {sorted(expected)}")
    dupes = sorted({i for i in seen if seen.count(i) > 1})
    if dupes:
        raise AnswerError(f"id(s) {dupes} appear more than once in the ranking")
    missing = sorted(expected - set(seen), key=lambda s: (len(s), s))
    if missing:
        raise AnswerError(f"the ranking lacks id(s) {missing}")
    if BASELINE not in out[0]:
        raise AnswerError(f"{BASELINE!r} must be in the first group (nothing distorts less)")
    return out


def _parse_tiers(data: dict[str, Any], ids: Sequence[str]) -> dict[str, int]:
    _check_keys(data, "tiers")
    tiers = data["tiers"]
    if not isinstance(tiers, dict):
        raise AnswerError("'tiers' must be an object mapping gap ids to 'T0', 'T1' or 'T2'")
    unknown = sorted(set(tiers) - set(ids))
    if unknown:
        raise AnswerError(f"unknown gap id(s) {unknown}; valid ids are {list(ids)}")
    missing = [i for i in ids if i not in tiers]
    if missing:
        raise AnswerError(f"no tier for gap id(s) {missing}")
    out: dict[str, int] = {}
    for gap_id in ids:
        label = tiers[gap_id]
        if not isinstance(label, str) or label not in _TIER_LABELS:
            raise AnswerError(f"tier of {gap_id} must be 'T0', 'T1' or 'T2', got {label!r}")
        out[gap_id] = _TIER_LABELS[label]
    return out


def parse_answer(task: str, text: str, ids: Sequence[str]) -> Any:
    """Validate ``text`` for ``task`` and return the normalized answer.

    ranking -> list of groups (lists of ids); tiers/review -> ``{gap_id: tier int}``.
    """
    if not isinstance(text, str):
        raise AnswerError(f"the answer must be text, got {type(text).__name__}")
    data = _load_object(text)
    if task == "ranking":
        return _parse_ranking(data, ids)
    if task in ("tiers", "review"):
        return _parse_tiers(data, ids)
    raise AnswerError(f"unknown task {task!r}")
