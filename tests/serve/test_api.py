"""The FastAPI service's contract (issue #32 item 4): one JSON error shape for every status
(400, 401, 404, 405, 413, 415, 422, 429, 500, 503), ``/openapi.json`` valid OpenAPI 3 that
documents every endpoint and error, ``/docs`` served, and every answer matching its pydantic
response model. In-process (Starlette's TestClient); tests/serve/test_serve.py asks a real server
for the same 404."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("pydantic")
pytest.importorskip("prometheus_client")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from sitar.serve.app import create_app
from sitar.serve.config import ServeConfig
from sitar.serve.models import (
    ERROR_KINDS,
    ErrorBody,
    ExplainRequest,
    ExplainResponse,
    HealthResponse,
    ReadyResponse,
    ScoreRequest,
    ScoreResponse,
)

KEY = "api-test-key-0123456789"
AUTH = {"Authorization": f"Bearer {KEY}"}
JSON = {"Content-Type": "application/json"}


class _Controlled:
    """The tiny scorer, except: a reference "BOOM" raises an unforeseen error, and a reference
    "HOLD" waits for ``gate`` (so a request stays in flight while the test sends another)."""

    def __init__(self, scorer):
        self._scorer = scorer
        self.gate = threading.Event()

    def __getattr__(self, name):
        return getattr(self._scorer, name)

    def score(self, *, references, hypotheses, **kw):
        if "BOOM" in references:
            raise RuntimeError("unforeseen")
        if "HOLD" in references:
            self.gate.wait(30)
        return self._scorer.score(references=references, hypotheses=hypotheses, **kw)


def _wait_ready(client):
    for _ in range(600):
        if client.get("/readyz").status_code == 200:
            return
        time.sleep(0.05)
    raise AssertionError("the app never turned ready")


@pytest.fixture(scope="module")
def controlled(tiny_scorer):
    return _Controlled(tiny_scorer)


@pytest.fixture(scope="module")
def client(controlled, tmp_path_factory):
    key_file = tmp_path_factory.mktemp("key") / "key.txt"
    key_file.write_text(KEY + "\n", encoding="utf-8")
    config = ServeConfig(
        api_key_file=str(key_file),
        max_pairs_per_request=4,
        max_chars_per_text=100,
        max_client_requests=1,
        max_wait_ms=1.0,
    )
    app = create_app(config, scorer_factory=lambda: controlled)
    with TestClient(app, base_url="http://localhost") as c:
        _wait_ready(c)
        yield c


def _check_error(r, status, kind):
    """The one error shape: JSON ``{"error", "message"}``, the kind's documented status."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error", "message"} and body["error"] == kind
    ErrorBody.model_validate(body)
    assert ERROR_KINDS[kind] == status
    assert body["message"]
    return body


def test_400_body_not_json(client):
    _check_error(
        client.post("/v1/score", content=b"{no", headers={**AUTH, **JSON}), 400, "bad_request"
    )


def test_401_without_the_key(client):
    r = client.post("/v1/score", json={"references": ["a"], "hypotheses": ["b"]})
    _check_error(r, 401, "unauthorized")
    assert r.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
@pytest.mark.parametrize("path", ["/nope", "/v1/scores", "/v2/score"])
def test_404_unknown_path_is_json(client, method, path):
    body = _check_error(client.request(method, path, headers=AUTH), 404, "not_found")
    assert path in body["message"] and "POST /v1/score" in body["message"]


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [("GET", "/v1/score", "POST"), ("PUT", "/v1/explain", "POST"), ("POST", "/healthz", "GET")],
)
def test_405_wrong_method_is_json_with_allow(client, method, path, allow):
    body = _check_error(client.request(method, path, headers=AUTH), 405, "method_not_allowed")
    assert method in body["message"]
    assert allow in client.request(method, path, headers=AUTH).headers["allow"]


def test_413_too_many_pairs_and_too_long_text(client):
    r = client.post(
        "/v1/score", json={"references": ["a"] * 5, "hypotheses": ["b"] * 5}, headers=AUTH
    )
    assert "got 5, the limit is 4" in _check_error(r, 413, "too_large")["message"]
    r = client.post("/v1/explain", json={"reference": "x" * 101, "hypothesis": "y"}, headers=AUTH)
    assert _check_error(r, 413, "too_large")["message"].startswith("reference has 101 characters")


