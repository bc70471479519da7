"""The resumable LLM annotation run: pairs in, journaled calls out, outcomes recomputable offline.

A *run folder* holds ``config.json`` (human-readable copy of the configuration) and
``journal.sqlite`` (configuration, input pairs and every finished call; see
:mod:`annotation.journal`). :func:`start_run` creates it, :func:`run_pairs` works through every
pair that is not decided yet (``resume`` is the same call), and :func:`recompute` re-derives every
pair's outcome from the journal alone, without any network access. Pairs are processed
concurrently; the calls of one pair run in protocol order, so the set of calls a pair needs is a
deterministic function of the answers it got.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.client import (
    BudgetExceeded,
    ChatClient,
    EndpointError,
    OpenAIChatClient,
    TransportError,
    Usage,
)
from annotation.config import PROTOCOL_VERSION, ROUNDS, RunConfig
from annotation.journal import CallRow, Journal, PairRow, call_key, gap_set_hash, pair_hash
from annotation.prompts import TASKS, GapView, load_prompt, render_prompt, render_reask
from annotation.protocol import AnswerRecord, CallPending, PairOutcome, annotate_pair
from annotation.schema import AnswerError, gap_ids, parse_answer
from sitar import segment
from sitar._version import __version__ as sitar_version
from sitar.errors import InputError, OutputError, SitarError
from sitar.gaps import Segmentation

__all__ = [
    "JOURNAL_NAME",
    "Evaluated",
    "PairContext",
    "RunSummary",
    "open_run",
    "recompute",
    "run_pairs",
    "start_run",
]

JOURNAL_NAME = "journal.sqlite"
CONFIG_NAME = "config.json"


class PairContext:
    """One pair with its segmentation, gap views and hashes, as the prompts need them."""

    def __init__(self, row: PairRow, seg: Segmentation) -> None:
        self.row = row
        self.seg = seg
        self.gap_dicts = [g.to_dict() for g in seg.gaps]
        self.pair_hash = pair_hash(row.reference, row.hypothesis)
        self.gap_hash = gap_set_hash(self.gap_dicts)
        self.ids = gap_ids(len(seg.gaps))
        self.hypotheses = seg.single_gap_hypotheses()

    def views(self, proposed: Sequence[int] | None = None) -> list[GapView]:
        return [
            GapView(
                gap_id=self.ids[i],
                kind=g.kind,
                ref_text=g.ref_text,
                hyp_text=g.hyp_text,
                single_gap_hypothesis=self.hypotheses[i],
                proposed_tier=None if proposed is None else proposed[i],
            )
            for i, g in enumerate(self.seg.gaps)
        ]


def segment_pair(row: PairRow, config: RunConfig) -> Segmentation:
    return segment(
        row.reference,
        row.hypothesis,
        analyzer=config.protocol.analyzer,
        max_bridge_tokens=config.protocol.max_bridge_tokens,
    )


def start_run(
    run_dir: str | Path,
    pairs: Sequence[Any],
    config: RunConfig,
    *,
    source: str | None = None,
) -> Path:
    """Create a run folder for ``pairs`` (objects with ``id``, ``reference``, ``hypothesis``).

    Refuses an existing journal (use :func:`run_pairs` to resume it). Records the configuration,
    the prompt versions, the package version and the input source.
    """
    run_dir = Path(run_dir)
    journal_path = run_dir / JOURNAL_NAME
    if journal_path.exists():
        raise InputError(
            f"{journal_path} already exists; resume it with `python -m annotation resume "
            f"{run_dir}` or choose a new run folder"
        )
    rows = []
    seen: set[str] = set()
    for p in pairs:
        if p.id in seen:
            raise InputError(f"duplicate pair id {p.id!r} in the input; ids must be unique")
        seen.add(p.id)
        rows.append((p.id, p.reference, p.hypothesis, {}))
    if not rows:
        raise InputError("the input holds no pairs")
    # Fail early on a missing analyzer rather than inside the worker threads.
    probe = segment(rows[0][1], rows[0][2], analyzer=config.protocol.analyzer)
    meta = {
        "config": config.to_dict(),
        "prompts": {task: load_prompt(task).version for task in (*TASKS, "reask")},
        "protocol_version": PROTOCOL_VERSION,
        "rounds": ROUNDS,
        "sitar_version": sitar_version,
        "analyzer": probe.analyzer,
        "source": source,
        "n_pairs": len(rows),
    }
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(
            f"cannot create the run folder {run_dir}: {e.strerror or e}; choose a writable place"
        ) from e
    # The journal is built under a temporary name and moved into place last, so an interrupted
    # start (Ctrl-C, a full disk, a read-only folder) never leaves a half-made run that neither
    # `run` nor `resume` accepts: the folder has a complete run or none.
    partial = run_dir / f".{JOURNAL_NAME}.partial"
    for leftover in (partial, *(Path(f"{partial}{s}") for s in ("-wal", "-shm", "-journal"))):
        leftover.unlink(missing_ok=True)
    try:
        with Journal(partial) as journal:
            journal.add_pairs(rows)
            for key, value in meta.items():
                journal.set_meta(key, value)
        _write_atomic(
            run_dir / CONFIG_NAME,
            json.dumps(meta, indent=2, ensure_ascii=False, sort_keys=True) + "\n",
        )
        os.replace(partial, journal_path)
    except OSError as e:
        raise OutputError(f"cannot write the run folder {run_dir}: {e.strerror or e}") from e
    finally:
        partial.unlink(missing_ok=True)
    return run_dir


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.partial")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def open_run(run_dir: str | Path) -> tuple[Journal, RunConfig]:
    """Open an existing run folder; checks that the analyzer still matches the recorded one."""
    path = Path(run_dir) / JOURNAL_NAME
    if not path.is_file():
        raise InputError(f"no journal at {path}; start a run with `python -m annotation run`")
    journal = Journal(path)
    try:
        data = journal.get_meta("config")
        if data is None:
            raise InputError(f"{path} has no configuration; it was not made by start_run")
        config = RunConfig.from_dict(data)
    except BaseException:
        journal.close()
        raise
    return journal, config


@dataclass
class RunSummary:
    """What one invocation of :func:`run_pairs` did."""

    pairs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    new_calls: int = 0
    reused_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    stopped: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "outcomes": dict(sorted(self.outcomes.items())),
            "new_calls": self.new_calls,
            "reused_calls": self.reused_calls,
            "requests": self.usage.requests,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "cost": self.usage.cost,
            "stopped": self.stopped,
        }


class _Caller:
    """Builds one call's messages and key, answers from the journal or (live) asks the model."""

    def __init__(
        self,
        journal: Journal,
        config: RunConfig,
        clients: Mapping[str, ChatClient] | None,
        summary: RunSummary | None = None,
    ) -> None:
        self.journal = journal
        self.config = config
        self.clients = clients
        self.summary = summary
        self.prompts = {task: load_prompt(task) for task in TASKS}
        self.stop = threading.Event()
        self.stop_reason: str | None = None
        self.fatal: BaseException | None = None
        self._lock = threading.Lock()

    def _client_config(self, task: str):
        return self.config.review_client if task == "review" else self.config.annotator

    def ask(self, ctx: PairContext, task: str, index: int, proposed: Sequence[int] | None):
        prompt = self.prompts[task]
        ccfg = self._client_config(task)
        user = render_prompt(prompt, reference=ctx.row.reference, gaps=ctx.views(proposed))
        messages = [{"role": "user", "content": user}]
        key = call_key(
            pair=ctx.pair_hash,
            gap_set=ctx.gap_hash,
            prompt_version=prompt.version,
            model=ccfg.model,
            task=task,
            index=index,
            messages=messages,
        )
        row = self.journal.get_call(key)
        if row is not None:
            self._count(reused=1)
            return AnswerRecord(ok=row.ok, parsed=row.parsed, problem=row.problem)
        if self.clients is None:
            raise CallPending(f"no journaled answer for {task} {index} of pair {ctx.row.id!r}")
        if self.stop.is_set():
            raise CallPending(f"run stopped ({self.stop_reason})")
        client = self.clients["review" if task == "review" else "annotator"]
        seed = None if ccfg.seed is None else ccfg.seed + index
        conversation = list(messages)
        attempts: list[dict[str, Any]] = []
        parsed: Any = None
        problem = ""
        for _ in range(self.config.protocol.max_invalid + 1):
            try:
                result = client.complete(conversation, seed=seed)
            except BudgetExceeded as e:
                self._halt("budget", None)
                raise CallPending(str(e)) from e
            except TransportError as e:
                raise CallPending(str(e)) from e
            except EndpointError as e:
                self._halt("endpoint error", e)
                raise CallPending(str(e)) from e
            attempt = {
                "text": result.text,
                "model": result.model,
                "prompt_tokens": result.prompt_tokens,
                "completion_tokens": result.completion_tokens,
                "cost": result.cost,
                "requests": result.requests,
            }
            if result.problem:
                # The answer is unusable whatever its text (e.g. invalid usage): a failed call,
                # recorded as such; asking again would not repair the endpoint's accounting.
                problem = result.problem
                attempts.append({**attempt, "problem": problem})
                break
            try:
                parsed = parse_answer(task, result.text, ctx.ids)
            except AnswerError as e:
                problem = str(e)
                attempts.append({**attempt, "problem": problem})
                conversation += [
                    {"role": "assistant", "content": result.text},
                    {"role": "user", "content": render_reask(problem)},
                ]
                continue
            attempts.append({**attempt, "problem": ""})
            problem = ""
            break
        ok = not problem
        stored = CallRow(
            key=key,
            pair_id=ctx.row.id,
            task=task,
            index=index,
            prompt_version=prompt.version,
            model=ccfg.model,
            ok=ok,
            parsed=parsed if ok else None,
            problem=(
                f"no valid answer after {len(attempts)} attempt(s): {problem}" if not ok else ""
            ),
            attempts=attempts,
            messages=conversation,
            prompt_tokens=sum(a["prompt_tokens"] for a in attempts),
            completion_tokens=sum(a["completion_tokens"] for a in attempts),
            cost=sum(a["cost"] for a in attempts),
            requests=sum(a["requests"] for a in attempts),
        )
        if not self.journal.put_call(stored):
            # Another pair with identical text and gaps recorded this call first; use that
            # answer so live decisions always equal what the journal recomputes.
            stored = self.journal.get_call(key) or stored
        self._count(new=1)
        return AnswerRecord(ok=stored.ok, parsed=stored.parsed, problem=stored.problem)

    def _count(self, *, new: int = 0, reused: int = 0) -> None:
        if self.summary is not None:
            with self._lock:
                self.summary.new_calls += new
                self.summary.reused_calls += reused

    def _halt(self, reason: str, error: BaseException | None) -> None:
        with self._lock:
            if self.stop_reason is None:
                self.stop_reason = reason
                self.fatal = error
        self.stop.set()

    def outcome(self, ctx: PairContext) -> PairOutcome:
        return annotate_pair(
            n_gaps=len(ctx.seg.gaps),
            ask=lambda task, index, proposed: self.ask(ctx, task, index, proposed),
            rounds=ROUNDS,
            reviewers=self.config.protocol.reviewers,
            rho=self.config.protocol.rho,
        )


