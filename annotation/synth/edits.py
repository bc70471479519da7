"""Planned edits and their labels: operator choice (:func:`plan_edits`), the edit-to-gap mapping
rule (:func:`map_edits_to_gaps`, described in :mod:`annotation.synth.generate`) and the record
of one segmented, scored pair (:func:`make_record`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.synth import lexicon
from annotation.synth.config import CLEAN_OPS, OP_WEIGHTS, SOURCE, GenerationConfig
from annotation.synth.operators import OPERATORS, VALUE_OPS
from annotation.synth.plan import Edit, PlanContext
from annotation.synth.pool import Reference
from sitar import segment
from sitar.gaps import Segmentation
from sitar.records import Record
from sitar.signature import make_signature
from sitar.targets import score_from_tiers
from sitar.text import Token, in_token, tokenize

__all__ = [
    "StandInAnalyzer",
    "asr_surface",
    "edit_footprint",
    "make_record",
    "map_edits_to_gaps",
    "plan_edits",
    "try_ops",
]


class StandInAnalyzer:
    """A small deterministic analyzer (predicates = inflected forms of the generator's action
    verbs). For development and tests only; real corpora use the package's default analyzer."""

    def __init__(self) -> None:
        from lemminflect import getAllInflections

        forms: set[str] = set()
        for lemma in lexicon.ACTION_VERBS:
            if " " in lemma:
                continue
            forms.add(lemma)
            for values in getAllInflections(lemma, upos="VERB").values():
                forms.update(values)
        self._verbs = frozenset(f.replace("'", "") for f in forms)

    @property
    def id(self) -> str:
        return "synth-standin-1"

    def predicates(self, text: str, tokens: Sequence[Token]) -> frozenset[int]:
        return frozenset(i for i, t in enumerate(tokens) if t.norm in self._verbs)


def asr_surface(text: str) -> str:
    """Lowercase, punctuation-free surface with the same tokens (spec §1 norms) as ``text``.

    Characters outside tokens become spaces (apostrophes and digit joiners inside tokens stay), so
    the token sequence is unchanged; if it would change anyway, ``text`` is returned as is.
    """
    chars = [ch.lower() if in_token(text, i) else " " for i, ch in enumerate(text)]
    out = " ".join("".join(chars).split())
    if [t.norm for t in tokenize(out)] != [t.norm for t in tokenize(text)]:
        return text
    return out


def _weighted_order(rng: random.Random, names: Sequence[str]) -> list[str]:
    """Operator names in a weighted random order (weighted sampling without replacement)."""
    keyed = []
    for name in names:
        w = OP_WEIGHTS[name]
        keyed.append((rng.random() ** (1.0 / w), name))
    keyed.sort(reverse=True)
    return [name for _, name in keyed]


def try_ops(
    ctx: PlanContext, rng: random.Random, tier: int, focus: Callable[[Edit], bool] | None = None
) -> Edit | None:
    names = [n for n, (t, _) in OPERATORS.items() if t == tier and OP_WEIGHTS.get(n, 0) > 0]
    for name in _weighted_order(rng, names):
        if focus is not None and name not in VALUE_OPS:
            continue
        for _ in range(1 if focus is None else 4):
            edit = OPERATORS[name][1](ctx, rng)
            if edit is not None and (focus is None or focus(edit)):
                return edit
    return None


def plan_edits(
    ref: Reference,
    ctx: PlanContext,
    rng: random.Random,
    profile: str,
    n: int,
    focus: tuple[int, int] | None,
) -> list[Edit]:
    """Plan up to ``n`` edits of the tiers the profile asks for (T2 first, then T1, then T0)."""
    if profile == "clean":
        for _ in range(n):
            edit = OPERATORS[rng.choice(CLEAN_OPS)][1](ctx, rng)
            if edit is not None:
                ctx.edits.append(edit)
        return ctx.edits
    n2 = n1 = 0
    if profile == "t2":
        n2 = min(n, rng.choices((1, 2, 3), (0.65, 0.27, 0.08))[0])
        if n - n2 > 0 and rng.random() < 0.3:
            n1 = 1
    elif profile == "t1":
        n1 = min(n, rng.choices((1, 2, 3), (0.65, 0.25, 0.10))[0])
    plan = [2] * n2 + [1] * n1
    plan += [0] * (n - len(plan))
    for k, tier in enumerate(plan):
        check = None
        if k == 0 and tier == 2 and focus is not None:
            a, b = focus

            def check(e: Edit, a: int = a, b: int = b) -> bool:
                return e.start < b and a < e.end

        edit = try_ops(ctx, rng, tier, check)
        if edit is None and check is not None:
            edit = try_ops(ctx, rng, tier)
        if edit is not None:
            ctx.edits.append(edit)
    return ctx.edits


@dataclass(frozen=True)
class _Footprint:
    """Where an edit changes the reference tokens: ``[a, b)`` after trimming the tokens the edit
    keeps at both ends ("is" -> "is not" only inserts "not"); ``slide`` > 0 when an insertion
    repeats the next ``slide`` reference tokens, so CGD may place it anywhere in ``[a, a + slide]``
    ("the the"). ``silent`` edits change no token (case, punctuation)."""

    a: int
    b: int
    slide: int
    silent: bool
    inserted: int


