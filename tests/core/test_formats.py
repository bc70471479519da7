"""The ASR input formats of issue #32 item 3 (sitar/formats.py, read through sitar/io.py):
sclite trn and stm, NeMo manifests, CSV and TSV, in every command that reads pairs.

Each format: good files, ids, bad rows (one-line InputError naming the file and the line), the
detection rule without --format, and the target of the issue as far as these formats go: three
systems from trn files in one `sitar score` call."""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import pytest

import sitar.cli
from sitar.errors import InputError
from sitar.formats import Columns
from sitar.io import read_pairs, read_system_inputs, resolve_format

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx"
MODEL = ["--checkpoint", str(TINY), "--variant", "fp32", "--head", "pair"]


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def _triples(pairs):
    return [(p.id, p.reference, p.hypothesis) for p in pairs]


# -- trn ------------------------------------------------------------------------------------------


def test_trn_joined_by_id_text_kept_as_written(tmp_path):
    ref = _write(
        tmp_path / "ref.trn", "turn left at the (uh) station (spk1-u2)\ndo not go (spk1-u1)\n"
    )
    hyp = _write(tmp_path / "hyp.trn", "do go (spk1-u1)\nturn left at the station(spk1-u2)\n")
    pairs = read_pairs(ref_file=ref, hyp_file=hyp)  # the .trn extension names the format
    assert _triples(pairs) == [
        ("spk1-u2", "turn left at the (uh) station", "turn left at the station"),
        ("spk1-u1", "do not go", "do go"),
    ]
    assert _triples(read_pairs(ref_file=ref, hyp_file=hyp, file_format="trn")) == _triples(pairs)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("a b (u1)\nno id here\n", r"hyp\.trn:2: expected a trn line 'text \(utt_id\)'"),
        ("a b (u1)\n\n", r"hyp\.trn:2: .*empty line"),
        ("a (u1)\nb (u1)\n", r"hyp\.trn:2: duplicate utterance id 'u1'"),
        ("a (u 1)\n", r"hyp\.trn:1: expected a trn line"),
    ],
)
def test_trn_bad_rows_name_file_and_line(tmp_path, content, match):
    ref = _write(tmp_path / "ref.trn", "a (u1)\n")
    hyp = _write(tmp_path / "hyp.trn", content)
    with pytest.raises(InputError, match=match) as err:
        read_pairs(ref_file=ref, hyp_file=hyp)
    assert "\n" not in str(err.value)


def test_trn_missing_ids_are_named(tmp_path):
    ref = _write(tmp_path / "ref.trn", "a (u1)\nb (u2)\n")
    hyp = _write(tmp_path / "hyp.trn", "a (u1)\nc (u3)\n")
    with pytest.raises(InputError, match=r"TRN files do not match: 1 id\(s\) missing.*'u2'.*'u3'"):
        read_pairs(ref_file=ref, hyp_file=hyp)


# -- stm ------------------------------------------------------------------------------------------

STM_REF = """;; sclite STM with a comment, a label and a segment that is not scored
call1 A spk1 0.00 2.50 <o,f0,male> do not send it
call1 A spk2 2.50 4.0 IGNORE_TIME_SEGMENT_IN_SCORING
call1 A spk1 4.00 6.10 turn left at the station
call2 B spk3 12.0 13
"""
STM_HYP = """call1 A spk1 0.0 2.5 do send it
call1 A spk2 2.5 4.0 some noise
call1 A spk1 4 6.1 turn left at the station
call2 B spk3 12 13 hello
"""


def test_stm_ids_labels_comments_and_ignored_segments(tmp_path):
    ref = _write(tmp_path / "ref.stm", STM_REF)
    hyp = _write(tmp_path / "hyp.stm", STM_HYP)
    notes: list[str] = []
    pairs = read_pairs(ref_file=ref, hyp_file=hyp, report=notes.append)
    # id: waveform_channel_begin, begin without trailing zeros (0.00 and 0.0 are one segment)
    assert _triples(pairs) == [
        ("call1_A_0", "do not send it", "do send it"),
        ("call1_A_4", "turn left at the station", "turn left at the station"),
        ("call2_B_12", "", "hello"),
    ]
    # the ignored segment is dropped from both sides, counted and reported with its line
    assert len(notes) == 1
    assert "1 segment(s) marked ignore_time_segment_in_scoring (line(s) 3)" in notes[0]
    assert "ref.stm" in notes[0]


