"""Validate the reference pool and templates under ``annotation/sources/``.

Run ``python annotation/sources/check_pool.py`` (or import :func:`check_pool`). It checks every
pool file ``pool/*.jsonl`` and ``templates*.jsonl``: required fields, 5-80 words per utterance
(templates: after filling slots with short placeholders), unique ids and texts, role spans that
occur exactly once in the text and do not overlap, known domains and slot types. It prints a
summary (counts per domain) and exits non-zero on any problem.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOMAINS = {
    "call_centre",
    "meetings_work",
    "healthcare_admin",
    "finance",
    "travel_bookings",
    "announcements",
    "sports_culture",
    "factual",
    "everyday",
}
SLOT_TYPES = {
    "person_name",
    "first_name",
    "last_name",
    "city",
    "country",
    "street_address",
    "date",
    "weekday",
    "month",
    "time",
    "money",
    "number",
    "small_number",
    "ordinal",
    "percent",
    "phone",
    "account_number",
    "flight_number",
    "order_number",
    "product",
    "company",
    "duration",
    "quantity",
    "medication",
    "dose",
    "room",
    "gate",
    "platform",
    "team",
    "score",
    "year",
    "department",
    "email",
}
SLOT_RE = re.compile(r"\{([a-z_0-9]+)\}")
WORD_RE = re.compile(r"\w+(?:['’]\w+)*")


def _words(text: str) -> int:
    return len(WORD_RE.findall(text))


def _check_spans(where: str, text: str, item: dict, errors: list[str]) -> None:
    spans: list[tuple[int, int, str]] = []
    for role in ("outcome", "inform"):
        values = item.get(role)
        if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
            errors.append(f"{where}: {role!r} must be a list of non-empty strings")
            continue
        for span in values:
            count = text.count(span)
            if count != 1:
                errors.append(
                    f"{where}: {role} span {span!r} occurs {count} times in the text (need 1)"
                )
                continue
            start = text.index(span)
            spans.append((start, start + len(span), role))
    if not item.get("outcome"):
        errors.append(f"{where}: needs at least one outcome span")
    spans.sort()
    for (_s1, e1, r1), (s2, _e2, r2) in itertools.pairwise(spans):
        if s2 < e1:
            errors.append(f"{where}: spans overlap ({r1} ending at {e1} and {r2} starting at {s2})")


def check_pool(root: Path = HERE) -> tuple[list[str], Counter[str], int]:
    errors: list[str] = []
    per_domain: Counter[str] = Counter()
    ids: set[str] = set()
    texts: set[str] = set()
    for path in sorted((root / "pool").glob("*.jsonl")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path.name}:{lineno}"
            try:
                item = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"{where}: invalid JSON: {e.msg}")
                continue
            text, uid, domain = item.get("text"), item.get("id"), item.get("domain")
            if not isinstance(text, str) or not isinstance(uid, str):
                errors.append(f"{where}: needs string 'id' and 'text'")
                continue
            if domain not in DOMAINS:
                errors.append(f"{where}: unknown domain {domain!r}")
            if uid in ids:
                errors.append(f"{where}: duplicate id {uid!r}")
            ids.add(uid)
            key = " ".join(WORD_RE.findall(text.casefold()))
            if key in texts:
                errors.append(f"{where}: duplicate text {text!r}")
            texts.add(key)
            n = _words(text)
            if not 5 <= n <= 80:
                errors.append(f"{where}: {n} words (need 5-80)")
            _check_spans(where, text, item, errors)
            per_domain[str(domain)] += 1
    n_templates = 0
    for tpath in sorted(root.glob("templates*.jsonl")):
        for lineno, line in enumerate(tpath.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{tpath.name}:{lineno}"
            try:
                item = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"{where}: invalid JSON: {e.msg}")
                continue
            template, slots = item.get("template"), item.get("slots")
            if not isinstance(template, str) or not isinstance(slots, dict):
                errors.append(f"{where}: needs 'template' (str) and 'slots' (object)")
                continue
            if item.get("domain") not in DOMAINS:
                errors.append(f"{where}: unknown domain {item.get('domain')!r}")
            uid = item.get("id")
            if uid in ids:
                errors.append(f"{where}: duplicate id {uid!r}")
            ids.add(str(uid))
            used = SLOT_RE.findall(template)
            if set(used) != set(slots):
                errors.append(
                    f"{where}: slots in template {sorted(set(used))} != declared {sorted(slots)}"
                )
            for name, kind in slots.items():
                if kind not in SLOT_TYPES:
                    errors.append(f"{where}: slot {name!r} has unknown type {kind!r}")
            decisive = item.get("outcome_slots")
            if not isinstance(decisive, list) or not set(decisive) <= set(slots):
                errors.append(f"{where}: 'outcome_slots' must list declared slot names")
            filled = SLOT_RE.sub("X", template)
            if not 5 <= _words(filled) <= 80:
                errors.append(f"{where}: {_words(filled)} words with slots filled (need 5-80)")
            _check_spans(where, template, item, errors)
            n_templates += 1
    return errors, per_domain, n_templates


def main() -> int:
    errors, per_domain, n_templates = check_pool()
    for e in errors:
        print("ERROR", e)
    for domain in sorted(DOMAINS):
        print(f"{domain:18s} {per_domain.get(domain, 0):5d}")
    print(
        f"total utterances {sum(per_domain.values())}, templates {n_templates}, errors {len(errors)}"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
