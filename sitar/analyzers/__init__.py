"""The linguistic analyzer behind CGD consolidation (spec §3, docs/spec.md).

Consolidation needs one linguistic decision: which tokens of a transcript are *predicates* (main
verbs, Universal POS ``VERB``; auxiliaries and modals never are). That decision sits behind the
small :class:`Analyzer` protocol so that segmentations can be computed with the default, fully
offline lexicon analyzer or with any installed spaCy English pipeline. The analyzer is part of the
algorithm: its ``id`` (``name-version``) goes into every signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from sitar.errors import InputError
from sitar.text import Token

__all__ = ["DEFAULT_ANALYZER", "Analyzer", "get_analyzer"]

DEFAULT_ANALYZER = "lexicon"


@runtime_checkable
class Analyzer(Protocol):
    """Decides which tokens of a transcript are predicates."""

    @property
    def id(self) -> str:
        """``name-version``, e.g. ``lexicon-1+lemminflect-0.2.3``; recorded in signatures."""
        ...

    def predicates(self, text: str, tokens: Sequence[Token]) -> frozenset[int]:
        """Indices into ``tokens`` (the spec §1 tokens of ``text``) that are main-verb predicates.

        ``text`` is the full original string of one side; ``tokens`` is ``sitar.text.tokenize(text)``.
        Must be deterministic.
        """
        ...


_CACHE: dict[str, Analyzer] = {}


def get_analyzer(analyzer: str | Analyzer | None = None) -> Analyzer:
    """Resolve ``None`` (the default), a name (``"lexicon"``, ``"spacy"`` or ``"spacy:<pipeline>"``),
    or an :class:`Analyzer` instance. Instances built from names are cached."""
    if analyzer is None:
        analyzer = DEFAULT_ANALYZER
    if not isinstance(analyzer, str):
        if isinstance(analyzer, Analyzer):
            return analyzer
        raise InputError(
            f"analyzer must be a name or an object with .id and .predicates(), got {type(analyzer).__name__}"
        )
    if analyzer not in _CACHE:
        if analyzer == "lexicon":
            from sitar.analyzers.lexicon import LexiconAnalyzer

            _CACHE[analyzer] = LexiconAnalyzer()
        elif analyzer == "spacy" or analyzer.startswith("spacy:"):
            from sitar.analyzers.spacy import SpacyAnalyzer

            _, _, pipeline = analyzer.partition(":")
            _CACHE[analyzer] = SpacyAnalyzer(pipeline or None)
        else:
            raise InputError(
                f"unknown analyzer {analyzer!r}; expected 'lexicon', 'spacy' or 'spacy:<pipeline name>'"
            )
    return _CACHE[analyzer]
