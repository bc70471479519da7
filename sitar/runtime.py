"""Torch-free inference: the checkpoint tokenizer plus one ONNX Runtime session.

The pair encoding comes from :class:`sitar.encoding.PairEncoder` (the one encoder that training
and the torch backend use too); truncation is always off, so an over-long pair is an error here and
never a silently shortened input (the :class:`~sitar.scorer.Scorer` windows long pairs before they
reach the model). :class:`OnnxPredictor` feeds exactly the inputs the graph takes (checked against
the checkpoint config): :meth:`OnnxPredictor.run_batch` runs one prepared batch (what the Scorer
uses), :meth:`OnnxPredictor.predict` scores plain pairs of a pair-head graph in length-sorted
batches and returns them in the original order. ``onnxruntime`` and ``tokenizers`` are imported
lazily, so ``import sitar`` works without them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitar.checkpoint import CheckpointConfig
from sitar.encoding import PairEncoder, checkpoint_encoder
from sitar.errors import CheckpointError, InputError, MissingDependencyError

__all__ = [
    "OnnxPredictor",
    "PairEncoder",
    "Prediction",
    "length_sorted_batches",
]  # PairEncoder: re-export


def _import_onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as e:
        raise MissingDependencyError("onnxruntime", "ONNX scoring") from e
    return onnxruntime


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[np.ndarray]:
    """Index batches of at most ``batch_size`` items, longest first (a stable sort).

    Sorting keeps similar lengths together so batches need little padding; callers scatter the
    results back with the indices, which restores the original order.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
    order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


@dataclass(frozen=True)
class Prediction:
    """Model outputs in input order: raw scores (n,) and, if requested, ordinal logits (n, 6)."""

    raw: np.ndarray
    ordinal_logits: np.ndarray | None = None


class OnnxPredictor:
    """One ONNX Runtime session over a checkpoint's graph (CPU execution provider).

    ``variant`` picks ``model.onnx``, ``model.int8.onnx`` or ``model.int8row.onnx`` (default: the
    checkpoint's ``onnx.default``); ``threads`` sets ``intra_op_num_threads`` (default: ONNX
    Runtime's choice).
    Inputs longer than ``config.max_length`` raise :class:`InputError`; they are never truncated.
    """

    def __init__(
        self,
        config: CheckpointConfig,
        *,
        variant: str | None = None,
        threads: int | None = None,
    ) -> None:
        if threads is not None and (
            isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
        ):
            raise InputError(f"threads must be a positive integer or None, got {threads!r}")
        ort = _import_onnxruntime()
        self.config = config
        self.variant = config.resolve_variant(variant)
        self.encoder = checkpoint_encoder(config)
        path = config.onnx_path(self.variant)
        options = ort.SessionOptions()
        if threads is not None:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only; ORT warnings are noise for users
        try:
            self._session = ort.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as e:  # ORT raises its own exception types from C++
            raise CheckpointError(f"cannot load ONNX graph {str(path)!r}: {e}") from e
        graph_inputs = [i.name for i in self._session.get_inputs()]
        graph_outputs = [o.name for o in self._session.get_outputs()]
        if sorted(graph_inputs) != sorted(config.onnx.inputs):
            raise CheckpointError(
                f"{path.name} takes inputs {graph_inputs} but sitar_config.json 'onnx.inputs' "
                f"says {list(config.onnx.inputs)}; fix the config so that both agree"
            )
        missing = [o for o in config.onnx.outputs if o not in graph_outputs]
        if missing:
            raise CheckpointError(
                f"{path.name} has outputs {graph_outputs} but sitar_config.json 'onnx.outputs' "
                f"lists {missing} as well; fix the config or re-export"
            )
        self.input_names: tuple[str, ...] = tuple(graph_inputs)
        self.output_names: tuple[str, ...] = tuple(graph_outputs)
        self.has_ordinal = "ordinal_logits" in graph_outputs
        #: True when the graph takes gap-marked input and returns per-gap logits (spec §7b, docs/spec.md).
        self.gap_aware = "gap_index" in graph_inputs and "gap_logits" in graph_outputs

    def run_batch(self, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Run one prepared batch (arrays from :meth:`PairEncoder.collate` with
        :attr:`input_names`); returns every graph output by name."""
        feed = {name: arrays[name] for name in self.input_names}
        try:
            outputs = self._session.run(list(self.output_names), feed)
        except Exception as e:
            if not type(e).__module__.startswith("onnxruntime"):
                raise
            # ONNX Runtime's own errors (a graph that cannot take this input): typed, one line.
            shape = tuple(np.shape(feed[self.input_names[0]]))
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise CheckpointError(
                f"checkpoint {self.config.name!r}: its ONNX graph failed on a batch of shape "
                f"{shape} ({first[:300]}); if the inputs are long, its max_length "
                f"({self.config.max_length}) may exceed what the graph supports (its position "
                "table): re-export it with a max_length the backbone allows"
            ) from e
        return dict(zip(self.output_names, outputs, strict=True))

    @property
    def max_length(self) -> int:
        return self.config.max_length

    def predict(
        self,
        references: Sequence[str],
        hypotheses: Sequence[str],
        *,
        batch_size: int = 32,
        ordinal: bool = False,
        on_batch: Callable[[int], None] | None = None,
    ) -> Prediction:
        """Raw scores (float32, shape (n,)) in input order; ``ordinal`` adds (n, 6) logits.

        ``on_batch(k)`` is called after each batch with the number of pairs it held (progress).
        """
        if self.gap_aware:
            raise CheckpointError(
                f"checkpoint {self.config.name!r} reads gap-marked input; score it with "
                "sitar.Scorer, which segments each pair and marks its gaps"
            )
        encodings = self.encoder.encode(references, hypotheses)
        n = len(encodings)
        lengths = [len(e) for e in encodings]
        too_long = [i for i, length in enumerate(lengths) if length > self.max_length]
        if too_long:
            i = too_long[0]
            raise InputError(
                f"{len(too_long)} pair(s) exceed the checkpoint's max_length {self.max_length} "
                f"tokens (pair {i} has {lengths[i]}); OnnxPredictor never truncates: use "
                "sitar.Scorer, which splits long pairs into aligned windows"
            )
        if ordinal and not self.has_ordinal:
            raise CheckpointError(f"checkpoint {self.config.name!r} has no ordinal_logits output")
        raw = np.zeros(n, dtype=np.float32)
        logits = np.zeros((n, len(self.config.thresholds)), dtype=np.float32) if ordinal else None
        wanted = ["score", "ordinal_logits"] if ordinal else ["score"]
        for idx in length_sorted_batches(lengths, batch_size):
            feed = self.encoder.collate([encodings[i] for i in idx], self.input_names)
            outputs = self._session.run(wanted, feed)
            raw[idx] = np.asarray(outputs[0], dtype=np.float32).reshape(len(idx))  # (batch,)
            if logits is not None:
                logits[idx] = outputs[1]  # (batch, 6)
            if on_batch is not None:
                on_batch(len(idx))
        return Prediction(raw=raw, ordinal_logits=logits)

    def predict_raw(
        self, references: Sequence[str], hypotheses: Sequence[str], batch_size: int = 32
    ) -> np.ndarray:
        """Raw scores (n,) in input order; the same call shape as ``TorchPredictor.predict_raw``."""
        return self.predict(references, hypotheses, batch_size=batch_size).raw
