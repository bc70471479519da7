"""Diagnostics on top of a scorer: per-gap severity, the meaning-critical rate, system comparison.

Everything here is a pure function of its inputs and of a *score source*: either a
:class:`~sitar.scorer.Scorer` (anything with ``score(*, references, hypotheses) -> ScoreResult``
and a ``signature``) or a plain ``predict_fn(references, hypotheses) -> array`` of normalised
scores in ``[0, 1]`` (test doubles, other models). No LLM is involved.

* :func:`explain` / :func:`explain_many` segment each pair with CGD and score the pair together
  with every single-gap hypothesis ``h^(i)`` (SPEC §4) in **one** batched scoring call, so the cost
  is one extra model input per gap. Each gap gets an estimated severity (its normalised
  single-gap score) and an estimated tier by :data:`TIER_RULE` (see :func:`estimate_tier`).
* :func:`meaning_critical_rate` is the share of pairs whose score reaches the T2 band
  (raw ``>= 5/3``, normalised ``>= 5/7``): an LLM-free counterpart of S²ER.
* :func:`compare` / :func:`compare_scores` compare two or more systems on the same utterances with
  a seeded paired bootstrap (:data:`BOOTSTRAP_VERSION`), pairwise win probabilities, p-values,
  the meaning-critical rate, a WER column (``jiwer``, over SPEC §1 normalised tokens) and optional
  per-group breakdowns.

Every result carries the SPEC §9 signature of the scores it was computed from.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from sitar.errors import InputError, MissingDependencyError
from sitar.targets import MAX_SCORE, T2_BAND_RAW, normalize_score, score_from_tiers

if TYPE_CHECKING:
    from sitar.analyzers import Analyzer
    from sitar.gaps import Gap, Segmentation

__all__ = [
    "BOOTSTRAP_VERSION",
    "MEANING_CRITICAL_THRESHOLD",
    "TIER_RULE",
    "Comparison",
    "Explanation",
    "GapExplanation",
    "GroupSummary",
    "PairwiseResult",
    "PredictFn",
    "SystemSummary",
    "compare",
    "compare_scores",
    "estimate_tier",
    "explain",
    "explain_analyses",
    "explain_many",
    "join_by_id",
    "meaning_critical_rate",
    "paired_bootstrap",
    "word_error_counts",
]

#: ``predict_fn(references, hypotheses) -> np.ndarray`` of normalised scores in [0, 1], shape (n,).
PredictFn = Callable[[Sequence[str], Sequence[str]], Any]

#: Normalised score from which a pair is *meaning-critical*: the T2 band, raw >= 5/3 (= 5/7).
MEANING_CRITICAL_THRESHOLD = T2_BAND_RAW / MAX_SCORE
# Scores are stored normalised (raw / (7/3)); a raw score of exactly 5/3 must stay in the band
# after that float division, so the comparison allows a few ulps of slack.
_BAND_EPS = 1e-9

#: Name and version of the estimated-tier rule (see :func:`estimate_tier`); part of explanations.
TIER_RULE = "position-nominal-1"
#: The rule of the gap head's same-pass tiers (SPEC §7b; see :mod:`sitar.gapscore`): the rounded
#: expected step (the default ``mean`` decoding) or, with ``decode="median"``, the median step.
GAP_HEAD_RULE = "gap-head-expected-step-1"
GAP_HEAD_RULES = {"mean": GAP_HEAD_RULE, "median": "gap-head-median-step-1"}
#: ``explain`` methods: ``auto`` picks ``gaps`` for a gap-head scorer, else ``rescore``.
EXPLAIN_METHODS = ("auto", "gaps", "rescore")
#: Version of the bootstrap / p-value / win-probability definitions (see :func:`paired_bootstrap`).
BOOTSTRAP_VERSION = "1"
#: Upper bound on ``n_bootstrap`` (time grows linearly with it; more adds no precision of note).
MAX_BOOTSTRAP = 1_000_000

_MAX_LISTED_IDS = 10


# -- score sources ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scores:
    """Normalised scores of one scoring call, plus what it cost and where it came from."""

    scores: np.ndarray  # (n,) float64, normalised
    n_inputs: np.ndarray  # (n,) int: model inputs per pair (0 for identical pairs); -1 unknown
    signature: str


def _predict_fn_signature(analyzer: str = "none") -> str:
    from sitar.signature import make_signature

    return make_signature(analyzer=analyzer, extra={"scorer": "predict_fn"})


def _score(
    source: Any,
    references: Sequence[str],
    hypotheses: Sequence[str],
    *,
    batch_size: int,
    signature: str | None,
    analyzer_id: str = "none",
    progress: bool = False,
    inputs: str | None = None,
) -> _Scores:
    """Score pairs with a scorer (``.score``) or a ``predict_fn``; validate the result.

    ``inputs`` says what the ``len(references)`` inputs are, for the error message when the
    source returns the wrong number of scores (default: ``"<n> pairs"``)."""
    n = len(references)
    if hasattr(source, "score") and callable(source.score):
        kwargs: dict[str, Any] = {"batch_size": batch_size}
        if progress:
            kwargs["progress"] = True
        result = source.score(references=list(references), hypotheses=list(hypotheses), **kwargs)
        values = np.asarray(result.scores, dtype=np.float64).reshape(-1)
        n_inputs = np.asarray(getattr(result, "n_windows", [-1] * n), dtype=np.int64)
        sig = signature or str(result.signature)
    elif callable(source):
        returned = source(list(references), list(hypotheses))
        try:
            if returned is None or isinstance(returned, (str, bytes, Mapping)):
                raise TypeError(type(returned).__name__)
            values = np.asarray(returned, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise InputError(
                f"the predict_fn returned {type(returned).__name__} ({str(returned)[:60]!r}), "
                "which is not an array of numbers; it must return one normalised score per pair"
            ) from e
        if values.ndim != 1:
            raise InputError(
                f"the predict_fn returned an array of shape {values.shape}; it must return a "
                f"1-D array with one normalised score per pair ({n} here)"
            )
        n_inputs = np.full(n, -1, dtype=np.int64)
        sig = signature or _predict_fn_signature(analyzer_id)
    else:
        raise InputError(
            f"expected a Scorer (with .score) or a predict_fn(references, hypotheses), got "
            f"{type(source).__name__}; load one with sitar.scorer.Scorer.load(...)"
        )
    if values.shape != (n,):
        raise InputError(
            f"the score source returned {values.size} scores for {n} inputs "
            f"({inputs or f'{n} pairs'}); a predict_fn must return one normalised score per "
            "(reference, hypothesis) it is given"
        )
    if n and (not np.all(np.isfinite(values)) or values.min() < 0.0 or values.max() > 1.0):
        raise InputError(
            "the score source returned scores outside [0, 1] or non-finite ones; a predict_fn "
            "must return normalised scores (raw / (7/3), clipped to [0, 1])"
        )
    return _Scores(values, n_inputs, sig)


def _check_texts(name: str, items: Any) -> list[str]:
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise InputError(
            f"{name} must be a list of str, got {type(items).__name__}; wrap a single pair as "
            f"{name}=[text]"
        )
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise InputError(f"{name}[{i}] must be a str, got {type(item).__name__}")
    return list(items)


# -- tiers and the meaning-critical rate -------------------------------------------------------------


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


def meaning_critical_rate(scores: Sequence[float] | np.ndarray) -> float:
    """Share of pairs whose normalised score reaches the T2 band (``>= 5/7``, raw ``>= 5/3``).

    An LLM-free counterpart of S²ER. Zero pairs give ``nan`` (a share of nothing).

    >>> meaning_critical_rate([0.0, 0.5, 5 / 7, 0.9])
    0.5
    """
    values = np.asarray(scores, dtype=np.float64).reshape(-1)
    if values.size == 0:
        return math.nan
    if not np.all(np.isfinite(values)):
        raise InputError("meaning_critical_rate: scores must be finite normalised scores")
    return float(np.mean(values >= MEANING_CRITICAL_THRESHOLD - _BAND_EPS))


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
    out = []
    for r, h, a in zip(refs, hyps, analyses, strict=True):
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
    for name, value in (("reference", reference), ("hypothesis", hypothesis)):
        if not isinstance(value, str):
            raise InputError(f"{name} must be a str, got {type(value).__name__}")
    return explain_many(
        source,
        references=[reference],
        hypotheses=[hypothesis],
        analyzer=analyzer,
        batch_size=batch_size,
        signature=signature,
        method=method,
    )[0]


# -- WER -----------------------------------------------------------------------------------------------


def _normalized_words(text: str) -> str:
    from sitar.text import tokenize

    return " ".join(t.norm for t in tokenize(text))


def word_error_counts(
    *, references: Sequence[str], hypotheses: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Per-utterance ``(errors, reference_words)`` from ``jiwer`` over SPEC §1 normalised tokens.

    ``errors`` = substitutions + deletions + insertions of each utterance; WER over any subset is
    ``sum(errors) / sum(reference_words)`` (micro, as jiwer aggregates). Normalising first makes
    WER case- and punctuation-insensitive, on the same tokens CGD aligns.
    """
    refs = _check_texts("references", references)
    hyps = _check_texts("hypotheses", hypotheses)
    if len(refs) != len(hyps):
        raise InputError(
            f"references and hypotheses must have the same length, got {len(refs)} and {len(hyps)}"
        )
    n = len(refs)
    errors = np.zeros(n, dtype=np.int64)
    ref_words = np.zeros(n, dtype=np.int64)
    if n == 0:
        return errors, ref_words
    try:
        import jiwer
    except ImportError as e:
        raise MissingDependencyError("jiwer", "the WER column", "report") from e
    out = jiwer.process_words(
        [_normalized_words(r) for r in refs], [_normalized_words(h) for h in hyps]
    )
    for i, chunks in enumerate(out.alignments):
        ref_words[i] = len(out.references[i])
        for c in chunks:
            if c.type == "substitute" or c.type == "delete":
                errors[i] += c.ref_end_idx - c.ref_start_idx
            elif c.type == "insert":
                errors[i] += c.hyp_end_idx - c.hyp_start_idx
    return errors, ref_words


