"""Records in the scorer's normal form (training/normal_form.py) and the ``normalize`` setting."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import pytest

from sitar import segment
from sitar.errors import InputError, RecordError
from sitar.normalize import normalizer_id
from sitar.options import default_normalization
from sitar.records import Record, read_records, write_records
from sitar.targets import score_from_tiers
from training.config import TrainConfig
from training.data import TEACHER_SCHEMA, check_normal_form, read_teacher
from training.normal_form import (
    carry_teacher,
    main,
    normal_form_record,
    recognizer_form_keep_offsets,
)


def labelled(ref: str, hyp: str, steps: list[int], **kw: object) -> Record:
    """A record of ``ref``/``hyp`` with CGD's gaps labelled by severity steps ``3t + δ``."""
    seg = segment(ref, hyp)
    assert len(seg.gaps) == len(steps), [(g.ref_text, g.hyp_text) for g in seg.gaps]
    tiers = [(s + 1) // 3 for s in steps]
    dirs = [s - 3 * t for s, t in zip(steps, tiers, strict=True)]
    return Record(
        id=str(kw.get("id", "r1")),
        reference=ref,
        hypothesis=hyp,
        gaps=tuple(g.to_dict() for g in seg.gaps),
        tiers=tuple(tiers),
        directions=tuple(dirs),
        score=score_from_tiers(tiers, dirs),
        split=str(kw.get("split", "train")),
    )


def test_recognizer_form_keeps_every_offset() -> None:
    text = "Wire $300 to Anna's account, at 3:30 p.m. -2°C!"
    out = recognizer_form_keep_offsets(text)
    assert len(out) == len(text)
    assert out == "wire  300 to anna's account  at 3 30 p m   2 c "
    assert recognizer_form_keep_offsets("'quoted'") == " quoted "


def test_a_gap_of_written_form_only_vanishes() -> None:
    rec = labelled("Ship 350 crates to the Denver depot.",
                   "ship three hundred and fifty crates to the denver depot", [0])  # fmt: skip
    out, reason, vanished = normal_form_record(rec)
    assert out is not None and reason == ""
    assert out.reference == out.hypothesis == "ship 350 crates to the denver depot"
    assert out.gaps == () and out.tiers == () and out.score == 0.0
    assert vanished == {0: 1}
    assert out.provenance["normal_form"] == normalizer_id()


def test_a_value_change_keeps_its_label_on_the_normalised_gap() -> None:
    rec = labelled("wire three hundred dollars to anna", "wire three thousand dollars to anna", [6])
    out, _, _ = normal_form_record(rec)
    assert out is not None
    assert [(g["ref_text"], g["hyp_text"]) for g in out.gaps] == [("300", "3000")]
    assert out.tiers == (2,) and out.directions == (0,)
    assert out.score == rec.score


def test_merged_gaps_take_the_highest_step() -> None:
    rec = labelled("Call me at three thirty.", "call me at four thirty", [5])
    out, _, _ = normal_form_record(rec)
    assert out is not None and len(out.gaps) == 1
    assert (out.tiers, out.directions) == ((2,), (-1,))
    # Two labelled gaps of one written number are one gap of its normal form: the higher step.
    two = labelled("pay two thousand and five dollars today",
                   "pay three thousand and six dollars today", [4, 3])  # fmt: skip
    seg_norm = normal_form_record(two)[0]
    assert seg_norm is not None
    assert [(g["ref_text"], g["hyp_text"]) for g in seg_norm.gaps] == [("2005", "3006")]
    assert (seg_norm.tiers, seg_norm.directions) == ((1,), (1,))


def test_a_new_gap_without_a_label_leaves_the_record_out() -> None:
    rec = labelled("Turn on do not disturb.", "turn on don't not disturb", [0])
    out, reason, _ = normal_form_record(rec)
    assert out is None and reason == "new gap without a labelled gap"


def test_replacement_texts_must_keep_offsets() -> None:
    rec = labelled("Wire 300 dollars.", "wire 3000 dollars", [6])
    with pytest.raises(ValueError, match="offset"):
        normal_form_record(rec, reference="Wire 300 dollars")


def test_cli_writes_files_variants_and_a_report(tmp_path) -> None:
    recs = [
        labelled("It is -2 degrees.", "it is minus two degrees", [0], id="a"),
        labelled("Wire $300 to Anna.", "wire 3000 dollars to anna", [6], id="b"),
        labelled("Turn on do not disturb.", "turn on don't not disturb", [0], id="c"),
    ]
    src = tmp_path / "in.jsonl"
    write_records(src, recs)
    assert main([str(src), "--out-dir", str(tmp_path / "out"), "--mixed-share", "1"]) == 0
    out = {r.id: r for r in read_records(tmp_path / "out" / "in.jsonl")}
    assert {"a", "b"} <= set(out) and "c" not in out
    # "-2" in recognizer form loses its sign: that variant differs from the plain record.
    variants = [r for r in out.values() if "#mixed-" in r.id]
    assert all(r.provenance["parent"] in {"a", "b"} for r in variants)
    report = json.loads((tmp_path / "out" / "normal_form.json").read_text())
    stats = report["files"][str(src)]
    tried = sum(v for k, v in stats.items() if k.startswith("mixed"))
    assert tried == stats["out"] and stats.get("mixed_out", 0) == len(variants)
    assert stats["in"] == 3 and stats["out"] == 2
    assert stats["left_out: new gap without a labelled gap"] == 1
    assert report["normalizer"] == normalizer_id()
    assert main([str(src), "--out-dir", str(tmp_path / "x"), "--mixed-share", "2"]) == 2


def test_teacher_targets_are_carried_by_overlap() -> None:
    a, b, c = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4], [0.1, 0.2, 0.9, 0.3, 0.2, 0.1], [0.0] * 6
    assert carry_teacher([[0, 1], [2]], [a, b, c]) == [[0.9, 0.8, 0.9, 0.6, 0.5, 0.4], c]
    with pytest.raises(ValueError, match="do not index"):
        carry_teacher([[3]], [a, b, c])
    with pytest.raises(ValueError, match="do not index"):
        carry_teacher([[]], [a])


