"""Load test of `sitar serve` on loopback, against offline scoring of the same pairs in the same run.

    python -m benchmarks serve [--checkpoint CKPT] [--requests 256] \
        [--concurrency 1,8,64] [--workers 1,2] [--pairs-per-request 1] [--json out.json] \
        [--baseline-rev REV]

For each worker count a real `sitar serve` process is started on a free 127.0.0.1 port and waited
for until every worker is ready; then, for each concurrency level, ``--requests`` requests of
``--pairs-per-request`` pairs are sent by that many concurrent clients (httpx, keep-alive), and
the server is stopped with SIGTERM. The run is bounded (a fixed number of requests, a timeout on
each) and stops by itself; nothing leaves the loopback interface.

Reported per cell: throughput (pairs/s), latency p50/p95/p99 (ms), failed requests (non-200 or
transport errors) and lost requests (sent but never answered), the largest score difference from
the offline scores of the same pairs, and the resident memory of each worker process (MiB).
Offline peers, on the same pairs in the same run: ``Scorer.score`` in this process (warm, all
pairs in one call) and the `sitar score` command (wall time including start-up and model load).
The ratio column is service throughput over warm ``Scorer.score`` throughput. The client runs on
the same machine as the server and takes part of its CPU.

``--baseline-rev REV`` (a git revision of this repository, e.g. the last commit before the
service moved from bare Starlette to FastAPI) also serves the same cells with that revision's
``sitar`` package, extracted with ``git archive`` into a temporary folder and started from there
(same checkpoint, same options). Both servers run side by side and their cells alternate, the
order flipping at each concurrency level; both throughputs and their ratio (current / baseline)
are printed per cell.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.harness import ROOT, clock, timed, write_result
from benchmarks.pairs import synthetic_pairs
from sitar._main import ArgumentParser, tool_main


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def offline(args: argparse.Namespace, refs: list[str], hyps: list[str]) -> dict[str, Any]:
    from sitar.scorer import Scorer

    scorer = Scorer.load(args.checkpoint, variant=args.variant)
    scorer.score(references=refs[:64], hypotheses=hyps[:64])  # warm-up
    t = timed(scorer.score, references=refs, hypotheses=hyps, batch_size=args.batch_size)
    result, api_s = t.value, t.wall
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairs.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for i, (r, h) in enumerate(zip(refs, hyps, strict=True)):
                f.write(json.dumps({"id": str(i), "reference": r, "hypothesis": h}) + "\n")
        argv = [sys.executable, "-m", "sitar", "score", "--jsonl", str(path), "--jsonl-out"]
        argv += ["--batch-size", str(args.batch_size)]
        if args.checkpoint:
            argv += ["--checkpoint", args.checkpoint]
        if args.variant:
            argv += ["--variant", args.variant]
        t = timed(subprocess.run, argv, capture_output=True, text=True, check=True, cwd=ROOT)
        proc, cli_s = t.value, t.wall
    cli_scores = [json.loads(line)["score"] for line in proc.stdout.splitlines()[:-1]]
    return {
        "scores": list(result.scores),
        "signature": result.signature,
        "api_pairs_per_s": len(refs) / api_s,
        "cli_pairs_per_s": len(refs) / cli_s,
        "cli_max_abs_diff_vs_api": float(np.max(np.abs(np.subtract(cli_scores, result.scores)))),
    }


def extract_revision(rev: str, dest: Path) -> Path:
    """The ``sitar`` package of git revision ``rev`` of this repository, under ``dest``."""
    import io
    import tarfile

    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "sitar"],
            capture_output=True,
            check=True,
        ).stdout
    except subprocess.CalledProcessError as e:
        from sitar.errors import InputError

        raise InputError(
            f"--baseline-rev {rev}: git archive failed: {e.stderr.decode().strip()}"
        ) from e
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


class Server:
    def __init__(
        self, args: argparse.Namespace, workers: int, log_dir: Path, code: Path | None = None
    ) -> None:
        """``code``: a folder holding another revision's ``sitar`` package to serve instead."""
        self.label = "current" if code is None else "baseline"
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        argv = [sys.executable, "-m", "sitar", "serve", "--port", str(self.port)]
        argv += ["--workers", str(workers), "--max-wait-ms", str(args.max_wait_ms)]
        argv += ["--max-batch-pairs", str(args.max_batch_pairs), "--no-access-log"]
        argv += ["--batch-size", str(args.batch_size), "--log-level", "warning"]
        argv += ["--max-queue-pairs", str(max(1024, args.pairs_per_request * 256))]
        if workers > 1:
            argv += ["--threads", str(max(1, (os.cpu_count() or 2) // workers))]
        checkpoint = args.checkpoint
        if checkpoint is None and code is not None:
            # The extracted package has no checkpoints folder beside it: name this checkout's.
            from sitar.checkpoint import default_checkpoint_path

            checkpoint = str(default_checkpoint_path())
        if checkpoint:
            argv += ["--checkpoint", checkpoint]
        if args.variant:
            argv += ["--variant", args.variant]
        self.log = open(log_dir / f"serve-{self.label}-w{workers}.log", "w")
        env = None if code is None else {**os.environ, "PYTHONPATH": str(code)}
        self.proc = subprocess.Popen(
            argv, stdout=self.log, stderr=subprocess.STDOUT, cwd=code or ROOT, env=env
        )
        self.workers = workers

    def wait_ready(self, timeout: float = 300.0) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the server exited during start-up")
            try:
                text = httpx.get(self.url + "/metrics", timeout=5).text
                ready = [ln for ln in text.splitlines() if ln.startswith("sitar_ready ")]
                if ready and float(ready[0].split()[1]) >= self.workers:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.25)
        raise RuntimeError(f"server not ready after {timeout} s")

    def worker_rss_mib(self) -> list[float]:
        import psutil

        parent = psutil.Process(self.proc.pid)
        # uvicorn's workers; not multiprocessing's resource tracker, nor the supervisor.
        procs = (
            [c for c in parent.children() if "resource_tracker" not in " ".join(c.cmdline())]
            if self.workers > 1
            else [parent]
        )
        return [round(p.memory_info().rss / 2**20, 1) for p in procs]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


async def _load(
    url: str, requests: list[tuple[list[int], dict[str, Any]]], concurrency: int
) -> dict[str, Any]:
    """Send ``requests`` with ``concurrency`` concurrent clients; every request ends as exactly
    one of: answered 200, answered with another status, or a transport error."""
    import httpx

    out: dict[str, Any] = {"latencies": [], "http_errors": 0, "transport_errors": 0, "ok": 0}
    got: dict[int, float] = {}
    queue = list(reversed(requests))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async with httpx.AsyncClient(base_url=url, timeout=60.0, limits=limits) as client:

        async def worker() -> None:
            while queue:
                idx, body = queue.pop()
                t0 = clock()
                try:
                    r = await client.post("/v1/score", json=body)
                except httpx.HTTPError:
                    out["transport_errors"] += 1
                    continue
                out["latencies"].append(clock() - t0)
                if r.status_code != 200:
                    out["http_errors"] += 1
                    continue
                out["ok"] += 1
                for i, score in zip(idx, r.json()["scores"], strict=True):
                    got[i] = score

        t0 = clock()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        out["wall"] = clock() - t0
    out["got"] = got
    return out


def run_cell(
    server: Server, refs: list[str], hyps: list[str], args: argparse.Namespace, concurrency: int,
    offline_scores: list[float],
) -> dict[str, Any]:  # fmt: skip
    k = args.pairs_per_request
    n_req = args.requests
    reqs = []
    for j in range(n_req):
        idx = [(j * k + t) % len(refs) for t in range(k)]
        body = {"references": [refs[i] for i in idx], "hypotheses": [hyps[i] for i in idx]}
        reqs.append((idx, body))
    # A short warm-up at this concurrency (not timed): connections, first batches.
    asyncio.run(_load(server.url, reqs[: min(concurrency, 16)], min(concurrency, 16)))
    res = asyncio.run(_load(server.url, reqs, concurrency))
    lat, got = res["latencies"], res["got"]
    wanted = {i for idx, _ in reqs for i in idx}
    diffs = [abs(got[i] - offline_scores[i]) for i in got]
    return {
        "server": server.label,
        "workers": server.workers,
        "concurrency": concurrency,
        "requests": n_req,
        "pairs": n_req * k,
        "pairs_per_s": n_req * k / res["wall"],
        "p50_ms": _percentile(lat, 50) * 1000,
        "p95_ms": _percentile(lat, 95) * 1000,
        "p99_ms": _percentile(lat, 99) * 1000,
        "failed": res["http_errors"] + res["transport_errors"],
        # requests with no outcome at all, plus pairs of answered requests without a score
        "lost": n_req
        - res["ok"]
        - res["http_errors"]
        - res["transport_errors"]
        + (len(wanted - set(got)) if res["ok"] == n_req else 0),
        "max_abs_diff_vs_offline": max(diffs) if diffs else float("nan"),
        "worker_rss_mib": server.worker_rss_mib(),
    }


def _compare(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (workers, concurrency): baseline and current pairs/s (medians over the rounds) and
    the median of the per-round ratios current / baseline."""
    runs: dict[tuple[str, int, int], dict[int, float]] = {}
    for c in cells:
        key = (c["server"], c["workers"], c["concurrency"])
        runs.setdefault(key, {})[c.get("round", 1)] = c["pairs_per_s"]
    rows = []
    for (label, w, conc), current in runs.items():
        base = runs.get(("baseline", w, conc))
        if label != "current" or base is None:
            continue
        ratios = [current[r] / base[r] for r in current if r in base]
        rows.append(
            {
                "workers": w,
                "concurrency": conc,
                "rounds": len(ratios),
                "baseline_pairs_per_s": float(np.median(list(base.values()))),
                "current_pairs_per_s": float(np.median(list(current.values()))),
                "ratio": float(np.median(ratios)),
                "ratio_min": min(ratios),
                "ratio_max": max(ratios),
            }
        )
    return rows


def app_only(args: argparse.Namespace) -> int:
    """The app's own cost per request, current and baseline in turns (see --app-only)."""
    tiny = ROOT / "tests" / "fixtures" / "tiny_onnx"
    conc = int(args.concurrency.split(",")[0])
    argv = [sys.executable, "-m", "benchmarks.serve_asgi_driver", "--checkpoint", str(tiny)]
    argv += ["--requests", str(args.requests), "--concurrency", str(conc)]
    rates: dict[str, list[float]] = {"baseline": [], "current": []}
    with tempfile.TemporaryDirectory() as tmp:
        sides: list[tuple[str, Path]] = [("current", ROOT)]
        if args.baseline_rev:
            code = extract_revision(args.baseline_rev, Path(tmp) / "baseline")
            sides.insert(0, ("baseline", code))
        for r in range(args.rounds):
            for label, code in sides if r % 2 == 0 else sides[::-1]:
                print(f"{label}: app only, round {r + 1} ...", file=sys.stderr)
                # cwd and PYTHONPATH first: that tree's sitar; the driver module from this one.
                env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), str(ROOT)])}
                proc = subprocess.run(argv, capture_output=True, text=True, cwd=code, env=env)
                if proc.returncode != 0:
                    raise RuntimeError(
                        f"the {label} app-only driver failed:\n{proc.stderr[-3000:]}"
                    )
                result = json.loads(proc.stdout.strip().splitlines()[-1])
                if not result["sitar"].startswith(str(code)):
                    raise RuntimeError(f"{label} ran the sitar of {result['sitar']}, not {code}")
                rates[label].append(result["requests_per_s"])
    print(f"\napp only (ASGI in-process, model-free scorer), {args.requests} single-pair "
          f"requests at concurrency {conc}, {args.rounds} round(s); cpu cores: {os.cpu_count()}\n")  # fmt: skip
    print("| round | baseline req/s | current req/s | current / baseline |")
    print("|---|---|---|---|")
    ratios = []
    for r, cur in enumerate(rates["current"]):
        base = rates["baseline"][r] if rates["baseline"] else float("nan")
        ratios.append(cur / base)
        print(f"| {r + 1} | {base:.0f} | {cur:.0f} | {cur / base:.2f} |")
    if args.baseline_rev:
        print(f"\nmedian ratio current / {args.baseline_rev}: {float(np.median(ratios)):.2f}")
    write_result(
        args.json,
        "serve",
        {"mode": "app-only", "baseline_rev": args.baseline_rev, "rates": rates, "ratios": ratios},
    )
    return 0


