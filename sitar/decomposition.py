"""SPEC §2: the decomposition step of CGD (:mod:`sitar.cgd`), a pair of normalised token
sequences cut into atomic gaps.

:func:`decompose` recursively anchors on long common word blocks that lie on a minimum-cost edit
path and returns the terminal regions as :class:`AtomicGap` objects; :func:`sitar.cgd.segment`
consolidates them (SPEC §3).

How the decomposition stays exact without the ``(n+1) x (m+1)`` matrices SPEC §2 is written with
(memory O(n + m + K) per region, K the number of candidate blocks; time near-linear for long
pairs with few errors):

- *Candidates* (§2.2) are the maximal diagonal match runs, found from the cells where a common
  bigram starts (hash join on bigram codes, in row chunks of bounded size), or from single matches
  when the region has no common bigram. Nothing is allocated per cell of the region.
- *Chain DP* (§2.4) is a 2-D dominance maximum: a sweep over ``p`` with a Fenwick tree over the
  end ``q``, whose keys encode the spec's earliest-index tie-breaks. In large regions a chain
  near the main diagonal gives a floor on the optimum, and candidates that provably cannot reach
  it are dropped; the proof that this never changes the chosen chain is in :func:`_best_chain`.
- *Filter* (§2.5): every pair of a chain block passes or fails together (``E+`` and ``E-`` are
  constant along a run of matches), so one test per block suffices. It is settled by exact
  certificates where possible -- the chain's own path being optimal, the diagonal band, the
  bound from one optimal alignment computed by rapidfuzz -- and otherwise by exact prefix and
  suffix distances from a bit-parallel (Myers/Hyyrö) sweep over only the rows and columns needed.
  See :func:`_retained_blocks`.

Every shortcut decides exactly what SPEC §2 decides; none is a heuristic that may differ. The
property tests compare this code with the literal reference (``tests/reference/cgd_reference.py``)
and with the previous dense implementation (``tests/reference/cgd_exact_v1.py``), with each code
path forced on.

Everything here is deterministic: same inputs, same output.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, count, groupby, pairwise, repeat
from operator import countOf, sub

import numpy as np
from rapidfuzz.distance import Levenshtein

from sitar.gaps import Interval
from sitar.text import _alloc, _consume, slot_setter

__all__ = ["AtomicGap", "decompose"]


@dataclass(frozen=True, slots=True)
class AtomicGap:
    """A terminal region of the decomposition: global half-open token intervals on both sides."""

    ref: Interval
    hyp: Interval


#: Regions with at most this many cells (len(u) * len(v)) enumerate candidates in plain Python,
#: and so do those of at most :data:`_MID_REGION_TOKENS` tokens (both sides) with at most
#: :data:`_SMALL_REGION_START_CELLS` cells where a candidate can start; the others use numpy.
#: Both give the same candidates; the split is only about call overhead (numpy's is fixed,
#: Python's grows with the start cells, and counting them costs a few passes over the region).
_SMALL_REGION_CELLS = 4096
_MID_REGION_TOKENS = 512
_SMALL_REGION_START_CELLS = 256


def _candidates_small(
    u: list[int], v: list[int], max_cells: int | None = None
) -> list[tuple[int, int, int]] | None:
    """SPEC §2.2-2.3 for a small region: left-maximal blocks at full right extension with
    ``l_min = 2``, else 1, in ``(p, q)`` order (each start has one length, so ``-l`` never decides).

    None when the region has more than ``max_cells`` cells that start a common bigram (or, when
    none does, that match): the cells this enumeration may visit one by one.
    """
    nu, nv = len(u), len(v)
    if nu >= 2 and nv >= 2:
        v_bigrams = list(pairwise(v))
        where = dict(zip(v_bigrams, count()))
        if len(where) == nv - 1:
            # Every bigram of v occurs once, so each p starts a common bigram with at most one
            # q = where[u[p], u[p+1]]. A block (p, q, l) is then a run of l - 1 consecutive p
            # whose bigram cells lie on one diagonal q - p: group p by that diagonal (groupby
            # runs in C; the loop below sees one item per block or per unmatched p).
            qs = list(map(where.get, pairwise(u), repeat(_NO_Q)))
            if max_cells is not None and nu - 1 - countOf(qs, _NO_Q) > max_cells:
                return None
            cands = []
            p = 0
            for diagonal, run in groupby(map(sub, qs, count())):
                cells = len(list(run))
                if diagonal > _NO_DIAGONAL:
                    cands.append((p, p + diagonal, cells + 1))
                p += cells
            if cands:
                return cands
        else:
            starts: dict[tuple[int, int], list[int]] = {}
            for q, bigram in enumerate(v_bigrams):
                starts.setdefault(bigram, []).append(q)
            rows: list[Sequence[int]] = list(map(starts.get, pairwise(u), repeat(())))
            if max_cells is not None and sum(map(len, rows)) > max_cells:
                return None
            cands = _bigram_blocks(u, v, rows)
            if cands:
                return cands
    # No common bigram: every single match is a block of length 1, and left-maximal (otherwise
    # it would extend a common bigram).
    where_one: dict[int, list[int]] = {}
    for q, t in enumerate(v):
        where_one.setdefault(t, []).append(q)
    if max_cells is not None and sum(map(len, map(where_one.get, u, repeat(())))) > max_cells:
        return None
    return [(p, q, 1) for p, t in enumerate(u) for q in where_one.get(t, ())]


#: Stand-in for "no q" in :func:`_candidates_small`: its diagonals ``_NO_Q - p`` lie far below
#: every real diagonal ``q - p >= -p``.
_NO_Q = -(1 << 62)
_NO_DIAGONAL = _NO_Q // 2


def _bigram_blocks(
    u: list[int], v: list[int], rows: list[Sequence[int]]
) -> list[tuple[int, int, int]]:
    """The candidates of :func:`_candidates_small` with ``l >= 2``, for a ``v`` whose bigrams
    repeat: every left-maximal cell that starts a common bigram, extended to its full run.
    ``rows[p]``: the starts ``q`` in ``v`` of the bigram that starts at ``p`` in ``u``."""
    nu, nv = len(u), len(v)
    cands = []
    for p in compress(count(), rows):
        for q in rows[p]:
            if p and q and u[p - 1] == v[q - 1]:
                continue  # not left-maximal: (p, q) continues the block at (p-1, q-1)
            ell = 2
            while p + ell < nu and q + ell < nv and u[p + ell] == v[q + ell]:
                ell += 1
            cands.append((p, q, ell))
    return cands


#: Transient memory bound for candidate enumeration in large regions: rows are processed in
#: chunks holding at most this many cells that start a common bigram.
_CHUNK_CELLS = 1 << 20


def _candidates_large(u: list[int], v: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_candidates_small` for large regions, as ``(p, q, length)`` arrays in ``(p, q)``
    order, vectorized over the cells where a common bigram starts. Rows are taken in chunks of at
    most :data:`_CHUNK_CELLS` such cells (or one row), so transient memory never grows with
    ``len(u) * len(v)``."""
    ua = np.asarray(u, dtype=np.int64)
    va = np.asarray(v, dtype=np.int64)
    nu = len(ua)
    base = int(max(ua.max(), va.max())) + 1
    bu, bv = ua[:-1] * base + ua[1:], va[:-1] * base + va[1:]
    order = np.argsort(bv, kind="stable")
    sbv = bv[order]
    lo = np.searchsorted(sbv, bu, side="left")
    counts = np.searchsorted(sbv, bu, side="right") - lo
    if not counts.any():
        # No common bigram: every single match is a block of length 1 (see _candidates_small).
        ps, qs = _equal_cells(ua, va)
        return ps, qs, np.ones(len(ps), dtype=np.int64)
    cum = np.cumsum(counts)
    out_p, out_q, out_l = [], [], []
    row = 0
    while row < nu - 1:
        limit = (int(cum[row - 1]) if row else 0) + _CHUNK_CELLS
        stop = max(row + 1, int(np.searchsorted(cum, limit, side="right")))
        c = counts[row:stop]
        total = int(c.sum())
        if total:
            ps = np.repeat(np.arange(row, stop, dtype=np.int64), c)
            offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(c) - c, c)
            qs = order[np.repeat(lo[row:stop], c) + offsets].astype(np.int64)
            # Runs of bigram cells along a diagonal: a run of r cells from (p, q) is the block
            # (p, q, r + 1), unless it continues past the chunk (extended below).
            by_diag = np.lexsort((ps, qs - ps))
            ps, qs = ps[by_diag], qs[by_diag]
            first = np.ones(total, dtype=bool)
            first[1:] = (np.diff(ps) != 1) | (np.diff(qs - ps) != 0)
            starts = np.flatnonzero(first)
            cells = np.diff(np.append(starts, total))
            bp, bq, bl = ps[starts], qs[starts], cells + 1
            # Left-maximal only (a run at the chunk's first row may continue an earlier one).
            inner = (bp > 0) & (bq > 0)
            keep = ~inner
            keep[inner] = ua[bp[inner] - 1] != va[bq[inner] - 1]
            bp, bq, bl = bp[keep], bq[keep], bl[keep]
            open_ = np.flatnonzero(bp + bl - 2 == stop - 1)  # last bigram cell on the last row
            if len(open_):
                bl[open_] = _extend_runs(ua, va, bp[open_], bq[open_], bl[open_])
            by_start = np.lexsort((bq, bp))
            out_p.append(bp[by_start])
            out_q.append(bq[by_start])
            out_l.append(bl[by_start])
        row = stop
    return np.concatenate(out_p), np.concatenate(out_q), np.concatenate(out_l)


