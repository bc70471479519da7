"""The one pair encoder of SITAR: model inputs for training, export parity and scoring.

Every model input is built here, from the checkpoint's ``tokenizer.json`` (the fast ``tokenizers``
library, no torch), so that training (``training.data``), the torch backend
(``sitar.modeling.TorchPredictor``) and ONNX scoring (``sitar.runtime``) feed the model identical
ids. Two encodings exist:

* **plain** (spec §7, docs/spec.md): ``[CLS] r [SEP] h [SEP]``;
* **gap-marked** (spec §7b, marking version :data:`MARKING_VERSION`): the same pair with every
  CGD gap wrapped in two marker tokens on both sides, ``⟦ span ⟧``; a side on which the gap is empty
  gets an empty marked span ``⟦ ⟧`` at its insertion point (spec §4). Gaps are ordered left to right
  identically on both sides, so the ``k``-th marker pair of each side belongs to gap ``k``. The
  marker strings are added to the tokenizer as special tokens (recorded in the checkpoint's
  ``markers`` section); marker characters that occur in the user's text are replaced by a space
  before marking, so user text can never forge a marker (they are not spec §1 token characters, so
  the segmentation is unchanged).

For each gap the encoder reports four token positions ``(ref_open, ref_close, hyp_open,
hyp_close)``: the ``gap_index`` input of a gap-aware graph. An encoder built with ``closeness=True``
(a checkpoint whose graph takes ``gap_closeness``) also computes each gap's two closeness features
(:func:`sitar.closeness.gap_closeness` of the gap's span texts): the ``gap_closeness`` input.

Truncation is always off: an input longer than ``max_length`` is never shortened here (the
:class:`~sitar.scorer.Scorer` windows long pairs before they reach the model).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitar.errors import CheckpointError, InputError, MissingDependencyError
from sitar.validation import check_pairs

__all__ = [
    "GAP_INPUTS",
    "MARKER_CLOSE",
    "MARKER_OPEN",
    "MARKING_VERSION",
    "EncodedPair",
    "GapMarkers",
    "PairEncoder",
    "checkpoint_encoder",
    "load_tokenizer_file",
    "mark_text",
]

#: Marker strings around a gap's span (special tokens of a gap-aware checkpoint's tokenizer).
MARKER_OPEN = "\u27e6"  # ⟦
MARKER_CLOSE = "\u27e7"  # ⟧
#: Version of the gap-marking rules above; part of the signature of gap-aware scores.
MARKING_VERSION = "1"
#: Extra graph inputs of a gap-aware model: (B, G, 4) int64 marker positions per gap and, for a
#: model trained with closeness features, (B, G, 2) float32 :mod:`sitar.closeness` features.
GAP_INPUTS = ("gap_index", "gap_closeness")

_PAD_TOKEN_CANDIDATES = ("[PAD]", "<pad>", "<PAD>", "<|pad|>", "[pad]")
Span = tuple[int, int]


def _import_tokenizers() -> Any:
    try:
        import tokenizers
    except ImportError as e:
        raise MissingDependencyError("tokenizers", "pair encoding") from e
    return tokenizers


def load_tokenizer_file(path: str | os.PathLike[str]) -> Any:
    """A ``tokenizers.Tokenizer`` from a ``tokenizer.json`` file, padding and truncation off."""
    tokenizers = _import_tokenizers()
    try:
        tok = tokenizers.Tokenizer.from_file(str(path))
    except Exception as e:  # the Rust side raises a plain Exception on bad files
        raise CheckpointError(f"cannot load tokenizer {str(path)!r}: {e}") from e
    return tok


@dataclass(frozen=True)
class GapMarkers:
    """The marker tokens of a gap-aware tokenizer (the checkpoint's ``markers`` section)."""

    open: str = MARKER_OPEN
    close: str = MARKER_CLOSE
    open_id: int = -1
    close_id: int = -1
    version: str = MARKING_VERSION

    def to_dict(self) -> dict[str, Any]:
        return {
            "open": self.open,
            "close": self.close,
            "open_id": self.open_id,
            "close_id": self.close_id,
            "version": self.version,
        }

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "markers") -> GapMarkers:
        if not isinstance(data, Mapping):
            raise CheckpointError(f"{where} must be an object, got {type(data).__name__}")
        try:
            markers = cls(
                open=str(data["open"]),
                close=str(data["close"]),
                open_id=int(data["open_id"]),
                close_id=int(data["close_id"]),
                version=str(data.get("version", MARKING_VERSION)),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise CheckpointError(f"{where}: missing or malformed key ({e})") from e
        if markers.version != MARKING_VERSION:
            raise CheckpointError(
                f"{where}: marking version {markers.version!r} is not supported by this sitar "
                f"(it knows {MARKING_VERSION!r}); upgrade sitar"
            )
        return markers

    @classmethod
    def add_to(cls, tokenizer: Any) -> GapMarkers:
        """Add the marker strings to ``tokenizer`` as special tokens (in place; a tokenizer that
        has them already keeps its ids) and return the markers with their ids."""
        tokenizers = _import_tokenizers()
        tokenizer.add_special_tokens(
            [
                tokenizers.AddedToken(MARKER_OPEN, special=True, normalized=False),
                tokenizers.AddedToken(MARKER_CLOSE, special=True, normalized=False),
            ]
        )
        return cls.of(tokenizer)

    @classmethod
    def of(cls, tokenizer: Any) -> GapMarkers:
        """The markers of a tokenizer that has them; :class:`CheckpointError` otherwise."""
        open_id, close_id = tokenizer.token_to_id(MARKER_OPEN), tokenizer.token_to_id(MARKER_CLOSE)
        if open_id is None or close_id is None:
            raise CheckpointError(
                "the tokenizer has no gap marker tokens; a gap-aware checkpoint's tokenizer.json "
                "must contain them (GapMarkers.add_to at training time)"
            )
        return cls(open_id=int(open_id), close_id=int(close_id))


def _clean(text: str) -> str:
    if MARKER_OPEN in text or MARKER_CLOSE in text:
        return text.replace(MARKER_OPEN, " ").replace(MARKER_CLOSE, " ")
    return text


def mark_text(text: str, spans: Sequence[Span]) -> str:
    """``text`` with each half-open character span wrapped as ``⟦ span ⟧`` (empty spans too).

    ``spans`` must be ordered and non-overlapping (a gap's spans on one side, spec §4). Marker
    characters already in ``text`` become spaces.
    """
    out: list[str] = []
    cursor = 0
    for start, end in spans:
        if not (cursor <= start <= end <= len(text)):
            raise InputError(
                f"gap spans must be ordered, non-overlapping and inside the text; got {start, end} "
                f"after position {cursor} in a text of {len(text)} characters"
            )
        out.append(_clean(text[cursor:start]))
        out.append(f" {MARKER_OPEN} ")
        out.append(_clean(text[start:end]))
        out.append(f" {MARKER_CLOSE} ")
        cursor = end
    out.append(_clean(text[cursor:]))
    return "".join(out)


@dataclass(frozen=True)
class EncodedPair:
    """One model input: token ids, token type ids and, when gap-marked, the (G, 4) marker
    positions ``(ref_open, ref_close, hyp_open, hyp_close)`` of each gap and, when the encoder
    computes them, the (G, 2) closeness features ``(char, phonetic)`` of each gap (else ``()``)."""

    ids: tuple[int, ...]
    type_ids: tuple[int, ...]
    gap_index: tuple[tuple[int, int, int, int], ...] = ()
    gap_closeness: tuple[tuple[float, float], ...] = ()

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def n_gaps(self) -> int:
        return len(self.gap_index)


def _word_limit(tokenizer: Any) -> tuple[int | None, int]:
    """``(unk id, max characters per word)`` of a WordPiece tokenizer; ``(None, 0)`` otherwise."""
    import json

    try:
        model = json.loads(tokenizer.to_str()).get("model", {})
    except (ValueError, AttributeError):
        return None, 0
    limit = model.get("max_input_chars_per_word")
    unk = model.get("unk_token")
    if model.get("type") != "WordPiece" or not isinstance(limit, int) or unk is None:
        return None, 0
    unk_id = tokenizer.token_to_id(unk)
    return (int(unk_id), limit) if unk_id is not None else (None, 0)


def _check_pairs(references: Sequence[str], hypotheses: Sequence[str]) -> None:
    check_pairs(references, hypotheses)  # the one text check (sitar.validation)


class PairEncoder:
    """Plain and gap-marked pair encodings with one ``tokenizers.Tokenizer``.

    ``tokenizer`` is a ``tokenizers.Tokenizer`` or a path to a ``tokenizer.json``. Padding and
    truncation of the tokenizer file are switched off. ``markers`` (default: read from the tokenizer
    when it has them) enables :meth:`encode_marked`. ``closeness`` makes :meth:`encode_marked`
    compute each gap's :mod:`sitar.closeness` features too (for a graph that takes
    ``gap_closeness``). Batches are padded here with the pad id (any id is fine for a correctly
    masked model; 0 when the tokenizer names no pad token).
    """

    def __init__(
        self,
        tokenizer: Any,
        *,
        max_length: int,
        pad_id: int | None = None,
        markers: GapMarkers | None = None,
        closeness: bool = False,
    ) -> None:
        if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 8:
            raise InputError(f"max_length must be an integer >= 8, got {max_length!r}")
        if isinstance(tokenizer, (str, os.PathLike)):
            tokenizer = load_tokenizer_file(tokenizer)
        if pad_id is None:
            padding = tokenizer.padding
            pad_id = padding.get("pad_id") if padding else None
        if pad_id is None:
            pad_id = next(
                (
                    tokenizer.token_to_id(t)
                    for t in _PAD_TOKEN_CANDIDATES
                    if tokenizer.token_to_id(t) is not None
                ),
                0,
            )
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.pad_id = int(pad_id)
        self.max_length = int(max_length)
        # WordPiece turns a word longer than this into [UNK]: such words are refused (see
        # _refuse_unreadable_words) instead of silently losing their content.
        self._unk_id, self._max_word_chars = _word_limit(tokenizer)
        if markers is None and tokenizer.token_to_id(MARKER_OPEN) is not None:
            markers = GapMarkers.of(tokenizer)
        self.markers = markers
        self.closeness = bool(closeness)

    # -- plain ------------------------------------------------------------------------------------

    def encode(self, references: Sequence[str], hypotheses: Sequence[str]) -> list[EncodedPair]:
        """Plain encodings ``[CLS] r [SEP] h [SEP]`` of the pairs, untruncated."""
        _check_pairs(references, hypotheses)
        if not len(references):
            return []
        pairs = list(zip(references, hypotheses, strict=True))
        encs = self.tokenizer.encode_batch(pairs)
        for pair, e in zip(pairs, encs, strict=True):
            self._refuse_unreadable_words(pair, e)
        return [EncodedPair(tuple(e.ids), tuple(e.type_ids)) for e in encs]

    def lengths(self, references: Sequence[str], hypotheses: Sequence[str]) -> list[int]:
        """Token counts of the plain pair encodings, special tokens included."""
        return [len(e) for e in self.encode(references, hypotheses)]

    def pair_length(self, reference: str, hypothesis: str) -> int:
        return len(self.tokenizer.encode(reference, hypothesis).ids)

    def _refuse_unreadable_words(self, pair: tuple[str, str], enc: Any) -> None:
        """Raise :class:`InputError` for a word the tokenizer could only read as unknown because of
        its length (WordPiece's ``max_input_chars_per_word``, 100 for BERT-style vocabularies): its
        content would be invisible to the model. Ordinary unknown words (a rare symbol) pass."""
        if self._unk_id is None or self._unk_id not in enc.ids:
            return
        for k, token_id in enumerate(enc.ids):
            if token_id != self._unk_id:
                continue
            seq = enc.sequence_ids[k]
            if seq is None:
                continue
            start, end = enc.offsets[k]
            word = pair[seq][start:end]
            if len(word) > self._max_word_chars:
                side = "reference" if seq == 0 else "hypothesis"
                raise InputError(
                    f"the {side} holds a word of {len(word)} characters ({word[:30]!r}...), longer "
                    f"than the {self._max_word_chars} characters the model tokenizer can read; "
                    "split or remove it (it would reach the model as an unknown token)"
                )

    # -- gap-marked -------------------------------------------------------------------------------

    def _require_markers(self) -> GapMarkers:
        if self.markers is None:
            raise CheckpointError(
                "this tokenizer has no gap markers; gap-marked input needs a gap-aware checkpoint"
            )
        return self.markers

    def mark(
        self, reference: str, hypothesis: str, gaps: Sequence[tuple[Span, Span]]
    ) -> tuple[str, str]:
        """The marked texts of a pair; ``gaps`` are ``(ref_span, hyp_span)`` character spans."""
        return (
            mark_text(reference, [g[0] for g in gaps]),
            mark_text(hypothesis, [g[1] for g in gaps]),
        )

    def encode_marked(
        self, items: Sequence[tuple[str, str, Sequence[tuple[Span, Span]]]]
    ) -> list[EncodedPair]:
        """Gap-marked encodings of ``(reference, hypothesis, gap spans)`` items, untruncated."""
        markers = self._require_markers()
        if not len(items):
            return []
        texts = [self.mark(r, h, gaps) for r, h, gaps in items]
        encs = self.tokenizer.encode_batch(texts)
        out = []
        for (ref, hyp, gaps), pair, enc in zip(items, texts, encs, strict=True):
            self._refuse_unreadable_words(pair, enc)
            ids = enc.ids
            opens = [i for i, t in enumerate(ids) if t == markers.open_id]
            closes = [i for i, t in enumerate(ids) if t == markers.close_id]
            g = len(gaps)
            if len(opens) != 2 * g or len(closes) != 2 * g:
                raise InputError(
                    f"gap marking produced {len(opens)} open and {len(closes)} close markers for "
                    f"{g} gaps; the tokenizer does not keep the marker tokens intact"
                )
            index = tuple((opens[k], closes[k], opens[g + k], closes[g + k]) for k in range(g))
            close: tuple[tuple[float, float], ...] = ()
            if self.closeness:
                from sitar.closeness import gap_closeness

                # The span texts as the model sees them (marker characters made spaces).
                spans = [(_clean(ref[a:b]), _clean(hyp[c:d])) for (a, b), (c, d) in gaps]
                close = tuple((float(x), float(y)) for x, y in gap_closeness(spans))
            out.append(EncodedPair(tuple(ids), tuple(enc.type_ids), index, close))
        return out

    # -- batches ----------------------------------------------------------------------------------

    def collate(
        self,
        items: Sequence[EncodedPair],
        input_names: Sequence[str],
        *,
        width: int | None = None,
    ) -> dict[str, np.ndarray]:
        """Right-pad a batch to ``width`` (default: its longest item): int64 arrays of shape
        (B, T) per input name, plus ``gap_index`` (B, G, 4) int64 and ``gap_closeness`` (B, G, 2)
        float32 when asked for. Padded gap slots point at position 0 and have closeness 0 (their
        outputs are ignored)."""
        longest = max(len(e) for e in items)
        width = longest if width is None else width
        if width < longest:
            raise InputError(f"width {width} is shorter than the longest item ({longest})")
        b = len(items)
        ids = np.full((b, width), self.pad_id, dtype=np.int64)
        mask = np.zeros((b, width), dtype=np.int64)
        types = np.zeros((b, width), dtype=np.int64)
        for row, enc in enumerate(items):
            n = len(enc)
            ids[row, :n] = enc.ids
            mask[row, :n] = 1
            types[row, :n] = enc.type_ids
        arrays: dict[str, np.ndarray] = {
            "input_ids": ids,
            "attention_mask": mask,
            "token_type_ids": types,
        }
        if "gap_index" in input_names:
            g = max(1, max(e.n_gaps for e in items))
            index = np.zeros((b, g, 4), dtype=np.int64)
            for row, enc in enumerate(items):
                if enc.n_gaps:
                    index[row, : enc.n_gaps] = np.asarray(enc.gap_index, dtype=np.int64)
            arrays["gap_index"] = index
        if "gap_closeness" in input_names:
            g = max(1, max(e.n_gaps for e in items))
            close = np.zeros((b, g, 2), dtype=np.float32)
            for row, enc in enumerate(items):
                if len(enc.gap_closeness) != enc.n_gaps:
                    raise InputError(
                        f"item {row} of the batch has {enc.n_gaps} gaps but "
                        f"{len(enc.gap_closeness)} closeness rows; encode it with a "
                        "PairEncoder(closeness=True) (checkpoint_encoder does for a checkpoint "
                        "whose graph takes gap_closeness)"
                    )
                if enc.n_gaps:
                    close[row, : enc.n_gaps] = np.asarray(enc.gap_closeness, dtype=np.float32)
            arrays["gap_closeness"] = close
        return {name: arrays[name] for name in input_names}


def checkpoint_encoder(config: Any) -> PairEncoder:
    """The :class:`PairEncoder` of a checkpoint (a :class:`~sitar.checkpoint.CheckpointConfig`):
    its ``tokenizer.json``, ``max_length``, optional ``pad_token_id`` and, for a gap-aware
    checkpoint, its ``markers`` section, which must agree with the tokenizer's marker ids. When the
    graph takes ``gap_closeness`` the encoder computes the closeness features, whose version the
    config's ``closeness`` section must name (:func:`sitar.closeness.check_version`)."""
    extra = getattr(config, "extra", {}) or {}
    pad_id = extra.get("pad_token_id")
    tokenizer = load_tokenizer_file(config.tokenizer_path)
    markers = None
    if "markers" in extra:
        markers = GapMarkers.from_dict(extra["markers"], where=f"{config.name}: markers")
        found = (tokenizer.token_to_id(markers.open), tokenizer.token_to_id(markers.close))
        if found != (markers.open_id, markers.close_id):
            raise CheckpointError(
                f"{config.name}: sitar_config.json 'markers' names ids "
                f"{(markers.open_id, markers.close_id)} but the tokenizer has {found}; the "
                "tokenizer and the config come from different exports"
            )
    onnx = getattr(config, "onnx", None)
    closeness = "gap_closeness" in tuple(getattr(onnx, "inputs", ()) or ())
    if closeness:
        from sitar.closeness import check_version

        check_version(extra.get("closeness"), where=f"{config.name}: closeness")
    return PairEncoder(
        tokenizer,
        max_length=config.max_length,
        pad_id=pad_id if isinstance(pad_id, int) and not isinstance(pad_id, bool) else None,
        markers=markers,
        closeness=closeness,
    )
