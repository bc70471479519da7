"""``sitar serve``: run the HTTP scoring service (extra ``serve``).

Builds a :class:`~sitar.serve.config.ServeConfig` from the options, checks the API key, binds the
port (a port in use is a one-line error with exit code 2 at once, before anything slow), checks
the checkpoint (so a typo is a one-line error with exit code 2, not a worker that never turns
ready), then runs uvicorn on that socket: in this process for ``--workers 1``, or ``N`` worker
processes that each load their own model session. With several workers, Prometheus samples go to
a temporary ``PROMETHEUS_MULTIPROC_DIR`` so ``/metrics`` reports all of them. uvicorn handles
SIGTERM and SIGINT: stop accepting, finish in-flight requests (up to ``--graceful-timeout``), then
exit.
"""

from __future__ import annotations

import argparse
import errno
import os
import shutil
import signal
import socket
import tempfile
from typing import TYPE_CHECKING, Any

from sitar._main import Overridable
from sitar.errors import InputError, MissingDependencyError
from sitar.options import add_scorer_arguments, options_from_args

if TYPE_CHECKING:
    from sitar.options import ScorerOptions
    from sitar.serve.config import ServeConfig

__all__ = ["bind_socket", "build_config", "register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the HTTP scoring service (needs sitar[serve])",
        description=(
            "Serve POST /v1/score, POST /v1/explain, GET /healthz, /readyz and /metrics over HTTP, "
            "with micro-batching across concurrent requests. Binds 127.0.0.1 unless --host says "
            "otherwise; auth with --api-key-file or --api-key-env."
        ),
    )
    model = parser.add_argument_group("model (as in `sitar score`)")
    add_scorer_arguments(
        model,
        threads_help="ONNX Runtime threads per worker (default: ONNX Runtime's choice with one "
        "worker, cores / workers with several)",
    )
    model.add_argument(
        "--batch-size",
        type=int,
        default=32,
        metavar="N",
        help="pairs per model batch inside one scoring call (default 32)",
    )
    net = parser.add_argument_group("network")
    # --host and --port may be repeated, the last one winning: the container image presets them
    # in its entrypoint and `docker run IMAGE --port 9000` appends an override.
    net.add_argument(
        "--host",
        default="127.0.0.1",
        action=Overridable,
        help="address to bind (default 127.0.0.1; 0.0.0.0 exposes the service; the last one "
        "given wins)",
    )
    net.add_argument(
        "--port",
        type=int,
        default=8000,
        action=Overridable,
        help="port (default 8000; the last one given wins)",
    )
    net.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="worker processes, one model session each (default 1)",
    )
    batching = parser.add_argument_group("micro-batching")
    batching.add_argument(
        "--max-batch-pairs",
        type=int,
        default=64,
        metavar="N",
        help="most pairs merged into one model call (default 64)",
    )
    batching.add_argument(
        "--max-wait-ms",
        type=float,
        default=5.0,
        metavar="MS",
        help="longest wait for more requests before a call (default 5)",
    )
    batching.add_argument(
        "--max-queue-pairs",
        type=int,
        default=1024,
        metavar="N",
        help="cost units (a pair: one per 256 characters) admitted and unanswered before 503 "
        "queue_full; a request costing more is 413 (default 1024)",
    )
    limits = parser.add_argument_group("limits")
    limits.add_argument(
        "--max-pairs",
        dest="max_pairs_per_request",
        type=int,
        default=256,
        metavar="N",
        help="most pairs per request (default 256; more: 413)",
    )
    limits.add_argument(
        "--max-chars",
        dest="max_chars_per_text",
        type=int,
        default=4096,
        metavar="N",
        help="most characters per text (default 4096; more: 413)",
    )
    limits.add_argument(
        "--request-timeout",
        dest="request_timeout_s",
        type=float,
        default=30.0,
        metavar="S",
        help="answer 503 timeout after S seconds (default 30)",
    )
    limits.add_argument(
        "--max-client-requests",
        dest="max_client_requests",
        type=int,
        default=None,
        metavar="N",
        help="most requests one client address may have in flight per worker (more: 429 "
        "too_many_requests; default: no limit; behind a proxy every client is the proxy)",
    )
    security = parser.add_argument_group("security")
    security.add_argument(
        "--api-key-file",
        metavar="PATH",
        default=None,
        help="require 'Authorization: Bearer KEY' with KEY the file's first line",
    )
    security.add_argument(
        "--api-key-env",
        action="store_true",
        help="require a bearer token read from the SITAR_API_KEY variable",
    )
    security.add_argument(
        "--cors-origin",
        dest="cors_origins",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow this browser origin (repeatable; default: CORS off)",
    )
    security.add_argument(
        "--allowed-hosts",
        metavar="HOST[,HOST...]",
        default=None,
        help="answer only requests whose Host header names one of these (comma-separated; '*': "
        "any). Default: localhost, 127.0.0.1 and ::1 when there is no API key and --host is a "
        "loopback address (against DNS rebinding), else any",
    )
    ops = parser.add_argument_group("operations")
    ops.add_argument(
        "--no-access-log",
        dest="access_log",
        action="store_false",
        help="do not write the JSON access log on stderr",
    )
    ops.add_argument(
        "--graceful-timeout",
        dest="graceful_timeout_s",
        type=float,
        default=30.0,
        metavar="S",
        help="on SIGTERM, wait at most S seconds for open requests",
    )
    ops.add_argument(
        "--header-timeout",
        dest="header_timeout_s",
        type=float,
        default=10.0,
        metavar="S",
        help="close a connection whose request headers are not complete S seconds after it "
        "opened or the request started (against slowloris; default 10)",
    )
    ops.add_argument(
        "--log-level", default="info", choices=("critical", "error", "warning", "info", "debug")
    )
    parser.set_defaults(func=run)


