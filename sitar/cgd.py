"""SPEC §2-3: Constrained Gap Delineation (CGD).

:func:`segment` is the one core call. It tokenizes both strings (SPEC §1), *decomposes* the pair
into atomic gaps by recursively anchoring on long common word blocks that lie on a minimum-cost
edit path (SPEC §2), then *consolidates* adjacent atomic gaps into elementary deviation units when
the matches between them are short fragments that cross no informational boundary and the merged
envelope holds at most one predicate per side (SPEC §3). The result is a frozen
:class:`~sitar.gaps.Segmentation`.

The decomposition (SPEC §2: :func:`decompose`, :class:`AtomicGap`) lives in
:mod:`sitar.decomposition` and is re-exported here; this module holds consolidation (SPEC §3) and
the projection to character spans (SPEC §4). Consolidation (§3) is O(m) in the number of atomic
gaps (see :func:`consolidate_atoms`).

Everything here is deterministic: same inputs, same package and analyzer versions, same output.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import compress, count
from operator import attrgetter, or_
from typing import NamedTuple

from sitar.analyzers import Analyzer, get_analyzer
from sitar.boundaries import (
    BOUNDARY_PUNCTUATION,
    BOUNDARY_WORDS,
    BOUNDARY_WORDS_VERSION,
    has_dash,
)
from sitar.decomposition import AtomicGap, decompose
from sitar.errors import InputError
from sitar.gaps import Gap, Interval, Segmentation
from sitar.text import Token, _alloc, _tokenize, slot_setter

__all__ = [
    "BOUNDARY_PUNCTUATION",
    "BOUNDARY_WORDS",
    "BOUNDARY_WORDS_VERSION",
    "FRAGMENT_MAX_TOKENS",
    "AtomicGap",
    "consolidate_atoms",
    "decompose",
    "has_dash",
    "segment",
]

#: A fragment is an atomic gap with at most this many tokens on each side.
FRAGMENT_MAX_TOKENS = 3


# --------------------------------------------------------------------------------------------
# SPEC §3: consolidation
# --------------------------------------------------------------------------------------------


def _is_fragment(gap: AtomicGap) -> bool:
    return (
        gap.ref[1] - gap.ref[0] <= FRAGMENT_MAX_TOKENS
        and gap.hyp[1] - gap.hyp[0] <= FRAGMENT_MAX_TOKENS
    )


class _Side(NamedTuple):
    """One side of the pair as consolidation reads it."""

    text: str
    tokens: Sequence[Token]
    norms: Sequence[str]


def _bridge_has_boundary(side: _Side, start: int, end: int) -> bool:
    """Whether the bridge ``[start, end)`` of one side holds an informational boundary (SPEC §3):
    punctuation or a dash in its original text -- from the end of token ``start - 1`` (or 0) to
    the start of token ``end`` (or the end of the string) -- or a boundary word."""
    text, tokens, norms = side
    lo = tokens[start - 1].end if start > 0 else 0
    hi = tokens[end].start if end < len(tokens) else len(text)
    bridge = text[lo:hi]
    return (
        not BOUNDARY_PUNCTUATION.isdisjoint(bridge)
        or ("-" in bridge and has_dash(bridge))
        or not BOUNDARY_WORDS.isdisjoint(norms[start:end])
    )


def _links(
    refs: list[Interval], hyps: list[Interval], ref: _Side, hyp: _Side, max_bridge: int | None
) -> list[bool]:
    """``link[k]``: whether atoms ``k`` and ``k+1`` (token intervals ``refs``, ``hyps``) may sit
    in one group as far as their pair is concerned (conditions 1 and 2 of SPEC §3 and the
    optional bridge limit)."""
    fragment = [
        r1 - r0 <= FRAGMENT_MAX_TOKENS and h1 - h0 <= FRAGMENT_MAX_TOKENS
        for (r0, r1), (h0, h1) in zip(refs, hyps, strict=True)
    ]
    link = [False] * (len(refs) - 1)
    # Only pairs with a fragment on either side can link; their bridges are then checked.
    for k in compress(count(), map(or_, fragment, fragment[1:])):
        r_start, r_end = refs[k][1], refs[k + 1][0]
        link[k] = (
            (max_bridge is None or r_end - r_start <= max_bridge)
            and not _bridge_has_boundary(ref, r_start, r_end)
            and not _bridge_has_boundary(hyp, hyps[k][1], hyps[k + 1][0])
        )
    return link


_ATOM_REF, _ATOM_HYP = attrgetter("ref"), attrgetter("hyp")


def _linked_runs(link: list[bool]) -> list[tuple[int, int]]:
    """Maximal runs of atoms ``first .. last`` (``first < last``) joined by links: the only atoms
    that can share a group, and so the only places where predicates are ever counted."""
    runs = []
    k, m = 0, len(link) + 1
    while k < m - 1:
        if not link[k]:
            k += 1
            continue
        j = k + 1
        while j < m - 1 and link[j]:
            j += 1
        runs.append((k, j))
        k = j
    return runs


def _predicates(
    analyzer: Analyzer, side: _Side, windows: list[Interval], tokenized_here: bool
) -> list[int]:
    """Sorted predicate indices of one side, as far as SPEC §3 asks: for every ``[a, b)`` inside
    one of ``windows``, whether more than one of them lies in ``[a, b)``.

    An analyzer with a ``_predicates_within(text, tokens, windows)`` method (the lexicon
    analyzer) may decide only what that question needs, when the tokens are known to be
    ``tokenize(text)`` (``tokenized_here``); it returns None to decline. Every other analyzer
    decides the whole side, as SPEC §3 words it.
    """
    within = getattr(analyzer, "_predicates_within", None) if tokenized_here else None
    predicates = None
    if within is not None:
        predicates = within(side.text, side.tokens, windows)
    if predicates is None:
        predicates = analyzer.predicates(side.text, side.tokens)
        n = len(side.tokens)
        for k in predicates:
            if not 0 <= k < n:
                raise InputError(f"analyzer {analyzer.id!r} returned token index {k} out of range")
    return sorted(set(predicates))


def _admissible_ends(
    refs: list[Interval],
    hyps: list[Interval],
    link: list[bool],
    ref_preds: list[int],
    hyp_preds: list[int],
) -> list[int]:
    """``J_i`` for each atom ``i``: admissible endpoints from ``i`` are exactly ``{i, ..., J_i}``.

    ``ref_preds``/``hyp_preds``: sorted predicate indices (an envelope's predicate count is a
    difference of two bisections)."""
    m = len(refs)
    # J_i never decreases with i (a group's tail is admissible whenever the group is: it has fewer
    # bridges and a smaller envelope), so one pointer sweeps all atoms: O(m) overall.
    ends = []
    j = 0
    for i in range(m):
        j = max(j, i)
        r0, h0 = refs[i][0], hyps[i][0]
        while j + 1 < m and link[j]:
            r1, h1 = refs[j + 1][1], hyps[j + 1][1]
            if (ref_preds and bisect_left(ref_preds, r1) - bisect_left(ref_preds, r0) > 1) or (
                hyp_preds and bisect_left(hyp_preds, h1) - bisect_left(hyp_preds, h0) > 1
            ):
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
    ref = _Side(reference, ref_tokens, [t.norm for t in ref_tokens])
    hyp = _Side(hypothesis, hyp_tokens, [t.norm for t in hyp_tokens])
    return _consolidate(atoms, ref, hyp, analyzer, max_bridge_tokens, tokenized_here=False)


def _consolidate(
    atoms: Sequence[AtomicGap],
    ref: _Side,
    hyp: _Side,
    analyzer: Analyzer,
    max_bridge_tokens: int | None,
    *,
    tokenized_here: bool,
) -> list[tuple[int, int]]:
    """:func:`consolidate_atoms`; ``tokenized_here``: the tokens are ``tokenize(text)`` of each
    side, made by :func:`segment` itself (see :func:`_predicates`)."""
    m = len(atoms)
    refs = list(map(_ATOM_REF, atoms))
    hyps = list(map(_ATOM_HYP, atoms))
    link = _links(refs, hyps, ref, hyp, max_bridge_tokens)
    if not any(link):
        # Only singleton groups are admissible, whatever the predicates: skip the analyzer.
        return [(i, i) for i in range(m)]
    runs = _linked_runs(link)
    ref_preds = _predicates(
        analyzer, ref, [(refs[i][0], refs[j][1]) for i, j in runs], tokenized_here
    )
    hyp_preds = _predicates(
        analyzer, hyp, [(hyps[i][0], hyps[j][1]) for i, j in runs], tokenized_here
    )
    ends = _admissible_ends(refs, hyps, link, ref_preds, hyp_preds)
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
    ref_tokens, ref_norms = _tokenize(reference)
    hyp_tokens, hyp_norms = _tokenize(hypothesis)
    atoms = decompose(ref_norms, hyp_norms)
    if consolidate:
        groups = _consolidate(
            atoms,
            _Side(reference, ref_tokens, ref_norms),
            _Side(hypothesis, hyp_tokens, hyp_norms),
            resolved,
            max_bridge_tokens,
            tokenized_here=True,
        )
    else:
        groups = [(i, i) for i in range(len(atoms))]
    gaps = []
    for index, (first, last) in enumerate(groups):
        if first == last:
            ref_iv, hyp_iv = atoms[first].ref, atoms[first].hyp
        else:
            ref_iv = (atoms[first].ref[0], atoms[last].ref[1])
            hyp_iv = (atoms[first].hyp[0], atoms[last].hyp[1])
        ref_span = _char_span(ref_tokens, ref_iv)
        hyp_span = _char_span(hyp_tokens, hyp_iv)
        gaps.append(
            _new_gap(
                index,
                ref_iv,
                hyp_iv,
                ref_span,
                hyp_span,
                reference[ref_span[0] : ref_span[1]],
                hypothesis[hyp_span[0] : hyp_span[1]],
                last - first + 1,
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


def _gap_factory() -> Callable[[int, Interval, Interval, Interval, Interval, str, str, int], Gap]:
    """A positional :class:`Gap` constructor that fills the slots directly (the frozen
    dataclass ``__init__`` sets each of its nine fields through ``object.__setattr__``)."""
    set_index, set_ref_tokens = slot_setter(Gap, "index"), slot_setter(Gap, "ref_tokens")
    set_hyp_tokens, set_ref_span = slot_setter(Gap, "hyp_tokens"), slot_setter(Gap, "ref_span")
    set_hyp_span, set_ref_text = slot_setter(Gap, "hyp_span"), slot_setter(Gap, "ref_text")
    set_hyp_text, set_n_atomic = slot_setter(Gap, "hyp_text"), slot_setter(Gap, "n_atomic")

    def new(
        index: int,
        ref_tokens: Interval,
        hyp_tokens: Interval,
        ref_span: Interval,
        hyp_span: Interval,
        ref_text: str,
        hyp_text: str,
        n_atomic: int,
    ) -> Gap:
        gap = _alloc(Gap)
        set_index(gap, index)
        set_ref_tokens(gap, ref_tokens)
        set_hyp_tokens(gap, hyp_tokens)
        set_ref_span(gap, ref_span)
        set_hyp_span(gap, hyp_span)
        set_ref_text(gap, ref_text)
        set_hyp_text(gap, hyp_text)
        set_n_atomic(gap, n_atomic)
        return gap

    return new


_new_gap = _gap_factory()
