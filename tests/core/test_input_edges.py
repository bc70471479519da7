"""Issue 13: input edge cases get a one-line error (exit 2) or a documented result, never a
traceback or a silently wrong reading; the CLI's flags mean the same thing in every subcommand."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import tomllib

import sitar.cli
from sitar import score_from_tiers
from sitar.errors import InputError
from sitar.io import read_lines, read_pairs

REPO = Path(__file__).resolve().parents[2]
TINY = str(REPO / "tests" / "fixtures" / "tiny_onnx")
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


# -- where inputs come from --------------------------------------------------------------------


def test_named_pipe_and_process_substitution(tmp_path):
    fifo = tmp_path / "ref.fifo"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w") as fh:
            fh.write("a b\nc d\n")

    t = threading.Thread(target=feed)
    t.start()
    assert read_lines(fifo) == ["a b", "c d"]
    t.join()
    proc = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m sitar gaps --ref-file <(printf 'do not\\n') "
         "--hyp-file <(printf 'do\\n') --jsonl-out"],
        capture_output=True, text=True, env=ENV,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert '"ref_text": "not"' in proc.stdout


def test_dev_stdin_and_dash(tmp_path):
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("do it\n")
    for name in ("-", "/dev/stdin"):
        proc = subprocess.run(
            [sys.executable, "-m", "sitar", "gaps", "--ref-file", name, "--hyp-file", str(hyp)],
            input="do not it\n", capture_output=True, text=True, env=ENV,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "[not]" in proc.stdout


def test_directory_is_not_not_found(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        read_lines(tmp_path)


def test_closed_stdin_in_process(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(InputError, match="standard input is closed"):
        read_lines("-")


# -- what inputs contain -----------------------------------------------------------------------


def test_cr_only_line_endings_split_like_others(tmp_path):
    path = tmp_path / "mac.txt"
    path.write_bytes(b"one\rtwo\rthree\r")
    assert read_lines(path) == ["one", "two", "three"]
    path.write_bytes(b"a\r\nb\nc\rd")
    assert read_lines(path) == ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ('{"id": "\\ud800", "reference": "a", "hypothesis": "b"}', "lone surrogate"),
        ('{"id": "u", "reference": "x\\udfff", "hypothesis": "b"}', "lone surrogate"),
        ('{"id": ' + "9" * 5000 + ', "reference": "a", "hypothesis": "b"}', "invalid JSON"),
        ("[" * 100000 + "]" * 100000, "nested too deeply|invalid JSON"),
    ],
)
def test_hostile_jsonl(tmp_path, line, match):
    path = tmp_path / "p.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(InputError, match=match):
        read_pairs(jsonl=path)


def test_lone_surrogate_on_the_command_line(capsys):
    code = sitar.cli.main(["gaps", "--ref", "a\udcff", "--hyp", "a"])
    err = capsys.readouterr().err
    assert code == 2 and "lone surrogate" in err and len(err.strip().splitlines()) == 1


def test_compare_jsonl_hostile_values(tmp_path):
    from sitar.commands.compare import read_system_inputs

    ref = tmp_path / "r.jsonl"
    ref.write_text('{"id": "u1", "reference": "a\\ud800"}\n')
    with pytest.raises(InputError, match="lone surrogate"):
        read_system_inputs(str(ref), [], "jsonl")
    ref.write_text("[" * 100000 + "\n")
    with pytest.raises(InputError, match="JSON"):
        read_system_inputs(str(ref), [], "jsonl")


@pytest.mark.parametrize("bad_id", ["#u1", "u#1", "a\tb", "a\nb", "a\rb"])
def test_tsv_refuses_ids_it_cannot_hold(tmp_path, capsys, bad_id):
    import json

    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": bad_id, "reference": "a b", "hypothesis": "a c"}) + "\n")
    code = sitar.cli.main(["score", "--jsonl", str(path), "--checkpoint", TINY])
    err = capsys.readouterr().err
    assert code == 2 and "--jsonl-out" in err and len(err.strip().splitlines()) == 1
    code = sitar.cli.main(
        ["score", "--jsonl", str(path), "--checkpoint", TINY, "--variant", "fp32", "--jsonl-out"]
    )
    out = capsys.readouterr().out
    assert code == 0 and json.loads(out.splitlines()[0])["id"] == bad_id


def test_tsv_reads_back_exactly_with_the_readme_recipe(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    ref = tmp_path / "ref.kaldi"
    hyp = tmp_path / "hyp.kaldi"
    ref.write_text("utt-1 do not send it\nutt_2 send it\n3 stop now\n")
    hyp.write_text("utt-1 do send it\nutt_2 send it\n3 stop\n")
    out = tmp_path / "s.tsv"
    argv = ["score", "--ref-file", str(ref), "--hyp-file", str(hyp), "--format", "kaldi"]
    assert sitar.cli.main([*argv, "--checkpoint", TINY, "--variant", "fp32", "-o", str(out)]) == 0
    table = pd.read_csv(out, sep="\t", comment="#", dtype={"id": str})
    assert list(table["id"]) == ["utt-1", "utt_2", "3"]


# -- Python API types --------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, 3, 2.5])
def test_score_from_tiers_types(bad):
    with pytest.raises(InputError, match="tiers must be a sequence"):
        score_from_tiers(bad)
    with pytest.raises(InputError, match="directions must be"):
        score_from_tiers([1], 7)


@pytest.mark.parametrize(
    ("returned", "match"),
    [
        (None, "not an array of numbers"),
        ("scores", "not an array of numbers"),
        (np.zeros((2, 2)), "shape"),
        (0.5, "shape"),
        (np.zeros(3), r"3 scores for 4 inputs \(the 2 pairs, then their 2 single-gap"),
    ],
)
def test_predict_fn_returning_the_wrong_thing(returned, match):
    from sitar.diagnostics import explain_many

    with pytest.raises(InputError, match=match):
        explain_many(lambda r, h: returned, references=["a b", "c"], hypotheses=["a", "c d"])


def test_bootstrap_upper_bound(capsys):
    from sitar.comparison import MAX_BOOTSTRAP, paired_bootstrap

    with pytest.raises(InputError, match="at most"):
        paired_bootstrap({"a": [0.1], "b": [0.2]}, n_bootstrap=MAX_BOOTSTRAP + 1)
    with pytest.raises(SystemExit) as e:
        sitar.cli.main(["compare", "--ref-file", "r", "--bootstrap", "1000000000"])
    assert e.value.code == 2 and "between 1 and" in capsys.readouterr().err


# -- one meaning per flag ----------------------------------------------------------------------


LONG_RUNNING = ("gaps", "score", "explain", "compare", "report")


@pytest.mark.parametrize("command", LONG_RUNNING)
def test_progress_and_quiet_everywhere(command):
    parser = sitar.cli.build_parser()
    base = [command] + (["--ref-file", "r", "-o", "x"] if command in ("compare", "report") else [])
    for flags, progress, quiet in (
        (["--progress"], True, False),
        (["--no-progress"], False, False),
        (["--quiet"], None, True),
        (["-q"], None, True),
    ):
        args = parser.parse_args([*base, *flags])
        assert args.progress is progress and args.quiet is quiet


@pytest.mark.parametrize("command", ["gaps", "score", "explain"])
def test_json_is_a_deprecated_alias_of_jsonl_out(command, capsys):
    parser = sitar.cli.build_parser()
    assert parser.parse_args([command, "--jsonl-out"]).as_jsonl is True
    args = parser.parse_args([command, "--json"])
    assert args.as_jsonl is True
    assert "--json is deprecated" in capsys.readouterr().err
    assert parser.parse_args([command]).as_jsonl is False


def test_format_means_the_input_format_and_defaults_to_text():
    parser = sitar.cli.build_parser()
    for command in ("gaps", "score", "explain"):
        assert parser.parse_args([command]).file_format is None  # text unless ambiguous
    for command in ("compare", "report"):
        args = parser.parse_args([command, "--ref-file", "r", "-o", "x"])
        assert args.file_format is None  # the same: no more kaldi default


def test_explain_progress_reaches_the_scorer(monkeypatch, tmp_path, capsys):
    import sitar.commands.explain as explain_cmd

    seen = {}

    class FakeScorer:
        analyzer = None
        signature = "sig"

        def score(self, *, references, hypotheses, batch_size=32, progress=False):
            seen["progress"] = progress
            from sitar.scorer import ScoreResult

            n = len(references)
            return ScoreResult(
                (0.5,) * n, (1.0,) * n, (False,) * n, (False,) * n, (1,) * n, 0.5, "m", "sig"
            )

    monkeypatch.setattr(explain_cmd, "load_scorer", lambda args: FakeScorer())
    assert sitar.cli.main(["explain", "--ref", "a b", "--hyp", "a c", "--progress"]) == 0
    assert seen["progress"] is True
    assert sitar.cli.main(["explain", "--ref", "a b", "--hyp", "a c", "--quiet"]) == 0
    assert seen["progress"] is False


def test_compare_without_jiwer_skips_wer_with_a_notice(monkeypatch, tmp_path, capsys):
    import sitar.commands.compare as compare_cmd

    seen = {}

    def fake_compare(source, **kw):
        seen.update(kw)

        class R:
            def to_dict(self):
                return {}

            def to_table(self):
                return "TABLE\n"

        return R()

    monkeypatch.setitem(sys.modules, "jiwer", None)
    monkeypatch.setattr("sitar.comparison.compare", fake_compare)
    monkeypatch.setattr(compare_cmd, "load_scorer", lambda args: None)
    ref = tmp_path / "ref.txt"
    ref.write_text("a b\n")
    argv = ["compare", "--ref-file", str(ref), "--system", f"A={ref}", "--system", f"B={ref}"]
    assert sitar.cli.main([*argv, "--format", "text"]) == 0
    out, err = capsys.readouterr()
    assert out == "TABLE\n" and "WER column is skipped" in err and seen["wer"] is False
    assert sitar.cli.main([*argv, "--format", "text", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_packaging_metadata():
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert meta["license"] == "Apache-2.0"  # SPDX string, not the deprecated table
    assert any(d.startswith("jiwer") for d in meta["dependencies"])  # compare on a plain install
    text = (REPO / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text


def test_argparse_namespace_unchanged_for_score_output():
    parser = sitar.cli.build_parser()
    args = parser.parse_args(["score", "-o", "-"])
    assert isinstance(args, argparse.Namespace) and args.output == "-"


def test_offline_hub_id_error_is_one_line_in_cli_terms(monkeypatch, capsys):
    pytest.importorskip("huggingface_hub")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    code = sitar.cli.main(["score", "--ref", "a", "--hyp", "b", "--checkpoint", "nobody/nothing"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--checkpoint PATH" in err and "local_files_only" not in err


def test_cli_errors_are_one_line_even_when_the_message_is_not(monkeypatch, capsys):
    import sitar.commands.gaps as gaps_cmd

    def boom(args, report=None):
        raise InputError("first line\nsecond line")

    monkeypatch.setattr(gaps_cmd, "pairs_from_args", boom)
    assert sitar.cli.main(["gaps", "--ref", "a", "--hyp", "b"]) == 2
    assert capsys.readouterr().err == "sitar gaps: error: first line second line\n"


def test_spacy_pipeline_message_names_the_flag():
    pytest.importorskip("spacy")
    from sitar.analyzers import get_analyzer

    with pytest.raises(InputError, match="--analyzer spacy:en_core_web_sm"):
        get_analyzer("spacy:xx_no_such_pipeline")
