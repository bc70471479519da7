"""The synthetic generator's options (:class:`GenerationConfig`), version strings and sampling weights.

See :mod:`annotation.synth.generate` for the pipeline they drive."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.synth import lexicon
from annotation.synth.phonetic import PhoneticIndex
from annotation.synth.plan import PlanContext, RoleSpan
from sitar.errors import InputError
from sitar.targets import DEFAULT_RHO

__all__ = [
    "CLEAN_OPS",
    "DEFAULT_POOL_ROOT",
    "FAMILY_DATA_VERSION",
    "GENERATOR_VERSION",
    "GENERATOR_VERSION_V11",
    "GENERATOR_VERSION_V12",
    "GENERATOR_VERSION_V13",
    "GENERATOR_VERSION_V14",
    "GENERATOR_VERSION_V15",
    "LADDER_RUNGS",
    "LONG_MIN_WORDS",
    "NUMBER_FORMAT_MODES",
    "N_EDIT_WEIGHTS",
    "OP_WEIGHTS",
    "PASSAGE_MAX_TOKENS",
    "PASSAGE_PARTNER_WEIGHTS",
    "PROFILE_WEIGHTS",
    "PROFILE_WEIGHTS_NO_INFORM",
    "SHORT_EDIT_WEIGHTS",
    "SOURCE",
    "VALUE_DATA_VERSION",
    "GenerationConfig",
    "generator_version",
    "normalizer_name",
    "number_filter",
    "plan_context",
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
    #: Probability that a reference is extended into a 2-3 part passage (:func:`.pool.build_passages`).
    passage_probability: float = 0.0
    #: Probability that an eligible pair also yields a nested sibling without one T0 edit.
    family_probability: float = 0.0
    #: Probability that a reference also yields a ladder: one T2, one T1 and two T0 edits and the
    #: 11 nested variants built from them (:func:`.pairs._ladder`).
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


def plan_context(
    config: GenerationConfig,
    text: str,
    spans: Sequence[RoleSpan],
    phonetic: PhoneticIndex,
    common: frozenset[str],
) -> PlanContext:
    """A planning context with the config's ``number_format`` filter."""
    return PlanContext(text, spans, phonetic, common, number_filter=number_filter(config))
