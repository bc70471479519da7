"""The generator's references: pool items and templates (:func:`load_pool`), their role spans,
restatements (:func:`restate`) and multi-reference passages (:func:`build_passages`, ``synth-1.1``)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.synth import lexicon
from annotation.synth.config import (
    DEFAULT_POOL_ROOT,
    LONG_MIN_WORDS,
    PASSAGE_MAX_TOKENS,
    PASSAGE_PARTNER_WEIGHTS,
    GenerationConfig,
)
from annotation.synth.operators import is_entity_token
from annotation.synth.plan import RoleSpan
from annotation.synth.slots import fill_slot
from sitar.errors import InputError
from sitar.text import tokenize

__all__ = [
    "PoolItem",
    "Reference",
    "build_passages",
    "build_references",
    "common_words",
    "join_references",
    "load_long_sentences",
    "load_pool",
    "load_short_commands",
    "restate",
    "value_tokens",
    "vocabulary",
]


@dataclass(frozen=True)
class PoolItem:
    """One pool utterance or template as read from the source files."""

    id: str
    domain: str
    outcome: tuple[str, ...]
    inform: tuple[str, ...]
    text: str = ""
    template: str = ""
    slots: Mapping[str, str] = field(default_factory=dict)
    outcome_slots: tuple[str, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class Reference:
    """A concrete reference with located role spans; ``group`` keeps it in one split."""

    id: str
    group: str
    domain: str
    text: str
    spans: tuple[RoleSpan, ...]
    source: str
    #: Distinctive outcome values that may be restated: (start, end) character spans.
    restatable: tuple[tuple[int, int], ...] = ()
    slot_values: Mapping[str, str] = field(default_factory=dict)
    #: A passage's parts (reference ids in text order); empty for a single reference.
    parts: tuple[str, ...] = ()
    #: The pool items (groups) of a passage's parts, in text order; empty for a single reference.
    part_groups: tuple[str, ...] = ()

    @property
    def pool_ids(self) -> tuple[str, ...]:
        """Every pool item whose text is in this reference (``group`` first)."""
        rest = tuple(g for g in self.part_groups if g != self.group)
        return (self.group, *rest)


_SLOT_RE = re.compile(r"\{([a-z_0-9]+)\}")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_pool(
    root: str | os.PathLike[str] = DEFAULT_POOL_ROOT, *, strict: bool = False
) -> tuple[list[PoolItem], dict[str, str], list[str]]:
    """Read pool utterances and templates under ``root``.

    Returns the items (sorted by id), the SHA-256 of every file read (by path relative to
    ``root``), and one message per skipped line. With ``strict`` the first problem raises
    :class:`InputError` instead.
    """
    root = Path(root)
    files = sorted((root / "pool").glob("*.jsonl")) + sorted(root.glob("templates*.jsonl"))
    if not files:
        raise InputError(
            f"no pool files under {root} (expected pool/*.jsonl or templates*.jsonl); "
            "pass --pool-root pointing at annotation/sources"
        )
    items: list[PoolItem] = []
    hashes: dict[str, str] = {}
    skipped: list[str] = []
    seen: set[str] = set()
    for path in files:
        rel = path.relative_to(root).as_posix()
        hashes[rel] = _sha256(path)
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{rel}:{lineno}"
            try:
                item = _parse_item(json.loads(line), rel)
                if item.id in seen:
                    raise InputError(f"duplicate id {item.id!r}")
            except (json.JSONDecodeError, InputError, KeyError, TypeError) as e:
                if strict:
                    raise InputError(f"{where}: invalid pool line ({e})") from e
                skipped.append(f"{where}: {e}")
                continue
            seen.add(item.id)
            items.append(item)
    items.sort(key=lambda it: it.id)
    return items, hashes, skipped


def load_short_commands(
    root: str | os.PathLike[str] = DEFAULT_POOL_ROOT,
) -> tuple[list[PoolItem], dict[str, str]]:
    """Short commands (``root/short/*.jsonl``, ``synth-1.3``): items sorted by id and the SHA-256
    of every file. Any invalid line raises :class:`InputError` (the files are small and checked by
    ``annotation/sources/check_pool.py``)."""
    return _load_extra(Path(root), "short", "short command")


def load_long_sentences(
    root: str | os.PathLike[str] = DEFAULT_POOL_ROOT,
) -> tuple[list[PoolItem], dict[str, str]]:
    """Long sentences (``root/long/*.jsonl``, ``synth-1.5``, issue #28): hand-written single
    sentences of at least :data:`LONG_MIN_WORDS` words with role spans, so that value and contrast
    changes are also seen far from a short frame. Items sorted by id and the SHA-256 of every
    file; an invalid line (or a shorter sentence) raises :class:`InputError`."""
    items, hashes = _load_extra(Path(root), "long", "long sentence")
    for item in items:
        n = sum(1 for t in tokenize(item.text) if any(ch.isalpha() for ch in t.text))
        if n < LONG_MIN_WORDS:
            raise InputError(
                f"{item.source}: long sentence {item.id!r} has {n} words, need {LONG_MIN_WORDS}"
            )
    return items, hashes


def _load_extra(root: Path, folder: str, what: str) -> tuple[list[PoolItem], dict[str, str]]:
    files = sorted((root / folder).glob("*.jsonl"))
    if not files:
        raise InputError(f"no {what}s under {root / folder} (expected *.jsonl)")
    items: list[PoolItem] = []
    hashes: dict[str, str] = {}
    seen: set[str] = set()
    for path in files:
        rel = path.relative_to(root).as_posix()
        hashes[rel] = _sha256(path)
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = _parse_item(json.loads(line), rel)
            except (json.JSONDecodeError, InputError, KeyError, TypeError) as e:
                raise InputError(f"{rel}:{lineno}: invalid {what} ({e})") from e
            if item.id in seen or item.template:
                raise InputError(f"{rel}:{lineno}: duplicate id or a template {item.id!r}")
            seen.add(item.id)
            items.append(item)
    items.sort(key=lambda it: it.id)
    return items, hashes


def _parse_item(data: Any, source: str) -> PoolItem:
    if not isinstance(data, dict):
        raise InputError("expected a JSON object")
    outcome = tuple(data.get("outcome") or ())
    inform = tuple(data.get("inform") or ())
    if not outcome or not all(isinstance(s, str) and s for s in (*outcome, *inform)):
        raise InputError("'outcome' must be a non-empty list of strings, 'inform' a list")
    common = dict(
        id=str(data["id"]),
        domain=str(data.get("domain", "")),
        outcome=outcome,
        inform=inform,
        source=source,
    )
    if "template" in data:
        template, slots = data["template"], data.get("slots")
        if not isinstance(template, str) or not isinstance(slots, dict):
            raise InputError("a template needs 'template' (string) and 'slots' (object)")
        if set(_SLOT_RE.findall(template)) != set(slots):
            raise InputError("template placeholders and declared slots differ")
        return PoolItem(
            template=template,
            slots={str(k): str(v) for k, v in slots.items()},
            outcome_slots=tuple(data.get("outcome_slots") or ()),
            **common,
        )
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InputError("'text' must be a non-empty string")
    return PoolItem(text=text, **common)


def _locate(text: str, phrases: Iterable[str], role: str) -> tuple[list[RoleSpan], int]:
    """Role spans for phrases that occur exactly once and do not overlap; returns the spans and
    how many phrases were dropped."""
    spans: list[RoleSpan] = []
    dropped = 0
    for phrase in phrases:
        if text.count(phrase) != 1:
            dropped += 1
            continue
        a = text.index(phrase)
        spans.append(RoleSpan(a, a + len(phrase), role, phrase))
    return spans, dropped


def _drop_overlaps(spans: list[RoleSpan]) -> tuple[list[RoleSpan], int]:
    out: list[RoleSpan] = []
    dropped = 0
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if out and span.start < out[-1].end:
            dropped += 1
            continue
        out.append(span)
    return out, dropped


def _restatable(
    text: str, spans: Sequence[RoleSpan], common: frozenset[str]
) -> list[tuple[int, int]]:
    """Distinctive values inside outcome spans: money and clock times, numbers of two or more
    characters, and runs of name words (see :func:`~.operators.is_entity_token`)."""
    toks = tokenize(text)
    out: list[tuple[int, int]] = []
    for span in spans:
        if span.role != "outcome":
            continue
        sub = text[span.start : span.end]
        taken = [
            (span.start + m.start(), span.start + m.end())
            for m in re.finditer(r"[$£€]\d[\d,]*(?:\.\d\d)?|\b\d{1,2}:\d{2}\b", sub)
        ]
        inside = [k for k, t in enumerate(toks) if span.start <= t.start and t.end <= span.end]
        n = 0
        while n < len(inside):
            k = inside[n]
            t = toks[k]
            if any(x <= t.start < y for x, y in taken):
                n += 1
                continue
            if any(ch.isdigit() for ch in t.text) and len(t.text) >= 2:
                taken.append((t.start, t.end))
            elif is_entity_token(text, toks, k, common):
                m = n
                while m + 1 < len(inside) and is_entity_token(text, toks, inside[m + 1], common):
                    m += 1
                taken.append((t.start, toks[inside[m]].end))
                n = m
            n += 1
        out.extend(taken)
    return sorted(set(out))


def build_references(
    items: Sequence[PoolItem], config: GenerationConfig, common: frozenset[str]
) -> tuple[list[Reference], Counter[str]]:
    """Concrete references: pool utterances as they are, templates filled ``fills_per_template``
    times. Returns the references and counters of dropped spans/instances."""
    refs: list[Reference] = []
    notes: Counter[str] = Counter()
    for item in items:
        if item.template:
            for f in range(config.fills_per_template):
                rng = random.Random(f"{config.seed}:{item.id}:fill{f}")
                values = {name: fill_slot(kind, rng) for name, kind in sorted(item.slots.items())}

                def fill(s: str, values: Mapping[str, str] = values) -> str:
                    return _SLOT_RE.sub(lambda m: values.get(m.group(1), m.group(0)), s)

                text = fill(item.template)
                ref = _make_reference(
                    f"{item.id}.f{f}",
                    item,
                    text,
                    [fill(s) for s in item.outcome],
                    [fill(s) for s in item.inform],
                    common,
                    notes,
                    extra_outcome=[values[s] for s in item.outcome_slots if s in values],
                )
                if ref is not None:
                    refs.append(dataclasses.replace(ref, slot_values=values))
        else:
            ref = _make_reference(
                item.id, item, item.text, item.outcome, item.inform, common, notes
            )
            if ref is not None:
                refs.append(ref)
    return refs, notes


def _make_reference(
    rid: str,
    item: PoolItem,
    text: str,
    outcome: Sequence[str],
    inform: Sequence[str],
    common: frozenset[str],
    notes: Counter[str],
    extra_outcome: Sequence[str] = (),
) -> Reference | None:
    out_spans, d1 = _locate(text, outcome, "outcome")
    inf_spans, d2 = _locate(text, inform, "inform")
    # Outcome slot values not already inside an outcome span become outcome spans themselves.
    for value in extra_outcome:
        if text.count(value) == 1:
            a = text.index(value)
            if not any(s.start <= a and a + len(value) <= s.end for s in out_spans + inf_spans):
                out_spans.append(RoleSpan(a, a + len(value), "outcome", value))
    spans, d3 = _drop_overlaps(out_spans + inf_spans)
    notes["dropped_spans"] += d1 + d2 + d3
    if not any(s.role == "outcome" for s in spans):
        notes["references_without_outcome"] += 1
        return None
    return Reference(
        id=rid,
        group=item.id,
        domain=item.domain,
        text=text,
        spans=tuple(spans),
        source=item.source,
        restatable=tuple(_restatable(text, spans, common)),
    )


def restate(ref: Reference, value_span: tuple[int, int], rng: random.Random) -> Reference:
    """The reference with one outcome value restated at the end (role ``restated``)."""
    value = ref.text[value_span[0] : value_span[1]]
    base = ref.text.rstrip()
    if base and base[-1] not in ".!?":
        base += "."
    tail = rng.choice(lexicon.RESTATEMENTS).format(value=value)
    text = base + tail
    a = text.rindex(value)
    spans = (*ref.spans, RoleSpan(a, a + len(value), "restated", value))
    return dataclasses.replace(ref, text=text, spans=spans)


def value_tokens(text: str, common: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """``(values, norms)`` of a text: the normalized tokens that could be a recoverable value
    (a number of two or more characters, a name word; see :func:`~.operators.finalize_directions`)
    and all normalized tokens."""
    toks = tokenize(text)
    values = frozenset(
        t.norm
        for i, t in enumerate(toks)
        if (any(ch.isdigit() for ch in t.text) and len(t.text) >= 2)
        or is_entity_token(text, toks, i, common)
    )
    return values, frozenset(t.norm for t in toks)


def join_references(base: Reference, parts: Sequence[Reference]) -> Reference:
    """One passage reference from ``parts`` (which include ``base``), in the given order.

    Parts are stripped, given a final full stop where they have no sentence-final punctuation,
    and joined with one space. Role spans and restatable values of every part are kept (offsets
    shifted); the passage keeps ``base``'s id, group, domain and source, and records its parts.
    """
    texts: list[str] = []
    spans: list[RoleSpan] = []
    restatable: list[tuple[int, int]] = []
    offset = 0
    for part in parts:
        lead = len(part.text) - len(part.text.lstrip())
        text = part.text.strip()
        if text[-1] not in ".!?":
            text += "."
        shift = offset - lead
        for sp in part.spans:
            spans.append(RoleSpan(sp.start + shift, sp.end + shift, sp.role, sp.text))
        restatable.extend((a + shift, b + shift) for a, b in part.restatable)
        texts.append(text)
        offset += len(text) + 1
    return dataclasses.replace(
        base,
        text=" ".join(texts),
        spans=tuple(spans),
        restatable=tuple(restatable),
        parts=tuple(p.id for p in parts),
        part_groups=tuple(p.group for p in parts),
    )


def build_passages(
    refs: Sequence[Reference],
    *,
    config: GenerationConfig,
    common: frozenset[str],
    split_of: Mapping[str, str],
) -> tuple[list[Reference], Counter[str]]:
    """Extend a share ``passage_probability`` of ``refs`` into passages (same order, same ids).

    For every reference a generator seeded ``"{seed}:{reference id}:passage"`` decides whether it
    becomes a passage and how many partners it gets (1 or 2, :data:`PASSAGE_PARTNER_WEIGHTS`).
    Partners are other references of ``refs`` (never passages themselves) from **other pool items
    of the same domain and the same split** (``split_of``: pool item -> split, drawn before),
    tried in a seeded random order; a partner is skipped when the passage would exceed
    :data:`PASSAGE_MAX_TOKENS` tokens, or when it shares a value token (a number of two or more
    characters, a name) with a part already chosen -- otherwise a changed value in one sentence
    would count as recoverable from an unrelated sentence (T2 -> T1). The parts are then put in a
    seeded random order (so edits land in any sentence) and joined by :func:`join_references`.
    A reference that finds no partner stays as it is (counted).
    """
    notes: Counter[str] = Counter()
    if config.passage_probability <= 0:
        return list(refs), notes
    info = {r.id: (len(tokenize(r.text)), *value_tokens(r.text, common)) for r in refs}
    pools: dict[tuple[str, str], list[Reference]] = {}
    for r in sorted(refs, key=lambda r: r.id):
        pools.setdefault((r.domain, split_of[r.group]), []).append(r)
    sizes = list(PASSAGE_PARTNER_WEIGHTS)
    weights = [PASSAGE_PARTNER_WEIGHTS[n] for n in sizes]
    out: list[Reference] = []
    for ref in refs:
        rng = random.Random(f"{config.seed}:{ref.id}:passage")
        if rng.random() >= config.passage_probability:
            out.append(ref)
            continue
        want = rng.choices(sizes, weights)[0]
        candidates = [c for c in pools[(ref.domain, split_of[ref.group])] if c.group != ref.group]
        rng.shuffle(candidates)
        parts = [ref]
        n_tokens = info[ref.id][0]
        for cand in candidates:
            if len(parts) > want:
                break
            size, values, norms = info[cand.id]
            if n_tokens + size > PASSAGE_MAX_TOKENS or any(cand.group == p.group for p in parts):
                continue
            if any(values & info[p.id][2] or info[p.id][1] & norms for p in parts):
                continue
            parts.append(cand)
            n_tokens += size
        if len(parts) == 1:
            notes["passages_without_partner"] += 1
            out.append(ref)
            continue
        rng.shuffle(parts)
        out.append(join_references(ref, parts))
        notes["passage_references"] += 1
        notes[f"passage_references_{len(parts)}_parts"] += 1
    return out, notes


def common_words(items: Sequence[PoolItem]) -> frozenset[str]:
    """Words the pool uses in lowercase (so a capitalized occurrence is not an entity)."""
    words: set[str] = set()
    for item in items:
        text = item.text or _SLOT_RE.sub(" ", item.template)
        words.update(t.norm for t in tokenize(text) if t.text.islower())
    return frozenset(words)


def vocabulary(items: Sequence[PoolItem]) -> list[str]:
    """The closed vocabulary for phonetic neighbours: pool words plus the generator's lists."""
    words: set[str] = set()
    for item in items:
        text = item.text or _SLOT_RE.sub(" ", item.template)
        words.update(t.norm for t in tokenize(text))
    words.update(w.casefold() for w in (*lexicon.ENTITY_NAMES, *lexicon.ENTITY_PLACES))
    words.update(w.casefold() for w in (*lexicon.MONTHS, *lexicon.WEEKDAYS))
    words.update(w for pair in lexicon.ANTONYMS for w in pair)
    words.update(v for alts in lexicon.ACTION_VERBS.values() for v in alts if " " not in v)
    words.update(w for w in lexicon.ACTION_VERBS if " " not in w)
    from annotation.synth.numbers import NUMBER_WORDS

    words.update(NUMBER_WORDS)
    return sorted(words)
