"""The ASGI middleware of ``sitar serve`` around the FastAPI app (plain ASGI, no framework):
the ``Host`` check against DNS rebinding, and the access log with request metrics and
``X-Request-ID``; and the JSON log set-up of the serve loggers.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Sequence
from typing import Any

__all__ = ["AccessLog", "HostCheck", "configure_logging", "host_name"]

access_logger = logging.getLogger("sitar.serve.access")


def host_name(header: str) -> str:
    """The name of a ``Host`` header value, lower case, without port, brackets or final dot."""
    value = header.strip().lower()
    if value.startswith("["):
        name = value[1:].partition("]")[0]
    elif value.count(":") == 1:
        name = value.partition(":")[0]
    else:
        name = value  # a name, or a bare IPv6 address
    return name.rstrip(".")


class HostCheck:
    """ASGI middleware: requests whose ``Host`` is not an allowed name get JSON 400
    ``invalid_host`` (DNS rebinding: a page on evil.example whose name now resolves to
    127.0.0.1 still sends ``Host: evil.example``). ``error_response(status, kind, message)``
    builds the app's JSON error response (and counts it)."""

    def __init__(self, app: Any, allowed: Sequence[str], error_response: Any) -> None:
        self.app = app
        self.allowed = frozenset(allowed)
        self.error_response = error_response

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            raw = dict(scope.get("headers") or []).get(b"host", b"")
            name = host_name(raw.decode("latin-1"))
            if name not in self.allowed:
                response = self.error_response(
                    400,
                    "invalid_host",
                    f"Host {name or '(none)'!r} is not served here; allowed: "
                    f"{', '.join(sorted(self.allowed))} (--allowed-hosts)",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class AccessLog:
    """ASGI middleware: one JSON access-log line per request, request metrics, X-Request-ID.

    Logged: time, request id, client address, method, path, status, duration, pairs. Never
    headers or bodies (so never the bearer token or the texts).
    """

    def __init__(self, app: Any, state: Any, endpoints: Sequence[str]) -> None:
        self.app = app
        self.state = state
        self.endpoints = frozenset(endpoints)
        #: The FastAPI app inside (set by :func:`create_app`), for its ``openapi()``.
        self.fastapi: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        request_id = uuid.uuid4().hex[:16]
        status = 500
        scope.setdefault("state", {})

        async def send_wrapper(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [
                    *message["headers"],
                    (b"x-request-id", request_id.encode("ascii")),
                ]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            seconds = time.perf_counter() - t0
            path = scope.get("path", "")
            endpoint = path if path in self.endpoints else "other"
            m = self.state.metrics
            m.requests.labels(endpoint=endpoint, status=str(status)).inc()
            m.latency.labels(endpoint=endpoint).observe(seconds)
            if self.state.config.access_log and access_logger.isEnabledFor(logging.INFO):
                client = scope.get("client")
                record = {
                    "ts": round(time.time(), 3),
                    "request_id": request_id,
                    "client": f"{client[0]}:{client[1]}" if client else None,
                    "method": scope.get("method"),
                    "path": path,
                    "status": status,
                    "ms": round(seconds * 1000.0, 2),
                    "pairs": scope["state"].get("n_pairs"),
                    "pid": os.getpid(),
                }
                access_logger.info(json.dumps(record))

    @property
    def sitar_state(self) -> Any:
        return self.state


def configure_logging(level: str = "info") -> None:
    """JSON lines on stderr for the ``sitar.serve`` loggers (called by the serve command and by
    each worker process; never at import)."""
    log = logging.getLogger("sitar.serve")
    if not any(getattr(h, "_sitar_serve", False) for h in log.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler._sitar_serve = True  # type: ignore[attr-defined]
        log.addHandler(handler)
    log.setLevel(level.upper())
    log.propagate = False
