"""Training data: versioned record files in, encoded ``datasets.Dataset`` splits and batches out.

Record files are JSONL (read with :func:`sitar.records.read_records`, so a malformed line raises
:class:`~sitar.errors.RecordError` naming ``file:line``) or Parquet (each row validated the same way,
named ``file:row N``). Each record's ``split`` field assigns it to train/validation/test; ids must be
unique across all files. Pairs are encoded once with the run's ``tokenizer.json`` tokenizer; pairs
longer than ``max_length`` are never truncated: they are skipped and counted, or rejected, as the
config says.

Batches are length-grouped: a seeded permutation per epoch is cut into mega-batches, each sorted by
length and split into batches, and the batch order is shuffled (the longest batch goes first so
memory problems show up at once). The order depends only on ``(seed, epoch)``, so a run resumes at
an exact ``(epoch, batch)`` position. Under ``accelerate launch`` each process takes every
``num_processes``-th batch.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sitar.checkpoint import DEFAULT_THRESHOLDS
from sitar.errors import InputError, RecordError
from sitar.normalize import NORMALIZER_VERSION
from sitar.records import Record, read_records

__all__ = [
    "GAP_THRESHOLDS",
    "EncodedSplit",
    "base_position",
    "check_normal_form",
    "data_signature",
    "encode_records",
    "encode_validation",
    "gap_step",
    "length_grouped_batches",
    "load_splits",
    "read_record_file",
    "read_teacher",
    "shard_batches",
    "teacher_line",
    "tier_only_ids",
]


def read_record_file(path: str | os.PathLike[str]) -> list[Record]:
    """All records of one JSONL (``.jsonl``/``.json``) or Parquet (``.parquet``) file, validated."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"record file not found: {path}")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return list(read_records(path))
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as e:
            raise InputError(
                "reading Parquet record files needs pyarrow (installed with `datasets`)"
            ) from e
        try:
            rows = pq.read_table(path).to_pylist()
        except (OSError, ValueError) as e:
            raise RecordError(f"{path}: not a readable Parquet file: {e}") from e
        records, seen = [], set()
        for i, row in enumerate(rows):
            where = f"{path}:row {i}"
            record = Record.from_dict(row, where=where)
            if record.id in seen:
                raise RecordError(f"{where}: duplicate record id {record.id!r}")
            seen.add(record.id)
            records.append(record)
        return records
    raise InputError(f"{path}: unknown record file type {suffix!r}; expected .jsonl or .parquet")


def load_splits(
    files: Sequence[str | os.PathLike[str]],
    repeat: Sequence[int] = (),
    *,
    train_split: str = "train",
    profile_repeat: Mapping[str, int] | None = None,
    drop_ops: Sequence[str] = (),
    dropped: dict[str, int] | None = None,
) -> dict[str, list[Record]]:
    """Records of all files grouped by their ``split``; ids must be unique across files. With
    ``repeat`` (one count per file) the ``train_split`` records of file ``i`` appear
    ``repeat[i]`` times (oversampling); with ``profile_repeat`` a training record whose
    ``provenance.profile`` is named there appears that many times more (the two multiply);
    other splits appear once. A named profile that no training record has is an error (a typo
    would otherwise upweight nothing). A record with an edit of an operator in ``drop_ops``
    (:func:`edit_ops`) is left out of every split; ``dropped``, when given, receives the count
    per split, and a named operator that no record has is an error."""
    if not files:
        raise InputError("no record files given; set `data` in the config to JSONL/Parquet files")
    if repeat and len(repeat) != len(files):
        raise InputError(f"repeat has {len(repeat)} counts for {len(files)} files")
    splits: dict[str, list[Record]] = {}
    where_seen: dict[str, str] = {}
    by_profile = dict(profile_repeat or {})
    found: set[str] = set()
    drop = frozenset(drop_ops)
    ops_seen: set[str] = set()
    for k, path in enumerate(files):
        times = repeat[k] if repeat else 1
        for record in read_record_file(path):
            if record.id in where_seen:
                raise RecordError(
                    f"{path}: record id {record.id!r} also appears in {where_seen[record.id]}"
                )
            where_seen[record.id] = str(path)
            if record.split is None:
                raise RecordError(
                    f"{path}: record {record.id!r} has no split; training needs train/validation/"
                    "test assignments (SPEC §6, grouped by reference)"
                )
            if drop:
                hit = drop & edit_ops(record)
                if hit:
                    ops_seen |= hit
                    if dropped is not None:
                        dropped[record.split] = dropped.get(record.split, 0) + 1
                    continue
            copies = times if record.split == train_split else 1
            if by_profile and record.split == train_split:
                profile = record.provenance.get("profile")
                if isinstance(profile, str) and profile in by_profile:
                    copies *= by_profile[profile]
                    found.add(profile)
            splits.setdefault(record.split, []).extend([record] * copies)
    missing = sorted(set(by_profile) - found)
    if missing:
        raise InputError(
            f"profile_repeat names {missing}, but no {train_split!r} record has that "
            "provenance.profile"
        )
    unseen = sorted(drop - ops_seen)
    if unseen:
        raise InputError(f"drop_ops names {unseen}, but no record has an edit of that operator")
    return splits


