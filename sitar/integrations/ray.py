"""Score a Ray Dataset of (reference, hypothesis) pairs on a Ray cluster (extra ``ray``).

:func:`score_dataset` maps the dataset through a pool of ``num_actors`` Ray actors with
``Dataset.map_batches``: each actor loads the checkpoint **once** (``Scorer.load``) and scores the
batches it receives with ``Scorer.score``; each batch comes back with its input columns plus
``score``, ``raw``, ``windowed``, ``identical``, ``n_windows`` and ``signature`` (and
``explanation``, a JSON string of :meth:`Explanation.to_dict`, with ``explain=True``). The driver
loads the checkpoint too, to fail fast on a bad path and to know the signature; every actor checks
that its own scorer has the same signature (a node with another sitar version or checkpoint is an
error, not a silently mixed result).

Several references per utterance: when the reference column is a list column (candidates per
row, :func:`dataset_from_pairs` makes one from lists), each row is scored against every candidate
and keeps the closest (:func:`sitar.multiref.score_multi`, within the row, so blocks and actors
never split a choice); the row then also gets ``reference_index``, the 1-based number of the
chosen candidate, and ``explanation`` (with ``explain=True``) explains the chosen pair.

Scores equal ``Scorer.score`` on the same pairs in one process: each pair is scored independently
of its batch neighbours (exactly once the model is batch invariant; to float rounding before).

The checkpoint must be loadable on every node: the packaged default (``checkpoint=None``) always
is; a local folder must exist at the same path on every node (a shared file system), and a Hugging
Face id needs the hub cache or network on each node.

The scorer's options are one :class:`~sitar.options.ScorerOptions`, as everywhere else, so every
option of ``sitar score`` is available here.

Before Ray starts, the command line (``sitar score --engine ray``) checks what it can on the driver
with the local path's own code, so a problem gives the same message and exit code 2 as without
Ray: the output folder, the checkpoint (loaded once on the driver), every pair
(:func:`check_pairs`: text and the model tokenizer's limits, e.g. an over-long word) and that the
cluster address answers within :data:`CONNECT_TIMEOUT_S` (:func:`check_address`; Ray itself
retries an unreachable address for minutes).

``import sitar.integrations.ray`` does not import Ray; the functions do.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sitar.errors import CheckpointError, InputError, MissingDependencyError, SitarError
from sitar.options import ScorerOptions

__all__ = [
    "CONNECT_TIMEOUT_S",
    "SCORE_COLUMNS",
    "RayScored",
    "check_address",
    "check_pairs",
    "dataset_from_pairs",
    "score_dataset",
    "unwrap_ray_error",
    "write_jsonl_shards",
]

#: Columns added to every row (``explanation`` too with ``explain=True``).
SCORE_COLUMNS = ("score", "raw", "windowed", "identical", "n_windows", "signature")


#: Seconds a Ray cluster address has to accept a TCP connection (:func:`check_address`).
CONNECT_TIMEOUT_S = 10.0


def check_address(address: str | None) -> None:
    """Raise :class:`InputError` unless ``address`` (``host:port`` or ``ray://host:port``) answers
    like a Ray cluster within :data:`CONNECT_TIMEOUT_S`: it accepts a TCP connection and answers
    an HTTP/2 connection preface with a SETTINGS frame, as every gRPC server (Ray's GCS and Ray
    Client server) does. ``None`` and ``"auto"`` (a local instance, found by Ray itself) are not
    probed. Ray itself retries an address that does not answer for minutes."""
    import socket
    import time

    if address is None or address in ("auto", "local", ""):
        return
    text = address[len("ray://") :] if address.startswith("ray://") else address
    host, sep, port_text = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise InputError(
            f"--address {address!r} must be host:port (e.g. 10.0.0.1:6379), ray://host:port or "
            "'auto'"
        )
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    reason = ""
    try:
        with socket.create_connection((host, int(port_text)), timeout=CONNECT_TIMEOUT_S) as sock:
            sock.sendall(_H2_PREFACE + _H2_EMPTY_SETTINGS)
            answer = b""
            while len(answer) < 9:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                chunk = sock.recv(9 - len(answer))
                if not chunk:
                    break
                answer += chunk
        if len(answer) < 9 or answer[3] != 0x4:  # frame header: length(3) type(1) flags stream
            reason = "it does not answer like a Ray (gRPC) server"
    except TimeoutError:
        reason = f"no answer within {CONNECT_TIMEOUT_S:g} s"
    except OSError as e:
        reason = e.strerror or str(e)
    if reason:
        raise InputError(
            f"cannot reach the Ray cluster at {address}: {reason}; check the address and that "
            "the cluster is running (`ray status`)"
        )


# HTTP/2 client connection preface and an empty SETTINGS frame (RFC 9113 §3.4, §6.5).
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_H2_EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def check_pairs(
    scorer: Any, references: Sequence[str], hypotheses: Sequence[str], *, chunk: int = 4096
) -> None:
    """Run the scorer's input checks over every pair on the driver (the model tokenizer's limits,
    such as a word too long to read), so a bad pair is the local path's :class:`InputError` rather
    than an error inside a Ray actor. Tokenizing is cheap next to scoring."""
    for start in range(0, len(references), chunk):
        scorer.encoder.encode(
            list(references[start : start + chunk]), list(hypotheses[start : start + chunk])
        )


def _ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError as e:
        raise MissingDependencyError("ray", "scoring on a Ray cluster", "ray") from e
    return ray


@dataclass(frozen=True)
class RayScored:
    """A lazily scored Ray Dataset and the signature of its scores."""

    dataset: Any  # ray.data.Dataset
    signature: str


class _ScoreBatch:
    """The actor: one scorer per actor, loaded in ``__init__``; called once per batch."""

    def __init__(
        self,
        options: ScorerOptions,
        batch_size: int,
        reference_column: str,
        hypothesis_column: str,
        explain: bool,
        expected_signature: str,
    ) -> None:
        from sitar.scorer import Scorer

        self.scorer = Scorer.load(options)
        if self.scorer.signature != expected_signature:
            raise CheckpointError(
                "a Ray actor's scorer has another signature than the driver's: "
                f"{self.scorer.signature!r} vs {expected_signature!r}; install the same sitar "
                "version and checkpoint on every node"
            )
        self.batch_size = batch_size
        self.ref_col = reference_column
        self.hyp_col = hypothesis_column
        self.explain = explain

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        from sitar.diagnostics import explain_analyses, explain_many

        hyps = [_as_text(x, self.hyp_col) for x in batch[self.hyp_col]]
        column = batch[self.ref_col]
        chosen = None
        explained = None
        if any(not isinstance(x, (str, bytes)) for x in column):  # candidate lists
            from sitar.multiref import score_multi

            candidates = [[_as_text(r, self.ref_col) for r in _as_list(x)] for x in column]
            multi = score_multi(
                self.scorer, references=candidates, hypotheses=hyps, batch_size=self.batch_size
            )
            result, chosen, refs = multi.result, multi.chosen, list(multi.references)
            if self.explain:  # the chosen pairs; a second pass, only when asked
                explained = explain_many(
                    self.scorer, references=refs, hypotheses=hyps, batch_size=self.batch_size
                )
        elif self.explain and self.scorer.head == "gaps":
            # One model pass gives both the scores and the explanations.
            refs = [_as_text(x, self.ref_col) for x in column]
            analyses = self.scorer.analyze(
                references=refs, hypotheses=hyps, batch_size=self.batch_size
            )
            result = self.scorer.result_of(analyses)
            explained = explain_analyses(self.scorer, refs, hyps, analyses)
        else:
            refs = [_as_text(x, self.ref_col) for x in column]
            result = self.scorer.score(references=refs, hypotheses=hyps, batch_size=self.batch_size)
            if self.explain:  # a pair head: one single-gap rescoring call for the whole batch
                explained = explain_many(
                    self.scorer, references=refs, hypotheses=hyps, batch_size=self.batch_size
                )
        out = dict(batch)
        out["score"] = np.asarray(result.scores, dtype=np.float64)
        out["raw"] = np.asarray(result.raw, dtype=np.float64)
        out["windowed"] = np.asarray(result.windowed, dtype=bool)
        out["identical"] = np.asarray(result.identical, dtype=bool)
        out["n_windows"] = np.asarray(result.n_windows, dtype=np.int64)
        out["signature"] = np.asarray([result.signature] * len(refs), dtype=object)
        if chosen is not None:  # 1-based, as reference_index of sitar score --jsonl-out
            out["reference_index"] = np.asarray([j + 1 for j in chosen], dtype=np.int64)
        if explained is not None:
            out["explanation"] = np.asarray(
                [json.dumps(_json_safe(e.to_dict()), ensure_ascii=False) for e in explained],
                dtype=object,
            )
        return out


def _as_text(value: Any, column: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8")
    raise InputError(
        f"column {column!r} must hold strings, got a {type(value).__name__} ({value!r:.40})"
    )


def _as_list(value: Any) -> list[Any]:
    """A row's candidate references: Ray hands a list column to numpy batches as arrays."""
    if isinstance(value, (list, tuple)):
        return list(value)
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return list(tolist())
    raise InputError(
        f"a reference must be a string or a list of strings, got a {type(value).__name__}"
    )


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj


