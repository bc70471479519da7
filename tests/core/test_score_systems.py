"""Several systems against several references per utterance in one `sitar score` call (issue #32
item 2, its target: "three systems against two references per utterance, from trn files, in one
sitar score call"): sitar.io.read_reference_sets, sitar.multiref.score_systems and the command's
output, in every input format, with bad rows, id mismatches and ignored STM segments."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import sitar.cli
from sitar.errors import InputError
from sitar.io import read_reference_sets
from sitar.multiref import score_multi, score_systems
from sitar.scorer import Scorer

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx"
MODEL = ["--checkpoint", str(TINY), "--variant", "fp32", "--head", "pair"]

IDS = ["s1-u1", "s1-u2", "s1-u3"]
REF1 = {"s1-u1": "turn left at the light", "s1-u2": "call me at nine", "s1-u3": "send two boxes"}
REF2 = {"s1-u1": "turn right at the light", "s1-u2": "call me at five", "s1-u3": "send two boxes"}
SYSTEMS = {
    "A": {"s1-u1": "turn right at the light", "s1-u2": "call me at nine", "s1-u3": "send boxes"},
    "B": {"s1-u1": "turn left at light", "s1-u2": "call me at five", "s1-u3": "send two boxes"},
    "C": {"s1-u1": "turn up at the light", "s1-u2": "call me at ten", "s1-u3": "send ten boxes"},
}


def _trn(path: Path, texts: dict[str, str], order: list[str] | None = None) -> str:
    path.write_text("".join(f"{texts[u]} ({u})\n" for u in order or texts), encoding="utf-8")
    return str(path)


def _rows(out: str) -> list[list[str]]:
    return [line.split("\t") for line in out.splitlines() if not line.startswith("#")]


def _summary(out: str, tag: str) -> dict[str, list[str]]:
    return {r[1]: r[2:] for r in (x.split("\t") for x in out.splitlines()) if r[0] == tag}


@pytest.fixture
def trn(tmp_path):
    r1 = _trn(tmp_path / "r1.trn", REF1)
    r2 = _trn(tmp_path / "r2.trn", REF2, order=IDS[::-1])  # joined by id, not by line
    systems = {
        k: _trn(tmp_path / f"{k.lower()}.trn", v, order=IDS[1:] + IDS[:1])
        for k, v in SYSTEMS.items()
    }
    return r1, r2, systems


def _argv(r1, r2, systems, *extra):
    argv = ["score", "--ref-file", r1, "--ref-file", r2]
    for name, path in systems.items():
        argv += ["--system", f"{name}={path}"]
    return [*argv, *extra]


def test_three_systems_two_references_from_trn_in_one_call(trn, capsys, monkeypatch):
    r1, r2, systems = trn
    calls = []
    real = Scorer.score

    def spy(self, **kwargs):
        calls.append(len(kwargs["references"]))
        return real(self, **kwargs)

    monkeypatch.setattr(Scorer, "score", spy)
    assert sitar.cli.main(_argv(r1, r2, systems, *MODEL)) == 0
    out = capsys.readouterr().out
    assert calls == [3 * 3 * 2]  # one model pass: systems x utterances x references
    lines = out.splitlines()
    assert lines[0].startswith("#signature\tsitar:")
    rows = _rows(out)
    assert rows[0] == ["system", "id", "score", "raw", "windowed", "ref"]
    assert [r[:2] for r in rows[1:]] == [[s, u] for s in "ABC" for u in IDS]
    chosen = {(r[0], r[1]): r[5] for r in rows[1:]}
    # A says 'right' (reference 2) and 'nine' (reference 1); B the other way round; the shared
    # reference of s1-u3 ties, so the first is kept
    assert [chosen["A", u] for u in IDS] == ["2", "1", "1"]
    assert [chosen["B", u] for u in IDS] == ["1", "2", "1"]
    assert [float(r[2]) for r in rows[1:3]] == [0.0, 0.0] and float(rows[3][2]) > 0.0
    system = _summary(out, "#system")
    assert list(system) == ["A", "B", "C"]
    assert all(
        v[1:] == ["macro mean of per-pair normalized scores", "n=3"] for v in system.values()
    )
    # each system's row and table line are those of a one-system run with the same references
    for name, path in systems.items():
        argv = ["score", "--ref-file", r1, "--ref-file", r2, "--hyp-file", path, *MODEL]
        assert sitar.cli.main(argv) == 0
        single = capsys.readouterr().out
        assert [r[1:] for r in _rows(single)[1:]] == [r[2:] for r in rows[1:] if r[0] == name]
        assert single.splitlines()[-1] == "\t".join(["#system", *system[name]])


def test_jsonl_output_names_the_system_and_the_reference(trn, capsys):
    r1, r2, systems = trn
    assert sitar.cli.main(_argv(r1, r2, systems, *MODEL, "--jsonl-out")) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    pairs = [r for r in records if "id" in r]
    tables = [r for r in records if "n_pairs" in r]
    assert [(r["system_name"], r["id"], r["reference_index"]) for r in pairs[:3]] == [
        ("A", "s1-u1", 2),
        ("A", "s1-u2", 1),
        ("A", "s1-u3", 1),
    ]
    assert [(t["system_name"], t["n_pairs"]) for t in tables] == [("A", 3), ("B", 3), ("C", 3)]
    assert sitar.cli.main(_argv(r1, r2, systems, *MODEL, "--system-only")) == 0
    only = capsys.readouterr().out.splitlines()
    assert only[0].startswith("#signature\t") and [x.split("\t")[1] for x in only[1:]] == list(
        "ABC"
    )


def test_gap_head_table_has_swer_per_system(trn, capsys):
    """The default checkpoint: a swer column and one #swer line per system, each the chosen
    pairs' corpus value, as sitar.multiref.score_multi gives it."""
    r1, r2, systems = trn
    assert sitar.cli.main(_argv(r1, r2, systems)) == 0
    out = capsys.readouterr().out
    assert _rows(out)[0] == ["system", "id", "score", "raw", "windowed", "swer", "ref"]
    swer, system = _summary(out, "#swer"), _summary(out, "#system")
    scorer = Scorer.load()
    for name, hyps in SYSTEMS.items():
        multi = score_multi(
            scorer,
            references=[[REF1[u], REF2[u]] for u in IDS],
            hypotheses=[hyps[u] for u in IDS],
        )
        assert system[name][0] == f"{multi.result.system_score:.6f}"
        assert swer[name][0] == f"{multi.result.system_swer:.6f}" and swer[name][2] == "n=3"


