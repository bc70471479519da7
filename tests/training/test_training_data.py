"""Record files (JSONL, Parquet) with file:line errors, splits, encoding, length-grouped batches."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sitar.errors import InputError, RecordError
from sitar.modeling.tiny import synthetic_records
from sitar.records import Record
from sitar.targets import score_from_tiers
from training.data import (
    base_position,
    encode_records,
    length_grouped_batches,
    load_splits,
    read_record_file,
    shard_batches,
)


def _write_jsonl(path, dicts):
    path.write_text("".join(json.dumps(d) + "\n" for d in dicts), encoding="utf-8")
    return path


def test_jsonl_and_parquet_give_the_same_records(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    dicts = synthetic_records(5, seed=1)
    a = read_record_file(_write_jsonl(tmp_path / "r.jsonl", dicts))
    pq.write_table(pa.Table.from_pylist(dicts), tmp_path / "r.parquet")
    b = read_record_file(tmp_path / "r.parquet")
    assert [r.id for r in a] == [r.id for r in b]
    assert [r.score for r in a] == [r.score for r in b]
    assert [r.tiers for r in a] == [r.tiers for r in b]


def test_malformed_jsonl_names_file_and_line(tmp_path):
    dicts = synthetic_records(3, seed=2)
    dicts[1]["score"] = 1.9  # does not match its tiers
    path = _write_jsonl(tmp_path / "bad.jsonl", dicts)
    with pytest.raises(RecordError, match=r"bad\.jsonl:2"):
        read_record_file(path)
    (tmp_path / "junk.jsonl").write_text(json.dumps(synthetic_records(1)[0]) + "\n{oops\n")
    with pytest.raises(RecordError, match=r"junk\.jsonl:2: invalid JSON"):
        read_record_file(tmp_path / "junk.jsonl")


def test_malformed_parquet_names_the_row(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    dicts = synthetic_records(4, seed=3)
    dicts[2]["split"] = "dev"
    pq.write_table(pa.Table.from_pylist(dicts), tmp_path / "bad.parquet")
    with pytest.raises(RecordError, match=r"bad\.parquet:row 2: split"):
        read_record_file(tmp_path / "bad.parquet")


def test_splits_duplicates_and_unknown_types(tmp_path):
    a = _write_jsonl(tmp_path / "a.jsonl", synthetic_records(3, seed=1, split="train"))
    b = _write_jsonl(
        tmp_path / "b.jsonl", synthetic_records(2, seed=2, split="validation", id_prefix="v")
    )
    splits = load_splits([a, b])
    assert {k: len(v) for k, v in splits.items()} == {"train": 3, "validation": 2}
    with pytest.raises(RecordError, match="also appears"):
        load_splits([a, a])
    c = _write_jsonl(tmp_path / "c.jsonl", synthetic_records(1, seed=4, split=None, id_prefix="c"))
    with pytest.raises(RecordError, match="has no split"):
        load_splits([c])
    (tmp_path / "x.csv").write_text("id\n")
    with pytest.raises(InputError, match="unknown record file type"):
        read_record_file(tmp_path / "x.csv")
    with pytest.raises(InputError, match="no record files"):
        load_splits([])


def test_base_position_uses_directions():
    d = synthetic_records(1, seed=5)[0]
    gap = {
        "ref_tokens": [0, 1],
        "hyp_tokens": [0, 1],
        "ref_span": [0, 1],
        "hyp_span": [0, 1],
        "ref_text": "a",
        "hyp_text": "b",
    }
    # A T1 -> T2 boundary case plus a T0 gap: beta = 1 + 1/3.
    d.update(
        tiers=[1, 0], directions=[1, 0], gaps=[gap, gap], score=score_from_tiers([1, 0], [1, 0])
    )
    assert base_position(Record.from_dict(d)) == pytest.approx(4 / 3)
    d.update(tiers=[], directions=[], gaps=[], score=0.0)
    assert base_position(Record.from_dict(d)) == 0.0


def test_encode_skips_or_rejects_long_pairs(tiny_backbone):
    from sitar.modeling import load_tokenizer

    tok = load_tokenizer(tiny_backbone)
    records = [Record.from_dict(d) for d in synthetic_records(6, seed=6)]
    lengths = [len(tok.encode(r.reference, r.hypothesis).ids) for r in records]
    limit = sorted(lengths)[3]
    encoded = encode_records(records, tok, max_length=limit)
    assert len(encoded) + len(encoded.skipped_long) == 6
    assert encoded.skipped_long == [
        r.id for r, n in zip(records, lengths, strict=True) if n > limit
    ]
    assert all(n <= limit for n in encoded.lengths)
    with pytest.raises(InputError, match="long_pairs=skip"):
        encode_records(records, tok, max_length=limit, long_pairs="error")


def test_length_grouped_batches_are_deterministic_and_complete():
    lengths = np.random.default_rng(0).integers(5, 100, size=103)
    kwargs = dict(batch_size=8, group_size=4, seed=1)
    b0 = length_grouped_batches(lengths, epoch=0, **kwargs)
    assert b0 == length_grouped_batches(lengths, epoch=0, **kwargs)
    assert b0 != length_grouped_batches(lengths, epoch=1, **kwargs)
    flat = sorted(i for b in b0 for i in b)
    assert flat == list(range(103))
    assert max(lengths[b0[0]]) == lengths.max()  # longest batch first
    # Inside a batch lengths are close: spread far below the global spread on average.
    spread = np.mean([np.ptp(lengths[b]) for b in b0])
    assert spread < 0.5 * np.ptp(lengths)


def test_shard_batches_gives_equal_counts():
    batches = [[i] for i in range(5)]
    # Padded to [0, 1, 2, 3, 4, 0] by repeating the first batch, then dealt round-robin.
    assert shard_batches(batches, num_processes=2, process_index=0) == [[0], [2], [4]]
    assert shard_batches(batches, num_processes=2, process_index=1) == [[1], [3], [0]]
    assert shard_batches(batches, num_processes=1, process_index=0) == batches


def test_data_repeat_oversamples_training_records_only(tmp_path):
    from training.config import load_config

    big = _write_jsonl(tmp_path / "big.jsonl", synthetic_records(4, seed=1, split="train"))
    small = _write_jsonl(
        tmp_path / "small.jsonl",
        synthetic_records(2, seed=2, split="train", id_prefix="s")
        + synthetic_records(1, seed=3, split="validation", id_prefix="sv"),
    )
    splits = load_splits([big, small], [1, 3])
    assert len(splits["train"]) == 4 + 3 * 2 and len(splits["validation"]) == 1
    ids = [r.id for r in splits["train"]]
    assert all(ids.count(r.id) == 3 for r in splits["train"] if r.id.startswith("s-"))
    with pytest.raises(InputError, match="2 files"):
        load_splits([big, small], [1])
    config = load_config(None, [f"data=[{big}, {small}]", "data_repeat=[1, 5]"])
    assert config.data_repeat == (1, 5) and config.to_dict()["data_repeat"] == [1, 5]
    for bad in ("[1]", "[1, 0]", "[1, true]", "3"):
        with pytest.raises(InputError, match="data_repeat"):
            load_config(None, [f"data=[{big}, {small}]", f"data_repeat={bad}"])


def test_profile_repeat_upweights_one_profile_of_the_training_records(tmp_path):
    from training.config import load_config

    def with_profile(records, profile):
        return [
            {**r, "provenance": {**r.get("provenance", {}), "profile": profile}} for r in records
        ]

    data = _write_jsonl(
        tmp_path / "mixed.jsonl",
        with_profile(synthetic_records(3, seed=1, split="train"), "t2")
        + with_profile(synthetic_records(2, seed=2, split="train", id_prefix="q"), "quantifier")
        + with_profile(
            synthetic_records(1, seed=3, split="validation", id_prefix="v"), "quantifier"
        ),
    )
    splits = load_splits([data], [2], profile_repeat={"quantifier": 3})
    ids = [r.id for r in splits["train"]]
    assert len(ids) == 2 * 3 + 2 * 3 * 2  # file x2 for all, x3 more for the quantifier records
    assert all(ids.count(i) == 6 for i in ids if i.startswith("q-"))
    assert len(splits["validation"]) == 1  # never repeated
    with pytest.raises(InputError, match="no 'train' record"):
        load_splits([data], profile_repeat={"quantifer": 3})  # a typo upweights nothing: refused
    config = load_config(None, [f"data=[{data}]", "profile_repeat={quantifier: 4}"])
    assert config.profile_repeat == {"quantifier": 4}
    assert config.to_dict()["profile_repeat"] == {"quantifier": 4}
    plain = load_config(None, [f"data=[{data}]"])
    assert "profile_repeat" not in plain.to_dict()  # configs without it keep their hash
    assert plain.hash() != config.hash()
    for bad in ("{quantifier: 0}", "{quantifier: true}", "[quantifier]", "{'': 2}"):
        with pytest.raises(InputError, match="profile_repeat"):
            load_config(None, [f"data=[{data}]", f"profile_repeat={bad}"])


def test_drop_ops_leaves_out_records_of_the_named_operators_in_every_split(tmp_path):
    from training.config import load_config
    from training.data import edit_ops

    def with_edits(records, *ops):
        edits = [{"op": op, "gaps": [0], "tier": 2} for op in ops]
        edits.append({"op": "case", "gaps": [], "tier": 0})  # made no gap: never counts
        return [{**r, "provenance": {**r.get("provenance", {}), "edits": edits}} for r in records]

    data = _write_jsonl(
        tmp_path / "mixed.jsonl",
        with_edits(synthetic_records(3, seed=1, split="train"), "value_change")
        + with_edits(
            synthetic_records(2, seed=2, split="train", id_prefix="p"),
            "filler_insert",
            "phonetic_outcome",
        )
        + with_edits(
            synthetic_records(2, seed=3, split="validation", id_prefix="v"), "phonetic_outcome"
        )
        + with_edits(synthetic_records(1, seed=4, split="validation", id_prefix="w"), "antonym"),
    )
    dropped: dict[str, int] = {}
    splits = load_splits([data], [2], drop_ops=["phonetic_outcome"], dropped=dropped)
    assert dropped == {"train": 2, "validation": 2}
    assert len(splits["train"]) == 3 * 2 and len(splits["validation"]) == 1
    assert not any(r.id.startswith(("p-", "v-")) for s in splits.values() for r in s)
    assert edit_ops(splits["validation"][0]) == {"antonym"}
    assert len(load_splits([data])["train"]) == 5  # without drop_ops nothing is left out
    with pytest.raises(InputError, match="drop_ops names \\['case'\\]"):
        load_splits([data], drop_ops=["case"])  # its edits made no gap: a typo-like no-op
    config = load_config(None, [f"data=[{data}]", "drop_ops=[phonetic_outcome]"])
    assert config.drop_ops == ("phonetic_outcome",)
    assert config.to_dict()["drop_ops"] == ["phonetic_outcome"]
    plain = load_config(None, [f"data=[{data}]"])
    assert "drop_ops" not in plain.to_dict() and plain.hash() != config.hash()
    for bad in ("phonetic_outcome", "[1]", "['']", "3"):
        with pytest.raises(InputError, match="drop_ops"):
            load_config(None, [f"data=[{data}]", f"drop_ops={bad}"])