def test_stm_ignored_segments_warn_without_a_reporter(tmp_path):
    ref = _write(tmp_path / "ref.stm", STM_REF)
    hyp = _write(tmp_path / "hyp.stm", STM_HYP)
    with pytest.warns(UserWarning, match="not scored"):
        read_pairs(ref_file=ref, hyp_file=hyp)
    with pytest.warns(UserWarning, match="not scored"):
        refs, systems = read_system_inputs(ref, [f"A={hyp}"])
    assert "call1_A_2.5" not in refs and "call1_A_2.5" not in systems["A"]
    assert list(refs) == list(systems["A"])


def test_stm_without_ignored_segments_reports_nothing(tmp_path):
    ref = _write(tmp_path / "ref.stm", "w 1 s 0 1 hello\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _triples(read_pairs(ref_file=ref, hyp_file=ref)) == [("w_1_0", "hello", "hello")]


def test_stm_hypothesis_cannot_mark_a_segment_ignored(tmp_path):
    ref = _write(tmp_path / "ref.stm", "w 1 s 0 1 hello\n")
    hyp = _write(tmp_path / "hyp.stm", "w 1 s 0 1 ignore_time_segment_in_scoring\n")
    with pytest.raises(
        InputError, match=r"hyp\.stm:1: segment 'w_1_0' is marked .* only the reference"
    ):
        read_pairs(ref_file=ref, hyp_file=hyp)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("w 1 s 0\n", r"x\.stm:1: expected an STM line .* got 4 field"),
        ("w 1 s zero 1 hi\n", r"x\.stm:1: begin time must be a number of seconds, got 'zero'"),
        ("w 1 s 2 1 hi\n", r"x\.stm:1: end time 1 is before begin time 2"),
        ("w 1 s 0 nan hi\n", r"x\.stm:1: end time must be a number of seconds >= 0"),
        ("w 1 s 0 1 <o,f0 hi\n", r"x\.stm:1: unclosed STM label"),
        ("w 1 s 0 1 a\nw 1 t 0.000 2 b\n", r"x\.stm:2: duplicate segment 'w_1_0'.*first on line 1"),
        (";; c\n\n", r"x\.stm:2: .*empty line"),
    ],
)
def test_stm_bad_rows_name_file_and_line(tmp_path, content, match):
    bad = _write(tmp_path / "x.stm", content)
    with pytest.raises(InputError, match=match):
        read_pairs(ref_file=bad, hyp_file=bad)


# -- nemo -----------------------------------------------------------------------------------------


def _manifest(path: Path, rows: list[dict]) -> str:
    return _write(path, "".join(json.dumps(r) + "\n" for r in rows))


def test_nemo_one_manifest_holds_both_sides_ids_from_audio_filepath(tmp_path):
    m = _manifest(
        tmp_path / "m.json",
        [
            {
                "audio_filepath": "b.wav",
                "duration": 1.2,
                "text": "turn left",
                "pred_text": "turn right",
            },
            {"audio_filepath": "a.wav", "duration": 0.8, "text": "do not go", "pred_text": "do go"},
        ],
    )
    expected = [("b.wav", "turn left", "turn right"), ("a.wav", "do not go", "do go")]
    assert _triples(read_pairs(ref_file=m, file_format="nemo")) == expected
    assert _triples(read_pairs(ref_file=m, hyp_file=m, file_format="nemo")) == expected


def test_nemo_line_numbers_without_audio_filepath_and_named_fields(tmp_path):
    m = _write(
        tmp_path / "m.jsonl",
        json.dumps({"gold": "a b", "asr": "a"})
        + "\n\n"
        + json.dumps({"gold": "c", "asr": "c"})
        + "\n",
    )
    cols = Columns(ref="gold", hyp="asr")
    # ids are the file's line numbers (the blank line 2 is skipped, as in every JSONL input)
    assert _triples(read_pairs(ref_file=m, file_format="nemo", columns=cols)) == [
        ("1", "a b", "a"),
        ("3", "c", "c"),
    ]
    with pytest.raises(
        InputError,
        match=r"m\.jsonl:1: no field 'text' \(the reference; name another with --ref-column\)",
    ):
        read_pairs(ref_file=m, file_format="nemo")