def test_cli_carries_a_written_form_teacher(tmp_path) -> None:
    recs = [
        # two labelled gaps of one written number become one gap of the normal form
        labelled(
            "pay two thousand and five dollars today",
            "pay three thousand and six dollars today",
            [4, 3],
            id="m",
        ),
        labelled(
            "Ship 350 crates to the Denver depot.",
            "ship three hundred and fifty crates to the denver depot",
            [0],
            id="v",
        ),
        labelled("Wire 300 dollars to Anna.", "wire 3000 dollars to anna", [6], id="w"),
    ]
    src = tmp_path / "in.jsonl"
    write_records(src, recs)
    probs = {
        "m": [[0.9, 0.8, 0.1, 0.1, 0.1, 0.1], [0.2, 0.9, 0.3, 0.0, 0.0, 0.0]],
        "v": [[0.5] * 6],
    }
    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text("".join(
        json.dumps({"schema": TEACHER_SCHEMA, "id": k, "gap_probs": v}) + "\n"
        for k, v in probs.items()
    ))  # fmt: skip
    out_dir = tmp_path / "out"
    assert main([str(src), "--out-dir", str(out_dir), "--teacher", str(teacher)]) == 0
    carried = read_teacher(out_dir / "teacher.jsonl")
    # "v" has no gap left and "w" has no teacher targets: only "m", one merged gap, max per threshold
    assert carried == {"m": [[0.9, 0.9, 0.3, 0.1, 0.1, 0.1]]}
    out = {r.id: r for r in read_records(out_dir / "in.jsonl")}
    assert len(out["m"].gaps) == len(carried["m"])
    report = json.loads((out_dir / "normal_form.json").read_text())
    assert report["files"][str(src)]["teacher_missing"] == 1
    assert report["teacher"]["records"] == 1 and report["teacher"]["source_signature"] is None
    # a teacher whose gap count does not match its record is refused with one line
    teacher.write_text(json.dumps({"schema": TEACHER_SCHEMA, "id": "m", "gap_probs": [[0.5] * 6]}))
    assert main([str(src), "--out-dir", str(tmp_path / "bad"), "--teacher", str(teacher)]) == 2