def edit_ops(record: Record) -> frozenset[str]:
    """The synthetic operators (``provenance.edits[].op``) of the record's edits that made a gap
    (an edit whose ``gaps`` list is empty, such as a case change, left nothing to learn from)."""
    edits = record.provenance.get("edits")
    if not isinstance(edits, list):
        return frozenset()
    return frozenset(
        e["op"]
        for e in edits
        if isinstance(e, Mapping) and isinstance(e.get("op"), str) and e.get("gaps")
    )


def tier_only_ids(
    files: Sequence[str | os.PathLike[str]], flags: Sequence[bool], *, split: str = "train"
) -> frozenset[str]:
    """The ids of the ``split`` records in the files flagged ``True`` (config ``tier_only``: their
    gaps train the gap head on their tier only, see :class:`~sitar.modeling.losses.GapOrdinalLoss`).
    No flags: the empty set."""
    if flags and len(flags) != len(files):
        raise InputError(f"tier_only has {len(flags)} flags for {len(files)} files")
    return frozenset(
        r.id
        for path, flag in zip(files, flags, strict=False)
        if flag
        for r in read_record_file(path)
        if r.split == split
    )


def check_normal_form(
    splits: Mapping[str, Sequence[Record]], normalize: str, normal_form: str = NORMALIZER_VERSION
) -> None:
    """With ``normalize: sitar``, every record must have been written by
    ``python -m training.normal_form`` with the installed normaliser in ``normal_form``
    (``provenance.normal_form`` is :func:`sitar.normalize.normalizer_id` of it): the model must
    train on the form it is scored in. With ``none`` nothing is checked (records as written)."""
    if normalize != "sitar":
        return
    from sitar.normalize import normalizer_id

    want = normalizer_id(normal_form)
    for split, records in splits.items():
        for record in records:
            got = record.provenance.get("normal_form")
            if got != want:
                raise RecordError(
                    f"record {record.id!r} ({split}) is not in the normal form of {want!r} "
                    f"(provenance.normal_form is {got!r}); convert the files with "
                    f"python -m training.normal_form --normal-form {normal_form}, or train with "
                    "normalize: none"
                )


#: Ordinal logits per gap of a gap head: one per threshold 1/3 ... 2 (spec §7b, docs/spec.md).
GAP_THRESHOLDS = len(DEFAULT_THRESHOLDS)

#: Schema of the lines of a teacher file (``python -m training.teacher``).
TEACHER_SCHEMA = "sitar.teacher/1"


def teacher_line(record_id: str, gap_probs: Sequence[Sequence[float]]) -> str:
    """One line of a teacher file (what :func:`read_teacher` reads), with its newline."""
    return (
        json.dumps(
            {"schema": TEACHER_SCHEMA, "id": record_id, "gap_probs": [list(g) for g in gap_probs]}
        )
        + "\n"
    )


