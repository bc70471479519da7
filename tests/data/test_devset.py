"""Tests for the hand-labelled dev set sitar-dev-v1 (annotation/devset/).

The committed JSONL must equal a fresh build; every reference expands into the 11 Appendix C
profiles with the right count vectors; edits are reversible; all pairs are unique; the targets
follow tier priority; and the source validator rejects malformed edits with typed errors.
"""

from __future__ import annotations

import copy
import importlib.util
import itertools
import json
import sys
from pathlib import Path

import pytest

from sitar.errors import InputError, RecordError
from sitar.signature import make_signature, parse_signature
from sitar.targets import MAX_SCORE, score_from_tiers

ROOT = Path(__file__).resolve().parents[2]
DEVSET = ROOT / "annotation" / "devset"


def _load_build():
    # annotation/ is not an installed package: load the builder from its file.
    name = "sitar_devset_build"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, DEVSET / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


build = _load_build()

#: Appendix C profile definitions, written out independently of build.PROFILES.
PROFILE_NAMES = {
    "a": "T0",
    "b": "2T0",
    "c": "T1",
    "d": "T1+T0",
    "e": "T1+2T0",
    "f": "T2",
    "g": "T2+T0",
    "h": "T2+2T0",
    "i": "T2+T1",
    "j": "T2+T1+T0",
    "k": "T2+T1+2T0",
}


def _counts_from_name(name: str) -> dict[str, int]:
    counts = {"c2": 0, "c1": 0, "c0": 0}
    for part in name.split("+"):
        n, tier = (int(part[0]), part[1:]) if part[0].isdigit() else (1, part)
        counts["c" + tier[1]] += n
    return counts


@pytest.fixture(scope="module")
def source():
    return build.load_source(build.SOURCE)


