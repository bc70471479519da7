"""Crash and resume: SIGKILL the annotation process at random points, resume, compare.

The pipeline runs in forked child processes (the parent has already loaded the analyzer, so a
restart costs no start-up time); the parent kills each child with SIGKILL once the fake server has
seen a random number of further requests. After the last resume, the dataset must equal that of
an uninterrupted run, the journal must hold the same calls, and the server must have seen no
repeated request beyond those that were in flight when a kill happened.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
import traceback

import pytest

pytest.importorskip("httpx")
pytest.importorskip("sklearn")

from annotation_helpers import make_config, many_pairs
from fake_llm import FakeLLM

from annotation.dataset import build_dataset
from annotation.journal import Journal
from annotation.pipeline import run_pairs, start_run

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

N_PAIRS = 200
CONCURRENCY = 4


def _run_in_child(run_dir) -> int:
    pid = os.fork()
    if pid == 0:  # child: run, then leave without running any pytest machinery
        code = 0
        try:
            run_pairs(run_dir)
        except BaseException:
            traceback.print_exc(file=sys.stderr)
            code = 1
        finally:
            os._exit(code)
    return pid


def _keys(run_dir):
    with Journal(run_dir / "journal.sqlite") as journal:
        return sorted((c.key, c.ok, c.parsed is not None) for c in journal.calls())


def test_sigkill_at_random_points_then_resume_matches_an_uninterrupted_run(tmp_path):
    # Cheap pairs keep the test fast: 2/5 without gaps, 1/5 rejected after round 1.
    pairs = many_pairs(N_PAIRS, kinds=(0, 1, 3, 2, 0))
    # The uninterrupted reference run.
    with FakeLLM(base_seed=100) as server:
        ref = tmp_path / "reference"
        start_run(ref, pairs, make_config(server, reviewers=1, concurrency=CONCURRENCY))
        run_pairs(ref)
        reference_requests = server.requests
    assert max(server.by_body.values()) == 1
    # The same work, killed again and again.
    rng = random.Random(20261129)
    kills = 0
    with FakeLLM(base_seed=100) as server:
        crash = tmp_path / "crashed"
        start_run(crash, pairs, make_config(server, reviewers=1, concurrency=CONCURRENCY))
        deadline = time.monotonic() + 120
        while True:
            threshold = server.requests + rng.randint(20, 250)
            pid = _run_in_child(crash)
            finished = False
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    assert os.waitstatus_to_exitcode(status) == 0
                    finished = True
                    break
                if server.requests >= threshold:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    kills += 1
                    break
                assert time.monotonic() < deadline, "the crash loop did not finish"
                time.sleep(0.001)
            if finished:
                break
        duplicates = sum(n - 1 for n in server.by_body.values())
        crashed_requests = server.requests
    print(f"kills={kills} duplicates={duplicates} requests={crashed_requests}")
    assert kills >= 3
    # No finished call was repeated: repeats are bounded by the requests in flight at each kill.
    assert duplicates <= kills * CONCURRENCY
    assert crashed_requests - duplicates == reference_requests
    # The journals hold the same calls, and the datasets are identical.
    assert _keys(crash) == _keys(ref)
    build_dataset(ref, tmp_path / "ds-ref", card_path=tmp_path / "ref.md", name="d")
    build_dataset(crash, tmp_path / "ds-crash", card_path=tmp_path / "crash.md", name="d")
    for name in (
        "records.jsonl",
        "train.jsonl",
        "validation.jsonl",
        "test.jsonl",
        "rejected.jsonl",
    ):
        assert (tmp_path / "ds-ref" / name).read_bytes() == (
            tmp_path / "ds-crash" / name
        ).read_bytes(), name


@pytest.mark.slow
def test_sigkill_of_the_cli_process_then_cli_resume(tmp_path):
    """The same through the real command line, in fresh interpreters (slow: each one loads the
    analyzer lexicon)."""
    import json
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pairs = many_pairs(N_PAIRS, kinds=(0, 1, 3, 2, 0))
    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text(
        "".join(
            json.dumps({"id": p.id, "reference": p.reference, "hypothesis": p.hypothesis}) + "\n"
            for p in pairs
        )
    )
    with FakeLLM(base_seed=100) as server:
        ref = tmp_path / "reference"
        cfg = make_config(server, reviewers=1, concurrency=CONCURRENCY)
        cfg.annotator.model = "fake-annotator"
        start_run(ref, pairs, cfg, source=str(pairs_file))
        run_pairs(ref)
        reference_requests = server.requests
    with FakeLLM(base_seed=100) as server:
        run = tmp_path / "cli-run"
        base = [sys.executable, "-m", "annotation"]
        flags = [
            "--base-url", server.base_url, "--model", "fake-annotator", "--api-key-env", "",
            "--seed", "100", "--reviewers", "1", "--concurrency", str(CONCURRENCY),
            "--max-retries", "2", "--price-in", "1", "--price-out", "4", "--no-progress",
        ]  # fmt: skip
        commands = [[*base, "run", str(run), "--jsonl", str(pairs_file), *flags]]
        commands += [[*base, "resume", str(run), "--no-progress"]] * 5
        kills = 0
        for command in commands:
            threshold = server.requests + 150
            proc = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, text=True)
            while proc.poll() is None:
                if server.requests >= threshold:
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    kills += 1
                    break
                time.sleep(0.002)
            if proc.returncode == 0:
                out = proc.stdout.read()
                break
        duplicates = sum(n - 1 for n in server.by_body.values())
        crashed_requests = server.requests
    assert kills >= 2 and "pairs: 200" in out
    assert duplicates <= kills * CONCURRENCY
    assert crashed_requests - duplicates == reference_requests
    build_dataset(ref, tmp_path / "ds-ref", card_path=tmp_path / "ref.md", name="d")
    build_dataset(run, tmp_path / "ds-cli", card_path=tmp_path / "cli.md", name="d")
    assert (tmp_path / "ds-ref" / "records.jsonl").read_bytes() == (
        tmp_path / "ds-cli" / "records.jsonl"
    ).read_bytes()