def build_config(args: argparse.Namespace) -> ServeConfig:
    from sitar.serve.config import ServeConfig

    return ServeConfig(
        scorer=options_from_args(args),
        batch_size=args.batch_size,
        host=args.host,
        port=args.port,
        workers=args.workers,
        max_batch_pairs=args.max_batch_pairs,
        max_wait_ms=args.max_wait_ms,
        max_queue_pairs=args.max_queue_pairs,
        max_pairs_per_request=args.max_pairs_per_request,
        max_chars_per_text=args.max_chars_per_text,
        request_timeout_s=args.request_timeout_s,
        max_client_requests=args.max_client_requests,
        api_key_file=args.api_key_file,
        api_key_env=args.api_key_env,
        cors_origins=tuple(args.cors_origins),
        allowed_hosts=(
            None
            if args.allowed_hosts is None
            else tuple(h.strip() for h in args.allowed_hosts.split(","))
        ),
        access_log=args.access_log,
        graceful_timeout_s=args.graceful_timeout_s,
        header_timeout_s=args.header_timeout_s,
    )


def check_scorer_options(options: ScorerOptions) -> None:
    """Fail now, not in every worker, on options the checkpoint cannot honour: a gap head, a
    tie-breaker or a decoding rule for a checkpoint that scores with its pair head (as
    :class:`~sitar.scorer.Scorer` decides it), or a missing graph variant."""
    from sitar.checkpoint import CheckpointConfig, resolve_checkpoint
    from sitar.scorer import default_head

    checkpoint = CheckpointConfig.load(
        resolve_checkpoint(
            options.checkpoint,
            revision=options.revision,
            include_torch=options.backend == "torch",
        )
    )
    # The workers' Scorer.load refuses an unverified checkpoint: refuse it once, here.
    from sitar.integrity import require_verified

    require_verified(checkpoint, allow_unverified=options.allow_unverified)
    onnx = checkpoint.onnx
    gap_aware = "gap_index" in onnx.inputs and "gap_logits" in onnx.outputs
    if options.head == "gaps" and not gap_aware:
        raise InputError(
            f"--head gaps: checkpoint {checkpoint.name!r} has no gap head; use --head pair"
        )
    head = options.head or default_head(checkpoint, gap_aware=gap_aware)
    if (options.tie_breaker is not None or options.decode is not None) and head != "gaps":
        raise InputError(
            f"--tie-breaker and --decode apply to the gap head; checkpoint {checkpoint.name!r} "
            "scores with its pair head"
        )
    if options.backend == "onnx":
        checkpoint.resolve_variant(options.variant)


