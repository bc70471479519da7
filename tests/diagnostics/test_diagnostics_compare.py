"""compare / paired_bootstrap / WER / groups, and the `sitar compare` command."""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
import pytest

from sitar.comparison import (
    compare,
    compare_scores,
    join_by_id,
    paired_bootstrap,
    word_error_counts,
)
from sitar.errors import InputError, MissingDependencyError


def _scores(seed: int, n: int = 50) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.0, 0.5, n)
    return {"A": a, "B": np.clip(a + rng.normal(0.05, 0.05, n), 0, 1), "C": a[::-1].copy()}


def test_bootstrap_is_deterministic_for_a_seed():
    s = _scores(1)
    one = paired_bootstrap(s, n_bootstrap=300, seed=7)
    two = paired_bootstrap(s, n_bootstrap=300, seed=7)
    other = paired_bootstrap(s, n_bootstrap=300, seed=8)
    assert one == two
    assert one[0] != other[0]
    ids = [f"u{i}" for i in range(50)]
    c1 = compare_scores(s, ids=ids, n_bootstrap=200, seed=3, signature="sig")
    c2 = compare_scores(s, ids=ids, n_bootstrap=200, seed=3, signature="sig")
    assert json.dumps(c1.to_dict()) == json.dumps(c2.to_dict())
    assert c1.to_table() == c2.to_table()


def test_bootstrap_statistics_definitions():
    a = np.array([0.0, 0.0, 0.5, 0.2])
    b = np.array([0.2, 0.0, 0.1, 0.3])
    cis, (pair,) = paired_bootstrap({"A": a, "B": b}, n_bootstrap=500, seed=0)
    assert (pair.win_a, pair.win_b, pair.ties) == (0.5, 0.25, 0.25)
    assert pair.diff == pytest.approx(a.mean() - b.mean())
    lo, hi = cis["A"]
    assert 0.0 <= lo <= a.mean() <= hi <= 0.5
    # B = A + a constant: every resample keeps the sign, so p is the smallest possible value.
    cis, (pair,) = paired_bootstrap({"A": a, "B": a + 0.1}, n_bootstrap=999, seed=0)
    assert pair.p_value == pytest.approx(2 / 1000)
    assert pair.significant and pair.better == "A"
    assert pair.diff_ci[0] == pytest.approx(-0.1) and pair.diff_ci[1] == pytest.approx(-0.1)
    # Identical systems: zero difference, p = 1, all ties.
    _, (pair,) = paired_bootstrap({"A": a, "B": a.copy()}, n_bootstrap=100, seed=0)
    assert pair.p_value == 1.0 and not pair.significant and pair.ties == 1.0
    assert pair.better is None


def test_bootstrap_edge_cases():
    cis, (pair,) = paired_bootstrap({"A": [], "B": []}, n_bootstrap=10, seed=0)
    assert math.isnan(cis["A"][0]) and math.isnan(pair.p_value)
    for bad in ({"n_bootstrap": 0}, {"seed": -1}, {"confidence": 1.0}, {"seed": True}):
        with pytest.raises(InputError):
            paired_bootstrap({"A": [0.1]}, **bad)
    with pytest.raises(InputError):
        paired_bootstrap({"A": [0.1, 0.2], "B": [0.1]})


def test_negation_flips_make_b_significantly_worse_with_tiny_model(tiny_scorer, corpus):
    refs, a, b = corpus
    result = compare(tiny_scorer, references=refs, systems={"A": a, "B": b}, seed=0)
    (pair,) = result.pairwise
    assert pair.a == "A" and pair.b == "B"
    assert pair.diff < 0 and pair.significant and pair.better == "A"
    assert pair.p_value < 0.05 and pair.diff_ci[1] < 0
    assert result.system("A").mean < result.system("B").mean
    assert pair.win_b == 0.0  # B equals A except where it is worse
    assert result.signature == tiny_scorer.signature


def test_negation_flips_with_predict_fn_double(fake_predict, corpus):
    refs, a, b = corpus
    result = compare(
        fake_predict, references=refs, systems={"A": a, "B": b}, seed=0, n_bootstrap=500
    )
    (pair,) = result.pairwise
    assert pair.significant and pair.better == "A"
    assert fake_predict.calls == [2 * len(refs)]  # both systems in one scoring call
    # 12 of 40 utterances carry a negation flip (T2 band); A has none.
    assert result.system("B").meaning_critical_rate == pytest.approx(12 / 40)
    assert result.system("A").meaning_critical_rate == 0.0
    assert pair.win_a == pytest.approx(12 / 40) and pair.ties == pytest.approx(28 / 40)


