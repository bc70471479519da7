"""SPEC §3 consolidation, computed in O(m) by ``sitar.cgd.consolidate_atoms``, against a literal
reading of the spec: admissibility checked group by group from the definition, then the
minimum-cardinality DP with ties to the largest endpoint. Its fragment and boundary tests are the
frozen pre-speed-work ones (``tests/reference/cgd_v2.py``), so the reading does not share code with
``sitar.cgd``."""

from __future__ import annotations

import random

import cgd_v2
from hypothesis import given, settings
from hypothesis import strategies as st
from stub_analyzer import KeywordAnalyzer

import sitar.cgd as cgd
from sitar.text import tokenize


def _literal_groups(atoms, ref, hyp, ref_tokens, hyp_tokens, analyzer, max_bridge):
    preds = (analyzer.predicates(ref, ref_tokens), analyzer.predicates(hyp, hyp_tokens))

    def admissible(i, j):
        if i == j:
            return True
        for k in range(i, j):
            a, b = atoms[k], atoms[k + 1]
            if not (cgd_v2._is_fragment(a) or cgd_v2._is_fragment(b)):
                return False
            bridges = ((a.ref[1], b.ref[0]), (a.hyp[1], b.hyp[0]))
            if max_bridge is not None and bridges[0][1] - bridges[0][0] > max_bridge:
                return False
            if cgd_v2._bridge_has_boundary((ref, hyp), (ref_tokens, hyp_tokens), bridges):
                return False
        for side, flags in enumerate(preds):
            lo = (atoms[i].ref, atoms[i].hyp)[side][0]
            hi = (atoms[j].ref, atoms[j].hyp)[side][1]
            if sum(1 for t in range(lo, hi) if t in flags) > 1:
                return False
        return True

    m = len(atoms)
    d = [0] * (m + 1)
    best = [0] * m
    for i in range(m - 1, -1, -1):
        d[i] = m + 1
        for j in range(i, m):
            if admissible(i, j) and 1 + d[j + 1] <= d[i]:
                d[i], best[i] = 1 + d[j + 1], j
    groups, i = [], 0
    while i < m:
        groups.append((i, best[i]))
        i = best[i] + 1
    return groups


WORDS = ["send", "it", "the", "a", "uh", "um", "and", "to", "client", "approve", "now", "x", "y"]
PUNCT = [" ", " ", " ", " ", ", ", ". ", " - "]


@st.composite
def gappy_pairs(draw):
    """Pairs with many small gaps, so that groups can grow long."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(0, 40))
    words = [rng.choice(WORDS) for _ in range(n)]
    ref = "".join(w + rng.choice(PUNCT) for w in words)
    hyp_words = []
    for w in words:
        r = rng.random()
        if r < 0.15:
            continue
        hyp_words.append(rng.choice(WORDS) if r < 0.3 else w)
        if rng.random() < 0.1:
            hyp_words.append("uh")
    hyp = " ".join(hyp_words)
    return ref, hyp


@settings(max_examples=300, deadline=None)
@given(gappy_pairs(), st.sampled_from([None, 0, 1, 3]))
def test_consolidation_matches_literal_dp(pair, max_bridge):
    ref, hyp = pair
    ref_tokens, hyp_tokens = tokenize(ref), tokenize(hyp)
    atoms = cgd.decompose([t.norm for t in ref_tokens], [t.norm for t in hyp_tokens])
    analyzer = KeywordAnalyzer()
    got = cgd.consolidate_atoms(
        atoms,
        reference=ref,
        hypothesis=hyp,
        ref_tokens=ref_tokens,
        hyp_tokens=hyp_tokens,
        analyzer=analyzer,
        max_bridge_tokens=max_bridge,
    )
    expected = _literal_groups(atoms, ref, hyp, ref_tokens, hyp_tokens, analyzer, max_bridge)
    assert got == expected


# Token characters (enough for the boundary words "and", "or", "nor"), both kinds of joiner,
# hyphens, dashes and sentence punctuation: intra-word hyphens next to punctuation, hyphens at a
# bridge's ends, numbers with "." and ",". The bridge test must agree with the frozen v2 one.
BRIDGE_TEXT = st.text(alphabet="andor3  -.,;—'’", max_size=24)


@settings(max_examples=1000, deadline=None)
@given(BRIDGE_TEXT, st.data())
def test_bridge_boundary_matches_v2(text, data):
    tokens = tokenize(text)
    start = data.draw(st.integers(0, len(tokens)))
    end = data.draw(st.integers(start, len(tokens)))
    side = cgd._Side(text, tokens, [t.norm for t in tokens])
    expected = cgd_v2._bridge_has_boundary((text, text), (tokens, tokens), ((start, end),) * 2)
    assert cgd._bridge_has_boundary(side, start, end) == expected