def test_nemo_systems_read_pred_text_from_their_own_manifests(tmp_path):
    ref = _manifest(tmp_path / "ref.json", [{"audio_filepath": "a.wav", "text": "hello there"}])
    a = _manifest(tmp_path / "a.json", [{"audio_filepath": "a.wav", "pred_text": "hello"}])
    b = _manifest(tmp_path / "b.json", [{"audio_filepath": "a.wav", "pred_text": "hello their"}])
    refs, systems = read_system_inputs(ref, [f"A={a}", f"B={b}"], "nemo")
    assert refs == {"a.wav": "hello there"}
    assert systems == {"A": {"a.wav": "hello"}, "B": {"a.wav": "hello their"}}


@pytest.mark.parametrize(
    ("rows", "columns", "match"),
    [
        (
            [{"text": "a", "pred_text": 3}],
            Columns(),
            r"m\.json:1: pred_text must be a string, got int",
        ),
        ([{"text": "a"}], Columns(), r"m\.json:1: no field 'pred_text' .*--hyp-column"),
        (
            [
                {"audio_filepath": "x", "text": "a", "pred_text": "a"},
                {"text": "b", "pred_text": "b"},
            ],
            Columns(),
            r"m\.json:2: no field 'audio_filepath', which other rows have \(line 1\)",
        ),
        (
            [{"audio_filepath": "x", "text": "a", "pred_text": "a"}] * 2,
            Columns(),
            r"m\.json:2: duplicate id 'x' .*--id-column",
        ),
        ([{"text": "a", "pred_text": "a"}], Columns(id="utt"), r"m\.json:1: no id field 'utt'"),
        ([[1, 2]], Columns(), r"m\.json:1: expected a JSON object, got list"),
    ],
)
def test_nemo_bad_rows_name_file_and_line(tmp_path, rows, columns, match):
    m = _manifest(tmp_path / "m.json", rows)
    with pytest.raises(InputError, match=match):
        read_pairs(ref_file=m, file_format="nemo", columns=columns)


def test_nemo_invalid_json_names_the_line(tmp_path):
    m = _write(tmp_path / "m.json", '{"text": "a", "pred_text": "a"}\n{"text": \n')
    with pytest.raises(InputError, match=r"m\.json:2: invalid JSON"):
        read_pairs(ref_file=m, file_format="nemo")


# -- csv / tsv ------------------------------------------------------------------------------------


def test_csv_default_columns_quotes_and_row_ids(tmp_path):
    p = _write(
        tmp_path / "p.csv",
        'id,reference,hypothesis\nu1,"turn left, then right",turn left then right\n'
        'u2,"say ""hi""",say hi\n',
    )
    assert _triples(read_pairs(ref_file=p)) == [
        ("u1", "turn left, then right", "turn left then right"),
        ("u2", 'say "hi"', "say hi"),
    ]
    q = _write(tmp_path / "q.csv", "ref,hyp\na b,a\nc,c d\n")
    cols = Columns(ref="ref", hyp="hyp")
    # no id column: ids are the row numbers, the header not counted
    assert _triples(read_pairs(ref_file=q, columns=cols)) == [("1", "a b", "a"), ("2", "c", "c d")]


def test_tsv_by_extension_or_flag_quotes_are_plain_characters(tmp_path):
    text = 'utt\tgold\tasr\nu1\t"hello" she said\thello she said\n'
    cols = Columns(ref="gold", hyp="asr", id="utt")
    expected = [("u1", '"hello" she said', "hello she said")]
    assert _triples(read_pairs(ref_file=_write(tmp_path / "p.tsv", text), columns=cols)) == expected
    other = _write(tmp_path / "p.txt", text)
    assert _triples(read_pairs(ref_file=other, file_format="tsv", columns=cols)) == expected


def test_csv_separate_reference_and_system_files(tmp_path):
    ref = _write(tmp_path / "ref.csv", "id,reference\nu2,b\nu1,a\n")
    a = _write(tmp_path / "a.csv", "id,hypothesis,confidence\nu1,a,0.9\nu2,bee,0.4\n")
    refs, systems = read_system_inputs(ref, [f"A={a}"])
    assert refs == {"u2": "b", "u1": "a"} and systems == {"A": {"u1": "a", "u2": "bee"}}


