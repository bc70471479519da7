"""spec §6 (docs/spec.md) augmentation: selective gap correction that keeps β, then upsampling of sparse bins.

For a labelled pair with at least three gaps, a *variant* restores a non-empty, proper subset of
its gaps to the reference (:meth:`sitar.gaps.Segmentation.apply` over the kept gaps) while keeping
at least one gap at the pair's maximum severity position, so the base score β is unchanged. The
variant's target is recomputed with :func:`sitar.targets.score_from_tiers` from the kept gaps'
labels. Gap identities are inherited from the parent (as in the paper's Appendix C), but each
variant is re-segmented and kept only if CGD finds exactly the kept gaps again (same reference
token intervals, same hypothesis tokens); others are counted as ``skipped_inconsistent``.

Selection: scores are binned on the normalized scale in 0.1-wide bins. While some bin below the
target count still has candidates, the sparsest such bin (ties: lowest bin) gets one more variant
(candidates in a seeded random order, at most ``max_variants_per_parent`` per parent, no duplicate
(reference, hypothesis) pairs). Afterwards every record in a bin that is still below the target is
duplicated once. The returned report states the bins before and after each step; tests check it
against the records. Only training records may be augmented.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sitar import segment
from sitar.errors import InputError
from sitar.gaps import Gap, Segmentation
from sitar.records import Record
from sitar.targets import normalize_score, score_from_tiers
from sitar.text import tokenize

__all__ = ["AugmentResult", "augment_records", "record_segmentation", "score_bin"]

N_BINS = 10


def score_bin(score: float, n_bins: int = N_BINS) -> int:
    """Bin index of a raw score on the normalized scale (bins of width ``1 / n_bins``)."""
    return min(n_bins - 1, int(normalize_score(score) * n_bins))


def _histogram(records: Sequence[Record], n_bins: int) -> list[int]:
    counts = [0] * n_bins
    for r in records:
        counts[score_bin(r.score, n_bins)] += 1
    return counts


def record_segmentation(record: Record, analyzer: str = "") -> Segmentation:
    """Rebuild the :class:`Segmentation` of a record from its stored gaps (no re-segmentation)."""
    try:
        gaps = tuple(
            Gap(
                index=i,
                ref_tokens=tuple(g["ref_tokens"]),
                hyp_tokens=tuple(g["hyp_tokens"]),
                ref_span=tuple(g["ref_span"]),
                hyp_span=tuple(g["hyp_span"]),
                ref_text=g["ref_text"],
                hyp_text=g["hyp_text"],
                n_atomic=int(g.get("n_atomic", 1)),
            )
            for i, g in enumerate(record.gaps)
        )
    except (KeyError, TypeError, ValueError) as e:
        raise InputError(f"record {record.id!r}: malformed gap ({e})") from e
    for g in gaps:
        if record.reference[g.ref_span[0] : g.ref_span[1]] != g.ref_text:
            raise InputError(
                f"record {record.id!r}: gap {g.index} ref_span does not match ref_text"
            )
    return Segmentation(
        reference=record.reference,
        hypothesis=record.hypothesis,
        ref_tokens=tokenize(record.reference),
        hyp_tokens=tokenize(record.hypothesis),
        gaps=gaps,
        consolidated=True,
        analyzer=analyzer,
    )


@dataclass
class AugmentResult:
    """The augmented training records (originals first, then variants, then duplicates)."""

    records: list[Record]
    report: dict[str, Any] = field(default_factory=dict)


def _subsets(m: int, top: set[int], limit: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Kept-gap subsets: non-empty, proper, containing a gap at the top position."""
    if 2**m <= limit:
        out = [
            k
            for size in range(1, m)
            for k in itertools.combinations(range(m), size)
            if top.intersection(k)
        ]
        return out
    seen: set[tuple[int, ...]] = set()
    for _ in range(limit * 4):
        k = tuple(i for i in range(m) if rng.random() < 0.5)
        if 0 < len(k) < m and top.intersection(k):
            seen.add(k)
        if len(seen) >= limit:
            break
    return sorted(seen)


def _consistent(parent: Segmentation, kept: Sequence[int], variant: Segmentation) -> bool:
    if len(variant.gaps) != len(kept):
        return False
    for new, i in zip(variant.gaps, kept, strict=True):
        old = parent.gaps[i]
        if tuple(new.ref_tokens) != tuple(old.ref_tokens):
            return False
        if [t.norm for t in tokenize(new.hyp_text)] != [t.norm for t in tokenize(old.hyp_text)]:
            return False
    return True


