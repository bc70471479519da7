"""``synth-1.3``-``1.5`` families (issues #12 and #28; data and operators in :mod:`.families` and
:mod:`.values`): phrase-lexicon rewordings and their flips (:func:`reword_pairs`), one-edit
direction, quantifier, value and contrast pairs with their recognizer-form twins
(:func:`one_edit_family_pair`), and hand-written sentence rewrites (:func:`rewrite_records`)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from annotation.synth import families
from annotation.synth import values as value_ops
from annotation.synth.config import SOURCE, GenerationConfig, plan_context
from annotation.synth.edits import asr_surface, edit_footprint, make_record, try_ops
from annotation.synth.phonetic import PhoneticIndex
from annotation.synth.plan import Edit, PlanContext, RoleSpan, apply_edits
from annotation.synth.pool import PoolItem, Reference
from sitar import segment
from sitar.errors import InputError
from sitar.gaps import Segmentation
from sitar.records import Record
from sitar.signature import make_signature
from sitar.targets import score_from_tiers
from sitar.text import tokenize

__all__ = [
    "FORM_FAMILIES",
    "ONE_EDIT_FAMILIES",
    "one_edit_family_pair",
    "recognizer_text",
    "reword_pairs",
    "rewrite_records",
]


def _family_record(
    record_id: str,
    ref: Reference,
    edits: Sequence[Edit],
    surface: bool,
    *,
    config: GenerationConfig,
    analyzer: Any,
    version: str,
    profile: str,
) -> tuple[Record, int] | None:
    hypothesis = apply_edits(ref.text, edits)
    if surface:
        hypothesis = asr_surface(hypothesis)
    if [t.norm for t in tokenize(hypothesis)] == [t.norm for t in tokenize(ref.text)]:
        return None
    return make_record(
        record_id, ref, ref, hypothesis, edits, config=config, analyzer=analyzer,
        version=version, provenance={"profile": profile, "restated": False, "asr_surface": surface},
    )  # fmt: skip


def reword_pairs(
    ref: Reference,
    seen: set[str],
    config: GenerationConfig,
    phonetic: PhoneticIndex,
    common: frozenset[str],
    analyzer: Any,
    counters: Counter[str],
    version: str,
) -> list[Record]:
    """A rewording pair (``-R0``: 1-2 tier-0 phrase-lexicon rewordings, every gap T0) and its
    contrast sibling (``-R2``: the same rewordings plus one look-alike flip of the lexicon's
    tier-2 rows, T2 in an outcome span or T1 in an inform span).

    A generator seeded ``"{seed}:{reference id}:reword"`` draws whether the reference takes part
    (``reword_probability``), the rewordings, the flip and one surface choice. A record is dropped
    (and counted) when its hypothesis repeats one of the reference's, or when CGD does not give
    the planned labels: every gap of ``-R0`` T0 with none unexplained, and exactly one gap of
    ``-R2`` at the flip's tier.
    """
    from annotation.synth.families import op_reword, op_reword_flip

    rng = random.Random(f"{config.seed}:{ref.id}:reword")
    if rng.random() >= config.reword_probability:
        return []
    counters["reword_drawn"] += 1
    ctx = plan_context(config, ref.text, ref.spans, phonetic, common)
    for _ in range(rng.choice((1, 2))):
        edit = op_reword(ctx, rng)
        if edit is not None:
            ctx.edits.append(edit)
    rewordings = list(ctx.edits)
    flip = op_reword_flip(ctx, rng)
    surface = rng.random() < config.surface_probability
    out: list[Record] = []
    plans = []
    if rewordings:
        plans.append(("R0", rewordings))
    else:
        counters["reword_no_rewording"] += 1
    if flip is not None:
        plans.append(("R2", [*rewordings, flip]))
    else:
        counters["reword_no_flip"] += 1
    for suffix, edits in plans:
        edits = sorted(edits, key=lambda e: (e.start, e.end))
        made = _family_record(
            f"synth-{ref.id}-{suffix}", ref, edits, surface, config=config, analyzer=analyzer,
            version=version, profile="reword" if suffix == "R0" else "reword_flip",
        )  # fmt: skip
        if made is None or made[0].hypothesis in seen:
            counters["reword_skipped_duplicate"] += 1
            continue
        record, unexplained = made
        top = [t for t in record.tiers if t > 0]
        want = [] if suffix == "R0" else [flip.tier]  # type: ignore[union-attr]
        if unexplained or top != want or any(record.directions):
            counters["reword_skipped_resegmented"] += 1
            continue
        counters[f"reword_records_{suffix}"] += 1
        out.append(record)
    return out


#: The one-edit families: (profile and seed label, record id suffix, config option, operator).
#: ``direction`` (``synth-1.3``): one direction or antonym swap or phonetic neighbour in a role
#: span. ``quantifier`` (``synth-1.4``): one change of quantifier or frequency scope in a role
#: span, or its T0 rewording.
ONE_EDIT_FAMILIES = (
    ("direction", "D", "direction_probability", families.op_direction),
    ("quantifier", "Q", "quantifier_probability", families.op_quantifier),
)
#: The one-edit families of ``synth-1.5`` (issue #28), each pair also made in recognizer form
#: (both sides lowercase without punctuation, id suffix + ``r``): ``value`` (one value change,
#: :func:`annotation.synth.values.op_value`) and ``contrast`` (one contrast word flipped,
#: :func:`annotation.synth.families.op_contrast`).
FORM_FAMILIES = (
    ("value", "V", "value_probability", value_ops.op_value),
    ("contrast", "C", "contrast_probability", families.op_contrast),
)


def one_edit_family_pair(
    ref: Reference,
    seen: set[str],
    config: GenerationConfig,
    phonetic: PhoneticIndex,
    common: frozenset[str],
    analyzer: Any,
    counters: Counter[str],
    version: str,
    *,
    family: str,
    suffix: str,
    operator: Callable[[PlanContext, random.Random], Edit | None],
    probability: float,
    recognizer: bool = False,
) -> list[Record]:
    """The pair of a one-edit family (:data:`ONE_EDIT_FAMILIES`; record id
    ``synth-{ref}-{suffix}``, profile ``family``, seeded ``"{seed}:{reference id}:{family}"``):
    the family's edit, taken with ``probability`` where the reference has one, and with even
    odds one ordinary T0 edit; kept only when CGD gives exactly one gap at the edit's tier and
    the rest T0 (dropped and counted otherwise). Counters ``{family}_eligible_references``, ``{family}_records`` and
    ``{family}_skipped_*``. With ``recognizer`` (``synth-1.5``) the kept pair is followed by its
    recognizer-form twin (:func:`_recognizer_twin`, id suffix + ``r``), held to the same labels."""
    ctx = plan_context(config, ref.text, ref.spans, phonetic, common)
    rng = random.Random(f"{config.seed}:{ref.id}:{family}")
    edit = operator(ctx, rng)
    if edit is None:
        return []
    counters[f"{family}_eligible_references"] += 1
    if rng.random() >= probability:
        return []
    ctx.edits.append(edit)
    if rng.random() < 0.5:
        extra = try_ops(ctx, rng, 0)
        if extra is not None:
            ctx.edits.append(extra)
    surface = rng.random() < config.surface_probability
    edits = sorted(ctx.edits, key=lambda e: (e.start, e.end))
    made = _family_record(
        f"synth-{ref.id}-{suffix}", ref, edits, surface, config=config, analyzer=analyzer,
        version=version, profile=family,
    )  # fmt: skip
    if made is None or made[0].hypothesis in seen:
        counters[f"{family}_skipped_duplicate"] += 1
        return []
    record, unexplained = made
    want = [edit.tier] if edit.tier else []
    if unexplained or [t for t in record.tiers if t > 0] != want:
        counters[f"{family}_skipped_resegmented"] += 1
        return []
    counters[f"{family}_records"] += 1
    if not recognizer:
        return [record]
    twin = _recognizer_twin(
        f"synth-{ref.id}-{suffix}r", ref, edits, config=config, analyzer=analyzer,
        version=version, profile=family,
    )  # fmt: skip
    if twin is None:  # the reference is already in recognizer form, or an edit cannot move
        counters[f"{family}_recognizer_skipped"] += 1
        return [record]
    if twin[1] or [t for t in twin[0].tiers if t > 0] != want:
        counters[f"{family}_recognizer_skipped_resegmented"] += 1
        return [record]
    counters[f"{family}_recognizer_records"] += 1
    return [record, twin[0]]


def recognizer_text(text: str) -> tuple[str, Callable[[int, bool], int]] | None:
    """``text`` in recognizer form (lowercase, no punctuation: :func:`asr_surface`) and a map of
    character positions into it, or None where the form keeps no token lengths or is ``text``.

    The map takes a position of ``text`` and whether it starts (False) or ends (True) a span: a
    position at or inside a token moves with that token; a position between tokens moves to the
    start of the next token (a start) or the end of the previous one (an end)."""
    form = asr_surface(text)
    src, dst = tokenize(text), tokenize(form)
    if form == text or len(src) != len(dst):
        return None
    if any(len(a.text) != len(b.text) for a, b in zip(src, dst, strict=True)):
        return None

    def move(pos: int, end: bool) -> int:
        for a, b in zip(src, dst, strict=True):
            if a.start <= pos <= a.end:
                return b.start + (pos - a.start)
        if end:
            before = [b.end for a, b in zip(src, dst, strict=True) if a.end <= pos]
            return before[-1] if before else 0
        after = [b.start for a, b in zip(src, dst, strict=True) if a.start >= pos]
        return after[0] if after else len(form)

    return form, move


def _recognizer_twin(
    record_id: str,
    ref: Reference,
    edits: Sequence[Edit],
    *,
    config: GenerationConfig,
    analyzer: Any,
    version: str,
    profile: str,
) -> tuple[Record, int] | None:
    """The pair of ``ref`` and ``edits`` with both sides in recognizer form (lowercase, no
    punctuation; issue #28): the reference and its role spans are moved into that form, every
    token-changing edit is moved with them (edits that change no token, case or punctuation,
    are dropped: the form has neither), and the hypothesis is put in the same form. None where
    the reference is already in that form or an edit cannot be moved."""
    moved = recognizer_text(ref.text)
    if moved is None:
        return None
    form, move = moved
    tokens = tokenize(ref.text)
    spans = tuple(
        RoleSpan(move(sp.start, False), move(sp.end, True), sp.role, "") for sp in ref.spans
    )
    spans = tuple(dataclasses.replace(sp, text=form[sp.start : sp.end]) for sp in spans)
    new_edits = []
    for e in edits:
        if edit_footprint(tokens, e).silent:
            continue
        a = move(e.start, False)
        b = a if e.start == e.end else move(e.end, True)
        if b < a:
            return None
        new_edits.append(dataclasses.replace(e, start=a, end=b, old=form[a:b]))
    use = dataclasses.replace(ref, text=form, spans=spans, restatable=())
    hypothesis = asr_surface(apply_edits(form, new_edits))
    if [t.norm for t in tokenize(hypothesis)] == [t.norm for t in tokenize(form)]:
        return None
    return make_record(
        record_id, ref, use, hypothesis, new_edits, config=config, analyzer=analyzer,
        version=version,
        provenance={"profile": profile, "restated": False, "asr_surface": True,
                    "form": "recognizer"},
    )  # fmt: skip


def _flip_gap_labels(seg: Segmentation, start: int, end: int, tier: int) -> list[int] | None:
    """Per-gap tiers for a flipped rewrite: the gap whose hypothesis side meets the flipped text
    ``[start, end)`` gets ``tier``, every other gap T0; None unless exactly one gap meets it."""
    tiers = []
    hits = 0
    for g in seg.gaps:
        a, b = g.hyp_span
        if start < end and a < b:
            meets = a < end and start < b
        elif start < end:
            meets = start <= a <= end
        else:
            meets = a <= start <= b
        hits += meets
        tiers.append(tier if meets else 0)
    return tiers if hits == 1 else None


def rewrite_records(
    rewrites: Sequence[Any],
    items: Mapping[str, PoolItem],
    groups: set[str],
    *,
    config: GenerationConfig,
    analyzer: Any,
    version: str,
    counters: Counter[str],
) -> list[Record]:
    """Records of the hand-written sentence rewrites of pool items in ``groups``: ``-W`` (the
    rewrite; every gap T0) and, where the rewrite has a flip, ``-WF`` (the rewrite with the flip:
    the flipped gap at the flip's tier, every other gap T0). A rewrite whose ``reference`` is not
    its pool item's text raises :class:`InputError` (the pool changed under it)."""
    out: list[Record] = []
    for rw in rewrites:
        item = items.get(rw.pool_id)
        if item is None or rw.pool_id not in groups:
            counters["rewrite_not_in_references"] += 1
            continue
        if item.text != rw.reference:
            raise InputError(
                f"rewrite {rw.id}: its reference differs from pool item {rw.pool_id}'s text; "
                "update annotation/sources/rewrites/"
            )
        ref = Reference(rw.pool_id, item.id, item.domain, item.text, (), item.source)
        seg = segment(ref.text, rw.rewrite, analyzer=analyzer)
        plans = [("W", rw.rewrite, seg, [0] * len(seg.gaps), [])]
        if rw.flip_old:
            flipped = rw.flipped
            a = rw.rewrite.index(rw.flip_old)
            fseg = segment(ref.text, flipped, analyzer=analyzer)
            tiers = _flip_gap_labels(fseg, a, a + len(rw.flip_new), rw.flip_tier)
            flip_edit = {
                "op": "rewrite_flip", "tier": rw.flip_tier, "direction": 0, "role": "other",
                "role_span": None, "ref_span": [a, a + len(rw.flip_old)],
                "ref_text": rw.flip_old, "new_text": rw.flip_new,
                "gaps": [i for i, t in enumerate(tiers or []) if t], "reason": rw.flip_reason,
            }  # fmt: skip
            if tiers is None:
                counters["rewrite_flip_skipped_resegmented"] += 1
            else:
                plans.append(("WF", flipped, fseg, tiers, [flip_edit]))
        for suffix, hyp, sg, tiers, extra in plans:
            if not sg.gaps:
                counters["rewrite_skipped_no_gap"] += 1
                continue
            whole = {
                "op": "sentence_rewrite", "tier": 0, "direction": 0, "role": "other",
                "role_span": None, "ref_span": [0, len(ref.text)], "ref_text": ref.text,
                "new_text": rw.rewrite, "gaps": [i for i, t in enumerate(tiers) if not t],
            }  # fmt: skip
            prov = {
                "source": SOURCE, "generator_version": version, "seed": config.seed,
                "pool_id": item.id, "reference_id": item.id, "pool_file": item.source,
                "domain": item.domain,
                "profile": "sentence_rewrite" if suffix == "W" else "rewrite_flip",
                "restated": False, "asr_surface": False, "rewrite_id": rw.id,
                "rewrite_source": rw.source, "edits": [whole, *extra], "unexplained_gaps": 0,
                "pool_ids": [item.id],
            }  # fmt: skip
            directions = [0] * len(tiers)
            out.append(
                Record(
                    id=f"synth-{rw.id}-{suffix}", reference=ref.text, hypothesis=hyp,
                    gaps=tuple(g.to_dict() for g in sg.gaps), tiers=tuple(tiers),
                    directions=tuple(directions),
                    score=score_from_tiers(tiers, directions, rho=config.rho), rho=config.rho,
                    provenance=prov,
                    signature=make_signature(
                        analyzer=sg.analyzer, rho=config.rho, extra={"data": version}
                    ),
                )
            )  # fmt: skip
            counters[f"rewrite_records_{suffix}"] += 1
    return out
