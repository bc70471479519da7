"""SPEC §2-3: Constrained Gap Delineation (CGD).

:func:`segment` is the one core call. It tokenizes both strings (SPEC §1), *decomposes* the pair
into atomic gaps by recursively anchoring on long common word blocks that lie on a minimum-cost
edit path (SPEC §2), then *consolidates* adjacent atomic gaps into elementary deviation units when
the matches between them are short fragments that cross no informational boundary and the merged
envelope holds at most one predicate per side (SPEC §3). The result is a frozen
:class:`~sitar.gaps.Segmentation`.

Everything here is deterministic: same inputs, same package and analyzer versions, same output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitar.analyzers import Analyzer, get_analyzer
from sitar.errors import InputError
from sitar.gaps import Gap, Interval, Segmentation
from sitar.text import Token, is_token_char, tokenize

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

#: Version of the informational-boundary rules (word list and punctuation) below; in signatures.
BOUNDARY_WORDS_VERSION = "1"
#: Bridge tokens that mark an informational boundary (SPEC §3 [C]), compared on normalized forms.
BOUNDARY_WORDS = frozenset(
    {
        "and", "but", "or", "nor", "so", "yet", "because", "although", "though", "if", "unless",
        "until", "while", "whereas", "since", "when", "whenever", "where", "after", "before", "once",
    }
)  # fmt: skip
#: Characters that mark an informational boundary anywhere in a bridge's original text.
BOUNDARY_PUNCTUATION = frozenset(".!?;:…,–—")
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


def _admissible_ends(
    atoms: Sequence[AtomicGap],
    reference: str,
    hypothesis: str,
    ref_tokens: Sequence[Token],
    hyp_tokens: Sequence[Token],
    ref_pred: np.ndarray,
    hyp_pred: np.ndarray,
    max_bridge_tokens: int | None,
) -> list[int]:
    """``J_i`` for each ``i``: admissible endpoints from ``i`` are exactly ``{i, ..., J_i}``."""
    m = len(atoms)
    # link[k]: whether atoms k and k+1 may sit in one group as far as their pair is concerned
    # (conditions 1 and 2 and the optional bridge limit).
    link = []
    for k in range(m - 1):
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
    # Prefix sums of predicate flags give the predicate count of any envelope in O(1).
    ref_cum = np.concatenate(([0], np.cumsum(ref_pred)))
    hyp_cum = np.concatenate(([0], np.cumsum(hyp_pred)))
    ends = []
    for i in range(m):
        j = i
        while j + 1 < m and link[j]:
            r0, r1 = atoms[i].ref[0], atoms[j + 1].ref[1]
            h0, h1 = atoms[i].hyp[0], atoms[j + 1].hyp[1]
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
    if m <= 1:
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
    ends = _admissible_ends(
        atoms, reference, hypothesis, ref_tokens, hyp_tokens, ref_pred, hyp_pred, max_bridge_tokens
    )
    # d[i] = fewest groups covering atoms i..m-1; best[i] = the largest endpoint attaining it.
    d = [0] * (m + 1)
    best = [0] * m
    for i in range(m - 1, -1, -1):
        d[i] = m + 1
        for j in range(i, ends[i] + 1):
            if 1 + d[j + 1] <= d[i]:  # '<=' keeps the largest endpoint on ties
                d[i], best[i] = 1 + d[j + 1], j
    groups = []
    i = 0
    while i < m:
        groups.append((i, best[i]))
        i = best[i] + 1
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
