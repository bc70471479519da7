"""Readiness: /healthz answers while the model loads, /readyz and /v1/* say 503 until it is warm,
and a model that fails to load is reported, not hidden. In-process (Starlette's TestClient) with
a scorer factory the test controls."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("prometheus_client")
pytest.importorskip("httpx")

from serve_helpers import TINY
from starlette.testclient import TestClient

from sitar.serve.app import create_app
from sitar.serve.config import ServeConfig


def _wait(fn, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not fn():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_not_ready_until_loaded_and_warm():
    from sitar.scorer import Scorer

    gate = threading.Event()

    def slow_load():
        gate.wait(30)
        return Scorer.load(TINY, variant="fp32")

    app = create_app(ServeConfig(), scorer_factory=slow_load)
    body = {"references": ["a b"], "hypotheses": ["a c"]}
    with TestClient(app, base_url="http://localhost") as client:
        assert client.get("/healthz").status_code == 200
        r = client.get("/readyz")
        assert r.status_code == 503 and r.json()["status"] == "loading"
        r = client.post("/v1/score", json=body)
        assert r.status_code == 503 and r.json()["error"] == "not_ready"
        assert r.headers["retry-after"] == "1"
        gate.set()
        _wait(lambda: client.get("/readyz").status_code == 200)
        assert client.post("/v1/score", json=body).status_code == 200
        assert "sitar_ready 1.0" in client.get("/metrics").text


def test_load_failure_is_reported():
    def broken():
        from sitar.errors import CheckpointError

        raise CheckpointError("model.onnx is missing")

    app = create_app(ServeConfig(), scorer_factory=broken)
    with TestClient(app, base_url="http://localhost") as client:
        _wait(lambda: client.get("/readyz").json()["status"] == "failed")
        r = client.get("/readyz")
        assert r.status_code == 503 and "model.onnx is missing" in r.json()["error"]
        r = client.post("/v1/score", json={"references": ["a"], "hypotheses": ["b"]})
        assert r.status_code == 503 and "failed to load" in r.json()["message"]
        assert client.get("/healthz").status_code == 200