def read_teacher(path: str | os.PathLike[str]) -> dict[str, list[list[float]]]:
    """Record id -> per-gap threshold probabilities (``GAP_THRESHOLDS`` in [0, 1] per gap) from a
    teacher file written by ``python -m training.teacher``; malformed lines raise
    :class:`~sitar.errors.RecordError` with ``file:line``."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"teacher file not found: {path}")
    out: dict[str, list[list[float]]] = {}
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            where = f"{path}:{lineno}"
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                raise RecordError(f"{where}: not a JSON line ({e})") from e
            if not isinstance(row, dict) or row.get("schema") != TEACHER_SCHEMA:
                raise RecordError(f"{where}: not a {TEACHER_SCHEMA} line")
            rid, probs = row.get("id"), row.get("gap_probs")
            if not isinstance(rid, str) or not isinstance(probs, list):
                raise RecordError(f"{where}: needs a string 'id' and a list 'gap_probs'")
            for gap in probs:
                if (
                    not isinstance(gap, list)
                    or len(gap) != GAP_THRESHOLDS
                    or not all(
                        isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 1
                        for x in gap
                    )
                ):
                    raise RecordError(
                        f"{where}: every gap needs {GAP_THRESHOLDS} probabilities in [0, 1]"
                    )
            if rid in out:
                raise RecordError(f"{where}: duplicate record id {rid!r}")
            out[rid] = probs
    return out


def base_position(record: Record) -> float:
    """``β`` of a record: the highest severity position ``t + δ/3`` of its gaps (0 without gaps)."""
    if not record.tiers:
        return 0.0
    return max(t + d / 3.0 for t, d in zip(record.tiers, record.directions, strict=True))


def data_signature(records: Sequence[Record]) -> str:
    """``sha256:<hex>`` over the sorted (id, reference, hypothesis, score) of the records."""
    h = hashlib.sha256()
    for r in sorted(records, key=lambda r: r.id):
        h.update(json.dumps([r.id, r.reference, r.hypothesis, r.score]).encode("utf-8"))
        h.update(b"\n")
    return "sha256:" + h.hexdigest()


@dataclass
class EncodedSplit:
    """One split as a ``datasets.Dataset`` (columns ``id``, ``input_ids``, ``token_type_ids``,
    ``length``, ``score``, ``base``) plus what was left out and why."""

    dataset: Any
    skipped_long: list[str] = field(default_factory=list)

    @property
    def lengths(self) -> np.ndarray:
        return np.asarray(self.dataset["length"], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.dataset)


def gap_step(tier: int, direction: int) -> int:
    """A gap's severity position ``t + δ/3`` in thirds: ``3t + δ`` in 0..6 (spec §5, §7b)."""
    return 3 * int(tier) + int(direction)


def record_gap_intervals(record: Record) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Each gap's ``((ref_start, ref_end), (hyp_start, hyp_end))`` token interval, as
    :meth:`sitar.Segmentation.to_dict` writes them (``ref_tokens`` / ``hyp_tokens``); a gap
    without them raises :class:`~sitar.errors.InputError`."""
    try:
        return [(tuple(g["ref_tokens"]), tuple(g["hyp_tokens"])) for g in record.gaps]
    except (KeyError, TypeError) as e:
        raise InputError(
            f"record {record.id!r}: every gap needs its token intervals ref_tokens / hyp_tokens"
        ) from e


def record_gap_extent(record: Record) -> float:
    """:func:`sitar.gapscore.gap_extent` of a record's gaps (what tie-breaker version 3 reads):
    the share of its reference and hypothesis tokens inside gaps, from each gap's token
    intervals (:func:`record_gap_intervals`)."""
    from sitar.gapscore import gap_extent
    from sitar.text import tokenize

    intervals = record_gap_intervals(record)
    refs = [r for r, _ in intervals]
    hyps = [h for _, h in intervals]
    return gap_extent(refs, hyps, len(tokenize(record.reference)), len(tokenize(record.hypothesis)))


def encode_validation(records: Sequence[Record], tokenizer: Any, config: Any) -> EncodedSplit:
    """The validation split encoded as a training run with ``config`` (a
    :class:`~training.config.TrainConfig`) encodes it: long pairs left out, gaps marked and
    closeness features as the run's model reads them, no teacher."""
    return encode_records(
        records,
        tokenizer,
        max_length=config.max_length,
        long_pairs="skip",
        gap_marked=config.gap_head,
        gap_closeness=config.gap_closeness,
    )


