"""Scorer on the tiny committed ONNX checkpoint: pinned scores, identical pairs, order, input
validation, long-input windowing, window combination, checkpoint resolution and backends."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import sys
import types

import numpy as np
import pytest
from tiny_pairs import HYPS, REFS

from sitar.cgd import segment
from sitar.checkpoint import resolve_checkpoint
from sitar.errors import CheckpointError, InputError, MissingDependencyError
from sitar.scorer import AGGREGATION, Scorer, ScoreResult
from sitar.signature import parse_signature
from sitar.targets import score_from_tiers
from sitar.windows import Windower as _Windower
from sitar.windows import combine_window_scores

# Pinned normalised scores (tests/fixtures/make_tiny_onnx.py, seed 20261129): pair 2 is clipped
# at 0 (raw -0.026) and pair 4 at 7/3 (raw 2.41).
SCORES_FP32 = [0.6312291281563894, 0.4710851567132132, 0.0, 0.4353505202702113, 1.0]
# The int8 graph is dynamic: its activation scales come from the whole batch, so these depend on
# the batching rule (inputs of one exact length per batch, no padding rows).
SCORES_INT8 = [0.6402096748352051, 0.4600365502493722, 0.0, 0.43474745750427246, 1.0]

# A pair longer than the fixture's max_length (64 tokens): 4 sentences, 4 gaps after CGD.
BASE = (
    "please send the invoice to the client on friday and call the doctor about the "
    "appointment tomorrow morning . "
)
LONG_REF = BASE * 4
LONG_HYP = (
    LONG_REF.replace("friday", "monday", 1)
    .replace("doctor", "bank")
    .replace("tomorrow morning", "next week", 1)
)


class CountingPredictor:
    """Wraps a predictor and records every model input (its unpadded token ids)."""

    def __init__(self, inner):
        self.inner = inner
        self.input_names = inner.input_names
        self.encoder = inner.encoder
        self.seen: list[tuple[int, ...]] = []
        self.calls = 0

    def run_batch(self, arrays):
        self.calls += 1
        for row, mask in zip(arrays["input_ids"], arrays["attention_mask"], strict=True):
            self.seen.append(tuple(int(t) for t, m in zip(row, mask, strict=True) if m))
        return self.inner.run_batch(arrays)


def _ids(scorer, pairs):
    """The token ids the model receives for plain ``(reference, hypothesis)`` pairs."""
    refs, hyps = zip(*pairs, strict=True)
    return [tuple(e.ids) for e in scorer.encoder.encode(list(refs), list(hyps))]


def _counting(scorer: Scorer) -> tuple[Scorer, CountingPredictor]:
    counter = CountingPredictor(scorer.predictor)
    wrapped = Scorer(
        scorer.config, counter, backend="onnx", variant=scorer.variant, analyzer=scorer.analyzer
    )
    return wrapped, counter


# -- pinned scores ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "expected"), [("scorer_fp32", SCORES_FP32), ("scorer_int8", SCORES_INT8)]
)
def test_pinned_scores(request, fixture, expected):
    scorer = request.getfixturevalue(fixture)
    result = scorer.score(references=REFS, hypotheses=HYPS)
    assert isinstance(result, ScoreResult)
    np.testing.assert_allclose(result.scores, expected, atol=1e-5)
    assert result.raw[2] == 0.0 and result.raw[4] == pytest.approx(7 / 3)
    assert result.system_score == pytest.approx(float(np.mean(expected)), abs=1e-5)
    assert result.aggregation == AGGREGATION
    assert result.windowed == (False,) * 5
    assert result.n_windows == (1,) * 5
    assert result.n_identical == 0


def test_scores_are_normalised_raw(scorer_fp32):
    result = scorer_fp32.score(references=REFS, hypotheses=HYPS)
    for s, r in zip(result.scores, result.raw, strict=True):
        assert 0.0 <= s <= 1.0
        assert s == pytest.approx(r / (7 / 3))


def test_signature(scorer_fp32, scorer_int8):
    fields = parse_signature(scorer_fp32.score(references=REFS, hypotheses=HYPS).signature)
    assert re.fullmatch(r"sitar-tiny-test@[0-9a-f]{8}", fields["ckpt"])
    assert fields["onnx"] == "fp32"
    assert fields["rho"] == "0.5"
    assert fields["analyzer"] == "stub-test"
    assert fields["win"] == "1"
    assert parse_signature(scorer_int8.signature)["onnx"] == "int8"


def test_default_variant_is_the_checkpoints(tiny_dir):
    assert Scorer.load(tiny_dir).variant == "int8"


# -- identical pairs, order --------------------------------------------------------------------


def test_identical_pairs_score_zero_without_model_call(scorer_fp32):
    scorer, counter = _counting(scorer_fp32)
    refs = ["Hello, there!", "the cat sat", "", "Haven't seen it"]
    hyps = ["hello there", "the dog sat", "", "havent  seen IT."]
    result = scorer.score(references=refs, hypotheses=hyps)
    assert result.identical == (True, False, True, True)
    assert result.scores[0] == result.scores[2] == result.scores[3] == 0.0
    assert result.n_windows == (0, 1, 0, 0)
    assert counter.seen == _ids(scorer, [("the cat sat", "the dog sat")])

    scorer, counter = _counting(scorer_fp32)
    result = scorer.score(references=["a b"], hypotheses=["A, B"])
    assert result.scores == (0.0,)
    assert counter.calls == 0


def test_order_restored(scorer_fp32):
    rng = random.Random(3)
    words = "the a cat dog sat on mat call send invoice friday monday doctor table".split()
    refs = [" ".join(rng.choices(words, k=rng.randint(1, 20))) for _ in range(40)]
    hyps = [" ".join(rng.choices(words, k=rng.randint(1, 20))) for _ in range(40)]
    full = scorer_fp32.score(references=refs, hypotheses=hyps, batch_size=4)
    singles = [
        scorer_fp32.score(references=[r], hypotheses=[h]).scores[0]
        for r, h in zip(refs, hyps, strict=True)
    ]
    np.testing.assert_allclose(full.scores, singles, atol=1e-6)
    perm = list(range(40))
    rng.shuffle(perm)
    shuffled = scorer_fp32.score(
        references=[refs[i] for i in perm], hypotheses=[hyps[i] for i in perm], batch_size=7
    )
    np.testing.assert_allclose(shuffled.scores, [full.scores[i] for i in perm], atol=1e-6)


# -- input validation -------------------------------------------------------------------------


def test_mismatched_lengths(scorer_fp32):
    with pytest.raises(InputError, match="got 2 references and 3 hypotheses"):
        scorer_fp32.score(references=["a", "b"], hypotheses=["a", "b", "c"])


def test_non_str_items(scorer_fp32):
    with pytest.raises(InputError, match=r"hypotheses\[1\] must be a str, got int"):
        scorer_fp32.score(references=["a", "b"], hypotheses=["a", 3])
    with pytest.raises(InputError, match=r"references\[0\] must be a str, got NoneType"):
        scorer_fp32.score(references=[None], hypotheses=["a"])
    with pytest.raises(InputError, match="references must be a list of str, got str"):
        scorer_fp32.score(references="a", hypotheses="b")


def test_keyword_only(scorer_fp32):
    with pytest.raises(TypeError):
        scorer_fp32.score(["a"], ["b"])


def test_batches_hold_one_length_and_no_padding(scorer_fp32):
    # Batch invariance rests on this: an input is computed at its own length, never padded to
    # its neighbours' width, so a batch holds inputs of exactly one length.
    counting, counter = _counting(scorer_fp32)
    masks = []
    inner = counter.run_batch

    def run_batch(arrays):
        masks.append(arrays["attention_mask"].copy())
        return inner(arrays)

    counter.run_batch = run_batch
    refs = [REFS[i % len(REFS)] + " and more" * (i % 3) for i in range(12)]
    hyps = [HYPS[i % len(HYPS)] for i in range(12)]
    got = counting.score(references=refs, hypotheses=hyps, batch_size=4)
    assert masks and all(bool(m.all()) for m in masks)
    assert len({m.shape[1] for m in masks}) > 1  # several lengths, so several groups
    lengths = sorted(len(ids) for ids in counter.seen)
    assert sorted(n for m in masks for n in [m.shape[1]] * m.shape[0]) == lengths
    alone = [
        scorer_fp32.score(references=[r], hypotheses=[h]).raw[0]
        for r, h in zip(refs, hyps, strict=True)
    ]
    np.testing.assert_allclose(got.raw, alone, atol=1e-6, rtol=0)


def test_bad_batch_size(scorer_fp32):
    with pytest.raises(InputError, match="batch_size"):
        scorer_fp32.score(references=["a"], hypotheses=["b"], batch_size=0)


def test_empty_lists(scorer_fp32):
    result = scorer_fp32.score(references=[], hypotheses=[])
    assert len(result) == 0
    assert result.scores == () and result.windowed == ()
    assert math.isnan(result.system_score)
    data = result.to_dict()
    assert data["system_score"] is None and data["n_pairs"] == 0
    json.dumps(data, allow_nan=False)


def test_to_dict_is_json(scorer_fp32):
    data = scorer_fp32.score(references=REFS, hypotheses=HYPS).to_dict()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["n_pairs"] == 5 and data["aggregation"] == AGGREGATION


# -- long inputs ---------------------------------------------------------------------------------


def test_long_pair_is_windowed(scorer_fp32, stub_analyzer):
    assert scorer_fp32.encoder.pair_length(LONG_REF, LONG_HYP) > 64
    scorer, counter = _counting(scorer_fp32)
    result = scorer.score(references=[LONG_REF, REFS[0]], hypotheses=[LONG_HYP, HYPS[0]])
    assert result.windowed == (True, False)
    units = scorer.windows(LONG_REF, LONG_HYP)
    windows = [w for unit in units for w in unit]
    assert result.n_windows == (len(windows), 1) and len(windows) >= 2
    # Exactly the windows (and the short pair) reach the model, and each one fits max_length.
    assert sorted(counter.seen) == sorted(_ids(scorer, [*windows, (REFS[0], HYPS[0])]))
    for r, h in windows:
        assert scorer.encoder.pair_length(r, h) <= 64
    # The pair's raw score is the documented combination of its window scores.
    window_raw = np.clip(scorer_fp32.predictor.predict_raw(*zip(*windows, strict=True)), 0, 7 / 3)
    assert result.raw[0] == pytest.approx(combine_window_scores(list(window_raw)), abs=1e-6)
    assert result.scores[1] == pytest.approx(SCORES_FP32[0], abs=1e-5)


def test_windows_cover_every_gap_once(stub_analyzer):
    from sitar.runtime import PairEncoder

    encoder = PairEncoder(
        __import__("pathlib").Path(__file__).resolve().parents[1]
        / "fixtures"
        / "tiny_onnx"
        / "tokenizer.json",
        max_length=64,
    )

    def fits(r, h):
        return encoder.pair_length(r, h) <= 64

    seg = segment(LONG_REF, LONG_HYP, analyzer=stub_analyzer)
    plan = _Windower(fits, stub_analyzer).plan_spans(LONG_REF, LONG_HYP)
    covered: list[int] = []
    for unit in plan:
        assert len(unit) == 1  # no oversized gap here
        (ra, rb), (ha, hb) = unit[0]
        inside = [
            g.index
            for g in seg.gaps
            if ra <= g.ref_tokens[0] and g.ref_tokens[1] <= rb
            and ha <= g.hyp_tokens[0] and g.hyp_tokens[1] <= hb
        ]  # fmt: skip
        assert inside, "every window holds at least one gap"
        # Context is matched text only: the same number of tokens on both sides of the gaps.
        first, last = seg.gaps[inside[0]], seg.gaps[inside[-1]]
        assert first.ref_tokens[0] - ra == first.hyp_tokens[0] - ha
        assert rb - last.ref_tokens[1] == hb - last.hyp_tokens[1]
        covered.extend(inside)
    assert covered == [g.index for g in seg.gaps]


def test_oversized_gap_is_split_not_dropped(scorer_fp32):
    ref = "hello " + " ".join(["the"] * 10)
    hyp = "hello " + " ".join(["a"] * 80)
    units = scorer_fp32.windows(ref, hyp)
    assert len(units) == 1 and len(units[0]) >= 2
    hyp_words = [w for _, h in units[0] for w in h.split()]
    ref_words = [w for r, _ in units[0] for w in r.split()]
    assert hyp_words == ["a"] * 80 and ref_words == ["the"] * 10
    result = scorer_fp32.score(references=[ref], hypotheses=[hyp])
    assert result.windowed == (True,) and result.n_windows == (len(units[0]),)
    piece_raw = scorer_fp32.predictor.predict_raw(*zip(*units[0], strict=True))
    expected = float(np.clip(piece_raw, 0, 7 / 3).max())
    assert result.raw[0] == pytest.approx(expected, abs=1e-6)


def test_unsplittable_token_raises(scorer_fp32):
    # Apostrophes between letters stay inside one SITAR token, but the tiny tokenizer splits
    # them off, so this single SITAR token is 101 model tokens.
    token = "a'" * 50 + "a"
    assert scorer_fp32.encoder.pair_length("", token) > 64
    with pytest.raises(InputError, match="single token is longer than max_length"):
        scorer_fp32.score(references=["x"], hypotheses=[token])


# -- window combination -----------------------------------------------------------------------


def test_combination_matches_spec_for_single_gap_windows():
    """Every multiset of up to 4 single-gap windows (all 7 severity positions) combines to the
    SPEC §5 score of those gaps, in any order."""
    positions = [(0, 0), (0, 1), (1, -1), (1, 0), (1, 1), (2, -1), (2, 0)]
    n = 0
    for k in range(1, 5):
        for combo in itertools.combinations_with_replacement(positions, k):
            tiers = [t for t, _ in combo]
            dirs = [d for _, d in combo]
            windows = [score_from_tiers([t], [d]) for t, d in combo]
            expected = score_from_tiers(tiers, dirs)
            assert combine_window_scores(windows) == pytest.approx(expected, abs=1e-12)
            assert combine_window_scores(windows[::-1]) == pytest.approx(expected, abs=1e-12)
            n += 1
    assert n == 329


def test_combination_properties():
    assert combine_window_scores([]) == 0.0
    assert combine_window_scores([1.23]) == 1.23
    assert combine_window_scores([-0.5]) == 0.0
    assert combine_window_scores([3.0]) == pytest.approx(7 / 3)
    rng = random.Random(0)
    for _ in range(300):
        ws = [rng.uniform(-0.2, 2.5) for _ in range(rng.randint(2, 6))]
        top = max(min(max(w, 0.0), 7 / 3) for w in ws)
        beta = min(math.floor(3 * top + 1e-9), 6) / 3
        out = combine_window_scores(ws)
        assert beta <= out < beta + 1 / 3
        assert out >= top - 1e-12  # more windows never lower the score
        # Raising one window's score inside its own third-wide interval never lowers the
        # result (crossing an interval boundary may: the refinement restarts there).
        i = rng.randrange(len(ws))
        w = min(max(ws[i], 0.0), 7 / 3)
        step = min(math.floor(3 * w + 1e-9), 6)
        bumped_w = max(w, min(w + 0.05, (step + 1) / 3 - 1e-6))
        bumped = [*ws[:i], bumped_w, *ws[i + 1 :]]
        assert combine_window_scores(bumped) >= out - 1e-12


# -- checkpoint resolution -------------------------------------------------------------------------


def test_hub_offline_not_cached_is_a_checkpoint_error():
    with pytest.raises(CheckpointError, match="HF_HUB_OFFLINE"):
        Scorer.load("sitar-test-org/definitely-not-cached-model")


def test_hub_offline_makes_no_network_call(monkeypatch):
    import huggingface_hub

    calls = []

    def fake_snapshot_download(**kwargs):
        calls.append(kwargs)
        raise huggingface_hub.errors.LocalEntryNotFoundError("not cached")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    with pytest.raises(CheckpointError, match="not in the local cache"):
        resolve_checkpoint("owner/name")
    assert calls and calls[0]["local_files_only"] is True
    assert "sitar_config.json" in calls[0]["allow_patterns"]


def test_hub_snapshot_folder_is_used(monkeypatch, tiny_dir):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda **kw: str(tiny_dir))
    scorer = Scorer.load("owner/name", variant="fp32")
    assert scorer.config.folder == tiny_dir
    np.testing.assert_allclose(
        scorer.score(references=REFS, hypotheses=HYPS).scores, SCORES_FP32, atol=1e-5
    )


def test_not_a_folder_nor_hub_id(tmp_path):
    with pytest.raises(CheckpointError, match="neither an existing folder nor"):
        Scorer.load(str(tmp_path / "a" / "b" / "c"))


def test_folder_without_config(tmp_path):
    with pytest.raises(CheckpointError, match="sitar_config.json is missing"):
        Scorer.load(tmp_path)


def test_backend_arguments(tiny_dir):
    with pytest.raises(InputError, match="backend must be one of"):
        Scorer.load(tiny_dir, backend="tensorflow")
    with pytest.raises(InputError, match="variant"):
        Scorer.load(tiny_dir, backend="torch", variant="int8")
    with pytest.raises(InputError, match="device"):
        Scorer.load(tiny_dir, device="cuda")


def test_torch_backend_wiring_with_a_stub(monkeypatch, tiny_dir):
    """backend='torch' goes through sitar.modeling.TorchPredictor(folder, device=...)."""
    from sitar.checkpoint import CheckpointConfig
    from sitar.runtime import OnnxPredictor

    made = []

    class StubTorchPredictor:
        def __init__(self, folder, device=None):
            made.append((folder, device))
            self._onnx = OnnxPredictor(CheckpointConfig.load(folder), variant="fp32")
            self.input_names = self._onnx.input_names
            self.encoder = self._onnx.encoder

        def run_batch(self, arrays):
            return self._onnx.run_batch(arrays)

    stub = types.ModuleType("sitar.modeling")
    stub.TorchPredictor = StubTorchPredictor
    monkeypatch.setitem(sys.modules, "sitar.modeling", stub)
    scorer = Scorer.load(tiny_dir, backend="torch", device="cpu")
    assert made == [(tiny_dir, "cpu")]
    result = scorer.score(references=REFS, hypotheses=HYPS)
    np.testing.assert_allclose(result.scores, SCORES_FP32, atol=1e-5)
    assert parse_signature(result.signature)["backend"] == "torch"


def test_torch_backend_missing_is_a_missing_dependency(monkeypatch, tiny_dir):
    monkeypatch.setitem(sys.modules, "sitar.modeling", None)  # import raises ImportError
    with pytest.raises(MissingDependencyError, match="the torch backend"):
        Scorer.load(tiny_dir, backend="torch")