@pytest.mark.parametrize(
    ("content", "columns", "match"),
    [
        ("", Columns(), r"p\.csv: empty CSV file; a header row naming the columns is required"),
        ("a,b\nx,y\n", Columns(), r"p\.csv:1: the header row has no column 'reference'"),
        (
            "reference,hypothesis\nx\n",
            Columns(),
            r"p\.csv:2: expected 2 field\(s\) as in the header, got 1",
        ),
        (
            "reference,hypothesis\nx,y\n\nz,w\n",
            Columns(),
            r"p\.csv:3: expected 2 field.*an empty line",
        ),
        ('reference,hypothesis\n"x" y,z\n', Columns(), r"p\.csv:2: not valid CSV"),
        ("id,reference,hypothesis\nu1,a,a\nu1,b,b\n", Columns(), r"p\.csv:3: duplicate id 'u1'"),
        ("id,reference,hypothesis\n,a,a\n", Columns(), r"p\.csv:2: empty id in column 'id'"),
        (
            "reference,hypothesis\na,a\n",
            Columns(id="utt"),
            r"p\.csv:1: .*no column 'utt' \(--id-column\)",
        ),
        (
            "reference,reference,hypothesis\na,a,a\n",
            Columns(),
            r"p\.csv:1: the header names 'reference' twice",
        ),
        ('reference,hypothesis\n"a\nb",c\nd,e,f\n', Columns(), r"p\.csv:4: expected 2 field"),
    ],
)
def test_csv_bad_rows_name_file_and_line(tmp_path, content, columns, match):
    p = _write(tmp_path / "p.csv", content)
    with pytest.raises(InputError, match=match) as err:
        read_pairs(ref_file=p, columns=columns)
    assert "\n" not in str(err.value)


# -- detection and options ------------------------------------------------------------------------


def test_detection_by_extension_and_refusals():
    assert resolve_format(None, {"r.trn": ["a (u1)"], "h.TRN": ["a (u1)"]}) == "trn"
    assert resolve_format(None, {"r.csv": [], "h.csv": []}) == "csv"
    assert resolve_format(None, {"m.json": ['{"text": "a"}']}) == "text"  # nemo only by --format
    with pytest.raises(
        InputError, match=r"r\.trn \(trn\), h\.txt \(no known extension\).*--format"
    ):
        resolve_format(None, {"r.trn": ["a (u1)"], "h.txt": ["a"]})
    # a plain-text reading of trn or stm lines would keep ids in the transcripts: refused
    with pytest.raises(
        InputError, match=r"r: every line reads as sclite trn.*--format trn or --format text"
    ):
        resolve_format(None, {"r": ["a b (u1)", "c (u2)"], "h": ["a", "c"]})
    with pytest.raises(InputError, match=r"--format stm or --format text"):
        resolve_format(None, {"r": [";; x", "w 1 s 0.0 1.5 hi"], "h": ["hi"]})
    with pytest.raises(InputError, match=r"--format stm or --format text"):
        resolve_format(None, {"r": ["w 1 s .5 2. hi", "w 1 s 2 3"], "h": ["hi", ""]})
    assert resolve_format(None, {"r": ["see you (later)", "ok"], "h": ["a", "b"]}) == "text"
    assert resolve_format(None, {"r": ["a b c 1 2 x", "hello"], "h": ["a", "b"]}) == "text"
    assert resolve_format("text", {"r": ["a (u1)"]}) == "text"


def test_column_options_only_with_named_field_formats(tmp_path):
    ref = _write(tmp_path / "ref.trn", "a (u1)\n")
    with pytest.raises(InputError, match=r"--ref-column: only for --format nemo, csv, tsv"):
        read_pairs(ref_file=ref, hyp_file=ref, columns=Columns(ref="x"))
    with pytest.raises(InputError, match=r"--id-column apply to --ref-file/--hyp-file"):
        read_pairs(ref="a", hyp="b", columns=Columns(id="x"))
    with pytest.raises(
        InputError, match=r"only --format nemo, csv, tsv read both sides from one file"
    ):
        read_pairs(ref_file=ref)
    with pytest.raises(InputError, match=r"--hyp-column needs a field name, got ''"):
        Columns(hyp="")


def test_parse_table_warns_about_ignored_stm_segments():
    from sitar.io import parse_table

    lines = ["w 1 s 0 1 ignore_time_segment_in_scoring", "w 1 s 1 2 hi"]
    with pytest.warns(UserWarning, match="1 segment"):
        table = parse_table(lines, "x", "stm", "reference")
    assert table == {"w_1_1": "hi"}


