"""annotation.asr for the severity benchmark: external references (``build --references``), the
overlap check, item selection and the blind reader sheets. Offline; nothing is decoded."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from annotation.asr.corpus import AsrReference, load_external_references
from annotation.asr.severity import (
    SHEET_COLUMNS,
    build_items,
    check_references,
    differs,
    known_texts,
    select_items,
    validation_items,
    write_sheets,
)
from sitar.errors import InputError

try:
    import pocketsphinx  # noqa: F401

    HAVE_PS = True
except ImportError:
    HAVE_PS = False
needs_ps = pytest.mark.skipif(
    not HAVE_PS, reason="pocketsphinx is not installed (pip install 'sitar[asr]')"
)


def _write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# External references
# ---------------------------------------------------------------------------------------------


def test_external_references_spoken_form_one_fold(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "refs.jsonl", [
        {"id": "sb-1", "domain": "banking", "text": "Send $60 to Kevin at 7:30."},
        {"id": "sb-2", "domain": "casual", "text": "See you later.", "extra": 1},
    ])  # fmt: skip
    refs, digest = load_external_references(path, known={"kevin"}, fold=5)
    assert [r.id for r in refs] == ["sb-1", "sb-2"]
    assert refs[0].text == "Send sixty dollars to Kevin at seven thirty."
    assert refs[0].original == "Send $60 to Kevin at 7:30."
    assert {r.fold for r in refs} == {5} and [r.group for r in refs] == ["sb-1", "sb-2"]
    assert len(digest) == 64


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"id": "a", "text": "Go now."}, {"id": "a", "text": "Stop here."}], "repeated"),
        ([{"id": "p1", "text": "Go now."}], "pool id"),
        ([{"id": "a", "text": "  ...  "}], "at least one word"),
        ([{"id": "bad id", "text": "Go now."}], "id must be"),
        ([["not", "an", "object"]], "expected an object"),
        ([], "no references"),
    ],
)
def test_external_references_errors(tmp_path: Path, rows: list[object], message: str) -> None:
    path = _write_jsonl(tmp_path / "refs.jsonl", rows)
    with pytest.raises(InputError, match=message):
        load_external_references(path, known=set(), fold=5, reserved_ids={"p1"})


def test_external_references_missing_file_and_bad_json(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_external_references(tmp_path / "none.jsonl", known=set(), fold=5)
    (tmp_path / "bad.jsonl").write_text('{"id": "a", "text": "Go."}\n{oops\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:2: invalid JSON"):
        load_external_references(tmp_path / "bad.jsonl", known=set(), fold=5)


@needs_ps
def test_prepare_with_references_holds_them_out_of_the_only_lm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file's references are decoded (and listed) alone, in one extra fold; its LM is trained on
    every pool reference (all folds) and perturbed variants of the new ones, never on them."""
    import annotation.asr.build as build_mod
    from annotation.asr.build import BuildConfig, prepare
    from annotation.asr.corpus import lm_sentences

    pool = [
        AsrReference(id=f"p{i}", group=f"p{i}", domain="d", original=t, text=t, fold=i % 3)
        for i, t in enumerate(("turn left at the light", "call the office at seven",
                               "meet me on monday at nine"))
    ]  # fmt: skip
    monkeypatch.setattr(build_mod, "load_references", lambda *a, **k: (pool, [], {"pool": "x"}))
    seen: list[list[list[str]]] = []

    def spy(*args, **kwargs):
        out = lm_sentences(*args, **kwargs)
        seen.append(out)
        return out

    monkeypatch.setattr(build_mod, "lm_sentences", spy)
    refs = _write_jsonl(tmp_path / "refs.jsonl", [
        {"id": "sb-1", "domain": "x", "text": "Call the office on Friday at 7."},
        {"id": "sb-2", "domain": "x", "text": "Turn right at the light."},
    ])  # fmt: skip
    out = tmp_path / "out"
    config = BuildConfig(folds=3, references=str(refs))
    ordered, manifest = prepare(out, config)
    assert sorted(r.id for r in ordered) == ["sb-1", "sb-2"] and {r.fold for r in ordered} == {3}
    listed = [json.loads(x)["id"] for x in (out / "references.jsonl").read_text().splitlines()]
    assert listed == ["sb-1", "sb-2"]
    assert sorted(p.name for p in (out / "lm").iterdir()) == ["fold3.arpa", "fold3.dict"]
    assert list(manifest["lm"]) == ["fold3"] and manifest["lm"]["fold3"]["held_out_references"] == 2
    assert "references:refs.jsonl" in manifest["pool_files_sha256"]
    assert manifest["config"]["references"] == str(refs)
    (text,) = seen
    sents = {tuple(s) for s in text}
    assert all(tuple(p.text.split()) in sents for p in pool)  # every pool fold is LM text
    held = {tuple(r.words) for r in ordered}
    assert not held & sents  # the new references never are
    assert any(s[:3] == ("call", "the", "office") and s not in held for s in sents)  # variants


