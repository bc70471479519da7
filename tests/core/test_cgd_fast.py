"""The linear-memory CGD decomposition against the v1 dense implementation and the literal
reference, on every code path: small and large regions, chunked candidate enumeration, pruned
chain DP, and each way the edit-distance filter is settled (chain certificate, band, one optimal
path, bit-parallel sweeps)."""

from __future__ import annotations

import random

import pytest
from cgd_exact_v1 import decompose as decompose_v1
from cgd_reference import reference_decompose
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import sitar.decomposition as decomposition


def _gaps(fn, u, v):
    return [(g.ref, g.hyp) for g in fn(u, v)]


@pytest.fixture
def force_large_paths(monkeypatch):
    """Send every region through the numpy enumeration in tiny chunks and the pruned chain DP."""
    monkeypatch.setattr(decomposition, "_SMALL_REGION_CELLS", 0)
    monkeypatch.setattr(decomposition, "_SMALL_REGION_START_CELLS", -1)
    monkeypatch.setattr(decomposition, "_PRUNE_MIN_CANDIDATES", 0)
    monkeypatch.setattr(decomposition, "_CHUNK_CELLS", 3)


@pytest.fixture
def path_counter(monkeypatch):
    """Count how the filter was settled, to show the tests reach the bit-parallel fallback."""
    counts = {"sweeps": 0}
    original = decomposition._prefix_distances_at

    def counting(u, v, points):
        counts["sweeps"] += 1
        return original(u, v, points)

    monkeypatch.setattr(decomposition, "_prefix_distances_at", counting)
    return counts


# Small alphabets make repeated tokens (the hard case for anchoring) the rule, not the exception.
small_vocab_seq = st.integers(1, 4).flatmap(
    lambda k: st.lists(st.sampled_from("abcd"[:k]), min_size=0, max_size=16)
)


# The monkeypatch fixture holds for the whole test, across generated inputs, as intended.
FIXTURE_OK = [HealthCheck.function_scoped_fixture]


@settings(max_examples=400, deadline=None, suppress_health_check=FIXTURE_OK)
@given(small_vocab_seq, small_vocab_seq)
@example(["d", "d", "a", "a", "b", "c"], ["a", "a", "b", "d", "d", "d", "b", "d"])
@example(["b"] * 8, ["a", "b", "a"])
@example(["a", "b", "a", "b"], ["b", "a", "b", "a"])
def test_large_paths_match_literal_reference(force_large_paths, u, v):
    assert _gaps(decomposition.decompose, u, v) == reference_decompose(u, v)


@settings(max_examples=400, deadline=None, suppress_health_check=FIXTURE_OK)
@given(small_vocab_seq, small_vocab_seq)
@example(["a", "b", "a", "b", "a", "b"], ["b", "a", "b", "a", "b"])
def test_start_cell_routing_matches_literal_reference(monkeypatch, u, v):
    # Every region is "large" by area, so the number of start cells alone picks Python (at most
    # 6) or numpy: both routes, on the same kinds of input.
    monkeypatch.setattr(decomposition, "_SMALL_REGION_CELLS", 0)
    monkeypatch.setattr(decomposition, "_SMALL_REGION_START_CELLS", 6)
    assert _gaps(decomposition.decompose, u, v) == reference_decompose(u, v)


@settings(max_examples=400, deadline=None)
@given(small_vocab_seq, small_vocab_seq, st.integers(0, 12))
def test_small_candidates_decline_only_above_the_cell_limit(u, v, max_cells):
    uids, vids = (["abcd".index(t) for t in seq] for seq in (u, v))
    full = decomposition._candidates_small(uids, vids)
    limited = decomposition._candidates_small(uids, vids, max_cells)
    bigram_cells = sum(
        uids[p : p + 2] == vids[q : q + 2] for p in range(len(u) - 1) for q in range(len(v) - 1)
    )
    matches = sum(a == b for a in uids for b in vids)
    assert limited is None if (bigram_cells or matches) > max_cells else limited == full


@settings(max_examples=300, deadline=None)
@given(small_vocab_seq, small_vocab_seq)
def test_default_paths_match_v1(u, v):
    assert _gaps(decomposition.decompose, u, v) == _gaps(decompose_v1, u, v)