def run(args: argparse.Namespace) -> int:
    from sitar.serve.config import read_api_key

    for package in ("uvicorn", "fastapi", "pydantic", "starlette", "prometheus_client"):
        try:
            __import__(package)
        except ImportError as e:
            raise MissingDependencyError(package, "sitar serve", "serve") from e

    config = build_config(args)
    if config.workers > 1 and config.scorer.threads is None and config.scorer.backend == "onnx":
        # N sessions that each use every core would oversubscribe the CPU: share the cores.
        import dataclasses

        threads = max(1, (os.cpu_count() or 1) // config.workers)
        config = dataclasses.replace(config, scorer=config.scorer.replace(threads=threads))
    read_api_key(config)  # fail now on a missing or empty key, not in every worker
    # Bind before anything slow (checkpoint checks, model loading): a port in use is a one-line
    # error at once, not after the model has loaded.
    sock = bind_socket(config.host, config.port)
    try:
        check_scorer_options(config.scorer)
        return _serve(config, sock, args.log_level)
    finally:
        sock.close()


def bind_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``(host, port)`` as uvicorn binds it (``SO_REUSEADDR``, inheritable
    for worker processes); an address in use or not ours is an :class:`InputError`."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise InputError(f"cannot listen on {host}:{port}: {e.strerror}; check --host") from e
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as e:
        sock.close()
        reason = "the port is in use" if e.errno == errno.EADDRINUSE else e.strerror
        raise InputError(
            f"cannot listen on {host}:{port}: {reason}; choose another --port or --host"
        ) from e
    sock.set_inheritable(True)
    return sock


def _serve(config: ServeConfig, sock: socket.socket, log_level: str) -> int:
    import uvicorn

    from sitar.serve.app import configure_logging
    from sitar.serve.config import CONFIG_ENV
    from sitar.serve.protocol import HeaderTimeoutH11Protocol

    configure_logging(log_level)
    HeaderTimeoutH11Protocol.header_timeout_s = config.header_timeout_s
    common: dict[str, Any] = {
        "http": HeaderTimeoutH11Protocol,
        "log_level": log_level,
        "access_log": False,  # ours is structured (sitar.serve.access)
        "server_header": False,
        "timeout_graceful_shutdown": max(1, round(config.graceful_timeout_s)),
        "proxy_headers": False,
    }
    if config.workers == 1:
        from sitar.serve.app import create_app

        server = uvicorn.Server(uvicorn.Config(create_app(config), **common))
        # uvicorn re-raises a captured SIGTERM once it has drained, through the handler it found
        # installed; with this one that is a no-op, and a drained server exits 0 (not 143).
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
        try:
            server.run(sockets=[sock])
        finally:
            signal.signal(signal.SIGTERM, previous)
        return 0 if server.started else 1
    from uvicorn.supervisors import Multiprocess

    metrics_dir = tempfile.mkdtemp(prefix="sitar-serve-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    os.environ[CONFIG_ENV] = config.to_json()
    os.environ["SITAR_SERVE_LOG_LEVEL"] = log_level
    try:
        uv_config = uvicorn.Config(
            "sitar.serve.app:app_from_env", factory=True, workers=config.workers, **common
        )
        Multiprocess(uv_config, sockets=[sock]).run()
    finally:
        shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0