@needs_ps
def test_cli_build_references_missing_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from annotation.asr.__main__ import main

    assert main(["build", str(tmp_path / "out"), "--references", str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("python -m annotation.asr: error: references file not found")
    assert "\n" not in err


# ---------------------------------------------------------------------------------------------
# Overlap check
# ---------------------------------------------------------------------------------------------


def test_check_references_finds_near_copies_and_template_fills(tmp_path: Path) -> None:
    src = tmp_path / "sources"
    src.mkdir()
    _write_jsonl(src / "pool.jsonl", [
        {"id": "p1", "text": "Please cancel my subscription before the next billing date.",
         "outcome": ["cancel my subscription"]},
        {"id": "t1", "template": "Pay {money} to {first_name} on {weekday}.",
         "outcome": ["{first_name}"]},
    ])  # fmt: skip
    (src / "sheet.csv").write_text(
        "pair_id,reference,hypothesis,gap_reference_text\n"
        "x,Call the office at seven tonight.,call the office at eleven tonight,good morning\n",
        encoding="utf-8",
    )
    texts, patterns, files = known_texts([src])
    assert files == 2 and len(patterns) == 1
    assert "cancel my subscription" in texts  # every string of two or more words
    assert "good morning" not in texts  # a sheet's gap span is not a text
    refs = [
        {"id": "near", "text": "Please cancel my subscription before the next billing date!"},
        {"id": "fill", "text": "Pay $40 to Maria Lopez on Friday."},
        {"id": "sheet", "text": "Call the office at 7 tonight."},
        {"id": "new", "text": "The ferry does not run on public holidays."},
        {"id": "span", "text": "Good morning."},
    ]
    found = {c.reference_id: c for c in check_references(refs, texts, patterns)}
    assert set(found) == {"near", "fill", "sheet"}
    assert found["near"].ratio >= 90
    with pytest.raises(InputError, match="not found"):
        known_texts([tmp_path / "nothing"])


# ---------------------------------------------------------------------------------------------
# Items and sheets
# ---------------------------------------------------------------------------------------------


def _decodes() -> list[dict[str, str]]:
    rows = []
    for k in range(30):
        ref = f"please send {k} boxes to the office on friday"
        for s, hyp in (
            ("sys-a", ref if k % 3 == 0 else ref.replace("boxes", "foxes")),
            ("sys-b", ref.replace("friday", "monday")),
            ("sys-c", ref.replace("friday", "monday")),  # same transcript as sys-b
            ("sys-d", ref.upper() + "."),  # identical after normalisation
            ("sys-e", ref.replace("office", "offices")),
        ):
            rows.append({"system": s, "reference_id": f"r{k:02d}", "reference": ref,
                         "hypothesis": hyp, "domain": "d", "reference_written": ref})  # fmt: skip
    return rows


def test_select_items_rule() -> None:
    rows = _decodes()
    items = select_items(rows, target=60, seed=3, per_reference=2)
    assert len(items) == 60
    assert all(differs(i["reference"], i["hypothesis"]) for i in items)
    assert "sys-d" not in {i["system"] for i in items}  # only non-identical transcripts
    per_ref: dict[str, int] = {}
    for i in items:
        per_ref[i["reference_id"]] = per_ref.get(i["reference_id"], 0) + 1
    assert max(per_ref.values()) <= 2
    keys = [(i["reference_id"], i["hypothesis"]) for i in items]
    assert len(set(keys)) == len(keys)  # sys-b and sys-c's shared transcript once per reference
    assert len({i["item_id"] for i in items}) == 60
    assert not any(i["system"] in i["item_id"] for i in items)
    # Balanced: with room for everything, each system that has candidates gets its turn.
    counts: dict[str, int] = {}
    for i in select_items(rows, target=40, seed=3, per_reference=3):
        counts[i["system"]] = counts.get(i["system"], 0) + 1
    assert set(counts) == {"sys-a", "sys-b", "sys-c", "sys-e"}
    assert max(counts.values()) - min(counts.values()) <= 1
    # Deterministic for a seed, different for another.
    assert select_items(rows, target=60, seed=3, per_reference=2) == items
    assert select_items(list(reversed(rows)), target=60, seed=3, per_reference=2) == items
    assert select_items(rows, target=60, seed=4, per_reference=2) != items
    with pytest.raises(InputError):
        select_items(rows, target=0, seed=3)


def test_sheets_are_blind_two_orders_and_halves(tmp_path: Path) -> None:
    items = select_items(_decodes(), target=41, seed=3)
    counts = write_sheets(items, tmp_path, seed=3)
    assert counts == {"reader-sheet-A.csv": 41, "reader-sheet-A1.csv": 21,
                      "reader-sheet-A2.csv": 20, "reader-sheet-B.csv": 41,
                      "reader-sheet-B1.csv": 21, "reader-sheet-B2.csv": 20}  # fmt: skip

    def read(name: str) -> list[dict[str, str]]:
        with (tmp_path / name).open(encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            assert tuple(reader.fieldnames or ()) == SHEET_COLUMNS
            return list(reader)

    a, b = read("reader-sheet-A.csv"), read("reader-sheet-B.csv")
    assert sorted(r["item_id"] for r in a) == sorted(i["item_id"] for i in items)
    assert [r["item_id"] for r in a] != [r["item_id"] for r in b]
    assert sorted(map(str, a)) == sorted(map(str, b))  # same rows, another order
    assert read("reader-sheet-A1.csv") + read("reader-sheet-A2.csv") == a
    assert read("reader-sheet-B1.csv") + read("reader-sheet-B2.csv") == b
    assert all(r["tier"] == r["damage"] == r["reason"] == "" for r in a)
    text = (tmp_path / "reader-sheet-A.csv").read_text(encoding="utf-8")
    assert "sys-" not in text  # no system names


def test_build_items_from_a_build_folder(tmp_path: Path) -> None:
    out = tmp_path / "build"
    (out / "decodes").mkdir(parents=True)
    rows = _decodes()
    refs = {r["reference_id"]: r["reference"] for r in rows}
    _write_jsonl(out / "references.jsonl", [
        {"id": k, "group": k, "domain": "d", "original": v.replace("friday", "Friday"), "text": v,
         "fold": 5, "short": False} for k, v in sorted(refs.items())
    ])  # fmt: skip
    systems = sorted({r["system"] for r in rows})
    manifest = {
        "config": {"systems": [{"id": s, "voice": "en-us+f5"} for s in systems],
                   "build_version": "asr-2", "seed": 12},
        "tools": {"pocketsphinx": "5.1.1"}, "acoustic_model": "en-us",
        "pool_files_sha256": {"references:refs.jsonl": "abc", "pool/part_a.jsonl": "def"},
    }  # fmt: skip
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    for s in systems:
        _write_jsonl(out / "decodes" / f"{s}.jsonl", [
            {"reference_id": r["reference_id"], "system": s, "hypothesis": r["hypothesis"]}
            for r in rows if r["system"] == s
        ])  # fmt: skip
    summary = build_items(out, tmp_path / "bench", target=50, seed=3)
    assert summary["items"] == 50 and summary["decodes"] == len(rows)
    assert (
        summary["differing_per_system"]["sys-b"] == 30
        and "sys-d" not in summary["differing_per_system"]
    )
    items = [json.loads(x) for x in (tmp_path / "bench/data/items.jsonl").read_text().splitlines()]
    assert len(items) == 50
    first = items[0]
    assert first["reference_written"].endswith("Friday") or "Friday" in first["reference_written"]
    prov = first["provenance"]
    assert prov["selection_seed"] == 3 and prov["build_seed"] == 12
    assert prov["system_settings"]["id"] == first["system"]
    assert prov["references_sha256"] == {"references:refs.jsonl": "abc"}
    assert (tmp_path / "bench/sheets/reader-sheet-B2.csv").is_file()
    with pytest.raises(InputError, match="manifest.json"):
        build_items(tmp_path / "nothing", tmp_path / "bench")


def _record(k: int, split: str, system: str, ref: str, hyp: str) -> dict[str, object]:
    return {"schema": "sitar.record/1", "id": f"r{k}", "split": split, "reference": ref,
            "hypothesis": hyp, "tiers": [1], "directions": [0],
            "provenance": {"system": system, "reference_id": f"ref-{k % 7}"}}  # fmt: skip


def test_validation_items_take_only_the_split_and_copy_no_label(tmp_path: Path) -> None:
    rows = [
        _record(k, "validation" if k % 3 else "train", f"sys-{k % 2}", f"send {k % 7} boxes",
                f"send {k % 7} foxes" if k % 5 else f"send {k % 7} boxes")  # identical: skipped
        for k in range(60)
    ]  # fmt: skip
    _write_jsonl(tmp_path / "a.jsonl", rows[:30])
    _write_jsonl(tmp_path / "b.jsonl", rows[30:])
    s = validation_items([tmp_path / "a.jsonl", tmp_path / "b.jsonl"], tmp_path / "val",
                         target=100, seed=5, per_reference=2)  # fmt: skip
    items = [json.loads(x) for x in (tmp_path / "val/data/items.jsonl").read_text().splitlines()]
    assert s["candidates"] == 40 and len(items) == s["items"]
    by_id = {r["id"]: r for r in rows}
    for it in items:
        rec = by_id[it["provenance"]["record_id"]]
        assert rec["split"] == "validation" and rec["hypothesis"] != rec["reference"]
        assert "tiers" not in it and it["provenance"]["file"] in ("a.jsonl", "b.jsonl")
    per_ref: dict[str, int] = {}
    for it in items:
        per_ref[it["reference_id"]] = per_ref.get(it["reference_id"], 0) + 1
    assert max(per_ref.values()) <= 2
    assert len({(it["reference_id"], it["hypothesis"]) for it in items}) == len(items)
    sheet = (tmp_path / "val/sheets/reader-sheet-A.csv").read_text(encoding="utf-8")
    assert "sys-" not in sheet and sheet.count("\n") == len(items) + 1


def test_validation_items_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such record file"):
        validation_items([tmp_path / "missing.jsonl"], tmp_path / "val", target=5, seed=1)
    _write_jsonl(tmp_path / "t.jsonl", [_record(1, "train", "s", "a b", "a c")])
    with pytest.raises(InputError, match="no 'validation' records"):
        validation_items([tmp_path / "t.jsonl"], tmp_path / "val", target=5, seed=1)
    _write_jsonl(tmp_path / "bad.jsonl", [{"split": "validation"}])
    with pytest.raises(InputError, match="provenance"):
        validation_items([tmp_path / "bad.jsonl"], tmp_path / "val", target=5, seed=1)