@st.composite
def long_related(draw, max_len=400):
    """A long sequence over a small vocabulary and an edited copy (drops, substitutions,
    insertions, repeated stretches), like a long transcript with recognition errors."""
    vocab = draw(st.sampled_from([3, 6, 20, 200]))
    n = draw(st.integers(0, max_len))
    seed = draw(st.integers(0, 2**32 - 1))
    rate = draw(st.sampled_from([0.0, 0.02, 0.1, 0.3, 0.8]))
    rng = random.Random(seed)
    u = [f"w{rng.randrange(vocab)}" for _ in range(n)]
    v = []
    for i, w in enumerate(u):
        r = rng.random()
        if r >= rate:
            v.append(w)
        elif r < rate / 4:
            continue
        elif r < rate / 2:
            v.append(f"w{rng.randrange(vocab)}")
        elif r < 3 * rate / 4:
            v.extend([w, f"w{rng.randrange(vocab)}"])
        else:
            v.extend(u[max(0, i - rng.randrange(1, 6)) : i + 1])  # repeat a stretch
    return u, v


@settings(max_examples=60, deadline=None)
@given(long_related())
def test_long_pairs_match_v1(pair):
    u, v = pair
    assert _gaps(decomposition.decompose, u, v) == _gaps(decompose_v1, u, v)


@settings(max_examples=40, deadline=None, suppress_health_check=FIXTURE_OK)
@given(long_related(max_len=150))
def test_long_pairs_large_paths_match_v1(force_large_paths, pair):
    u, v = pair
    assert _gaps(decomposition.decompose, u, v) == _gaps(decompose_v1, u, v)


def test_pruning_without_candidates_near_the_diagonal(force_large_paths):
    # The only common block lies far off the main diagonal, so the floor chain has nothing to
    # start from; the result must still be the exact one.
    u = [f"x{i}" for i in range(300)] + [f"c{i}" for i in range(10)]
    v = [f"c{i}" for i in range(10)] + [f"y{i}" for i in range(300)]
    assert _gaps(decomposition.decompose, u, v) == _gaps(decompose_v1, u, v)


def test_fallback_sweep_is_exercised(path_counter):
    # Fixed pairs on which neither the chain certificate nor the optimal-path bound settles some
    # block, so the exact bit-parallel sweep decides; all must still agree with the reference.
    rng = random.Random(7)
    for _ in range(300):
        u = [rng.choice("abc") for _ in range(rng.randint(0, 14))]
        v = [rng.choice("abc") for _ in range(rng.randint(0, 14))]
        assert _gaps(decomposition.decompose, u, v) == reference_decompose(u, v)
    assert path_counter["sweeps"] > 0


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 3), max_size=40),
    st.lists(st.integers(0, 3), max_size=70),
    st.data(),
)
def test_bit_parallel_prefix_distances(u, v, data):
    # E+[a][b] of the textbook DP, at arbitrary points (unsorted, repeated).
    e = [[0] * (len(v) + 1) for _ in range(len(u) + 1)]
    for a in range(len(u) + 1):
        for b in range(len(v) + 1):
            if a == 0 or b == 0:
                e[a][b] = a + b
            else:
                e[a][b] = min(
                    e[a - 1][b] + 1, e[a][b - 1] + 1, e[a - 1][b - 1] + (u[a - 1] != v[b - 1])
                )
    points = data.draw(
        st.lists(st.tuples(st.integers(0, len(u)), st.integers(0, len(v))), max_size=12)
    )
    assert decomposition._prefix_distances_at(u, v, points) == [e[a][b] for a, b in points]


def test_chunked_candidates_equal_unchunked(monkeypatch):
    rng = random.Random(3)
    u = [rng.randrange(4) for _ in range(300)]
    v = [rng.randrange(4) for _ in range(280)]
    whole = [a.tolist() for a in decomposition._candidates_large(u, v)]
    monkeypatch.setattr(decomposition, "_CHUNK_CELLS", 5)
    chunked = [a.tolist() for a in decomposition._candidates_large(u, v)]
    assert chunked == whole
    small = decomposition._candidates_small(u, v)
    assert list(zip(*whole, strict=True)) == small


@pytest.mark.slow
def test_very_long_pair_matches_v1():
    # 3,000 tokens with repeats and 10 % edits: the top region exercises every certificate.
    rng = random.Random(11)
    u = [f"w{rng.randrange(50)}" for _ in range(3000)]
    v = [w for w in u if rng.random() > 0.05]
    for _ in range(150):
        v.insert(rng.randrange(len(v) + 1), f"w{rng.randrange(50)}")
    assert _gaps(decomposition.decompose, u, v) == _gaps(decompose_v1, u, v)
