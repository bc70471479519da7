"""Synthetic SITAR supervision with planned tiers (issue #5, part 2).

References from the hand-written pool get planned edits of known tier (T0 anywhere, T1 on inform
spans, T2 on outcome spans), ASR-like where possible (CMU phonetic neighbours, fillers, restarts,
number formats). Every pair is segmented with CGD and its targets are computed from per-gap tiers
with spec §5 (docs/spec.md), so the records (``sitar.record/1``) match the LLM annotation pipeline's. Run
``python -m annotation.synth --out DIR --seed 13 --pairs-per-reference K`` (add
``--passage-probability P`` / ``--family-probability Q`` for the ``synth-1.1`` passages and nested
siblings, and ``--ladder-probability L`` for the ``synth-1.2`` ladders; ``--reword-probability``,
``--direction-probability``, ``--short-commands`` and ``--sentence-rewrites`` for ``synth-1.3``;
``--quantifier-probability`` for ``synth-1.4``; ``--value-probability``, ``--contrast-probability``,
``--long-sentences`` and ``--number-format`` for ``synth-1.5``).
"""

from __future__ import annotations

__all__ = [
    "GENERATOR_VERSION",
    "GENERATOR_VERSION_V11",
    "GENERATOR_VERSION_V12",
    "GENERATOR_VERSION_V13",
    "GENERATOR_VERSION_V14",
    "GENERATOR_VERSION_V15",
    "GenerationConfig",
    "generate_corpus",
    "generator_version",
    "map_edits_to_gaps",
]

from annotation.synth.generate import (
    GENERATOR_VERSION,
    GENERATOR_VERSION_V11,
    GENERATOR_VERSION_V12,
    GENERATOR_VERSION_V13,
    GENERATOR_VERSION_V14,
    GENERATOR_VERSION_V15,
    GenerationConfig,
    generate_corpus,
    generator_version,
    map_edits_to_gaps,
)
