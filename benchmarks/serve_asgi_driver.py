"""The app-only half of ``python -m benchmarks serve --app-only``: drive one ``sitar serve`` app
in this process through ASGI calls (no sockets, no HTTP client) with a model-free scorer, and
print one JSON line ``{"requests_per_s": ..., "us_per_request": ...}``.

Run by :mod:`benchmarks.bench_serve` in a subprocess whose ``sitar`` is either this checkout's or
an earlier revision's (``--baseline-rev``), so it imports only what both have:
``sitar.serve.app.create_app``, ``sitar.serve.config.ServeConfig`` and ``sitar.scorer.Scorer``.
What it measures is the app's own cost per request (routing, validation, auth, batching, JSON,
access log and metrics), the part the web framework decides; the model's cost is left out.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


class _Precomputed:
    """A scorer that answers every pair with one precomputed result (no model call)."""

    def __init__(self, checkpoint: str) -> None:
        from sitar.scorer import Scorer

        scorer = Scorer.load(checkpoint, variant="fp32")
        self.signature = scorer.signature
        self.explain = scorer.explain  # the app's warm-up explains one pair
        self._one = scorer.score(references=["the cat sat"], hypotheses=["the cat sat down"])

    def score(self, *, references: list[str], hypotheses: list[str], **_: Any) -> Any:
        n, one = len(references), self._one
        per_pair = {
            f.name: getattr(one, f.name) * n
            for f in dataclasses.fields(one)
            if isinstance(getattr(one, f.name), tuple) and len(getattr(one, f.name)) == 1
        }
        return dataclasses.replace(one, **per_pair)


async def _drive(app: Any, inner: Any, requests: int, concurrency: int) -> float:
    body = json.dumps(
        {"references": ["the cat sat on the mat"], "hypotheses": ["the cat sat on a mat"]}
    ).encode()
    headers = [
        (b"host", b"localhost"),
        (b"content-type", b"application/json"),
        (b"authorization", b"Bearer bench"),
        (b"content-length", str(len(body)).encode()),
    ]

    async def one() -> None:
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> dict[str, Any]:
            return messages.pop() if messages else {"type": "http.disconnect"}

        status: list[int] = []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/v1/score",
            "raw_path": b"/v1/score",
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 40000),
            "server": ("127.0.0.1", 8000),
        }
        await app(scope, receive, send)
        if status != [200]:
            raise RuntimeError(f"the app answered {status}")

    async def worker(n: int) -> None:
        for _ in range(n):
            await one()

    async with inner.router.lifespan_context(inner):
        while not app.sitar_state.ready:
            if app.sitar_state.load_error:
                raise RuntimeError(app.sitar_state.load_error)
            await asyncio.sleep(0.02)
        await asyncio.gather(*(worker(10) for _ in range(concurrency)))  # warm-up
        t0 = time.perf_counter()
        await asyncio.gather(*(worker(requests // concurrency) for _ in range(concurrency)))
        wall = time.perf_counter() - t0
    return (requests // concurrency) * concurrency / wall


def drive(argv: list[str] | None = None) -> int:
    """The driver's entry point. Not a ``main()`` on the tool spine (``sitar._main``): this is a
    subprocess helper of ``python -m benchmarks serve``, not a tool, and an earlier revision's
    ``sitar`` may predate the spine; a failure is a traceback the benchmark shows."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.serve_asgi_driver")
    p.add_argument("--checkpoint", required=True, help="a checkpoint with an fp32 graph")
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=16)
    args = p.parse_args(argv)
    from sitar.serve.app import create_app
    from sitar.serve.config import ServeConfig

    scorer = _Precomputed(args.checkpoint)
    with tempfile.TemporaryDirectory() as tmp:
        key = Path(tmp) / "key"
        key.write_text("bench\n", encoding="utf-8")
        # With a key there is no Host check: the app inside the access log is the framework's.
        config = ServeConfig(api_key_file=str(key), max_wait_ms=0.0, access_log=False)
        app = create_app(config, scorer_factory=lambda: scorer)
        rate = asyncio.run(_drive(app, app.app, args.requests, args.concurrency))
    import sitar

    print(
        json.dumps({"requests_per_s": rate, "us_per_request": 1e6 / rate, "sitar": sitar.__file__})
    )


if __name__ == "__main__":
    sys.exit(drive())
