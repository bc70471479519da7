"""The gap closeness features (sitar.closeness, spec §7b [C]): values on known pairs, the empty-span
rule, normalisation, and how the pair encoder computes, collates and checks them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from sitar.closeness import (
    CLOSENESS_FEATURES,
    CLOSENESS_VERSION,
    char_similarity,
    check_version,
    gap_closeness,
    phonetic_key,
    phonetic_similarity,
)
from sitar.errors import CheckpointError, InputError

TOKENIZER = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx" / "tokenizer.json"


def test_known_pairs():
    # A recognizer slip close in spelling: 4 indels over 18 characters.
    assert char_similarity("collected", "connected") == pytest.approx(14 / 18)
    assert char_similarity("collected", "connected") > 0.75
    # Homophones: the same metaphone key.
    assert phonetic_key("four") == phonetic_key("for") == "FR"
    assert phonetic_similarity("four", "for") == 1.0
    assert phonetic_similarity("collected", "connected") > 0.75
    # Different words score low on both.
    assert char_similarity("left", "right") < 0.3
    assert phonetic_similarity("left", "right") < 0.5
    assert char_similarity("monday", "friday") < char_similarity("collected", "connected")


def test_empty_span_gives_zero_for_both():
    for r, h in [("", "uh"), ("not", ""), ("", ""), ("  ", "the")]:
        assert char_similarity(r, h) == 0.0
        assert phonetic_similarity(r, h) == 0.0
    assert gap_closeness([("", "um"), ("not", "")]).tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_case_and_whitespace_do_not_matter_and_keys_are_per_word():
    assert char_similarity("The  Lab", "the lab") == 1.0
    assert phonetic_key("I need  four") == "I NT FR"
    # A word without a metaphone code keeps its text: two different numbers are not homophones.
    assert phonetic_key("4") == "4"
    assert phonetic_similarity("4", "5") == 0.0
    assert phonetic_similarity("4", "4") == 1.0


def test_gap_closeness_array():
    spans = [("collected", "connected"), ("four", "for"), ("left", "right"), ("", "x")]
    out = gap_closeness(spans)
    assert out.dtype == np.float32 and out.shape == (4, len(CLOSENESS_FEATURES)) == (4, 2)
    assert np.all((out >= 0) & (out <= 1))
    assert out[1, 1] == 1.0 and out[3].tolist() == [0.0, 0.0]
    assert np.array_equal(out, gap_closeness(spans))  # deterministic
    assert gap_closeness([]).shape == (0, 2)


def test_version_check():
    check_version({"version": CLOSENESS_VERSION})
    with pytest.raises(CheckpointError, match="no 'closeness' section"):
        check_version(None)
    with pytest.raises(CheckpointError, match="closeness-0"):
        check_version({"version": "closeness-0"})


# -- the pair encoder ---------------------------------------------------------------------------

tokenizers = pytest.importorskip("tokenizers")


def _encoder(closeness: bool):
    from sitar.encoding import GapMarkers, PairEncoder, load_tokenizer_file

    tok = load_tokenizer_file(TOKENIZER)
    GapMarkers.add_to(tok)
    return PairEncoder(tok, max_length=64, closeness=closeness)


def _items():
    from sitar.cgd import segment

    out = []
    for r, h in [
        ("the lab results were collected on monday", "the lab results were connected on monday"),
        ("i need four copies by noon", "i need for copies by new"),
        ("call me later", "call me"),
    ]:
        seg = segment(r, h)
        out.append((r, h, [(g.ref_span, g.hyp_span) for g in seg.gaps]))
    return out


def test_encoder_computes_the_features_of_each_gaps_span_texts():
    items = _items()
    encs = _encoder(True).encode_marked(items)
    for (r, h, gaps), enc in zip(items, encs, strict=True):
        expected = gap_closeness([(r[a:b], h[c:d]) for (a, b), (c, d) in gaps])
        assert np.asarray(enc.gap_closeness, dtype=np.float32).tolist() == expected.tolist()
    assert encs[0].gap_closeness[0][0] == pytest.approx(14 / 18)
    assert encs[2].gap_closeness == ((0.0, 0.0),)  # a deletion
    # Without closeness the encodings are as before: the same ids and positions, no features.
    plain = _encoder(False).encode_marked(items)
    assert all(p.gap_closeness == () for p in plain)
    assert [(p.ids, p.gap_index) for p in plain] == [(e.ids, e.gap_index) for e in encs]


def test_collate_pads_closeness_like_gap_index():
    encoder = _encoder(True)
    encs = encoder.encode_marked(_items())
    names = ("input_ids", "attention_mask", "gap_index", "gap_closeness")
    arrays = encoder.collate(encs, names)
    g = max(e.n_gaps for e in encs)
    assert arrays["gap_closeness"].dtype == np.float32
    assert arrays["gap_closeness"].shape == (*arrays["gap_index"].shape[:2], 2) == (3, g, 2)
    for row, enc in enumerate(encs):
        assert arrays["gap_closeness"][row, : enc.n_gaps].tolist() == [
            list(x) for x in np.asarray(enc.gap_closeness, dtype=np.float32)
        ]
        assert not arrays["gap_closeness"][row, enc.n_gaps :].any()
    # Items encoded without the features cannot feed a graph that takes them.
    plain = _encoder(False).encode_marked(_items())
    with pytest.raises(InputError, match="closeness=True"):
        encoder.collate(plain, names)


def test_checkpoint_encoder_enables_closeness_from_the_graph_inputs(tmp_path):
    from sitar.encoding import GapMarkers, checkpoint_encoder, load_tokenizer_file

    tok = load_tokenizer_file(TOKENIZER)
    markers = GapMarkers.add_to(tok)
    tok.save(str(tmp_path / "tokenizer.json"))

    def config(inputs, extra):
        return SimpleNamespace(
            name="tiny",
            max_length=64,
            tokenizer_path=tmp_path / "tokenizer.json",
            onnx=SimpleNamespace(inputs=inputs),
            extra={"markers": markers.to_dict(), **extra},
        )

    gap_inputs = ("input_ids", "attention_mask", "gap_index")
    with_closeness = (*gap_inputs, "gap_closeness")
    assert checkpoint_encoder(config(gap_inputs, {})).closeness is False
    section = {"closeness": {"version": CLOSENESS_VERSION}}
    assert checkpoint_encoder(config(with_closeness, section)).closeness is True
    with pytest.raises(CheckpointError, match="no 'closeness' section"):
        checkpoint_encoder(config(with_closeness, {}))
    with pytest.raises(CheckpointError, match="closeness-9"):
        checkpoint_encoder(config(with_closeness, {"closeness": {"version": "closeness-9"}}))
