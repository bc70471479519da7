"""Per-gap closeness features (spec §7b [C], docs/spec.md): how close in form a gap's two spans are.

A recoverable recognizer slip ("collected" -> "connected", "four" -> "for") is close in spelling or
in sound, which a subword encoder barely sees. A gap-aware checkpoint trained with
``gap_closeness`` reads, next to its four marker positions, two numbers per gap computed here from
the gap's reference span text ``r`` and hypothesis span text ``h`` only (deterministic; no model, no
context). This module is the one home of the rule; training (``training.data.encode_records``) and
scoring (:class:`sitar.encoding.PairEncoder`) both call :func:`gap_closeness`.

Rule version :data:`CLOSENESS_VERSION` (recorded in the checkpoint config and the score signature):

* Both texts are first lowercased and their whitespace runs collapsed to one space
  (``" ".join(text.lower().split())``).
* **char**: ``rapidfuzz.distance.Indel.normalized_similarity(r, h)``, i.e.
  ``1 - indel(r, h) / (len(r) + len(h))`` with ``indel`` the number of single-character insertions
  and deletions turning one into the other. "collected"/"connected" gives 14/18 = 0.778.
* **phonetic**: the same similarity of the spans' phonetic keys. A span's key is the
  ``jellyfish.metaphone`` code of each whitespace-separated word, joined by single spaces; a word
  with no code (digits, symbols: ``metaphone("4") == ""``) keeps its normalised text as its key, so
  "4" and "5" are not phonetically equal. "four"/"for" gives 1.0.
* An empty span on either side (an insertion or a deletion: nothing to compare) gives 0 for both.

Both values lie in [0, 1]. numpy, rapidfuzz and jellyfish only: inference never imports torch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from sitar.errors import CheckpointError, MissingDependencyError

__all__ = [
    "CLOSENESS_FEATURES",
    "CLOSENESS_VERSION",
    "char_similarity",
    "check_version",
    "config_section",
    "gap_closeness",
    "phonetic_key",
    "phonetic_similarity",
]

#: Version of the rule above; a checkpoint trained on one version is only fed that version.
CLOSENESS_VERSION = "closeness-1"
#: The feature columns, in order: the last axis of :func:`gap_closeness` (and of the
#: ``gap_closeness`` graph input, shape (B, G, 2)).
CLOSENESS_FEATURES = ("char", "phonetic")


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _indel_similarity(a: str, b: str) -> float:
    from rapidfuzz.distance import Indel

    return float(Indel.normalized_similarity(a, b))


@lru_cache(maxsize=1)
def _metaphone() -> Any:
    try:
        import jellyfish
    except ImportError as e:
        raise MissingDependencyError("jellyfish", "the gap closeness features") from e
    return jellyfish.metaphone


@lru_cache(maxsize=65536)
def _word_key(word: str) -> str:
    return str(_metaphone()(word)) or word


def phonetic_key(text: str) -> str:
    """The phonetic key of a text: each word's metaphone code (the word itself when it has none),
    joined by spaces; ``""`` for a text without words."""
    return " ".join(_word_key(w) for w in _normal(text).split(" ") if w)


def char_similarity(reference: str, hypothesis: str) -> float:
    """Character similarity of two span texts in [0, 1] (0 when either is empty)."""
    r, h = _normal(reference), _normal(hypothesis)
    if not r or not h:
        return 0.0
    return _indel_similarity(r, h)


def phonetic_similarity(reference: str, hypothesis: str) -> float:
    """Similarity of the phonetic keys of two span texts in [0, 1] (0 when either is empty)."""
    r, h = phonetic_key(reference), phonetic_key(hypothesis)
    if not r or not h:
        return 0.0
    return _indel_similarity(r, h)


def gap_closeness(spans: Sequence[tuple[str, str]]) -> np.ndarray:
    """The (G, 2) float32 features ``[char, phonetic]`` of G gaps given as ``(reference span text,
    hypothesis span text)`` pairs, in order (``(0, 2)`` for no gaps)."""
    out = np.zeros((len(spans), len(CLOSENESS_FEATURES)), dtype=np.float32)
    for k, (r, h) in enumerate(spans):
        out[k, 0] = char_similarity(r, h)
        out[k, 1] = phonetic_similarity(r, h)
    return out


def config_section() -> dict[str, Any]:
    """The ``closeness`` section of a checkpoint config whose graph takes ``gap_closeness``."""
    return {"version": CLOSENESS_VERSION, "features": list(CLOSENESS_FEATURES)}


def check_version(section: Any, *, where: str = "closeness") -> None:
    """Raise :class:`CheckpointError` unless ``section`` (a checkpoint's ``closeness`` section)
    names the feature version this sitar computes: a graph trained on other features must not be
    fed these."""
    version = section.get("version") if isinstance(section, Mapping) else None
    if version is None:
        raise CheckpointError(
            f"{where}: the graph takes 'gap_closeness' but sitar_config.json has no 'closeness' "
            f"section naming the feature version (this sitar computes {CLOSENESS_VERSION!r}); "
            "re-export the checkpoint"
        )
    if version != CLOSENESS_VERSION:
        raise CheckpointError(
            f"{where}: the checkpoint was trained on closeness features {version!r}, this sitar "
            f"computes {CLOSENESS_VERSION!r}; use the sitar version it was trained with"
        )
