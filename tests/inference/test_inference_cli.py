"""``sitar score`` end to end on the tiny committed ONNX checkpoint, through ``sitar.cli.main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_pairs import HYPS, REFS

import sitar.cli
from sitar.signature import parse_signature

TINY = str(Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx")
# Pinned fp32 scores of the tiny checkpoint (see test_inference_scorer.py), 6 decimals as in TSV.
TSV_FP32 = ["0.631229", "0.471085", "0.000000", "0.435351", "1.000000"]
SYSTEM_FP32 = (0.6312291281563894 + 0.4710851567132132 + 0.4353505202702113 + 1.0) / 5


def _run(capsys, *argv):
    code = sitar.cli.main(["score", "--checkpoint", TINY, "--variant", "fp32", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _write_parallel(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    return str(ref), str(hyp)


def test_single_pair_tsv(capsys):
    code, out, _ = _run(capsys, "--ref", REFS[0], "--hyp", HYPS[0])
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("#signature\tsitar:")
    fields = parse_signature(lines[0].split("\t")[1])
    assert fields["ckpt"].startswith("sitar-tiny-test@") and fields["onnx"] == "fp32"
    assert lines[1] == "id\tscore\traw\twindowed"
    assert lines[2] == "1\t0.631229\t1.472868\t0"
    assert lines[3] == "#system\t0.631229\tmacro mean of per-pair normalized scores\tn=1"
    assert len(lines) == 4


def test_parallel_files_tsv(capsys, tmp_path):
    ref, hyp = _write_parallel(tmp_path)
    code, out, _ = _run(capsys, "--ref-file", ref, "--hyp-file", hyp, "--batch-size", "2")
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()[2:-1]]
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5"]
    assert [r[1] for r in rows] == TSV_FP32
    assert out.splitlines()[-1].startswith(f"#system\t{SYSTEM_FP32:.6f}\t")


def test_jsonl_in_and_out(capsys, tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": f"u{i}", "reference": r, "hypothesis": h})
            for i, (r, h) in enumerate(zip(REFS, HYPS, strict=True))
        ),
        encoding="utf-8",
    )
    code, out, _ = _run(capsys, "--jsonl", str(path), "--jsonl-out", "--threads", "1")
    assert code == 0
    objs = [json.loads(line) for line in out.splitlines()]
    assert len(objs) == 6
    assert [o["id"] for o in objs[:5]] == [f"u{i}" for i in range(5)]
    assert [round(o["score"], 6) for o in objs[:5]] == [float(s) for s in TSV_FP32]
    assert all(o["windowed"] is False and o["signature"] == objs[-1]["signature"] for o in objs[:5])
    assert objs[-1]["system"] == pytest.approx(SYSTEM_FP32, abs=1e-6)
    assert objs[-1]["n_pairs"] == 5
    assert objs[-1]["aggregation"] == "macro mean of per-pair normalized scores"


def test_kaldi_joined_by_id(capsys, tmp_path):
    ref, hyp = tmp_path / "ref.kaldi", tmp_path / "hyp.kaldi"
    ref.write_text("a the cat sat on the mat\nb please send the invoice on friday\n")
    hyp.write_text("b please send the invoice on monday\na the dog sat on the mat\n")
    code, out, _ = _run(capsys, "--ref-file", str(ref), "--hyp-file", str(hyp), "--format", "kaldi")
    assert code == 0
    rows = [line.split("\t")[:2] for line in out.splitlines()[2:-1]]
    assert rows == [["a", TSV_FP32[0]], ["b", TSV_FP32[1]]]


def test_system_only(capsys, tmp_path):
    ref, hyp = _write_parallel(tmp_path)
    code, out, _ = _run(capsys, "--ref-file", ref, "--hyp-file", hyp, "--system-only")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("#signature\t")
    assert lines[1].startswith(f"#system\t{SYSTEM_FP32:.6f}\t")
    code, out, _ = _run(capsys, "--ref-file", ref, "--hyp-file", hyp, "--system-only", "--json")
    objs = [json.loads(line) for line in out.splitlines()]
    assert len(objs) == 1 and objs[0]["system"] == pytest.approx(SYSTEM_FP32, abs=1e-6)


def test_output_file_and_windowed_marker(capsys, tmp_path):
    long_ref = (
        "please send the invoice to the client on friday and call the doctor about the "
        "appointment tomorrow morning . "
    ) * 4
    long_hyp = long_ref.replace("friday", "monday", 1).replace("doctor", "bank")
    target = tmp_path / "scores.tsv"
    code, out, _ = _run(capsys, "--ref", long_ref, "--hyp", long_hyp, "-o", str(target))
    assert code == 0 and out == ""
    row = target.read_text().splitlines()[2].split("\t")
    assert row[0] == "1" and row[3] == "1"  # windowed, never truncated


def test_errors_exit_2_with_one_line(capsys, tmp_path):
    code = sitar.cli.main(["score", "--checkpoint", str(tmp_path), "--ref", "a", "--hyp", "b"])
    err = capsys.readouterr().err
    assert code == 2
    assert "sitar_config.json is missing" in err and len(err.strip().splitlines()) == 1
    code, _, err = _run(capsys, "--ref", "a", "--hyp", "b", "--batch-size", "0")
    assert code == 2 and "batch_size" in err
    code, _, err = _run(capsys, "--ref", "a", "--hyp", "b", "--backend", "torch")
    assert code == 2 and "variant" in err


def test_progress_bar_and_empty_input(capsys, tmp_path):
    ref, hyp = _write_parallel(tmp_path)
    code, out, err = _run(capsys, "--ref-file", ref, "--hyp-file", hyp, "--progress")
    assert code == 0 and "sitar score" in err  # the tqdm bar went to stderr, not stdout
    assert [line.split("\t")[1] for line in out.splitlines()[2:-1]] == TSV_FP32
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    code, out, _ = _run(capsys, "--jsonl", str(empty), "--jsonl-out")
    assert code == 0
    objs = [json.loads(line) for line in out.splitlines()]
    assert len(objs) == 1 and objs[0]["system"] is None and objs[0]["n_pairs"] == 0
    code, out, _ = _run(capsys, "--jsonl", str(empty))
    assert out.splitlines()[-1].startswith("#system\tnan\t")
