"""Prometheus metrics of ``sitar serve`` (``GET /metrics``), with ``prometheus_client``.

Each app owns its own :class:`prometheus_client.CollectorRegistry`, so several apps in one process
(tests) do not collide. With several worker processes the serve command sets
``PROMETHEUS_MULTIPROC_DIR`` before the workers start; each worker then writes its samples there
and ``/metrics`` answers the sum over all workers (``MultiProcessCollector``), whichever worker
takes the scrape. Gauges use the ``livesum`` mode (the sum over live workers).
"""

from __future__ import annotations

import os
from typing import Any

from sitar.errors import MissingDependencyError

__all__ = ["ServeMetrics"]

# Latency buckets (seconds): from a cached single pair to a large request on a busy server.
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def _prometheus() -> Any:
    try:
        import prometheus_client
    except ImportError as e:
        raise MissingDependencyError("prometheus_client", "sitar serve", "serve") from e
    return prometheus_client


class ServeMetrics:
    """The counters, gauges and histograms of one worker."""

    def __init__(self) -> None:
        pc = _prometheus()
        self._pc = pc
        self.multiprocess = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
        self.registry = pc.CollectorRegistry(auto_describe=True)
        reg = self.registry
        self.requests = pc.Counter(
            "sitar_requests_total",
            "HTTP requests answered, by endpoint and status code",
            ["endpoint", "status"],
            registry=reg,
        )
        self.errors = pc.Counter(
            "sitar_errors_total",
            "Requests answered with an error, by kind (bad_request, too_large, invalid, "
            "unauthorized, queue_full, timeout, not_ready, shutting_down, internal)",
            ["kind"],
            registry=reg,
        )
        self.latency = pc.Histogram(
            "sitar_request_seconds",
            "Request latency in seconds, by endpoint",
            ["endpoint"],
            buckets=_LATENCY_BUCKETS,
            registry=reg,
        )
        self.batch_pairs = pc.Histogram(
            "sitar_batch_pairs",
            "Pairs per model call (micro-batch size)",
            buckets=_BATCH_BUCKETS,
            registry=reg,
        )
        self.batch_requests = pc.Histogram(
            "sitar_batch_requests",
            "Requests merged into one model call",
            buckets=_BATCH_BUCKETS,
            registry=reg,
        )
        self.batch_seconds = pc.Histogram(
            "sitar_batch_seconds",
            "Time of one model call in seconds",
            buckets=_LATENCY_BUCKETS,
            registry=reg,
        )
        self.pairs = pc.Counter(
            "sitar_pairs_scored_total",
            "Pairs scored (rate() of it is pairs per second)",
            registry=reg,
        )
        gauge_kw: dict[str, Any] = {"multiprocess_mode": "livesum"} if self.multiprocess else {}
        self.queue_depth = pc.Gauge(
            "sitar_queue_pairs",
            "Pairs admitted and not yet answered (waiting or being scored)",
            registry=reg,
            **gauge_kw,
        )
        self.ready = pc.Gauge(
            "sitar_ready",
            "1 when the worker's model is loaded and warm",
            registry=reg,
            **gauge_kw,
        )

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type."""
        pc = self._pc
        if self.multiprocess:
            from prometheus_client import multiprocess

            registry = pc.CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
            return pc.generate_latest(registry), pc.CONTENT_TYPE_LATEST
        return pc.generate_latest(self.registry), pc.CONTENT_TYPE_LATEST
