"""The micro-batching queue, with a fake scorer: merging, slicing, limits, timeouts, draining."""

from __future__ import annotations

import asyncio
import math
import threading

import pytest

from sitar.errors import InputError
from sitar.scorer import ScoreResult
from sitar.serve.batching import (
    MicroBatcher,
    QueueFullError,
    RequestTimeoutError,
    ShuttingDownError,
    slice_result,
)


def fake_result(references, hypotheses):
    """A ScoreResult whose score of a pair is a function of that pair alone."""
    for r in references:
        if r == "BAD":
            raise InputError("a single token is longer than max_length on its own")
    scores = tuple(
        (len(r) + 2 * len(h)) / 1000.0 for r, h in zip(references, hypotheses, strict=True)
    )
    n = len(scores)
    return ScoreResult(
        scores=scores,
        raw=tuple(s * 7 / 3 for s in scores),
        windowed=(False,) * n,
        identical=tuple(r == h for r, h in zip(references, hypotheses, strict=True)),
        n_windows=(1,) * n,
        system_score=sum(scores) / n if n else math.nan,
        aggregation="macro mean of per-pair normalized scores",
        signature="sig-test",
    )


class Recorder:
    def __init__(self, gate: threading.Event | None = None):
        self.calls: list[int] = []
        self.stats = []
        self.gate = gate

    def __call__(self, references, hypotheses):
        if self.gate is not None:
            self.gate.wait(10)
        self.calls.append(len(references))
        return fake_result(references, hypotheses)


def run(coro):
    return asyncio.run(coro)


def test_slice_result_matches_scoring_alone():
    refs = ["a", "bb", "ccc", "dddd"]
    hyps = ["a", "b", "cc", "d"]
    whole = fake_result(refs, hyps)
    part = slice_result(whole, 1, 3)
    alone = fake_result(refs[1:3], hyps[1:3])
    assert part == alone
    empty = slice_result(whole, 2, 2)
    assert len(empty) == 0 and math.isnan(empty.system_score)


def test_concurrent_requests_share_one_call_and_get_their_own_slice():
    rec = Recorder()

    async def main():
        b = MicroBatcher(rec, max_batch_pairs=64, max_wait_s=0.2, on_batch=rec.stats.append)
        b.start()
        reqs = [(["x" * k, "y"], ["z", "w" * k]) for k in range(1, 6)]
        results = await asyncio.gather(*(b.score(r, h) for r, h in reqs))
        await b.close()
        return reqs, results

    reqs, results = run(main())
    assert rec.calls == [10]  # five requests of two pairs, one model call
    assert rec.stats[0].n_requests == 5 and rec.stats[0].n_pairs == 10
    for (r, h), got in zip(reqs, results, strict=True):
        assert got == fake_result(r, h)


def test_batches_respect_max_batch_pairs_and_order():
    rec = Recorder()

    async def main():
        b = MicroBatcher(rec, max_batch_pairs=4, max_wait_s=0.05)
        b.start()
        reqs = [([f"r{k}"] * 3, [f"h{k}"] * 3) for k in range(5)]
        results = await asyncio.gather(*(b.score(r, h) for r, h in reqs))
        await b.close()
        return reqs, results

    reqs, results = run(main())
    assert max(rec.calls) <= 4 and sum(rec.calls) == 15
    for (r, h), got in zip(reqs, results, strict=True):
        assert got == fake_result(r, h)


def test_queue_full_is_refused_at_once_and_counts_waiting_pairs():
    gate = threading.Event()
    rec = Recorder(gate)

    async def main():
        b = MicroBatcher(rec, max_batch_pairs=64, max_wait_s=0.0, max_queue_pairs=3)
        b.start()
        first = asyncio.ensure_future(b.score(["a", "b"], ["c", "d"]))
        await asyncio.sleep(0.05)  # admitted and blocked in the model thread
        assert b.depth == 2
        with pytest.raises(QueueFullError, match="2 of 3 pairs admitted, this request needs 2"):
            await b.score(["e", "f"], ["g", "h"])
        small = asyncio.ensure_future(b.score(["e"], ["g"]))  # fits: 3 of 3
        await asyncio.sleep(0.01)
        assert b.depth == 3
        gate.set()
        await asyncio.gather(first, small)
        assert b.depth == 0
        await b.close()

    run(main())


def test_timeout_while_waiting_leaves_the_queue_unscored():
    gate = threading.Event()
    rec = Recorder(gate)

    async def main():
        b = MicroBatcher(rec, max_batch_pairs=1, max_wait_s=0.0, max_queue_pairs=10)
        b.start()
        blocker = asyncio.ensure_future(b.score(["a"], ["b"]))
        await asyncio.sleep(0.05)
        with pytest.raises(RequestTimeoutError, match="not answered within 0.1 s"):
            await b.score(["late"], ["x"], timeout=0.1)
        assert b.depth == 1  # only the blocker is left
        gate.set()
        await blocker
        await b.close()

    run(main())
    assert rec.calls == [1]  # the timed-out request was never scored


