"""The command-line traps of issue #29 item 8, each pinned.

* every command reads files the same way, plain text by default; Kaldi only with --format kaldi;
  files that read both ways are refused with a message naming --format;
* a repeated single-valued flag is an error, in every command;
* `score` takes several systems with --system NAME=PATH, as compare does;
* --format means the same in every command (jsonl included);
* -h stays help, -h TEXT and -r are errors naming --hyp / --ref; no abbreviated options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sitar.cli
from sitar.errors import InputError
from sitar.io import read_pairs, read_system_inputs, resolve_format

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx"
MODEL = ["--checkpoint", str(TINY), "--variant", "fp32", "--head", "pair"]


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def plain(tmp_path):
    """Plain files whose first words are unique in each file (the old kaldi default paired them
    by those words: 'turn' with 'turn', silently)."""
    ref = _write(tmp_path / "ref.txt", ["turn left at the light", "call me at nine"])
    a = _write(tmp_path / "a.txt", ["call me at five", "turn right at the light"])
    b = _write(tmp_path / "b.txt", ["turn left at light", "call me nine"])
    return ref, a, b


def test_compare_reads_plain_text_as_plain_text(plain):
    ref, a, b = plain
    references, systems = read_system_inputs(ref, [f"A={a}", f"B={b}"])
    assert references == {"1": "turn left at the light", "2": "call me at nine"}
    assert systems["A"] == {"1": "call me at five", "2": "turn right at the light"}


def test_compare_command_on_plain_files(plain, capsys):
    ref, a, b = plain
    argv = ["compare", "--ref-file", ref, "--system", f"A={a}", "--system", f"B={b}"]
    assert sitar.cli.main([*argv, *MODEL, "--bootstrap", "20", "--json-out", "-", "-q"]) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["n_utterances"] == 2 and err == ""


def test_ambiguous_files_fail_with_exit_2_naming_format(tmp_path, capsys):
    ref = _write(tmp_path / "ref.txt", ["utt_1 turn left", "utt_2 call me"])
    hyp = _write(tmp_path / "hyp.txt", ["utt_1 turn right", "utt_2 call me"])
    for argv in (
        ["compare", "--ref-file", ref, "--system", f"A={hyp}", "--system", f"B={ref}"],
        ["report", "--ref-file", ref, "--system", f"A={hyp}", "-o", str(tmp_path / "r.html")],
        ["score", "--ref-file", ref, "--hyp-file", hyp],
        ["gaps", "--ref-file", ref, "--hyp-file", hyp],
        ["explain", "--ref-file", ref, "--hyp-file", hyp],
        ["score", "--ref-file", ref, "--system", f"A={hyp}"],
    ):
        model = [] if argv[0] == "gaps" else MODEL
        assert sitar.cli.main([*argv, *model]) == 2, argv
        err = capsys.readouterr().err
        assert "--format text or --format kaldi" in err and err.count("\n") == 1, argv
    # said explicitly, both readings work
    assert sitar.cli.main(["gaps", "--ref-file", ref, "--hyp-file", hyp, "--format", "kaldi"]) == 0
    assert "id utt_1" in capsys.readouterr().out
    assert sitar.cli.main(["gaps", "--ref-file", ref, "--hyp-file", hyp, "--format", "text"]) == 0
    assert "id 1" in capsys.readouterr().out


def test_the_auto_detection_rule():
    assert resolve_format(None, {"r": ["the cat", "a dog"], "h": ["the cat", "a dog"]}) == "text"
    # one file that is not Kaldi-like makes the reading unambiguous (text)
    assert resolve_format(None, {"r": ["u1 a", "u2 b"], "h": ["a", "b"]}) == "text"
    # repeated first words cannot be Kaldi ids
    assert resolve_format(None, {"r": ["u1 a", "u1 b"], "h": ["u1 a", "u1 b"]}) == "text"
    with pytest.raises(InputError, match="--format"):
        resolve_format(None, {"r": ["u1 a", "u2 b"], "h": ["u1 a", "u2 c"]})
    assert resolve_format("kaldi", {"r": ["the cat"]}) == "kaldi"
    with pytest.raises(InputError, match="unknown format"):
        resolve_format("xml", {})


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        ("gaps", ["--ref", "a", "--hyp", "b"]),
        ("score", ["--ref", "a", "--hyp", "b"]),
        ("explain", ["--ref", "a", "--hyp", "b"]),
        ("compare", ["--ref-file", "r.txt"]),
        ("report", ["--ref-file", "r.txt", "-o", "r.html"]),
        ("serve", []),
    ],
)
def test_a_repeated_single_valued_flag_is_an_error(command, extra, capsys):
    parser = sitar.cli.build_parser()
    flag = "--batch-size" if command != "gaps" else "--analyzer"
    with pytest.raises(SystemExit) as info:
        parser.parse_args([command, *extra, flag, "1", flag, "2"])
    assert info.value.code == 2
    assert f"{flag} was given more than once" in capsys.readouterr().err


def test_serve_host_and_port_may_be_overridden_by_appending():
    """The container image's entrypoint presets them; `docker run IMAGE --port 9000` appends."""
    args = sitar.cli.build_parser().parse_args(
        ["serve", "--host", "0.0.0.0", "--port", "8000", "--host", "127.0.0.1", "--port", "9"]
    )
    assert (args.host, args.port) == ("127.0.0.1", 9)