def _wer(errors: np.ndarray, ref_words: np.ndarray) -> float:
    """Micro WER; nan for no utterances or for errors against zero reference words."""
    if errors.size == 0:
        return math.nan
    total = int(ref_words.sum())
    if total == 0:
        return math.nan if int(errors.sum()) else 0.0
    return float(errors.sum()) / total


# -- bootstrap -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairwiseResult:
    """System ``a`` against system ``b`` on the same utterances (lower scores are better).

    ``diff`` = mean(a) - mean(b) with its bootstrap percentile interval ``diff_ci``; ``p_value``
    is two-sided (see :func:`paired_bootstrap`); ``win_a`` / ``win_b`` are the shares of
    utterances where ``a`` (``b``) scores strictly lower, ``ties`` the share where both are equal,
    so ``win_a + win_b + ties = 1``. ``significant`` is ``p_value < 1 - confidence``.
    """

    a: str
    b: str
    diff: float
    diff_ci: tuple[float, float]
    p_value: float
    win_a: float
    win_b: float
    ties: float
    significant: bool

    @property
    def better(self) -> str | None:
        """The significantly better (lower-scoring) system, or None."""
        if not self.significant:
            return None
        return self.a if self.diff < 0 else self.b

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "diff": _json(self.diff),
            "diff_ci": [_json(self.diff_ci[0]), _json(self.diff_ci[1])],
            "p_value": _json(self.p_value),
            "win_a": _json(self.win_a),
            "win_b": _json(self.win_b),
            "ties": _json(self.ties),
            "significant": self.significant,
            "better": self.better,
        }


