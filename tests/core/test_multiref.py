"""Several references per utterance (issue #32 item 2): :mod:`sitar.multiref` and the metric."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import sitar.cli
from sitar import metric
from sitar.errors import InputError
from sitar.multiref import check_reference_lists, choose, score_multi
from sitar.result import system_score
from sitar.scorer import Scorer

HYPS = ["turn right at the bank", "the meeting is at nine"]
REFS = [
    ["turn left at the bank", "turn right at the bank"],
    ["the meeting is at five"],
]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def scorer():
    return Scorer.load()


def test_choose_takes_the_lowest_score():
    assert choose([0.5, 0.1, 0.3]) == 1


def test_choose_breaks_a_score_tie_by_the_lowest_swer():
    assert choose([0.2, 0.2, 0.1 + 0.3], [0.4, 0.1, 0.0]) == 1


def test_choose_breaks_a_full_tie_by_the_first_reference():
    assert choose([0.2, 0.2, 0.2], [0.1, 0.1, 0.1]) == 0
    assert choose([0.3, 0.2, 0.2]) == 1


def test_choose_needs_a_candidate():
    with pytest.raises(InputError):
        choose([])


@pytest.mark.parametrize(
    ("references", "message"),
    [
        ("abc", "references must be a list"),
        ([["a"], []], r"references\[1\] is empty"),
        ([["a", 3]], r"references\[0\]\[1\] must be a str"),
        ([["a"]], "same length"),
    ],
)
def test_bad_reference_lists_are_input_errors(references, message):
    with pytest.raises(InputError, match=message):
        check_reference_lists(references, 2 if message == "same length" else len(references))


def test_score_multi_scores_all_pairs_in_one_call_and_keeps_the_closest(scorer, monkeypatch):
    calls = []
    real = scorer.score

    def spy(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(scorer, "score", spy)
    multi = score_multi(scorer, references=REFS, hypotheses=HYPS)
    assert len(calls) == 1 and len(calls[0]["references"]) == 3
    assert multi.chosen == (1, 0)
    assert multi.references == ("turn right at the bank", "the meeting is at five")
    single = real(references=list(multi.references), hypotheses=HYPS)
    assert multi.result.scores == single.scores and multi.result.scores[0] == 0.0
    assert multi.result.system_score == single.system_score == system_score(single.scores)
    assert multi.result.swer == single.swer
    assert multi.result.system_swer == single.system_swer


def test_a_bare_string_is_one_candidate(scorer):
    multi = score_multi(scorer, references=["turn left at the bank"], hypotheses=HYPS[:1])
    assert multi.chosen == (0,)


def test_zero_utterances(scorer):
    multi = score_multi(scorer, references=[], hypotheses=[])
    assert multi.chosen == () and math.isnan(multi.result.system_score)


def test_compute_takes_lists_of_references_and_says_which_was_chosen():
    out = metric.compute(predictions=HYPS, references=REFS)
    assert out["chosen_reference"] == [1, 0]
    plain = metric.compute(predictions=HYPS, references=[REFS[0][1], REFS[1][0]])
    assert "chosen_reference" not in plain
    assert out["scores"] == plain["scores"] and out["score"] == plain["score"]
    assert out["swer"] == plain["swer"]


def test_compute_with_a_bad_reference_list_is_an_input_error():
    with pytest.raises(InputError, match=r"references\[1\] is empty"):
        metric.compute(predictions=HYPS, references=[["a"], []])
    with pytest.raises(InputError, match="same length"):
        metric.compute(predictions=HYPS, references=[["a"]])


# -- the command line: `sitar score` with several --ref-file, or a JSONL reference list ---------

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx"
MODEL = ["--checkpoint", str(TINY), "--variant", "fp32", "--head", "pair"]


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    hyp = _write(tmp_path / "hyp.txt", ["turn right at the light", "call me at nine"])
    r1 = _write(tmp_path / "r1.txt", ["turn left at the light", "call me at nine"])
    r2 = _write(tmp_path / "r2.txt", ["turn right at the light", "call me at five"])
    return hyp, r1, r2


def _rows(out: str) -> list[list[str]]:
    return [line.split("\t") for line in out.splitlines() if not line.startswith("#")]


def test_cli_two_reference_files_pick_the_closest_and_say_which(files, capsys):
    hyp, r1, r2 = files
    argv = ["score", "--ref-file", r1, "--ref-file", r2, "--hyp-file", hyp, *MODEL]
    assert sitar.cli.main(argv) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    assert rows[0] == ["id", "score", "raw", "windowed", "ref"]
    assert [(r[0], r[1], r[4]) for r in rows[1:]] == [
        ("1", "0.000000", "2"),
        ("2", "0.000000", "1"),
    ]
    assert "#system\t0.000000\t" in out
    assert sitar.cli.main([*argv, "--jsonl-out"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["reference_index"] for r in records[:2]] == [2, 1]
    assert "reference_index" not in records[2] and records[2]["n_pairs"] == 2


def test_cli_one_reference_file_output_is_unchanged(files, capsys):
    hyp, r1, _ = files
    assert sitar.cli.main(["score", "--ref-file", r1, "--hyp-file", hyp, *MODEL]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows[0] == ["id", "score", "raw", "windowed"] and len(rows[1]) == 4


def test_cli_reference_files_with_other_ids_are_refused(files, tmp_path, capsys):
    hyp, r1, _ = files
    r3 = _write(tmp_path / "r3.txt", ["only one line"])
    argv = ["score", "--ref-file", r1, "--ref-file", r3, "--hyp-file", hyp, *MODEL]
    assert sitar.cli.main(argv) != 0
    assert "differ in length" in capsys.readouterr().err


def test_cli_several_references_with_a_system(files, capsys):
    hyp, r1, r2 = files
    argv = ["score", "--ref-file", r1, "--ref-file", r2, "--system", f"A={hyp}", *MODEL]
    assert sitar.cli.main(argv) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows[0] == ["system", "id", "score", "raw", "windowed", "ref"]
    assert [(r[0], r[1], r[5]) for r in rows[1:]] == [("A", "1", "2"), ("A", "2", "1")]


def test_cli_several_references_need_the_hypotheses(files, capsys):
    _, r1, r2 = files
    assert sitar.cli.main(["score", "--ref-file", r1, "--ref-file", r2, *MODEL]) == 2
    assert "several --ref-file need the hypotheses in --hyp-file" in capsys.readouterr().err


def test_other_single_valued_flags_still_refuse_repeats(files, capsys):
    hyp, r1, _ = files
    with pytest.raises(SystemExit) as info:
        sitar.cli.main(["score", "--ref-file", r1, "--hyp-file", hyp, "--hyp-file", hyp])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        sitar.cli.main(["gaps", "--ref-file", r1, "--ref-file", r1, "--hyp-file", hyp])
    assert "--ref-file was given more than once" in capsys.readouterr().err


def test_cli_jsonl_reference_lists(tmp_path, capsys):
    lines = [
        {"id": "a", "reference": ["turn left", "turn right"], "hypothesis": "turn right"},
        {"id": "b", "reference": "call me at nine", "hypothesis": "call me at nine"},
    ]
    path = _write(tmp_path / "p.jsonl", [json.dumps(line) for line in lines])
    assert sitar.cli.main(["score", "--jsonl", path, *MODEL]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows[0][-1] == "ref" and [(r[0], r[4]) for r in rows[1:]] == [("a", "2"), ("b", "1")]
    bad = _write(tmp_path / "bad.jsonl", ['{"id": "a", "reference": [], "hypothesis": "x"}'])
    assert sitar.cli.main(["score", "--jsonl", bad, *MODEL]) != 0
    assert "bad.jsonl:1: reference is an empty list" in capsys.readouterr().err
    bad = _write(tmp_path / "bad2.jsonl", ['{"id": "a", "reference": ["x", 1], "hypothesis": "x"}'])
    assert sitar.cli.main(["score", "--jsonl", bad, *MODEL]) != 0
    assert "reference[1] must be a string" in capsys.readouterr().err
    # other commands keep refusing a list
    assert sitar.cli.main(["gaps", "--jsonl", path]) != 0
    assert "reference must be a string" in capsys.readouterr().err


def test_cli_jsonl_with_single_references_is_unchanged(tmp_path, capsys):
    line = {"id": "a", "reference": "turn left", "hypothesis": "turn right"}
    path = _write(tmp_path / "p.jsonl", [json.dumps(line)])
    assert sitar.cli.main(["score", "--jsonl", path, *MODEL]) == 0
    assert _rows(capsys.readouterr().out)[0] == ["id", "score", "raw", "windowed"]


def test_cli_kaldi_reference_files_are_joined_by_id(tmp_path, capsys):
    hyp = _write(tmp_path / "h.kaldi", ["u1 turn right", "u2 call me at nine"])
    r1 = _write(tmp_path / "r1.kaldi", ["u2 call me at nine", "u1 turn left"])
    r2 = _write(tmp_path / "r2.kaldi", ["u1 turn right", "u2 call me at five"])
    argv = ["score", "--ref-file", r1, "--ref-file", r2, "--hyp-file", hyp, "--format", "kaldi"]
    assert sitar.cli.main([*argv, *MODEL]) == 0
    rows = _rows(capsys.readouterr().out)
    assert {(r[0], r[1], r[4]) for r in rows[1:]} == {
        ("u1", "0.000000", "2"),
        ("u2", "0.000000", "1"),
    }
    r3 = _write(tmp_path / "r3.kaldi", ["u1 turn right", "u3 call me at five"])
    assert sitar.cli.main([*argv[:4], r3, *argv[5:], *MODEL]) != 0
    assert "do not match" in capsys.readouterr().err


def test_cli_jsonl_lists_from_stdin_are_read_once(monkeypatch, capsys):
    import io

    line = {"id": "a", "reference": ["turn left", "turn right"], "hypothesis": "turn right"}
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(line).encode())))
    assert sitar.cli.main(["score", "--jsonl", "-", "--jsonl-out", *MODEL]) == 0
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert records[0]["reference_index"] == 2 and records[0]["score"] == 0.0
