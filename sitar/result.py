"""What scoring returns: :class:`ScoreResult`, and the one rule for the system score.

:func:`system_score` is the only place the system score is computed: by :class:`~sitar.scorer.
Scorer`, by ``sitar serve`` for each request's slice of a merged batch, and by ``sitar score
--engine ray`` over the written shards, so the three agree to the last bit on the same scores.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["AGGREGATION", "ScoreResult", "system_score"]

#: How :attr:`ScoreResult.system_score` is computed (see :func:`system_score`).
AGGREGATION = "macro mean of per-pair normalized scores"


def system_score(scores: Iterable[float]) -> float:
    """The macro mean of per-pair normalised scores; ``nan`` for no pairs (a mean of nothing).

    The sum is exact (:func:`math.fsum`), so the result does not depend on the order of the
    scores: a sharded run (Ray) and a batched one (serve) give the same float as one call.

    >>> system_score([0.25, 0.5])
    0.375
    """
    values = [float(s) for s in scores]
    return math.fsum(values) / len(values) if values else math.nan


@dataclass(frozen=True)
class ScoreResult:
    """Scores of n pairs, in input order.

    ``scores`` are normalised to ``[0, 1]``; ``raw`` are the model's raw scores clipped to
    ``[0, 7/3]`` (after window combination for long pairs); ``identical[i]`` says pair ``i`` was
    identical after normalisation (score 0, no model call); ``windowed[i]`` says it was longer than
    the checkpoint's ``max_length`` and scored by windows (``n_windows[i]`` model inputs; 0 for
    identical pairs, 1 for ordinary ones). For zero pairs ``system_score`` is ``nan`` (a mean of
    nothing) and :meth:`to_dict` writes it as ``null``.
    """

    scores: tuple[float, ...]
    raw: tuple[float, ...]
    windowed: tuple[bool, ...]
    identical: tuple[bool, ...]
    n_windows: tuple[int, ...]
    system_score: float
    aggregation: str
    signature: str
    #: ``swer`` parts of each pair (gap head only, else None): the tier-weighted extent of its gaps
    #: and the reference length in the same unit (:mod:`sitar.swer`). Slicing keeps them per pair,
    #: so a slice's :attr:`system_swer` is its own corpus value.
    swer_numerators: tuple[float, ...] | None = None
    swer_lengths: tuple[float, ...] | None = None
    #: What the ``swer`` values were computed with (``swer-1:t1=...,ext=...``), or None.
    swer_version: str | None = None

    def __len__(self) -> int:
        return len(self.scores)

    @property
    def swer(self) -> tuple[float, ...] | None:
        """Each pair's ``swer`` (numerator over length; see :func:`sitar.swer.pair_value`), or
        None without a gap head."""
        if self.swer_numerators is None or self.swer_lengths is None:
            return None
        from sitar.swer import pair_value

        return tuple(
            pair_value(n, d) for n, d in zip(self.swer_numerators, self.swer_lengths, strict=True)
        )

    @property
    def system_swer(self) -> float | None:
        """The corpus ``swer``: the sum of numerators over the sum of lengths, as WER's is
        (``nan`` for no pairs or an empty total length; None without a gap head)."""
        if self.swer_numerators is None or self.swer_lengths is None:
            return None
        from sitar.swer import corpus_swer

        return corpus_swer(zip(self.swer_numerators, self.swer_lengths, strict=True))

    @property
    def n_identical(self) -> int:
        return sum(self.identical)

    @property
    def n_windowed(self) -> int:
        return sum(self.windowed)

    def to_dict(self) -> dict[str, Any]:
        system = None if math.isnan(self.system_score) else self.system_score
        return {
            "scores": list(self.scores),
            "raw": list(self.raw),
            "windowed": list(self.windowed),
            "identical": list(self.identical),
            "n_windows": list(self.n_windows),
            "system_score": system,
            "aggregation": self.aggregation,
            "n_pairs": len(self),
            "n_identical": self.n_identical,
            "n_windowed": self.n_windowed,
            "signature": self.signature,
            **self._swer_dict(),
        }

    def _swer_dict(self) -> dict[str, Any]:
        if self.swer is None:
            return {}
        system = self.system_swer
        return {
            "swer": list(self.swer),
            "system_swer": None if system is None or math.isnan(system) else system,
            "swer_version": self.swer_version,
        }
