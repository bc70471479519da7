"""The ASGI app of ``sitar serve`` (FastAPI, pydantic models): endpoints, validation, auth and
errors; the Host check and the access log around it are :mod:`sitar.serve.middleware`.

Endpoints (request and response models in :mod:`sitar.serve.models`; ``GET /openapi.json`` is
the OpenAPI 3 schema and ``GET /docs`` its Swagger UI page):

* ``POST /v1/score`` ``{"references": [...], "hypotheses": [...]}`` -> ``ScoreResult.to_dict()``
  of exactly those pairs (scores, raw, windowed, identical, n_windows, system_score, aggregation,
  n_pairs, n_identical, n_windowed, signature, and the ``swer`` fields with a gap head), scored
  through the micro-batching queue (:mod:`sitar.serve.batching`);
* ``POST /v1/explain`` ``{"reference": "...", "hypothesis": "..."}`` -> ``Explanation.to_dict()``
  (per-gap severities and estimated tiers);
* ``GET /healthz`` (the process answers), ``GET /readyz`` (the model is loaded and warm; 503
  before), ``GET /metrics`` (Prometheus text).

Every error, whatever raised it (an endpoint, the router, the request model, a middleware), is
JSON ``{"error": KIND, "message": TEXT}`` (:class:`~sitar.serve.models.ErrorBody`) with the HTTP
status of its kind (:data:`~sitar.serve.models.ERROR_KINDS`): 400 ``bad_request`` (body is not
JSON, or nested deeper than :data:`MAX_JSON_DEPTH`), 400 ``invalid_host`` (``Host`` not allowed,
:attr:`ServeConfig.effective_allowed_hosts`), 401 ``unauthorized``, 404 ``not_found``, 405
``method_not_allowed`` (with ``Allow``), 413 ``too_large`` (body, pair count or text length over a
limit), 415 ``unsupported_media_type`` (a POST that is not ``application/json``), 422 ``invalid``
(wrong fields, types or invalid Unicode: the one text check of ``Scorer.score``,
:mod:`sitar.validation`, run by the request models), 429 ``too_many_requests`` (one client over
``--max-client-requests`` requests in flight), 500 ``internal`` (an unforeseen error, answered by
the route itself so the connection stays open), 503 ``queue_full`` (with ``Retry-After``),
``timeout``, ``not_ready`` or ``shutting_down``. The model is loaded in the worker's model thread
after the server starts, so ``/healthz`` answers at once and ``/readyz`` turns 200 only after a
warm-up call.

The body of a POST is read by the route itself before FastAPI sees it (:func:`create_app`'s route
class): the ``Content-Type``, the size limit while streaming and the nesting depth are checked
before anything parses it, and FastAPI then validates the parsed body against the model.

Auth is optional: with a key configured, ``/v1/*`` and ``/metrics`` need ``Authorization: Bearer
KEY`` (compared with :func:`hmac.compare_digest`; checked before the body is read); ``/healthz``,
``/readyz``, ``/openapi.json`` and ``/docs`` stay open. The key and the Authorization header never
reach a log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import math
import os
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from sitar import validation
from sitar.errors import InputError, MissingDependencyError, SitarError
from sitar.serve.batching import (
    BatchStats,
    MicroBatcher,
    QueueFullError,
    RequestTimeoutError,
    RequestTooLargeError,
    ShuttingDownError,
    pair_cost,
)
from sitar.serve.config import CONFIG_ENV, ServeConfig, read_api_key
from sitar.serve.middleware import AccessLog, HostCheck, configure_logging

try:
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.openapi.utils import get_openapi
    from fastapi.responses import JSONResponse, Response
    from fastapi.routing import APIRoute
    from starlette.exceptions import HTTPException as StarletteHTTPException
except ImportError as e:  # the serve extra is not installed
    raise MissingDependencyError(e.name or "fastapi", "sitar serve", "serve") from e

from sitar.serve.models import (
    ErrorBody,
    ExplainRequest,
    ExplainResponse,
    HealthResponse,
    ReadyResponse,
    ScoreRequest,
    ScoreResponse,
)

__all__ = [
    "ApiError",
    "app_from_env",
    "check_limits",
    "check_pairs",
    "create_app",
    "openapi_schema",
]

logger = logging.getLogger("sitar.serve")

# Pairs scored once before /readyz turns ready: one ordinary pair and one identical pair.
_WARMUP_REFERENCES = ["please send the invoice on friday", "warm up"]
_WARMUP_HYPOTHESES = ["please send the invoice on monday", "warm up"]

#: Endpoints named in metrics; anything else is counted as "other" (bounded label values).
_ENDPOINTS = (
    "/v1/score",
    "/v1/explain",
    "/healthz",
    "/readyz",
    "/metrics",
    "/openapi.json",
    "/docs",
)


class ApiError(SitarError):
    """An error answered as JSON with an HTTP status."""

    def __init__(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.headers = headers or {}


# -- validation (the messages of Scorer.score, then the server's limits) ---------------------------


def check_pairs(
    references: Any, hypotheses: Any, *, max_pairs: int, max_chars: int
) -> tuple[list[str], list[str]]:
    """Validate a score request's pairs: the one text check of ``Scorer.score``
    (:func:`sitar.validation.check_pairs`, HTTP 422), then the server's limits (HTTP 413)."""
    try:
        refs, hyps = validation.check_pairs(references, hypotheses)
    except InputError as e:
        raise ApiError(422, "invalid", str(e)) from e
    check_limits(refs, hyps, max_pairs=max_pairs, max_chars=max_chars)
    return refs, hyps


