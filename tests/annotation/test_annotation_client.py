"""The OpenAI-compatible client against a real HTTP server on 127.0.0.1 (tests/annotation/fake_llm)."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx")

from annotation.client import (
    BudgetExceeded,
    ClientConfig,
    EndpointError,
    OpenAIChatClient,
    TransportError,
    _RateLimiter,
)
from annotation.prompts import GapView, load_prompt, render_prompt
from annotation.schema import parse_answer


def _messages(reference: str, task: str = "tiers"):
    gaps = [GapView("g1", "substitution", "a", "mk2", reference.replace("a", "mk2", 1))]
    text = render_prompt(load_prompt(task), reference=reference, gaps=gaps)
    return [{"role": "user", "content": text}]


def _client(server, **kw) -> OpenAIChatClient:
    cfg = dict(
        base_url=server.base_url,
        model="fake",
        api_key_env="",
        max_retries=3,
        backoff_base_s=0.001,
        backoff_max_s=0.01,
        timeout_s=5.0,
        price_input_per_mtok=2.0,
        price_output_per_mtok=8.0,
    )
    cfg.update(kw)
    budget = cfg.pop("budget", None)
    return OpenAIChatClient(ClientConfig(**cfg), budget=budget)


def test_valid_answer_and_accounting(fake_llm):
    with _client(fake_llm) as client:
        results = [client.complete(_messages(f"a cat sat {i}"), seed=101) for i in range(3)]
    assert parse_answer("tiers", results[0].text, ["g1"]) == {"g1": 2}
    assert client.usage.requests == fake_llm.requests == 3
    assert client.usage.prompt_tokens == fake_llm.usage["prompt_tokens"]
    assert client.usage.completion_tokens == fake_llm.usage["completion_tokens"]
    expected = (
        fake_llm.usage["prompt_tokens"] * 2.0 + fake_llm.usage["completion_tokens"] * 8.0
    ) / 1e6
    assert client.usage.cost == pytest.approx(expected)
    assert sum(r.cost for r in results) == pytest.approx(expected)
    body = fake_llm.bodies[0]
    assert body["seed"] == 101 and body["response_format"] == {"type": "json_object"}
    assert "Authorization" not in client._http.headers


@pytest.mark.parametrize("case", ["case429", "case500once", "caseslowonce"])
def test_transient_errors_are_retried(fake_llm, case):
    timeout = 0.3 if case == "caseslowonce" else 5.0
    with _client(fake_llm, timeout_s=timeout) as client:
        result = client.complete(_messages(f"a {case} x"))
    assert parse_answer("tiers", result.text, ["g1"]) == {"g1": 2}
    expected = 3 if case == "case429" else 2
    assert fake_llm.requests == expected == result.requests == client.usage.requests


@pytest.mark.parametrize("case", ["case500always", "caseslowalways"])
def test_retries_are_bounded(fake_llm, case):
    with _client(fake_llm, max_retries=2, timeout_s=0.2) as client:
        with pytest.raises(TransportError, match="3 attempts"):
            client.complete(_messages(f"a {case} x"))
    assert fake_llm.requests == 3
    assert client.usage.prompt_tokens == 0


def test_non_retryable_errors_stop_at_once(fake_llm):
    with _client(fake_llm, model="missing-model") as client:
        with pytest.raises(EndpointError, match="404"):
            client.complete(_messages("a x"))
    assert fake_llm.requests == 1


def test_connection_refused_is_a_bounded_transport_error():
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens here now
    cfg = ClientConfig(
        base_url=f"http://127.0.0.1:{port}/v1",
        model="m",
        api_key_env="",
        max_retries=2,
        backoff_base_s=0.001,
    )
    with OpenAIChatClient(cfg) as client, pytest.raises(TransportError):
        client.complete([{"role": "user", "content": "x"}])
    assert client.usage.requests == 3


def test_budget_cap_stops_before_sending(fake_llm):
    with _client(fake_llm, price_input_per_mtok=1e6, budget=1.0) as client:
        client.complete(_messages("a x"))  # costs far more than the cap
        with pytest.raises(BudgetExceeded):
            client.complete(_messages("a y"))
    assert fake_llm.requests == 1
    with _client(fake_llm, budget=1.0) as resumed:
        resumed._spent_before = 5.0  # what earlier sessions spent counts too
        with pytest.raises(BudgetExceeded):
            resumed.complete(_messages("a z"))
    assert fake_llm.requests == 1


def test_api_key_from_environment(fake_llm, monkeypatch):
    monkeypatch.delenv("SITAR_TEST_KEY", raising=False)
    with pytest.raises(Exception, match="SITAR_TEST_KEY"):
        _client(fake_llm, api_key_env="SITAR_TEST_KEY")
    monkeypatch.setenv("SITAR_TEST_KEY", "sk-test")
    with _client(fake_llm, api_key_env="SITAR_TEST_KEY") as client:
        assert client._http.headers["Authorization"] == "Bearer sk-test"


def test_rate_limiter_window(monkeypatch):
    now = [0.0]
    slept = []

    def fake_sleep(s):
        slept.append(s)
        now[0] += s

    monkeypatch.setattr("annotation.client.time.sleep", fake_sleep)
    limiter = _RateLimiter(2, clock=lambda: now[0])
    limiter.acquire()
    limiter.acquire()
    assert slept == []
    limiter.acquire()  # third start in the same minute waits for the window
    assert sum(slept) == pytest.approx(60.0)


def test_config_validation():
    with pytest.raises(ValueError, match="base_url"):
        ClientConfig(base_url="api.example.com")
    with pytest.raises(ValueError, match="unknown client setting"):
        ClientConfig.from_dict({"modle": "x"})
