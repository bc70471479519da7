"""Micro-batching: concurrent requests share model calls, one model session per process.

Requests (each a few pairs) enter a bounded queue; one loop collects them into a batch until it
holds ``max_batch_pairs`` pairs or the oldest request has waited ``max_wait_s``, scores the batch
with **one** ``Scorer.score`` call in the single model thread, and hands every request its own
slice of the result. Admission is bounded by cost, not by pair count: a pair costs one unit per
started :data:`CHARS_PER_UNIT` characters of its two texts (:func:`pair_cost`; a short pair is 1,
two 4,096-character texts are 32); ``max_queue_pairs`` (admitted and not yet answered, whether
waiting or being scored) counts these units, while ``max_batch_pairs`` still counts the pairs of
one model call (so batches of ordinary pairs are as large as before). A request that does not fit
in the queue now is refused at once with :class:`QueueFullError`, never parked; one that costs more
than the whole queue could never fit and gets :class:`RequestTooLargeError`. A request that is not
answered within its timeout gets :class:`RequestTimeoutError`; if it was still waiting it leaves
the queue and is never scored, and if its batch was running it is not scored again when that batch
falls back to scoring request by request.

Why the scores do not depend on who shares a batch: ``Scorer.score`` scores each pair
independently of the others (length-sorted batches, order restored; exact once the model is batch
invariant), so the slice for a request equals ``Scorer.score`` on that request's pairs alone. The
request's ``system_score`` is recomputed over its own slice with the scorer's aggregation (the
macro mean). A merged batch that fails, with any exception (an
:class:`~sitar.errors.InputError` for a word longer than the model's ``max_length``, or anything
unforeseen), is retried request by request, so one bad request fails alone and never its
neighbours.

Arbitrary work that needs the model (``explain``) goes through the same queue and thread with
:meth:`MicroBatcher.call`, so there is only ever one model call at a time per process.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sitar.errors import InputError, SitarError
from sitar.result import system_score

__all__ = [
    "BatchStats",
    "MicroBatcher",
    "QueueFullError",
    "RequestTimeoutError",
    "RequestTooLargeError",
    "ShuttingDownError",
    "pair_cost",
    "slice_result",
]


class QueueFullError(SitarError):
    """The queue cannot admit the request now (HTTP 503 with Retry-After)."""


class RequestTimeoutError(SitarError):
    """The request was not answered within its timeout (HTTP 503)."""


class ShuttingDownError(SitarError):
    """The server is draining and admits no new work (HTTP 503)."""


class RequestTooLargeError(SitarError):
    """The request costs more than the whole queue may hold: it can never be admitted (HTTP 413)."""


#: Characters per cost unit: a pair costs one unit per started CHARS_PER_UNIT characters of its
#: two texts (about 64 tokens), so the queue and the batches are bounded by the work the model
#: does (tokens), not by a pair count that says nothing of the texts' lengths.
CHARS_PER_UNIT = 256


def pair_cost(reference: str, hypothesis: str) -> int:
    """Cost units of one pair: ``max(1, ceil((len(reference) + len(hypothesis)) / 256))``."""
    return max(1, -(-(len(reference) + len(hypothesis)) // CHARS_PER_UNIT))


@dataclass(frozen=True)
class BatchStats:
    """What one model call did: for metrics and tests."""

    n_pairs: int
    n_requests: int
    kind: str  # "score" or "call"
    seconds: float  # time in the model thread
    ok: bool


def slice_result(result: Any, start: int, stop: int) -> Any:
    """The part of a ``ScoreResult`` for pairs ``[start, stop)``, with its own system score.

    Every tuple field with one entry per pair is sliced (so fields the scorer may add later are
    kept); ``system_score`` is the macro mean over the slice, ``nan`` when it is empty.
    """
    n = len(result)
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if isinstance(value, tuple) and len(value) == n:
            changes[f.name] = value[start:stop]
    # The one system-score rule (the scorer's own, exact and order-independent).
    changes["system_score"] = system_score(changes["scores"])
    return dataclasses.replace(result, **changes)


@dataclass(eq=False)
class _Job:
    kind: str  # "score" or "call"
    n: int  # queue cost in units (pair_cost)
    future: asyncio.Future[Any]
    references: list[str] = field(default_factory=list)
    hypotheses: list[str] = field(default_factory=list)
    fn: Callable[[], Any] | None = None
    state: str = "queued"  # queued -> running -> done
    pairs: int = 1  # pairs, for the batch limit
    abandoned: bool = False  # its waiter timed out or was cancelled: no more work for it


class MicroBatcher:
    """Bounded micro-batching queue in front of a single-threaded ``score_fn``.

    ``score_fn(references, hypotheses)`` returns a ``ScoreResult`` for those pairs, in order; it
    always runs in the one model thread. Use from a single asyncio event loop: :meth:`start`,
    then :meth:`score` / :meth:`call` from request handlers, then :meth:`close`.
    """

    def __init__(
        self,
        score_fn: Callable[[list[str], list[str]], Any],
        *,
        max_batch_pairs: int = 64,
        max_wait_s: float = 0.005,
        max_queue_pairs: int = 1024,
        on_batch: Callable[[BatchStats], None] | None = None,
    ) -> None:
        if max_batch_pairs < 1 or max_queue_pairs < 1 or max_wait_s < 0:
            raise InputError(
                "max_batch_pairs and max_queue_pairs must be >= 1 and max_wait_s >= 0, got "
                f"{max_batch_pairs}, {max_queue_pairs}, {max_wait_s}"
            )
        self._score_fn = score_fn
        self.max_batch_pairs = max_batch_pairs
        self.max_wait_s = max_wait_s
        self.max_queue_pairs = max_queue_pairs
        self._on_batch = on_batch
        self._pending: deque[_Job] = deque()
        self._admitted = 0  # pairs admitted and not yet answered (waiting or running)
        self._wakeup: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._closing = False

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the batching loop on the running event loop."""
        self._wakeup = asyncio.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitar-model")
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="sitar-batcher")

    async def close(self) -> None:
        """Admit nothing new, answer everything already admitted, then stop the thread."""
        self._closing = True
        if self._wakeup is not None:
            self._wakeup.set()
        if self._task is not None:
            await self._task
        if self._executor is not None:
            self._executor.shutdown(wait=True)

    async def run_in_model_thread(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` in the model thread outside the queue (model loading and warm-up)."""
        if self._executor is None:
            raise RuntimeError("MicroBatcher.start() was not called")
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn)

    @property
    def depth(self) -> int:
        """Pairs admitted and not yet answered (waiting or being scored)."""
        return self._admitted

    # -- submitting -----------------------------------------------------------------------------

    async def score(
        self, references: Sequence[str], hypotheses: Sequence[str], *, timeout: float | None = None
    ) -> Any:
        """``ScoreResult`` of these pairs, scored together with whatever else is queued."""
        job = _Job(
            "score",
            max(sum(pair_cost(r, h) for r, h in zip(references, hypotheses, strict=True)), 1),
            asyncio.get_running_loop().create_future(),
            list(references),
            list(hypotheses),
            pairs=max(len(references), 1),
        )
        return await self._submit(job, timeout)

    async def call(
        self, fn: Callable[[], Any], *, cost: int = 1, timeout: float | None = None
    ) -> Any:
        """Run ``fn()`` in the model thread, in queue order, counting ``cost`` pairs."""
        job = _Job("call", max(cost, 1), asyncio.get_running_loop().create_future(), fn=fn)
        return await self._submit(job, timeout)

    async def _submit(self, job: _Job, timeout: float | None) -> Any:
        if self._closing:
            raise ShuttingDownError("the server is shutting down and admits no new requests")
        if self._task is None or self._wakeup is None:
            raise RuntimeError("MicroBatcher.start() was not called")
        if job.n > self.max_queue_pairs:
            raise RequestTooLargeError(
                f"the request costs {job.n} units, more than the {self.max_queue_pairs} the queue "
                f"may hold (a pair costs one unit per {CHARS_PER_UNIT} characters of its texts); "
                "split it into smaller requests"
            )
        if self._admitted + job.n > self.max_queue_pairs:
            raise QueueFullError(
                f"the scoring queue is full ({self._admitted} of {self.max_queue_pairs} pairs "
                f"admitted, this request needs {job.n}; a pair counts one per {CHARS_PER_UNIT} "
                "characters); retry later"
            )
        self._admitted += job.n
        self._pending.append(job)
        self._wakeup.set()
        try:
            # shield: a timeout must not cancel the future the batch loop will fill.
            return await asyncio.wait_for(asyncio.shield(job.future), timeout)
        except (TimeoutError, asyncio.TimeoutError) as e:
            raise RequestTimeoutError(
                f"the request was not answered within {timeout:g} s; the server is overloaded "
                "or the request is too large"
            ) from e
        finally:
            if not job.future.done():
                job.abandoned = True
            if job.state == "queued":
                # Timed out or cancelled while waiting: leave the queue, never score it.
                self._pending.remove(job)
                self._release(job)
                if not job.future.done():
                    job.future.cancel()

    def _release(self, job: _Job) -> None:
        job.state = "done"
        self._admitted -= job.n

    # -- the loop -------------------------------------------------------------------------------

    async def _loop(self) -> None:
        assert self._wakeup is not None  # set by start()
        loop = asyncio.get_running_loop()
        while True:
            while not self._pending:
                if self._closing:
                    return
                self._wakeup.clear()
                await self._wakeup.wait()
            first = self._pending.popleft()
            first.state = "running"
            if first.kind == "call":
                await self._run_call(first)
                continue
            # Batches are bounded in pairs (the model's batch), admission in cost units.
            batch, n = [first], first.pairs
            deadline = loop.time() + self.max_wait_s
            while n < self.max_batch_pairs:
                while (
                    self._pending
                    and self._pending[0].kind == "score"
                    and n + self._pending[0].pairs <= self.max_batch_pairs
                ):
                    job = self._pending.popleft()
                    job.state = "running"
                    batch.append(job)
                    n += job.pairs
                if n >= self.max_batch_pairs or self._pending or self._closing:
                    break  # full, or the next job does not fit / is not a score job, or draining
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                self._wakeup.clear()
                try:
                    await asyncio.wait_for(self._wakeup.wait(), remaining)
                except (TimeoutError, asyncio.TimeoutError):
                    break
            await self._run_batch(batch)

    async def _run_call(self, job: _Job) -> None:
        assert job.fn is not None and self._executor is not None
        t0 = time.perf_counter()
        ok = True
        try:
            value = await asyncio.get_running_loop().run_in_executor(self._executor, job.fn)
        except Exception as e:
            ok = False
            if not job.future.done():
                job.future.set_exception(e)
        else:
            if not job.future.done():
                job.future.set_result(value)
        finally:
            self._release(job)
        self._report(BatchStats(job.n, 1, "call", time.perf_counter() - t0, ok))

    async def _run_batch(self, batch: list[_Job]) -> None:
        assert self._executor is not None
        loop = asyncio.get_running_loop()
        refs = [r for job in batch for r in job.references]
        hyps = [h for job in batch for h in job.hypotheses]
        t0 = time.perf_counter()
        ok = True
        try:
            result = await loop.run_in_executor(self._executor, self._score_fn, refs, hyps)
        except Exception as e:
            if len(batch) == 1:
                ok = False
                self._fail(batch[0], e)
            else:
                # The merged call failed: which request caused it is unknown (any exception, not
                # only InputError), so score each request on its own; each gets its own result
                # or its own error, never a neighbour's.
                ok = await self._run_one_by_one(batch)
        else:
            start = 0
            for job in batch:
                stop = start + len(job.references)
                self._succeed(job, slice_result(result, start, stop))
                start = stop
        finally:
            for job in batch:
                if job.state != "done":
                    self._release(job)
        self._report(BatchStats(len(refs), len(batch), "score", time.perf_counter() - t0, ok))

    async def _run_one_by_one(self, batch: list[_Job]) -> bool:
        """Score each job of a failed batch alone; True if every one succeeded."""
        assert self._executor is not None
        loop = asyncio.get_running_loop()
        ok = True
        for job in batch:
            if job.abandoned:
                continue  # nobody waits for it: do not spend the model thread on it
            try:
                one = await loop.run_in_executor(
                    self._executor, self._score_fn, job.references, job.hypotheses
                )
            except Exception as e:
                ok = False
                self._fail(job, e)
            else:
                self._succeed(job, one)
        return ok

    @staticmethod
    def _succeed(job: _Job, value: Any) -> None:
        if not job.future.done():
            job.future.set_result(value)

    @staticmethod
    def _fail(job: _Job, error: BaseException) -> None:
        if not job.future.done():
            job.future.set_exception(error)

    def _report(self, stats: BatchStats) -> None:
        if self._on_batch is not None:
            self._on_batch(stats)
