"""SITAR: situational distortion scoring for ASR transcripts.

The deterministic core (no torch): :func:`segment` pairs reference and hypothesis spans into gaps
(CGD, spec §2-4, docs/spec.md) and :func:`score_from_tiers` turns per-gap tiers into the SITAR score (spec §5).
"""

from __future__ import annotations

from sitar._version import __version__
from sitar.cgd import segment
from sitar.errors import (
    CheckpointError,
    InputError,
    MissingDependencyError,
    RecordError,
    SitarError,
)
from sitar.gaps import Gap, Segmentation
from sitar.targets import MAX_SCORE, normalize_score, score_from_tiers
from sitar.text import Token, tokenize

__all__ = [
    "MAX_SCORE",
    "CheckpointError",
    "Gap",
    "InputError",
    "MissingDependencyError",
    "RecordError",
    "ScoreResult",
    "Scorer",
    "Segmentation",
    "SitarError",
    "Token",
    "__version__",
    "metric",
    "normalize_score",
    "score_from_tiers",
    "segment",
    "tokenize",
]


def __getattr__(name: str) -> object:
    # Scorer lives behind a lazy import so that `import sitar` stays light (its runtime imports
    # onnxruntime/tokenizers only when a checkpoint is loaded, but the module itself is not needed
    # by users who only segment).
    if name in ("Scorer", "ScoreResult"):
        from sitar import scorer

        return getattr(scorer, name)
    if name == "metric":
        # sitar.metric.compute(predictions=, references=): loads onnxruntime only when it scores.
        import importlib

        return importlib.import_module("sitar.metric")
    raise AttributeError(f"module 'sitar' has no attribute {name!r}")
