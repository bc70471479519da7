"""Optional predicate analyzer backed by an installed English spaCy pipeline.

spaCy tags each of its own tokens with a Universal POS tag. A SITAR token (spec §1, docs/spec.md) is a predicate
iff at least one spaCy token whose character span overlaps the SITAR token's span is tagged
``VERB``. The two tokenizations differ (spaCy splits ``don't`` into ``do`` + ``n't`` and ``gonna``
into ``gon`` + ``na``; SITAR splits ``follow-up`` at the hyphen), and the overlap rule maps both
ways without losing a verb: a contraction is a predicate only if one of its pieces is a main verb,
and every piece of a split word keeps its own decision.

The analyzer id names spaCy's version and the pipeline's name and version, so a segmentation can
be reproduced only with the same pipeline. spaCy itself is an optional extra (``sitar[spacy]``);
English pipelines are installed separately (``python -m spacy download en_core_web_sm``) and are
never downloaded by SITAR.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sitar.errors import InputError, MissingDependencyError
from sitar.text import Token

__all__ = ["DEFAULT_PIPELINE", "SpacyAnalyzer"]

#: Pipeline loaded when none is named.
DEFAULT_PIPELINE = "en_core_web_sm"


class SpacyAnalyzer:
    """Predicates = SITAR tokens overlapping a spaCy token with ``pos_ == "VERB"``.

    ``pipeline`` is a spaCy pipeline package name or path given to ``spacy.load`` (default
    ``en_core_web_sm``). Alternatively pass an already built English pipeline as ``nlp`` (for
    example a blank pipeline with your own components); ``pipeline`` must then be None. The pipeline
    must assign Universal POS tags (``token.pos_``), e.g. with a tagger plus attribute ruler or a
    morphologizer.
    """

    name = "spacy"

    def __init__(
        self, pipeline: str | None = None, *, nlp: Callable[[str], Any] | None = None
    ) -> None:
        if nlp is not None and pipeline is not None:
            raise InputError(
                "SpacyAnalyzer takes either a pipeline name or a loaded nlp object, not both; "
                f"got pipeline={pipeline!r} and an nlp object"
            )
        try:
            import spacy
        except ImportError as e:
            raise MissingDependencyError("spacy", "the spaCy analyzer", extra="spacy") from e
        if nlp is None:
            pipeline = pipeline or DEFAULT_PIPELINE
            try:
                nlp = spacy.load(pipeline)
            except OSError as e:
                raise InputError(
                    f"spaCy pipeline {pipeline!r} is not installed (or not a valid path); install an "
                    f"English pipeline, e.g. `python -m spacy download {DEFAULT_PIPELINE}`, and pass its "
                    "name: `--analyzer spacy:en_core_web_sm` on the command line, "
                    "analyzer='spacy:en_core_web_sm' in Python"
                ) from e
        meta = getattr(nlp, "meta", None) or {}
        lang = getattr(nlp, "lang", None) or meta.get("lang")
        if lang != "en":
            raise InputError(
                f"the spaCy analyzer needs an English pipeline (lang 'en'), got lang {lang!r}; "
                f"load an English pipeline such as {DEFAULT_PIPELINE!r}"
            )
        pipe_name = str(meta.get("name") or pipeline or "pipeline")
        if not pipe_name.startswith(f"{lang}_"):
            pipe_name = f"{lang}_{pipe_name}"
        pipe_version = str(meta.get("version") or "0.0.0")
        self._nlp = nlp
        self._id = f"spacy-{spacy.__version__}+{pipe_name}-{pipe_version}"

    @property
    def id(self) -> str:
        """``spacy-<spaCy version>+<pipeline name>-<pipeline version>``; recorded in signatures."""
        return self._id

    def predicates(self, text: str, tokens: Sequence[Token]) -> frozenset[int]:
        """Indices of ``tokens`` (``sitar.text.tokenize(text)``) overlapping a spaCy ``VERB``."""
        if not isinstance(text, str):
            raise InputError(f"the analyzer expects the original string, got {type(text).__name__}")
        if not tokens:
            return frozenset()
        try:
            doc = self._nlp(text)
        except ValueError as e:  # e.g. text longer than nlp.max_length
            raise InputError(
                f"spaCy pipeline for {self._id} could not process the text: {e}"
            ) from e
        return frozenset(_overlapping_verbs(text, tokens, doc, self._id))

    def __repr__(self) -> str:
        return f"SpacyAnalyzer(id={self._id!r})"


def _overlapping_verbs(
    text: str, tokens: Sequence[Token], doc: Iterable[Any], analyzer_id: str
) -> list[int]:
    """Indices of SITAR tokens whose character span overlaps a spaCy token tagged VERB."""
    spacy_tokens = list(doc)
    covered = bytearray(len(text) + 1)  # covered[c] = 1 if character c lies in a VERB token
    tagged = False
    for tok in spacy_tokens:
        pos = getattr(tok, "pos_", "")
        if pos:
            tagged = True
        if pos == "VERB":
            start = tok.idx
            covered[start : start + len(tok.text)] = b"\x01" * len(tok.text)
    if not tagged and any(not t.text.isspace() for t in spacy_tokens):
        raise InputError(
            f"the spaCy pipeline behind {analyzer_id} assigned no Universal POS tags (token.pos_); "
            "use a pipeline with a tagger and attribute_ruler, or a morphologizer"
        )
    found = []
    for k, token in enumerate(tokens):
        if text[token.start : token.end] != token.text:
            raise InputError(
                f"token {k} ({token!r}) does not match the text at its span; pass the tokens of this "
                "very string, i.e. sitar.text.tokenize(text)"
            )
        if any(covered[token.start : token.end]):
            found.append(k)
    return found
