"""The one pair encoder (sitar.encoding): plain and gap-marked encodings, marker positions, user
text that contains marker characters, fixed-width collation."""

from __future__ import annotations

import pytest

pytest.importorskip("tokenizers")

from pathlib import Path

from sitar.cgd import segment
from sitar.encoding import (
    MARKER_CLOSE,
    MARKER_OPEN,
    GapMarkers,
    PairEncoder,
    load_tokenizer_file,
    mark_text,
)
from sitar.errors import CheckpointError, InputError

TOKENIZER = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_onnx" / "tokenizer.json"


@pytest.fixture
def encoder():
    tok = load_tokenizer_file(TOKENIZER)
    GapMarkers.add_to(tok)
    return PairEncoder(tok, max_length=64)


def _items(pairs):
    out = []
    for r, h in pairs:
        seg = segment(r, h)
        out.append((r, h, [(g.ref_span, g.hyp_span) for g in seg.gaps]))
    return out


def test_mark_text_wraps_spans_and_empty_spans():
    assert mark_text("do not send it", [(3, 6)]) == f"do  {MARKER_OPEN} not {MARKER_CLOSE}  send it"
    assert mark_text("do send it", [(2, 2)]) == f"do {MARKER_OPEN}  {MARKER_CLOSE}  send it"
    # Marker characters in the user's text become spaces; they can never forge a marker.
    assert MARKER_OPEN not in mark_text(f"a {MARKER_OPEN} b", [])
    with pytest.raises(InputError, match="ordered"):
        mark_text("abc", [(2, 3), (0, 1)])
    with pytest.raises(InputError, match="inside the text"):
        mark_text("abc", [(1, 9)])


def test_marked_positions_point_at_the_markers(encoder):
    items = _items(
        [
            ("do not send it to the client", "do send it to the client"),
            ("call the bank on friday", "call the doctor on monday please"),
            ("", "hello"),
        ]
    )
    encs = encoder.encode_marked(items)
    markers = encoder.markers
    for (_, _, gaps), enc in zip(items, encs, strict=True):
        assert enc.n_gaps == len(gaps) >= 1
        for ro, rc, ho, hc in enc.gap_index:
            assert enc.ids[ro] == enc.ids[ho] == markers.open_id
            assert enc.ids[rc] == enc.ids[hc] == markers.close_id
            assert ro < rc < ho < hc
            assert enc.type_ids[ro] == 0 and enc.type_ids[ho] == 1
    # The deletion of "not": an empty marked span on the hypothesis side.
    ro, rc, ho, hc = encs[0].gap_index[0]
    assert rc - ro == 2 and hc - ho == 1


def test_user_text_with_marker_characters_is_marked_correctly(encoder):
    r, h = f"turn {MARKER_OPEN}left at the light", f"turn right at the light{MARKER_CLOSE}"
    enc = encoder.encode_marked(_items([(r, h)]))[0]
    assert enc.n_gaps == 1
    ids = list(enc.ids)
    assert ids.count(encoder.markers.open_id) == 2 and ids.count(encoder.markers.close_id) == 2


def test_collate_pads_to_the_requested_width(encoder):
    encs = encoder.encode_marked(_items([("a b c", "a x c"), ("one two", "one three four")]))
    arrays = encoder.collate(encs, ("input_ids", "attention_mask", "gap_index"), width=32)
    assert arrays["input_ids"].shape == (2, 32)
    assert arrays["gap_index"].shape == (2, 1, 4)
    assert arrays["attention_mask"].sum(axis=1).tolist() == [len(e) for e in encs]
    with pytest.raises(InputError, match="shorter"):
        encoder.collate(encs, ("input_ids",), width=4)


def test_plain_tokenizer_has_no_markers():
    plain = PairEncoder(TOKENIZER, max_length=64)
    assert plain.markers is None
    with pytest.raises(CheckpointError, match="gap markers"):
        plain.encode_marked([("a", "b", [((0, 1), (0, 1))])])
    with pytest.raises(CheckpointError, match="no gap marker tokens"):
        GapMarkers.of(load_tokenizer_file(TOKENIZER))


def test_markers_round_trip_and_version_check():
    markers = GapMarkers(open_id=5, close_id=6)
    assert GapMarkers.from_dict(markers.to_dict()) == markers
    with pytest.raises(CheckpointError, match="not supported"):
        GapMarkers.from_dict({**markers.to_dict(), "version": "99"})
    with pytest.raises(CheckpointError, match="missing or malformed"):
        GapMarkers.from_dict({"open": "x"})
