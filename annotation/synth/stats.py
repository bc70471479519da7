"""Split by source group (:func:`assign_group_splits`, :func:`split_by_group`), the split-safety
check and the corpus statistics (:func:`summarize` and the per-version counters)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from annotation.synth.config import (
    FAMILY_DATA_VERSION,
    LONG_MIN_WORDS,
    PASSAGE_MAX_TOKENS,
    VALUE_DATA_VERSION,
    GenerationConfig,
)
from annotation.synth.plan import number_tokens
from annotation.synth.pool import PoolItem
from sitar.records import Record
from sitar.targets import normalize_score
from sitar.text import tokenize

__all__ = [
    "V13_PROFILES",
    "V15_PROFILES",
    "assign_group_splits",
    "check_split_safety",
    "family_stats",
    "ladder_stats",
    "passage_stats",
    "position_label",
    "split_by_group",
    "summarize",
    "v13_stats",
    "v15_stats",
]


def assign_group_splits(
    groups: Iterable[str], *, fractions: tuple[float, float, float], seed: int
) -> dict[str, str]:
    """Split of every group (pool item or template) with :func:`annotation.split.split_records`.

    ``split_records`` groups by reference text; restated references and template instances
    have several texts per source, so it is called on one proxy record per group.
    """
    from annotation.split import split_records

    proxies = [
        Record(id=g, reference=g, hypothesis="", gaps=(), tiers=(), directions=(), score=0.0)
        for g in sorted(set(groups))
    ]
    return {p.id: str(p.split) for p in split_records(proxies, fractions=fractions, seed=seed)}


def split_by_group(
    records: Sequence[Record],
    *,
    fractions: tuple[float, float, float],
    seed: int,
    split_of: Mapping[str, str] | None = None,
) -> list[Record]:
    """Split grouped by pool item or template (``provenance.pool_id``).

    Without ``split_of`` the groups of ``records`` are split by :func:`assign_group_splits`;
    with it (passages: the split of every pool item is drawn before the passages are built) the
    given split of each record's group is used.
    """
    if split_of is None:
        split_of = assign_group_splits(
            (r.provenance["pool_id"] for r in records), fractions=fractions, seed=seed
        )
    return [dataclasses.replace(r, split=split_of[r.provenance["pool_id"]]) for r in records]


def check_split_safety(records: Iterable[Record]) -> None:
    """Raise :class:`RuntimeError` if a pool item (any of a record's ``pool_ids``) or a reference
    text occurs in two splits."""
    where: dict[str, str] = {}
    for r in records:
        for key in (*r.provenance.get("pool_ids", [r.provenance["pool_id"]]), "ref:" + r.reference):
            first = where.setdefault(key, str(r.split))
            if first != r.split:
                raise RuntimeError(f"{key!r} occurs in the {first} and {r.split} splits ({r.id})")


def _bins(records: Iterable[Record], n: int = 10) -> list[int]:
    counts = [0] * n
    for r in records:
        counts[min(n - 1, int(normalize_score(r.score) * n))] += 1
    return counts


def _silent_edit(edit: Mapping[str, Any]) -> bool:
    old = [t.norm for t in tokenize(edit["ref_text"])]
    return old == [t.norm for t in tokenize(edit["new_text"])]


def position_label(tier: int, direction: int) -> str:
    """``T2``, ``T2->T1``, ``T0->T1``, ..."""
    return f"T{tier}" + (f"->T{tier + direction}" if direction else "")


def summarize(records: Sequence[Record]) -> dict[str, Any]:
    """Tier distribution, score histogram, operator counts and boundary cases of records."""
    positions: Counter[str] = Counter()
    pair_top: Counter[str] = Counter()
    ops: Counter[str] = Counter()
    ops_mapped: Counter[str] = Counter()
    n_edits: Counter[int] = Counter()
    n_gaps: Counter[int] = Counter()
    profiles: Counter[str] = Counter()
    unmapped: Counter[str] = Counter()
    unexplained = 0
    total_gaps = 0
    boundary_pairs = 0
    for r in records:
        total_gaps += len(r.gaps)
        n_gaps[len(r.gaps)] += 1
        for t, d in zip(r.tiers, r.directions, strict=True):
            positions[position_label(t, d)] += 1
        if r.tiers:
            key = max(zip(r.tiers, r.directions, strict=True), key=lambda td: 3 * td[0] + td[1])
            pair_top[position_label(*key)] += 1
        else:
            pair_top["no gap"] += 1
        if any(r.directions):
            boundary_pairs += 1
        prov = r.provenance
        edits = prov.get("edits", [])
        n_edits[len(edits)] += 1
        profiles[str(prov.get("profile"))] += 1
        for e in edits:
            ops[e["op"]] += 1
            if e.get("gaps"):
                ops_mapped[e["op"]] += 1
            elif not _silent_edit(e):
                unmapped[position_label(e["tier"], e["direction"])] += 1
        unexplained += int(prov.get("unexplained_gaps", 0))
    n = len(records)
    return {
        "pairs": n,
        "gaps": total_gaps,
        "gap_positions": dict(sorted(positions.items())),
        "pair_max_position": dict(sorted(pair_top.items())),
        "boundary_pairs": boundary_pairs,
        "boundary_pair_rate": boundary_pairs / n if n else 0.0,
        "score_histogram_normalized_0.1_bins": _bins(records),
        "operators_planned": dict(sorted(ops.items())),
        "operators_mapped_to_gaps": dict(sorted(ops_mapped.items())),
        "edits_per_pair": {str(k): v for k, v in sorted(n_edits.items())},
        "gaps_per_pair": {str(k): v for k, v in sorted(n_gaps.items())},
        "profiles": dict(sorted(profiles.items())),
        "unmapped_token_edits_by_position": dict(sorted(unmapped.items())),
        "unexplained_gaps": unexplained,
        "unexplained_gap_rate": unexplained / total_gaps if total_gaps else 0.0,
        "mean_normalized_score": (sum(normalize_score(r.score) for r in records) / n if n else 0.0),
    }


def passage_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    notes: Mapping[str, int],
) -> dict[str, Any]:
    """Passage counts for stats.json (``synth-1.1``)."""
    passage = [r for r in records if r.provenance.get("passage_parts")]
    parts: Counter[str] = Counter(str(len(r.provenance["passage_parts"])) for r in passage)
    return {
        "passage_probability": config.passage_probability,
        "max_tokens": PASSAGE_MAX_TOKENS,
        "references": int(notes.get("passage_references", 0)),
        "references_without_partner": int(notes.get("passages_without_partner", 0)),
        "pairs": len(passage),
        "pairs_by_parts": dict(sorted(parts.items())),
        "pairs_by_split": {
            s: sum(1 for r in rs if r.provenance.get("passage_parts")) for s, rs in by_split.items()
        },
        "summary": summarize(passage),
    }


def family_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    counters: Mapping[str, int],
) -> dict[str, Any]:
    """Nested-sibling counts for stats.json (``synth-1.1``)."""
    siblings = [r for r in records if "family_of" in r.provenance]
    score_of = {r.id: r.score for r in records}
    lower = sum(1 for r in siblings if r.score < score_of[r.provenance["family_of"]])
    return {
        "family_probability": config.family_probability,
        "eligible_pairs": int(counters.get("family_eligible_pairs", 0)),
        "drawn": int(counters.get("family_drawn", 0)),
        "siblings": len(siblings),
        "siblings_by_split": {
            s: sum(1 for r in rs if "family_of" in r.provenance) for s, rs in by_split.items()
        },
        "siblings_with_lower_score": lower,
        "siblings_with_equal_score": len(siblings) - lower,
        "skipped_equals_reference": int(counters.get("family_skipped_equals_reference", 0)),
        "skipped_duplicate": int(counters.get("family_skipped_duplicate", 0)),
        "skipped_resegmented": int(counters.get("family_skipped_resegmented", 0)),
        "removed_operators": dict(
            sorted(Counter(r.provenance["family_removed_edit"]["op"] for r in siblings).items())
        ),
    }


def ladder_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    counters: Mapping[str, int],
) -> dict[str, Any]:
    """Ladder counts for stats.json (``synth-1.2``)."""
    rungs = [r for r in records if "ladder_rung" in r.provenance]
    return {
        "ladder_probability": config.ladder_probability,
        "eligible_references": int(counters.get("ladder_eligible_references", 0)),
        "drawn": int(counters.get("ladder_drawn", 0)),
        "ladders": int(counters.get("ladders", 0)),
        "records": len(rungs),
        "records_by_split": {
            s: sum(1 for r in rs if "ladder_rung" in r.provenance) for s, rs in by_split.items()
        },
        "records_by_rung": dict(
            sorted(Counter(r.provenance["ladder_rung"] for r in rungs).items())
        ),
        "skipped_unplanned": int(counters.get("ladder_skipped_unplanned", 0)),
        "skipped_duplicate": int(counters.get("ladder_skipped_duplicate", 0)),
        "skipped_resegmented": int(counters.get("ladder_skipped_resegmented", 0)),
    }


#: ``synth-1.3`` record families by ``provenance.profile`` (short commands by pool file).
V13_PROFILES = ("reword", "reword_flip", "direction", "sentence_rewrite", "rewrite_flip",
                "quantifier")  # fmt: skip


def v13_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    counters: Mapping[str, int],
    short_items: Sequence[PoolItem],
) -> dict[str, Any]:
    """Counts of the ``synth-1.3`` families for stats.json and the data card."""
    from annotation.synth.families import load_directions, load_lexicon

    def family(r: Record) -> str | None:
        if str(r.provenance.get("pool_file", "")).startswith("short/"):
            return "short_command"
        profile = r.provenance.get("profile")
        return profile if profile in V13_PROFILES else None

    fams: dict[str, list[Record]] = {}
    for r in records:
        name = family(r)
        if name is not None:
            fams.setdefault(name, []).append(r)
    lexicon_rows = load_lexicon()
    return {
        "options": {
            "reword_probability": config.reword_probability,
            "direction_probability": config.direction_probability,
            "short_commands": config.short_commands,
            "short_pairs_per_reference": config.short_pairs_per_reference,
            "sentence_rewrites": config.sentence_rewrites,
            # synth-1.4 only, so that synth-1.3 stats stay byte-identical
            **(
                {"quantifier_probability": config.quantifier_probability}
                if config.quantifier_probability
                else {}
            ),
        },
        "data": {
            "family_data_version": FAMILY_DATA_VERSION,
            "lexicon_rows_t0": sum(1 for e in lexicon_rows if e.tier == 0),
            "lexicon_rows_flip": sum(1 for e in lexicon_rows if e.tier == 2),
            "direction_rows": dict(sorted(Counter(p.kind for p in load_directions()).items())),
            "short_commands": len(short_items),
        },
        "records": {k: len(v) for k, v in sorted(fams.items())},
        "records_by_split": {
            k: {s: sum(1 for r in rs if family(r) == k) for s, rs in by_split.items()}
            for k in sorted(fams)
        },
        "pair_max_position": {
            k: summarize(v)["pair_max_position"] for k, v in sorted(fams.items())
        },
        "counters": {
            k: v
            for k, v in sorted(counters.items())
            if k.startswith(("reword_", "direction_", "rewrite_", "short_", "quantifier_"))
        },
    }


#: ``synth-1.5`` record families by ``provenance.profile``.
V15_PROFILES = ("value", "contrast")


def v15_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    counters: Mapping[str, int],
    long_items: Sequence[PoolItem],
) -> dict[str, Any]:
    """Counts of the ``synth-1.5`` families for stats.json and the data card: value and contrast
    records by form, op and split, the long sentences' records, and the number-format edits
    planned under the ``number_format`` switch."""
    from annotation.synth.families import CONTRASTS_FILE, load_directions
    from annotation.synth.values import load_values

    def family(r: Record) -> str | None:
        profile = r.provenance.get("profile")
        return profile if profile in V15_PROFILES else None

    def long_words(r: Record) -> bool:
        words = sum(1 for t in tokenize(r.reference) if any(ch.isalpha() for ch in t.text))
        return words >= LONG_MIN_WORDS

    fams: dict[str, list[Record]] = {}
    for r in records:
        name = family(r)
        if name is not None:
            fams.setdefault(name, []).append(r)

    def planned_ops(rs: Sequence[Record]) -> dict[str, int]:
        ops = Counter(
            e["op"] for r in rs for e in r.provenance["edits"]
            if e["op"].startswith(("value_", "contrast_"))
        )  # fmt: skip
        return dict(sorted(ops.items()))

    long_records = [
        r for r in records if str(r.provenance.get("pool_file", "")).startswith("long/")
    ]
    number_edits = Counter(
        e["op"] for r in records for e in r.provenance.get("edits", [])
        if e["op"] == "number_format" or (
            e["op"] == "reword_number"
            and (number_tokens(e["ref_text"]) or number_tokens(e["new_text"]))
        )
    )  # fmt: skip
    examples = sorted(
        {
            (e["ref_text"], e["new_text"])
            for r in records
            for e in r.provenance.get("edits", [])
            if e["op"] == "number_format"
        }
    )
    return {
        "options": {
            "value_probability": config.value_probability,
            "contrast_probability": config.contrast_probability,
            "long_sentences": config.long_sentences,
            "long_pairs_per_reference": config.long_pairs_per_reference,
            "number_format": config.number_format,
        },
        "data": {
            "value_data_version": VALUE_DATA_VERSION,
            "value_rows": dict(sorted(Counter(p.kind for p in load_values()).items())),
            "contrast_rows": dict(
                sorted(Counter(p.kind for p in load_directions(CONTRASTS_FILE)).items())
            ),
            "long_sentences": len(long_items),
        },
        "records": {k: len(v) for k, v in sorted(fams.items())},
        "records_by_form": {
            k: dict(sorted(Counter(str(r.provenance.get("form", "written")) for r in v).items()))
            for k, v in sorted(fams.items())
        },
        "records_by_op": {k: planned_ops(v) for k, v in sorted(fams.items())},
        "records_by_split": {
            k: {s: sum(1 for r in rs if family(r) == k) for s, rs in by_split.items()}
            for k in sorted(fams)
        },
        "records_with_long_reference": {
            k: sum(1 for r in v if long_words(r)) for k, v in sorted(fams.items())
        },
        "pair_max_position": {
            k: summarize(v)["pair_max_position"] for k, v in sorted(fams.items())
        },
        "long_sentence_records": len(long_records),
        "number_format_edits": dict(sorted(number_edits.items())),
        # what --number-format kept: the first 16 distinct number_format edits (old, new)
        "number_format_examples": [list(x) for x in examples[:16]],
        "counters": {
            k: v
            for k, v in sorted(counters.items())
            if k.startswith(("value_", "contrast_", "long_", "short_value_", "short_contrast_"))
        },
    }