@pytest.mark.parametrize("command", ["gaps", "score", "explain", "compare", "report"])
def test_every_command_takes_the_same_format_options(command):
    parser = sitar.cli.build_parser()
    argv = [command, "--ref-file", "r.csv", "--format", "tsv"]
    argv += ["--ref-column", "R", "--hyp-column", "H", "--id-column", "I"]
    args = parser.parse_args([*argv, "-o", "x.html"] if command == "report" else argv)
    assert isinstance(args, argparse.Namespace)
    assert (args.file_format, args.ref_column, args.hyp_column, args.id_column) == (
        "tsv",
        "R",
        "H",
        "I",
    )
    for name in ("trn", "stm", "nemo", "csv"):
        assert (
            parser.parse_args([command, "--ref-file", "r", "--format", name, "-o", "x"]).file_format
            == name
        )


# -- commands -------------------------------------------------------------------------------------


def test_score_three_systems_from_trn_files_in_one_call(tmp_path, capsys):
    """The target of issue #32 as far as the formats go: three systems from trn files."""
    ref = _write(tmp_path / "ref.trn", "turn left at the light (s1-u1)\ncall me at nine (s1-u2)\n")
    a = _write(tmp_path / "a.trn", "call me at five (s1-u2)\nturn right at the light (s1-u1)\n")
    b = _write(tmp_path / "b.trn", "turn left at light (s1-u1)\ncall me nine (s1-u2)\n")
    c = _write(tmp_path / "c.trn", "turn left at the light (s1-u1)\ncall me at nine (s1-u2)\n")
    argv = ["score", "--ref-file", ref, "--system", f"A={a}", "--system", f"B={b}"]
    argv += ["--system", f"C={c}", "--format", "trn", *MODEL]
    assert sitar.cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split("\t") for line in lines[2:8]]
    assert [r[:2] for r in rows] == [[s, u] for s in "ABC" for u in ("s1-u1", "s1-u2")]
    assert [line.split("\t")[:2] for line in lines[8:11]] == [["#system", s] for s in "ABC"]
    # each system scores as the same pairs do from plain text files, joined by id
    plain = _write(tmp_path / "ref.txt", "turn left at the light\ncall me at nine\n")
    hyp = _write(tmp_path / "a.txt", "turn right at the light\ncall me at five\n")
    assert sitar.cli.main(["score", "--ref-file", plain, "--hyp-file", hyp, *MODEL]) == 0
    single = capsys.readouterr().out.splitlines()
    assert [r.split("\t")[1] for r in single[2:4]] == [r[2] for r in rows[:2]]
    # C repeats the references: a score of 0
    assert [float(r[2]) for r in rows[4:6]] == [0.0, 0.0]


def test_cli_reports_ignored_stm_segments_unless_quiet(tmp_path, capsys):
    ref = _write(tmp_path / "ref.stm", STM_REF)
    hyp = _write(tmp_path / "hyp.stm", STM_HYP)
    assert sitar.cli.main(["gaps", "--ref-file", ref, "--hyp-file", hyp, "--jsonl-out"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["id"] for line in out.splitlines()] == [
        "call1_A_0",
        "call1_A_4",
        "call2_B_12",
    ]
    assert err.startswith("sitar gaps: note: ") and "1 segment(s) marked" in err
    assert sitar.cli.main(["gaps", "--ref-file", ref, "--hyp-file", hyp, "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_cli_bad_row_is_one_line_exit_2(tmp_path, capsys):
    p = _write(tmp_path / "p.csv", "reference,hypothesis\na,b,c\n")
    assert sitar.cli.main(["gaps", "--ref-file", p]) == 2
    err = capsys.readouterr().err
    assert err == f"sitar gaps: error: {p}:2: expected 2 field(s) as in the header, got 3\n"


def test_compare_reads_nemo_manifests(tmp_path, capsys):
    ref = _manifest(
        tmp_path / "ref.json",
        [
            {"audio_filepath": "a.wav", "text": "turn left"},
            {"audio_filepath": "b.wav", "text": "call me"},
        ],
    )
    a = _manifest(
        tmp_path / "a.json",
        [
            {"audio_filepath": "b.wav", "pred_text": "call me"},
            {"audio_filepath": "a.wav", "pred_text": "turn right"},
        ],
    )
    b = _manifest(
        tmp_path / "b.json",
        [
            {"audio_filepath": "a.wav", "pred_text": "turn left"},
            {"audio_filepath": "b.wav", "pred_text": "call"},
        ],
    )
    argv = [
        "compare",
        "--ref-file",
        ref,
        "--system",
        f"A={a}",
        "--system",
        f"B={b}",
        "--format",
        "nemo",
    ]
    assert sitar.cli.main([*argv, *MODEL, "--bootstrap", "20", "--json-out", "-", "-q"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["n_utterances"] == 2
