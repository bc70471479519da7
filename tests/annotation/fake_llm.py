"""A scripted, deterministic OpenAI-compatible server for the annotation tests.

``FakeLLM`` runs a ``ThreadingHTTPServer`` on 127.0.0.1 (port 0) and answers
``POST /v1/chat/completions`` from the prompt content alone, so runs are reproducible:

- a gap's tier comes from a marker token in its hypothesis text (else its reference text):
  ``mk0``/``mk1``/``mk2``; no marker means T0;
- the round (or reviewer number) is ``seed - base_seed``;
- a case marker anywhere in the reference scripts misbehaviour (see ``handle`` and ``_answer``);
  the ``...once`` and ``case429`` scripts fire on the first request(s) for that reference only.

It counts every request (``requests``), the requests per body hash (``by_body``) and the usage
it reported (``usage``), so tests can check retries, duplicates and token accounting.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_GAP = re.compile(r'^(g\d+) \(\w+\): reference (".*") -> hypothesis (".*")$')
_PROPOSED = re.compile(r"^\s+proposed tier: T(\d)$")
_MARK = re.compile(r"\bmk([012])\b")


def _tier_of(ref: str, hyp: str) -> int:
    m = _MARK.search(hyp) or _MARK.search(ref)
    return int(m.group(1)) if m else 0


def parse_prompt(text: str) -> tuple[str, str, list[tuple[str, int, int | None]]]:
    """(task, reference, [(gap id, marker tier, proposed tier)]) from a rendered prompt."""
    if "TASK: RANK" in text:
        task = "ranking"
    elif "TASK: ASSIGN A TIER" in text:
        task = "tiers"
    elif "TASK: REVIEW" in text:
        task = "review"
    else:
        raise ValueError("unknown prompt")
    lines = text.split("\n")
    ref = lines[lines.index("REFERENCE:") + 1]
    gaps: list[tuple[str, int, int | None]] = []
    for line in lines:
        m = _GAP.match(line)
        if m:
            gaps.append(
                (m.group(1), _tier_of(json.loads(m.group(2)), json.loads(m.group(3))), None)
            )
            continue
        p = _PROPOSED.match(line)
        if p and gaps:
            gid, t, _ = gaps[-1]
            gaps[-1] = (gid, t, int(p.group(1)))
    return task, ref, gaps


class FakeLLM:
    def __init__(self, *, base_seed: int = 100, slow_s: float = 1.0) -> None:
        self.base_seed = base_seed
        self.slow_s = slow_s
        self.lock = threading.Lock()
        self.requests = 0
        self.answered = 0
        self.by_body: Counter[str] = Counter()
        self.by_case: Counter[str] = Counter()
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0}
        self.bodies: list[dict] = []
        self.inflight = 0
        self.max_inflight = 0
        self._seen: Counter[str] = Counter()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, like real endpoints
            disable_nagle_algorithm = True  # headers and body go out in separate writes

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                status, payload, headers = fake.handle(self.path, raw)
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # clients killed by the crash tests reset their connections

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- behaviour -----------------------------------------------------------------------
    def handle(self, path: str, raw: bytes):
        with self.lock:
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
        try:
            return self._handle(path, raw)
        finally:
            with self.lock:
                self.inflight -= 1

    def _handle(self, path: str, raw: bytes):
        body_hash = hashlib.sha256(raw).hexdigest()
        try:
            body = json.loads(raw)
        except ValueError:  # a client killed mid-request sent half a body
            return 400, b'{"error": "bad json"}', {}
        if path != "/v1/chat/completions":
            return 404, b'{"error": "not found"}', {}
        if body.get("model") == "missing-model":
            with self.lock:
                self.requests += 1
            return 404, b'{"error": "model not found"}', {}
        first = body["messages"][0]["content"]
        task, ref, gaps = parse_prompt(first)
        with self.lock:
            self.requests += 1
            self.by_body[body_hash] += 1
            # "once" scripts fire on the first request(s) that mention a reference.
            seen = self._seen[ref]
            self._seen[ref] += 1
            for case in re.findall(r"\bcase\w+", ref):
                self.by_case[case] += 1
            self.bodies.append(body)
        # Transport-level scripts.
        slept = "caseslowalways" in ref or ("caseslowonce" in ref and seen == 0)
        if slept:
            time.sleep(self.slow_s)
        if "case500always" in ref or ("case500once" in ref and seen == 0):
            return 500, b'{"error": "internal"}', {}
        if "case429" in ref and seen < 2:
            return 429, b'{"error": "rate limited"}', {"Retry-After": "0"}
        round_ = (body.get("seed") or self.base_seed) - self.base_seed
        text = self._answer(task, ref, gaps, round_, len(body["messages"]))
        prompt_tokens = sum(len(m["content"]) for m in body["messages"]) // 4 + 1
        completion_tokens = len(text) // 4 + 1
        with self.lock:
            # A slow answer arrives after the client's timeout: it never reaches the client,
            # so it is not part of the usage the client can account.
            if not slept:
                self.answered += 1
                self.usage["prompt_tokens"] += prompt_tokens
                self.usage["completion_tokens"] += completion_tokens
        payload = {
            "id": "fake",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return 200, json.dumps(payload).encode(), {}

    def _answer(self, task: str, ref: str, gaps, round_: int, n_messages: int) -> str:
        tiers = {gid: t for gid, t, _ in gaps}
        if task in ("tiers", "review"):
            if "casemalformedalways" in ref or ("casemalformedonce" in ref and n_messages == 1):
                return '{"tiers": {"g1": "T0",'  # truncated JSON
            if task == "tiers" and "caseschema" in ref:
                return json.dumps({"tiers": {gid: "T5" for gid in tiers}})
        if task != "review":
            # The scripted per-round tiers; ranking follows them so rounds stay consistent.
            if "casesplit" in ref:
                tiers[gaps[0][0]] = (round_ - 1) % 3
            if "casedissent" in ref and round_ == 3:
                tiers[gaps[0][0]] = min(2, tiers[gaps[0][0]] + 1)
        if task == "tiers":
            return json.dumps({"tiers": {gid: f"T{t}" for gid, t in tiers.items()}})
        if task == "review":
            if "casefilter" in ref:
                tiers = {gid: (t + 1) % 3 for gid, t in tiers.items()}
            if "casedissent" in ref:
                gid = gaps[0][0]
                tiers[gid] = min(2, tiers[gid] + 1)
            return json.dumps({"tiers": {gid: f"T{t}" for gid, t in tiers.items()}})
        # ranking: groups by tier, baseline with the T0 gaps.
        if "casecontradict" in ref:
            return json.dumps({"ranking": [["baseline", *tiers]]})
        groups: list[list[str]] = [["baseline"]]
        for t in (0, 1, 2):
            ids = [gid for gid, tt in tiers.items() if tt == t]
            if t == 0:
                groups[0].extend(ids)
            elif ids:
                groups.append(ids)
        return json.dumps({"ranking": groups})
