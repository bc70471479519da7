"""Frozen copy of ``sitar/cgd.py`` as of commit efe927f (before the CGD speed work of issue #11
item 7), kept as the reference the faster code is checked against (``tests/core/test_cgd_speed.py``).
Only this docstring and the tokenizer import (the per-character ``text_v1``) differ from that
version. Do not optimise this file: its value is that it does not change.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Levenshtein
from text_v1 import tokenize

from sitar.analyzers import Analyzer, get_analyzer
from sitar.boundaries import BOUNDARY_PUNCTUATION, BOUNDARY_WORDS, BOUNDARY_WORDS_VERSION
from sitar.errors import InputError
from sitar.gaps import Gap, Interval, Segmentation
from sitar.text import Token, is_token_char

__all__ = [
    "BOUNDARY_PUNCTUATION",
    "BOUNDARY_WORDS",
    "BOUNDARY_WORDS_VERSION",
    "FRAGMENT_MAX_TOKENS",
    "AtomicGap",
    "consolidate_atoms",
    "decompose",
    "segment",
]

#: A fragment is an atomic gap with at most this many tokens on each side.
FRAGMENT_MAX_TOKENS = 3


@dataclass(frozen=True, slots=True)
class AtomicGap:
    """A terminal region of the decomposition: global half-open token intervals on both sides."""

    ref: Interval
    hyp: Interval


# --------------------------------------------------------------------------------------------
# SPEC §2: decomposition
# --------------------------------------------------------------------------------------------

#: Regions with at most this many cells (len(u) * len(v)) enumerate candidates in plain Python;
#: larger ones use numpy. Both give the same candidates; the split is only about call overhead.
_SMALL_REGION_CELLS = 4096


def _candidates_small(u: list[int], v: list[int]) -> list[tuple[int, int, int]]:
    """SPEC §2.2-2.3 for a small region: left-maximal blocks at full right extension with
    ``l_min = 2``, else 1, in ``(p, q)`` order (each start has one length, so ``-l`` never decides)."""
    nu, nv = len(u), len(v)
    if nu >= 2 and nv >= 2:
        starts: dict[tuple[int, int], list[int]] = {}
        for q in range(nv - 1):
            starts.setdefault((v[q], v[q + 1]), []).append(q)
        cands = []
        for p in range(nu - 1):
            qs = starts.get((u[p], u[p + 1]))
            if qs is None:
                continue
            for q in qs:
                if p and q and u[p - 1] == v[q - 1]:
                    continue  # not left-maximal: (p, q) continues the block at (p-1, q-1)
                ell = 2
                while p + ell < nu and q + ell < nv and u[p + ell] == v[q + ell]:
                    ell += 1
                cands.append((p, q, ell))
        if cands:
            return cands
    # No common bigram: every single match is a block of length 1, and left-maximal (otherwise
    # it would extend a common bigram).
    where: dict[int, list[int]] = {}
    for q, t in enumerate(v):
        where.setdefault(t, []).append(q)
    return [(p, q, 1) for p, t in enumerate(u) for q in where.get(t, ())]


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
       every block of cost ``C >= D``; if ``C == D`` that path is optimal and every block passes.
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
    if nu * nv <= _SMALL_REGION_CELLS:
        cands = _candidates_small(u, v)
        if not cands:
            return []
        ps, qs, ls = (list(c) for c in zip(*cands, strict=True))
        return _retained_blocks(u, v, _best_chain(ps, qs, ls, nu, nv))
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
    ids: dict[str, int] = {}
    u = [ids.setdefault(w, len(ids)) for w in ref]
    v = [ids.setdefault(w, len(ids)) for w in hyp]
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
        blocks = _region_anchors(u_all[rs:re], v_all[hs:he])
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


# --------------------------------------------------------------------------------------------
# SPEC §3: consolidation
# --------------------------------------------------------------------------------------------


def _is_fragment(gap: AtomicGap) -> bool:
    return (
        gap.ref[1] - gap.ref[0] <= FRAGMENT_MAX_TOKENS
        and gap.hyp[1] - gap.hyp[0] <= FRAGMENT_MAX_TOKENS
    )


def _bridge_text(text: str, tokens: Sequence[Token], start: int, end: int) -> str:
    """Original text of the bridge ``[start, end)`` on one side: from the end of token ``start - 1``
    (or 0) to the start of token ``end`` (or the end of the string)."""
    lo = tokens[start - 1].end if start > 0 else 0
    hi = tokens[end].start if end < len(tokens) else len(text)
    return text[lo:hi]


def _has_boundary_punctuation(text: str) -> bool:
    if BOUNDARY_PUNCTUATION.isdisjoint(text) and "-" not in text:
        return False  # the common case, decided in C
    for i, ch in enumerate(text):
        if ch in BOUNDARY_PUNCTUATION:
            return True
        # A hyphen counts as a dash unless it is an intra-word hyphen (token characters on both
        # sides, as in "twenty-five").
        if ch == "-" and not (
            0 < i < len(text) - 1 and is_token_char(text[i - 1]) and is_token_char(text[i + 1])
        ):
            return True
    return False


def _bridge_has_boundary(
    side_texts: tuple[str, str],
    side_tokens: tuple[Sequence[Token], Sequence[Token]],
    bridges: tuple[Interval, Interval],
) -> bool:
    for text, tokens, (start, end) in zip(side_texts, side_tokens, bridges, strict=True):
        if _has_boundary_punctuation(_bridge_text(text, tokens, start, end)):
            return True
        if any(tokens[k].norm in BOUNDARY_WORDS for k in range(start, end)):
            return True
    return False


def _links(
    atoms: Sequence[AtomicGap],
    reference: str,
    hypothesis: str,
    ref_tokens: Sequence[Token],
    hyp_tokens: Sequence[Token],
    max_bridge_tokens: int | None,
) -> list[bool]:
    """``link[k]``: whether atoms ``k`` and ``k+1`` may sit in one group as far as their pair is
    concerned (conditions 1 and 2 of SPEC §3 and the optional bridge limit)."""
    link = []
    for k in range(len(atoms) - 1):
        a, b = atoms[k], atoms[k + 1]
        bridges = ((a.ref[1], b.ref[0]), (a.hyp[1], b.hyp[0]))
        ok = _is_fragment(a) or _is_fragment(b)
        if ok and max_bridge_tokens is not None:
            ok = bridges[0][1] - bridges[0][0] <= max_bridge_tokens
        if ok:
            ok = not _bridge_has_boundary(
                (reference, hypothesis), (ref_tokens, hyp_tokens), bridges
            )
        link.append(ok)
    return link


def _admissible_ends(
    atoms: Sequence[AtomicGap], link: list[bool], ref_pred: np.ndarray, hyp_pred: np.ndarray
) -> list[int]:
    """``J_i`` for each ``i``: admissible endpoints from ``i`` are exactly ``{i, ..., J_i}``."""
    m = len(atoms)
    # Prefix sums of predicate flags give the predicate count of any envelope in O(1).
    ref_cum = np.concatenate(([0], np.cumsum(ref_pred))).tolist()
    hyp_cum = np.concatenate(([0], np.cumsum(hyp_pred))).tolist()
    # J_i never decreases with i (a group's tail is admissible whenever the group is: it has fewer
    # bridges and a smaller envelope), so one pointer sweeps all atoms: O(m) overall.
    ends = []
    j = 0
    for i in range(m):
        j = max(j, i)
        r0, h0 = atoms[i].ref[0], atoms[i].hyp[0]
        while j + 1 < m and link[j]:
            r1, h1 = atoms[j + 1].ref[1], atoms[j + 1].hyp[1]
            if ref_cum[r1] - ref_cum[r0] > 1 or hyp_cum[h1] - hyp_cum[h0] > 1:
                break
            j += 1
        ends.append(j)
    return ends


def consolidate_atoms(
    atoms: Sequence[AtomicGap],
    *,
    reference: str,
    hypothesis: str,
    ref_tokens: Sequence[Token],
    hyp_tokens: Sequence[Token],
    analyzer: Analyzer,
    max_bridge_tokens: int | None = None,
) -> list[tuple[int, int]]:
    """SPEC §3: the minimum-cardinality partition of ``atoms`` into admissible groups.

    Returns the groups as inclusive ``(first, last)`` atom indices, left to right.
    """
    m = len(atoms)
    link = _links(atoms, reference, hypothesis, ref_tokens, hyp_tokens, max_bridge_tokens)
    if not any(link):
        # Only singleton groups are admissible, whatever the predicates: skip the analyzer.
        return [(i, i) for i in range(m)]
    ref_pred = np.zeros(len(ref_tokens), dtype=np.int64)
    hyp_pred = np.zeros(len(hyp_tokens), dtype=np.int64)
    for flags, text, tokens in (
        (ref_pred, reference, ref_tokens),
        (hyp_pred, hypothesis, hyp_tokens),
    ):
        for k in analyzer.predicates(text, tokens):
            if not 0 <= k < len(tokens):
                raise InputError(f"analyzer {analyzer.id!r} returned token index {k} out of range")
            flags[k] = 1
    ends = _admissible_ends(atoms, link, ref_pred, hyp_pred)
    # SPEC §3 DP: d[i] = min over j in [i, J_i] of 1 + d[j+1], ties to the largest j. d never
    # increases with i (dropping a group's first atom leaves an admissible group or one group
    # fewer), so j = J_i always attains the minimum and wins the tie: the DP decodes to taking
    # the longest admissible group from each start, in O(m).
    groups = []
    i = 0
    while i < m:
        groups.append((i, ends[i]))
        i = ends[i] + 1
    return groups


# --------------------------------------------------------------------------------------------
# SPEC §4: projection to character spans, and the core call
# --------------------------------------------------------------------------------------------


def _char_span(tokens: Sequence[Token], interval: Interval) -> Interval:
    start, end = interval
    if end > start:
        return (tokens[start].start, tokens[end - 1].end)
    point = tokens[start - 1].end if start > 0 else 0
    return (point, point)


def segment(
    reference: str,
    hypothesis: str,
    *,
    analyzer: str | Analyzer | None = None,
    consolidate: bool = True,
    max_bridge_tokens: int | None = None,
) -> Segmentation:
    """Segment a (reference, hypothesis) pair into paired gaps with CGD (SPEC §1-4).

    ``analyzer`` chooses the predicate analyzer used by consolidation (default: the offline lexicon
    analyzer); ``consolidate=False`` returns the atomic gaps of SPEC §2; ``max_bridge_tokens``
    optionally forbids consolidating across bridges longer than that many tokens.

    >>> seg = segment("Do not send it to the client.", "Do send it to the client.")
    >>> [(g.kind, g.ref_text, g.hyp_text) for g in seg.gaps]
    [('deletion', 'not', '')]
    >>> seg.single_gap_hypothesis(0)
    'Do send it to the client.'
    """
    for name, value in (("reference", reference), ("hypothesis", hypothesis)):
        if not isinstance(value, str):
            raise InputError(f"{name} must be a str, got {type(value).__name__}")
    if max_bridge_tokens is not None and (
        isinstance(max_bridge_tokens, bool)
        or not isinstance(max_bridge_tokens, int)
        or max_bridge_tokens < 0
    ):
        raise InputError(
            f"max_bridge_tokens must be a non-negative int or None, got {max_bridge_tokens!r}"
        )
    resolved = get_analyzer(analyzer)
    ref_tokens = tokenize(reference)
    hyp_tokens = tokenize(hypothesis)
    atoms = decompose([t.norm for t in ref_tokens], [t.norm for t in hyp_tokens])
    if consolidate:
        groups = consolidate_atoms(
            atoms,
            reference=reference,
            hypothesis=hypothesis,
            ref_tokens=ref_tokens,
            hyp_tokens=hyp_tokens,
            analyzer=resolved,
            max_bridge_tokens=max_bridge_tokens,
        )
    else:
        groups = [(i, i) for i in range(len(atoms))]
    gaps = []
    for index, (first, last) in enumerate(groups):
        ref_iv = (atoms[first].ref[0], atoms[last].ref[1])
        hyp_iv = (atoms[first].hyp[0], atoms[last].hyp[1])
        ref_span = _char_span(ref_tokens, ref_iv)
        hyp_span = _char_span(hyp_tokens, hyp_iv)
        gaps.append(
            Gap(
                index=index,
                ref_tokens=ref_iv,
                hyp_tokens=hyp_iv,
                ref_span=ref_span,
                hyp_span=hyp_span,
                ref_text=reference[ref_span[0] : ref_span[1]],
                hyp_text=hypothesis[hyp_span[0] : hyp_span[1]],
                n_atomic=last - first + 1,
            )
        )
    return Segmentation(
        reference=reference,
        hypothesis=hypothesis,
        ref_tokens=ref_tokens,
        hyp_tokens=hyp_tokens,
        gaps=tuple(gaps),
        consolidated=consolidate,
        analyzer=resolved.id,
        max_bridge_tokens=max_bridge_tokens,
    )
