"""A/B agreement: the judge's pick, ties counted half, ``same`` left out; the build and merge of
an A/B set choose items without any metric and refuse incomplete judgements."""

from __future__ import annotations

import csv
import json

import pytest

from annotation.asr.ab import build_ab, load_ab, merge_judgements
from sitar.errors import InputError
from training.evaluate_ab import agreement, evaluate_ab


def _items(judgements):
    return [{"judgement": j, "reference": "r", "a": "a", "b": "b"} for j in judgements]


def test_agreement_counts_ties_half_and_skips_same():
    items = _items(["A", "B", "A", "same", "B"])
    report = agreement(items, [0.1, 0.1, 0.5, 0.0, 0.2], [0.2, 0.3, 0.5, 9.0, 0.1])
    # A: 0.1<0.2 agrees; B: 0.1<0.3 disagrees; A tie: half; same: skipped; B: 0.2>0.1 agrees
    assert report == {"agreement": 2.5 / 4, "items": 4, "metric_ties": 1}
    by_length = evaluate_ab(
        [{"judgement": "A", "reference": "x", "a": "one", "b": "one two three"}],
        {"len": lambda r, h: [float(len(t)) for t in h]},
    )
    assert by_length["len"]["agreement"] == 1.0


def _pairs_file(tmp_path):
    rows = []
    for i, split in enumerate(["test", "test", "validation", "train", "test"]):
        ref = f"turn left at light {i}"
        hyps = {"a": ref, "b": f"turn right at light {i}", "c": f"Turn right at light {i}."}
        if i == 4:
            hyps = {s: ref.upper() for s in "abc"}  # all the same after normalisation: skipped
        for s, h in hyps.items():
            rows.append({"reference_id": f"r{i}", "system": s, "split": split,
                         "reference": ref, "hypothesis": h})  # fmt: skip
    build = tmp_path / "build"
    build.mkdir()
    (build / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return build


def test_build_uses_held_out_references_and_merge_checks_every_item(tmp_path):
    build = _pairs_file(tmp_path)
    with pytest.raises(InputError, match="only 3 references"):
        build_ab(build, tmp_path / "ab", n=4)
    m = build_ab(build, tmp_path / "ab", n=3)
    assert m["items"] == 3 and m["per_split"] == {"test": 2, "validation": 1}
    items = [json.loads(x) for x in (tmp_path / "ab" / "ab_items.jsonl").read_text().splitlines()]
    assert {it["reference_id"] for it in items} == {"r0", "r1", "r2"}  # never train, never r4
    for it in items:  # two transcripts that differ as tokens, never "b" against "c"
        assert {it["system_a"], it["system_b"]} in ({"a", "b"}, {"a", "c"})
    # the same seed gives the same items
    build_ab(build, tmp_path / "ab2", n=3)
    assert (tmp_path / "ab2" / "ab_items.jsonl").read_bytes() == (
        tmp_path / "ab" / "ab_items.jsonl"
    ).read_bytes()
    with (tmp_path / "ab" / "ab_blind.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert "system_a" not in rows[0]  # blind: no systems, no scores
    judged = tmp_path / "judged.csv"

    def write(rows):
        with judged.open("w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)

    write([{**r, "judgement": "A", "reason": "keeps the direction"} for r in rows[:2]])
    with pytest.raises(InputError, match="is not judged"):
        merge_judgements(tmp_path / "ab", judged, judge="J", out=tmp_path / "set.jsonl")
    write([{**r, "judgement": "b", "reason": ""} for r in rows])
    with pytest.raises(InputError, match="reason"):
        merge_judgements(tmp_path / "ab", judged, judge="J", out=tmp_path / "set.jsonl")
    write([{**r, "judgement": "b", "reason": "left kept"} for r in rows])
    counts = merge_judgements(tmp_path / "ab", judged, judge="J", out=tmp_path / "set.jsonl")
    assert counts == {"A": 0, "B": 3, "same": 0}
    loaded = load_ab(tmp_path / "set.jsonl")
    assert [it["judge"] for it in loaded] == ["J"] * 3


def test_build_all_of_one_split_without_the_references_of_a_published_set(tmp_path):
    """A second set (a validation set for model selection) shares no reference with the
    published one: ``exclude`` leaves its references out; ``n=None`` takes every eligible one."""
    build = _pairs_file(tmp_path)
    build_ab(build, tmp_path / "ab", n=2)  # the two test references r0, r1
    rows = list(csv.DictReader((tmp_path / "ab" / "ab_blind.csv").open(encoding="utf-8")))
    judged = tmp_path / "judged.csv"
    with judged.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows([{**r, "judgement": "A", "reason": "r"} for r in rows])
    merge_judgements(tmp_path / "ab", judged, judge="J", out=tmp_path / "set.jsonl")
    published = tmp_path / "set.jsonl"
    m = build_ab(build, tmp_path / "all", n=None, splits=("test", "validation"))
    assert m["items"] == 3 and m["excluded_references"] == 0  # r4 has no difference
    m = build_ab(
        build, tmp_path / "val", n=None, splits=("test", "validation"), exclude=[published]
    )
    assert m == {"items": 1, "per_split": {"test": 0, "validation": 1}, "seed": 17,
                 "excluded_references": 2}  # fmt: skip
    items = (tmp_path / "val" / "ab_items.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["reference_id"] for x in items] == ["r2"]
    with pytest.raises(InputError, match="no reference"):
        build_ab(build, tmp_path / "none", n=None, splits=("test",), exclude=[published])
