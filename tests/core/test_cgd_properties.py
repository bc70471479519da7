"""SPEC §2 against a slow literal implementation, and SPEC §4 invariants on random pairs."""

from __future__ import annotations

import itertools

from cgd_reference import reference_decompose
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from stub_analyzer import KeywordAnalyzer

from sitar.cgd import decompose, segment
from sitar.text import tokenize

small_vocab_seq = st.integers(1, 4).flatmap(
    lambda k: st.lists(st.sampled_from("abcd"[:k]), min_size=0, max_size=14)
)


@settings(max_examples=600, deadline=None)
@given(small_vocab_seq, small_vocab_seq)
@example([], [])
@example(["a"], [])
@example([], ["a", "a"])
@example(["a", "a", "a"], ["a"])
@example(["a", "b", "a", "b"], ["b", "a", "b", "a"])
def test_decompose_matches_reference(u, v):
    got = [(g.ref, g.hyp) for g in decompose(u, v)]
    assert got == reference_decompose(u, v)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["the", "a", "to", "send", "not", "it", "do", "uh"]), max_size=25),
    st.lists(st.sampled_from(["the", "a", "to", "send", "not", "it", "do", "um"]), max_size=25),
)
def test_decompose_matches_reference_wordy(u, v):
    assert [(g.ref, g.hyp) for g in decompose(u, v)] == reference_decompose(u, v)


@given(st.lists(st.sampled_from("abc"), max_size=20))
def test_identical_sequences_have_no_gaps(u):
    assert decompose(u, list(u)) == []


# Random transcripts with punctuation, case, apostrophes, numbers and non-ASCII letters.
WORDS = [
    "send", "Send", "SEND", "not", "don't", "don’t", "it", "the", "client", "3.5", "3,000", "twenty-five",
    "café", "Straße", "naïve", "東京", "uh", "um", "and", "but", "if", "approve", "approved", "search",
    "I", "I'm", "o'clock", "5", "x", "2024", "ß", "Ελλάδα",
]  # fmt: skip
SEPARATORS = [
    " ",
    " ",
    " ",
    ", ",
    ". ",
    "! ",
    " - ",
    " — ",
    "; ",
    " (",
    ") ",
    '"',
    " ’",
    "...",
    "\n",
    "  ",
    "-",
    ".",
]


@st.composite
def transcripts(draw):
    n = draw(st.integers(0, 12))
    parts = [draw(st.sampled_from(["", '"', "(", " "]))]
    for _ in range(n):
        parts.append(draw(st.sampled_from(WORDS)))
        parts.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


@st.composite
def related_pairs(draw):
    """A transcript and an edited copy, so that pairs share anchors like real ASR output."""
    ref = draw(transcripts())
    pieces = ref.split(" ")
    out = []
    for piece in pieces:
        op = draw(st.sampled_from(["keep", "keep", "keep", "drop", "sub", "ins", "case"]))
        if op == "keep":
            out.append(piece)
        elif op == "sub":
            out.append(draw(st.sampled_from(WORDS)))
        elif op == "ins":
            out.extend([piece, draw(st.sampled_from(WORDS))])
        elif op == "case":
            out.append(piece.upper())
    return ref, " ".join(out)


def _norms(text):
    return [t.norm for t in tokenize(text)]


def _check_invariants(ref, hyp, seg):
    r, h = _norms(ref), _norms(hyp)
    assert [t.norm for t in seg.ref_tokens] == r
    assert [t.norm for t in seg.hyp_tokens] == h
    # Ordered, non-overlapping, never empty on both sides.
    prev_r = prev_h = 0
    for gap in seg.gaps:
        (rs, re_), (hs, he) = gap.ref_tokens, gap.hyp_tokens
        assert prev_r <= rs <= re_ and prev_h <= hs <= he
        assert re_ > rs or he > hs
        prev_r, prev_h = re_, he
    # Everything outside the gaps is matched one to one, in order (anchor tokens).
    in_r = {k for g in seg.gaps for k in range(*g.ref_tokens)}
    in_h = {k for g in seg.gaps for k in range(*g.hyp_tokens)}
    assert [r[k] for k in range(len(r)) if k not in in_r] == [
        h[k] for k in range(len(h)) if k not in in_h
    ]
    # Consecutive gaps are separated by at least one anchor token on both sides.
    for a, b in itertools.pairwise(seg.gaps):
        assert b.ref_tokens[0] > a.ref_tokens[1] and b.hyp_tokens[0] > a.hyp_tokens[1]
    # Character spans and texts.
    for gap in seg.gaps:
        for text, toks, (ts, te), (cs, ce), piece in (
            (ref, seg.ref_tokens, gap.ref_tokens, gap.ref_span, gap.ref_text),
            (hyp, seg.hyp_tokens, gap.hyp_tokens, gap.hyp_span, gap.hyp_text),
        ):
            assert text[cs:ce] == piece
            if te > ts:
                assert (cs, ce) == (toks[ts].start, toks[te - 1].end)
            else:
                assert cs == ce == (toks[ts - 1].end if ts > 0 else 0)
            assert _norms(piece) == [t.norm for t in toks[ts:te]]
    # Single-gap hypotheses: the reference tokens with one gap replaced.
    for gap in seg.gaps:
        expected = (
            r[: gap.ref_tokens[0]]
            + h[gap.hyp_tokens[0] : gap.hyp_tokens[1]]
            + r[gap.ref_tokens[1] :]
        )
        assert _norms(seg.single_gap_hypothesis(gap.index)) == expected
    # Applying every gap gives the hypothesis tokens.
    assert _norms(seg.apply(range(len(seg.gaps)))) == h
    assert seg.apply([]) == ref


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(related_pairs(), st.booleans())
@example(
    (
        "I haven’t approved it yet. The figures look right.",
        "I I haven't approved it yet. Most of the figures look right",
    ),
    True,
)
@example(("5.x and 7", "5.7 and 7"), False)
@example(("1.a 2", "1. 2"), False)
@example(("", "uh"), True)
@example(("uh", ""), True)
@example(("in the uh, meantime", "in the meantime"), True)
def test_gap_invariants(pair, consolidate):
    ref, hyp = pair
    seg = segment(ref, hyp, analyzer=KeywordAnalyzer(), consolidate=consolidate)
    _check_invariants(ref, hyp, seg)


@settings(max_examples=150, deadline=None)
@given(transcripts(), transcripts())
def test_gap_invariants_unrelated(ref, hyp):
    _check_invariants(ref, hyp, segment(ref, hyp, analyzer=KeywordAnalyzer()))


@settings(max_examples=200, deadline=None)
@given(related_pairs())
def test_consolidation_only_merges_atomic_gaps(pair):
    ref, hyp = pair
    atomic = segment(ref, hyp, analyzer=KeywordAnalyzer(), consolidate=False)
    merged = segment(ref, hyp, analyzer=KeywordAnalyzer())
    assert len(merged.gaps) <= len(atomic.gaps)
    assert sum(g.n_atomic for g in merged.gaps) == len(atomic.gaps)
    # Every merged gap's envelope starts at an atomic gap's start and ends at one's end.
    starts = {(g.ref_tokens[0], g.hyp_tokens[0]) for g in atomic.gaps}
    ends = {(g.ref_tokens[1], g.hyp_tokens[1]) for g in atomic.gaps}
    for g in merged.gaps:
        assert (g.ref_tokens[0], g.hyp_tokens[0]) in starts
        assert (g.ref_tokens[1], g.hyp_tokens[1]) in ends
