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


# -- wired into scoring: one pass, every output ------------------------------------------------------


@pytest.fixture(scope="module")
def scorer():
    from sitar import Scorer

    return Scorer.load()


REFS = ["Do not send the contract today.", "turn left here", "a b c", "wire three hundred dollars"]
HYPS = ["do send the uh contract today", "turn right here", "a b c", "wire three thousand dollars"]


def test_score_result_carries_swer_from_the_same_pass(scorer) -> None:
    from sitar.diagnostics import explain_many
    from sitar.swer import explanation_swer

    res = scorer.score(references=REFS, hypotheses=HYPS)
    assert res.swer_version == SWER_DEFAULT.version
    assert res.swer is not None and len(res.swer) == len(REFS)
    assert res.swer[2] == 0.0 and res.swer_lengths[2] == 3.0  # identical pair: no model call
    # the same per-gap tiers explain reads: the same values
    explained = explain_many(scorer, references=REFS, hypotheses=HYPS)
    assert [pair_value(*explanation_swer(e)) for e in explained] == list(res.swer)
    num, den = sum(res.swer_numerators), sum(res.swer_lengths)
    assert res.system_swer == pytest.approx(num / den)
    d = res.to_dict()
    assert d["swer"] == list(res.swer) and d["system_swer"] == res.system_swer
    # batch size changes nothing
    again = scorer.score(references=REFS, hypotheses=HYPS, batch_size=1)
    assert again.swer == res.swer


def test_a_slice_has_its_own_corpus_swer(scorer) -> None:
    from sitar.serve.batching import slice_result

    res = scorer.score(references=REFS, hypotheses=HYPS)
    part = slice_result(res, 1, 3)
    assert part.swer == res.swer[1:3]
    assert part.system_swer == pytest.approx(
        sum(res.swer_numerators[1:3]) / sum(res.swer_lengths[1:3])
    )


def test_score_and_compare_print_swer(tmp_path, capsys) -> None:
    from sitar.cli import main

    ref, a, b = tmp_path / "ref.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    a.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    b.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    assert main(["score", "--ref-file", str(ref), "--hyp-file", str(a)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "id\tscore\traw\twindowed\tswer"
    assert out[-1].startswith("#swer\t") and out[-1].endswith(f"\t{SWER_DEFAULT.version}\tn=4")
    assert main(["compare", "--ref-file", str(ref), "--system", f"A={a}", "--system",
                 f"B={b}", "--bootstrap", "50"]) == 0  # fmt: skip
    table = capsys.readouterr().out
    header = next(line for line in table.splitlines() if line.startswith("system"))
    assert "swer" in header
    row_b = next(line for line in table.splitlines() if line.startswith("B "))
    assert "0.000  [0.000, 0.000]" in row_b  # identical transcripts: no damage


def test_a_checkpoint_names_its_own_swer_parameters() -> None:
    from types import SimpleNamespace

    from sitar.swer import SWER_DEFAULT, SwerParams, checkpoint_swer_params

    assert checkpoint_swer_params(SimpleNamespace(extra={})) == SWER_DEFAULT
    own = SimpleNamespace(extra={"scoring": {"swer": {"t1_weight": 0.6, "extent": "chars"}}})
    assert checkpoint_swer_params(own) == SwerParams(0.6, "chars")
    for bad in ({"t1_weight": 2}, {"extent": "syllables"}, {"weight": 0.5}, "chars"):
        with pytest.raises(InputError):
            checkpoint_swer_params(SimpleNamespace(extra={"scoring": {"swer": bad}}))