def test_415_not_json(client):
    r = client.post(
        "/v1/score",
        content=b"references=a",
        headers={**AUTH, "Content-Type": "application/x-www-form-urlencoded"},
    )
    _check_error(r, 415, "unsupported_media_type")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"references": ["a"], "hypotheses": [1]}, "hypotheses[0] must be a str, got int"),
        ({"references": ["a"]}, "missing field(s) hypotheses"),
        (
            {"references": [], "hypotheses": [], "x": 1},
            "unknown field(s) x; expected references, hypotheses",
        ),
        (["a"], "expected a JSON object with references, hypotheses, got list"),
    ],
)
def test_422_messages_are_those_of_the_scorer(client, body, message):
    r = client.post("/v1/score", json=body, headers=AUTH)
    assert _check_error(r, 422, "invalid")["message"] == message


def test_429_one_client_over_its_in_flight_limit(client, controlled):
    """With --max-client-requests 1, a second request from the same address while the first is
    in flight is refused at once (429 with Retry-After); the first is still answered."""
    controlled.gate.clear()
    answers = {}

    def first():
        answers["first"] = client.post(
            "/v1/score", json={"references": ["HOLD"], "hypotheses": ["hold"]}, headers=AUTH
        )

    t = threading.Thread(target=first)
    t.start()
    try:
        state = client.app.sitar_state
        deadline = time.monotonic() + 20
        while state.batcher.depth == 0:  # the first request is admitted (and held)
            assert time.monotonic() < deadline
            time.sleep(0.01)
        r = client.post("/v1/score", json={"references": ["a"], "hypotheses": ["b"]}, headers=AUTH)
        body = _check_error(r, 429, "too_many_requests")
        assert "--max-client-requests" in body["message"] and r.headers["retry-after"] == "1"
    finally:
        controlled.gate.set()
        t.join(30)
    assert answers["first"].status_code == 200
    # the slot is free again
    r = client.post("/v1/score", json={"references": ["a"], "hypotheses": ["b"]}, headers=AUTH)
    assert r.status_code == 200


def test_500_unforeseen_error(client):
    r = client.post("/v1/score", json={"references": ["BOOM"], "hypotheses": ["x"]}, headers=AUTH)
    assert "RuntimeError" in _check_error(r, 500, "internal")["message"]
    # the app answers the next request
    assert (
        client.post(
            "/v1/score", json={"references": ["a"], "hypotheses": ["b"]}, headers=AUTH
        ).status_code
        == 200
    )


def test_503_not_ready_while_the_model_loads():
    gate = threading.Event()

    def slow():
        gate.wait(30)
        raise RuntimeError("never loads")

    app = create_app(ServeConfig(), scorer_factory=slow)
    with TestClient(app, base_url="http://localhost") as c:
        r = c.post("/v1/score", json={"references": ["a"], "hypotheses": ["b"]})
        _check_error(r, 503, "not_ready")
        assert r.headers["retry-after"] == "1"
        gate.set()


def test_every_error_kind_has_one_status_and_is_in_the_schema():
    import typing

    literal = typing.get_args(ErrorBody.model_fields["error"].annotation)
    assert set(literal) == set(ERROR_KINDS)
    assert {s for s in ERROR_KINDS.values()} == {400, 401, 404, 405, 413, 415, 422, 429, 500, 503}


# -- /openapi.json and /docs -------------------------------------------------------------------


