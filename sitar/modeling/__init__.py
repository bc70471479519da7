"""The torch side of SITAR (extra ``sitar[torch]``): the spec §7 (docs/spec.md) regressor, its losses and export.

This sub-package is the only place in ``sitar/`` that imports torch or transformers; ``import sitar``
never loads it. Importing it without torch installed raises
:class:`~sitar.errors.MissingDependencyError` with the install hint.

- :class:`SitarRegressor`: a cross-encoder over ``[CLS] r [SEP] h [SEP]`` (any ``AutoModel``
  backbone) with a regression head (raw scale) and an ordinal head (one logit per threshold).
- :class:`SitarLoss` and its parts (:class:`MSELoss`, :class:`BoundaryLoss`, :class:`OrdinalLoss`).
- :func:`export_checkpoint`: ONNX fp32 + int8 export into a self-describing checkpoint folder with
  a parity report.
- :func:`load_regressor` and :class:`TorchPredictor`: the ``torch/`` sub-folder of a checkpoint,
  used by ``Scorer.load(..., backend="torch")``.
"""

from __future__ import annotations

from sitar.errors import MissingDependencyError

try:
    import torch  # noqa: F401
    import transformers  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised only without the extra
    missing = "torch" if "torch" in str(e) else "transformers"
    raise MissingDependencyError(
        missing, "sitar.modeling (training, export, torch backend)", "torch"
    ) from e

from sitar.modeling.export import export_checkpoint
from sitar.modeling.losses import BoundaryLoss, MSELoss, OrdinalLoss, SitarLoss, base_interval
from sitar.modeling.model import (
    THRESHOLDS,
    HeadConfig,
    PairEncoder,
    SitarRegressor,
    TorchPredictor,
    add_gap_markers,
    build_regressor,
    grow_gap_closeness,
    load_regressor,
    load_tokenizer,
    resolve_backbone,
    save_regressor,
)
from sitar.modeling.parity import ParityError, parity_report

__all__ = [
    "THRESHOLDS",
    "BoundaryLoss",
    "HeadConfig",
    "MSELoss",
    "OrdinalLoss",
    "PairEncoder",
    "ParityError",
    "SitarLoss",
    "SitarRegressor",
    "TorchPredictor",
    "add_gap_markers",
    "base_interval",
    "build_regressor",
    "export_checkpoint",
    "grow_gap_closeness",
    "load_regressor",
    "load_tokenizer",
    "parity_report",
    "resolve_backbone",
    "save_regressor",
]