def test_bad_request_does_not_fail_its_batch_neighbours():
    rec = Recorder()

    async def main():
        b = MicroBatcher(rec, max_batch_pairs=64, max_wait_s=0.2)
        b.start()
        good = b.score(["a", "b"], ["c", "d"])
        bad = b.score(["BAD"], ["x"])
        other = b.score(["e"], ["f"])
        results = await asyncio.gather(good, bad, other, return_exceptions=True)
        await b.close()
        return results

    good, bad, other = run(main())
    assert isinstance(bad, InputError)
    assert good == fake_result(["a", "b"], ["c", "d"])
    assert other == fake_result(["e"], ["f"])


def test_close_answers_admitted_work_then_refuses_new():
    rec = Recorder()

    async def main():
        b = MicroBatcher(rec, max_batch_pairs=64, max_wait_s=5.0)
        b.start()
        pending = asyncio.ensure_future(b.score(["a"], ["b"]))
        await asyncio.sleep(0.05)  # waiting for more requests (max wait 5 s)
        await b.close()  # does not wait the 5 s: draining flushes at once
        assert (await pending) == fake_result(["a"], ["b"])
        with pytest.raises(ShuttingDownError):
            await b.score(["c"], ["d"])

    run(main())


def test_call_runs_in_the_model_thread_in_queue_order():
    rec = Recorder()
    names = []

    async def main():
        b = MicroBatcher(rec, max_batch_pairs=64, max_wait_s=0.0)
        b.start()
        out = await b.call(lambda: names.append(threading.current_thread().name) or 42)
        await b.close()
        return out

    assert run(main()) == 42
    assert names[0].startswith("sitar-model")


def test_any_exception_in_a_merged_batch_fails_only_its_request():
    """Issue #30: the tokenizer's TypeError (not an InputError) failed every request batched with
    the bad one; now any exception falls back to scoring request by request."""

    def score(references, hypotheses):
        if "POISON" in references:
            raise TypeError("TextInputSequence must be str")
        return fake_result(references, hypotheses)

    async def main():
        b = MicroBatcher(score, max_batch_pairs=64, max_wait_s=0.2)
        b.start()
        jobs = [b.score([f"r{i}"], [f"h{i}"]) for i in range(4)]
        jobs.insert(2, b.score(["POISON"], ["x"]))
        results = await asyncio.gather(*jobs, return_exceptions=True)
        await b.close()
        return results

    results = run(main())
    assert isinstance(results[2], TypeError)
    good = results[:2] + results[3:]
    assert good == [fake_result([f"r{i}"], [f"h{i}"]) for i in range(4)]


def test_admission_counts_cost_not_pairs():
    """Issue #30: one request of long texts kept the model thread busy for minutes although it
    was "256 pairs". A pair costs one unit per CHARS_PER_UNIT characters; a request costing more
    than the whole queue is refused at once (413), one that does not fit now gets queue_full."""
    from sitar.serve.batching import CHARS_PER_UNIT, RequestTooLargeError, pair_cost

    assert pair_cost("", "") == 1 and pair_cost("a", "b") == 1
    assert pair_cost("x" * CHARS_PER_UNIT, "y") == 2
    assert pair_cost("x" * 4096, "y" * 4096) == 8192 // CHARS_PER_UNIT
    long = "x" * (CHARS_PER_UNIT * 3)  # with its hypothesis "y": 3 * 256 + 1 characters, 4 units
    rec = Recorder()

    async def main():
        b = MicroBatcher(rec, max_batch_pairs=8, max_wait_s=0.0, max_queue_pairs=10)
        b.start()
        with pytest.raises(RequestTooLargeError, match="costs 12 units, more than the 10"):
            await b.score([long] * 3, ["y"] * 3)
        assert rec.calls == [] and b.depth == 0
        got = await b.score([long, "a"], ["y", "b"])  # 4 + 1 units: admitted
        await b.close()
        return got

    assert run(main()) == fake_result([long, "a"], ["y", "b"])
    assert rec.calls == [2]


def test_work_of_a_timed_out_request_is_dropped_before_the_next_call():
    """A request that timed out while its merged batch ran is not scored again when the batch
    falls back to request-by-request scoring."""
    gate = threading.Event()
    calls = []

    def score(references, hypotheses):
        calls.append(list(references))
        if len(references) > 1:
            gate.wait(10)
            raise RuntimeError("the merged call failed")
        return fake_result(references, hypotheses)

    async def main():
        b = MicroBatcher(score, max_batch_pairs=64, max_wait_s=0.05)
        b.start()
        late = asyncio.ensure_future(b.score(["late"], ["x"], timeout=0.2))
        kept = asyncio.ensure_future(b.score(["kept"], ["y"]))
        with pytest.raises(RequestTimeoutError):
            await late
        gate.set()
        got = await kept
        await b.close()
        return got

    assert run(main()) == fake_result(["kept"], ["y"])
    assert calls == [["late", "kept"], ["kept"]]
