"""Validate the reference pool and templates under ``annotation/sources/``.

Run ``python annotation/sources/check_pool.py`` (or import :func:`check_pool`). It checks every
pool file ``pool/*.jsonl`` and ``templates*.jsonl``: required fields, 5-80 words per utterance
(templates: after filling slots with short placeholders), unique ids and texts, role spans that
occur exactly once in the text and do not overlap, known domains and slot types. The short
commands ``short/*.jsonl`` (``synth-1.3``) get the same checks with 2-8 words, and their texts
must not repeat a pool text; the long sentences ``long/*.jsonl`` (``synth-1.5``) get them with
25-80 words, one sentence each; the sentence rewrites ``rewrites/*.jsonl`` must name a pool item,
repeat its text exactly, differ from it, and carry a flip whose ``old`` occurs once in the
rewrite (:func:`check_rewrites`). It prints a summary (counts per domain) and exits non-zero on
any problem.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections import Counter
from pathlib import Path

from sitar._main import tool_main

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
    "voice_assistant",
    "dispatch",
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
#: Fewest words of a long sentence (``long/*.jsonl``, ``synth-1.5``, issue #28).
LONG_MIN_WORDS = 25
#: A sentence end inside a text (".", "!" or "?" before a space).
SENTENCE_BREAK_RE = re.compile(r"[.!?]\s")
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
    pool_texts: dict[str, str] = {}
    files = [(p, 5, 80) for p in sorted((root / "pool").glob("*.jsonl"))]
    files += [(p, 2, 8) for p in sorted((root / "short").glob("*.jsonl"))]
    files += [(p, LONG_MIN_WORDS, 80) for p in sorted((root / "long").glob("*.jsonl"))]
    for path, min_words, max_words in files:
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
            if not min_words <= n <= max_words:
                errors.append(f"{where}: {n} words (need {min_words}-{max_words})")
            if min_words == LONG_MIN_WORDS and SENTENCE_BREAK_RE.search(text):
                errors.append(f"{where}: a long sentence must be one sentence")
            _check_spans(where, text, item, errors)
            pool_texts[uid] = text
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
    errors.extend(check_rewrites(root, pool_texts))
    return errors, per_domain, n_templates


def check_rewrites(root: Path, pool_texts: dict[str, str]) -> list[str]:
    """Problems in ``rewrites/*.jsonl``: each line needs ``id``, ``pool_id``, ``reference``,
    ``rewrite`` and ``source``; the reference must be the pool item's text, the rewrite must differ
    from it in its words; an optional ``flip`` (``old``, ``new``, ``tier`` 1 or 2, ``reason``)
    needs ``old`` exactly once in the rewrite and ``new`` different from it."""
    errors: list[str] = []
    ids: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for path in sorted((root / "rewrites").glob("*.jsonl")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path.name}:{lineno}"
            try:
                item = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"{where}: invalid JSON: {e.msg}")
                continue
            fields = ("id", "pool_id", "reference", "rewrite", "source")
            if not all(isinstance(item.get(k), str) and item.get(k) for k in fields):
                errors.append(f"{where}: needs non-empty strings {fields}")
                continue
            if item["id"] in ids:
                errors.append(f"{where}: duplicate id {item['id']!r}")
            ids.add(item["id"])
            ref, rw = item["reference"], item["rewrite"]
            if pool_texts.get(item["pool_id"]) != ref:
                errors.append(
                    f"{where}: reference is not the text of pool item {item['pool_id']!r}"
                )
            key = (ref, rw)
            if key in pairs:
                errors.append(f"{where}: duplicate rewrite")
            pairs.add(key)
            if WORD_RE.findall(ref.casefold()) == WORD_RE.findall(rw.casefold()):
                errors.append(f"{where}: the rewrite has the reference's words")
            flip = item.get("flip")
            if flip is None:
                continue
            if not isinstance(flip, dict) or not isinstance(flip.get("old"), str):
                errors.append(f"{where}: 'flip' needs 'old', 'new', 'tier', 'reason'")
                continue
            old, new = flip.get("old"), flip.get("new")
            if not old or rw.count(old) != 1:
                errors.append(f"{where}: flip 'old' {old!r} must occur once in the rewrite")
            if not isinstance(new, str) or new == old or flip.get("tier") not in (1, 2):
                errors.append(f"{where}: flip needs a different 'new' and 'tier' 1 or 2")
            if not isinstance(flip.get("reason"), str) or not flip.get("reason"):
                errors.append(f"{where}: flip needs a one-line 'reason'")
    return errors


@tool_main("python -m annotation.sources.check_pool")
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
