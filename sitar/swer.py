"""``swer``: an extent-aware, severity-weighted error rate from the same single pass as the score.

SITAR's score (docs/spec.md §5) is bounded and saturating: one wrong value and a garbled
half-sentence both land near the top of the T2 band. That is what the paper defines, and it is the
right answer to "did this transcript change the outcome?". It is the wrong tool for ranking systems
by *how much* they damage, which is what WER is used for. ``swer`` is that rate, blind to harmless
changes:

* Each CGD gap ``g`` of a pair gets a **weight** from its predicted tier: T0 weighs 0, T2 weighs 1,
  T1 weighs ``t1_weight``.
* Each gap has an **extent** ``e(g)`` on the reference's scale:

  - ``"words"``: the word-level edit distance between the gap's reference and hypothesis tokens
    (normalised tokens, docs/spec.md §1): the gap's share of a WER numerator;
  - ``"chars"``: the character edit distance between the gap's two normalised texts (tokens joined
    by one space), so a near-miss such as "collected" -> "connected" (2 edits) weighs less than a
    different word; the pair's length is then counted in characters too.

* The pair's **numerator** is ``sum_g weight(g) * e(g)`` and its **length** the reference length
  in the same unit (normalised tokens, or their characters joined by single spaces). The pair's
  value is ``numerator / length`` (``0.0`` for an empty reference with no gaps, the numerator
  itself for an empty reference with gaps: there is nothing to divide by, and an insertion into
  silence is still damage); the **corpus** value is the sum of numerators over the sum of lengths,
  a micro average as WER's is (``nan`` for a corpus with zero total length).

Like WER it is not bounded by 1 (insertions). With every gap at T2 and ``extent="words"`` it is
the WER of CGD's gaps.

The parameters are chosen on a validation set, never on test data, and recorded in
:data:`SWER_DEFAULT` with the version string that outputs carry (``swer_version``); see
``experiments/swer-params/``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz.distance import Levenshtein

from sitar.errors import InputError

__all__ = [
    "EXTENTS",
    "SWER_DEFAULT",
    "SwerParams",
    "checkpoint_swer_params",
    "corpus_swer",
    "explanation_swer",
    "gap_extent",
    "pair_length",
    "pair_swer",
    "pair_value",
    "swer_params_from_section",
    "swer_parts",
]

#: Extent measures, in documentation order.
EXTENTS: tuple[str, ...] = ("words", "chars")


@dataclass(frozen=True)
class SwerParams:
    """The two choices behind ``swer``: the T1 weight (in ``[0, 1]``) and the extent measure."""

    t1_weight: float = 0.5
    extent: str = "words"

    def __post_init__(self) -> None:
        w = self.t1_weight
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= float(w) <= 1.0:
            raise InputError(f"swer t1_weight must be a number in [0, 1], got {w!r}")
        if self.extent not in EXTENTS:
            raise InputError(
                f"swer extent must be one of {', '.join(EXTENTS)}, got {self.extent!r}"
            )

    @property
    def version(self) -> str:
        """``swer-1:t1=<w>,ext=<extent>``: what outputs record next to a ``swer`` value."""
        return f"swer-1:t1={float(self.t1_weight):g},ext={self.extent}"

    def weight(self, tier: int) -> float:
        """Weight of a gap of nominal tier ``tier`` (0, 1 or 2)."""
        if tier == 0:
            return 0.0
        if tier == 1:
            return float(self.t1_weight)
        if tier == 2:
            return 1.0
        raise InputError(f"a tier must be 0, 1 or 2, got {tier!r}")


#: The parameters the scorer reports ``swer`` with for a checkpoint that names none (chosen for
#: ``sitar-minilm-gap-v5`` in experiments/swer-params/).
SWER_DEFAULT = SwerParams(t1_weight=0.6, extent="words")


def checkpoint_swer_params(config: Any) -> SwerParams:
    """The ``swer`` parameters of a checkpoint: its config's ``scoring.swer``
    (``{"t1_weight": w, "extent": e}``, chosen for that checkpoint on the validation A/B set and
    written at export) or, when it names none, :data:`SWER_DEFAULT`. Invalid values raise
    :class:`~sitar.errors.InputError` (the checkpoint loader turns it into a CheckpointError)."""
    extra = getattr(config, "extra", None)
    scoring = extra.get("scoring") if isinstance(extra, dict) else None
    return swer_params_from_section(scoring.get("swer") if isinstance(scoring, dict) else None)


def swer_params_from_section(section: Any) -> SwerParams:
    """:class:`SwerParams` of a ``scoring.swer`` section (None: :data:`SWER_DEFAULT`); an invalid
    section raises :class:`~sitar.errors.InputError`."""
    if section is None:
        return SWER_DEFAULT
    if not isinstance(section, dict) or set(section) - {"t1_weight", "extent"}:
        raise InputError(
            f"scoring.swer must be an object with t1_weight and extent, got {section!r}"
        )
    return SwerParams(
        t1_weight=section.get("t1_weight", SWER_DEFAULT.t1_weight),
        extent=section.get("extent", SWER_DEFAULT.extent),
    )


def gap_extent(ref_norms: Sequence[str], hyp_norms: Sequence[str], extent: str) -> float:
    """Extent of one gap from its normalised reference and hypothesis tokens (see the module
    docstring). Both empty gives 0."""
    if extent == "words":
        return float(Levenshtein.distance(list(ref_norms), list(hyp_norms)))
    if extent == "chars":
        return float(Levenshtein.distance(" ".join(ref_norms), " ".join(hyp_norms)))
    raise InputError(f"swer extent must be one of {', '.join(EXTENTS)}, got {extent!r}")


def pair_length(ref_norms: Sequence[str], extent: str) -> float:
    """The reference's length in the extent's unit: tokens, or characters of the tokens joined by
    single spaces."""
    if extent == "words":
        return float(len(ref_norms))
    if extent == "chars":
        return float(len(" ".join(ref_norms)))
    raise InputError(f"swer extent must be one of {', '.join(EXTENTS)}, got {extent!r}")


def pair_swer(
    segmentation: Any, tiers: Sequence[int], params: SwerParams = SWER_DEFAULT
) -> tuple[float, float]:
    """``(numerator, length)`` of one pair from its CGD segmentation (a
    :class:`sitar.Segmentation`: its tokens carry the normalised forms, its gaps the token
    intervals) and one nominal tier per gap."""
    return swer_parts(
        [t.norm for t in segmentation.ref_tokens],
        [t.norm for t in segmentation.hyp_tokens],
        [(g.ref_tokens, g.hyp_tokens) for g in segmentation.gaps],
        tiers,
        params,
    )


def explanation_swer(explanation: Any, params: SwerParams = SWER_DEFAULT) -> tuple[float, float]:
    """``(numerator, length)`` of an :class:`~sitar.diagnostics.Explanation` from its gaps'
    estimated tiers (the scoring pass's own tiers when ``explanation.method == "gaps"``, so the
    value then equals :attr:`sitar.result.ScoreResult.swer`'s)."""
    from sitar.text import tokenize

    return swer_parts(
        [t.norm for t in tokenize(explanation.reference)],
        [t.norm for t in tokenize(explanation.hypothesis)],
        [(g.gap.ref_tokens, g.gap.hyp_tokens) for g in explanation.gaps],
        [g.tier for g in explanation.gaps],
        params,
    )


def swer_parts(
    ref_norms: Sequence[str],
    hyp_norms: Sequence[str],
    intervals: Sequence[tuple[tuple[int, int], tuple[int, int]]],
    tiers: Sequence[int],
    params: SwerParams = SWER_DEFAULT,
) -> tuple[float, float]:
    """``(numerator, length)`` from the normalised tokens of both sides, each gap's
    ``((ref_start, ref_end), (hyp_start, hyp_end))`` token interval and its nominal tier."""
    if len(tiers) != len(intervals):
        raise InputError(f"one tier per gap is needed: {len(intervals)} gaps, {len(tiers)} tiers")
    num = 0.0
    for ((ra, rb), (ha, hb)), tier in zip(intervals, tiers, strict=True):
        w = params.weight(int(tier))
        if w:
            num += w * gap_extent(ref_norms[ra:rb], hyp_norms[ha:hb], params.extent)
    return num, pair_length(ref_norms, params.extent)


def pair_value(numerator: float, length: float) -> float:
    """One pair's ``swer`` from its numerator and length (see the module docstring)."""
    if length > 0:
        return numerator / length
    return float(numerator)


def corpus_swer(parts: Iterable[tuple[float, float]]) -> float:
    """Micro average: the sum of numerators over the sum of lengths (``nan`` when the total length
    is zero)."""
    num = length = 0.0
    for n, d in parts:
        num += n
        length += d
    return num / length if length > 0 else math.nan