def _extend_runs(
    ua: np.ndarray, va: np.ndarray, ps: np.ndarray, qs: np.ndarray, lengths: np.ndarray
) -> np.ndarray:
    """Extend match runs of current ``lengths`` from ``(p, q)`` to their full length."""
    nu, nv = len(ua), len(va)
    lengths = lengths.copy()
    active = np.arange(len(ps))
    while len(active):
        a_p, a_q = ps[active] + lengths[active], qs[active] + lengths[active]
        inside = (a_p < nu) & (a_q < nv)
        active, a_p, a_q = active[inside], a_p[inside], a_q[inside]
        active = active[ua[a_p] == va[a_q]]
        lengths[active] += 1
    return lengths


def _equal_cells(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All ``(i, j)`` with ``a[i] == b[j]``, sorted by ``(i, j)``."""
    order = np.argsort(b, kind="stable")
    sb = b[order]
    lo = np.searchsorted(sb, a, side="left")
    counts = np.searchsorted(sb, a, side="right") - lo
    total = int(counts.sum())
    if total == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    i = np.repeat(np.arange(len(a), dtype=np.int64), counts)
    # Position inside each i's run of equal b values, shifted to that run's start in sb.
    offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return i, order[np.repeat(lo, counts) + offsets].astype(np.int64)


def _best_chain(
    ps: list[int], qs: list[int], ls: list[int], nu: int, nv: int, floor: int = 0
) -> list[tuple[int, int, int]]:
    """Chain DP of SPEC §2.4 over candidates ``(ps[i], qs[i], ls[i])`` in ``(p, q)`` order: the
    non-overlapping, increasing chain of greatest total length, with the earliest-index tie-breaks
    for predecessors and for the backtracking start.

    ``f_i = l_i + max f_j`` over ``j`` ending before ``i`` starts in both sequences. Every
    predecessor of ``i`` ends at or before ``p_i``, so each ``j`` enters a prefix-maximum Fenwick
    tree over its end ``q`` once the sweep reaches its end ``p``; a query at ``q_i`` then covers
    exactly the valid predecessors. The tree stores ``f_j * (k + 1) + (k - j)``, whose maximum is
    the largest ``f_j`` and, among those, the earliest ``j``: the spec's tie-break. O(k log nv)
    time, O(k + nv) memory.

    ``floor`` is a lower bound on the best total (the total of any valid chain). A candidate
    whose ``f_i`` plus the most the rest of the region could add (``min`` of the tokens left on
    either side) stays below it lies on no optimal chain; it is kept out of the tree. This never
    changes the result: by induction along the returned chain, its members keep their exact
    ``f`` and are still the earliest maximizers, and no other value can grow.
    """
    k = len(ps)
    if not k:
        return []
    scale = k + 1
    tree = [0] * (nv + 1)  # 1-based Fenwick over end q in 1..nv; 0 means "no predecessor"
    ends = [p + ell for p, ell in zip(ps, ls, strict=True)]
    by_end = sorted(range(k), key=ends.__getitem__)
    f = [0] * k
    pred = [-1] * k
    t = 0
    best_i, best_f = 0, -1
    for i in range(k):
        p = ps[i]
        while t < k and ends[by_end[t]] <= p:
            j = by_end[t]
            t += 1
            code = f[j]
            if code == 0:  # pruned
                continue
            code = code * scale + (k - j)
            pos = qs[j] + ls[j]
            while pos <= nv:
                if tree[pos] < code:
                    tree[pos] = code
                pos += pos & -pos
        top = 0
        pos = qs[i]
        while pos > 0:
            if tree[pos] > top:
                top = tree[pos]
            pos -= pos & -pos
        ell = ls[i]
        if top:
            fi = ell + top // scale
            pred[i] = k - top % scale
        else:
            fi = ell
        if fi > best_f:  # strict: the earliest i in argmax f
            best_i, best_f = i, fi
        end_p = p + ell
        end_q = qs[i] + ell
        if fi + min(nu - end_p, nv - end_q) >= floor:
            f[i] = fi  # f[i] == 0 marks a pruned candidate (every real f is >= 1)
    chain = []
    i = best_i
    while i >= 0:
        chain.append((ps[i], qs[i], ls[i]))
        i = pred[i]
    return chain[::-1]


def _prefix_distances_at(u: list[int], v: list[int], points: list[tuple[int, int]]) -> list[int]:
    """Unit-cost edit distance of ``(u[:a], v[:b])`` for each ``(a, b)`` in ``points`` (sorted by
    ``a``), in one sweep over ``u`` with the bit-parallel algorithm of Myers (1999) in Hyyrö's
    global form. Bit ``i`` of ``vp``/``vn`` says that column ``a`` of the DP rises/falls from row
    ``i`` to ``i + 1``, so ``E[a][b] = a + popcount(vp & low b bits) - popcount(vn & low b bits)``.
    O(len(u) * len(v) / 64) word operations, O(len(v)) bits of state plus one mask per token.
    """
    m = len(v)
    mask = (1 << m) - 1
    peq: dict[int, int] = {}
    for q, tok in enumerate(v):
        peq[tok] = peq.get(tok, 0) | (1 << q)
    out = [0] * len(points)
    order = sorted(range(len(points)), key=lambda i: points[i][0])
    vp, vn = mask, 0
    t = 0
    for a in range(len(u) + 1):
        if a:
            eq = peq.get(u[a - 1], 0)
            d0 = ((((eq & vp) + vp) ^ vp) | eq | vn) & mask
            hp = (vn | ~(d0 | vp)) & mask
            hn = vp & d0
            x = ((hp << 1) | 1) & mask
            vn = x & d0
            vp = ((hn << 1) | ~(x | d0)) & mask
        while t < len(order) and points[order[t]][0] == a:
            b = points[order[t]][1]
            low = (1 << b) - 1
            out[order[t]] = a + (vp & low).bit_count() - (vn & low).bit_count()
            t += 1
    return out


def _retained_blocks(
    u: list[int], v: list[int], chain: list[tuple[int, int, int]]
) -> list[tuple[int, int, int]]:
    """Edit-distance filter of SPEC §2.5 and anchor blocks of §2.6, decided block by block.

    Along a chain block every step is a match, so ``E+`` is constant on its pairs and so is
    ``E-`` one step later: all pairs of a block pass the filter or none does, by the single test
    ``E+[start] + E-[end] == D``. Chain blocks are never adjacent in both sequences (a block is a
    maximal match run), so the retained blocks are exactly the anchor blocks.

    The test is settled by the cheapest of these exact arguments, in order:

    1. *Chain certificate.* Aligning the gaps between chain blocks optimally gives a path through
       every block of cost ``C >= D``; if ``C == D`` that path is optimal and every block passes
       (``C == |nu - nv|``, a lower bound on ``D``, shows it without computing ``D``).
    2. *Band.* A pair ``(p, q)`` on an optimal path has ``E+ >= |q - p|`` and
       ``E- >= |(nv - q) - (nu - p)|``; a block whose diagonal breaks that bound fails.
    3. *One optimal alignment* ``P`` (rapidfuzz opcodes), whose cells have exact ``E+`` (and
       ``E- = D - E+``). With ``y`` the last cell of ``P`` at or before the block's start and
       ``z`` the first at or after its end, ``E+[start] + E-[end] <= E+[y] + lev(y, start) +
       lev(end, z) + E-[z]``; a block whose bound is ``D`` passes (every block ``P`` walks
       through has bound ``D``).
    4. *Exact values* for the blocks still open: ``E+`` at their starts and ``E-`` at their ends
       from one forward and one backward bit-parallel sweep (:func:`_prefix_distances_at`),
       limited to the rows and columns those points need.
    """
    nu, nv = len(u), len(v)
    gap_cost = 0
    prev_p = prev_q = 0
    for p, q, ell in [*chain, (nu, nv, 0)]:
        gap_cost += _levenshtein(u[prev_p:p], v[prev_q:q])
        prev_p, prev_q = p + ell, q + ell
    # D <= gap_cost (the chain's path is an alignment) and D >= |nu - nv|: at equality with the
    # bound the chain's path is optimal without computing D.
    if gap_cost == abs(nu - nv):
        return chain
    total = Levenshtein.distance(u, v, score_cutoff=gap_cost)
    if total == gap_cost:
        return chain
    skew = nv - nu
    open_blocks = [b for b in chain if abs(b[1] - b[0]) + abs(skew - (b[1] - b[0])) <= total]
    if not open_blocks:
        return []
    path_a, path_b, path_cost = _optimal_path(u, v)
    kept: list[tuple[int, int, int]] = []
    unsure: list[tuple[int, int, int]] = []
    for block in open_blocks:
        p, q, ell = block
        y = min(bisect_right(path_a, p), bisect_right(path_b, q)) - 1
        z = max(bisect_left(path_a, p + ell), bisect_left(path_b, q + ell))
        bound = (
            path_cost[y]
            + _levenshtein(u[path_a[y] : p], v[path_b[y] : q])
            + _levenshtein(u[p + ell : path_a[z]], v[q + ell : path_b[z]])
            + total
            - path_cost[z]
        )
        (kept if bound == total else unsure).append(block)
    if unsure:
        a_max = max(p for p, _, _ in unsure)
        b_max = max(q for _, q, _ in unsure)
        forward = _prefix_distances_at(u[:a_max], v[:b_max], [(p, q) for p, q, _ in unsure])
        a_min = min(p + ell for p, _, ell in unsure)
        b_min = min(q + ell for _, q, ell in unsure)
        backward = _prefix_distances_at(
            u[a_min:][::-1],
            v[b_min:][::-1],
            [(nu - p - ell, nv - q - ell) for p, q, ell in unsure],
        )
        for block, e_in, e_out in zip(unsure, forward, backward, strict=True):
            if e_in + e_out == total:
                kept.append(block)
        kept.sort()
    return kept


def _optimal_path(u: list[int], v: list[int]) -> tuple[list[int], list[int], list[int]]:
    """One minimum-cost edit path (rapidfuzz) as its cells ``(a, b)`` from ``(0, 0)`` to
    ``(nu, nv)`` with the cost so far, which is the exact ``E+`` there; both coordinates are
    non-decreasing along the path."""
    path_a, path_b, path_cost = [0], [0], [0]
    a = b = cost = 0
    for op in Levenshtein.opcodes(u, v):
        tag, a1, b1 = op.tag, op.src_end, op.dest_end
        step = 0 if tag == "equal" else 1
        while a < a1 or b < b1:
            # equal/replace move diagonally; delete moves along u; insert along v.
            a += a < a1
            b += b < b1
            cost += step
            path_a.append(a)
            path_b.append(b)
            path_cost.append(cost)
    return path_a, path_b, path_cost


def _levenshtein(a: list[int], b: list[int]) -> int:
    if not a or not b:
        return len(a) + len(b)
    # One token against a sequence: all but at most one of the sequence's tokens are inserted
    # (or deleted), and the one token is matched if it occurs there, else substituted.
    if len(a) == 1:
        return len(b) - (a[0] in b)
    if len(b) == 1:
        return len(a) - (b[0] in a)
    return Levenshtein.distance(a, b)


#: Regions with more candidates than this first compute a lower bound on the best chain from the
#: candidates near the main diagonal, then prune with it (:func:`_best_chain`); below it the
#: plain DP is cheaper.
_PRUNE_MIN_CANDIDATES = 2048


def _region_anchors(u: list[int], v: list[int]) -> list[tuple[int, int, int]]:
    """SPEC §2.1-2.6 on one region: its anchor blocks ``(p, q, length)`` in local indices."""
    if not u or not v:
        return []
    if u == v:
        # The whole region is one block, the only chain of full length; D = 0 keeps it.
        return [(0, 0, len(u))]
    nu, nv = len(u), len(v)
    small = nu * nv <= _SMALL_REGION_CELLS
    if small and set(u).isdisjoint(v):
        return []  # no common token, no candidate (most regions between anchors)
    if small:
        cands = _candidates_small(u, v)
    elif nu + nv <= _MID_REGION_TOKENS:
        cands = _candidates_small(u, v, _SMALL_REGION_START_CELLS)
    else:
        cands = None
    if cands is not None:
        if not cands:
            return []
        for (p0, q0, l0), (p1, q1, _) in pairwise(cands):
            if p1 < p0 + l0 or q1 < q0 + l0:
                ps, qs, ls = (list(c) for c in zip(*cands, strict=True))
                return _retained_blocks(u, v, _best_chain(ps, qs, ls, nu, nv))
        # The candidates form one increasing, non-overlapping chain: it is the unique chain of
        # greatest total (every other chain is a proper subset of it), so the DP returns it.
        return _retained_blocks(u, v, cands)
    pa, qa, la = _candidates_large(u, v)
    if not len(pa):
        return []
    floor = 0
    if len(pa) > _PRUNE_MIN_CANDIDATES:
        # Any chain's total is a valid floor; the best chain among candidates close to the
        # straight line from (0, 0) to (nu, nv) is usually close to the optimum.
        width = 64 + int(4 * (nu + nv) ** 0.5)
        near = np.abs(qa - pa - (pa * (nv - nu)) // nu) <= width
        if near.any():
            sub = _best_chain(pa[near].tolist(), qa[near].tolist(), la[near].tolist(), nu, nv)
            floor = sum(ell for _, _, ell in sub)
        # Static bound: a chain through a candidate adds at most min(p, q) before it and the
        # shorter remainder after it.
        bound = la + np.minimum(pa, qa) + np.minimum(nu - pa - la, nv - qa - la)
        keep = bound >= floor
        pa, qa, la = pa[keep], qa[keep], la[keep]
    chain = _best_chain(pa.tolist(), qa.tolist(), la.tolist(), nu, nv, floor)
    return _retained_blocks(u, v, chain)


def _encode(ref: Sequence[str], hyp: Sequence[str]) -> tuple[list[int], list[int]]:
    """Both sequences as integer ids: equal tokens get equal ids, different tokens different ids
    (each token's id is the position of its first occurrence in ``ref`` then ``hyp``)."""
    ids: dict[str, int] = {}
    positions = count()  # shared: setdefault draws one value per token, kept for new tokens only
    return list(map(ids.setdefault, ref, positions)), list(map(ids.setdefault, hyp, positions))


def decompose(ref: Sequence[str], hyp: Sequence[str]) -> list[AtomicGap]:
    """SPEC §2: the ordered atomic gaps of two normalized token sequences.

    >>> decompose(["do", "not", "send", "it"], ["do", "send", "it"])
    [AtomicGap(ref=(1, 2), hyp=(1, 1))]
    """
    u_all, v_all = _encode(ref, hyp)
    refs: list[Interval] = []
    hyps: list[Interval] = []
    # Explicit stack instead of recursion (long inputs); sub-regions are pushed right to left so
    # that terminal regions pop out left to right.
    stack = [(0, len(u_all), 0, len(v_all))]
    while stack:
        rs, re, hs, he = stack.pop()
        # Most regions between anchors are tiny; settle the trivial ones without a call. A region
        # with an empty side has no candidates.
        if rs == re or hs == he:
            if re > rs or he > hs:
                refs.append((rs, re))
                hyps.append((hs, he))
            continue
        # One token t on a side: the candidates are its matches on the other side, blocks of
        # length 1 that no chain can combine; the DP keeps the earliest, and it passes the filter
        # (any one match lies on an optimal path, of cost n - 1 for the n tokens of the other
        # side). So the first occurrence of t is the anchor, and both sub-regions are terminal.
        if re - rs == 1 or he - hs == 1:
            if re - rs == 1:
                token, others, offset = u_all[rs], v_all[hs:he], hs
            else:
                token, others, offset = v_all[hs], u_all[rs:re], rs
            if token not in others:
                refs.append((rs, re))
                hyps.append((hs, he))
                continue
            first = offset + others.index(token)
            p, q = (rs, first) if re - rs == 1 else (first, hs)
            if p > rs or q > hs:
                refs.append((rs, p))
                hyps.append((hs, q))
            if p + 1 < re or q + 1 < he:
                refs.append((p + 1, re))
                hyps.append((q + 1, he))
            continue
        blocks = _region_anchors(u_all[rs:re], v_all[hs:he])
        if not blocks:
            refs.append((rs, re))
            hyps.append((hs, he))
            continue
        subregions = []
        prev_p = prev_q = 0
        for p, q, ell in blocks:
            subregions.append((rs + prev_p, rs + p, hs + prev_q, hs + q))
            prev_p, prev_q = p + ell, q + ell
        subregions.append((rs + prev_p, re, hs + prev_q, he))
        stack.extend(r for r in reversed(subregions) if r[0] < r[1] or r[2] < r[3])
    return _atomic_gaps(refs, hyps)


def _atomic_gaps(refs: list[Interval], hyps: list[Interval]) -> list[AtomicGap]:
    """``[AtomicGap(r, h) for r, h in zip(refs, hyps)]``, built without running the dataclass
    ``__init__`` per gap (see :func:`sitar.text._tokenize`): the same objects."""
    gaps = list(map(_alloc, repeat(AtomicGap, len(refs))))
    _consume(map(_SET_ATOM_REF, gaps, refs))
    _consume(map(_SET_ATOM_HYP, gaps, hyps))
    return gaps


_SET_ATOM_REF = slot_setter(AtomicGap, "ref")
_SET_ATOM_HYP = slot_setter(AtomicGap, "hyp")
