"""The v1 SPEC §2 decomposition (sitar 0.x up to the linear-memory rewrite), kept verbatim.

It allocates dense ``(n+1) x (m+1)`` int64 matrices per region, so it is quadratic in time and
memory, but it is a direct transcription of SPEC §2 that shipped and was checked against
``cgd_reference.py``. The property tests compare ``sitar.cgd.decompose`` with it on inputs too long
for the literal reference, and ``benchmarks/bench_cgd.py`` times it as the "v1" column.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sitar.cgd import AtomicGap

# --------------------------------------------------------------------------------------------
# SPEC §2: decomposition
# --------------------------------------------------------------------------------------------


def _match_lengths(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``L[p, q]`` = number of consecutive matches starting at ``u[p]``, ``v[q]``; shape (nu+1, nv+1)."""
    nu, nv = len(u), len(v)
    lengths = np.zeros((nu + 1, nv + 1), dtype=np.int64)
    for p in range(nu - 1, -1, -1):
        # Row p from row p+1: L[p, q] = (u[p] == v[q]) * (1 + L[p+1, q+1]).
        lengths[p, :nv] = (v == u[p]) * (1 + lengths[p + 1, 1:])
    return lengths


def _candidates(u: np.ndarray, v: np.ndarray, lengths: np.ndarray) -> list[tuple[int, int, int]]:
    """Left-maximal blocks at full right extension, ``l_min = 2`` then 1 (SPEC §2.2), sorted by
    ``(p, q, -l)`` (SPEC §2.3)."""
    core = lengths[: len(u), : len(v)]
    left_maximal = np.ones_like(core, dtype=bool)
    if len(u) and len(v):
        # (p, q) with p > 0 and q > 0 is left-maximal iff u[p-1] != v[q-1], i.e. L[p-1, q-1] == 0.
        left_maximal[1:, 1:] = core[:-1, :-1] == 0
    for l_min in (2, 1):
        ps, qs = np.nonzero((core >= l_min) & left_maximal)
        if len(ps):
            # np.nonzero is row-major, so this is already (p, q) order; each (p, q) has one length.
            return [(int(p), int(q), int(core[p, q])) for p, q in zip(ps, qs, strict=True)]
    return []


def _best_chain(cands: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Chain DP of SPEC §2.4: the non-overlapping, increasing chain of greatest total length, with
    the earliest-index tie-breaks for predecessors and for the backtracking start."""
    k = len(cands)
    p = np.fromiter((c[0] for c in cands), dtype=np.int64, count=k)
    q = np.fromiter((c[1] for c in cands), dtype=np.int64, count=k)
    ell = np.fromiter((c[2] for c in cands), dtype=np.int64, count=k)
    end_p, end_q = p + ell, q + ell
    f = np.zeros(k, dtype=np.int64)
    pred = np.full(k, -1, dtype=np.int64)
    for i in range(k):
        # A valid predecessor ends before i starts in both sequences; it sorts before i, so only
        # j < i can qualify. argmax returns the first (earliest) j attaining the maximum.
        ok = (end_p[:i] <= p[i]) & (end_q[:i] <= q[i])
        if ok.any():
            vals = np.where(ok, f[:i], -1)
            j = int(np.argmax(vals))
            f[i] = ell[i] + vals[j]
            pred[i] = j
        else:
            f[i] = ell[i]
    i = int(np.argmax(f))  # earliest index in argmax f
    chain = []
    while i >= 0:
        chain.append(cands[i])
        i = int(pred[i])
    return chain[::-1]


def _prefix_edit_distance(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``E[a, b]`` = unit-cost edit distance of ``(u[:a], v[:b])``; shape (nu+1, nv+1)."""
    nu, nv = len(u), len(v)
    cols = np.arange(nv + 1, dtype=np.int64)
    dist = np.empty((nu + 1, nv + 1), dtype=np.int64)
    dist[0] = cols
    for a in range(1, nu + 1):
        prev = dist[a - 1]
        # Deletion and substitution come from the previous row; insertion is a running minimum
        # along the row: E[a, b] = min_k (tmp[k] + b - k) = cummin(tmp - k) + b.
        tmp = np.empty(nv + 1, dtype=np.int64)
        tmp[0] = a
        tmp[1:] = np.minimum(prev[1:] + 1, prev[:-1] + (v != u[a - 1]))
        dist[a] = np.minimum.accumulate(tmp - cols) + cols
    return dist


def _retained_pairs(
    u: np.ndarray, v: np.ndarray, chain: list[tuple[int, int, int]]
) -> list[tuple[int, int]]:
    """Edit-distance filter of SPEC §2.5: keep matched pairs that lie on a minimum-cost edit path."""
    forward = _prefix_edit_distance(u, v)
    # The suffix distance E-[a, b] of (u[a:], v[b:]) is the prefix distance of the reversed strings.
    backward = _prefix_edit_distance(u[::-1], v[::-1])[::-1, ::-1]
    total = forward[len(u), len(v)]
    kept = []
    for p0, q0, ell in chain:
        for k in range(ell):
            p, q = p0 + k, q0 + k
            if forward[p, q] + backward[p + 1, q + 1] == total:
                kept.append((p, q))
    return kept


def _anchor_blocks(pairs: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """Maximal runs ``(p, q, length)`` of retained pairs contiguous in both sequences (SPEC §2.6)."""
    blocks: list[tuple[int, int, int]] = []
    for p, q in pairs:
        if blocks:
            bp, bq, bl = blocks[-1]
            if p == bp + bl and q == bq + bl:
                blocks[-1] = (bp, bq, bl + 1)
                continue
        blocks.append((p, q, 1))
    return blocks


def _encode(ref: Sequence[str], hyp: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    ids: dict[str, int] = {}
    u = np.fromiter((ids.setdefault(w, len(ids)) for w in ref), dtype=np.int64, count=len(ref))
    v = np.fromiter((ids.setdefault(w, len(ids)) for w in hyp), dtype=np.int64, count=len(hyp))
    return u, v


def decompose(ref: Sequence[str], hyp: Sequence[str]) -> list[AtomicGap]:
    """SPEC §2: the ordered atomic gaps of two normalized token sequences.

    >>> decompose(["do", "not", "send", "it"], ["do", "send", "it"])
    [AtomicGap(ref=(1, 2), hyp=(1, 1))]
    """
    u_all, v_all = _encode(ref, hyp)
    gaps: list[AtomicGap] = []
    # Explicit stack instead of recursion (long inputs); sub-regions are pushed right to left so
    # that terminal regions pop out left to right.
    stack = [(0, len(u_all), 0, len(v_all))]
    while stack:
        rs, re, hs, he = stack.pop()
        u, v = u_all[rs:re], v_all[hs:he]
        cands = _candidates(u, v, _match_lengths(u, v)) if len(u) and len(v) else []
        blocks = _anchor_blocks(_retained_pairs(u, v, _best_chain(cands))) if cands else []
        if not blocks:
            if re > rs or he > hs:
                gaps.append(AtomicGap((rs, re), (hs, he)))
            continue
        subregions = []
        prev_p = prev_q = 0
        for p, q, ell in blocks:
            subregions.append((rs + prev_p, rs + p, hs + prev_q, hs + q))
            prev_p, prev_q = p + ell, q + ell
        subregions.append((rs + prev_p, re, hs + prev_q, he))
        stack.extend(r for r in reversed(subregions) if r[0] < r[1] or r[2] < r[3])
    return gaps
