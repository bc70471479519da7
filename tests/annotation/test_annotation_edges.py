"""Annotation run edges of issue #30: usage fields validated, ``--timeout`` a total deadline per
attempt, secrets refused in every URL component, clean read-only and Ctrl-C handling."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from annotation_helpers import make_config
from fake_llm import FakeLLM

from annotation.client import ClientConfig, OpenAIChatClient, TransportError
from annotation.config import RunConfig
from annotation.journal import Journal
from annotation.pipeline import run_pairs, start_run
from sitar.errors import InputError, OutputError
from sitar.io import Pair

PAIRS = [Pair("p1", "please send the report mk0 today", "please send the report today")]


class BadUsageLLM(FakeLLM):
    """The fake endpoint, with one usage field replaced in every answer."""

    def __init__(self, field: str, value, **kw) -> None:
        super().__init__(**kw)
        self.field, self.value = field, value

    def _handle(self, path, raw):
        status, payload, headers = super()._handle(path, raw)
        if status == 200:
            data = json.loads(payload)
            if self.field == "usage":
                data["usage"] = self.value
            else:
                data["usage"][self.field] = self.value
            payload = json.dumps(data).encode()  # Infinity is written as the bare token
        return status, payload, headers


BAD_USAGE = [
    ("prompt_tokens", "lots"),
    ("prompt_tokens", float("inf")),
    ("prompt_tokens", float("nan")),
    ("completion_tokens", -2_000_000_000_000),
    ("prompt_tokens", -1),
    ("prompt_tokens", True),
    ("completion_tokens", 10**40),
    ("prompt_tokens", {"n": 1}),
    ("usage", "none"),
    ("usage", [1, 2]),
]


@pytest.mark.parametrize(("field", "value"), BAD_USAGE, ids=[f"{f}={v!r}" for f, v in BAD_USAGE])
def test_bad_usage_is_a_recorded_failure_never_a_negative_cost(tmp_path, field, value):
    with BadUsageLLM(field, value, base_seed=100) as server:
        run = tmp_path / "run"
        start_run(run, PAIRS, make_config(server, reviewers=1))
        summary = run_pairs(run, budget=0.0001)
        sent = server.requests
    assert summary.usage.cost >= 0.0
    with Journal(run / "journal.sqlite") as journal:
        calls = journal.calls()
        assert calls, "the call was not recorded"
        assert all(not c.ok and "usage" in c.problem for c in calls)
        assert journal.totals()["cost"] >= 0.0
    # No retry storm and no budget defeat: one failed call per attempt budget, not 20.
    assert sent <= 3


def test_good_usage_still_counts(tmp_path):
    with FakeLLM(base_seed=100) as server:
        run = tmp_path / "run"
        start_run(run, PAIRS, make_config(server, reviewers=1))
        run_pairs(run)
    with Journal(run / "journal.sqlite") as journal:
        assert all(c.ok for c in journal.calls())
        assert journal.totals()["cost"] > 0


class TrickleServer:
    """Answers 200 one byte per ``interval`` seconds, in the headers or in the body."""

    def __init__(self, where: str, interval: float = 0.5) -> None:
        self.where, self.interval = where, interval
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        self.sock.settimeout(0.1)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        body = b'{"choices": [{"message": {"content": "{}"}}], "usage": {}}' + b" " * 200
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        head += b"X-Pad: " + b"a" * 200 + b"\r\n"
        head += f"Content-Length: {len(body)}\r\n\r\n".encode()
        try:
            conn.recv(65536)
            if self.where == "body":
                conn.sendall(head)
            data = head + body if self.where == "headers" else body
            for i in range(len(data)):
                if self.stop.is_set():
                    break
                conn.sendall(data[i : i + 1])
                time.sleep(self.interval)
        except OSError:
            pass
        finally:
            conn.close()

    def __enter__(self) -> TrickleServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.sock.close()


@pytest.mark.parametrize("where", ["headers", "body"])
def test_timeout_is_a_total_deadline_per_attempt(where):
    with TrickleServer(where) as server:
        cfg = ClientConfig(
            base_url=server.base_url,
            model="m",
            api_key_env="",
            timeout_s=1.0,
            max_retries=1,
            backoff_base_s=0.001,
            backoff_max_s=0.002,
        )
        with OpenAIChatClient(cfg) as client:
            start = time.monotonic()
            with pytest.raises(TransportError, match="deadline|timed out|Timeout"):
                client.complete([{"role": "user", "content": "hi"}])
            elapsed = time.monotonic() - start
    # Two attempts of at most 1 s each, plus a little slack (never the server's 100+ s).
    assert elapsed < 4.0


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/good/sk-ABCDEFGHIJKLMNOPQRSTUVWX12/v1",
        "https://api.example.com/v1/sk-proj-abcdefghij0123456789",
        "https://api.example.com/v1#sk-ABCDEFGHIJKLMNOPQRSTUVWX12",
        "https://api.example.com/key=s3cretvalue123/v1",
        "https://api.example.com/v1;token=s3cretvalue123",
        "https://api.example.com/v1?x=1&access_token=s3cretvalue123",
        "https://api.example.com/v1/Bearer%20s3cretvalue123",
        "https://api.example.com/v1/hf_abcdefghijklmnopqrstuvwxyz0123",
        "https://api.example.com/v1/AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
        "https://api.example.com/v1/gsk_abcdefghij0123456789ABCDEFGH",
        "https://api.example.com/v1/Zx8Kq2Lm9Np4Rt6Vw1Yb3Cd5Fg7Hj0Ks",  # a bare random token
    ],
)
def test_secrets_in_any_url_component_are_refused_before_anything_is_written(url, tmp_path):
    from annotation.__main__ import main

    with pytest.raises(InputError, match="api_key_env") as info:
        ClientConfig(base_url=url)
    assert "s3cret" not in str(info.value) and "sk-" not in str(info.value)
    with pytest.raises(InputError):
        RunConfig.from_dict({"annotator": {"base_url": url}})
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "1", "reference": "a b", "hypothesis": "a c"}) + "\n")
    code = main(["run", str(tmp_path / "run"), "--jsonl", str(pairs), "--base-url", url])
    assert code == 2
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com/v1",
        "https://api.deepseek.com/v1",
        "http://localhost:8000/v1",
        "https://my-resource.openai.azure.com/openai/deployments/gpt-4o-mini-2024-07-18",
        "https://api.example.com/v1/models/meta-llama-3.1-70b-instruct",
        "https://gateway.example.com/v1/0a1b2c3d-4e5f-6789-abcd-ef0123456789/openai",
    ],
)
def test_ordinary_urls_are_accepted(url):
    assert ClientConfig(base_url=url).base_url == url


def test_run_folder_that_cannot_be_created_is_one_line(tmp_path, capsys):
    from annotation.__main__ import main

    blocker = tmp_path / "file"
    blocker.write_text("x")
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "1", "reference": "a b", "hypothesis": "a c"}) + "\n")
    code = main(["run", str(blocker / "run"), "--jsonl", str(pairs), "--api-key-env", ""])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and "run folder" in err


def test_read_only_run_folder_is_a_clean_error(tmp_path, monkeypatch):
    """A journal that refuses writes (a read-only folder or file system) is an OutputError that
    names the folder, and nothing already journaled is lost."""
    with FakeLLM(base_seed=100) as server:
        run = tmp_path / "run"
        start_run(run, PAIRS, make_config(server, reviewers=1))
        before = (run / "journal.sqlite").read_bytes()
        real_connect = sqlite3.connect

        def read_only(*args, **kwargs):
            db = real_connect(*args, **kwargs)
            db.execute("PRAGMA query_only = ON")  # what a read-only file system gives
            return db

        monkeypatch.setattr(sqlite3, "connect", read_only)
        with pytest.raises(OutputError, match="read-only|cannot write"):
            run_pairs(run)
        monkeypatch.undo()
        assert (run / "journal.sqlite").read_bytes() == before
        summary = run_pairs(run)  # writable again: resume completes
    assert summary.outcomes.get("pending", 0) == 0


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only folders anyway")
def test_chmod_read_only_run_folder(tmp_path, capsys):
    from annotation.__main__ import main

    with FakeLLM(base_seed=100) as server:
        run = tmp_path / "run"
        start_run(run, PAIRS, make_config(server, reviewers=1))
        run.chmod(0o555)
        (run / "journal.sqlite").chmod(0o444)
        try:
            assert main(["resume", str(run)]) == 2
        finally:
            run.chmod(0o755)
    assert "Traceback" not in capsys.readouterr().err


def test_ctrl_c_exits_130_without_traceback(tmp_path, capsys, monkeypatch):
    from annotation import __main__ as cli
    from annotation import pipeline

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    with FakeLLM(base_seed=100) as server:
        run = tmp_path / "run"
        start_run(run, PAIRS, make_config(server, reviewers=1))
        monkeypatch.setattr(pipeline, "run_pairs", interrupted)
        assert cli.main(["resume", str(run)]) == 130
        err = capsys.readouterr().err
        assert "Traceback" not in err and "resume" in err
        monkeypatch.undo()
        summary = run_pairs(run)
    assert summary.outcomes.get("pending", 0) == 0


def test_start_run_leaves_no_half_made_folder(tmp_path, monkeypatch):
    """A run folder either has both its journal and config.json, or is not a run folder."""
    with FakeLLM(base_seed=100) as server:
        run = tmp_path / "run"
        config = make_config(server, reviewers=1)

        def fail(*args, **kwargs):
            raise KeyboardInterrupt

        monkeypatch.setattr(Path, "write_text", fail)
        monkeypatch.setattr(os, "replace", fail)
        with pytest.raises(KeyboardInterrupt):
            start_run(run, PAIRS, config)
        monkeypatch.undo()
        assert not (run / "journal.sqlite").exists()
        start_run(run, PAIRS, config)  # the same folder starts cleanly


@pytest.mark.parametrize(
    "settings",
    [
        {"api_key_env": "sk-proj-ABCDEFGHIJKLMNOP0123456789"},
        {"api_key_env": "my key"},
        {"model": "sk-ABCDEFGHIJKLMNOPQRSTUVWX12"},
    ],
)
def test_a_key_in_another_setting_is_refused(settings):
    with pytest.raises(InputError) as info:
        ClientConfig(**settings)
    assert "ABCDEFGH" not in str(info.value)
