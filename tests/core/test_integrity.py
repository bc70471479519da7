"""Checkpoint integrity (sitar.integrity): recorded SHA-256 digests, tamper detection, symlinks."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from sitar.checkpoint import CONFIG_FILE, CheckpointConfig, default_checkpoint_path
from sitar.cli import main as sitar_main
from sitar.errors import CheckpointError, InputError
from sitar.integrity import INTEGRITY_KEY, checkpoint_id, verify_checkpoint
from sitar.signature import parse_signature

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


def test_shipped_checkpoint_and_fixture_carry_verified_digests():
    for folder in (default_checkpoint_path(), TINY):
        data = json.loads((folder / CONFIG_FILE).read_text())
        assert INTEGRITY_KEY in data, folder
        status = verify_checkpoint(folder, data)
        assert status.verified and status.digest == data[INTEGRITY_KEY]["digest"]
        assert set(data[INTEGRITY_KEY]["files"]) >= {data["tokenizer"]}
        assert {"score_scale", "thresholds", "rho", "max_length"} <= set(
            data[INTEGRITY_KEY]["fields"]["covered"]
        )


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(
            score_scale=2.1
        ),  # in bounds (out of bounds: tests/core/test_checkpoint_bounds.py)
        lambda d: d.update(rho=0.25),
        lambda d: d.update(max_length=d["max_length"] + 8),
        lambda d: d["thresholds"].__setitem__(0, 0.3),
        lambda d: d.update(head={"kind": "per-gap"}),  # a new score-changing section appears
        lambda d: d["onnx"].update(default="int8" if d["onnx"]["default"] == "fp32" else "fp32"),
    ],
)
def test_tampered_config_is_a_checkpoint_error(tiny_copy, change):
    _edit(tiny_copy, change)
    with pytest.raises(CheckpointError, match="integrity check"):
        CheckpointConfig.load(tiny_copy)


def test_tampered_files_are_named(tiny_copy):
    (tiny_copy / "tokenizer.json").write_text((TINY / "tokenizer.json").read_text() + " ")
    with pytest.raises(CheckpointError, match="'tokenizer.json' differs"):
        CheckpointConfig.load(tiny_copy)
    shutil.copy(TINY / "tokenizer.json", tiny_copy / "tokenizer.json")
    data = bytearray((tiny_copy / "model.onnx").read_bytes())
    data[-1] ^= 1
    (tiny_copy / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="'model.onnx' differs"):
        CheckpointConfig.load(tiny_copy)


def test_tampered_checkpoint_does_not_score(tiny_copy):
    from sitar.scorer import Scorer

    _edit(tiny_copy, lambda d: d.update(score_scale=2.2))
    with pytest.raises(CheckpointError, match="score-changing config values"):
        Scorer.load(tiny_copy, variant="fp32")


def test_unrecorded_checkpoint_loads_unverified_with_its_own_digest(tiny_copy, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(TINY, other)
    _edit(tiny_copy, lambda d: d.pop(INTEGRITY_KEY))
    _edit(other, lambda d: d.pop(INTEGRITY_KEY) and d.update(score_scale=2.0))
    a, b = CheckpointConfig.load(tiny_copy), CheckpointConfig.load(other)
    assert a.name == b.name
    ida, idb = checkpoint_id(a), checkpoint_id(b)
    assert re.fullmatch(r"sitar-tiny-test@[0-9a-f]{8}-unverified", ida)
    assert ida != idb  # two different checkpoints never share a signature


def test_write_then_verify_and_signature_digest(tiny_copy):
    from sitar.scorer import Scorer

    _edit(tiny_copy, lambda d: d.update(score_scale=2.0))
    assert sitar_main(["checkpoint", "sign", str(tiny_copy)]) == 0
    scorer = Scorer.load(tiny_copy, variant="fp32")
    fields = parse_signature(scorer.signature)
    digest = json.loads((tiny_copy / CONFIG_FILE).read_text())[INTEGRITY_KEY]["digest"]
    assert fields["ckpt"] == f"sitar-tiny-test@{digest[:8]}"
    original = Scorer.load(TINY, variant="fp32")
    assert original.signature != scorer.signature


def test_malformed_section(tiny_copy):
    _edit(tiny_copy, lambda d: d.update(integrity={"algorithm": "md5"}))
    with pytest.raises(CheckpointError, match="malformed"):
        CheckpointConfig.load(tiny_copy)


def test_symlink_out_of_the_folder_is_refused(tiny_copy, tmp_path):
    outside = tmp_path / "elsewhere.json"
    shutil.copy(TINY / "tokenizer.json", outside)
    (tiny_copy / "tokenizer.json").unlink()
    os.symlink(outside, tiny_copy / "tokenizer.json")
    with pytest.raises(CheckpointError, match="symbolic link"):
        CheckpointConfig.load(tiny_copy)
    # also an unreferenced link, and also without digests
    (tiny_copy / "tokenizer.json").unlink()
    shutil.copy(TINY / "tokenizer.json", tiny_copy / "tokenizer.json")
    os.symlink("/etc/passwd", tiny_copy / "notes.txt")
    _edit(tiny_copy, lambda d: d.pop(INTEGRITY_KEY))
    with pytest.raises(CheckpointError, match="notes.txt"):
        CheckpointConfig.load(tiny_copy)


def test_symlink_inside_the_folder_is_fine(tiny_copy):
    (tiny_copy / "tok").mkdir()
    shutil.move(tiny_copy / "tokenizer.json", tiny_copy / "tok" / "tokenizer.json")
    os.symlink("tok/tokenizer.json", tiny_copy / "tokenizer.json")
    assert CheckpointConfig.load(tiny_copy).name == "sitar-tiny-test"


@pytest.mark.parametrize("bad", [123, 1.5, b"folder", ["a"]])
def test_scorer_load_rejects_non_path_types(bad):
    from sitar.scorer import Scorer

    with pytest.raises(InputError, match="folder path"):
        Scorer.load(bad)


def test_hugging_face_cache_snapshot_links_are_allowed(tmp_path):
    """huggingface_hub snapshots are symlinks into the repo's blobs/; they stay inside the repo."""
    repo = tmp_path / "models--owner--name"
    blobs, snap = repo / "blobs", repo / "snapshots" / "0123abc"
    blobs.mkdir(parents=True)
    snap.mkdir(parents=True)
    for f in TINY.iterdir():
        shutil.copy(f, blobs / f.name)
        os.symlink(Path("..", "..", "blobs", f.name), snap / f.name)
    assert CheckpointConfig.load(snap).name == "sitar-tiny-test"
    os.symlink(tmp_path, snap / "escape")
    with pytest.raises(CheckpointError, match="outside the checkpoint folder"):
        CheckpointConfig.load(snap)


