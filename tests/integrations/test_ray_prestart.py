"""``sitar score --engine ray`` checks everything it can before Ray starts (issue #30): the output
folder, the checkpoint, every pair (with the same messages and exit code 2 as the local path) and
that a given ``--address`` answers within a deadline. Ray itself is not needed: starting it here
is a test failure."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

import sitar.integrations.ray as sitar_ray
from sitar.cli import main

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx"
LONG_WORD = "x" * 150


class RayStarted(Exception):
    pass


@pytest.fixture(autouse=True)
def no_ray(monkeypatch):
    def refuse():
        raise RayStarted("Ray was reached; the check must come before it")

    monkeypatch.setattr(sitar_ray, "_ray", refuse)


def _pairs(tmp_path, hypothesis="turn right"):
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps({"id": "u1", "reference": "turn left", "hypothesis": hypothesis}))
    return path


def _run(capsys, *argv):
    code = main(["score", *argv])
    captured = capsys.readouterr()
    return code, captured.err


def _local_message(capsys, pairs):
    code, err = _run(capsys, "--jsonl", str(pairs))
    assert code == 2
    return err.strip().splitlines()[-1]


def test_long_word_gives_the_local_message_and_exit_2(tmp_path, capsys):
    pairs = _pairs(tmp_path, hypothesis=f"turn {LONG_WORD}")
    local = _local_message(capsys, pairs)
    assert "150 characters" in local
    out = tmp_path / "shards"
    code, err = _run(capsys, "--jsonl", str(pairs), "--engine", "ray", "--output-dir", str(out))
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == local
    assert not out.exists()


def test_bad_checkpoint_fails_before_ray(tmp_path, capsys):
    code, err = _run(
        capsys, "--checkpoint", str(tmp_path / "nope"), "--jsonl", str(_pairs(tmp_path)),
        "--engine", "ray", "--output-dir", str(tmp_path / "o"),
    )  # fmt: skip
    assert code == 2 and "nope" in err and "Ray was reached" not in err


@pytest.mark.parametrize("kind", ["under a file", "non-empty", "a file"])
def test_output_dir_problems_fail_before_ray(tmp_path, capsys, kind):
    if kind == "under a file":
        (tmp_path / "f").write_text("x")
        out = tmp_path / "f" / "shards"
    elif kind == "non-empty":
        out = tmp_path / "shards"
        out.mkdir()
        (out / "old.parquet").write_text("x")
    else:
        out = tmp_path / "file"
        out.write_text("x")
    code, err = _run(
        capsys, "--checkpoint", str(TINY), "--jsonl", str(_pairs(tmp_path)), "--engine", "ray",
        "--output-dir", str(out),
    )  # fmt: skip
    assert code == 2 and "--output-dir" in err and "Ray was reached" not in err


def test_read_only_output_dir_fails_before_ray(tmp_path, capsys, monkeypatch):
    import os

    out = tmp_path / "ro"
    out.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, m, **k: False if str(p) == str(out) else real(p, m))
    code, err = _run(
        capsys, "--checkpoint", str(TINY), "--jsonl", str(_pairs(tmp_path)), "--engine", "ray",
        "--output-dir", str(out),
    )  # fmt: skip
    assert code == 2 and "not writable" in err and "Ray was reached" not in err


def test_unreachable_address_fails_fast(tmp_path, capsys):
    start = time.monotonic()
    code, err = _run(
        capsys, "--checkpoint", str(TINY), "--jsonl", str(_pairs(tmp_path)), "--engine", "ray",
        "--output-dir", str(tmp_path / "o"), "--address", "127.0.0.1:1",
    )  # fmt: skip
    assert time.monotonic() - start < 15
    assert code == 2 and "127.0.0.1:1" in err and "Ray was reached" not in err


def _listener(answer: bytes | None):
    """A local TCP server that accepts and then says ``answer`` (or nothing at all)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)

    def talk(conn):
        with conn:
            conn.recv(64)
            if answer is not None:
                conn.sendall(answer)
            time.sleep(3)

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=talk, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return server


def test_silent_address_hits_the_deadline(monkeypatch):
    from sitar.errors import InputError

    monkeypatch.setattr(sitar_ray, "CONNECT_TIMEOUT_S", 1.0)
    with _listener(None) as server:
        address = f"127.0.0.1:{server.getsockname()[1]}"
        start = time.monotonic()
        with pytest.raises(InputError, match="no answer within 1 s"):
            sitar_ray.check_address(address)
        assert time.monotonic() - start < 3


def test_address_that_is_not_ray(monkeypatch):
    from sitar.errors import InputError

    monkeypatch.setattr(sitar_ray, "CONNECT_TIMEOUT_S", 1.0)
    with _listener(b"HTTP/1.1 400 Bad Request\r\n\r\n") as server:
        with pytest.raises(InputError, match="gRPC"):
            sitar_ray.check_address(f"127.0.0.1:{server.getsockname()[1]}")


def test_grpc_answer_passes(monkeypatch):
    monkeypatch.setattr(sitar_ray, "CONNECT_TIMEOUT_S", 2.0)
    settings = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
    with _listener(settings) as server:
        sitar_ray.check_address(f"127.0.0.1:{server.getsockname()[1]}")
        sitar_ray.check_address(f"ray://127.0.0.1:{server.getsockname()[1]}")


def test_address_forms(monkeypatch):
    from sitar.errors import InputError

    assert sitar_ray.check_address(None) is None
    assert sitar_ray.check_address("auto") is None
    with pytest.raises(InputError, match="host:port"):
        sitar_ray.check_address("no-port-here")
    with pytest.raises(InputError, match="127.0.0.1:1"):
        sitar_ray.check_address("ray://127.0.0.1:1")