def test_missing_and_extra_ids_are_named(fake_predict, corpus):
    refs, a, b = corpus
    b = dict(b)
    del b["u07"]
    b["zz9"] = "stray hypothesis"
    with pytest.raises(InputError) as info:
        compare(fake_predict, references=refs, systems={"A": a, "B": b})
    message = str(info.value)
    assert "'u07'" in message and "'zz9'" in message and "'B'" in message
    assert "system 'A'" not in message  # A is complete, so it is not blamed
    with pytest.raises(InputError, match="at least two"):
        compare(fake_predict, references=refs, systems={"A": a})
    ids, joined = join_by_id({"x": "r1", "y": "r2"}, {"S": {"y": "h2", "x": "h1"}})
    assert ids == ["x", "y"] and joined == {"S": ["h1", "h2"]}


def test_wer_column_uses_normalised_tokens(fake_predict):
    refs = {"1": "Hello, World!", "2": "turn left now", "3": ""}
    sys_a = {"1": "hello world", "2": "turn right now", "3": ""}
    sys_b = {"1": "hello", "2": "turn left now", "3": "uh"}
    result = compare(fake_predict, references=refs, systems={"A": sys_a, "B": sys_b})
    assert result.system("A").wer == pytest.approx(1 / 5)
    assert result.system("B").wer == pytest.approx(2 / 5)  # one deletion, one insertion
    errors, words = word_error_counts(
        references=list(refs.values()), hypotheses=list(sys_b.values())
    )
    assert errors.tolist() == [1, 0, 1] and words.tolist() == [2, 3, 0]
    no_wer = compare(fake_predict, references=refs, systems={"A": sys_a, "B": sys_b}, wer=False)
    assert no_wer.system("A").wer is None


def test_wer_needs_jiwer(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "jiwer", None)
    with pytest.raises(MissingDependencyError, match=r"sitar\[report\]"):
        word_error_counts(references=["a"], hypotheses=["b"])


def test_groups_breakdown(fake_predict, corpus):
    refs, a, b = corpus
    groups = {u: ("spk1" if i < 20 else "spk2") for i, u in enumerate(refs)}
    groups["not-in-corpus"] = "spk3"
    result = compare(
        fake_predict, references=refs, systems={"A": a, "B": b}, groups=groups, n_bootstrap=200
    )
    assert result.to_dict()["group_ids_not_in_utterances"] == 1
    assert [g.group for g in result.groups] == ["spk1", "spk2"]
    assert [g.n for g in result.groups] == [20, 20]
    b_means = [g.systems[1].mean for g in result.groups]
    overall = result.system("B").mean
    assert overall == pytest.approx(sum(b_means) / 2)
    d = result.to_dict()
    assert d["groups"][0]["systems"][0]["name"] == "A" and d["seed"] == 0
    del groups["u03"]
    with pytest.raises(InputError, match="'u03'"):
        compare(fake_predict, references=refs, systems={"A": a, "B": b}, groups=groups)


def _compare_parser():
    from sitar.commands import compare as compare_cmd

    parser = argparse.ArgumentParser(prog="sitar")
    sub = parser.add_subparsers(dest="command")
    compare_cmd.register(sub)
    return parser


def _write_kaldi(path, table):
    path.write_text("".join(f"{k} {v}\n" for k, v in table.items()), encoding="utf-8")
    return str(path)


