"""`sitar serve` end to end: a real server process on loopback, every endpoint, auth, limits,
scores identical to Scorer.score, queue-full behaviour and graceful shutdown with a request in
flight."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")
pytest.importorskip("prometheus_client")
httpx = pytest.importorskip("httpx")

from serve_helpers import TINY, Server  # noqa: E402

from sitar.errors import InputError  # noqa: E402

KEY = "s3cret-token-for-tests-0123456789"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    key_file = tmp / "key.txt"
    key_file.write_text(KEY + "\n", encoding="utf-8")
    srv = Server(
        tmp,
        "--api-key-file", str(key_file),
        "--max-pairs", "50",
        "--max-chars", "200",
        "--max-wait-ms", "20",
        "--max-batch-pairs", "16",
    )  # fmt: skip
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


AUTH = {"Authorization": f"Bearer {KEY}"}


def post(srv, path, body, headers=AUTH):
    return srv.client.post(path, json=body, headers=headers)


def random_pairs(n, seed=3):
    rng = random.Random(seed)
    words = "the a cat dog sat on mat call send invoice friday monday doctor table".split()
    refs = [" ".join(rng.choices(words, k=rng.randint(1, 20))) for _ in range(n)]
    hyps = [" ".join(rng.choices(words, k=rng.randint(1, 20))) for _ in range(n)]
    refs[0] = hyps[0] = "identical pair"
    return refs, hyps


def test_health_and_ready(server, tiny_scorer):
    assert server.client.get("/healthz").json()["status"] == "ok"
    ready = server.client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["signature"] == tiny_scorer.signature
    assert ready.headers["x-request-id"]


def test_scores_identical_to_scorer_whatever_the_batching(server, tiny_scorer):
    """Concurrent requests are merged into shared model calls; every request's scores equal
    Scorer.score on the same pairs, one by one and as one batch (the tiny fp32 model is batch
    invariant to float rounding; exact once the scorer is exactly batch invariant)."""
    refs, hyps = random_pairs(40)
    batched = tiny_scorer.score(references=refs, hypotheses=hyps, batch_size=32)
    alone = [
        tiny_scorer.score(references=[r], hypotheses=[h]).scores[0]
        for r, h in zip(refs, hyps, strict=True)
    ]
    np.testing.assert_allclose(batched.scores, alone, atol=1e-6)

    # 40 single-pair requests and 4 ten-pair requests, all at once.
    chunks = [(refs[i : i + 10], hyps[i : i + 10]) for i in range(0, 40, 10)]
    with ThreadPoolExecutor(16) as pool:
        singles = list(
            pool.map(
                lambda rh: post(
                    server, "/v1/score", {"references": [rh[0]], "hypotheses": [rh[1]]}
                ),
                zip(refs, hyps, strict=True),
            )
        )
        multis = list(
            pool.map(
                lambda c: post(server, "/v1/score", {"references": c[0], "hypotheses": c[1]}),
                chunks,
            )
        )
    assert all(r.status_code == 200 for r in singles + multis)
    got_single = [r.json()["scores"][0] for r in singles]
    np.testing.assert_allclose(got_single, alone, atol=1e-6)
    np.testing.assert_allclose(got_single, batched.scores, atol=1e-6)
    for k, r in enumerate(multis):
        body = r.json()
        want = tiny_scorer.score(references=chunks[k][0], hypotheses=chunks[k][1])
        np.testing.assert_allclose(body["scores"], want.scores, atol=1e-6)
        np.testing.assert_allclose(body["raw"], want.raw, atol=1e-6)
        assert body["identical"] == list(want.identical)
        assert body["n_pairs"] == 10 and body["signature"] == tiny_scorer.signature
        assert body["system_score"] == pytest.approx(want.system_score, abs=1e-6)
    assert singles[0].json()["identical"] == [True] and singles[0].json()["scores"] == [0.0]


def test_empty_request(server):
    r = post(server, "/v1/score", {"references": [], "hypotheses": []})
    assert r.status_code == 200
    assert r.json()["n_pairs"] == 0 and r.json()["system_score"] is None


def test_explain_matches_scorer(server, tiny_scorer):
    ref, hyp = "please send the invoice on friday", "please send an invoice on monday"
    r = post(server, "/v1/explain", {"reference": ref, "hypothesis": hyp})
    assert r.status_code == 200
    got, want = r.json(), tiny_scorer.explain(ref, hyp).to_dict()
    assert got["n_gaps"] == want["n_gaps"] >= 1
    assert got["score"] == pytest.approx(want["score"], abs=1e-6)
    for g, w in zip(got["gaps"], want["gaps"], strict=True):
        assert (g["ref_text"], g["hyp_text"], g["tier"]) == (
            w["ref_text"],
            w["hyp_text"],
            w["tier"],
        )
        assert g["score"] == pytest.approx(w["score"], abs=1e-6)
    assert got["signature"] == want["signature"]


def test_auth(server):
    body = {"references": ["a"], "hypotheses": ["b"]}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}):
        r = post(server, "/v1/score", body, headers=headers)
        assert r.status_code == 401 and r.json()["error"] == "unauthorized"
        assert r.headers["www-authenticate"] == "Bearer"
    assert post(server, "/v1/explain", {"reference": "a", "hypothesis": "b"}, {}).status_code == 401
    assert server.client.get("/metrics").status_code == 401
    assert server.client.get("/metrics", headers=AUTH).status_code == 200
    # probes stay open for orchestrators
    assert server.client.get("/healthz").status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"references": "a", "hypotheses": ["b"]},
        {"references": ["a", "b"], "hypotheses": ["a", "b", "c"]},
        {"references": ["a", "b"], "hypotheses": ["a", 3]},
        {"references": [None], "hypotheses": ["a"]},
    ],
)
def test_validation_messages_are_the_scorers(server, body, tiny_scorer):
    r = post(server, "/v1/score", body)
    assert r.status_code == 422 and r.json()["error"] == "invalid"
    with pytest.raises(InputError) as info:
        tiny_scorer.score(**body)
    assert r.json()["message"] == str(info.value)


def test_bad_input_statuses(server):
    def status(body=None, content=None, path="/v1/score"):
        if content is not None:
            r = server.client.post(
                path, content=content, headers={**AUTH, "Content-Type": "application/json"}
            )
        else:
            r = post(server, path, body)
        return r.status_code, r.json()

    code, err = status(content=b"{not json")
    assert (code, err["error"]) == (400, "bad_request")
    code, err = status(content=b"\xff\xfe")
    assert code == 400
    code, err = status(body=["a"])
    assert (code, err["error"]) == (422, "invalid")
    r = server.client.post(
        "/v1/score", content=b'{"references": [], "hypotheses": []}', headers=AUTH
    )
    assert (r.status_code, r.json()["error"]) == (415, "unsupported_media_type")
    code, err = status(body={"references": ["a"]})
    assert (code, err["message"]) == (422, "missing field(s) hypotheses")
    code, err = status(body={"references": ["a"], "hypotheses": ["b"], "batch_size": 4})
    assert code == 422 and "unknown field(s) batch_size" in err["message"]
    code, err = status(body={"references": ["a"] * 51, "hypotheses": ["b"] * 51})
    assert (code, err["error"]) == (413, "too_large") and "got 51, the limit is 50" in err[
        "message"
    ]
    code, err = status(body={"references": ["a", "x" * 201], "hypotheses": ["b", "y"]})
    assert code == 413 and err["message"].startswith("references[1] has 201 characters")
    code, err = status(content=b'{"references": ["' + b"x" * 2_000_000 + b'"]}')
    assert code == 413 and "over the limit" in err["message"]
    code, err = status(path="/v1/explain", body={"reference": "a", "hypothesis": 3})
    assert (code, err["message"]) == (422, "hypothesis must be a str, got int")
    code, err = status(path="/v1/explain", body={"reference": "a" * 201, "hypothesis": "b"})
    assert code == 413
    # the server is still healthy after all that
    assert post(server, "/v1/score", {"references": ["a"], "hypotheses": ["b"]}).status_code == 200


def test_unknown_path_wrong_method_and_schema_on_a_real_server(server):
    """`curl localhost:8000/nope` is a JSON 404 (no key needed to be told so); a wrong method is
    a JSON 405 with Allow; /openapi.json is valid OpenAPI 3 and /docs an HTML page."""
    from openapi_spec_validator import validate

    # (not "/nope": the access-log test below looks for the token "nope" in the log)
    r = server.client.get("/no-such-endpoint")
    assert r.status_code == 404 and r.headers["content-type"] == "application/json"
    assert r.json()["error"] == "not_found"
    r = server.client.get("/v1/score", headers=AUTH)
    assert (r.status_code, r.json()["error"], r.headers["allow"]) == (
        405,
        "method_not_allowed",
        "POST",
    )
    validate(server.client.get("/openapi.json").json())
    assert server.client.get("/docs").headers["content-type"].startswith("text/html")


def test_metrics(server):
    post(server, "/v1/score", {"references": ["a", "b"], "hypotheses": ["c", "b"]})
    post(server, "/v1/score", {"references": "a", "hypotheses": "b"})
    text = server.client.get("/metrics", headers=AUTH).text
    assert re.search(r'sitar_requests_total\{endpoint="/v1/score",status="200"\} [1-9]', text)
    assert re.search(r'sitar_errors_total\{kind="invalid"\} [1-9]', text)
    assert re.search(r"sitar_batch_pairs_count [1-9]", text)
    assert re.search(r"sitar_pairs_scored_total [1-9]", text)
    assert "sitar_queue_pairs 0.0" in text
    assert "sitar_ready 1.0" in text
    assert 'sitar_request_seconds_bucket{endpoint="/v1/score",le="0.5"}' in text


def test_access_log_is_json_and_never_holds_the_key(server):
    post(server, "/v1/score", {"references": ["secret text"], "hypotheses": ["x"]})
    post(
        server,
        "/v1/score",
        {"references": ["a"], "hypotheses": ["b"]},
        {"Authorization": "Bearer nope"},
    )
    time.sleep(0.2)
    log = server.log()
    assert KEY not in log and "nope" not in log and "secret text" not in log
    records = [json.loads(line) for line in log.splitlines() if line.startswith('{"ts"')]
    score = [r for r in records if r["path"] == "/v1/score"]
    assert {r["status"] for r in score} >= {200, 401}
    assert all(set(r) >= {"request_id", "method", "status", "ms", "client"} for r in score)


# -- queue full and graceful shutdown (their own server: long batching wait, tiny queue) ----------


@pytest.fixture
def slow_server(tmp_path):
    srv = Server(
        tmp_path,
        "--max-wait-ms", "3000",
        "--max-queue-pairs", "3",
        "--max-pairs", "3",
    )  # fmt: skip
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


def _queue_depth(srv) -> float:
    text = srv.client.get("/metrics").text
    return float(re.search(r"^sitar_queue_pairs (\S+)$", text, re.M).group(1))


def _wait_depth(srv, depth, timeout=20.0):
    deadline = time.monotonic() + timeout
    while _queue_depth(srv) != depth:
        assert time.monotonic() < deadline, "the request never reached the queue"
        time.sleep(0.02)


def test_queue_full_then_graceful_shutdown_with_request_in_flight(slow_server, tiny_scorer):
    srv = slow_server
    refs, hyps = (
        ["the cat sat on the mat", "call the doctor"],
        ["the dog sat", "call the doctor now"],
    )
    results = {}

    def in_flight():
        with httpx.Client(base_url=srv.url, timeout=60) as c:
            results["first"] = c.post("/v1/score", json={"references": refs, "hypotheses": hyps})

    t = threading.Thread(target=in_flight)
    t.start()
    _wait_depth(srv, 2.0)  # admitted, waiting up to 3 s for more pairs

    # Queue full: 2 of 3 pairs admitted, this one needs 2 -> 503 at once, never a hang.
    r = srv.client.post("/v1/score", json={"references": ["a", "b"], "hypotheses": ["c", "d"]})
    assert r.status_code == 503 and r.json()["error"] == "queue_full"
    assert r.headers["retry-after"] == "1"

    # SIGTERM while the first request is in flight: stop accepting, answer it, exit 0.
    import signal

    srv.proc.send_signal(signal.SIGTERM)
    refused = False
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and not refused:
        try:
            httpx.get(srv.url + "/healthz", timeout=0.5)
        except httpx.TransportError:
            refused = True
        else:
            time.sleep(0.05)
    assert refused, "the server kept accepting connections after SIGTERM"
    assert t.is_alive() or "first" in results
    t.join(30)
    first = results["first"]
    assert first.status_code == 200
    want = tiny_scorer.score(references=refs, hypotheses=hyps)
    np.testing.assert_allclose(first.json()["scores"], want.scores, atol=1e-6)
    # A drained server exits 0 (uvicorn's re-raised SIGTERM is a no-op); the log shows the
    # drain ran to its end.
    assert srv.proc.wait(30) == 0
    log = srv.log()
    assert '"event": "stopped"' in log


def test_bad_startup_options_fail_fast(tmp_path, capsys, monkeypatch):
    """Bad options are one-line errors with exit code 2 before anything listens."""
    from sitar.cli import main

    monkeypatch.delenv("SITAR_API_KEY", raising=False)

    def err(*args, checkpoint=str(TINY)):
        assert main(["serve", "--checkpoint", checkpoint, "--port", "0", *args]) == 2
        return capsys.readouterr().err

    empty = tmp_path / "empty.key"
    empty.write_text("\n")
    assert "is empty" in err("--api-key-file", str(empty))
    assert "cannot read the API key file" in err("--api-key-file", str(tmp_path / "none"))
    assert "SITAR_API_KEY is empty or unset" in err("--api-key-env")
    assert "max_queue_pairs (4)" in err("--max-queue-pairs", "4", "--max-pairs", "8")
    assert "workers must be a positive integer" in err("--workers", "0")
    assert err(checkpoint=str(tmp_path / "nope")).startswith("sitar serve: error: checkpoint")
    # the tiny checkpoint has no gap head: a tie-breaker cannot apply
    assert "gap head" in err("--tie-breaker", "2")
    assert "gap head" in err("--decode", "median")


def test_tie_breaker_reaches_the_scorer():
    from sitar.errors import InputError
    from sitar.options import ScorerOptions
    from sitar.serve.app import _State
    from sitar.serve.config import ServeConfig

    config = ServeConfig(scorer=ScorerOptions(tie_breaker=2))
    assert ServeConfig.from_json(config.to_json()).scorer.tie_breaker == 2
    scorer = _State(config)._load_scorer()  # the shipped default checkpoint
    assert scorer.tie_breaker == 2 and "|tb:2|" in scorer.signature
    for bad in (1, "3", True):
        with pytest.raises(InputError, match="tie_breaker"):
            ServeConfig(scorer=ScorerOptions(tie_breaker=bad))
    config = ServeConfig(scorer=ScorerOptions(decode="median"))
    assert ServeConfig.from_json(config.to_json()).scorer.decode == "median"
    scorer = _State(config)._load_scorer()
    assert scorer.decode == "median" and "|dec:median|" in scorer.signature
    with pytest.raises(InputError, match="decode"):
        ServeConfig(scorer=ScorerOptions(decode="mode"))


def test_serve_takes_every_scorer_option(capsys, monkeypatch):
    """--head, --backend and --device (missing before ScorerOptions) reach the config; a gap
    head on a checkpoint without one fails before anything listens."""
    from sitar.cli import build_parser, main
    from sitar.commands.serve import build_config

    args = build_parser().parse_args(
        ["serve", "--head", "pair", "--backend", "torch", "--device", "cpu", "--threads", "3"]
    )
    options = build_config(args).scorer
    assert (options.head, options.backend, options.device, options.threads) == (
        "pair",
        "torch",
        "cpu",
        3,
    )
    monkeypatch.delenv("SITAR_API_KEY", raising=False)
    assert main(["serve", "--checkpoint", str(TINY), "--head", "gaps", "--port", "0"]) == 2
    assert "has no gap head" in capsys.readouterr().err
