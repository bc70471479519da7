"""annotation.asr: ARPA writer, spoken forms, folds and LM text, systems, resume, pair records,
sheets; one end-to-end synthesize-and-decode test when espeak-ng, sox and pocketsphinx exist."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import random
import shutil
import types
from pathlib import Path

import pytest

from annotation.asr.arpa import ArpaModel, build_model, read_arpa, write_arpa
from annotation.asr.build import add_noise, append_decode, pending, read_decodes
from annotation.asr.corpus import AsrReference, fold_of, lm_sentences, perturb
from annotation.asr.normalize import lm_words, spoken_form
from annotation.asr.records import (
    edit_distance,
    make_pair,
    read_pairs,
    system_wer,
    word_errors,
    write_pairs,
)
from annotation.asr.systems import DEFAULT_SYSTEMS, SystemConfig, load_systems, parse_systems
from sitar import segment
from sitar.errors import InputError
from sitar.records import read_records

HAVE_TOOLS = bool(shutil.which("espeak-ng") and shutil.which("sox"))
try:
    import pocketsphinx

    HAVE_PS = True
except ImportError:
    HAVE_PS = False
needs_ps = pytest.mark.skipif(
    not HAVE_PS, reason="pocketsphinx is not installed (pip install 'sitar[asr]')"
)
needs_all = pytest.mark.skipif(
    not (HAVE_PS and HAVE_TOOLS),
    reason="needs espeak-ng and sox (apt-get install espeak-ng sox) and pocketsphinx",
)

SENTS = [s.split() for s in (
    "turn left at the light", "turn right at the light", "call mom now", "set an alarm for seven",
    "do not unlock the door", "turn left now", "the light is red", "call the office at seven",
)]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# ARPA writer
# ---------------------------------------------------------------------------------------------


def _vocab(m: ArpaModel) -> list[str]:
    return [w for w in m.vocabulary if w != "<s>"]


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_arpa_distributions_normalise(order: int) -> None:
    m = build_model(SENTS, order=order)
    vocab = _vocab(m)
    rng = random.Random(0)
    histories = [(), ("<s>",), ("turn",), ("<s>", "turn"), ("turn", "left")]
    histories += [tuple(rng.choice([*vocab, "<s>"]) for _ in range(order - 1)) for _ in range(30)]
    for h in histories:
        total = sum(m.prob(w, h) for w in vocab)
        assert total == pytest.approx(1.0, abs=1e-9), (h, total)


def test_arpa_seen_ngram_beats_backoff_and_unseen_history_backs_off() -> None:
    m = build_model(SENTS, order=3)
    # "turn left" seen twice, "turn call" never: the seen continuation is far more likely.
    assert m.prob("left", ("<s>", "turn")) > 10 * m.prob("call", ("<s>", "turn"))
    # An unseen history has no back-off weight (log10 1 = 0): it equals the shorter history.
    assert ("door", "seven") not in m.backoff
    assert m.log10_prob("the", ("door", "seven")) == m.log10_prob("the", ("seven",))
    with pytest.raises(InputError, match="not in the model"):
        m.log10_prob("banana", ())


def test_arpa_file_format_roundtrip(tmp_path: Path) -> None:
    m = build_model(SENTS, order=3)
    path = tmp_path / "lm.arpa"
    write_arpa(m, path)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[1] == "\\data\\" and lines[-1] == "\\end\\"
    for n in (1, 2, 3):
        declared = int(next(ln for ln in lines if ln.startswith(f"ngram {n}=")).split("=")[1])
        start = lines.index(f"\\{n}-grams:") + 1
        body = lines[start : lines.index("", start)]
        assert len(body) == declared
        fields = {len(row.split("\t")) for row in body}
        # highest-order rows carry no back-off weight; lower orders carry one where a history
        assert fields == ({2} if n == 3 else {2, 3})
    assert "-99.000000\t<s>\t" in text
    back = read_arpa(path)
    assert back.order == 3 and set(back.logprob) == set(m.logprob)
    for g, lp in m.logprob.items():
        assert back.logprob[g] == pytest.approx(lp, abs=1e-6)
    # deterministic bytes
    write_arpa(build_model(SENTS, order=3), tmp_path / "again.arpa")
    assert (tmp_path / "again.arpa").read_bytes() == path.read_bytes()


def test_arpa_rejects_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no sentences"):
        build_model([[]])
    with pytest.raises(InputError, match="invalid LM word"):
        build_model([["a b"]])
    with pytest.raises(InputError, match="order"):
        build_model(SENTS, order=0)
    bad = tmp_path / "bad.arpa"
    bad.write_text("\\data\\\nngram 1=3\n\n\\1-grams:\n-1.0\ta\n\n\\end\\\n", encoding="utf-8")
    with pytest.raises(InputError, match="declares 3 1-grams"):
        read_arpa(bad)


@needs_ps
def test_pocketsphinx_loads_our_arpa(tmp_path: Path) -> None:
    from annotation.asr.build import model_paths
    from annotation.asr.corpus import dictionary_entries

    paths = model_paths()
    entries = dictionary_entries(paths["dict"])
    m = build_model(SENTS, order=3)
    write_arpa(m, tmp_path / "lm.arpa")
    vocab = _vocab(m)[: -0 or None]
    (tmp_path / "lm.dict").write_text(
        "".join(line + "\n" for w in vocab if w != "</s>" for line in entries[w]), encoding="utf-8"
    )
    d = pocketsphinx.Decoder(
        hmm=str(paths["hmm"]), lm=str(tmp_path / "lm.arpa"), dict=str(tmp_path / "lm.dict"),
        loglevel="FATAL",
    )  # fmt: skip
    d.start_utt()
    d.process_raw(b"\0\0" * 8000, full_utt=True)  # half a second of silence
    d.end_utt()
    hyp = d.hyp()
    assert hyp is None or set((hyp.hypstr or "").split()) <= set(vocab)


# ---------------------------------------------------------------------------------------------
# Spoken forms, folds, LM text
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ("Refund £312.40 now.", "Refund three hundred twelve pounds forty now."),
        ("Meet at 10:42 or 9:05.", "Meet at ten forty-two or nine oh five."),
        ("On the 3rd, in 1989.", "On the third, in nineteen eighty-nine."),
        ("Order KX-40917 please", "Order k x four zero nine one seven please"),
        ("Call 07700 900", "Call zero seven seven zero zero nine hundred"),
        ("up 20% to 4.5", "up twenty percent to four point five"),
        ("a café in the 1990s", "a cafe in the nineteen nineties"),
        ("£1,280 at 16:00", "one thousand two hundred eighty pounds at sixteen hundred"),
    ],
)
def test_spoken_form(written: str, spoken: str) -> None:
    assert spoken_form(written, known=set()) == spoken


def test_spoken_form_capitals_and_words() -> None:
    assert spoken_form("Pay the VAT to NATO", known={"nato"}) == "Pay the v a t to NATO"
    assert lm_words("I'd like Forty-two, please.") == ["i'd", "like", "forty", "two", "please"]


def _ref(rid: str, text: str, fold: int) -> AsrReference:
    return AsrReference(rid, rid, "everyday", text, text, fold)


def test_folds_are_stable_and_lm_text_holds_out_the_fold() -> None:
    assert fold_of("cc-0001", folds=5, seed=12) == fold_of("cc-0001", folds=5, seed=12)
    assert {fold_of(f"g{i}", folds=5, seed=12) for i in range(200)} == set(range(5))
    refs = [
        _ref("r0", "Meet me on Monday at seven", 0),
        _ref("r1", "Please call the office", 0),
        _ref("r2", "Turn left at the light", 1),
        _ref("r3", "Please call the", 1),  # equals a segment of nothing; kept
    ]
    known = {w for r in refs for w in r.words} | {"tuesday", "eight"}
    dist = [_ref("d0", "Meet me on Friday at nine", 0)]
    text = lm_sentences(0, refs, dist, known=known | {"friday", "nine"}, variants=4, seed=1)
    as_tuples = {tuple(s) for s in text}
    assert ("meet", "me", "on", "monday", "at", "seven") not in as_tuples
    assert ("please", "call", "the", "office") not in as_tuples
    assert ("turn", "left", "at", "the", "light") in as_tuples  # other fold: in the text
    assert ("meet", "me", "on", "friday", "at", "nine") in as_tuples  # distractor
    # variants of the held-out reference are there (a slot changed)
    assert any(len(s) == 6 and s[:3] == ["meet", "me", "on"] for s in text)
    # an OOV word splits a sentence: n-grams never span it
    split = lm_sentences(
        1,
        [_ref("x", "call the zork office now", 0)],
        [],
        known={"call", "the", "office", "now"},
        variants=0,
        seed=1,
    )
    assert split == [["call", "the"], ["office", "now"]]


def test_perturb_changes_a_slot_deterministically() -> None:
    words = lm_words("Don't send it on Friday to Lena")
    a = perturb(words, random.Random("s"), ["apple"])
    assert a != words and a == perturb(words, random.Random("s"), ["apple"])
    plain = lm_words("the quick brown animal jumps")
    assert perturb(plain, random.Random(3), ["zebra"]).count("zebra") == 1


# ---------------------------------------------------------------------------------------------
# Systems
# ---------------------------------------------------------------------------------------------


def test_default_systems_valid_and_distinct() -> None:
    assert 3 <= len(DEFAULT_SYSTEMS) <= 5
    assert parse_systems([s.to_dict() for s in DEFAULT_SYSTEMS]) == tuple(DEFAULT_SYSTEMS)
    assert all(s.voice != "en-us" for s in DEFAULT_SYSTEMS)  # the plain voice decodes badly
    opts = DEFAULT_SYSTEMS[0].decoder_options()
    assert set(opts) == {"cmn", "beam", "wbeam", "pbeam", "maxhmmpf", "fwdflat", "bestpath", "lw"}
    assert opts["cmn"] == "batch"  # live CMN makes a hypothesis depend on earlier utterances


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "non-empty"),
        ({"id": "a"}, "non-empty JSON list"),
        ([{"id": "a", "voice": "en-us+f5", "speed": 3}], "unknown field"),
        ([{"voice": "en-us+f5"}], "missing field"),
        ([{"id": "A B", "voice": "en-us+f5"}], "system id"),
        ([{"id": "a", "voice": "en us"}], "voice"),
        ([{"id": "a", "voice": "en-us+f5", "rate": 20}], "rate"),
        ([{"id": "a", "voice": "en-us+f5", "beam": 2}], "beam"),
        ([{"id": "a", "voice": "en-us+f5", "snr_db": "10"}], "snr_db"),
        ([{"id": "a", "voice": "en-us+f5", "fwdflat": 1}], "fwdflat"),
        ([{"id": "a", "voice": "en-us+f5"}, {"id": "a", "voice": "en-us+f2"}], "duplicate"),
    ],
)
def test_system_parsing_errors(data: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_systems(data)


def test_load_systems_file(tmp_path: Path) -> None:
    p = tmp_path / "s.json"
    p.write_text(json.dumps([{"id": "x", "voice": "en-us+klatt", "snr_db": 10}]), encoding="utf-8")
    (s,) = load_systems(p)
    assert s == SystemConfig(id="x", voice="en-us+klatt", snr_db=10)
    p.write_text("[", encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON"):
        load_systems(p)
    with pytest.raises(InputError, match="not found"):
        load_systems(tmp_path / "missing.json")


# ---------------------------------------------------------------------------------------------
# Resume
# ---------------------------------------------------------------------------------------------


def _row(rid: str, hyp: str = "x") -> dict[str, object]:
    return {"reference_id": rid, "system": "a", "hypothesis": hyp}


def test_resume_skips_finished_and_repairs_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    assert read_decodes(path) == {}
    append_decode(path, _row("r1"))
    append_decode(path, _row("r2"))
    with path.open("a", encoding="utf-8") as f:
        f.write('{"reference_id": "r3", "hyp')  # crash mid-write
    done = read_decodes(path, repair=True)
    assert set(done) == {"r1", "r2"}
    assert path.read_text(encoding="utf-8").endswith("}\n")
    append_decode(path, _row("r3"))
    assert set(read_decodes(path)) == {"r1", "r2", "r3"}
    refs = [_ref(f"r{i}", "a b", 0) for i in range(1, 5)]
    sa, sb = SystemConfig(id="a", voice="en-us+f5"), SystemConfig(id="b", voice="en-us+f2")
    todo = pending(refs, [sa, sb], {"a": set(read_decodes(path))})
    assert [(r.id, s.id) for r, s in todo] == [
        ("r1", "b"),
        ("r2", "b"),
        ("r3", "b"),
        ("r4", "a"),
        ("r4", "b"),
    ]


def test_resume_keeps_a_complete_last_line_and_rejects_garbage(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(_row("r1")) + "\n" + json.dumps(_row("r2")), encoding="utf-8")
    assert set(read_decodes(path, repair=True)) == {"r1", "r2"}
    assert path.read_text(encoding="utf-8").endswith("}\n")
    path.write_text("not json\n" + json.dumps(_row("r2")) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        read_decodes(path)


def test_noise_is_seeded() -> None:
    pcm = bytes(range(256)) * 40
    assert add_noise(pcm, None, "s") == pcm
    a, b, c = add_noise(pcm, 10.0, "s"), add_noise(pcm, 10.0, "s"), add_noise(pcm, 10.0, "t")
    assert a == b and a != c and len(a) == len(pcm)
    import numpy as np

    x = np.frombuffer(pcm, "<i2").astype(float)
    n = np.frombuffer(a, "<i2").astype(float) - x
    snr = 10 * math.log10(np.mean(x**2) / np.mean(n**2))
    assert snr == pytest.approx(10.0, abs=0.5)


# ---------------------------------------------------------------------------------------------
# Pair records
# ---------------------------------------------------------------------------------------------


def test_word_errors_and_pairs(tmp_path: Path) -> None:
    assert edit_distance("a b c".split(), "a x c d".split()) == 2
    assert edit_distance([], ["a"]) == 1
    assert word_errors("Turn LEFT, at the light.", "turn right at the light") == (1, 5)
    ref = {"id": "r1", "group": "g1", "fold": 2, "domain": "everyday",
           "text": "I'd turn left.", "original": "I'd turn left."}  # fmt: skip
    p = make_pair(ref, {"reference_id": "r1", "system": "b", "hypothesis": "id turn right"}, "test")
    assert (p["id"], p["errors"], p["reference_words"], p["wer"]) == ("b/r1", 1, 3, 0.333333)
    q = make_pair(ref, {"reference_id": "r1", "system": "a", "hypothesis": "i'd turn left"}, "test")
    assert q["wer"] == 0.0
    with pytest.raises(InputError, match="paired with"):
        make_pair(ref, {"reference_id": "r2", "system": "a", "hypothesis": ""}, None)
    path = tmp_path / "pairs.jsonl"
    assert write_pairs(path, [p, q]) == 2
    back = read_pairs(path)
    assert [r["id"] for r in back] == ["a/r1", "b/r1"]  # sorted by system
    assert back[1] == p
    assert system_wer(back) == {
        "a": {"wer": 0.0, "pairs": 1, "exact": 1.0},
        "b": {"wer": 0.3333, "pairs": 1, "exact": 0.0},
    }
    with pytest.raises(InputError, match="duplicate"):
        write_pairs(path, [p, p])
    path.write_text('{"id": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match="not a sitar-asr-pair-1"):
        read_pairs(path)


def _fake_build(tmp_path: Path) -> Path:
    """A build folder with 6 references x 2 systems of decodes (no audio, no LM)."""
    from annotation.asr.build import BuildConfig, _write_json

    out = tmp_path / "asr"
    (out / "decodes").mkdir(parents=True)
    systems = [SystemConfig(id="a", voice="en-us+f5"), SystemConfig(id="b", voice="en-us+f2")]
    config = BuildConfig(systems=tuple(systems)).to_dict()
    lm = {
        "sentences": 9,
        "vocabulary": 5,
        "ngrams": {"1": 5, "2": 7, "3": 8},
        "held_out_references": 3,
    }
    _write_json(out / "manifest.json", {
        "config": config, "references": 7, "reference_words": 30, "distractors": 0,
        "oov_reference_words": 0, "tools": {"sox": "v1"}, "lm": {"fold0": lm, "fold1": lm},
    })  # fmt: skip
    texts = ["Turn left at the light.", "Call mom at seven.", "Set an alarm for nine.",
             "Don't unlock the door.", "Meet me on Friday.", "Send the blue box today."]  # fmt: skip
    refs = [{"id": f"r{i}.f{i % 2}", "group": f"g{i // 2}", "fold": i % 2, "domain": "everyday",
             "text": t, "original": t} for i, t in enumerate(texts)]  # fmt: skip
    (out / "references.jsonl").write_text("".join(json.dumps(r) + "\n" for r in refs), "utf-8")
    hyps = {"a": ["turn right at the light", "call mom at seven", "set an alarm for five",
                  "don't lock the door", "meet me on friday", "send the blue box to day"],
            "b": ["turn right at the light", "call tom at heaven", "set alarm for nine",
                  "do unlock the door", "meet me on thursday", "send the box today"]}  # fmt: skip
    for s in systems:
        for r, h in zip(refs, hyps[s.id], strict=True):
            append_decode(
                out / "decodes" / f"{s.id}.jsonl",
                {"reference_id": r["id"], "system": s.id, "hypothesis": h},
            )
    return out


def test_collect_split_and_sheets(tmp_path: Path) -> None:
    """A fake build folder -> pairs, grouped split, sheets that import back once filled."""
    pytest.importorskip("sklearn")
    from annotation.asr.export import collect, export_sheets
    from annotation.sheets import import_sheets

    out = _fake_build(tmp_path)
    summary = collect(out, split_seed=3)
    assert summary["pairs"] == 12 and summary["references_decoded"] == 6
    pairs = read_pairs(out / "pairs.jsonl")
    split_of_group: dict[str, set[str]] = {}
    for p in pairs:
        split_of_group.setdefault(p["group"], set()).add(p["split"])
    assert all(len(v) == 1 for v in split_of_group.values())  # grouped, never by pair
    m = export_sheets(out, target_gaps=6, seed=1, gaps_per_sheet=4)
    assert m["gaps"] >= 6 and len(m["sheets"]) >= 2
    # identical hypotheses of two systems are one pair, with the other system named
    shared = [json.loads(line) for f in sorted((out / "sheets").glob("*.pairs.jsonl"))
              for line in f.read_text("utf-8").splitlines()]  # fmt: skip
    assert len({(r["reference"], r["hypothesis"]) for r in shared}) == len(shared)
    assert all(r["hypothesis"] != "meet me on friday" for r in shared)  # exact: not sampled
    # a reference never crosses sheets
    ref_sheet: dict[str, set[str]] = {}
    for f in sorted((out / "sheets").glob("*.csv")):
        with f.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                ref_sheet.setdefault(row["reference"], set()).add(f.name)
    assert all(len(v) == 1 for v in ref_sheet.values())
    # fill every tier and import through the existing path
    filled = []
    for f in sorted((out / "sheets").glob("*.csv")):
        with f.open(encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        for row in rows:
            row["tier"] = "T2"
        g = tmp_path / f"filled-{f.name}"
        with g.open("w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        filled.append(g)
    result = import_sheets(filled)
    assert len(result.records) == m["pairs"] and not result.rejected
    from annotation.asr.card import render_card

    card = render_card(out)
    assert "| `a` | `en-us+f5` |" in card and "| `b` | `en-us+f2` |" in card
    assert f"{m['gaps']} gap rows" in card and "Partial build**: 6 of 7" in card
    # --append-sheets: the sheets out for labelling stay byte for byte; new ones take only
    # references that are on no sheet yet.
    before = {f.name: f.read_bytes() for f in (out / "sheets").glob("asr-sheet-*")}
    taken = {r["reference"] for r in shared}
    m2 = export_sheets(out, target_gaps=100, seed=1, gaps_per_sheet=4, append=True)
    assert m2["batches"] == 2 and m2["gaps"] > m["gaps"]
    assert all((out / "sheets" / n).read_bytes() == b for n, b in before.items())
    new = [json.loads(line) for f in sorted((out / "sheets").glob("*.pairs.jsonl"))
           if f.name.replace(".pairs.jsonl", ".csv") not in before
           for line in f.read_text("utf-8").splitlines()]  # fmt: skip
    assert new and not {r["reference"] for r in new} & taken
    assert [f["batch"] for f in m2["sheets"]][: len(m["sheets"])] == [1] * len(m["sheets"])
    # a batch restricted to some splits takes only their references
    pairs_before = {f.name for f in (out / "sheets").glob("*.pairs.jsonl")}
    export_sheets(out, target_gaps=1000, seed=1, gaps_per_sheet=4, append=True, splits=["test"])
    added = [json.loads(line) for f in (out / "sheets").glob("*.pairs.jsonl")
             if f.name not in pairs_before for line in f.read_text("utf-8").splitlines()]  # fmt: skip
    assert all(r["split"] == "test" for r in added)
    # an append that finds nothing new writes no sheet and starts no batch
    last = json.loads((out / "sheets" / "manifest.json").read_text("utf-8"))
    again = export_sheets(out, target_gaps=1000, seed=1, gaps_per_sheet=4, append=True)
    assert (again["batches"], again["sheets"]) == (last["batches"], last["sheets"])


def test_split_follows_the_synthetic_generator(tmp_path: Path) -> None:
    """Pool groups are split together and short commands on their own, with the generator's
    function and seed, so a group lands in the same split as in the synthetic corpus."""
    pytest.importorskip("sklearn")
    from annotation.asr.build import BuildConfig, _write_json
    from annotation.asr.export import DEFAULT_SPLIT_SEED, collect
    from annotation.synth.generate import assign_group_splits

    out = tmp_path / "asr"
    (out / "decodes").mkdir(parents=True)
    config = BuildConfig(systems=(SystemConfig(id="a", voice="en-us+f5"),)).to_dict()
    _write_json(out / "manifest.json", {"config": config})
    refs = [{"id": f"p{i}", "group": f"p{i}", "fold": 0, "domain": "d", "text": "go now",
             "original": "Go now.", "short": False} for i in range(12)]  # fmt: skip
    refs += [{"id": f"cmd-{i}", "group": f"cmd-{i}", "fold": 0, "domain": "d", "text": "stop",
              "original": "Stop.", "short": True} for i in range(8)]  # fmt: skip
    (out / "references.jsonl").write_text("".join(json.dumps(r) + "\n" for r in refs), "utf-8")
    collect(out)
    groups = json.loads((out / "splits.json").read_text("utf-8"))["groups"]
    fractions = (0.75, 0.1, 0.15)
    pool = assign_group_splits([f"p{i}" for i in range(12)], fractions=fractions,
                               seed=DEFAULT_SPLIT_SEED)  # fmt: skip
    short = assign_group_splits([f"cmd-{i}" for i in range(8)], fractions=fractions,
                                seed=DEFAULT_SPLIT_SEED)  # fmt: skip
    assert groups == {**pool, **short}


# ---------------------------------------------------------------------------------------------
# End to end (real tools)
# ---------------------------------------------------------------------------------------------


@needs_all
def test_synthesize_and_decode_end_to_end(tmp_path: Path) -> None:
    from annotation.asr.build import decode_pcm, model_paths, synthesize
    from annotation.asr.corpus import dictionary_entries

    system = SystemConfig(id="e2e", voice="en-us+f5", rate=160)
    sents = [*SENTS, *(s.split() for s in ("turn left at the door", "set the light to red"))]
    m = build_model(sents, order=3)
    write_arpa(m, tmp_path / "lm.arpa")
    entries = dictionary_entries(model_paths()["dict"])
    (tmp_path / "lm.dict").write_text(
        "".join(line + "\n" for w in _vocab(m) if w != "</s>" for line in entries[w]), "utf-8"
    )
    d = pocketsphinx.Decoder(
        hmm=str(model_paths()["hmm"]), lm=str(tmp_path / "lm.arpa"),
        dict=str(tmp_path / "lm.dict"), loglevel="FATAL", **system.decoder_options(),
    )  # fmt: skip
    pcm = synthesize("Turn left at the light.", system, tmp_path)
    assert len(pcm) > 16000  # more than half a second of 16 kHz 16-bit audio
    assert synthesize("Turn left at the light.", system, tmp_path) == pcm  # deterministic
    hyp = decode_pcm(d, pcm)
    score = d.hyp().score
    errors, n = word_errors("Turn left at the light.", hyp)
    assert errors / n <= 0.4, hyp
    # The result (down to the path score) does not depend on what the decoder decoded before:
    # a resumed build must equal an uninterrupted one.
    noisy = add_noise(synthesize("Call the office at seven.", system, tmp_path), 0.0, "x")
    decode_pcm(d, noisy)
    assert (decode_pcm(d, pcm), d.hyp().score) == (hyp, score)


def test_asr_imports_no_torch_and_no_pocketsphinx_at_import() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import annotation.asr, annotation.asr.__main__, annotation.asr.build\n"
        "import annotation.asr.export, annotation.asr.records, annotation.asr.corpus\n"
        "import annotation.asr.severity\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'torch', 'transformers', "
        "'training', 'pocketsphinx'})\n"
        "print(','.join(bad))\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_cli_errors_are_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from annotation.asr.__main__ import main

    bad = tmp_path / "systems.json"
    bad.write_text('[{"id": "a", "voice": "en-us+f5", "beam": 5}]', encoding="utf-8")
    assert main(["build", str(tmp_path / "out"), "--systems", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("python -m annotation.asr: error: a: beam must be") and "\n" not in err
    assert main(["export", str(tmp_path / "nothing")]) == 2
    assert "run `python -m annotation.asr build` first" in capsys.readouterr().err


def test_labels_become_records_with_the_build_split(tmp_path: Path) -> None:
    """Two readers on a sheet, a third on their disagreement: majority tiers, the group's split,
    readers and systems in the provenance; a stray file name is an error."""
    pytest.importorskip("sklearn")
    from annotation.asr.export import collect, export_sheets
    from annotation.asr.labels import import_labels

    out = _fake_build(tmp_path)
    collect(out, split_seed=3)
    export_sheets(out, target_gaps=100, seed=1, gaps_per_sheet=100)
    sheet = out / "sheets" / "asr-sheet-01.csv"
    with sheet.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    labels = tmp_path / "labels"
    labels.mkdir()
    disputed = rows[0]["pair_id"]

    def write(name: str, keep: list[dict[str, str]], tier_of) -> None:
        with (labels / name).open("w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows([{**r, "tier": tier_of(r)} for r in keep])

    write("asr-sheet-01.A.csv", rows, lambda r: "T2")
    write("asr-sheet-01.B.csv", rows, lambda r: "T1" if r["pair_id"] == disputed else "T2")
    third = [r for r in rows if r["pair_id"] == disputed]
    write("adjudication-01.C.csv", third, lambda r: "T1")
    summary = import_labels(out, labels, tmp_path / "records.jsonl")
    records = {r.id: r for r in read_records(tmp_path / "records.jsonl")}
    assert summary["records"] == len({r["pair_id"] for r in rows}) == len(records)
    assert set(records[disputed].tiers) == {1}  # B and C outvote A
    assert records[disputed].provenance["readers"] == ["C", "A", "B"]
    splits = json.loads((out / "splits.json").read_text("utf-8"))["groups"]
    for r in records.values():
        assert r.split == splits[r.provenance["pool_id"]]
        assert r.provenance["source"] == "asr-hand" and r.id.startswith(r.provenance["system"])
    assert summary["readers_per_record"] == {2: len(records) - 1, 3: 1}
    assert not any("selection" in r.provenance for r in records.values())  # no active sheets
    # a sheet written by active-sheets tags each pair with how its reference was chosen
    pairs_file = out / "sheets" / "asr-sheet-01.pairs.jsonl"
    tagged = [json.loads(line) for line in pairs_file.read_text("utf-8").splitlines()]
    tagged = [
        {**row, "selection": "active" if row["id"] == disputed else "random"} for row in tagged
    ]
    pairs_file.write_text("".join(json.dumps(row) + "\n" for row in tagged), encoding="utf-8")
    import_labels(out, labels, tmp_path / "tagged.jsonl")
    selections = {r.id: r.provenance["selection"] for r in read_records(tmp_path / "tagged.jsonl")}
    assert selections == {pid: "active" if pid == disputed else "random" for pid in records}
    (labels / "notes.csv").write_text("x\n", encoding="utf-8")
    with pytest.raises(InputError, match="not named"):
        import_labels(out, labels, tmp_path / "again.jsonl")


def test_build_can_decode_only_some_splits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``build --splits validation`` decodes exactly the references that ``export`` then puts in
    the validation split (the split is drawn over every listed reference, not only those of
    ``--limit``), and nothing else; unknown splits are a clear error."""
    pytest.importorskip("sklearn")
    import annotation.asr.build as build_mod
    from annotation.asr.build import BuildConfig, _write_json, run_build
    from annotation.asr.export import collect

    out = tmp_path / "asr"
    out.mkdir()
    refs = [AsrReference(id=f"p{i}", group=f"g{i // 2}", domain="d", original="Go now.",
                         text="go now", fold=0) for i in range(40)]  # fmt: skip
    refs += [AsrReference(id=f"cmd-{i}", group=f"cmd-{i}", domain="d", original="Stop.",
                          text="stop", fold=0, short=True) for i in range(10)]  # fmt: skip
    config = BuildConfig(systems=(SystemConfig(id="a", voice="en-us+f5"),))

    def fake_prepare(out_dir, cfg, pool_root):
        rows = [dataclasses.asdict(r) for r in refs]
        (out_dir / "references.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows), "utf-8"
        )
        _write_json(out_dir / "manifest.json", {"config": cfg.to_dict()})
        return list(refs[:30]), {}  # as with --limit 30: fewer than are listed

    decoded: list[str] = []

    def fake_decode(out_dir, seed, todo, deadline, log):
        decoded.extend(r.id for r, _ in todo)
        return []

    monkeypatch.setattr(build_mod, "prepare", fake_prepare)
    monkeypatch.setattr(build_mod, "_decode_items", fake_decode)
    run_build(out, config, log=lambda m: None, splits=["validation", "test"])
    collect(out)
    groups = json.loads((out / "splits.json").read_text("utf-8"))["groups"]
    expected = [r.id for r in refs[:30] if groups[r.group] in ("validation", "test")]
    assert decoded == expected and 0 < len(expected) < 30
    decoded.clear()
    run_build(out, config, log=lambda m: None)  # without --splits: everything prepared
    assert decoded == [r.id for r in refs[:30]]
    with pytest.raises(InputError, match="splits must be"):
        run_build(out, config, log=lambda m: None, splits=["dev"])