def test_openapi_is_valid_openapi_3_and_documents_the_contract(client):
    from openapi_spec_validator import validate

    r = client.get("/openapi.json")  # open: no key needed
    assert r.status_code == 200
    spec = r.json()
    validate(spec)
    assert spec["openapi"].startswith("3.")
    assert set(spec["paths"]) == {"/v1/score", "/v1/explain", "/healthz", "/readyz", "/metrics"}
    schemas = spec["components"]["schemas"]
    assert {
        "ScoreRequest",
        "ScoreResponse",
        "ExplainRequest",
        "ExplainResponse",
        "ErrorBody",
    } <= set(schemas)
    score = spec["paths"]["/v1/score"]["post"]
    assert score["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ScoreRequest"
    )
    for status in ("400", "401", "404", "405", "413", "415", "422", "429", "500", "503"):
        ref = score["responses"][status]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/ErrorBody"), status
    # FastAPI's own 422 body ({"detail": [...]}) is not what the service answers: not documented
    assert "HTTPValidationError" not in schemas
    # the key is documented as bearer auth on the protected endpoints, not on the probes
    assert spec["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    assert score["security"] == [{"bearerAuth": []}]
    assert "security" not in spec["paths"]["/healthz"]["get"]
    # fields are documented and the request carries an example
    assert schemas["ScoreRequest"]["properties"]["references"]["description"]
    assert schemas["ScoreRequest"]["examples"]


def test_openapi_without_a_key_has_no_security_and_needs_no_server(tiny_scorer):
    from openapi_spec_validator import validate

    from sitar.serve.app import openapi_schema

    app = create_app(ServeConfig(), scorer_factory=lambda: tiny_scorer)
    with TestClient(app, base_url="http://localhost") as c:
        spec = c.get("/openapi.json").json()
    assert "securitySchemes" not in spec.get("components", {})
    assert "security" not in spec["paths"]["/v1/score"]["post"]
    # the same schema offline (client generators), no model loaded
    offline = openapi_schema()
    validate(offline)
    assert offline == spec


def test_docs_page_is_served(client):
    # Swagger UI loads its script and style from a CDN: only the HTML page is checked (offline).
    r = client.get("/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "swagger-ui" in r.text and "/openapi.json" in r.text


def test_model_examples_are_valid():
    for model in (ScoreRequest, ExplainRequest, ScoreResponse, ErrorBody):
        for example in model.model_config["json_schema_extra"]["examples"]:
            model.model_validate(example)


# -- answers match the documented models -------------------------------------------------------


def _conforms(model, body):
    """``body`` validates against ``model`` and holds no field the model does not document."""
    model.model_validate(body)
    assert set(body) <= set(model.model_fields), set(body) - set(model.model_fields)


def test_answers_match_their_models(client):
    r = client.post(
        "/v1/score", json={"references": ["a b", "c"], "hypotheses": ["a d", "c"]}, headers=AUTH
    )
    _conforms(ScoreResponse, r.json())
    r = client.post(
        "/v1/explain",
        json={"reference": "send the invoice", "hypothesis": "send an invoice"},
        headers=AUTH,
    )
    body = r.json()
    _conforms(ExplainResponse, body)
    assert body["gaps"]
    for gap in body["gaps"]:
        assert set(gap) <= set(
            ExplainResponse.model_fields["gaps"].annotation.__args__[0].model_fields
        )
    _conforms(HealthResponse, client.get("/healthz").json())
    _conforms(ReadyResponse, client.get("/readyz").json())


def test_swer_fields_of_a_gap_head_checkpoint_are_documented():
    """The packaged checkpoint scores with its gap head: the score answer carries swer,
    system_swer and swer_version, and the model documents them."""
    from sitar.scorer import Scorer

    scorer = Scorer.load()
    app = create_app(ServeConfig(), scorer_factory=lambda: scorer)
    with TestClient(app, base_url="http://localhost") as c:
        _wait_ready(c)
        r = c.post(
            "/v1/score", json={"references": ["turn left here"], "hypotheses": ["turn right here"]}
        )
    body = r.json()
    assert {"swer", "system_swer", "swer_version"} <= set(body)
    _conforms(ScoreResponse, body)
    want = scorer.score(references=["turn left here"], hypotheses=["turn right here"]).to_dict()
    assert (
        body["swer"] == pytest.approx(want["swer"]) and body["swer_version"] == want["swer_version"]
    )


def test_request_models_use_the_scorers_checks():
    """The models raise the InputError of sitar.validation (same words as Scorer.score)."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as info:
        ScoreRequest.model_validate({"references": ["a", "b"], "hypotheses": ["c"]})
    cause = info.value.errors()[0]["ctx"]["error"]
    assert str(cause).startswith("references and hypotheses must have the same length")
    assert ScoreRequest.model_validate({"references": ["a"], "hypotheses": ["b"]}).references == [
        "a"
    ]
    with pytest.raises(ValidationError):
        ExplainRequest.model_validate({"reference": "a", "hypothesis": "\ud800"})


def test_max_client_requests_is_checked_and_reaches_the_config():
    from sitar.cli import build_parser
    from sitar.commands.serve import build_config
    from sitar.errors import InputError

    config = build_config(build_parser().parse_args(["serve", "--max-client-requests", "3"]))
    assert config.max_client_requests == 3
    assert ServeConfig.from_json(config.to_json()).max_client_requests == 3
    assert build_config(build_parser().parse_args(["serve"])).max_client_requests is None
    for bad in (0, -1, True, "2"):
        with pytest.raises(InputError, match="max_client_requests"):
            ServeConfig(max_client_requests=bad)
