"""Checkpoints cannot lie (issue #30): bounded config values, digests over every score-changing
scalar and the name, unverified checkpoints need an explicit opt-in, normalised scores in [0, 1]."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from sitar.checkpoint import CONFIG_FILE, CheckpointConfig, default_checkpoint_path, write_integrity
from sitar.errors import CheckpointError, InputError
from sitar.integrity import INTEGRITY_KEY, verify_checkpoint

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx"


@pytest.fixture
def tiny_copy(tmp_path: Path) -> Path:
    dst = tmp_path / "ckpt"
    shutil.copytree(TINY, dst)
    return dst


def _edit(folder: Path, change) -> None:
    path = folder / CONFIG_FILE
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def _unsigned(d: dict) -> None:
    d.pop(INTEGRITY_KEY)


# -- bounds ------------------------------------------------------------------------------------

BROKEN = {
    "score_scale tiny": lambda d: d.update(score_scale=0.001),
    "score_scale zero": lambda d: d.update(score_scale=0.0),
    "score_scale huge": lambda d: d.update(score_scale=1e6),
    "score_scale under the top threshold": lambda d: d.update(score_scale=1.5),
    "max_length huge": lambda d: d.update(max_length=100_000),
    "rho one": lambda d: d.update(rho=1.0),
    "threshold above the scale": lambda d: d.update(thresholds=[0.5, 1.0, 9.0]),
    "threshold negative": lambda d: d.update(thresholds=[-1.0, 1.0]),
    "no thresholds": lambda d: d.update(thresholds=[]),
    "name with a newline": lambda d: d.update(name="evil\nsitar:0.1.0\tinjected"),
    "name with a tab": lambda d: d.update(name="a\tb"),
    "name with a bar": lambda d: d.update(name="a|rho:0.9"),
    "name too long": lambda d: d.update(name="n" * 1000),
    "backbone with a newline": lambda d: d.update(backbone="x\ny"),
    "pad_token_id negative": lambda d: d.update(pad_token_id=-1),
    "pad_token_id a string": lambda d: d.update(pad_token_id="0"),
    "opset absurd": lambda d: d["onnx"].update(opset=10**9),
    "loss weight negative": lambda d: d.update(loss_weights={"ordinal": -1.0}),
    "head num_thresholds mismatch": lambda d: d.update(head={"num_thresholds": 3}),
    "head dropout out of range": lambda d: d.update(head={"dropout": 2.0}),
    "scoring head unknown": lambda d: d.update(scoring={"head": "bogus"}),
    "markers negative id": lambda d: d.update(
        markers={"open": "[", "close": "]", "open_id": -5, "close_id": 3, "version": "1"}
    ),
}


@pytest.mark.parametrize("change", BROKEN.values(), ids=BROKEN.keys())
def test_out_of_bound_values_never_load_even_when_re_signed(tiny_copy, change):
    _edit(tiny_copy, lambda d: (_unsigned(d), change(d)))
    with pytest.raises(CheckpointError):
        CheckpointConfig.load(tiny_copy)
    # Re-signing must not launder a broken config: the signing tool refuses it...
    with pytest.raises(CheckpointError):
        write_integrity(tiny_copy)
    # ... and a section forged by hand (digests recomputed without the tool) changes nothing.
    from sitar.integrity import compute_integrity

    data = json.loads((tiny_copy / CONFIG_FILE).read_text())
    data[INTEGRITY_KEY] = compute_integrity(tiny_copy, data)
    (tiny_copy / CONFIG_FILE).write_text(json.dumps(data))
    with pytest.raises(CheckpointError):
        CheckpointConfig.load(tiny_copy)


def test_hand_built_config_is_bounded_too():
    with pytest.raises(CheckpointError, match="score_scale"):
        CheckpointConfig(name="x", backbone="b", max_length=64, score_scale=0.001)
    with pytest.raises(CheckpointError, match="max_length"):
        CheckpointConfig(name="x", backbone="b", max_length=100_000)


def test_deeply_nested_config_is_a_checkpoint_error(tiny_copy):
    text = (tiny_copy / CONFIG_FILE).read_text()
    deep = "[" * 100_000 + "]" * 100_000
    (tiny_copy / CONFIG_FILE).write_text(text.rstrip().rstrip("}") + f', "deep": {deep}}}')
    with pytest.raises(CheckpointError, match="nest"):
        CheckpointConfig.load(tiny_copy)


def test_fifo_tokenizer_is_not_reported_missing(tiny_copy):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    (tiny_copy / "tokenizer.json").unlink()
    os.mkfifo(tiny_copy / "tokenizer.json")
    with pytest.raises(CheckpointError, match="not a regular file"):
        CheckpointConfig.load(tiny_copy)


def test_fifo_config_is_named_and_never_blocks(tiny_copy):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    (tiny_copy / CONFIG_FILE).unlink()
    os.mkfifo(tiny_copy / CONFIG_FILE)
    with pytest.raises(CheckpointError, match="not a regular file"):
        CheckpointConfig.load(tiny_copy)
    with pytest.raises(CheckpointError, match="not a regular file"):
        write_integrity(tiny_copy)


@pytest.mark.parametrize("empty", ["", "   "])
def test_empty_checkpoint_path_is_refused(empty):
    from sitar.scorer import resolve_checkpoint

    with pytest.raises(InputError, match="empty"):
        resolve_checkpoint(empty)


# -- digests -----------------------------------------------------------------------------------


def test_shipped_checkpoints_cover_name_and_pad_token_id():
    for folder in (default_checkpoint_path(), TINY):
        data = json.loads((folder / CONFIG_FILE).read_text())
        covered = set(data[INTEGRITY_KEY]["fields"]["covered"])
        assert {"name", "pad_token_id", "score_scale", "max_length", "rho"} <= covered
        assert verify_checkpoint(folder, data).verified


@pytest.mark.parametrize(
    "change",
    [lambda d: d.update(name="sitar-other"), lambda d: d.update(pad_token_id=1)],
    ids=["name", "pad_token_id"],
)
def test_name_and_pad_token_id_are_covered(tiny_copy, change):
    _edit(tiny_copy, change)
    with pytest.raises(CheckpointError, match="integrity check"):
        CheckpointConfig.load(tiny_copy)


def test_digests_from_before_name_coverage_count_as_unverified(tiny_copy):
    # A checkpoint signed by an older sitar (its covered list lacks 'name'): its digests still
    # catch tampering with what they cover, but the checkpoint is not verified.
    import hashlib

    from sitar.integrity import _canonical, _overall

    data = json.loads((tiny_copy / CONFIG_FILE).read_text())
    section = data[INTEGRITY_KEY]
    covered = [k for k in section["fields"]["covered"] if k not in ("name", "pad_token_id")]
    fields_sha = hashlib.sha256(_canonical({k: data.get(k) for k in covered})).hexdigest()
    section["fields"] = {"covered": covered, "sha256": fields_sha}
    section["digest"] = _overall(section["files"], fields_sha)
    (tiny_copy / CONFIG_FILE).write_text(json.dumps(data))
    status = verify_checkpoint(tiny_copy, data)
    assert not status.verified and "name" in status.reason
    data["rho"] = 0.25
    with pytest.raises(CheckpointError, match="integrity check"):
        verify_checkpoint(tiny_copy, data)


# -- unverified checkpoints need an opt-in -------------------------------------------------------


def test_unverified_checkpoint_needs_allow_unverified(tiny_copy):
    from sitar.scorer import Scorer

    _edit(tiny_copy, _unsigned)
    with pytest.raises(CheckpointError, match="allow_unverified"):
        Scorer.load(tiny_copy, variant="fp32")
    with pytest.warns(UserWarning, match="unverified"):
        scorer = Scorer.load(tiny_copy, variant="fp32", allow_unverified=True)
    assert scorer.signature.split("|")[6].endswith("-unverified")
    result = scorer.score(references=["turn left"], hypotheses=["turn right"])
    assert len(result.scores) == 1


def test_verified_checkpoint_loads_without_warning():
    from sitar.scorer import Scorer

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Scorer.load(TINY, variant="fp32")


def test_cli_unverified_checkpoint_exit_2_then_allowed(tiny_copy, tmp_path, capsys):
    from sitar.cli import main

    _edit(tiny_copy, _unsigned)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        json.dumps({"id": "u1", "reference": "turn left", "hypothesis": "turn right"}) + "\n"
    )
    out = tmp_path / "out.tsv"
    argv = ["score", "--checkpoint", str(tiny_copy), "--variant", "fp32", "--jsonl", str(pairs)]
    assert main([*argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--allow-unverified" in err and "Traceback" not in err
    assert not out.exists()
    # A fresh interpreter, as a user runs it: the warning reaches stderr.
    proc = subprocess.run(
        [sys.executable, "-m", "sitar", *argv, "-o", str(out), "--allow-unverified"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "unverified" in proc.stderr and "Traceback" not in proc.stderr
    rows = [line for line in out.read_text().splitlines() if not line.startswith("#")]
    assert rows[1:] == [rows[1]] and rows[1].startswith("u1\t")  # the header and one row


# -- normalised scores are in [0, 1] -------------------------------------------------------------


def test_normalised_score_is_clamped_by_construction():
    from sitar.scorer import PairAnalysis, Scorer
    from sitar.targets import MAX_SCORE, normalize_score

    assert normalize_score(5.0, scale=2.0) == 1.0
    assert normalize_score(-1.0, scale=2.0) == 0.0
    assert normalize_score(MAX_SCORE) == 1.0
    scorer = Scorer.load(TINY, variant="fp32")
    object.__setattr__(scorer.config, "score_scale", 2.0)  # a bounded scale under the gap maximum
    analyses = [PairAnalysis(r, False, False, 1, None, None) for r in (2.3, -0.5, 1.0)]
    result = scorer.result_of(analyses)
    assert result.scores == (1.0, 0.0, 0.5)
    assert all(0.0 <= s <= 1.0 for s in result.scores)


def test_signature_fields_cannot_hold_control_characters():
    from sitar.signature import make_signature

    for bad in ("a\nb", "a\tb", "a\rb", "a\x00b"):
        with pytest.raises(InputError):
            make_signature(analyzer="x", checkpoint=bad)
        with pytest.raises(InputError):
            make_signature(analyzer=bad)
        with pytest.raises(InputError):
            make_signature(analyzer="x", extra={"k": bad})


def test_name_cannot_inject_tsv_rows(tiny_copy, tmp_path, capsys):
    from sitar.cli import main

    _edit(tiny_copy, lambda d: d.update(name="evil\n#signature\tforged"))
    write = None
    with pytest.raises(CheckpointError):
        write = write_integrity(tiny_copy)
    assert write is None
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "u1", "reference": "a", "hypothesis": "b"}) + "\n")
    code = main(
        ["score", "--checkpoint", str(tiny_copy), "--jsonl", str(pairs), "--allow-unverified"]
    )
    captured = capsys.readouterr()
    assert code == 2
    assert "forged" not in captured.out
    assert re.search(r"name", captured.err)


def test_onnx_runtime_failure_is_a_checkpoint_error():
    """A graph that cannot take an input (e.g. max_length past its position table, found only when
    a long input arrives) is a CheckpointError with the fix, never an onnxruntime traceback."""
    from onnxruntime.capi.onnxruntime_pybind11_state import Fail

    from sitar.scorer import Scorer

    scorer = Scorer.load(TINY, variant="fp32")

    class Broken:
        def run(self, names, feed):
            raise Fail("[ONNXRuntimeError] : 1 : FAIL : Attempting to broadcast 512 by 1023")

    scorer.predictor._session = Broken()
    with pytest.raises(CheckpointError, match="max_length"):
        scorer.score(references=["turn left"], hypotheses=["turn right"])


def test_serve_refuses_an_unverified_checkpoint_before_starting(tiny_copy, capsys):
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    pytest.importorskip("prometheus_client")
    from sitar.cli import main

    _edit(tiny_copy, _unsigned)
    code = main(["serve", "--checkpoint", str(tiny_copy), "--port", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "unverified" in err and "Traceback" not in err
