"""`sitar explain`: readable and JSONL output."""

from __future__ import annotations

import argparse
import json

import pytest

import sitar.commands.explain as explain_cmd
from sitar.errors import InputError


@pytest.fixture
def parser(monkeypatch, tiny_scorer):
    from sitar.scorer import Scorer

    # The real loader, with the tests' stub analyzer (the default one imports spaCy: slow).
    monkeypatch.setattr(
        explain_cmd,
        "load_scorer",
        lambda args: Scorer.load(
            args.checkpoint, variant=args.variant, analyzer=tiny_scorer.analyzer
        ),
    )
    p = argparse.ArgumentParser(prog="sitar")
    explain_cmd.register(p.add_subparsers(dest="command"))
    return p


def _args(parser, tiny_scorer, *extra):
    return parser.parse_args(
        ["explain", "--checkpoint", str(tiny_scorer.config.folder), "--variant", "fp32", *extra]
    )


def test_explain_readable(parser, tiny_scorer, capsys):
    ref = "please send the report today. turn left at the light"
    hyp = "please do not send the report today. turn right at the light"
    assert explain_cmd.run(_args(parser, tiny_scorer, "--ref", ref, "--hyp", hyp)) == 0
    out = capsys.readouterr().out
    assert "id 1: score" in out and "2 gaps" in out
    assert "g0 insertion    '' -> 'do not'" in out and "g1 substitution 'left' -> 'right'" in out
    assert "est. T" in out and "3 model inputs" in out
    assert "cost: 1 pairs + 2 single-gap hypotheses = 3 model inputs" in out
    assert f"signature: {tiny_scorer.signature}" in out
    assert "REF: please [*]" in out


def test_explain_readable_gap_head_names_its_own_cost_and_rule(capsys):
    """With a gap-head checkpoint (the shipped default, through the real loader) the tiers come
    from the scoring pass: the footer must not describe single-gap hypotheses never scored."""
    pytest.importorskip("onnxruntime")
    parser = argparse.ArgumentParser(prog="sitar")
    explain_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["explain", "--ref", "Do not send it.", "--hyp", "Do send it, uh.", "--decode", "median"]
    )
    assert explain_cmd.run(args) == 0
    out = capsys.readouterr().out
    assert "cost: 1 pairs = 1 model inputs, the scoring pass itself" in out
    assert "single-gap" not in out and "(gap-head-median-step-1)" in out
    assert "|dec:median|" in out


def test_explain_jsonl_matches_api(parser, tiny_scorer, tmp_path, capsys):
    from sitar.diagnostics import explain

    jsonl = tmp_path / "pairs.jsonl"
    pairs = [
        {"id": "a", "reference": "call the bank today", "hypothesis": "call a bank today"},
        {"id": "b", "reference": "Same words.", "hypothesis": "same words"},
    ]
    jsonl.write_text("".join(json.dumps(p) + "\n" for p in pairs))
    out_file = tmp_path / "out.jsonl"
    args = _args(parser, tiny_scorer, "--jsonl", str(jsonl), "--jsonl-out", "-o", str(out_file))
    assert explain_cmd.run(args) == 0
    assert capsys.readouterr().out == ""
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [x.get("id") for x in lines[:2]] == ["a", "b"]
    api = explain(tiny_scorer, pairs[0]["reference"], pairs[0]["hypothesis"])
    assert lines[0]["score"] == pytest.approx(api.score, abs=1e-6)
    assert [g["score"] for g in lines[0]["gaps"]] == pytest.approx(
        [g.score for g in api.gaps], abs=1e-6
    )
    assert lines[1]["gaps"] == [] and lines[1]["score"] == 0.0
    summary = lines[2]["summary"]
    assert summary["n_pairs"] == 2 and summary["n_gaps"] == len(api.gaps)
    assert summary["n_model_inputs"] == 1 + len(api.gaps)
    assert summary["signature"] == tiny_scorer.signature


def test_explain_input_error(parser, tiny_scorer):
    with pytest.raises(InputError):
        explain_cmd.run(_args(parser, tiny_scorer, "--ref", "only a reference"))