def check_limits(refs: list[str], hyps: list[str], *, max_pairs: int, max_chars: int) -> None:
    """The server's limits on valid pairs: pairs per request and characters per text (413)."""
    if len(refs) > max_pairs:
        raise ApiError(
            413,
            "too_large",
            f"too many pairs in one request: got {len(refs)}, the limit is {max_pairs}; "
            "split the request",
        )
    for name, items in (("references", refs), ("hypotheses", hyps)):
        for i, item in enumerate(items):
            _check_length(f"{name}[{i}]", item, max_chars)


def _check_length(name: str, text: str, max_chars: int) -> None:
    if len(text) > max_chars:
        raise ApiError(
            413,
            "too_large",
            f"{name} has {len(text)} characters, the limit is {max_chars} per text",
        )


def validation_message(exc: RequestValidationError) -> str:
    """The text of a 422: the ``InputError`` a request model raised (the words of
    ``Scorer.score``), else pydantic's own errors as ``field: message``."""
    errors = exc.errors()
    for err in errors:
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, InputError):
            return str(cause)
    parts = []
    for err in errors:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


#: Deepest JSON nesting a request body may have (a valid body needs 2: an object of lists). Python's
#: parser recurses per level, so a body nested 100,000 deep would end in RecursionError (a 500).
MAX_JSON_DEPTH = 32
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_INNERMOST = re.compile(rb"\[\]|\{\}")


def json_too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when the JSON text ``body`` nests arrays/objects more than ``limit`` levels deep.

    Linear-time regex passes in C, no recursion: drop the strings, keep only the brackets, then
    remove innermost ``[]``/``{}`` pairs ``limit`` times; brackets still nested after that are
    deeper than the limit. A body with at most ``limit`` brackets in all is never scanned."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub(b"", _JSON_STRING.sub(b"", body))
    for _ in range(limit):
        brackets, removed = _INNERMOST.subn(b"", brackets)
        if not brackets or not removed:
            return False  # done, or malformed (left to the parser's message)
    return bool(brackets)