def test_compare_command_table_and_json(tmp_path, tiny_scorer, corpus, capsys, monkeypatch):
    import sitar.commands.compare as compare_cmd

    loaded = []

    def load_tiny(args):
        # The real loader with the tests' stub analyzer: the default one imports spaCy (slow).
        from sitar.scorer import Scorer

        loaded.append(args.checkpoint)
        return Scorer.load(args.checkpoint, variant=args.variant, analyzer=tiny_scorer.analyzer)

    monkeypatch.setattr(compare_cmd, "load_scorer", load_tiny)
    refs, a, b = corpus
    ref_file = _write_kaldi(tmp_path / "ref.txt", refs)
    a_file = _write_kaldi(tmp_path / "a.txt", a)
    b_file = _write_kaldi(tmp_path / "b.txt", b)
    (tmp_path / "groups.txt").write_text(
        "".join(f"{u} {'dom1' if i % 2 else 'dom2'}\n" for i, u in enumerate(refs))
    )
    from sitar.commands.compare import run

    common = [
        "compare",
        "--ref-file",
        ref_file,
        "--system",
        f"A={a_file}",
        "--system",
        f"B={b_file}",
        "--checkpoint",
        str(tiny_scorer.config.folder),
        "--variant",
        "fp32",
        "--seed",
        "5",
        "--bootstrap",
        "200",
        "--format",
        "kaldi",
    ]
    args = _compare_parser().parse_args([*common, "--groups", str(tmp_path / "groups.txt")])
    assert run(args) == 0
    table = capsys.readouterr().out
    assert "A vs B" in table and "seed 5" in table and "signature: sitar:" in table
    assert "group 'dom1'" in table and "WER" in table and "MCR" in table
    out_json = tmp_path / "c.json"
    args = _compare_parser().parse_args([*common, "--json", "--json-out", str(out_json)])
    assert run(args) == 0
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads(out_json.read_text())
    assert printed == saved
    assert saved["seed"] == 5 and saved["n_bootstrap"] == 200 and saved["n_utterances"] == 40
    assert saved["signature"] == tiny_scorer.signature
    assert saved["pairwise"][0]["better"] == "A"
    assert loaded == [str(tiny_scorer.config.folder)] * 2


def test_compare_command_input_errors(tmp_path):
    from sitar.commands.compare import run

    ref = _write_kaldi(tmp_path / "ref.txt", {"u1": "a b", "u2": "c d"})
    hyp = _write_kaldi(tmp_path / "h.txt", {"u1": "a b", "u3": "c d"})
    args = _compare_parser().parse_args(
        [
            "compare",
            "--ref-file",
            ref,
            "--system",
            f"A={hyp}",
            "--system",
            f"B={ref}",
            "--format",
            "kaldi",
        ]
    )
    with pytest.raises(InputError, match="'u2'.*'u3'"):
        run(args)
    # without --format, such files (every line a different id-like first word) are ambiguous
    args = _compare_parser().parse_args(
        ["compare", "--ref-file", ref, "--system", f"A={hyp}", "--system", f"B={ref}"]
    )
    with pytest.raises(InputError, match="--format text or --format kaldi"):
        run(args)
    args = _compare_parser().parse_args(["compare", "--ref-file", ref, "--system", f"A={hyp}"])
    with pytest.raises(InputError, match="at least two"):
        run(args)
    args = _compare_parser().parse_args(
        ["compare", "--ref-file", ref, "--system", f"A{hyp}", "--system", f"B={ref}"]
    )
    with pytest.raises(InputError, match="NAME=PATH"):
        run(args)


def test_system_inputs_text_and_jsonl(tmp_path):
    from sitar.commands.compare import read_system_inputs

    (tmp_path / "r.txt").write_text("one two\n\nthree\n")
    (tmp_path / "h.txt").write_text("one\nx\nthree\n")
    refs, systems = read_system_inputs(str(tmp_path / "r.txt"), [f"S={tmp_path / 'h.txt'}"], "text")
    assert refs == {"1": "one two", "2": "", "3": "three"}
    assert systems == {"S": {"1": "one", "2": "x", "3": "three"}}
    (tmp_path / "r.jsonl").write_text('{"id": "a", "reference": "x y"}\n')
    (tmp_path / "h.jsonl").write_text('{"id": "a", "hypothesis": "x z"}\n')
    refs, systems = read_system_inputs(
        str(tmp_path / "r.jsonl"), [f"S={tmp_path / 'h.jsonl'}"], "jsonl"
    )
    assert refs == {"a": "x y"} and systems == {"S": {"a": "x z"}}
    (tmp_path / "bad.jsonl").write_text('{"id": "a", "text": "x z"}\n')
    with pytest.raises(InputError, match="hypothesis"):
        read_system_inputs(str(tmp_path / "r.jsonl"), [f"S={tmp_path / 'bad.jsonl'}"], "jsonl")


@pytest.mark.parametrize("name", ["compare", "compare_scores", "paired_bootstrap", "Comparison"])
def test_comparison_names_moved_from_diagnostics_still_import_with_a_warning(name):
    import sitar.comparison
    import sitar.diagnostics

    with pytest.warns(
        DeprecationWarning, match=f"sitar.diagnostics.{name} moved to sitar.comparison"
    ):
        old = getattr(sitar.diagnostics, name)
    assert old is getattr(sitar.comparison, name)
    with pytest.raises(AttributeError):
        sitar.diagnostics.no_such_name  # noqa: B018
