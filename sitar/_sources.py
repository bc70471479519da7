"""What explanations (:mod:`sitar.diagnostics`) and system comparison (:mod:`sitar.comparison`)
share: the *score source* (a :class:`~sitar.scorer.Scorer` or a ``predict_fn``) and its
validation, the text-list check, and the meaning-critical band.

A score source is anything with ``score(*, references, hypotheses) -> ScoreResult`` and a
``signature``, or a plain ``predict_fn(references, hypotheses) -> array`` of normalised scores in
``[0, 1]`` (test doubles, other models).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitar.errors import InputError
from sitar.targets import MAX_SCORE, T2_BAND_RAW
from sitar.validation import check_texts

__all__ = ["MEANING_CRITICAL_THRESHOLD", "PredictFn", "meaning_critical_rate"]

#: ``predict_fn(references, hypotheses) -> np.ndarray`` of normalised scores in [0, 1], shape (n,).
PredictFn = Callable[[Sequence[str], Sequence[str]], Any]

#: Normalised score from which a pair is *meaning-critical*: the T2 band, raw >= 5/3 (= 5/7).
MEANING_CRITICAL_THRESHOLD = T2_BAND_RAW / MAX_SCORE
# Scores are stored normalised (raw / (7/3)); a raw score of exactly 5/3 must stay in the band
# after that float division, so the comparison allows a few ulps of slack.
_BAND_EPS = 1e-9


# -- score sources ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scores:
    """Normalised scores of one scoring call, plus what it cost and where it came from."""

    scores: np.ndarray  # (n,) float64, normalised
    n_inputs: np.ndarray  # (n,) int: model inputs per pair (0 for identical pairs); -1 unknown
    signature: str
    #: ``swer`` numerators and lengths per pair (a gap-head scorer), else None.
    swer_parts: tuple[np.ndarray, np.ndarray] | None = None


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
    swer_parts: tuple[np.ndarray, np.ndarray] | None = None
    if hasattr(source, "score") and callable(source.score):
        kwargs: dict[str, Any] = {"batch_size": batch_size}
        if progress:
            kwargs["progress"] = True
        result = source.score(references=list(references), hypotheses=list(hypotheses), **kwargs)
        values = np.asarray(result.scores, dtype=np.float64).reshape(-1)
        n_inputs = np.asarray(getattr(result, "n_windows", [-1] * n), dtype=np.int64)
        sig = signature or str(result.signature)
        nums, lens = getattr(result, "swer_numerators", None), getattr(result, "swer_lengths", None)
        if nums is not None and lens is not None:
            swer_parts = (np.asarray(nums, dtype=np.float64), np.asarray(lens, dtype=np.float64))
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
    return _Scores(values, n_inputs, sig, swer_parts)


def _check_texts(name: str, items: Any) -> list[str]:
    return check_texts(name, items)  # the one text check (sitar.validation)


# -- the meaning-critical rate ---------------------------------------------------------------------


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