def encode_records(
    records: Sequence[Record],
    tokenizer: Any,
    *,
    max_length: int,
    long_pairs: str = "skip",
    gap_marked: bool = False,
    gap_closeness: bool = False,
    teacher: Mapping[str, Sequence[Sequence[float]]] | None = None,
    tier_only: Collection[str] | None = None,
) -> EncodedSplit:
    """Encode records with :class:`sitar.encoding.PairEncoder` (the scorer's own encoder).

    Plain: ``[CLS] r [SEP] h [SEP]``. ``gap_marked``: every gap of the record marked on both sides
    (spec §7b; the tokenizer must hold the markers), with the columns ``gap_index`` (4 marker
    positions per gap, flattened) and ``gap_steps`` (``3t + δ`` per gap). Records without gaps
    then get no gap rows (their pair target is 0). ``gap_closeness`` (with ``gap_marked``) adds
    the column ``gap_closeness``: each gap's two :mod:`sitar.closeness` features, flattened
    (computed by the scorer's encoder, as at inference).
    ``long_pairs="skip"`` leaves out pairs over ``max_length`` (their ids are in ``skipped_long``);
    ``"error"`` raises :class:`InputError` naming the first one.
    ``teacher`` (with ``gap_marked``): record id -> a teacher's per-gap threshold probabilities
    (:func:`read_teacher`), stored flattened in the column ``gap_soft`` (empty for records it does
    not name); the number of gaps must match the record's.
    ``tier_only`` (with ``gap_marked``): ids of records whose gaps train on their tier only, in
    the boolean column ``tier_only`` (``collate`` turns it into ``gap_tier_only``).
    """
    import datasets

    from sitar.encoding import PairEncoder

    if long_pairs not in ("skip", "error"):
        raise InputError(f"long_pairs must be 'skip' or 'error', got {long_pairs!r}")
    if gap_closeness and not gap_marked:
        raise InputError("gap closeness features need gap-marked input (gap_head)")
    encoder = PairEncoder(
        tokenizer, max_length=max(8, max_length), pad_id=0, closeness=gap_closeness
    )
    if gap_marked:
        encs = encoder.encode_marked(
            [
                (
                    r.reference,
                    r.hypothesis,
                    [(tuple(g["ref_span"]), tuple(g["hyp_span"])) for g in r.gaps],
                )
                for r in records
            ]
        )
    else:
        encs = encoder.encode([r.reference for r in records], [r.hypothesis for r in records])
    cols: dict[str, list[Any]] = {
        "id": [],
        "input_ids": [],
        "token_type_ids": [],
        "length": [],
        "score": [],
        "base": [],
        "gap_index": [],
        "gap_steps": [],
        "gap_extent": [],
    }
    if gap_closeness:
        cols["gap_closeness"] = []
    if teacher is not None:
        if not gap_marked:
            raise InputError("teacher targets need gap-marked input (gap_head)")
        cols["gap_soft"] = []
    if tier_only is not None:
        if not gap_marked:
            raise InputError("tier-only targets need gap-marked input (gap_head)")
        cols["tier_only"] = []
    skipped = []
    for record, enc in zip(records, encs, strict=True):
        if len(enc.ids) > max_length:
            if long_pairs == "error":
                raise InputError(
                    f"record {record.id!r} encodes to {len(enc.ids)} tokens, more than "
                    f"max_length={max_length}; raise max_length or set long_pairs=skip"
                )
            skipped.append(record.id)
            continue
        cols["id"].append(record.id)
        cols["input_ids"].append(list(enc.ids))
        cols["token_type_ids"].append(list(enc.type_ids))
        cols["length"].append(len(enc.ids))
        cols["score"].append(float(record.score))
        cols["base"].append(base_position(record))
        cols["gap_index"].append([p for quad in enc.gap_index for p in quad])
        cols["gap_steps"].append(
            [gap_step(t, d) for t, d in zip(record.tiers, record.directions, strict=True)]
            if gap_marked
            else []
        )
        cols["gap_extent"].append(record_gap_extent(record) if gap_marked else 0.0)
        if gap_closeness:
            cols["gap_closeness"].append([x for row in enc.gap_closeness for x in row])
        if teacher is not None:
            soft = teacher.get(record.id)
            if soft is not None and len(soft) != len(record.gaps):
                raise InputError(
                    f"teacher targets of record {record.id!r} have {len(soft)} gaps, the record "
                    f"{len(record.gaps)}"
                )
            cols["gap_soft"].append([float(x) for probs in soft or () for x in probs])
        if tier_only is not None:
            cols["tier_only"].append(record.id in tier_only)
    features = datasets.Features(
        {
            "id": datasets.Value("string"),
            "input_ids": datasets.Sequence(datasets.Value("int32")),
            "token_type_ids": datasets.Sequence(datasets.Value("int8")),
            "length": datasets.Value("int32"),
            "score": datasets.Value("float64"),
            "base": datasets.Value("float64"),
            "gap_index": datasets.Sequence(datasets.Value("int32")),
            "gap_steps": datasets.Sequence(datasets.Value("int8")),
            "gap_extent": datasets.Value("float64"),
        }
    )
    if teacher is not None:
        features["gap_soft"] = datasets.Sequence(datasets.Value("float32"))
    if gap_closeness:
        features["gap_closeness"] = datasets.Sequence(datasets.Value("float32"))
    if tier_only is not None:
        features["tier_only"] = datasets.Value("bool")
    return EncodedSplit(datasets.Dataset.from_dict(cols, features=features), skipped)


