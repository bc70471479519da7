"""The pairs of one reference (:func:`generate_pairs`): planned pairs, nested siblings
(``synth-1.1``), ladders (``synth-1.2``) and the family pairs of :mod:`.rewrites`."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.synth.config import (
    LADDER_RUNGS,
    N_EDIT_WEIGHTS,
    PROFILE_WEIGHTS,
    PROFILE_WEIGHTS_NO_INFORM,
    GenerationConfig,
    generator_version,
    plan_context,
)
from annotation.synth.edits import asr_surface, edit_footprint, make_record, plan_edits, try_ops
from annotation.synth.operators import finalize_directions
from annotation.synth.phonetic import PhoneticIndex
from annotation.synth.plan import Edit, apply_edits
from annotation.synth.pool import Reference, restate
from annotation.synth.rewrites import (
    FORM_FAMILIES,
    ONE_EDIT_FAMILIES,
    one_edit_family_pair,
    reword_pairs,
)
from sitar.records import Record
from sitar.text import tokenize

__all__ = [
    "generate_pairs",
]


@dataclass(frozen=True)
class _Pair:
    """A generated pair with what made it (needed again for a nested sibling)."""

    record: Record
    k: int
    use: Reference
    edits: tuple[Edit, ...]
    surface: bool


def generate_pairs(
    refs: Sequence[Reference],
    *,
    config: GenerationConfig,
    phonetic: PhoneticIndex,
    common: frozenset[str],
    analyzer: Any = None,
    progress: Callable[[Iterable[Reference]], Iterable[Reference]] | None = None,
    n_weights: Sequence[float] = N_EDIT_WEIGHTS,
) -> tuple[list[Record], Counter[str]]:
    """Records (split unset) for ``pairs_per_reference`` pairs of every reference.

    ``n_weights`` are the weights of 1, 2, ... edits per pair (short commands use
    :data:`.config.SHORT_EDIT_WEIGHTS`). With a ``synth-1.3`` reword or direction probability, each
    reference may also yield the pairs of :func:`reword_pairs` and :func:`one_edit_family_pair`,
    made after all its other records.

    With ``family_probability`` > 0, every pair may be followed by its nested sibling
    (:func:`_sibling`); siblings are made after all pairs of the reference, so the pairs
    themselves are exactly those of a run without families.
    """
    records: list[Record] = []
    counters: Counter[str] = Counter()
    version = generator_version(config)
    iterator: Iterable[Reference] = progress(refs) if progress else refs
    for ref in iterator:
        seen: set[str] = set()
        pairs: list[_Pair] = []
        for k in range(config.pairs_per_reference):
            pair = None
            for attempt in range(3):
                rng = random.Random(f"{config.seed}:{ref.id}:{k}:{attempt}")
                pair = _one_pair(
                    ref, k, rng, config, phonetic, common, analyzer, counters, version, n_weights
                )
                if pair is not None and pair.record.hypothesis not in seen:
                    break
                pair = None
            if pair is None:
                counters["duplicate_pairs_dropped"] += 1
                continue
            seen.add(pair.record.hypothesis)
            pairs.append(pair)
        for pair in pairs:
            records.append(pair.record)
            if config.family_probability > 0:
                sibling = _sibling(ref, pair, seen, config, analyzer, counters, version)
                if sibling is not None:
                    seen.add(sibling.hypothesis)
                    records.append(sibling)
        if config.ladder_probability > 0:
            for record in _ladder(ref, seen, config, phonetic, common, analyzer, counters, version):
                seen.add(record.hypothesis)
                records.append(record)
        extra: list[Record] = []
        if config.reword_probability > 0:
            extra += reword_pairs(ref, seen, config, phonetic, common, analyzer, counters, version)
        for family, suffix, option, operator in ONE_EDIT_FAMILIES:
            if getattr(config, option) > 0:
                extra += one_edit_family_pair(
                    ref, seen, config, phonetic, common, analyzer, counters, version,
                    family=family, suffix=suffix, operator=operator,
                    probability=getattr(config, option),
                )  # fmt: skip
        for family, suffix, option, operator in FORM_FAMILIES:
            if getattr(config, option) > 0:
                extra += one_edit_family_pair(
                    ref, seen, config, phonetic, common, analyzer, counters, version,
                    family=family, suffix=suffix, operator=operator,
                    probability=getattr(config, option), recognizer=True,
                )  # fmt: skip
        for record in extra:
            seen.add(record.hypothesis)
            records.append(record)
    return records, counters


def _one_pair(
    ref: Reference,
    k: int,
    rng: random.Random,
    config: GenerationConfig,
    phonetic: PhoneticIndex,
    common: frozenset[str],
    analyzer: Any,
    counters: Counter[str],
    version: str,
    n_weights: Sequence[float] = N_EDIT_WEIGHTS,
) -> _Pair | None:
    focus = None
    use = ref
    if ref.restatable and rng.random() < config.restate_probability:
        value = rng.choice(ref.restatable)
        use = restate(ref, value, rng)
        focus = value
    weights = (
        PROFILE_WEIGHTS if any(s.role == "inform" for s in use.spans) else PROFILE_WEIGHTS_NO_INFORM
    )
    profile = rng.choices(list(weights), list(weights.values()))[0]
    n = rng.choices(range(1, len(n_weights) + 1), n_weights)[0]
    ctx = plan_context(config, use.text, use.spans, phonetic, common)
    edits = plan_edits(use, ctx, rng, profile, n, focus)
    edits = finalize_directions(use.text, sorted(edits, key=lambda e: (e.start, e.end)))
    hypothesis = apply_edits(use.text, edits)
    surface = rng.random() < config.surface_probability
    if surface:
        hypothesis = asr_surface(hypothesis)
    if hypothesis == use.text:
        return None
    record, unexplained = make_record(
        f"synth-{ref.id}-{k:03d}",
        ref,
        use,
        hypothesis,
        edits,
        config=config,
        analyzer=analyzer,
        version=version,
        provenance={"profile": profile, "restated": focus is not None, "asr_surface": surface},
    )
    counters["unexplained_gaps"] += unexplained
    return _Pair(record, k, use, tuple(edits), surface)


def _positions_without(
    n_gaps: int, gaps_of_edit: Sequence[Sequence[int]], edits: Sequence[Edit], removed: int
) -> list[tuple[int, int]]:
    """The per-gap (tier, direction) a pair should have without edit ``removed``, by the mapping
    rule applied to the parent's mapping: gaps only that edit explained disappear, a shared gap
    takes the highest position among its remaining edits, unexplained gaps stay T0."""
    members: list[list[int]] = [[] for _ in range(n_gaps)]
    for k, gaps in enumerate(gaps_of_edit):
        for g in gaps:
            members[g].append(k)
    out: list[tuple[int, int]] = []
    for ks in members:
        rest = [k for k in ks if k != removed]
        if ks and not rest:
            continue
        if not rest:
            out.append((0, 0))
            continue
        top = max(rest, key=lambda k: (edits[k].position, -k))
        out.append((edits[top].tier, edits[top].direction))
    return sorted(out)


def _sibling(
    ref: Reference,
    pair: _Pair,
    seen: set[str],
    config: GenerationConfig,
    analyzer: Any,
    counters: Counter[str],
    version: str,
) -> Record | None:
    """The nested sibling of ``pair``: the same reference (as used, restated or not), the same
    surface choice, and the same edits minus one token-changing T0 edit; or None.

    A pair is eligible when it has at least two edits and at least one T0 edit that changes a
    token; a generator seeded ``"{seed}:{reference id}:{k}:family"`` then draws whether it gets a
    sibling (``family_probability``) and which T0 edit is removed. The sibling is applied,
    segmented, mapped and scored like any pair. It is skipped (and counted) when its hypothesis
    equals the reference or another hypothesis of the reference, and when CGD re-segments it
    differently from "the parent minus that edit" (:func:`_positions_without`), so that a
    sibling differs from its parent by exactly that edit's gap (or by nothing, where the edit
    shared its gap with another).
    """
    parent = pair.record
    edits = list(pair.edits)
    tokens = tokenize(pair.use.text)
    eligible = [
        i for i, e in enumerate(edits) if e.tier == 0 and not edit_footprint(tokens, e).silent
    ]
    if len(edits) < 2 or not eligible:
        return None
    counters["family_eligible_pairs"] += 1
    rng = random.Random(f"{config.seed}:{ref.id}:{pair.k}:family")
    if rng.random() >= config.family_probability:
        return None
    counters["family_drawn"] += 1
    removed = rng.choice(eligible)
    rest = finalize_directions(pair.use.text, [e for i, e in enumerate(edits) if i != removed])
    hypothesis = apply_edits(pair.use.text, rest)
    if pair.surface:
        hypothesis = asr_surface(hypothesis)
    if hypothesis == pair.use.text:
        counters["family_skipped_equals_reference"] += 1
        return None
    if hypothesis in seen:
        counters["family_skipped_duplicate"] += 1
        return None
    prov = parent.provenance
    parent_gaps = [list(e["gaps"]) for e in prov["edits"]]
    record, unexplained = make_record(
        f"{parent.id}n",
        ref,
        pair.use,
        hypothesis,
        rest,
        config=config,
        analyzer=analyzer,
        version=version,
        provenance={
            "profile": prov["profile"],
            "restated": prov["restated"],
            "asr_surface": prov["asr_surface"],
            "family_of": parent.id,
            "family_removed_index": removed,
            "family_removed_edit": {**edits[removed].to_dict(), "gaps": parent_gaps[removed]},
        },
    )
    expected = _positions_without(len(parent.gaps), parent_gaps, edits, removed)
    if sorted(zip(record.tiers, record.directions, strict=True)) != expected:
        counters["family_skipped_resegmented"] += 1
        return None
    counters["unexplained_gaps"] += unexplained
    counters["family_siblings"] += 1
    return record


def _ladder(
    ref: Reference,
    seen: set[str],
    config: GenerationConfig,
    phonetic: PhoneticIndex,
    common: frozenset[str],
    analyzer: Any,
    counters: Counter[str],
    version: str,
) -> list[Record]:
    """The ladder of ``ref``: up to 11 records, one per rung of :data:`LADDER_RUNGS`.

    A generator seeded ``"{seed}:{reference id}:ladder"`` draws whether the reference gets a
    ladder (``ladder_probability``; only references with an inform span are eligible), plans one
    T2 edit, one T1 edit and two token-changing T0 edits on the reference as written (not
    restated), and draws one surface choice for all rungs. Each rung applies its subset of the four
    edits and is segmented, mapped and scored like any pair, so its target follows spec §4-5. A
    rung is skipped (and counted) when its hypothesis equals the reference or another hypothesis
    of the reference, or when CGD does not give exactly one gap per edit with the edit's nominal
    tier; the whole ladder is skipped when the four edits cannot be planned.
    """
    if not any(s.role == "inform" for s in ref.spans):
        return []
    counters["ladder_eligible_references"] += 1
    rng = random.Random(f"{config.seed}:{ref.id}:ladder")
    if rng.random() >= config.ladder_probability:
        return []
    counters["ladder_drawn"] += 1
    ctx = plan_context(config, ref.text, ref.spans, phonetic, common)
    tokens = tokenize(ref.text)
    planned: dict[str, Edit] = {}
    for key, tier in (("2", 2), ("1", 1)):
        edit = try_ops(ctx, rng, tier)
        if edit is None:
            counters["ladder_skipped_unplanned"] += 1
            return []
        ctx.edits.append(edit)
        planned[key] = edit
    for key in ("a", "b"):
        for _ in range(6):
            edit = try_ops(ctx, rng, 0)
            if edit is not None and not edit_footprint(tokens, edit).silent:
                break
            edit = None
        if edit is None:
            counters["ladder_skipped_unplanned"] += 1
            return []
        ctx.edits.append(edit)
        planned[key] = edit
    surface = rng.random() < config.surface_probability
    records: list[Record] = []
    local_seen = set(seen)
    for letter, keys in LADDER_RUNGS.items():
        chosen = sorted((planned[k] for k in keys), key=lambda e: (e.start, e.end))
        edits = finalize_directions(ref.text, chosen)
        hypothesis = apply_edits(ref.text, edits)
        if surface:
            hypothesis = asr_surface(hypothesis)
        if hypothesis == ref.text or hypothesis in local_seen:
            counters["ladder_skipped_duplicate"] += 1
            continue
        record, unexplained = make_record(
            f"synth-{ref.id}-L{letter}",
            ref,
            ref,
            hypothesis,
            edits,
            config=config,
            analyzer=analyzer,
            version=version,
            provenance={
                "profile": "ladder",
                "ladder_rung": letter,
                "restated": False,
                "asr_surface": surface,
            },
        )
        expected = sorted(planned[k].tier for k in keys)
        if unexplained or sorted(record.tiers) != expected:
            counters["ladder_skipped_resegmented"] += 1
            continue
        local_seen.add(hypothesis)
        records.append(record)
    counters["ladder_records"] += len(records)
    if records:
        counters["ladders"] += 1
    return records
