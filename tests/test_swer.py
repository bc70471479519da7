"""swer: tier weights, extents, pair and corpus values (sitar/swer.py)."""

from __future__ import annotations

import math

import pytest

from sitar import segment
from sitar.errors import InputError
from sitar.swer import SWER_DEFAULT, SwerParams, corpus_swer, gap_extent, pair_swer, pair_value


def test_weights_and_version() -> None:
    p = SwerParams(t1_weight=0.4, extent="chars")
    assert [p.weight(t) for t in (0, 1, 2)] == [0.0, 0.4, 1.0]
    assert p.version == "swer-1:t1=0.4,ext=chars"
    assert SWER_DEFAULT.version == "swer-1:t1=0.6,ext=words"


@pytest.mark.parametrize(
    "kwargs", [{"t1_weight": -0.1}, {"t1_weight": 1.5}, {"t1_weight": True}, {"extent": "bytes"}]
)
def test_bad_params_are_typed_errors(kwargs: dict) -> None:
    with pytest.raises(InputError):
        SwerParams(**kwargs)


def test_gap_extents() -> None:
    assert gap_extent(["collected"], ["connected"], "words") == 1.0
    assert gap_extent(["collected"], ["connected"], "chars") == 2.0
    assert gap_extent(["a", "b", "c"], [], "words") == 3.0
    assert gap_extent([], [], "chars") == 0.0


def test_all_t2_words_is_the_word_error_count() -> None:
    seg = segment("send the red box to anna today", "send a bed box anna today please")
    tiers = [2] * len(seg.gaps)
    num, length = pair_swer(seg, tiers, SwerParams(extent="words"))
    assert length == 7
    # the/a, red/bed, to deleted, please inserted: 4 word edits, whatever CGD's grouping
    assert num == 4.0


def test_t0_gaps_weigh_nothing_and_t1_weighs_w() -> None:
    seg = segment("i need four copies by noon", "i need for copies by noon")
    assert len(seg.gaps) == 1
    assert pair_swer(seg, [0])[0] == 0.0
    assert pair_swer(seg, [1], SwerParams(t1_weight=0.3))[0] == pytest.approx(0.3)
    with pytest.raises(InputError):
        pair_swer(seg, [1, 2])


def test_pair_and_corpus_values() -> None:
    assert pair_value(2.0, 8.0) == 0.25
    assert pair_value(0.0, 0.0) == 0.0
    assert pair_value(3.0, 0.0) == 3.0  # an insertion into an empty reference is still damage
    assert corpus_swer([(1.0, 4.0), (0.0, 6.0)]) == pytest.approx(0.1)  # micro, not macro
    assert math.isnan(corpus_swer([]))