def score_dataset(
    dataset: Any,
    options: ScorerOptions | None = None,
    *,
    checkpoint: str | None = None,
    revision: str | None = None,
    variant: str | None = None,
    analyzer: str | None = None,
    num_actors: int = 2,
    threads_per_actor: int = 1,
    batch_size: int = 32,
    rows_per_batch: int = 1024,
    reference_column: str = "reference",
    hypothesis_column: str = "hypothesis",
    explain: bool = False,
    head: str | None = None,
    tie_breaker: int | None = None,
    decode: str | None = None,
    allow_unverified: bool = False,
) -> RayScored:
    """Score every row of ``dataset`` (a ``ray.data.Dataset``) with an actor pool.

    ``options`` (:class:`~sitar.options.ScorerOptions`) are those of :meth:`Scorer.load`; each
    actor's thread count is ``threads_per_actor`` (``options.threads`` is replaced by it). The
    keywords ``checkpoint``, ``revision``, ``variant``, ``analyzer``, ``head``, ``tie_breaker``
    and ``decode`` are the older spelling of the same options (not together with ``options``).
    ``num_actors`` actors each hold one model with ``threads_per_actor`` threads (and reserve as
    many Ray CPUs; a torch device ``cuda...`` reserves one GPU per actor); each receives
    ``rows_per_batch`` rows at a time and scores them with ``Scorer.score(...,
    batch_size=batch_size)``; a list column of references is scored against the closest
    candidate and adds ``reference_index`` (see the module docstring). Other columns (ids) are
    kept. Returns a :class:`RayScored`; the
    dataset is lazy, as Ray datasets are (write it, iterate it or ``materialize()`` it).
    """
    legacy: dict[str, Any] = {
        "checkpoint": checkpoint,
        "revision": revision,
        "variant": variant,
        "analyzer": analyzer,
        "head": head,
        "tie_breaker": tie_breaker,
        "decode": decode,
    }
    if options is None:
        options = ScorerOptions(**legacy)
    elif not isinstance(options, ScorerOptions):
        raise InputError(f"options must be a ScorerOptions, got {type(options).__name__}")
    elif any(v is not None for v in legacy.values()):
        given = sorted(k for k, v in legacy.items() if v is not None)
        raise InputError(f"pass either options or the keywords {given}, not both")
    if allow_unverified:  # the older keyword; options.allow_unverified is the one home
        options = options.replace(allow_unverified=True)
    ray = _ray()
    for name, value in (
        ("num_actors", num_actors),
        ("threads_per_actor", threads_per_actor),
        ("batch_size", batch_size),
        ("rows_per_batch", rows_per_batch),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"{name} must be a positive integer, got {value!r}")
    if not isinstance(dataset, ray.data.Dataset):
        raise InputError(f"dataset must be a ray.data.Dataset, got {type(dataset).__name__}")
    columns = dataset.columns(fetch_if_missing=True)
    missing = [c for c in (reference_column, hypothesis_column) if c not in columns]
    if missing:
        raise InputError(
            f"the dataset has no column(s) {', '.join(map(repr, missing))}; it has "
            f"{list(columns)}; pass reference_column= / hypothesis_column="
        )
    clashes = [c for c in (*SCORE_COLUMNS, "explanation", "reference_index") if c in columns]
    if clashes:
        raise InputError(
            f"the dataset already has column(s) {', '.join(map(repr, clashes))}, which scoring "
            "would overwrite; rename or drop them first"
        )
    from sitar.scorer import Scorer

    options = options.replace(threads=threads_per_actor)
    signature = Scorer.load(options).signature  # fail fast here, not in every actor
    gpus = 1 if options.backend == "torch" and str(options.device or "").startswith("cuda") else 0
    scored = dataset.map_batches(
        _ScoreBatch,
        fn_constructor_kwargs={
            "options": options,
            "batch_size": batch_size,
            "reference_column": reference_column,
            "hypothesis_column": hypothesis_column,
            "explain": explain,
            "expected_signature": signature,
        },
        batch_size=rows_per_batch,
        batch_format="numpy",
        # A fixed pool; at most two blocks queued per actor, so an actor that loaded its model
        # first cannot take the whole dataset while the others start (work is shared by blocks:
        # a dataset of one block runs on one actor, see dataset_from_pairs).
        compute=ray.data.ActorPoolStrategy(size=num_actors, max_tasks_in_flight_per_actor=2),
        num_cpus=threads_per_actor,
        num_gpus=gpus,
    )
    return RayScored(dataset=scored, signature=signature)


