"""A/B agreement: the judge's pick, ties counted half, ``same`` left out; the build and merge of
an A/B set choose items without any metric and refuse incomplete judgements."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import replace

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


def _record(rid, reference, hypothesis, tiers, directions=None):
    from sitar import segment
    from sitar.records import Record
    from sitar.targets import score_from_tiers

    seg = segment(reference, hypothesis)
    assert len(seg.gaps) == len(tiers), [g.to_dict() for g in seg.gaps]
    directions = directions or [0] * len(tiers)
    return Record(
        id=rid, reference=reference, hypothesis=hypothesis,
        gaps=tuple(g.to_dict() for g in seg.gaps), tiers=tuple(tiers),
        directions=tuple(directions), score=score_from_tiers(tiers, directions),
    )  # fmt: skip


def test_label_ceiling_matches_normalised_transcripts_and_breaks_ties_by_extent():
    from sitar.errors import RecordError
    from training.evaluate_ab import label_scores, labelled_items

    ref = "Send one unit to the north gate today."
    short = _record("r1", ref, "send one unit to the north gate to day", [2])  # short slip
    long = _record("r2", ref, "seventy referral the north gate today", [2])  # long garble
    plain = label_scores([short, long])
    assert plain[(ref, tuple("send one unit to the north gate to day".split()))] == 2.0
    extent = label_scores([short, long], extent=True)
    ks = (ref, tuple("send one unit to the north gate to day".split()))
    kl = (ref, tuple("seventy referral the north gate today".split()))
    assert 2.0 < extent[ks] < extent[kl] < 2.0 + 1.0 / 6  # inside [S_lo, S_hi): 1 T2 + 1 T0
    items = [
        # matched through SPEC §1 normalisation (case, punctuation), and the exact transcript
        {"judgement": "A", "reference": ref, "a": "Send one unit to the north gate, to day!",
         "b": "seventy referral the north gate today"},
        # one side equals the reference: 0 without a record
        {"judgement": "A", "reference": ref, "a": "send one unit to the north gate today",
         "b": "seventy referral the north gate today"},
        # one side has no label: left out
        {"judgement": "B", "reference": ref, "a": "send one", "b": "seventy referral the north"},
    ]  # fmt: skip
    kept, va, vb = labelled_items(items, plain)
    assert kept == items[:2] and va == [2.0, 0.0] and vb == [2.0, 2.0]
    kept, va, vb = labelled_items(items, extent)
    assert va[0] < vb[0] and va[1] == 0.0
    clash = _record("r3", ref, "Send one unit to the north gate, to day.", [1])
    with pytest.raises(RecordError, match="r1.*r3"):
        label_scores([short, clash])


def test_label_swer_reads_the_labelled_tiers_over_the_gaps_extent():
    from sitar.errors import InputError
    from sitar.swer import SwerParams
    from training.evaluate_ab import label_swers

    ref = "Send one unit to the north gate today."  # 8 tokens, 37 characters normalised
    slip = _record("r1", ref, "send one unit to the north gate to day", [2])
    garble = _record("r3", ref, "seventy referral the north gate today", [1])
    k_slip = (ref, tuple("send one unit to the north gate to day".split()))
    k_garble = (ref, tuple("seventy referral the north gate today".split()))
    words = label_swers([slip, garble], SwerParams(t1_weight=0.5, extent="words"))
    assert words[k_slip] == 2 / 8  # T2 weighs 1: "today" -> "to day" is 2 word edits
    assert words[k_garble] == 0.5 * 4 / 8  # T1 at 0.5: four reference words replaced by two
    chars = label_swers([slip, garble], SwerParams(t1_weight=1.0, extent="chars"))
    assert chars[k_slip] == 1 / 37  # one inserted space
    t0 = _record("r4", ref, "send one unit to the north gate to day", [0])
    assert label_swers([t0], SwerParams())[k_slip] == 0.0  # T0 weighs nothing
    broken = replace(slip, gaps=({"ref": "today"},))
    with pytest.raises(InputError, match="r1.*token intervals"):
        label_swers([broken], SwerParams())


def test_best_label_swer_takes_the_grid_point_the_judge_agrees_with_most():
    from training.evaluate_ab import best_label_swer

    ref = "Send one unit to the north gate today."
    slip = _record("r1", ref, "send one unit to the north gate to day", [2])
    garble = _record("r3", ref, "seventy referral the north gate today", [1])
    items = [
        # the judge prefers the T1 garble to the T2 slip: 4 w / 8 < 2 / 8 needs w < 0.5 in words
        {"judgement": "B", "reference": ref, "a": "send one unit to the north gate to day",
         "b": "seventy referral the north gate today"},
        # and the exact transcript to the garble: a strict win needs w > 0 (w = 0 ties, half)
        {"judgement": "A", "reference": ref, "a": "Send one unit to the north gate today",
         "b": "seventy referral the north gate today"},
    ]  # fmt: skip
    params, va, vb = best_label_swer(items, [slip, garble])
    # words, w = 0.1 is the smallest weight with both right; in characters the garble is 12+
    # edits against the slip's 1, so only w = 0 keeps the first item, and it ties the second
    assert params.version == "swer-1:t1=0.1,ext=words"
    assert va == [2 / 8, 0.0] and vb == [0.1 * 4 / 8] * 2


def test_cli_ceiling_section_with_the_shipped_checkpoint(tmp_path, capsys):
    from sitar.records import write_records
    from training.evaluate_ab import main

    ref = "Send one unit to the north gate today."
    labels = tmp_path / "labels.jsonl"
    write_records(labels, [
        _record("r1", ref, "send one unit to the north gate to day", [2]),
        _record("r2", ref, "seventy referral the north gate today", [2]),
    ])  # fmt: skip
    base = {"schema": "sitar-ab-1", "reference": ref, "reference_id": "x", "split": "test",
            "judge": "J", "reason": "r", "system_a": "s1", "system_b": "s2"}  # fmt: skip
    rows = [
        {**base, "id": "ab-0000000001", "judgement": "A",
         "a": "send one unit to the north gate to day", "b": "seventy referral the north gate today"},
        {**base, "id": "ab-0000000002", "judgement": "B",
         "a": "send one unit to the north gate to day", "b": "send one unit"},  # b unlabelled
    ]  # fmt: skip
    ab = tmp_path / "ab.jsonl"
    ab.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out.json"
    argv = ["--set", str(ab), "--baselines", "", "--labels", str(labels), "--json", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["metrics"]["sitar"]["items"] == 2
    ceiling = report["ceiling"]
    assert ceiling["items"] == 1 and ceiling["labels_files"] == [str(labels)]
    assert ceiling["metrics"]["labels"] == {"agreement": 0.5, "items": 1, "metric_ties": 1}
    assert ceiling["metrics"]["labels+extent"] == {"agreement": 1.0, "items": 1, "metric_ties": 0}
    assert set(ceiling["metrics"]) == {"labels", "labels+extent", "swer-labels", "sitar", "wer"}
    # both T2: the labels' swer ranks the one-word slip (2 word edits) under the garble (4)
    assert ceiling["metrics"]["swer-labels"] == {"agreement": 1.0, "items": 1, "metric_ties": 0}
    assert ceiling["swer_labels_params"] == "swer-1:t1=0,ext=words"  # ties go to the smallest
    assert "ceiling: 1 items with both transcripts labelled" in capsys.readouterr().out
    assert main(["--set", str(ab), "--baselines", "", "--labels", str(tmp_path / "no")]) == 2
    assert "record file not found" in capsys.readouterr().err


def _judged(judgements, *, texts=None):
    rows = []
    for k, j in enumerate(judgements):
        a, b = texts[k] if texts else (f"a{k}", f"b{k}")
        rows.append({"schema": "sitar-ab-1", "id": f"ab-{k:010d}", "reference": f"r{k}",
                     "a": a, "b": b, "judgement": j, "reason": "r", "judge": "J"})  # fmt: skip
    return rows


def test_judge_agreement_kappa_confusion_and_opposite_picks():
    from annotation.asr.ab import judge_agreement
    from annotation.sheets import cohen_kappa

    first = _judged(["A", "A", "B", "B", "same", "A"])
    second = _judged(["A", "B", "B", "same", "same", "A"])
    report = judge_agreement(first, second)
    assert report["confusion"] == [[2, 1, 0], [0, 1, 1], [0, 0, 1]]
    assert report["agreement"] == pytest.approx(4 / 6)
    # chance: rows (3, 2, 1)/6, columns (2, 2, 2)/6 -> 1/3; kappa = (2/3 - 1/3) / (2/3) = 0.5
    assert report["kappa"] == pytest.approx(0.5)
    assert report["decided_by_both"] == 4 and report["opposite"] == 1
    assert report["opposite_ids"] == ["ab-0000000001"]
    assert cohen_kappa([[5, 0], [0, 5]]) == (1.0, 1.0)
    assert cohen_kappa([[4, 0], [0, 0]]) == (1.0, 1.0)  # chance agreement 1
    with pytest.raises(InputError, match="square"):
        cohen_kappa([[1, 2]])
    with pytest.raises(InputError, match="same items"):
        judge_agreement(first, second[:-1])
    changed = _judged(["A"] * 6, texts=[("x", "y")] + [(f"a{k}", f"b{k}") for k in range(1, 6)])
    with pytest.raises(InputError, match="different texts"):
        judge_agreement(first, changed)
    with pytest.raises(InputError, match="twice"):
        judge_agreement(first, second[:-1] + second[:1])


def test_cli_second_judge_and_ab_agreement(tmp_path, capsys):
    from annotation.asr.__main__ import main as asr_main
    from training.evaluate_ab import main

    ref = "Send one unit to the north gate today."
    texts = [("send one unit to the north gate today", "seventy referral the north gate today"),
             ("send one unit to the north gate to day", "send one unit"),
             ("send two units to the north gate today", "send one unit to the gate today")]  # fmt: skip
    first = [{**it, "reference": ref} for it in _judged(["A", "A", "same"], texts=texts)]
    second = [{**it, "reference": ref} for it in _judged(["A", "B", "B"], texts=texts)]
    paths = []
    for name, rows in (("j1", first), ("j2", second)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    out = tmp_path / "out.json"
    argv = ["--set", str(paths[0]), "--baselines", "", "--second-judge", str(paths[1])]
    assert main([*argv, "--json", str(out)]) == 0
    second_report = json.loads(out.read_text(encoding="utf-8"))["second_judge"]
    assert second_report["judges"]["opposite"] == 1
    assert second_report["metrics"]["wer"]["items"] == 3  # the second judge decided all three
    assert second_report["consensus"]["items"] == 1  # only the first item: A for both
    assert second_report["consensus"]["metrics"]["sitar"]["agreement"] == 1.0
    assert "consensus: 1 items" in capsys.readouterr().out
    assert asr_main(["ab-agreement", str(paths[0]), str(paths[1])]) == 0
    assert "3 items: agreement 0.333" in capsys.readouterr().out
    assert main([*argv[:-1], str(tmp_path / "missing.jsonl")]) == 2
    assert "not found" in capsys.readouterr().err


def test_severity_benchmark_ab_ceiling_by_error_difference():
    from benchmarks.severity.run import ab_ceiling

    ref = "Send one unit to the north gate today."
    short = _record("r1", ref, "send one unit to the north gate to day", [2])  # short slip
    long = _record("r2", ref, "seventy referral the north gate today", [2])  # long garble
    items = [
        # both T2: tied by the tiers alone (half), the short slip wins on extent
        {"judgement": "A", "reference": ref, "a": "send one unit to the north gate to day",
         "b": "seventy referral the north gate today"},
        # the judge picks the garble: the labels disagree either way
        {"judgement": "B", "reference": ref, "a": "send one unit to the north gate to day",
         "b": "seventy referral the north gate today"},
        {"judgement": "same", "reference": ref, "a": "send one unit to the north gate to day",
         "b": "send one unit to the north gate to day"},
        # unlabelled side: not counted
        {"judgement": "A", "reference": ref, "a": "send one", "b": "seventy referral"},
    ]  # fmt: skip
    out = ab_ceiling(items, [short, long])
    assert out["items"] == {"labelled": 3, "of": 4}
    assert out["n"] == {"all": 2, "<=1": 0, "2": 2, ">=3": 0}  # 2 word errors against 4
    assert out["labels"]["all"] == 0.5  # two ties count half each
    assert out["labels+extent"]["all"] == 0.5  # one right, one wrong
    assert out["labels+extent"]["2"] == 0.5 and math.isnan(out["labels"]["<=1"])
    # swer of the labels, both T2: the slip (2 word edits) under the garble (4): one right, one
    # wrong at every grid point, so the smallest T1 weight in words is named
    assert out["swer-labels"]["all"] == 0.5
    assert out["swer_labels_params"] == "swer-1:t1=0,ext=words"
