"""End-to-end runs of the annotation pipeline against the fake OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("httpx")
pytest.importorskip("sklearn")

from annotation_helpers import SCRIPTED, make_config, many_pairs, scripted_pairs

from annotation.__main__ import main
from annotation.client import EndpointError
from annotation.dataset import build_dataset
from annotation.journal import Journal
from annotation.pipeline import recompute, run_pairs, start_run
from sitar.errors import InputError
from sitar.records import read_records
from sitar.targets import score_from_tiers


def _outcome_key(outcome):
    return outcome.reason or outcome.status


def test_scripted_cases_reach_the_spec_outcomes(fake_llm, tmp_path):
    run = tmp_path / "run"
    start_run(run, scripted_pairs(), make_config(fake_llm, timeout_s=1.0), source="scripted")
    live = {}
    summary = run_pairs(run, on_outcome=lambda row, o: live.__setitem__(row.id, o))
    for pid, _, _, expected, tiers, directions in SCRIPTED:
        outcome = live[pid]
        assert _outcome_key(outcome) == expected, (pid, outcome)
        if expected == "accepted":
            assert outcome.tiers == tiers and outcome.directions == directions, pid
            assert outcome.score == score_from_tiers(tiers, directions)
    assert summary.stopped is None
    assert 1 < fake_llm.max_inflight <= 4  # the client's concurrency limit
    # Retries are bounded: a 429 twice, a 500 once, a slow answer once; the always-slow pair
    # sent exactly 1 + max_retries requests for its first call and then stayed pending.
    # 9 calls per accepted one-gap pair: 3 rounds x (ranking + tiers) + 3 reviewers.
    assert fake_llm.by_case["case429"] == 9 + 2
    assert fake_llm.by_case["case500once"] == 9 + 1
    assert fake_llm.by_case["caseslowonce"] == 9 + 1
    assert fake_llm.by_case["caseslowalways"] == 3
    # Re-asks are bounded: round 1's ranking is fine, its tier answer is asked 1 + max_invalid
    # times and then recorded as a failure, which ends the pair.
    assert fake_llm.by_case["casemalformedalways"] == 1 + 3
    assert fake_llm.by_case["caseschema"] == 1 + 3
    # Token and cost accounting adds up: server == client summary == journal.
    with Journal(run / "journal.sqlite") as journal:
        totals = journal.totals()
        failed = [c for c in journal.calls() if not c.ok]
    assert totals["prompt_tokens"] == fake_llm.usage["prompt_tokens"] == summary.usage.prompt_tokens
    assert (
        totals["completion_tokens"]
        == fake_llm.usage["completion_tokens"]
        == summary.usage.completion_tokens
    )
    expected_cost = (
        fake_llm.usage["prompt_tokens"] * 1.0 + fake_llm.usage["completion_tokens"] * 4.0
    ) / 1e6
    assert totals["cost"] == pytest.approx(expected_cost)
    assert summary.usage.cost == pytest.approx(expected_cost)
    # Every HTTP request is counted; the journal holds those of finished calls (retries
    # included), i.e. all but the 3 of the pending always-slow call.
    assert summary.usage.requests == fake_llm.requests
    assert totals["requests"] == fake_llm.requests - 3
    # Failures keep every raw answer.
    assert {c.pair_id for c in failed} == {"malformed", "schema"}
    assert all(len(c.attempts) == 3 and c.attempts[0]["text"] for c in failed)
    # Offline recomputation gives the same decisions without any call.
    before = fake_llm.requests
    evaluated, meta = recompute(run)
    decided = {pid: o for pid, o in live.items() if o.status != "pending"}
    assert {e.row.id: e.outcome for e in evaluated if e.row.id in decided} == decided
    assert {e.row.id for e in evaluated if e.outcome.status == "pending"} == {"slow-always"}
    assert fake_llm.requests == before
    assert meta["totals"] == totals


def test_resume_repeats_no_finished_call_and_finishes_pending(fake_llm, tmp_path):
    run = tmp_path / "run"
    pairs = scripted_pairs()
    start_run(run, pairs, make_config(fake_llm, timeout_s=1.0))
    run_pairs(run)
    first = fake_llm.requests
    second = run_pairs(run)
    # Only the pending (always slow) pair is tried again: 3 requests for its first call.
    assert fake_llm.requests - first == 3
    assert second.new_calls == 0 and second.reused_calls > 0
    assert second.outcomes["pending"] == 1
    with pytest.raises(InputError, match="already exists"):
        start_run(run, pairs, make_config(fake_llm))


def test_budget_cap_stops_cleanly_and_resume_continues(fake_llm, tmp_path):
    run = tmp_path / "run"
    pairs = many_pairs(20)
    cfg = make_config(fake_llm, concurrency=1, price_input_per_mtok=1000.0)
    cfg.budget = 2.0
    start_run(run, pairs, cfg)
    summary = run_pairs(run)
    assert summary.stopped == "budget"
    assert summary.outcomes["pending"] > 0
    with Journal(run / "journal.sqlite") as journal:
        spent = journal.totals()["cost"]
        most = max(c.cost for c in journal.calls())
    # Concurrency 1: the cap is checked before each request, so at most one call overshoots.
    assert 2.0 <= spent < 2.0 + most
    requests = fake_llm.requests
    again = run_pairs(run)  # the same cap: nothing more is sent
    assert again.stopped == "budget" and fake_llm.requests == requests
    done = run_pairs(run, budget=1000.0)
    assert done.stopped is None and "pending" not in done.outcomes
    assert max(fake_llm.by_body.values()) == 1  # no request was ever sent twice


def test_endpoint_error_stops_the_run(fake_llm, tmp_path):
    run = tmp_path / "run"
    start_run(run, scripted_pairs()[:3], make_config(fake_llm, model="missing-model"))
    with pytest.raises(EndpointError, match="404"):
        run_pairs(run)
    with Journal(run / "journal.sqlite") as journal:
        assert journal.totals()["calls"] == 0


def test_cli_run_status_and_build_dataset(fake_llm, tmp_path, capsys):
    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text(
        "".join(
            json.dumps({"id": p.id, "reference": p.reference, "hypothesis": p.hypothesis}) + "\n"
            for p in many_pairs(30)
        ),
        encoding="utf-8",
    )
    run = tmp_path / "run"
    args = [
        "run",
        str(run),
        "--jsonl",
        str(pairs_file),
        "--base-url",
        fake_llm.base_url,
        "--model",
        "fake",
        "--api-key-env",
        "",
        "--seed",
        "100",
        "--reviewers",
        "2",
        "--price-in",
        "1",
        "--price-out",
        "2",
        "--no-progress",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "pairs: 30" in out and "contradiction 5" in out
    assert main(["status", str(run), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["outcomes"] == {"accepted": 25, "contradiction": 5}
    assert status["requests"] == fake_llm.requests
    card = tmp_path / "cards" / "tiny.md"
    out_dir = tmp_path / "dataset"
    assert (
        main(
            [
                "build-dataset",
                str(run),
                "--out",
                str(out_dir),
                "--card",
                str(card),
                "--name",
                "tiny",
            ]
        )
        == 0
    )
    records = list(read_records(out_dir / "records.jsonl"))
    stats = json.loads((out_dir / "stats.json").read_text())
    assert stats["accepted"] == 25 and stats["rejection_reasons"]["contradiction"] == 5
    assert stats["calls"] == status["calls"]
    assert sum(stats["splits"].values()) == len(records)
    assert {r.split for r in records} <= {"train", "validation", "test"}
    for r in records:
        assert r.score == score_from_tiers(r.tiers, r.directions, rho=r.rho)
        assert "analyzer:" in r.signature and "rho:0.5" in r.signature
    text = card.read_text()
    assert "# Data card: tiny" in text and "fake" in text and "contradiction 5" in text
    rejected = [json.loads(line) for line in (out_dir / "rejected.jsonl").read_text().splitlines()]
    assert len(rejected) == 5 and {r["reason"] for r in rejected} == {"contradiction"}
    # A bad command line is a one-line error with exit code 2.
    assert main(["status", str(tmp_path / "nowhere")]) == 2
    assert "no journal" in capsys.readouterr().err
    # A missing API key is reported before any run folder is created.
    nokey = tmp_path / "nokey"
    cmd = ["run", str(nokey), "--jsonl", str(pairs_file), "--api-key-env", "SITAR_TEST_UNSET_KEY"]
    assert main(cmd) == 2
    assert "SITAR_TEST_UNSET_KEY" in capsys.readouterr().err and not nokey.exists()


def test_build_dataset_is_deterministic(fake_llm, tmp_path):
    run = tmp_path / "run"
    start_run(run, many_pairs(30), make_config(fake_llm))
    run_pairs(run)
    a = build_dataset(run, tmp_path / "a", card_path=tmp_path / "a.md", name="x")
    b = build_dataset(run, tmp_path / "b", card_path=tmp_path / "b.md", name="x")
    assert (tmp_path / "a" / "records.jsonl").read_bytes() == (
        tmp_path / "b" / "records.jsonl"
    ).read_bytes()
    assert (tmp_path / "a.md").read_text() == (tmp_path / "b.md").read_text()
    assert a["splits"] == b["splits"]


def test_identical_pairs_share_their_calls(fake_llm, tmp_path):
    from sitar.io import Pair

    pairs = [Pair(f"dup-{i}", "we met alpha at noon", "we met mk1 alpha at noon") for i in range(3)]
    run = tmp_path / "run"
    start_run(run, pairs, make_config(fake_llm, concurrency=1))
    summary = run_pairs(run)
    assert summary.outcomes == {"accepted": 3}
    assert summary.new_calls == 9 and summary.reused_calls == 18
    assert fake_llm.requests == 9