def test_reread_sheets_record_every_change_and_feed_the_importer(tmp_path: Path) -> None:
    """A filled re-read sheet (rubric asr-v2) is checked, written as ``reread-NN.<reader>.csv``
    with the v2 tier in ``tier`` and the v1 labels beside it, and imported like any label sheet:
    the records carry the v2 tiers."""
    pytest.importorskip("sklearn")
    from annotation.asr.export import collect, export_sheets
    from annotation.asr.labels import import_labels
    from annotation.asr.reread import export_reread, transitions

    out = _fake_build(tmp_path)
    collect(out, split_seed=3)
    export_sheets(out, target_gaps=100, seed=1, gaps_per_sheet=100)
    with (out / "sheets" / "asr-sheet-01.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    changed = rows[0]["pair_id"]
    filled = []
    for r in rows:
        v2 = "T0" if r["pair_id"] == changed else "T2"
        filled.append(
            {**r, "tier_v1": "T2", "direction_v1": "", "readers_v1": "L1:T2", "note_v1": "",
             "tier_v2": v2, "direction_v2": "", "change_reason": "recoverable" if v2 == "T0" else ""}
        )  # fmt: skip
    src = tmp_path / "reread-07.v2.csv"

    def write(rows_: list[dict[str, str]]) -> None:
        with src.open("w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows_[0]))
            w.writeheader()
            w.writerows(rows_)

    write(filled)
    labels = tmp_path / "labels-v2"
    m = export_reread(src, labels, reader="R1")
    assert m["file"] == "reread-07.R1.csv" and m["rows"] == len(rows)
    assert transitions([labels / m["file"]]) == m["transitions"]
    n_changed = sum(r["pair_id"] == changed for r in rows)
    assert m["transitions"] == {"T2->T0": n_changed, "T2->T2": len(rows) - n_changed}
    import_labels(out, labels, tmp_path / "records.jsonl")
    records = {r.id: r for r in read_records(tmp_path / "records.jsonl")}
    assert set(records[changed].tiers) == {0} and records[changed].score == 0.0
    assert all(set(r.tiers) == {2} for pid, r in records.items() if pid != changed)
    # every change needs its reason; T2+ is not a position; an empty tier is an error
    for bad, msg in (
        ({"change_reason": ""}, "without a change_reason"),
        ({"tier_v2": "T2", "direction_v2": "+", "change_reason": ""}, "not a position"),
        ({"tier_v2": ""}, "tier_v2 must be"),
    ):
        write([{**filled[0], **bad}, *filled[1:]])
        with pytest.raises(InputError, match=msg):
            export_reread(src, tmp_path / "other", reader="R1")


def test_active_sheets_leave_out_labelled_references_and_tag_the_choice(tmp_path: Path) -> None:
    """``active-sheets``: labelled references are left out; the most uncertain reference (a gap
    whose expected step sits on the T1/T2 boundary) is chosen actively first; every reference is
    tagged active or random; the double-read share is marked; priorities follow the rule."""
    pytest.importorskip("sklearn")
    from annotation.asr.active import boundary_closeness, write_active_sheets
    from annotation.asr.export import collect
    from sitar.gapscore import predict_gaps

    assert boundary_closeness(4.5) == 1.0 and boundary_closeness(3.0) == 0.0
    assert boundary_closeness(1.5) == 1.0 and boundary_closeness(6.0) == 0.0

    class FakeScorer:
        signature = "fake-model"

        def analyze(self, *, references, hypotheses):
            out = []
            for r, h in zip(references, hypotheses, strict=True):
                seg = segment(r, h)
                e = 4.5 if "friday" in r.lower() else 6.0  # one reference on the boundary
                out.append(types.SimpleNamespace(raw=1.0, gaps=tuple(predict_gaps([e] * len(seg.gaps))),
                                                 segmentation=seg, identical=False))  # fmt: skip
            return tuple(out)

    out = _fake_build(tmp_path)
    collect(out, split_seed=3)
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "asr-sheet-01.L1.csv").write_text(
        "pair_id,gap_id,reference,hypothesis,tier\na/r0.f0,g1,x,y,T2\n", encoding="utf-8"
    )
    m = write_active_sheets(out, scorer=FakeScorer(), exclude_labels=[labels], target_gaps=4,
                            first_sheet=20, gaps_per_sheet=3, double_share=0.3, seed=1)  # fmt: skip
    rows = [json.loads(x) for f in m["sheets"]
            for x in (out / "sheets" / f["sheet"]).with_suffix(".pairs.jsonl").read_text("utf-8").splitlines()]  # fmt: skip
    assert all(not r["id"].endswith("/r0.f0") for r in rows)  # labelled reference left out
    assert rows[0]["id"].endswith("/r4.f0") and rows[0]["selection"] == "active"
    assert {r["selection"] for r in rows} <= {"active", "random"}
    assert m["gaps"] == m["gaps_active"] + m["gaps_random"] >= 4
    assert m["sheets"][0]["sheet"] == "asr-sheet-20.csv" and m["sheets"][0]["double"]
    assert m["model"] == "fake-model"
    assert (out / "sheets" / "asr-sheet-20.csv").is_file()
    with pytest.raises(InputError, match="larger --first-sheet"):
        write_active_sheets(out, scorer=FakeScorer(), exclude_labels=[labels], target_gaps=4,
                            first_sheet=20)  # fmt: skip


def test_active_sheets_split_a_small_pool_in_proportion(tmp_path: Path) -> None:
    """With fewer candidate gaps than asked for, half of what there is is chosen actively and
    the rest at random (not everything actively)."""
    pytest.importorskip("sklearn")
    from annotation.asr.active import write_active_sheets
    from annotation.asr.export import collect
    from sitar.gapscore import predict_gaps

    class FakeScorer:
        signature = "fake-model"

        def analyze(self, *, references, hypotheses):
            return tuple(
                types.SimpleNamespace(
                    raw=1.0, gaps=tuple(predict_gaps([3.0] * len(segment(r, h).gaps)))
                )
                for r, h in zip(references, hypotheses, strict=True)
            )

    out = _fake_build(tmp_path)
    collect(out, split_seed=3)
    labels = tmp_path / "labels"
    labels.mkdir()
    m = write_active_sheets(out, scorer=FakeScorer(), exclude_labels=[labels], target_gaps=10_000,
                            first_sheet=1, gaps_per_sheet=100)  # fmt: skip
    assert m["gaps_active"] > 0 and m["gaps_random"] > 0
    assert m["gaps_active"] + m["gaps_random"] == m["gaps"]
