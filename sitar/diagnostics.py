"""Explanations on top of a scorer: why a pair got its score, gap by gap.

Everything here is a pure function of its inputs and of a *score source* (see
:mod:`sitar._sources`): either a :class:`~sitar.scorer.Scorer` (anything with
``score(*, references, hypotheses) -> ScoreResult`` and a ``signature``) or a plain
``predict_fn(references, hypotheses) -> array`` of normalised scores in ``[0, 1]`` (test doubles,
other models). No LLM is involved.

* :func:`explain` / :func:`explain_many` segment each pair with CGD and score the pair together
  with every single-gap hypothesis ``h^(i)`` (SPEC §4) in **one** batched scoring call, so the cost
  is one extra model input per gap. Each gap gets an estimated severity (its normalised
  single-gap score) and an estimated tier by :data:`TIER_RULE` (see :func:`estimate_tier`).
* :func:`meaning_critical_rate` is the share of pairs whose score reaches the T2 band
  (raw ``>= 5/3``, normalised ``>= 5/7``): an LLM-free counterpart of S²ER.

System comparison (``compare``, ``compare_scores``, ``paired_bootstrap``, ``join_by_id``,
``word_error_counts`` and their result classes) lives in :mod:`sitar.comparison`; importing those
names from here still works but warns (``DeprecationWarning``).

Every result carries the SPEC §9 signature of the scores it was computed from.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sitar._sources import (
    _BAND_EPS,
    MEANING_CRITICAL_THRESHOLD,
    PredictFn,
    _check_texts,
    _score,
    meaning_critical_rate,
)
from sitar.errors import InputError
from sitar.targets import MAX_SCORE, normalize_score, score_from_tiers
from sitar.validation import check_text

if TYPE_CHECKING:
    from sitar.analyzers import Analyzer
    from sitar.gaps import Gap, Segmentation

__all__ = [
    "MEANING_CRITICAL_THRESHOLD",
    "TIER_RULE",
    "Explanation",
    "GapExplanation",
    "PredictFn",
    "estimate_tier",
    "explain",
    "explain_analyses",
    "explain_many",
    "meaning_critical_rate",
]

#: Name and version of the estimated-tier rule (see :func:`estimate_tier`); part of explanations.
TIER_RULE = "position-nominal-1"
#: The rule of the gap head's same-pass tiers (SPEC §7b; see :mod:`sitar.gapscore`): the rounded
#: expected step (the default ``mean`` decoding) or, with ``decode="median"``, the median step.
GAP_HEAD_RULE = "gap-head-expected-step-1"
GAP_HEAD_RULES = {"mean": GAP_HEAD_RULE, "median": "gap-head-median-step-1"}
#: ``explain`` methods: ``auto`` picks ``gaps`` for a gap-head scorer, else ``rescore``.
EXPLAIN_METHODS = ("auto", "gaps", "rescore")

#: Names that moved to :mod:`sitar.comparison`: still importable from here, with a warning.
_MOVED_TO_COMPARISON = frozenset(
    {
        "BOOTSTRAP_VERSION",
        "MAX_BOOTSTRAP",
        "Comparison",
        "GroupSummary",
        "PairwiseResult",
        "SystemSummary",
        "compare",
        "compare_scores",
        "join_by_id",
        "paired_bootstrap",
        "word_error_counts",
    }
)


def __getattr__(name: str) -> object:
    if name in _MOVED_TO_COMPARISON:
        warnings.warn(
            f"sitar.diagnostics.{name} moved to sitar.comparison; import it from there "
            "(the old path will be removed in a later release)",
            DeprecationWarning,
            stacklevel=2,
        )
        from sitar import comparison

        return getattr(comparison, name)
    raise AttributeError(f"module 'sitar.diagnostics' has no attribute {name!r}")


# -- tiers -------------------------------------------------------------------------------------------


def estimate_tier(score: float) -> tuple[int, int]:
    """Estimated ``(tier, direction)`` of a gap from its normalised single-gap score.

    Rule :data:`TIER_RULE`: the raw score ``s = 7/3 * score`` of a single-gap hypothesis lies in
    its position's interval ``[pos, pos + 1/3)`` (SPEC §5 with one gap), so the estimated position
    is ``pos = min(floor(3 s), 6) / 3`` and the estimated tier is the *nominal* tier ``t`` of
    ``pos = t + δ/3`` (``δ`` in {-1, 0, +1}, the boundary direction). In raw terms:
    T0 for ``s < 2/3``, T1 for ``2/3 <= s < 5/3``, T2 for ``s >= 5/3`` -- so a gap is T2 exactly
    when its single-gap score is in the meaning-critical band. This is the reading the scorer's
    window combination uses too; the checkpoint's ordinal logits are not used because
    :class:`~sitar.scorer.Scorer` does not expose them.

    >>> estimate_tier(0.0), estimate_tier(3 / 7), estimate_tier(5 / 7), estimate_tier(2 / 7)
    ((0, 0), (1, 0), (2, -1), (1, -1))
    """
    if isinstance(score, bool) or not isinstance(score, numbers.Real) or math.isnan(score):
        raise InputError(f"estimate_tier expects a normalised score in [0, 1], got {score!r}")
    raw = min(max(float(score), 0.0), 1.0) * MAX_SCORE
    step = min(math.floor(3.0 * raw + 1e-9), 6)  # position = step / 3
    tier = (step + 1) // 3  # nominal tier of t + d/3: steps 0,1 -> 0; 2,3,4 -> 1; 5,6 -> 2
    return tier, step - 3 * tier


# -- explain -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GapExplanation:
    """One gap with the score of its single-gap hypothesis ``h^(i)`` (the estimated severity).

    ``tier`` and ``direction`` are estimated from ``score`` by :func:`estimate_tier`.
    """

    gap: Gap
    hypothesis: str
    score: float
    tier: int
    direction: int

    @property
    def raw(self) -> float:
        return self.score * MAX_SCORE

    @property
    def meaning_critical(self) -> bool:
        return self.score >= MEANING_CRITICAL_THRESHOLD - _BAND_EPS

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.gap.to_dict(),
            "single_gap_hypothesis": self.hypothesis,
            "score": self.score,
            "raw": self.raw,
            "tier": self.tier,
            "direction": self.direction,
            "meaning_critical": self.meaning_critical,
        }


@dataclass(frozen=True)
class Explanation:
    """Why one pair got its score: the pair score and every gap's single-gap score.

    How the pair score relates to the gaps (SPEC §5): the pair's raw score should lie in the base
    interval of its most severe gap, ``[β, β + 1/3)``, refined upwards by the other gaps.
    ``max_gap_score`` is the highest single-gap score; ``tier_score`` is the SPEC §5 score that
    the estimated tiers alone imply (``score_from_tiers``, normalised), a model-free cross-check
    of ``score``. A pair without gaps has ``score`` 0, no gaps and needs no model input.
    ``n_model_inputs`` is the cost: model inputs spent on this pair (pair plus one per gap, more
    for windowed long inputs; -1 when the score source does not say).
    """

    reference: str
    hypothesis: str
    score: float
    gaps: tuple[GapExplanation, ...]
    n_model_inputs: int
    tier_rule: str
    signature: str
    segmentation_signature: str
    #: ``"gaps"`` (tiers from the scoring pass itself) or ``"rescore"`` (single-gap rescoring).
    method: str = "rescore"

    @property
    def raw(self) -> float:
        return self.score * MAX_SCORE

    @property
    def max_gap_score(self) -> float:
        return max((g.score for g in self.gaps), default=0.0)

    @property
    def tier_score(self) -> float:
        tiers = [g.tier for g in self.gaps]
        directions = [g.direction for g in self.gaps]
        return score_from_tiers(tiers, directions) / MAX_SCORE

    @property
    def meaning_critical(self) -> bool:
        return self.score >= MEANING_CRITICAL_THRESHOLD - _BAND_EPS

    def __len__(self) -> int:
        return len(self.gaps)

    def to_dict(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "hypothesis": self.hypothesis,
            "score": self.score,
            "raw": self.raw,
            "meaning_critical": self.meaning_critical,
            "max_gap_score": self.max_gap_score,
            "tier_score": self.tier_score,
            "n_gaps": len(self.gaps),
            "n_model_inputs": self.n_model_inputs,
            "gaps": [g.to_dict() for g in self.gaps],
            "tier_rule": self.tier_rule,
            "method": self.method,
            "signature": self.signature,
            "segmentation_signature": self.segmentation_signature,
        }


def _segment_all(references: list[str], hypotheses: list[str], analyzer: Any) -> list[Segmentation]:
    from sitar.cgd import segment

    return [segment(r, h, analyzer=analyzer) for r, h in zip(references, hypotheses, strict=True)]


def _normal_form_of(source: Any) -> str:
    """The normal form a scorer (or a test double without one) compares in."""
    from sitar.normalize import NORMALIZER_VERSION

    return getattr(source, "normal_form", NORMALIZER_VERSION)


def _original_segmentation(
    reference: str,
    hypothesis: str,
    normalized_seg: Segmentation | None,
    analyzer: Any,
    normal_form: str,
) -> Segmentation:
    """CGD of the normalised pair in ``normal_form`` (``normalized_seg`` when the scorer already
    has it), told in the original strings (:func:`sitar.normalize.original_segmentation`)."""
    from sitar.cgd import segment
    from sitar.normalize import normalize_pair, original_segmentation

    pair = normalize_pair(reference, hypothesis, version=normal_form)
    seg = normalized_seg if normalized_seg is not None else segment(*pair.texts, analyzer=analyzer)
    return original_segmentation(seg, pair)


def explain_many(
    source: Any,
    *,
    references: Sequence[str],
    hypotheses: Sequence[str],
    analyzer: str | Analyzer | None = None,
    batch_size: int = 32,
    signature: str | None = None,
    method: str = "auto",
    progress: bool = False,
) -> tuple[Explanation, ...]:
    """Explain many pairs.

    ``method="gaps"`` (what ``"auto"`` picks for a :class:`~sitar.scorer.Scorer` scoring with its
    gap head): each gap's tier and direction come from the **same single forward pass** that scores
    the pair (SPEC §7b); a gap's ``score`` is its predicted position on the normalised scale,
    ``(t + δ/3) / (7/3)``, the SPEC §5 score of that gap alone. No extra model input.
    ``method="rescore"`` (the only choice for a pair-head scorer or a ``predict_fn``, and a
    cross-check for a gap head): one scoring call over all pairs and all single-gap hypotheses,
    each gap's tier estimated from its single-gap score by :func:`estimate_tier`.

    ``source`` is a :class:`~sitar.scorer.Scorer` or a ``predict_fn``. ``analyzer`` is the CGD
    analyzer (default: the scorer's own ``analyzer`` attribute, else the default analyzer; the
    gap method always uses the scorer's). ``signature`` overrides the score signature (useful with
    a ``predict_fn``). Pairs whose normalised tokens are equal get score 0 and no gaps.
    ``progress`` shows the scorer's progress bar on stderr (a ``predict_fn`` has none).
    """
    refs = _check_texts("references", references)
    hyps = _check_texts("hypotheses", hypotheses)
    if len(refs) != len(hyps):
        raise InputError(
            f"references and hypotheses must have the same length, got {len(refs)} references "
            f"and {len(hyps)} hypotheses"
        )
    if method not in EXPLAIN_METHODS:
        raise InputError(f"method must be one of {EXPLAIN_METHODS}, got {method!r}")
    gap_head = getattr(source, "head", None) == "gaps" and hasattr(source, "analyze")
    if method == "gaps" and not gap_head:
        raise InputError(
            "method='gaps' needs a Scorer that scores with its gap head (a gap-aware checkpoint); "
            "use method='rescore'"
        )
    if method == "gaps" or (method == "auto" and gap_head):
        return _explain_same_pass(
            source, refs, hyps, batch_size=batch_size, signature=signature, progress=progress
        )
    if analyzer is None:
        analyzer = getattr(source, "analyzer", None)
    normalized = getattr(source, "normalize", "none") == "sitar"
    if normalized:
        # The scorer compares canonical texts; CGD must see the same ones, and the explanation is
        # told in the user's strings (spans and single-gap hypotheses of the original texts).
        form = _normal_form_of(source)
        segs = [
            _original_segmentation(r, h, None, analyzer, form)
            for r, h in zip(refs, hyps, strict=True)
        ]
    else:
        segs = _segment_all(refs, hyps, analyzer)
    # One call: inputs [0, n) are the pairs, then each pair's single-gap hypotheses in order.
    job_r: list[str] = list(refs)
    job_h: list[str] = list(hyps)
    first_gap: list[int] = []
    for seg in segs:
        first_gap.append(len(job_r))
        singles = seg.single_gap_hypotheses()
        job_r.extend([seg.reference] * len(singles))
        job_h.extend(singles)
    scored = _score(
        source,
        job_r,
        job_h,
        batch_size=batch_size,
        signature=signature,
        # Only a predict_fn's signature is built here; it names the CGD analyzer used.
        analyzer_id=segs[0].analyzer if segs else "none",
        progress=progress,
        inputs=f"the {len(refs)} pairs, then their {len(job_r) - len(refs)} single-gap hypotheses",
    )
    sig = scored.signature
    out: list[Explanation] = []
    for i, seg in enumerate(segs):
        k0 = first_gap[i]
        gaps = []
        for j, gap in enumerate(seg.gaps):
            s = float(scored.scores[k0 + j])
            tier, direction = estimate_tier(s)
            gaps.append(GapExplanation(gap, job_h[k0 + j], s, tier, direction))
        n_inputs = scored.n_inputs[[i, *range(k0, k0 + len(seg.gaps))]]
        cost = -1 if np.any(n_inputs < 0) else int(n_inputs.sum())
        # No gaps means equal normalised tokens: the score is 0 by SPEC §5, whatever the source.
        pair_score = float(scored.scores[i]) if seg.gaps else 0.0
        out.append(
            Explanation(
                reference=seg.reference,
                hypothesis=seg.hypothesis,
                score=pair_score,
                gaps=tuple(gaps),
                n_model_inputs=cost if seg.gaps else 0,
                tier_rule=TIER_RULE,
                signature=sig,
                segmentation_signature=seg.signature,
                method="rescore",
            )
        )
    return tuple(out)


def _explain_same_pass(
    scorer: Any,
    refs: list[str],
    hyps: list[str],
    *,
    batch_size: int,
    signature: str | None,
    progress: bool = False,
) -> tuple[Explanation, ...]:
    analyses = scorer.analyze(
        references=refs, hypotheses=hyps, batch_size=batch_size, progress=progress
    )
    return explain_analyses(scorer, refs, hyps, analyses, signature=signature)


def explain_analyses(
    scorer: Any,
    references: Sequence[str],
    hypotheses: Sequence[str],
    analyses: Sequence[Any],
    *,
    signature: str | None = None,
) -> tuple[Explanation, ...]:
    """Explanations (method ``"gaps"``) of pairs that a gap-head ``scorer`` already analysed
    (:meth:`~sitar.scorer.Scorer.analyze`): no model call, so a caller that needs both the
    scores and the explanations runs the model once."""
    from sitar.cgd import segment

    if getattr(scorer, "head", None) != "gaps":
        raise InputError("explain_analyses needs a Scorer that scores with its gap head")
    refs, hyps = list(references), list(hypotheses)
    if not len(refs) == len(hyps) == len(analyses):
        raise InputError(
            f"references, hypotheses and analyses must have the same length, got {len(refs)}, "
            f"{len(hyps)} and {len(analyses)}"
        )
    sig = signature or scorer.signature
    scale = scorer.config.score_scale
    normalized = getattr(scorer, "normalize", "none") == "sitar"
    out = []
    for r, h, a in zip(refs, hyps, analyses, strict=True):
        if normalized:
            seg = _original_segmentation(
                r, h, a.segmentation, scorer.analyzer, _normal_form_of(scorer)
            )
        else:
            seg = (
                a.segmentation
                if a.segmentation is not None
                else segment(r, h, analyzer=scorer.analyzer)
            )
        singles = seg.single_gap_hypotheses() if seg.gaps else []
        gaps = tuple(
            GapExplanation(gap, single, p.position / MAX_SCORE, p.tier, p.direction)
            for gap, single, p in zip(seg.gaps, singles, a.gaps or (), strict=True)
        )
        out.append(
            Explanation(
                reference=r,
                hypothesis=h,
                score=normalize_score(a.raw, scale),
                gaps=gaps,
                n_model_inputs=a.n_windows,
                tier_rule=GAP_HEAD_RULES[getattr(scorer, "decode", "mean")],
                signature=sig,
                segmentation_signature=seg.signature,
                method="gaps",
            )
        )
    return tuple(out)


def explain(
    source: Any,
    reference: str,
    hypothesis: str,
    *,
    analyzer: str | Analyzer | None = None,
    batch_size: int = 32,
    signature: str | None = None,
    method: str = "auto",
) -> Explanation:
    """Explain one pair: its score and each gap's severity (see :func:`explain_many` for the
    ``method``: the gap head's same-pass tiers, or single-gap rescoring)."""
    check_text(reference, "reference")
    check_text(hypothesis, "hypothesis")
    return explain_many(
        source,
        references=[reference],
        hypotheses=[hypothesis],
        analyzer=analyzer,
        batch_size=batch_size,
        signature=signature,
        method=method,
    )[0]
