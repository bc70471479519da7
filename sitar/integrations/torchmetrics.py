"""``SitarScore``: SITAR as a torchmetrics ``Metric`` (extra ``metrics``; needs torch).

Each :meth:`~SitarScore.update` scores its batch at once with the cached scorer of
:func:`sitar.metric.load_scorer` (one reference per prediction, or a list of candidates of which
each prediction keeps its closest, by :func:`sitar.metric.score_references` as in
:func:`sitar.metric.compute`) and appends the per-pair values to list states as float64
tensors: the normalised scores and, with a gap head, each pair's ``swer`` numerator and length.
Texts are never kept: torchmetrics gathers only tensors across processes. The states reduce with
``"cat"``, so after a sync (DDP, or :meth:`~torchmetrics.Metric.merge_state`) every process holds
every pair's values, and :meth:`~SitarScore.compute` applies the one rule of each corpus value:
:func:`sitar.result.system_score` (macro mean, an exact sum) and :func:`sitar.swer.corpus_swer`
(micro). So two updates give the same corpus score as one update on the concatenation, and the
same float as ``sitar score`` on the same pairs.

This module is the only one of :mod:`sitar` that imports torchmetrics.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sitar.errors import InputError, MissingDependencyError
from sitar.metric import load_scorer, score_references
from sitar.options import ScorerOptions
from sitar.result import system_score
from sitar.swer import corpus_swer

try:
    import torch
    from torchmetrics import Metric
except ImportError as e:
    raise MissingDependencyError(
        "torchmetrics", "sitar.integrations.torchmetrics", "metrics"
    ) from e

__all__ = ["SitarScore"]


class SitarScore(Metric):
    """Corpus SITAR score (and ``swer``) over every pair passed to :meth:`update`.

    Keywords that are :class:`~sitar.options.ScorerOptions` fields (``checkpoint``, ``normalize``,
    ...) choose the scorer, which is loaded here, so a bad option or checkpoint fails at
    construction; the others go to ``torchmetrics.Metric`` (``compute_on_cpu``,
    ``process_group``, ``sync_on_compute`` ...). ``batch_size`` is the model batch size.
    :attr:`signature` names what was computed (SPEC §9).

    :meth:`compute` returns ``{"score": tensor, "swer": tensor}`` (float64 scalars; ``swer`` only
    with a gap head; ``nan`` before any pair), the system score and the corpus ``swer`` that
    ``sitar score`` prints as ``#system`` and ``#swer``. Lower is less distortion.
    """

    is_differentiable = False
    higher_is_better = False
    full_state_update = False

    scores: list[torch.Tensor]
    swer_numerators: list[torch.Tensor]
    swer_lengths: list[torch.Tensor]

    def __init__(self, *, batch_size: int = 32, **kwargs: Any) -> None:
        fields = {f.name for f in dataclasses.fields(ScorerOptions)}
        options = {k: v for k, v in kwargs.items() if k in fields}
        super().__init__(**{k: v for k, v in kwargs.items() if k not in fields})
        # The options, not the scorer, are kept: an ONNX session can be neither deep-copied
        # (Metric.clone, MetricCollection) nor pickled (DDP spawn); load_scorer's cache makes
        # looking it up again per update free.
        self._options = dict(options)
        scorer = load_scorer(**self._options)
        scorer.score(references=[], hypotheses=[], batch_size=batch_size)  # the Scorer's check
        self.batch_size = batch_size
        self.signature: str = scorer.signature
        self._has_swer = scorer.head == "gaps"
        self.add_state("scores", default=[], dist_reduce_fx="cat")
        self.add_state("swer_numerators", default=[], dist_reduce_fx="cat")
        self.add_state("swer_lengths", default=[], dist_reduce_fx="cat")

    def update(
        self, preds: str | Sequence[str], target: str | Sequence[str] | Sequence[Sequence[str]]
    ) -> None:
        """Score a batch: ``preds`` are hypotheses, ``target`` their references: one str per
        prediction, or a list of candidate references per prediction (as torchmetrics' BLEU
        takes them), of which each keeps its closest (:mod:`sitar.multiref`). A single pair may be
        given as ``preds`` str with ``target`` a str or a list of candidates."""
        refs: Any = target
        if isinstance(preds, str):
            preds = [preds]
            several = isinstance(target, Sequence) and not isinstance(target, str)
            refs = [list(target) if several else target]  # one pair: its candidate list
        elif isinstance(target, str):
            refs = [target]
        result, _ = score_references(
            load_scorer(**self._options),
            predictions=preds,
            references=refs,
            batch_size=self.batch_size,
        )
        self.scores.append(self._tensor(result.scores))  # (n,)
        if result.swer_numerators is not None and result.swer_lengths is not None:
            self.swer_numerators.append(self._tensor(result.swer_numerators))  # (n,)
            self.swer_lengths.append(self._tensor(result.swer_lengths))  # (n,)

    def compute(self) -> dict[str, torch.Tensor]:
        """``score`` (macro mean of the pairs' scores) and, with a gap head, ``swer`` (micro)."""
        scores = self._values(self.scores)
        out = {"score": self._tensor([system_score(scores)]).squeeze(0)}
        if self._has_swer:
            nums = self._values(self.swer_numerators)
            lengths = self._values(self.swer_lengths)
            if len(nums) != len(scores) or len(lengths) != len(scores):
                raise InputError(
                    f"swer states hold {len(nums)} numerators and {len(lengths)} lengths for "
                    f"{len(scores)} scores; merge states only of metrics with the same options"
                )
            out["swer"] = self._tensor([corpus_swer(zip(nums, lengths, strict=True))]).squeeze(0)
        return out

    def _tensor(self, values: Sequence[float]) -> torch.Tensor:
        # float64: a Python float round-trips exactly, so the corpus values equal the scorer's.
        return torch.tensor(list(values), dtype=torch.float64, device=self.device)

    @staticmethod
    def _values(state: torch.Tensor | list[torch.Tensor]) -> list[float]:
        # A list of (n_i,) tensors before a sync, one (sum n_i,) tensor after "cat".
        if isinstance(state, torch.Tensor):
            return [float(v) for v in state.reshape(-1).tolist()]
        return [float(v) for t in state for v in t.reshape(-1).tolist()]