def augment_records(
    records: Sequence[Record],
    *,
    seed: int = 0,
    target_per_bin: int | None = None,
    max_variants_per_parent: int = 4,
    max_subsets: int = 4096,
    min_gaps: int = 3,
    analyzer: str = "lexicon",
    max_bridge_tokens: int | None = None,
    n_bins: int = N_BINS,
) -> AugmentResult:
    """Augment training records (see the module docstring).

    ``target_per_bin`` defaults to ``ceil(len(records) / n_bins)``, an even share of the bins.
    """
    bad = [r.id for r in records if r.split not in (None, "train")]
    if bad:
        raise InputError(
            f"only training records may be augmented; {len(bad)} record(s) are in other splits "
            f"(first: {bad[0]!r})"
        )
    if max_variants_per_parent < 0 or min_gaps < 2 or n_bins < 1:
        raise InputError("max_variants_per_parent must be >= 0, min_gaps >= 2 and n_bins >= 1")
    rng = random.Random(seed)
    target = math.ceil(len(records) / n_bins) if target_per_bin is None else int(target_per_bin)
    before = _histogram(records, n_bins)
    counts = list(before)
    pool: list[list[tuple[int, tuple[int, ...], float]]] = [[] for _ in range(n_bins)]
    for p, rec in enumerate(records):
        m = len(rec.gaps)
        if m < min_gaps:
            continue
        key = [3 * t + d for t, d in zip(rec.tiers, rec.directions, strict=True)]
        top = {i for i, k in enumerate(key) if k == max(key)}
        for kept in _subsets(m, top, max_subsets, rng):
            score = score_from_tiers(
                [rec.tiers[i] for i in kept], [rec.directions[i] for i in kept], rho=rec.rho
            )
            pool[score_bin(score, n_bins)].append((p, kept, score))
    for candidates in pool:
        rng.shuffle(candidates)
    seen = {(r.reference, r.hypothesis) for r in records}
    used = [0] * len(records)
    variants: list[Record] = []
    skipped = 0
    while True:
        open_bins = [b for b in range(n_bins) if counts[b] < target and pool[b]]
        if not open_bins:
            break
        b = min(open_bins, key=lambda k: (counts[k], k))
        p, kept, score = pool[b].pop()
        parent = records[p]
        if used[p] >= max_variants_per_parent:
            continue
        seg = record_segmentation(parent)
        hyp = seg.apply(kept)
        if (parent.reference, hyp) in seen:
            continue
        resegmented = segment(
            parent.reference, hyp, analyzer=analyzer, max_bridge_tokens=max_bridge_tokens
        )
        if not _consistent(seg, kept, resegmented):
            skipped += 1
            continue
        seen.add((parent.reference, hyp))
        used[p] += 1
        counts[b] += 1
        restored = [i for i in range(len(parent.gaps)) if i not in kept]
        variants.append(
            dataclasses.replace(
                parent,
                id=f"{parent.id}~keep-{'.'.join(str(i) for i in kept)}",
                hypothesis=hyp,
                gaps=tuple(g.to_dict() for g in resegmented.gaps),
                tiers=tuple(parent.tiers[i] for i in kept),
                directions=tuple(parent.directions[i] for i in kept),
                score=score,
                split=parent.split,
                provenance={
                    **dict(parent.provenance),
                    "augmentation": {
                        "kind": "gap-restoration",
                        "parent": parent.id,
                        "kept_gaps": list(kept),
                        "restored_gaps": restored,
                        "seed": seed,
                    },
                },
            )
        )
    after_variants = list(counts)
    sparse = [b for b in range(n_bins) if 0 < counts[b] < target]
    duplicates = [
        dataclasses.replace(
            r,
            id=f"{r.id}~dup",
            provenance={**dict(r.provenance), "upsampled_from": r.id},
        )
        for r in (*records, *variants)
        if score_bin(r.score, n_bins) in sparse
    ]
    after = _histogram([*records, *variants, *duplicates], n_bins)
    report = {
        "n_bins": n_bins,
        "target_per_bin": target,
        "bins_before": before,
        "bins_after_variants": after_variants,
        "bins_after_upsampling": after,
        "upsampled_bins": sparse,
        "variants_added": len(variants),
        "duplicates_added": len(duplicates),
        "skipped_inconsistent": skipped,
        "max_variants_per_parent": max_variants_per_parent,
        "min_gaps": min_gaps,
        "seed": seed,
    }
    return AugmentResult(records=[*records, *variants, *duplicates], report=report)