@pytest.fixture(scope="module")
def rows():
    lines = (DEVSET / "sitar_dev_v1.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def raw_source_lines():
    return [json.loads(x) for x in build.SOURCE.read_text(encoding="utf-8").splitlines()]


# ----------------------------------------------------------------------------- committed data


def test_committed_jsonl_equals_fresh_build(source):
    fresh = build.dumps_rows(build.build_rows(source))
    assert (DEVSET / "sitar_dev_v1.jsonl").read_bytes() == fresh.encode("utf-8")
    # A second build is byte-identical (no hidden state, stable order).
    assert build.dumps_rows(build.build_rows(build.load_source(build.SOURCE))) == fresh


def test_fifteen_references_times_eleven_profiles(rows, source):
    assert len(source) == 15
    assert len(rows) == 165
    ref_ids = [r.ref_id for r in source]
    assert ref_ids == [f"dev-{i:02d}" for i in range(1, 16)]
    expected_ids = [f"{ref}-{p}" for ref in ref_ids for p in "abcdefghijk"]
    assert [r["id"] for r in rows] == expected_ids
    assert len({r.domain for r in source}) == 7


def test_references_are_new_and_realistic_length(source):
    paper_ref27 = "I haven’t approved the draft yet."
    for ref in source:
        assert paper_ref27 not in ref.reference
        assert "draft" not in ref.reference.casefold()
        n_words = len(ref.reference.split())
        assert 30 <= n_words <= 70, (ref.ref_id, n_words)


def test_count_vectors_match_profile_definitions(rows):
    for r in rows:
        expected = _counts_from_name(PROFILE_NAMES[r["profile"]])
        assert r["counts"] == expected, r["id"]
        assert sorted(r["tiers"], reverse=True) == sorted(
            [2] * expected["c2"] + [1] * expected["c1"] + [0] * expected["c0"], reverse=True
        )
        assert r["directions"] == [0] * len(r["tiers"])
        assert len(r["edits"]) == len(r["tiers"]) == len(r["hyp_spans"])


def test_single_t0_profiles_use_the_earlier_t0_edit(rows, source):
    by_id = {ref.ref_id: ref for ref in source}
    for ref in source:
        assert ref.edit("E0a").start < ref.edit("E0b").start
        assert {ref.edit("E0a").kind, ref.edit("E0b").kind} == {"repetition", "filled_pause"}
    for r in rows:
        t0 = [e for e in r["edits"] if e.startswith("E0")]
        if r["counts"]["c0"] == 1:
            assert t0 == ["E0a"], r["id"]
        # Edits are listed in reference character order.
        ref = by_id[r["ref_id"]]
        starts = [ref.edit(e).start for e in r["edits"]]
        assert starts == sorted(starts)


def test_scores_are_the_spec_targets(rows):
    worked = {"a": 0.0, "b": 1 / 6, "c": 1.0, "f": 2.0, "h": 2.0625}
    for r in rows:
        assert r["score"] == score_from_tiers(r["tiers"], r["directions"], rho=0.5)
        assert r["normalized"] == pytest.approx(r["score"] / MAX_SCORE, abs=1e-15)
        if r["profile"] in worked:
            assert r["score"] == pytest.approx(worked[r["profile"]], abs=1e-12)


def test_signature_recorded_in_every_row(rows):
    expected = make_signature(analyzer="none", rho=0.5)
    assert {r["signature"] for r in rows} == {expected}
    fields = parse_signature(expected)
    assert fields["analyzer"] == "none" and fields["rho"] == "0.5"
    assert {r["dataset"] for r in rows} == {"sitar-dev-v1"}


# ----------------------------------------------------------------------------- reversibility


def test_applying_edits_and_reverting_them(rows, source):
    by_id = {ref.ref_id: ref for ref in source}
    for r in rows:
        ref = by_id[r["ref_id"]]
        edits = [ref.edit(e) for e in r["edits"]]
        # Independent re-application, right to left on the reference.
        text = ref.reference
        for e in sorted(edits, key=lambda e: e.start, reverse=True):
            text = text[: e.start] + e.new_text + text[e.end :]
        assert text == r["hypothesis"], r["id"]
        # Reversal from the recorded hypothesis spans rebuilds the reference exactly.
        back = r["hypothesis"]
        for e, (s, t) in sorted(
            zip(edits, r["hyp_spans"], strict=True), key=lambda x: x[1][0], reverse=True
        ):
            assert back[s:t] == e.new_text
            back = back[:s] + e.ref_text + back[t:]
        assert back == ref.reference, r["id"]
    for ref in source:
        assert build.apply_edits(ref.reference, ref.edits).hypothesis == ref.hypothesis_k


def test_revert_edits_detects_a_tampered_hypothesis(source):
    ref = source[0]
    variant = build.apply_edits(ref.reference, ref.edits)
    assert build.revert_edits(variant) == ref.reference
    (s, t) = variant.hyp_spans[0]
    tampered = build.AppliedVariant(
        variant.hypothesis[:s] + "X" * (t - s) + variant.hypothesis[t:],
        variant.edits,
        variant.hyp_spans,
    )
    with pytest.raises(InputError, match="expected"):
        build.revert_edits(tampered)


# ----------------------------------------------------------------------------- uniqueness


def test_all_pairs_and_k_variants_are_unique(rows):
    pairs = [(r["reference"], r["hypothesis"]) for r in rows]
    assert len(set(pairs)) == 165
    assert all(r["reference"] != r["hypothesis"] for r in rows)
    hyps = [r["hypothesis"] for r in rows]
    for r in rows:
        if r["profile"] == "k":
            assert hyps.count(r["hypothesis"]) == 1


def test_duplicate_pairs_are_rejected(source):
    rows = build.build_rows(source[:1])
    with pytest.raises(InputError, match="not unique"):
        build._check_unique([*rows, dict(rows[0])])


# ----------------------------------------------------------------------------- tier priority


def test_scores_follow_tier_priority(rows):
    by_ref: dict[str, list[dict]] = {}
    for r in rows:
        by_ref.setdefault(r["ref_id"], []).append(r)
    for ref_id, variants in by_ref.items():
        assert len(variants) == 11
        t2 = [v["score"] for v in variants if v["counts"]["c2"] > 0]
        t1 = [v["score"] for v in variants if v["counts"]["c2"] == 0 and v["counts"]["c1"] > 0]
        t0 = [v["score"] for v in variants if v["counts"]["c2"] == v["counts"]["c1"] == 0]
        assert (len(t2), len(t1), len(t0)) == (6, 3, 2)
        assert min(t2) > max(t1) > max(t0), ref_id
        # SPEC §8 controlled ordering on the targets: strict agreement on every comparable pair.
        for u, v in itertools.combinations(variants, 2):
            ku = (u["counts"]["c2"], u["counts"]["c1"], u["counts"]["c0"])
            kv = (v["counts"]["c2"], v["counts"]["c1"], v["counts"]["c0"])
            assert ku != kv
            assert (ku > kv) == (u["score"] > v["score"]), (u["id"], v["id"])


# ----------------------------------------------------------------------------- validation


def _mutate(line: dict, edit_id: str | None = None, **changes) -> dict:
    line = copy.deepcopy(line)
    target = line if edit_id is None else next(e for e in line["edits"] if e["edit_id"] == edit_id)
    target.update(changes)
    return line


def test_source_lines_are_valid(raw_source_lines):
    for i, line in enumerate(raw_source_lines):
        ref = build.parse_source_line(line, where=f"line {i + 1}")
        assert ref.ref_id == line["ref_id"]
        assert all(e.reason and "\n" not in e.reason for e in ref.edits)


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        (lambda x: _mutate(x, "E1", ref_text="something else"), "differs from the reference"),
        (lambda x: _mutate(x, "E2", tier=1), "tier must be 2"),
        (lambda x: _mutate(x, "E0a", reason=""), "one non-empty line"),
        (lambda x: _mutate(x, "E0a", new_text="uh,"), "end with one space"),
        (lambda x: _mutate(x, hypothesis_k=x["hypothesis_k"] + "!"), "hypothesis_k"),
        (lambda x: _mutate(x, domain="sports"), "domain must be"),
        (lambda x: _mutate(x, edits=x["edits"][:3]), "edits must be exactly"),
        (lambda x: _mutate(x, extra="field"), "unexpected"),
    ],
)
def test_malformed_source_lines_raise_record_error(raw_source_lines, mutation, message):
    with pytest.raises(RecordError, match=message):
        build.parse_source_line(mutation(raw_source_lines[0]))


