"""Augmentation keeps β and reports its bins truthfully; the split never lets a reference cross."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import pytest

from annotation.augment import augment_records, record_segmentation, score_bin
from sitar import segment
from sitar.errors import InputError
from sitar.records import Record, read_records, write_records
from sitar.targets import score_from_tiers

NAMES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def _record(i: int, tiers, directions=None, *, n_changes=None) -> Record:
    """A record whose CGD gaps are the changed names (commas keep the gaps apart)."""
    n = len(tiers) if n_changes is None else n_changes
    parts = [f"we met {NAMES[k]} at {i}" for k in range(max(n, 1))]
    ref = ", ".join(parts)
    hyp = ", ".join(
        p.replace(NAMES[k], NAMES[k][::-1]) if k < n else p for k, p in enumerate(parts)
    )
    seg = segment(ref, hyp)
    assert len(seg.gaps) == n
    directions = tuple(directions or (0,) * n)
    return Record(
        id=f"r{i}",
        reference=ref,
        hypothesis=hyp,
        gaps=tuple(g.to_dict() for g in seg.gaps),
        tiers=tuple(tiers),
        directions=directions,
        score=score_from_tiers(tiers, directions),
        signature=seg.signature,
    )


@pytest.fixture(scope="module")
def train_records():
    profiles = [
        (2, 0, 0, 1),
        (1, 1, 0),
        (2, 2, 1, 0, 0),
        (0, 0, 0),
        (1, 0, 2),
        (2,),
        (0,),
        (1, 1),
    ]
    recs = [_record(i, p) for i, p in enumerate(profiles)]
    recs.append(_record(20, (2, 1, 1), (-1, 1, 0)))
    return [dataclasses.replace(r, split="train") for r in recs]


def _beta(r: Record) -> float:
    return max(t + d / 3 for t, d in zip(r.tiers, r.directions, strict=True))


def test_variants_keep_beta_and_their_provenance(train_records):
    result = augment_records(train_records, seed=3, target_per_bin=4)
    by_id = {r.id: r for r in train_records}
    variants = [
        r
        for r in result.records
        if "augmentation" in r.provenance and "upsampled_from" not in r.provenance
    ]
    assert variants, "expected some variants"
    assert len(variants) == result.report["variants_added"]
    for v in variants:
        aug = v.provenance["augmentation"]
        parent = by_id[aug["parent"]]
        assert len(parent.gaps) >= 3
        kept = aug["kept_gaps"]
        assert 0 < len(kept) < len(parent.gaps)
        assert sorted(kept + aug["restored_gaps"]) == list(range(len(parent.gaps)))
        assert _beta(v) == _beta(parent)
        assert v.tiers == tuple(parent.tiers[i] for i in kept)
        assert v.score == score_from_tiers(v.tiers, v.directions)
        assert v.reference == parent.reference and v.split == "train"
        # The variant's text is the parent's reference with exactly the kept gaps applied, and
        # it re-segments into the kept gaps.
        assert v.hypothesis == record_segmentation(parent).apply(kept)
        again = segment(v.reference, v.hypothesis)
        assert [g.ref_text for g in again.gaps] == [parent.gaps[i]["ref_text"] for i in kept]
        assert [dict(g) for g in v.gaps] == [g.to_dict() for g in again.gaps]
    pairs = [
        (r.reference, r.hypothesis) for r in result.records if "upsampled_from" not in r.provenance
    ]
    assert len(pairs) == len(set(pairs))


def test_bins_match_the_report(train_records):
    result = augment_records(train_records, seed=0, target_per_bin=3)
    rep = result.report

    def hist(recs):
        c = Counter(min(9, int(r.score / (7 / 3) * 10)) for r in recs)
        return [c.get(b, 0) for b in range(10)]

    originals = [r for r in result.records if r.id in {t.id for t in train_records}]
    variants = [
        r
        for r in result.records
        if "augmentation" in r.provenance and "upsampled_from" not in r.provenance
    ]
    dups = [r for r in result.records if "upsampled_from" in r.provenance]
    assert rep["bins_before"] == hist(train_records) == hist(originals)
    assert rep["bins_after_variants"] == hist([*originals, *variants])
    assert rep["bins_after_upsampling"] == hist(result.records)
    # Upsampling duplicates exactly the records of the bins still sparse, once each.
    sparse = [b for b, n in enumerate(rep["bins_after_variants"]) if 0 < n < rep["target_per_bin"]]
    assert rep["upsampled_bins"] == sparse
    assert sorted(d.provenance["upsampled_from"] for d in dups) == sorted(
        r.id for r in [*originals, *variants] if score_bin(r.score) in sparse
    )
    assert len({r.id for r in result.records}) == len(result.records)
    # Variants went to the sparsest bins first: no variant landed in a bin that started at or
    # above the target.
    full = {b for b, n in enumerate(rep["bins_before"]) if n >= rep["target_per_bin"]}
    assert not any(score_bin(v.score) in full for v in variants)


def test_augmentation_is_deterministic_and_train_only(train_records, tmp_path):
    a = augment_records(train_records, seed=7)
    b = augment_records(train_records, seed=7)
    assert a.records == b.records and a.report == b.report
    write_records(tmp_path / "aug.jsonl", a.records)  # valid records, unique ids
    assert len(list(read_records(tmp_path / "aug.jsonl"))) == len(a.records)
    with pytest.raises(InputError, match="only training records"):
        augment_records([dataclasses.replace(train_records[0], split="test")])


def test_split_is_grouped_by_reference_and_reproducible():
    pytest.importorskip("sklearn")
    from annotation.split import split_records

    records = []
    for i, k in itertools.product(range(60), range(3)):  # 60 references, 3 hypotheses each
        ref = f"reference number {i}"
        records.append(Record(f"r{i}-{k}", ref, ref + "!" * k, (), (), (), 0.0))
    out = split_records(records, seed=5)
    assert [r.id for r in out] == [r.id for r in records]
    where: dict[str, set[str]] = {}
    for r in out:
        where.setdefault(r.reference, set()).add(r.split)
    assert all(len(s) == 1 for s in where.values()), "a reference crosses splits"
    counts = Counter(r.split for r in out)
    assert counts["train"] == 3 * 45 and counts["validation"] == 3 * 6 and counts["test"] == 3 * 9
    assert [r.split for r in split_records(records, seed=5)] == [r.split for r in out]
    assert [r.split for r in split_records(records, seed=6)] != [r.split for r in out]
    with pytest.raises(InputError, match="at least 3 distinct references"):
        split_records(records[:6])