def edit_footprint(tokens: Sequence[Token], edit: Edit) -> _Footprint:
    covered = [i for i, t in enumerate(tokens) if edit.start < t.end and t.start < edit.end]
    if covered:
        a, b = covered[0], covered[-1] + 1
        old = [t.norm for t in tokens[a:b]]
    else:
        a = b = sum(1 for t in tokens if t.end <= edit.start)
        old = []
    # The replaced text may cut a token (never in practice): compare whole tokens.
    new = [t.norm for t in tokenize(edit.new)]
    if covered:
        head = edit.start - tokens[a].start
        tail = tokens[b - 1].end - edit.end
        if head > 0 or tail > 0:
            new = [
                t.norm
                for t in tokenize(
                    tokens[a].text[: max(head, 0)]
                    + edit.new
                    + tokens[b - 1].text[len(tokens[b - 1].text) - max(tail, 0) :]
                )
            ]
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    q = 0
    while q < min(len(old), len(new)) - p and old[-1 - q] == new[-1 - q]:
        q += 1
    if old == new:
        return _Footprint(a, b, 0, True, 0)
    a2, b2 = a + p, b - q
    inserted = new[p : len(new) - q]
    slide = 0
    if a2 == b2 and inserted:
        m = len(inserted)
        ref_norms = [t.norm for t in tokens]
        if ref_norms[a2 : a2 + m] == inserted:
            slide = m
        elif a2 - m >= 0 and ref_norms[a2 - m : a2] == inserted:
            a2, slide = a2 - m, m
    return _Footprint(a2, b2, slide, False, len(inserted))


def _meets(fp: _Footprint, g: tuple[int, int]) -> bool:
    """Whether an edit footprint and a gap's reference token interval meet (overlap, or an empty
    side lying inside or at an end of the other)."""
    a, b = fp.a, fp.b + fp.slide
    s, t = g
    if fp.a < fp.b and s < t:
        return a < t and s < b
    return s <= b and a <= t if s < t else a <= s <= b


def map_edits_to_gaps(
    seg: Segmentation, edits: Sequence[Edit]
) -> tuple[list[int], list[int], list[list[int]], int]:
    """Per-gap tiers and directions from planned edits (the mapping rule in the module docstring).

    Returns ``(tiers, directions, gaps_of_edit, unexplained)``: one list of gap indices per edit,
    and the number of gaps no edit explains (those get tier 0).
    """
    tokens = seg.ref_tokens
    prints = [edit_footprint(tokens, e) for e in edits]
    gaps_of_edit: list[list[int]] = [[] for _ in edits]
    edits_of_gap: list[list[int]] = [[] for _ in seg.gaps]
    for k, fp in enumerate(prints):
        if fp.silent:
            continue
        for g in seg.gaps:
            if _meets(fp, g.ref_tokens):
                gaps_of_edit[k].append(g.index)
                edits_of_gap[g.index].append(k)
    # Shifted matches: an unmatched edit joins the nearest gap within its token length (an
    # unexplained gap first), so its planned severity is never lost to a shifted alignment.
    for k, fp in enumerate(prints):
        if gaps_of_edit[k] or fp.silent:
            continue
        reach = max(1, fp.inserted, fp.b - fp.a)
        best = None
        for g in seg.gaps:
            s, t = g.ref_tokens
            distance = max(0, s - (fp.b + fp.slide), fp.a - t) + (
                0.5 if edits_of_gap[g.index] else 0
            )
            if distance <= reach and (best is None or distance < best[0]):
                best = (distance, g.index)
        if best is not None:
            gaps_of_edit[k].append(best[1])
            edits_of_gap[best[1]].append(k)
    tiers: list[int] = []
    directions: list[int] = []
    unexplained = 0
    for g in seg.gaps:
        members = edits_of_gap[g.index]
        if not members:
            unexplained += 1
            tiers.append(0)
            directions.append(0)
            continue
        top = max(members, key=lambda k: (edits[k].position, -k))
        tiers.append(edits[top].tier)
        directions.append(edits[top].direction)
    return tiers, directions, gaps_of_edit, unexplained


def make_record(
    record_id: str,
    ref: Reference,
    use: Reference,
    hypothesis: str,
    edits: Sequence[Edit],
    *,
    config: GenerationConfig,
    analyzer: Any,
    version: str,
    provenance: Mapping[str, Any],
) -> tuple[Record, int]:
    """Segment, map the planned edits, score: the record and its number of unexplained gaps.

    ``provenance`` holds the pair's ``profile``, ``restated`` and ``asr_surface`` (and, for a
    sibling, its family fields); ``synth-1.1`` records also list ``pool_ids`` (and a passage's
    ``passage_parts``).
    """
    seg = segment(use.text, hypothesis, analyzer=analyzer)
    tiers, directions, gaps_of_edit, unexplained = map_edits_to_gaps(seg, edits)
    score = score_from_tiers(tiers, directions, rho=config.rho)
    prov: dict[str, Any] = {
        "source": SOURCE,
        "generator_version": version,
        "seed": config.seed,
        "pool_id": ref.group,
        "reference_id": ref.id,
        "pool_file": ref.source,
        "domain": ref.domain,
        **provenance,
        "edits": [{**e.to_dict(), "gaps": gaps_of_edit[i]} for i, e in enumerate(edits)],
        "unexplained_gaps": unexplained,
    }
    if config.uses_v11_options:
        prov["pool_ids"] = list(ref.pool_ids)
        if ref.parts:
            prov["passage_parts"] = list(ref.parts)
    record = Record(
        id=record_id,
        reference=use.text,
        hypothesis=hypothesis,
        gaps=tuple(g.to_dict() for g in seg.gaps),
        tiers=tuple(tiers),
        directions=tuple(directions),
        score=score,
        rho=config.rho,
        provenance=prov,
        signature=make_signature(analyzer=seg.analyzer, rho=config.rho, extra={"data": version}),
    )
    return record, unexplained