def _edit(line: dict, edit_id: str) -> dict:
    return next(e for e in line["edits"] if e["edit_id"] == edit_id)


def test_wrong_repetition_and_filler_are_rejected(raw_source_lines):
    line = raw_source_lines[0]  # dev-01: E0a is the repetition, E0b the filled pause
    assert _edit(line, "E0a")["kind"] == "repetition"
    with pytest.raises(RecordError, match="repetition must insert the next word"):
        build.parse_source_line(_mutate(line, "E0a", new_text="a "))
    with pytest.raises(RecordError, match="filled pause must insert"):
        build.parse_source_line(_mutate(line, "E0b", new_text="so "))


def test_swapped_t0_order_is_rejected(raw_source_lines):
    line = copy.deepcopy(raw_source_lines[0])
    e0a, e0b = _edit(line, "E0a"), _edit(line, "E0b")
    e0a["edit_id"], e0b["edit_id"] = "E0b", "E0a"
    with pytest.raises(RecordError, match="E0a must be the earlier"):
        build.parse_source_line(line)


def test_edits_too_close_or_cutting_tokens_are_rejected(raw_source_lines):
    line = raw_source_lines[0]
    ref = line["reference"]
    # Move E2 (a substitution) next to E1: fewer than two unchanged words in between.
    e1 = _edit(line, "E1")
    s = e1["ref_span"][1] + 1
    t = ref.index(" ", s)
    close = _mutate(line, "E2", ref_span=[s, t], ref_text=ref[s:t])
    close["hypothesis_k"] = build.apply_edits(
        ref, [build._parse_edit(e, ref, "x") for e in close["edits"]]
    ).hypothesis
    with pytest.raises(RecordError, match="separated by at least 2"):
        build.parse_source_line(close)
    # A span boundary inside a word.
    s, t = _edit(line, "E2")["ref_span"]
    cut = _mutate(line, "E2", ref_span=[s + 1, t], ref_text=ref[s + 1 : t])
    with pytest.raises(RecordError, match="cuts the token"):
        build.parse_source_line(cut)


def test_load_source_rejects_duplicates_and_bad_json(tmp_path, raw_source_lines):
    dup = tmp_path / "dup.jsonl"
    dup.write_text("\n".join(json.dumps(x) for x in raw_source_lines[:1] * 2) + "\n")
    with pytest.raises(RecordError, match="duplicate ref_id"):
        build.load_source(dup)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(RecordError, match=r"bad.jsonl:1: invalid JSON"):
        build.load_source(bad)
    with pytest.raises(InputError, match="cannot read"):
        build.load_source(tmp_path / "missing.jsonl")


# ----------------------------------------------------------------------------- CLI and CGD table


def test_cli_check_and_write(tmp_path, capsys):
    assert build.main(["--check", "--no-cgd"]) == 0
    out = tmp_path / "dev.jsonl"
    assert build.main(["--output", str(out), "--no-cgd"]) == 0
    assert out.read_bytes() == (DEVSET / "sitar_dev_v1.jsonl").read_bytes()
    out.write_text(out.read_text(encoding="utf-8").replace('"score"', '"scor"', 1), "utf-8")
    assert build.main(["--check", "--output", str(out), "--no-cgd"]) == 1
    bad = tmp_path / "src.jsonl"
    bad.write_text("[]\n")
    assert build.main(["--source", str(bad), "--output", str(out), "--no-cgd"]) == 2
    assert "expected a JSON object" in capsys.readouterr().err


def test_cgd_finds_one_gap_per_edit_with_a_predicate_free_analyzer(rows):
    """With no predicates CGD consolidates as much as it can; the edits are placed so that an
    informational boundary still separates every pair of edits (informative check, SPEC §3)."""

    class NoPredicates:
        id = "no-predicates-test"

        def predicates(self, text, tokens):
            return frozenset()

    report = build.cgd_report(rows, analyzer=NoPredicates())
    assert [item["id"] for item in report] == [r["id"] for r in rows]
    assert [item["n_edits"] for item in report] == [len(r["edits"]) for r in rows]
    mismatched = [item["id"] for item in report if not item["match"]]
    assert mismatched == []
    table = build.format_cgd_report(report)
    assert "165/165" in table and "dev-15" in table