def test_checkpoint_command_verify_and_sign(tiny_copy, capsys):
    """`sitar checkpoint verify` prints the signature's ckpt field; a hand edit fails it (exit 2,
    one line naming the fix); `sitar checkpoint sign` records the edit, after which it verifies."""
    assert sitar_main(["checkpoint", "verify", str(tiny_copy)]) == 0
    digest = json.loads((tiny_copy / CONFIG_FILE).read_text())[INTEGRITY_KEY]["digest"]
    assert capsys.readouterr().out == f"{tiny_copy}: sitar-tiny-test@{digest[:8]}\n"
    _edit(tiny_copy, lambda d: d.update(score_scale=2.0))
    assert sitar_main(["checkpoint", "verify", str(tiny_copy)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sitar checkpoint: error:") and "sitar checkpoint sign" in err
    assert err.count("\n") == 1
    assert sitar_main(["checkpoint", "sign", str(tiny_copy)]) == 0
    new = json.loads((tiny_copy / CONFIG_FILE).read_text())[INTEGRITY_KEY]["digest"]
    assert capsys.readouterr().out == f"{tiny_copy}: digest {new[:8]} recorded\n"
    assert new != digest
    assert sitar_main(["checkpoint", "verify", str(tiny_copy)]) == 0
    assert capsys.readouterr().out == f"{tiny_copy}: sitar-tiny-test@{new[:8]}\n"


def test_old_integrity_entry_point_still_works_with_a_notice(tiny_copy):
    """`python -m sitar.integrity write|verify` (documented before `sitar checkpoint`) runs the
    new command and says so on stderr."""
    import subprocess
    import sys

    def old(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "sitar.integrity", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )

    _edit(tiny_copy, lambda d: d.update(score_scale=2.0))
    failed = old("verify", str(tiny_copy))
    assert failed.returncode == 2 and "failed its integrity check" in failed.stderr
    wrote = old("write", str(tiny_copy))
    assert wrote.returncode == 0, wrote.stderr
    assert "deprecated; use `sitar checkpoint sign" in wrote.stderr
    assert wrote.stdout.endswith(" recorded\n")
    verified = old("verify", str(tiny_copy))
    assert verified.returncode == 0 and "sitar-tiny-test@" in verified.stdout
    assert "deprecated; use `sitar checkpoint verify" in verified.stderr