def _json_safe(obj: Any) -> Any:
    """NaN/inf are not JSON: write them as null (the convention of ScoreResult.to_dict)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj


# -- the app -------------------------------------------------------------------------------------


class _State:
    """Per-worker state: the scorer, the batcher, readiness, metrics, the key."""

    def __init__(self, config: ServeConfig, scorer_factory: Any = None) -> None:
        from sitar.serve.metrics import ServeMetrics

        self.config = config
        self.api_key = read_api_key(config)
        self.metrics = ServeMetrics()
        self.scorer: Any = None
        self.ready = False
        self.load_error: str | None = None
        self._scorer_factory = scorer_factory or self._load_scorer
        self.batcher = MicroBatcher(
            self._score,
            max_batch_pairs=config.max_batch_pairs,
            max_wait_s=config.max_wait_ms / 1000.0,
            max_queue_pairs=config.max_queue_pairs,
            on_batch=self._on_batch,
        )

    def _load_scorer(self) -> Any:
        from sitar.scorer import Scorer

        return Scorer.load(self.config.scorer)

    def _score(self, references: list[str], hypotheses: list[str]) -> Any:
        return self.scorer.score(
            references=references, hypotheses=hypotheses, batch_size=self.config.batch_size
        )

    def _warm_up(self) -> None:
        # One scoring call (sessions, tokenizer) and one explanation (the CGD analyzer's lexicon),
        # so the first real request does not pay for loading them.
        self._score(list(_WARMUP_REFERENCES), list(_WARMUP_HYPOTHESES))
        self.scorer.explain(_WARMUP_REFERENCES[0], _WARMUP_HYPOTHESES[0])

    def _on_batch(self, stats: BatchStats) -> None:
        m = self.metrics
        m.batch_seconds.observe(stats.seconds)
        if stats.kind == "score":
            m.batch_pairs.observe(stats.n_pairs)
            m.batch_requests.observe(stats.n_requests)
            if stats.ok:
                m.pairs.inc(stats.n_pairs)
        m.queue_depth.set(self.batcher.depth)

    async def load(self) -> None:
        """Load the model in the model thread and warm it up; then turn ready."""
        t0 = time.perf_counter()
        try:
            self.scorer = await self.batcher.run_in_model_thread(self._scorer_factory)
            await self.batcher.run_in_model_thread(self._warm_up)
        except Exception as e:
            self.load_error = f"{type(e).__name__}: {e}"
            logger.error(json.dumps({"event": "load_failed", "error": self.load_error}))
            return
        self.ready = True
        self.metrics.ready.set(1)
        logger.info(
            json.dumps(
                {
                    "event": "ready",
                    "pid": os.getpid(),
                    "signature": self.scorer.signature,
                    "load_seconds": round(time.perf_counter() - t0, 3),
                }
            )
        )


def _error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries: each status answers an :class:`ErrorBody`."""
    from sitar.serve.models import ERROR_KINDS

    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        kinds = ", ".join(f"`{k}`" for k, s in ERROR_KINDS.items() if s == status)
        out[status] = {"model": ErrorBody, "description": f"Error ({kinds})"}
    return out