def _check_analyzer(journal: Journal, seg: Segmentation) -> None:
    recorded = journal.get_meta("analyzer")
    if recorded is not None and recorded != seg.analyzer:
        raise InputError(
            f"this run was segmented with analyzer {recorded!r} but {seg.analyzer!r} is installed "
            "now; install the recorded version or start a new run"
        )


def run_pairs(
    run_dir: str | Path,
    *,
    clients: Mapping[str, ChatClient] | None = None,
    budget: float | None = None,
    progress: bool = False,
    on_outcome: Callable[[PairRow, PairOutcome], None] | None = None,
) -> RunSummary:
    """Work through every undecided pair of a run (this is also *resume*).

    ``clients`` maps ``"annotator"`` and ``"review"`` to :class:`ChatClient` objects; by default
    OpenAI-compatible clients are built from the run's configuration. ``budget`` overrides the
    configured cap. Pairs stay *pending* when transport errors persist or the budget cap is hit;
    a non-retryable endpoint error stops the run and is re-raised after in-flight work ended.
    """
    journal, config = open_run(run_dir)
    summary = RunSummary()
    own: list[OpenAIChatClient] = []
    try:
        if budget is not None:
            config.budget = budget
        if clients is None:
            spent = journal.totals()["cost"]
            annot = OpenAIChatClient(
                config.annotator, budget=config.budget, usage=summary.usage, spent=spent
            )
            own.append(annot)
            review: ChatClient = annot
            if config.reviewer is not None:
                review = OpenAIChatClient(
                    config.reviewer, budget=config.budget, usage=summary.usage, spent=spent
                )
                own.append(review)
            clients = {"annotator": annot, "review": review}
        caller = _Caller(journal, config, clients, summary)
        rows = journal.pairs()
        summary.pairs = len(rows)
        workers = max(config.annotator.concurrency, config.review_client.concurrency)
        bar = _progress_bar(len(rows), progress)
        lock = threading.Lock()
        checked = threading.Event()

        def work(row: PairRow) -> None:
            if caller.stop.is_set():
                outcome = PairOutcome(status="pending", detail=f"stopped: {caller.stop_reason}")
            else:
                seg = segment_pair(row, config)
                if not checked.is_set():
                    _check_analyzer(journal, seg)
                    checked.set()
                outcome = caller.outcome(PairContext(row, seg))
            with lock:
                summary.outcomes[outcome.reason or outcome.status] += 1
                if bar is not None:
                    bar.update(1)
            if on_outcome is not None:
                on_outcome(row, outcome)

        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(work, row) for row in rows]
            try:
                for fut in futures:
                    try:
                        fut.result()
                    except SitarError as e:
                        caller._halt("error", e)
            except BaseException:
                # Ctrl-C or similar: send nothing new, let in-flight calls finish and be
                # journaled, then re-raise. Unstarted pairs stay pending for `resume`.
                caller._halt("interrupted", None)
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        if bar is not None:
            bar.close()
        summary.stopped = caller.stop_reason
        if caller.fatal is not None:
            raise caller.fatal
        return summary
    finally:
        for client in own:
            client.close()
        journal.close()


def _progress_bar(total: int, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="pair", desc="annotating")


@dataclass(frozen=True)
class Evaluated:
    """One pair as recomputed from the journal."""

    row: PairRow
    seg: Segmentation
    outcome: PairOutcome


def recompute(run_dir: str | Path) -> tuple[list[Evaluated], dict[str, Any]]:
    """Re-derive every pair's outcome from the journal alone (no network), in input order.

    Returns the evaluated pairs and the journal's metadata (configuration, prompt versions,
    totals). Pairs whose answers are missing come back ``pending``.
    """
    journal, config = open_run(run_dir)
    try:
        caller = _Caller(journal, config, clients=None)
        out = []
        for row in journal.pairs():
            seg = segment_pair(row, config)
            if not out:
                _check_analyzer(journal, seg)
            out.append(Evaluated(row, seg, caller.outcome(PairContext(row, seg))))
        meta = {
            key: journal.get_meta(key)
            for key in (
                "config",
                "prompts",
                "protocol_version",
                "rounds",
                "sitar_version",
                "analyzer",
                "source",
                "n_pairs",
            )
        }
        meta["totals"] = journal.totals()
        return out, meta
    finally:
        journal.close()