@tool_main("python -m benchmarks serve")
def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(prog="python -m benchmarks serve", description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", default=None, help="default: the packaged checkpoint")
    p.add_argument("--variant", default=None, choices=("int8", "fp32"))
    p.add_argument("--requests", type=int, default=256, help="requests per cell (default 256)")
    p.add_argument("--pairs-per-request", type=int, default=1)
    p.add_argument("--concurrency", default="1,8,64")
    p.add_argument("--workers", default="1,2")
    p.add_argument("--max-wait-ms", type=float, default=5.0)
    p.add_argument("--max-batch-pairs", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="write the results here too")
    p.add_argument(
        "--baseline-rev",
        default=None,
        metavar="REV",
        help="also serve the same cells with this git revision's sitar package and print the "
        "throughput ratio current / baseline",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="repeat every cell this many times, alternating servers; the comparison reports "
        "medians (default 1)",
    )
    p.add_argument(
        "--app-only",
        action="store_true",
        help="measure only the app's own cost per request: ASGI calls in-process with a "
        "model-free scorer (benchmarks/serve_asgi_driver.py), current and --baseline-rev in "
        "turns; --requests and --concurrency (first level) apply",
    )
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be >= 1")
    if args.app_only:
        return app_only(args)
    levels = [int(x) for x in args.concurrency.split(",")]
    worker_counts = [int(x) for x in args.workers.split(",")]
    n_pairs = args.requests * args.pairs_per_request
    _, refs, hyps = synthetic_pairs(n_pairs, seed=args.seed)

    print(f"offline peers on the same {n_pairs} pairs ...", file=sys.stderr)
    off = offline(args, refs, hyps)
    print(
        f"Scorer.score (warm, in-process): {off['api_pairs_per_s']:.1f} pairs/s; "
        f"`sitar score` (incl. start-up): {off['cli_pairs_per_s']:.1f} pairs/s",
        file=sys.stderr,
    )
    cells = []
    with tempfile.TemporaryDirectory() as tmp:
        codes: list[Path | None] = [None]
        if args.baseline_rev:
            codes.insert(0, extract_revision(args.baseline_rev, Path(tmp) / "baseline"))
        for w in worker_counts:
            # Both servers run side by side and their cells alternate (the order flips at each
            # level), so a drift in the machine's load does not favour one of them; the idle one
            # only waits on its socket.
            servers = [Server(args, w, Path(tmp), code) for code in codes]
            try:
                for server in servers:
                    server.wait_ready()
                for r in range(args.rounds):
                    for k, c in enumerate(levels):
                        for server in servers if (k + r) % 2 == 0 else servers[::-1]:
                            print(
                                f"{server.label}: workers={w} concurrency={c} round={r + 1} ...",
                                file=sys.stderr,
                            )
                            cell = run_cell(server, refs, hyps, args, c, off["scores"])
                            cells.append({**cell, "round": r + 1})
            finally:
                for server in servers:
                    server.stop()

    print(f"\nsignature: {off['signature']}")
    print(f"pairs per request: {args.pairs_per_request}; requests per cell: {args.requests}; "
          f"cpu cores: {os.cpu_count()}")  # fmt: skip
    print(f"offline Scorer.score (warm): {off['api_pairs_per_s']:.1f} pairs/s; "
          f"offline `sitar score` (wall incl. start-up): {off['cli_pairs_per_s']:.1f} pairs/s")  # fmt: skip
    print()
    print(
        "| workers | concurrency | pairs/s | vs Scorer.score | p50 ms | p95 ms | p99 ms | failed | lost | max |diff| | RSS/worker MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cells:
        if c["server"] != "current":
            continue
        print(
            f"| {c['workers']} | {c['concurrency']} | {c['pairs_per_s']:.1f} | "
            f"{c['pairs_per_s'] / off['api_pairs_per_s']:.2f} | {c['p50_ms']:.0f} | "
            f"{c['p95_ms']:.0f} | {c['p99_ms']:.0f} | {c['failed']} | {c['lost']} | "
            f"{c['max_abs_diff_vs_offline']:.1e} | {', '.join(map(str, c['worker_rss_mib']))} |"
        )
    comparison = _compare(cells) if args.baseline_rev else []
    if comparison:
        print(f"\nthroughput against --baseline-rev {args.baseline_rev} (same run, same pairs):\n")
        print(
            "| workers | concurrency | rounds | baseline pairs/s | current pairs/s | "
            "current / baseline (median, min-max) |"
        )
        print("|---|---|---|---|---|---|")
        for row in comparison:
            print(
                f"| {row['workers']} | {row['concurrency']} | {row['rounds']} | "
                f"{row['baseline_pairs_per_s']:.1f} | {row['current_pairs_per_s']:.1f} | "
                f"{row['ratio']:.2f} ({row['ratio_min']:.2f}-{row['ratio_max']:.2f}) |"
            )
    off.pop("scores")
    write_result(
        args.json,
        "serve",
        {
            "offline": off,
            "cells": cells,
            "baseline_rev": args.baseline_rev,
            "comparison": comparison,
        },
    )
    bad = sum(c["failed"] + c["lost"] for c in cells)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
