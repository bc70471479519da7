"""Input readers shared by the CLI, and ``sitar gaps`` end to end."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sitar.cli import main
from sitar.errors import InputError
from sitar.io import read_pairs
from sitar.signature import parse_signature


def _write(path, data: str | bytes):
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def test_parallel_text_keeps_every_line(tmp_path):
    ref = _write(tmp_path / "ref.txt", "a b\r\n\nc\n")
    hyp = _write(tmp_path / "hyp.txt", "\ufeffa\n\nc d")
    pairs = read_pairs(ref_file=ref, hyp_file=hyp)
    assert [(p.id, p.reference, p.hypothesis) for p in pairs] == [
        ("1", "a b", "a"),
        ("2", "", ""),
        ("3", "c", "c d"),
    ]


def test_parallel_text_length_mismatch(tmp_path):
    ref = _write(tmp_path / "ref.txt", "a\nb\n")
    hyp = _write(tmp_path / "hyp.txt", "a\n")
    with pytest.raises(InputError, match=r"has 2 lines.*has 1"):
        read_pairs(ref_file=ref, hyp_file=hyp)


def test_kaldi_joined_by_id(tmp_path):
    ref = _write(tmp_path / "ref", "u2 hello there\nu1 good morning\nu3\n")
    hyp = _write(tmp_path / "hyp", "u1 good mourning\nu3 uh\nu2 hello\n")
    pairs = read_pairs(ref_file=ref, hyp_file=hyp, file_format="kaldi")
    assert [(p.id, p.reference, p.hypothesis) for p in pairs] == [
        ("u2", "hello there", "hello"),
        ("u1", "good morning", "good mourning"),
        ("u3", "", "uh"),
    ]


def test_kaldi_missing_and_extra_ids_are_named(tmp_path):
    ref = _write(tmp_path / "ref", "u1 a\nu2 b\nu3 c\n")
    hyp = _write(tmp_path / "hyp", "u1 a\nu4 d\n")
    with pytest.raises(InputError) as err:
        read_pairs(ref_file=ref, hyp_file=hyp, file_format="kaldi")
    msg = str(err.value)
    assert "'u2'" in msg and "'u3'" in msg and "'u4'" in msg


def test_kaldi_duplicate_id(tmp_path):
    ref = _write(tmp_path / "ref", "u1 a\nu1 b\n")
    hyp = _write(tmp_path / "hyp", "u1 a\n")
    with pytest.raises(InputError, match="duplicate utterance id 'u1'"):
        read_pairs(ref_file=ref, hyp_file=hyp, file_format="kaldi")


def test_jsonl(tmp_path):
    path = _write(
        tmp_path / "p.jsonl",
        '{"id": "x", "reference": "a", "hypothesis": "b"}\n\n{"id": 7, "reference": "", "hypothesis": ""}\n',
    )
    assert [(p.id, p.reference) for p in read_pairs(jsonl=path)] == [("x", "a"), ("7", "")]


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ('{"id": "x", "reference": "a"}\n', "p.jsonl:1: missing field"),
        ('{"id": "x", "reference": "a", "hypothesis": 3}\n', "hypothesis must be a string"),
        ("not json\n", "p.jsonl:1: invalid JSON"),
        ('["a"]\n', "expected a JSON object"),
        (
            '{"id": "x", "reference": "a", "hypothesis": "b"}\n{"id": "x", "reference": "a", "hypothesis": "b"}\n',
            "p.jsonl:2: duplicate id",
        ),
        (b'{"id": "x", "reference": "\xff", "hypothesis": "b"}\n', "not valid UTF-8"),
    ],
)
def test_jsonl_errors(tmp_path, content, match):
    path = _write(tmp_path / "p.jsonl", content)
    with pytest.raises(InputError, match=match):
        read_pairs(jsonl=path)


def test_exactly_one_input_form(tmp_path):
    with pytest.raises(InputError, match="exactly one input"):
        read_pairs()
    with pytest.raises(InputError, match="exactly one input"):
        read_pairs(ref="a", hyp="b", jsonl=tmp_path / "x")
    with pytest.raises(InputError, match="together"):
        read_pairs(ref="a")
    with pytest.raises(InputError, match="not found"):
        read_pairs(jsonl=tmp_path / "missing.jsonl")


def test_cli_gaps_readable(capsys):
    assert main(["gaps", "--ref", "do not send it", "--hyp", "do send it", "--color", "never"]) == 0
    out = capsys.readouterr().out
    assert "id 1: 1 gap" in out
    assert "REF: do [not] send it" in out
    assert "HYP: do [*]   send it" in out
    assert "g0 deletion" in out
    assert "signature: sitar:" in out


def test_cli_gaps_jsonl(tmp_path, capsys):
    path = _write(
        tmp_path / "p.jsonl",
        '{"id": "a", "reference": "I want to go", "hypothesis": "I I want to go"}\n'
        '{"id": "b", "reference": "same", "hypothesis": "Same!"}\n',
    )
    assert main(["gaps", "--jsonl", str(path), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [rec["id"] for rec in lines] == ["a", "b"]
    gap = lines[0]["gaps"][0]
    assert gap["kind"] == "insertion"
    assert gap["ref_tokens"] == [0, 0] and gap["hyp_tokens"] == [0, 1]
    assert gap["ref_span"] == [0, 0] and gap["hyp_span"] == [0, 1]
    assert gap["ref_text"] == "" and gap["hyp_text"] == "I"
    assert lines[1]["gaps"] == []
    fields = parse_signature(lines[0]["signature"])
    assert fields["analyzer"].startswith("lexicon-")


def test_cli_no_consolidate(capsys):
    ref = "Do not send it to the client until I approve it."
    hyp = "You can send it to the client before I approve it."
    assert main(["gaps", "--ref", ref, "--hyp", hyp, "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["gaps"]) == 1
    assert main(["gaps", "--ref", ref, "--hyp", hyp, "--json", "--no-consolidate"]) == 0
    assert len(json.loads(capsys.readouterr().out)["gaps"]) == 2


def test_cli_output_file(tmp_path):
    out = tmp_path / "out.jsonl"
    assert main(["gaps", "--ref", "a b", "--hyp", "a c", "--json", "-o", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["gaps"][0]["hyp_text"] == "c"


def test_cli_bad_input_exit_code_2(tmp_path, capsys):
    ref = _write(tmp_path / "ref.txt", "a\nb\n")
    hyp = _write(tmp_path / "hyp.txt", "a\n")
    assert main(["gaps", "--ref-file", str(ref), "--hyp-file", str(hyp)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err
    assert main(["gaps", "--ref", "a"]) == 2
    assert main(["gaps", "--ref", "a", "--hyp", "b", "--analyzer", "nope"]) == 2
    assert "unknown analyzer" in capsys.readouterr().err


def test_cli_as_module_subprocess(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "sitar", "gaps", "--ref", "a b c", "--hyp", "a x c", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["gaps"][0]["ref_text"] == "b"