@dataclass(frozen=True)
class SystemSummary:
    """One system over a set of utterances: mean normalised score with its bootstrap CI, the
    meaning-critical rate and (when computed) the micro WER."""

    name: str
    n: int
    mean: float
    ci: tuple[float, float]
    meaning_critical_rate: float
    wer: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n": self.n,
            "mean": _json(self.mean),
            "ci": [_json(self.ci[0]), _json(self.ci[1])],
            "meaning_critical_rate": _json(self.meaning_critical_rate),
            "wer": None if self.wer is None else _json(self.wer),
        }


def _json(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def paired_bootstrap(
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    n_bootstrap: int = 1000,
    seed: int | Sequence[int] = 0,
    confidence: float = 0.95,
) -> tuple[dict[str, tuple[float, float]], list[PairwiseResult]]:
    """Paired bootstrap over utterances (definitions version :data:`BOOTSTRAP_VERSION`).

    All systems are resampled with the *same* utterance indices: ``n_bootstrap`` draws of ``n``
    indices with replacement from ``numpy.random.default_rng(seed)``. Returns per-system percentile
    intervals of the mean (``confidence`` level) and, for every pair of systems in input order,
    a :class:`PairwiseResult`. The two-sided p-value of ``diff = mean(a) - mean(b)`` counts the
    resamples whose difference does not have the observed sign, ``k = #{d* : d* · sign(diff) <= 0}``,
    and is ``min(1, 2 (k + 1) / (n_bootstrap + 1))`` (never 0; the smallest value is
    ``2 / (n_bootstrap + 1)``); a zero observed difference gives 1. Zero utterances give ``nan``.
    """
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 1:
        raise InputError(f"n_bootstrap must be a positive integer, got {n_bootstrap!r}")
    if n_bootstrap > MAX_BOOTSTRAP:
        raise InputError(
            f"n_bootstrap must be at most {MAX_BOOTSTRAP:,}, got {n_bootstrap:,}; 10,000 resamples "
            "already give p-values down to 2e-4"
        )
    seeds = [seed] if isinstance(seed, numbers.Integral) else seed
    if (
        isinstance(seed, bool)
        or not isinstance(seeds, Sequence)
        or not seeds
        or any(isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 0 for x in seeds)
    ):
        raise InputError(
            f"seed must be a non-negative integer (or a sequence of them), got {seed!r}"
        )
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, numbers.Real)
        or not 0.0 < confidence < 1.0
    ):
        raise InputError(f"confidence must be in (0, 1), got {confidence!r}")
    names = list(scores)
    if not names:
        raise InputError("paired_bootstrap needs at least one system")
    rows = [np.asarray(scores[k], dtype=np.float64).reshape(-1) for k in names]
    if len({r.shape[0] for r in rows}) != 1:
        sizes = {k: r.shape[0] for k, r in zip(names, rows, strict=True)}
        raise InputError(
            f"every system needs one score per utterance, got these counts: {sizes}; join the "
            "systems by utterance id first (join_by_id)"
        )
    matrix = np.stack(rows)  # (S, n)
    if not np.all(np.isfinite(matrix)):
        raise InputError("scores must be finite numbers")
    n_sys, n = matrix.shape
    nan_ci = (math.nan, math.nan)
    alpha = 1.0 - float(confidence)
    if n == 0:
        cis = {k: nan_ci for k in names}
        pairs = [
            PairwiseResult(
                names[a], names[b], math.nan, nan_ci, math.nan, math.nan, math.nan, math.nan, False
            )
            for a in range(n_sys)
            for b in range(a + 1, n_sys)
        ]
        return cis, pairs
    rng = np.random.default_rng([int(x) for x in seeds] if len(seeds) > 1 else int(seeds[0]))
    boot = np.empty((n_sys, n_bootstrap), dtype=np.float64)  # (S, B) resampled means
    # Chunks bound memory at about 8 MB of indices whatever n is.
    chunk = max(1, min(n_bootstrap, 1_000_000 // n))
    for start in range(0, n_bootstrap, chunk):
        stop = min(n_bootstrap, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))  # (b, n)
        boot[:, start:stop] = matrix[:, idx].mean(axis=2)  # (S, b, n) -> (S, b)
    q = [alpha / 2.0, 1.0 - alpha / 2.0]
    cis = {}
    for s, name in enumerate(names):
        lo, hi = np.quantile(boot[s], q)
        cis[name] = (float(lo), float(hi))
    means = matrix.mean(axis=1)
    pairs = []
    for a in range(n_sys):
        for b in range(a + 1, n_sys):
            diff = float(means[a] - means[b])
            d_star = boot[a] - boot[b]
            lo, hi = np.quantile(d_star, q)
            if diff == 0.0:
                p = 1.0
            else:
                k = int(np.count_nonzero(d_star * math.copysign(1.0, diff) <= 0.0))
                p = min(1.0, 2.0 * (k + 1) / (n_bootstrap + 1))
            win_a = float(np.mean(matrix[a] < matrix[b]))
            win_b = float(np.mean(matrix[b] < matrix[a]))
            pairs.append(
                PairwiseResult(
                    a=names[a],
                    b=names[b],
                    diff=diff,
                    diff_ci=(float(lo), float(hi)),
                    p_value=p,
                    win_a=win_a,
                    win_b=win_b,
                    ties=1.0 - win_a - win_b,
                    significant=p < alpha,
                )
            )
    return cis, pairs


# -- compare ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupSummary:
    """Per-system summaries and pairwise results on the utterances of one group."""

    group: str
    n: int
    systems: tuple[SystemSummary, ...]
    pairwise: tuple[PairwiseResult, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "n": self.n,
            "systems": [s.to_dict() for s in self.systems],
            "pairwise": [p.to_dict() for p in self.pairwise],
        }


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`: overall and per-group statistics of two or more systems.

    ``scores[name]`` holds the per-utterance normalised scores in ``ids`` order. Lower is better.
    """

    ids: tuple[str, ...]
    systems: tuple[SystemSummary, ...]
    pairwise: tuple[PairwiseResult, ...]
    groups: tuple[GroupSummary, ...]
    scores: Mapping[str, tuple[float, ...]]
    n_bootstrap: int
    seed: int
    confidence: float
    signature: str
    wer_note: str = "micro WER (jiwer) over SPEC §1 normalised tokens"
    bootstrap_version: str = BOOTSTRAP_VERSION
    extra: Mapping[str, Any] = field(default_factory=dict)

    def system(self, name: str) -> SystemSummary:
        for s in self.systems:
            if s.name == name:
                return s
        raise InputError(f"no system {name!r}; systems are {[s.name for s in self.systems]}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_utterances": len(self.ids),
            "systems": [s.to_dict() for s in self.systems],
            "pairwise": [p.to_dict() for p in self.pairwise],
            "groups": [g.to_dict() for g in self.groups],
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
            "confidence": self.confidence,
            "bootstrap_version": self.bootstrap_version,
            "meaning_critical_threshold": MEANING_CRITICAL_THRESHOLD,
            "wer": self.wer_note,
            "lower_is_better": True,
            **dict(self.extra),
            "signature": self.signature,
        }

    def to_table(self) -> str:
        """A readable plain-text table (systems, pairwise tests, groups, settings, signature)."""
        pct = f"{self.confidence * 100:.4g}"
        lines = [f"SITAR system comparison: {len(self.ids)} utterances (lower is better)", ""]
        lines += _system_table(self.systems, pct)
        lines += [
            "",
            "pairwise (diff = mean(A) - mean(B); win = share of utterances strictly lower)",
        ]
        lines += _pairwise_table(self.pairwise, pct)
        for g in self.groups:
            lines += ["", f"group {g.group!r} ({g.n} utterances)"]
            lines += _system_table(g.systems, pct)
            lines += _pairwise_table(g.pairwise, pct)
        lines += [
            "",
            f"paired bootstrap: {self.n_bootstrap} resamples, seed {self.seed}, "
            f"{pct}% percentile intervals, two-sided p (bootstrap v{self.bootstrap_version})",
            f"MCR = meaning-critical rate (score >= 5/7, the T2 band); WER = {self.wer_note}",
            f"signature: {self.signature}",
        ]
        return "\n".join(lines) + "\n"


def _fmt(x: float | None, spec: str = ".4f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def _render_rows(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    out = []
    for r in [header, *rows]:
        cells = [r[0].ljust(widths[0])] + [r[c].rjust(widths[c]) for c in range(1, len(r))]
        out.append("  ".join(cells).rstrip())
    return out


def _system_table(systems: Sequence[SystemSummary], pct: str) -> list[str]:
    header = ["system", "n", "mean", f"{pct}% CI", "MCR", "WER"]
    rows = [
        [
            s.name,
            str(s.n),
            _fmt(s.mean),
            f"[{_fmt(s.ci[0])}, {_fmt(s.ci[1])}]",
            _fmt(s.meaning_critical_rate, ".3f"),
            _fmt(s.wer, ".3f"),
        ]
        for s in systems
    ]
    return _render_rows(header, rows)


def _pairwise_table(pairs: Sequence[PairwiseResult], pct: str) -> list[str]:
    if not pairs:
        return []
    header = ["A vs B", "diff", f"{pct}% CI", "p", "win A", "win B", "ties", "better"]
    rows = [
        [
            f"{p.a} vs {p.b}",
            _fmt(p.diff, "+.4f"),
            f"[{_fmt(p.diff_ci[0], '+.4f')}, {_fmt(p.diff_ci[1], '+.4f')}]",
            _fmt(p.p_value, ".4f"),
            _fmt(p.win_a, ".3f"),
            _fmt(p.win_b, ".3f"),
            _fmt(p.ties, ".3f"),
            p.better or "n.s.",
        ]
        for p in pairs
    ]
    return _render_rows(header, rows)


def _list_ids(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_MAX_LISTED_IDS])
    more = f" and {len(ids) - _MAX_LISTED_IDS} more" if len(ids) > _MAX_LISTED_IDS else ""
    return shown + more


def join_by_id(
    references: Mapping[str, str], systems: Mapping[str, Mapping[str, str]]
) -> tuple[list[str], dict[str, list[str]]]:
    """Join system hypotheses to the references by utterance id, in reference order.

    Every system must have exactly the reference ids; otherwise :class:`InputError` names the
    missing and extra ids of every system at once (nothing is dropped silently).
    """
    if not isinstance(references, Mapping) or not isinstance(systems, Mapping):
        raise InputError("references and systems must be mappings (utt_id -> text)")
    ids = [str(k) for k in references]
    problems = []
    for name, hyps in systems.items():
        if not isinstance(hyps, Mapping):
            raise InputError(f"system {name!r}: hypotheses must be a mapping utt_id -> text")
        missing = [u for u in references if u not in hyps]
        extra = [u for u in hyps if u not in references]
        if missing:
            problems.append(f"system {name!r} lacks {len(missing)} id(s): {_list_ids(missing)}")
        if extra:
            problems.append(
                f"system {name!r} has {len(extra)} id(s) not in the references: {_list_ids(extra)}"
            )
    if problems:
        raise InputError(
            "systems do not cover the reference ids: "
            + "; ".join(problems)
            + "; every system needs one hypothesis per reference id"
        )
    joined = {name: [hyps[u] for u in references] for name, hyps in systems.items()}
    return ids, joined


def compare_scores(
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    ids: Sequence[str],
    groups: Mapping[str, str] | None = None,
    word_errors: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    signature: str,
) -> Comparison:
    """Statistics of precomputed per-utterance normalised scores (see :func:`compare`).

    ``word_errors[name]`` = per-utterance ``(errors, reference_words)`` from
    :func:`word_error_counts`; without it the WER column is None. Every id needs a group; ids
    of ``groups`` that are not in ``ids`` are ignored and counted in
    ``extra["group_ids_not_in_utterances"]``. Groups are bootstrapped
    separately with seeds ``[seed, k]`` (``k`` = 1-based rank of the group name in sorted order),
    so a group's result does not depend on the other groups.
    """
    names = list(scores)
    if len(names) < 1:
        raise InputError("compare needs at least one system")
    n = len(ids)
    arrays = {k: np.asarray(scores[k], dtype=np.float64).reshape(-1) for k in names}
    for k, a in arrays.items():
        if a.shape[0] != n:
            raise InputError(f"system {k!r} has {a.shape[0]} scores for {n} utterance ids")
    group_of: dict[str, str] = {}
    extra: dict[str, Any] = {}
    if groups is not None:
        missing = [u for u in ids if u not in groups]
        if missing:
            raise InputError(
                f"{len(missing)} utterance id(s) have no group: {_list_ids(missing)}; give every "
                "utterance a group in the groups map (utt_id -> group)"
            )
        group_of = {u: str(groups[u]) for u in ids}
        # Ids in the map but not among the utterances are harmless (a map for a larger corpus);
        # they are counted in the result, not dropped silently.
        id_set = set(ids)
        extra["group_ids_not_in_utterances"] = sum(1 for u in groups if u not in id_set)

    def summarize(
        index: np.ndarray, rng_seed: int | list[int]
    ) -> tuple[tuple[SystemSummary, ...], tuple[PairwiseResult, ...]]:
        sub = {k: arrays[k][index] for k in names}
        cis, pairs = paired_bootstrap(
            sub, n_bootstrap=n_bootstrap, seed=rng_seed, confidence=confidence
        )
        summaries = []
        for k in names:
            wer = None
            if word_errors is not None and k in word_errors:
                err, words = word_errors[k]
                wer = _wer(np.asarray(err)[index], np.asarray(words)[index])
            values = sub[k]
            summaries.append(
                SystemSummary(
                    name=k,
                    n=int(values.size),
                    mean=float(values.mean()) if values.size else math.nan,
                    ci=cis[k],
                    meaning_critical_rate=meaning_critical_rate(values),
                    wer=wer,
                )
            )
        return tuple(summaries), tuple(pairs)

    systems, pairwise = summarize(np.arange(n), seed)
    group_results = []
    if groups is not None:
        id_list = list(ids)
        for rank, name in enumerate(sorted(set(group_of.values())), start=1):
            index = np.asarray([i for i, u in enumerate(id_list) if group_of[u] == name])
            g_sys, g_pairs = summarize(index, [seed, rank])
            group_results.append(GroupSummary(name, int(index.size), g_sys, g_pairs))
    return Comparison(
        ids=tuple(str(u) for u in ids),
        systems=systems,
        pairwise=pairwise,
        groups=tuple(group_results),
        scores={k: tuple(float(x) for x in arrays[k]) for k in names},
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=float(confidence),
        signature=signature,
        extra=extra,
    )


def compare(
    source: Any,
    *,
    references: Mapping[str, str],
    systems: Mapping[str, Mapping[str, str]],
    groups: Mapping[str, str] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    wer: bool = True,
    batch_size: int = 32,
    signature: str | None = None,
    progress: bool = False,
) -> Comparison:
    """Compare two or more ASR systems on the same references, joined by utterance id.

    ``references`` maps ``utt_id -> reference``; ``systems`` maps ``name -> {utt_id ->
    hypothesis}`` and every system must cover exactly the reference ids (see :func:`join_by_id`).
    All systems are scored with one call to ``source`` (a Scorer or a ``predict_fn``). Reports the
    mean score per system with a ``confidence`` paired-bootstrap interval, pairwise differences
    with p-values and win probabilities (:func:`paired_bootstrap`), the meaning-critical rate,
    the WER (``wer=True`` needs ``jiwer``) and, with ``groups`` (``utt_id -> group``), the same per
    group. ``seed`` makes the bootstrap reproducible.
    """
    if len(systems) < 2:
        raise InputError(
            f"compare needs at least two systems, got {len(systems)}; pass systems={{name: "
            "{utt_id: hypothesis}}} with two or more names"
        )
    ids, joined = join_by_id(references, systems)
    refs = [references[u] for u in references]
    names = list(joined)
    all_r = refs * len(names)
    all_h = [h for k in names for h in joined[k]]
    scored = _score(
        source,
        all_r,
        all_h,
        batch_size=batch_size,
        signature=signature,
        progress=progress,
        inputs=f"{len(names)} systems x {len(refs)} utterances",
    )
    n = len(ids)
    per_system = {k: scored.scores[s * n : (s + 1) * n] for s, k in enumerate(names)}
    word_errors = None
    if wer:
        word_errors = {k: word_error_counts(references=refs, hypotheses=joined[k]) for k in names}
    return compare_scores(
        per_system,
        ids=ids,
        groups=groups,
        word_errors=word_errors,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
        signature=scored.signature,
    )
