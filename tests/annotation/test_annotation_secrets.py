"""Issue 13: secrets never reach the run folder or the terminal.

Credentials in ``base_url`` are refused before anything is written; error bodies that echo the key
(a 401 that repeats the Authorization header) are redacted.
"""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from annotation.client import ClientConfig, redact
from annotation.config import RunConfig
from sitar.errors import InputError

KEY = "sk-proj-ABCDEFGHIJKLMNOP0123456789"


@pytest.mark.parametrize(
    "url",
    [
        "https://alice:s3cret@api.example.com/v1",
        "https://token@api.example.com/v1",
        "http://:pw@localhost:8000/v1",
        "https://api.example.com/v1?api_key=s3cret",
    ],
)
def test_credentials_in_base_url_are_refused(url, tmp_path):
    with pytest.raises(InputError, match="api_key_env") as e:
        ClientConfig(base_url=url)
    assert "s3cret" not in str(e.value) and "pw@" not in str(e.value)
    with pytest.raises(InputError):
        RunConfig.from_dict({"annotator": {"base_url": url}})
    # through the CLI: exit 2, nothing written in the run folder
    from annotation.__main__ import main

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "1", "reference": "a b", "hypothesis": "a c"}) + "\n")
    run_dir = tmp_path / "run"
    code = main(["run", str(run_dir), "--jsonl", str(pairs), "--base-url", url])
    assert code == 2
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and "s3cret" in p.read_text("latin-1")]
    assert leaked == []


def test_redact_masks_keys_and_tokens():
    text = (
        f'{{"error": "invalid key {KEY}", "header": "Authorization: Bearer {KEY}", '
        '"api_key": "abc123xyz", "other": "Bearer eyJhbGciOi.payload.sig"}'
    )
    out = redact(text, [KEY])
    assert KEY not in out and "abc123xyz" not in out and "eyJhbGciOi" not in out
    assert "invalid key ***" in out
    assert redact("sk-abcdefghijk and nothing else") == "*** and nothing else"
    assert redact("a normal message about 404 model not found") == (
        "a normal message about 404 model not found"
    )


class _EchoAuth(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps({"error": f"bad credentials: {self.headers.get('Authorization')}"})
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())


def test_401_that_echoes_the_key_is_redacted(monkeypatch):
    pytest.importorskip("httpx")
    from annotation.client import EndpointError, OpenAIChatClient

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EchoAuth)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("SITAR_TEST_KEY", KEY)
        cfg = ClientConfig(
            base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
            model="m",
            api_key_env="SITAR_TEST_KEY",
            max_retries=0,
        )
        with OpenAIChatClient(cfg) as client, pytest.raises(EndpointError) as e:
            client.complete([{"role": "user", "content": "hi"}])
        message = str(e.value)
        assert "401" in message and "bad credentials" in message
        assert KEY not in message and KEY[:12] not in message
    finally:
        server.shutdown()
        server.server_close()