# -- every input format ---------------------------------------------------------------------------


def _write_format(fmt: str, path: Path, texts: dict[str, str], side: str) -> str:
    """``texts`` as one side (reference / hypothesis) of a file in ``fmt``."""
    order = list(texts)
    if fmt == "text":
        body = "".join(f"{texts[u]}\n" for u in IDS)  # line numbers are the ids
    elif fmt == "kaldi":
        body = "".join(f"{u} {texts[u]}\n" for u in order)
    elif fmt == "jsonl":
        body = "".join(json.dumps({"id": u, side: texts[u]}) + "\n" for u in order)
    elif fmt == "trn":
        body = "".join(f"{texts[u]} ({u})\n" for u in order)
    elif fmt == "stm":
        body = "".join(f"wav A spk {IDS.index(u)} {IDS.index(u) + 1} {texts[u]}\n" for u in order)
    elif fmt == "nemo":
        key = "text" if side == "reference" else "pred_text"
        body = "".join(json.dumps({"audio_filepath": u, key: texts[u]}) + "\n" for u in order)
    else:
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(["id", side])
        writer.writerows([u, texts[u]] for u in order)
        body = buf.getvalue()
    path.write_text(body, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("fmt", ["text", "kaldi", "jsonl", "trn", "stm", "nemo", "csv", "tsv"])
def test_every_format_gives_the_same_scores(fmt, tmp_path, capsys):
    r1 = _write_format(fmt, tmp_path / "r1", REF1, "reference")
    r2 = _write_format(fmt, tmp_path / "r2", dict(reversed(REF2.items())), "reference")
    systems = {
        k: _write_format(fmt, tmp_path / k, dict(reversed(v.items())), "hypothesis")
        for k, v in SYSTEMS.items()
    }
    assert sitar.cli.main(_argv(r1, r2, systems, "--format", fmt, *MODEL)) == 0
    rows = _rows(capsys.readouterr().out)
    # ids differ by format (line numbers, STM waveform_channel_begin, ...); scores do not
    got = [(r[0], r[2], r[5]) for r in rows[1:]]
    trn_dir = tmp_path / "trn"
    trn_dir.mkdir()
    t1, t2 = _trn(trn_dir / "r1.trn", REF1), _trn(trn_dir / "r2.trn", REF2)
    tsys = {k: _trn(trn_dir / f"{k}.trn", v) for k, v in SYSTEMS.items()}
    assert sitar.cli.main(_argv(t1, t2, tsys, *MODEL)) == 0
    assert got == [(r[0], r[2], r[5]) for r in _rows(capsys.readouterr().out)[1:]]


# -- bad input: one line, file and line, nothing dropped ------------------------------------------


def test_a_bad_row_in_the_second_reference_names_file_and_line(trn, tmp_path, capsys):
    r1, _, systems = trn
    bad = tmp_path / "r2.trn"
    bad.write_text("turn right at the light (s1-u1)\ncall me at five\n", encoding="utf-8")
    assert sitar.cli.main(_argv(r1, str(bad), systems, *MODEL)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"sitar score: error: {bad}:2: expected a trn line 'text (utt_id)'")


def test_a_bad_row_in_a_system_names_file_and_line(trn, tmp_path, capsys):
    r1, r2, systems = trn
    bad = tmp_path / "b.trn"
    bad.write_text("turn left (s1-u1)\nturn left (s1-u1)\n", encoding="utf-8")
    assert sitar.cli.main(_argv(r1, r2, {**systems, "B": str(bad)}, *MODEL)) == 2
    err = capsys.readouterr().err
    assert err == f"sitar score: error: {bad}:2: duplicate utterance id 's1-u1'\n"


def test_reference_files_with_other_ids_are_refused(trn, tmp_path, capsys):
    r1, _, systems = trn
    r2 = _trn(tmp_path / "other.trn", {**{u: REF2[u] for u in IDS[:2]}, "s1-u9": "x"})
    assert sitar.cli.main(_argv(r1, r2, systems, *MODEL)) == 2
    err = capsys.readouterr().err
    assert err == (
        f"sitar score: error: TRN files do not match: 1 id(s) missing from {r2}: 's1-u3'; "
        f"1 id(s) in {r2} but not in {r1}: 's1-u9'\n"
    )


def test_a_system_with_other_ids_is_refused(trn, tmp_path, capsys):
    r1, r2, systems = trn
    short = _trn(tmp_path / "short.trn", {u: SYSTEMS["C"][u] for u in IDS[:2]})
    assert sitar.cli.main(_argv(r1, r2, {**systems, "C": short}, *MODEL)) == 2
    err = capsys.readouterr().err
    assert "system 'C' lacks 1 id(s): 's1-u3'" in err and err.count("\n") == 1


def test_plain_text_files_of_other_lengths_are_refused(tmp_path, capsys):
    r1 = _write_format("text", tmp_path / "r1.txt", REF1, "reference")
    r2 = tmp_path / "r2.txt"
    r2.write_text("one line\n", encoding="utf-8")
    a = _write_format("text", tmp_path / "a.txt", SYSTEMS["A"], "hypothesis")
    assert sitar.cli.main(_argv(r1, str(r2), {"A": a}, *MODEL)) == 2
    assert "parallel files differ in length" in capsys.readouterr().err


def test_segments_any_reference_ignores_are_left_out_of_every_file(tmp_path, capsys):
    rows = [("w A s 0 1", "turn left"), ("w A s 1 2", "call me"), ("w A s 2 3", "send it")]
    r1 = tmp_path / "r1.stm"
    r1.write_text("".join(f"{k} {t}\n" for k, t in rows), encoding="utf-8")
    r2 = tmp_path / "r2.stm"
    r2.write_text(
        f"{rows[0][0]} turn right\n{rows[1][0]} ignore_time_segment_in_scoring\n"
        f"{rows[2][0]} send it\n",
        encoding="utf-8",
    )
    a = tmp_path / "a.stm"
    a.write_text("".join(f"{k} {t}\n" for k, t in rows), encoding="utf-8")
    sets = read_reference_sets([str(r1), str(r2)], {"A": str(a)}, report=lambda m: None)
    assert sets.ids == ["w_A_0", "w_A_2"] and list(sets.hypotheses["A"]) == sets.ids
    assert sets.candidates() == [["turn left", "turn right"], ["send it", "send it"]]
    assert sitar.cli.main(_argv(str(r1), str(r2), {"A": str(a)}, *MODEL)) == 0
    out, err = capsys.readouterr()
    assert [r[1] for r in _rows(out)[1:]] == ["w_A_0", "w_A_2"]
    assert "1 segment(s) marked ignore_time_segment_in_scoring" in err


def test_each_file_is_read_once_and_stdin_may_be_one_of_them(trn, monkeypatch, capsys):
    r1, r2, systems = trn
    text = Path(systems["A"]).read_text(encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    argv = _argv(r1, r2, {"A": "-", "A2": "-"}, "--format", "trn", *MODEL)
    assert sitar.cli.main(argv) == 0
    rows = _rows(capsys.readouterr().out)
    assert [r[2] for r in rows[1:4]] == [r[2] for r in rows[4:7]]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--engine", "ray"], "--system cannot be combined with --engine ray"),
        (["--jsonl", "x.jsonl"], "--system cannot be combined with --jsonl"),
        (["--ref", "a", "--hyp", "b"], "--system cannot be combined with --ref/--hyp"),
    ],
)
def test_clashing_inputs_are_refused(trn, capsys, extra, message):
    r1, r2, systems = trn
    assert sitar.cli.main(_argv(r1, r2, systems, *extra, *MODEL)) == 2
    assert message in capsys.readouterr().err


# -- the Python side ------------------------------------------------------------------------------


def test_score_systems_is_score_multi_per_system_in_one_pass():
    scorer = Scorer.load(str(TINY), variant="fp32", head="pair")
    candidates = [[REF1[u], REF2[u]] for u in IDS]
    joined = {k: [v[u] for u in IDS] for k, v in SYSTEMS.items()}
    many = score_systems(scorer, references=candidates, systems=joined)
    for name, hyps in joined.items():
        one = score_multi(scorer, references=candidates, hypotheses=hyps)
        assert many[name] == one
    with pytest.raises(InputError, match="system 'B' has 2 hypotheses, the first has 3"):
        score_systems(scorer, references=candidates, systems={"A": joined["A"], "B": ["x", "y"]})
    with pytest.raises(InputError, match=r"systems\['A'\]\[0\] must be a str"):
        score_systems(scorer, references=candidates[:1], systems={"A": [1]})