def test_normalize_setting_checks_the_records() -> None:
    rec = labelled("Wire 300 dollars.", "wire 3000 dollars", [6])
    converted = normal_form_record(rec)[0]
    assert converted is not None
    check_normal_form({"train": [rec]}, "none")
    check_normal_form({"train": [converted]}, "sitar")
    with pytest.raises(RecordError, match="normal form"):
        check_normal_form({"train": [rec]}, "sitar")
    with pytest.raises(InputError, match="normalize"):
        TrainConfig(normalize="nfc")
    # Configs without the setting keep their hash; with it, it is part of the hash.
    assert "normalize" not in TrainConfig().to_dict()
    assert TrainConfig(normalize="sitar").to_dict()["normalize"] == "sitar"


def test_export_records_the_form_and_the_scorer_defaults_to_it() -> None:
    from training.export import _scoring_extra

    cfg = SimpleNamespace(gap_head=True, normalize="sitar")
    extra = _scoring_extra(cfg, "gaps")
    assert extra == {"scoring": {"head": "gaps", "normalize": "sitar"}}
    assert default_normalization(SimpleNamespace(extra=extra)) == "sitar"
    plain = _scoring_extra(SimpleNamespace(gap_head=True, normalize="none"), "gaps")
    assert plain == {"scoring": {"head": "gaps"}}
    assert default_normalization(SimpleNamespace(extra=plain)) == "none"


def test_version_3_converts_version_2_records_and_drops_same_variants(tmp_path) -> None:
    # Records already in version 2 (with rule 11's marks) convert to version 3: the marks go,
    # CGD finds its gaps again, and a variant whose version-3 texts equal its parent's is dropped.
    parent = labelled("Stop the truck. Leave the keys.", "stop the truck leave the key", [6])
    v2 = normal_form_record(parent)[0]
    assert v2 is not None and v2.reference == "stop the truck. leave the keys"
    variant = normal_form_record(parent, reference=recognizer_form_keep_offsets(parent.reference))[
        0
    ]
    assert variant is not None and variant.reference == "stop the truck leave the keys"
    prov = dict(variant.provenance, parent=v2.id, mixed_form="ref")
    variant = dataclasses.replace(variant, id=f"{v2.id}#mixed-ref", provenance=prov)
    src = tmp_path / "v2.jsonl"
    write_records(src, [v2, variant])
    assert main([str(src), "--out-dir", str(tmp_path / "v3"), "--normal-form", "3"]) == 0
    (out,) = read_records(tmp_path / "v3" / "v2.jsonl")
    assert (out.reference, out.hypothesis) == (
        "stop the truck leave the keys",
        "stop the truck leave the key",
    )
    assert (out.tiers, out.directions) == ((2,), (0,))
    assert out.provenance["normal_form"] == normalizer_id("3") != normalizer_id()
    report = json.loads((tmp_path / "v3" / "normal_form.json").read_text())
    assert report["normalizer"] == normalizer_id("3")
    assert report["files"][str(src)]["variant_same_as_parent"] == 1
    # A config trained on version 3 wants version-3 records, and names the form in its hash.
    check_normal_form({"train": [out]}, "sitar", "3")
    with pytest.raises(RecordError, match="--normal-form 3"):
        check_normal_form({"train": [v2]}, "sitar", "3")
    assert "normal_form" not in TrainConfig(normalize="sitar").to_dict()
    assert TrainConfig(normalize="sitar", normal_form="3").to_dict()["normal_form"] == "3"
    with pytest.raises(InputError, match="normal_form"):
        TrainConfig(normalize="sitar", normal_form="5")
    with pytest.raises(InputError, match="normal_form"):
        TrainConfig(normal_form="3")  # a normal form needs normalize: sitar
    with pytest.raises(SystemExit) as exit_info:  # a usage error
        main([str(src), "--out-dir", str(tmp_path / "x"), "--normal-form", "1"])
    assert exit_info.value.code == 2


def test_export_records_a_normal_form_other_than_2() -> None:
    from sitar.options import default_normal_form
    from training.export import _scoring_extra

    extra = _scoring_extra(
        SimpleNamespace(gap_head=True, normalize="sitar", normal_form="3"), "gaps"
    )
    assert extra == {"scoring": {"head": "gaps", "normalize": "sitar", "normal_form": "3"}}
    assert default_normal_form(SimpleNamespace(extra=extra)) == "3"
    two = _scoring_extra(SimpleNamespace(gap_head=True, normalize="sitar", normal_form="2"), "gaps")
    assert "normal_form" not in two["scoring"]
    assert default_normal_form(SimpleNamespace(extra=two)) == "2"
