"""Torch-free inference: the checkpoint tokenizer plus one ONNX Runtime session.

:class:`PairEncoder` turns (reference, hypothesis) pairs into the pair encoding
``[CLS] r [SEP] h [SEP]`` with the checkpoint's ``tokenizer.json`` (fast ``tokenizers`` library),
measures encoded lengths and pads batches itself; truncation is always off, so an over-long pair is
an error here and never a silently shortened input (the :class:`~sitar.scorer.Scorer` windows long
pairs before they reach the model). :class:`OnnxPredictor` feeds exactly the inputs the graph takes
(checked against the checkpoint config), sorts pairs by length into batches to limit padding and
returns the raw scores in the original order. ``onnxruntime`` and ``tokenizers`` are imported
lazily, so ``import sitar`` works without them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitar.checkpoint import CheckpointConfig
from sitar.errors import CheckpointError, InputError, MissingDependencyError

__all__ = ["OnnxPredictor", "PairEncoder", "Prediction", "length_sorted_batches"]

_PAD_TOKEN_CANDIDATES = ("[PAD]", "<pad>", "<PAD>", "<|pad|>")


def _import_tokenizers() -> Any:
    try:
        import tokenizers
    except ImportError as e:
        raise MissingDependencyError("tokenizers", "ONNX scoring") from e
    return tokenizers


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


def _check_pairs(references: Sequence[str], hypotheses: Sequence[str]) -> None:
    if len(references) != len(hypotheses):
        raise InputError(
            f"references and hypotheses must have the same length, got {len(references)} "
            f"references and {len(hypotheses)} hypotheses"
        )
    for name, items in (("references", references), ("hypotheses", hypotheses)):
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise InputError(f"{name}[{i}] must be a str, got {type(item).__name__}")


class PairEncoder:
    """The checkpoint tokenizer, used for the pair encoding and for measuring lengths.

    The tokenizer file's own padding and truncation settings are switched off: lengths are always
    the full lengths, and batches are padded here with the tokenizer's pad id (any id is fine for a
    correctly masked model; 0 when the tokenizer names no pad token).
    """

    def __init__(self, tokenizer_path: str | os.PathLike[str], *, max_length: int) -> None:
        tokenizers = _import_tokenizers()
        try:
            tok = tokenizers.Tokenizer.from_file(str(tokenizer_path))
        except Exception as e:  # the Rust side raises a plain Exception on bad files
            raise CheckpointError(f"cannot load tokenizer {str(tokenizer_path)!r}: {e}") from e
        padding = tok.padding
        pad_id = padding.get("pad_id") if padding else None
        if pad_id is None:
            pad_id = next(
                (
                    tok.token_to_id(t)
                    for t in _PAD_TOKEN_CANDIDATES
                    if tok.token_to_id(t) is not None
                ),
                0,
            )
        tok.no_padding()
        tok.no_truncation()
        self._tokenizer = tok
        self.pad_id = int(pad_id)
        self.max_length = int(max_length)

    def encode(self, references: Sequence[str], hypotheses: Sequence[str]) -> list[Any]:
        """``tokenizers.Encoding`` objects of the pairs, untruncated."""
        _check_pairs(references, hypotheses)
        if not references:
            return []
        return self._tokenizer.encode_batch(list(zip(references, hypotheses, strict=True)))

    def lengths(self, references: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Token counts of the pair encodings, special tokens included."""
        return [len(e.ids) for e in self.encode(references, hypotheses)]

    def pair_length(self, reference: str, hypothesis: str) -> int:
        return len(self._tokenizer.encode(reference, hypothesis).ids)

    def batch_arrays(self, encodings: Sequence[Any]) -> dict[str, np.ndarray]:
        """Pad encodings to the longest one: ``input_ids``, ``attention_mask``, ``token_type_ids``,
        each int64 of shape (batch, seq)."""
        width = max(len(e.ids) for e in encodings)
        shape = (len(encodings), width)
        ids = np.full(shape, self.pad_id, dtype=np.int64)
        mask = np.zeros(shape, dtype=np.int64)
        types = np.zeros(shape, dtype=np.int64)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = enc.attention_mask
            types[row, :n] = enc.type_ids
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


@dataclass(frozen=True)
class Prediction:
    """Model outputs in input order: raw scores (n,) and, if requested, ordinal logits (n, 6)."""

    raw: np.ndarray
    ordinal_logits: np.ndarray | None = None


class OnnxPredictor:
    """One ONNX Runtime session over a checkpoint's graph (CPU execution provider).

    ``variant`` picks ``model.int8.onnx`` or ``model.onnx`` (default: the checkpoint's
    ``onnx.default``); ``threads`` sets ``intra_op_num_threads`` (default: ONNX Runtime's choice).
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
        self.encoder = PairEncoder(config.tokenizer_path, max_length=config.max_length)
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
        self.has_ordinal = "ordinal_logits" in graph_outputs

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
        encodings = self.encoder.encode(references, hypotheses)
        n = len(encodings)
        lengths = [len(e.ids) for e in encodings]
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
            arrays = self.encoder.batch_arrays([encodings[i] for i in idx])
            feed = {name: arrays[name] for name in self.input_names}
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