class _ClientSlots:
    """Requests in flight per client address, at most ``limit`` each (429 beyond); per worker."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._counts: dict[str, int] = {}

    @contextlib.contextmanager
    def hold(self, request: Request) -> Iterator[None]:
        if self.limit is None:
            yield
            return
        client = request.client.host if request.client else ""
        n = self._counts.get(client, 0)
        if n >= self.limit:
            raise ApiError(
                429,
                "too_many_requests",
                f"this client already has {n} requests in flight, the limit is {self.limit} "
                "(--max-client-requests); wait for an answer before sending more",
                {"Retry-After": "1"},
            )
        self._counts[client] = n + 1
        try:
            yield
        finally:
            left = self._counts[client] - 1
            if left:
                self._counts[client] = left
            else:
                del self._counts[client]


def create_app(config: ServeConfig, *, scorer_factory: Any = None) -> Any:
    """The FastAPI app for ``config``. ``scorer_factory()`` (tests) replaces ``Scorer.load``."""
    state = _State(config, scorer_factory)
    slots = _ClientSlots(config.max_client_requests)

    def error_response(e: ApiError) -> JSONResponse:
        state.metrics.errors.labels(kind=e.kind).inc()
        return JSONResponse(
            {"error": e.kind, "message": e.message}, status_code=e.status, headers=e.headers
        )

    def authorize(request: Request) -> None:
        if state.api_key is None:
            return
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        ok = scheme.lower() == "bearer" and hmac.compare_digest(
            token.strip().encode("utf-8"), state.api_key.encode("utf-8")
        )
        if not ok:
            raise ApiError(
                401,
                "unauthorized",
                "missing or wrong bearer token; send 'Authorization: Bearer <key>'",
                {"WWW-Authenticate": "Bearer"},
            )

    def require_json(request: Request) -> None:
        # A browser sends text/plain or a form cross-origin without a CORS preflight; JSON it
        # cannot send without one, so refusing every other type closes that door.
        media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
        if media_type != "application/json":
            raise ApiError(
                415,
                "unsupported_media_type",
                f"Content-Type must be application/json, got {media_type or 'none'}",
            )

    async def read_json(request: Request) -> None:
        """Read and parse the body within the limits; FastAPI then finds both cached on the
        request (Starlette's ``Request.body()`` and ``Request.json()`` read ``_body``/``_json``)."""
        length = request.headers.get("content-length")
        limit = config.max_body_bytes
        if length is not None and length.isdigit() and int(length) > limit:
            raise ApiError(
                413, "too_large", f"request body of {length} bytes is over the limit of {limit}"
            )
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise ApiError(413, "too_large", f"request body is over the limit of {limit} bytes")
        too_deep = f"request body is JSON nested deeper than {MAX_JSON_DEPTH} levels"
        data = bytes(body)
        # The scan is linear but not free on a large hostile body: off the event loop.
        if data.count(b"[") + data.count(b"{") > MAX_JSON_DEPTH and await asyncio.to_thread(
            json_too_deep, data
        ):
            raise ApiError(400, "bad_request", too_deep)
        try:
            parsed = json.loads(data.decode("utf-8"))
        except RecursionError as e:  # malformed and deep: json_too_deep leaves it to the parser
            raise ApiError(400, "bad_request", too_deep) from e
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ApiError(400, "bad_request", f"request body is not valid UTF-8 JSON: {e}") from e
        request._body = data
        request._json = parsed

    def require_ready() -> None:
        if not state.ready:
            msg = "the model is not loaded yet; retry when /readyz answers 200"
            if state.load_error:
                msg = f"the model failed to load: {state.load_error}"
            raise ApiError(503, "not_ready", msg, {"Retry-After": "1"})

    async def run_queued(coro: Any) -> Any:
        try:
            return await coro
        except QueueFullError as e:
            raise ApiError(503, "queue_full", str(e), {"Retry-After": "1"}) from e
        except RequestTimeoutError as e:
            raise ApiError(503, "timeout", str(e)) from e
        except ShuttingDownError as e:
            raise ApiError(503, "shutting_down", str(e)) from e
        except RequestTooLargeError as e:
            raise ApiError(413, "too_large", str(e)) from e
        except InputError as e:
            # From inside the scorer (e.g. a token longer than the model's max_length).
            raise ApiError(422, "invalid", str(e)) from e

    class SitarRoute(APIRoute):
        """Runs before FastAPI's own handler: auth, the per-client limit, the body read within
        the limits; and answers every unexpected exception as JSON 500 ``internal``.

        Starlette's catch-all ``Exception`` handler answers, then re-raises the error to the
        server, which logs a traceback and drops the keep-alive connection; an error caught here
        is an ordinary response and the connection stays usable."""

        def get_route_handler(self) -> Callable[[Request], Any]:
            handler = super().get_route_handler()
            protected = self.path.startswith("/v1/") or self.path == "/metrics"
            limited = self.path.startswith("/v1/")
            has_body = "POST" in (self.methods or ())

            async def route_handler(request: Request) -> Response:
                try:
                    if protected:
                        authorize(request)
                    with slots.hold(request) if limited else contextlib.nullcontext():
                        if has_body:
                            require_json(request)
                            await read_json(request)
                        response: Response = await handler(request)
                        return response
                except (ApiError, StarletteHTTPException, RequestValidationError):
                    raise
                except asyncio.CancelledError as exc:
                    # uvicorn cancels what is still running when --graceful-timeout expires (it
                    # never cancels a request for a client's disconnect): answer it, as JSON, not
                    # with uvicorn's text/plain 500 and a traceback.
                    raise ApiError(
                        503,
                        "shutting_down",
                        "the server is shutting down and could not finish this request within "
                        "its grace period; retry",
                    ) from exc
                except Exception as exc:
                    logger.error(
                        json.dumps(
                            {"event": "internal_error", "error": f"{type(exc).__name__}: {exc}"}
                        )
                    )
                    raise ApiError(
                        500, "internal", f"internal error while scoring: {type(exc).__name__}"
                    ) from exc

            return route_handler

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        state.batcher.start()
        loader = asyncio.get_running_loop().create_task(state.load())
        try:
            yield
        finally:
            # uvicorn has stopped accepting and waited for open requests; drain what is left.
            with contextlib.suppress(asyncio.CancelledError):
                await loader
            await state.batcher.close()
            state.metrics.ready.set(0)
            logger.info(json.dumps({"event": "stopped", "pid": os.getpid()}))

    from sitar._version import __version__

    app = FastAPI(
        title="SITAR scoring service",
        version=__version__,
        description=(
            "Situational distortion scores for ASR transcripts (`sitar serve`). Every error is "
            '`{"error": KIND, "message": TEXT}`; see docs/serving.md for the kinds and limits.'
        ),
        lifespan=lifespan,
        redoc_url=None,
    )
    app.router.route_class = SitarRoute
    common = _error_responses(400, 404, 405, 500)
    body_errors = _error_responses(401, 413, 415, 422, 429, 503)

    @app.post(
        "/v1/score",
        response_model=ScoreResponse,
        responses={**common, **body_errors},
        summary="Score pairs",
    )
    async def score(body: ScoreRequest, request: Request) -> Response:
        """Score `references[i]` against `hypotheses[i]`: the result of `Scorer.score` on
        exactly these pairs (concurrent requests share model calls; the scores do not depend on
        it)."""
        refs, hyps = body.references, body.hypotheses
        check_limits(
            refs,
            hyps,
            max_pairs=config.max_pairs_per_request,
            max_chars=config.max_chars_per_text,
        )
        require_ready()
        request.scope.setdefault("state", {})["n_pairs"] = len(refs)
        result = await run_queued(state.batcher.score(refs, hyps, timeout=config.request_timeout_s))
        state.metrics.queue_depth.set(state.batcher.depth)
        return JSONResponse(_json_safe(result.to_dict()))

    @app.post(
        "/v1/explain",
        response_model=ExplainResponse,
        responses={**common, **body_errors},
        summary="Explain one pair gap by gap",
    )
    async def explain(body: ExplainRequest, request: Request) -> Response:
        """Per-gap severities and estimated tiers of one pair (`Scorer.explain`)."""
        ref, hyp = body.reference, body.hypothesis
        _check_length("reference", ref, config.max_chars_per_text)
        _check_length("hypothesis", hyp, config.max_chars_per_text)
        require_ready()
        request.scope.setdefault("state", {})["n_pairs"] = 1
        explanation = await run_queued(
            state.batcher.call(
                lambda: state.scorer.explain(ref, hyp, batch_size=config.batch_size),
                cost=pair_cost(ref, hyp),
                timeout=config.request_timeout_s,
            )
        )
        return JSONResponse(_json_safe(explanation.to_dict()))

    @app.get("/healthz", response_model=HealthResponse, responses=common, summary="Liveness")
    async def healthz() -> Response:
        """200 as soon as the process answers."""
        return JSONResponse({"status": "ok", "pid": os.getpid()})

    @app.get(
        "/readyz",
        response_model=ReadyResponse,
        responses={**common, 503: {"model": ReadyResponse, "description": "Not ready yet"}},
        summary="Readiness",
    )
    async def readyz() -> Response:
        """200 once this worker's model is loaded and warm; 503 (`loading`/`failed`) before."""
        if state.ready:
            return JSONResponse(
                {"status": "ready", "pid": os.getpid(), "signature": state.scorer.signature}
            )
        status = "failed" if state.load_error else "loading"
        payload: dict[str, Any] = {"status": status, "pid": os.getpid()}
        if state.load_error:
            payload["error"] = state.load_error
        return JSONResponse(payload, status_code=503, headers={"Retry-After": "1"})

    @app.get(
        "/metrics",
        response_class=Response,
        responses={
            **common,
            **_error_responses(401),
            200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
        },
        summary="Prometheus metrics",
    )
    async def metrics() -> Response:
        """Prometheus exposition text (summed over workers)."""
        state.metrics.queue_depth.set(state.batcher.depth)
        body, content_type = state.metrics.render()
        return Response(body, media_type=content_type)

    async def api_error_handler(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(exc)

    async def http_error_handler(request: Request, exc: Exception) -> Response:
        # The router's 404 and 405 (and any HTTPException FastAPI raises itself).
        assert isinstance(exc, StarletteHTTPException)
        headers = dict(exc.headers or {})
        if exc.status_code == 404:
            paths = ", ".join(f"{m} {p}" for p, m in _public_routes(app))
            error = ApiError(404, "not_found", f"no endpoint at {request.url.path}; try {paths}")
        elif exc.status_code == 405:
            allow = headers.get("Allow", "")
            error = ApiError(
                405,
                "method_not_allowed",
                f"{request.method} is not allowed on {request.url.path}; allowed: {allow}",
                headers,
            )
        else:
            kind = {400: "bad_request", 401: "unauthorized", 413: "too_large"}.get(
                exc.status_code, "bad_request" if exc.status_code < 500 else "internal"
            )
            error = ApiError(exc.status_code, kind, str(exc.detail), headers)
        return error_response(error)

    async def validation_error_handler(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return error_response(ApiError(422, "invalid", validation_message(exc)))

    async def last_resort_handler(request: Request, exc: Exception) -> Response:
        # An exception outside a route (a middleware): JSON still, though Starlette re-raises it.
        return error_response(ApiError(500, "internal", f"internal error: {type(exc).__name__}"))

    app.add_exception_handler(ApiError, api_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(Exception, last_resort_handler)
    if config.cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.openapi = _openapi_with_auth(app, bearer=state.api_key is not None)  # type: ignore[method-assign]
    app.state.sitar = state
    allowed = config.effective_allowed_hosts
    outer = (
        app if allowed is None else HostCheck(app, allowed, lambda *a: error_response(ApiError(*a)))
    )
    wrapped = AccessLog(outer, state, _ENDPOINTS)
    wrapped.fastapi = app
    return wrapped


def openapi_schema(config: ServeConfig | None = None) -> dict[str, Any]:
    """The OpenAPI 3 schema the service answers at ``/openapi.json`` for ``config`` (default
    settings when None), without starting a server or loading a model: for client generators."""
    app: Any = create_app(config or ServeConfig())
    schema: dict[str, Any] = app.fastapi.openapi()
    return schema


def _public_routes(app: Any) -> list[tuple[str, str]]:
    """``(path, method)`` of the scoring and probe endpoints, for the 404 message."""
    return [
        (r.path, sorted(r.methods or {"GET"})[0])
        for r in app.routes
        if isinstance(r, APIRoute) and r.path in _ENDPOINTS
    ]


def _openapi_with_auth(app: Any, *, bearer: bool) -> Callable[[], dict[str, Any]]:
    """``app.openapi`` that also states the bearer auth of ``/v1/*`` and ``/metrics`` when a
    key is configured (auth runs in the route class, not as a FastAPI dependency)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            if bearer:
                schema.setdefault("components", {})["securitySchemes"] = {
                    "bearerAuth": {"type": "http", "scheme": "bearer"}
                }
                for path, item in schema.get("paths", {}).items():
                    if path.startswith("/v1/") or path == "/metrics":
                        for operation in item.values():
                            operation["security"] = [{"bearerAuth": []}]
            app.openapi_schema = schema
        return app.openapi_schema

    return openapi


def app_from_env() -> Any:
    """App factory for uvicorn worker processes: the config comes from :data:`CONFIG_ENV`."""
    text = os.environ.get(CONFIG_ENV)
    if not text:
        raise InputError(f"{CONFIG_ENV} is not set; start the server with `sitar serve`")
    config = ServeConfig.from_json(text)
    configure_logging(os.environ.get("SITAR_SERVE_LOG_LEVEL", "info"))
    from sitar.serve.protocol import HeaderTimeoutH11Protocol

    # This worker's connections (the app is loaded before the worker starts serving).
    HeaderTimeoutH11Protocol.header_timeout_s = config.header_timeout_s
    return create_app(config)
