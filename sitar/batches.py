"""Exact-length batches: how the :class:`~sitar.scorer.Scorer` calls a model (batch invariance).

A batch holds model inputs of one exact token length only, so no input is ever padded and each is
computed at its own width: a pair's outputs do not depend on its batch neighbours, the batch size
or the input order (measured and tested for the fp32, static int8 and row-wise int8 graphs; see
:mod:`sitar.scorer`). Inputs are grouped by length, longest first, run in batches of at most
``batch_size`` and scattered back, so :func:`run_exact_length` returns outputs in input order.
(Padding to a multiple of 16 tokens, the first rule, was as invariant but 1.1x slower.)

What a backend must offer is :class:`BatchPredictor` (``OnnxPredictor``, ``TorchPredictor``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from sitar.errors import CheckpointError, InputError, MissingDependencyError

if TYPE_CHECKING:
    from sitar.encoding import EncodedPair, PairEncoder

__all__ = ["BatchPredictor", "ModelOutput", "progress_bar", "run_exact_length"]


class BatchPredictor(Protocol):
    """What the Scorer needs of a backend (``OnnxPredictor``, ``TorchPredictor``)."""

    input_names: tuple[str, ...]

    def run_batch(self, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]: ...


@dataclass(frozen=True)
class ModelOutput:
    """One input's outputs: the pair head's raw score and, for a gap-marked input of a graph
    with a gap head, the ``(n_gaps, K)`` ordinal logits of its marked gaps."""

    score: float
    gap_logits: np.ndarray | None


def run_exact_length(
    jobs: Sequence[EncodedPair],
    *,
    encoder: PairEncoder,
    predictor: BatchPredictor,
    batch_size: int,
    max_length: int,
    progress: bool | str = False,
    backend: str = "onnx",
    model_name: str = "",
) -> list[ModelOutput]:
    """The model's outputs for encoded inputs that all fit ``max_length``, in input order.

    An input longer than ``max_length`` is an :class:`~sitar.errors.InputError` (the scorer
    windows long pairs before they get here; nothing is truncated). A predictor that returns the
    wrong number of scores or a non-finite score raises :class:`~sitar.errors.CheckpointError`.
    ``progress``: a progress bar, labelled "sitar score" or by the str given.
    """
    out: list[ModelOutput | None] = [None] * len(jobs)
    if not jobs:
        return []
    for enc in jobs:
        if len(enc) > max_length:
            raise InputError(f"a model input of {len(enc)} tokens exceeds max_length {max_length}")
    widths = [len(e) for e in jobs]
    by_width: dict[int, list[int]] = {}
    for k in sorted(range(len(jobs)), key=lambda k: (-widths[k], k)):
        by_width.setdefault(widths[k], []).append(k)
    bar = progress_bar(len(jobs), progress) if progress else None
    names = tuple(predictor.input_names)
    try:
        for width, members in by_width.items():
            for start in range(0, len(members), batch_size):
                idx = members[start : start + batch_size]
                arrays = encoder.collate([jobs[k] for k in idx], names, width=width)
                values = predictor.run_batch(arrays)
                score = np.asarray(values.get("score"), dtype=np.float64).reshape(-1)
                if score.shape[0] != len(idx):
                    raise CheckpointError(
                        f"the {backend} predictor returned {score.shape[0]} scores for "
                        f"a batch of {len(idx)} pairs"
                    )
                if not np.all(np.isfinite(score)):
                    raise CheckpointError(
                        f"checkpoint {model_name!r} produced non-finite scores; the model is broken"
                    )
                gap_logits = values.get("gap_logits")
                for row, k in enumerate(idx):
                    logits = None
                    if gap_logits is not None:
                        logits = np.asarray(gap_logits[row, : jobs[k].n_gaps], np.float64)
                    out[k] = ModelOutput(float(score[row]), logits)
                if bar is not None:
                    bar.update(len(idx))
    finally:
        if bar is not None:
            bar.close()
    return [o for o in out if o is not None]


def progress_bar(total: int, label: bool | str = True) -> Any:
    """A tqdm bar over ``total`` pairs, labelled "sitar score" or by the str given."""
    try:
        from tqdm import tqdm
    except ImportError as e:
        raise MissingDependencyError("tqdm", "the progress bar") from e
    desc = label if isinstance(label, str) else "sitar score"
    return tqdm(total=total, unit="pair", desc=desc, leave=False)