def test_a_repeated_hyp_file_is_refused_not_last_wins(plain, capsys):
    ref, a, b = plain
    with pytest.raises(SystemExit) as info:  # a usage error, like every argparse error
        sitar.cli.main(["score", "--ref-file", ref, "--hyp-file", a, "--hyp-file", b])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--hyp-file was given more than once" in err and "--system NAME=PATH" in err


def test_score_takes_several_systems(plain, capsys):
    ref, a, b = plain
    argv = ["score", "--ref-file", ref, "--system", f"A={a}", "--system", f"B={b}", *MODEL]
    assert sitar.cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("#signature\t") and lines[1] == "system\tid\tscore\traw\twindowed"
    assert [row.split("\t")[:2] for row in lines[2:6]] == [
        ["A", "1"],
        ["A", "2"],
        ["B", "1"],
        ["B", "2"],
    ]
    assert [row.split("\t")[:2] for row in lines[6:]] == [["#system", "A"], ["#system", "B"]]
    # each system's scores equal a one-system run on the same pairs
    assert sitar.cli.main(["score", "--ref-file", ref, "--hyp-file", a, *MODEL]) == 0
    single = capsys.readouterr().out.splitlines()
    assert [r.split("\t")[1] for r in single[2:4]] == [r.split("\t")[2] for r in lines[2:4]]
    assert sitar.cli.main([*argv, "--jsonl-out", "--system-only"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["system_name"] for r in records] == ["A", "B"]
    assert sitar.cli.main([*argv, "--hyp-file", a]) == 2
    assert "cannot be combined with --hyp-file" in capsys.readouterr().err


def test_format_jsonl_means_the_same_in_score_and_compare(tmp_path, capsys):
    ref = _write(tmp_path / "r.jsonl", [json.dumps({"id": "x", "reference": "turn left"})])
    hyp = _write(tmp_path / "h.jsonl", [json.dumps({"id": "x", "hypothesis": "turn right"})])
    assert read_pairs(ref_file=ref, hyp_file=hyp, file_format="jsonl")[0].id == "x"
    assert (
        sitar.cli.main(["score", "--ref-file", ref, "--hyp-file", hyp, "--format", "jsonl", *MODEL])
        == 0
    )
    assert "\nx\t" in capsys.readouterr().out
    references, systems = read_system_inputs(ref, [f"A={hyp}"], "jsonl")
    assert references == {"x": "turn left"} and systems == {"A": {"x": "turn right"}}


def test_short_flag_guesses_get_hints(capsys):
    with pytest.raises(SystemExit) as info:
        sitar.cli.main(["score", "-r", "turn left", "--hyp", "turn right"])
    assert info.value.code == 2
    assert "the reference is --ref TEXT or --ref-file PATH" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        sitar.cli.main(["score", "--ref", "turn left", "-h", "turn right"])
    assert info.value.code == 2
    assert "-h means --help and takes no value" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        sitar.cli.main(["score", "-h"])
    assert info.value.code == 0 and "usage: sitar score" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        sitar.cli.main(["compare", "--jsonl", "x.jsonl", "--ref-file", "r"])
    assert "give --format jsonl" in capsys.readouterr().err


def test_options_are_never_abbreviated(capsys):
    # `--ref` in compare used to mean --ref-file silently
    with pytest.raises(SystemExit):
        sitar.cli.build_parser().parse_args(["compare", "--ref-file", "r.txt", "--ref", "x"])
    assert "unrecognized arguments: --ref" in capsys.readouterr().err