def unwrap_ray_error(error: BaseException) -> SitarError | None:
    """The SitarError that a Ray task or actor raised, if ``error`` still carries it as an
    object (``.cause``, ``__cause__`` or ``__context__``); ``None`` otherwise. Best effort: with
    Ray 2.60 an error raised inside a Ray Data actor (a non-string text in a user's Dataset) was
    not found this way, so callers must handle ``None`` (the CLI validates its pairs on the
    driver before Ray sees them)."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [error]
    while stack:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, SitarError):
            return e
        stack.extend([getattr(e, "cause", None), e.__cause__, e.__context__])
    return None


def _text_table(
    ids: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    hypotheses: Sequence[str],
) -> Any:
    import pyarrow as pa

    several = any(not isinstance(r, str) for r in references)
    kind = pa.list_(pa.string()) if several else pa.string()
    refs = [[r] if several and isinstance(r, str) else r for r in references]
    return pa.table(
        {
            "id": pa.array(list(ids), type=pa.string()),
            "reference": pa.array(refs, type=kind),
            "hypothesis": pa.array(list(hypotheses), type=pa.string()),
        }
    )


def dataset_from_pairs(
    ids: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    hypotheses: Sequence[str],
    *,
    rows_per_block: int = 1024,
) -> Any:
    """A Ray Dataset with ``id``, ``reference``, ``hypothesis`` columns, in blocks of
    ``rows_per_block`` rows. ``references`` with any list in it (candidates per utterance) make
    ``reference`` a list column, which :func:`score_dataset` scores against the closest.

    Ray Data hands work to the actors block by block, so the blocks bound the parallelism: with
    10,000-row blocks, 6,000 pairs ran on one of two actors (as slow as one thread), and 20,000
    pairs were split evenly or not at all depending on which actor was ready first. Many small
    blocks keep every actor busy to the end."""
    ray = _ray()
    table = _text_table(ids, references, hypotheses)
    n = table.num_rows
    blocks = [table.slice(i, rows_per_block) for i in range(0, n, rows_per_block)] or [table]
    return ray.data.from_arrow(blocks)


def write_jsonl_shards(dataset: Any, path: str) -> None:
    """Write ``dataset`` as JSONL shards (``*.jsonl``, one object per row) under ``path``.

    Floats are written with Python's shortest round-trip repr, so a score read back is the very
    float that was computed (pandas' ``to_json``, behind ``Dataset.write_json``, keeps only 10
    significant digits by default).
    """
    _ray()
    from ray.data.datasource import BlockBasedFileDatasink

    class _JsonlSink(BlockBasedFileDatasink):  # type: ignore[misc]
        def write_block_to_file(self, block: Any, file: Any) -> None:
            lines = []
            for row in block.iter_rows(public_row_format=True):
                record = {k: _plain(v) for k, v in dict(row).items()}
                lines.append(json.dumps(record, ensure_ascii=False))
            if lines:
                file.write(("\n".join(lines) + "\n").encode("utf-8"))

    dataset.write_datasink(_JsonlSink(path, file_format="jsonl"))


def _plain(value: Any) -> Any:
    """numpy scalars to Python ones (json cannot encode numpy types)."""
    item = getattr(value, "item", None)
    return item() if callable(item) else value