def length_grouped_batches(
    lengths: Sequence[int] | np.ndarray,
    *,
    batch_size: int,
    group_size: int,
    seed: int,
    epoch: int,
) -> list[list[int]]:
    """Deterministic length-grouped batches of indices for one epoch (see the module docstring)."""
    n = len(lengths)
    if n == 0:
        return []
    lengths = np.asarray(lengths)
    rng = np.random.default_rng([seed, epoch])
    perm = rng.permutation(n)
    mega = batch_size * group_size
    batches: list[list[int]] = []
    for start in range(0, n, mega):
        chunk = perm[start : start + mega]
        # Longest first inside a mega-batch; the stable sort keeps ties in permutation order.
        chunk = chunk[np.argsort(-lengths[chunk], kind="stable")]
        batches.extend(chunk[i : i + batch_size].tolist() for i in range(0, len(chunk), batch_size))
    order = rng.permutation(len(batches)).tolist()
    batches = [batches[i] for i in order]
    longest = max(range(len(batches)), key=lambda i: (int(lengths[batches[i]].max()), -i))
    batches.insert(0, batches.pop(longest))
    return batches


def shard_batches(
    batches: list[list[int]], *, num_processes: int, process_index: int
) -> list[list[int]]:
    """This process's share: every ``num_processes``-th batch. The list is first padded by
    repeating its first batches so every process gets the same number (DDP needs equal steps)."""
    if num_processes <= 1 or not batches:
        return list(batches)
    padded = list(batches)
    i = 0
    while len(padded) % num_processes:
        padded.append(batches[i % len(batches)])
        i += 1
    return padded[process_index::num_processes]


def collate(
    split: EncodedSplit, indices: Sequence[int], *, pad_id: int, input_names: Sequence[str]
) -> dict[str, np.ndarray]:
    """Right-padded int64 arrays for the model inputs (``gap_closeness`` (B, G, 2) float32, padded
    gap slots 0) plus ``score`` and ``base`` (float32); with gap rows also ``gap_steps`` (B, G)
    (``-1`` in padded slots), ``gap_soft`` (B, G, K) when the split has teacher targets and
    ``gap_tier_only`` (B, G) bool when it has tier-only flags."""
    rows = split.dataset[list(indices)]
    width = max(len(x) for x in rows["input_ids"])
    b = len(indices)
    ids = np.full((b, width), pad_id, dtype=np.int64)
    mask = np.zeros((b, width), dtype=np.int64)
    types = np.zeros((b, width), dtype=np.int64)
    for row, (tok, typ) in enumerate(zip(rows["input_ids"], rows["token_type_ids"], strict=True)):
        ids[row, : len(tok)] = tok
        mask[row, : len(tok)] = 1
        types[row, : len(typ)] = typ
    arrays: dict[str, np.ndarray] = {
        "input_ids": ids,
        "attention_mask": mask,
        "token_type_ids": types,
    }
    if "gap_index" in input_names:
        g = max(1, max(len(s) for s in rows["gap_steps"]))
        gap_index = np.zeros((b, g, 4), dtype=np.int64)
        steps = np.full((b, g), -1, dtype=np.int64)
        for row, (flat, st) in enumerate(zip(rows["gap_index"], rows["gap_steps"], strict=True)):
            n = len(st)
            if n:
                gap_index[row, :n] = np.asarray(flat, dtype=np.int64).reshape(n, 4)
                steps[row, :n] = st
        arrays["gap_index"] = gap_index
        arrays["gap_steps"] = steps
        if "gap_closeness" in input_names:
            if "gap_closeness" not in rows:
                raise InputError(
                    "the model reads gap_closeness but the split was encoded without it; "
                    "encode_records(..., gap_closeness=True)"
                )
            close = np.zeros((b, g, 2), dtype=np.float32)
            for row, (flat, st) in enumerate(
                zip(rows["gap_closeness"], rows["gap_steps"], strict=True)
            ):
                if st:
                    close[row, : len(st)] = np.asarray(flat, dtype=np.float32).reshape(len(st), 2)
            arrays["gap_closeness"] = close
        if "gap_soft" in rows:
            soft = np.full((b, g, GAP_THRESHOLDS), np.nan, dtype=np.float32)
            for row, flat in enumerate(rows["gap_soft"]):
                if flat:
                    soft[row, : len(flat) // GAP_THRESHOLDS] = np.asarray(
                        flat, dtype=np.float32
                    ).reshape(-1, GAP_THRESHOLDS)
            arrays["gap_soft"] = soft
        if "tier_only" in rows:
            arrays["gap_tier_only"] = (steps >= 0) & np.asarray(rows["tier_only"], dtype=bool)[
                :, None
            ]
    out = {name: arrays[name] for name in input_names}
    for extra in ("gap_steps", "gap_soft", "gap_tier_only"):
        if extra in arrays:
            out[extra] = arrays[extra]
    out["score"] = np.asarray(rows["score"], dtype=np.float32)
    out["base"] = np.asarray(rows["base"], dtype=np.float32)
    return out
