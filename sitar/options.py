"""``ScorerOptions``: every choice that decides what a :class:`~sitar.scorer.Scorer` computes.

One frozen dataclass holds the checkpoint, its revision, the backend and its graph variant, the
device and threads, the CGD analyzer, the scoring head, the gap head's tie-breaker and decoding
rule. It is the input of the score signature (SPEC §9), as sacreBLEU's metric arguments are of
its signature: :meth:`Scorer.load(options) <sitar.scorer.Scorer.load>` reads it, and every entry
point embeds it rather than restating its fields: the ``sitar`` commands, ``sitar serve``
(:class:`~sitar.serve.config.ServeConfig`), the Ray path (:func:`sitar.integrations.ray.
score_dataset`, ``sitar score --engine ray``), and the training and challenge evaluators.

Command-line tools add every option with one call, :func:`add_scorer_arguments`, and read them
back with :func:`options_from_args`; a destination of the parser is the field's name. So a new
option is one field here, one ``add_argument`` here, and the code in :mod:`sitar.scorer` that
applies it (and names it in the signature).

Checks that need no checkpoint (a known backend, head, tie-breaker or decoding rule; a variant
only with ONNX, a device only with torch; a positive thread count) are made when the options are
built, so a bad value fails before any model is loaded; checks that need the checkpoint (does it
have a gap head?) stay with :class:`~sitar.scorer.Scorer`.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitar.checkpoint import NORMALIZATIONS, ONNX_VARIANTS
from sitar.errors import InputError
from sitar.gapscore import DECODE_RULES, TIE_BREAK_VERSIONS

if TYPE_CHECKING:
    from sitar.analyzers import Analyzer

__all__ = [
    "BACKENDS",
    "HEADS",
    "NORMALIZATIONS",
    "ScorerOptions",
    "add_scorer_arguments",
    "default_normal_form",
    "default_normalization",
    "options_from_args",
]

#: Inference backends: ONNX Runtime on CPU, or ``sitar.modeling.TorchPredictor``.
BACKENDS = ("onnx", "torch")
#: Scoring heads: ``gaps`` (SPEC §7b, per-gap positions + SPEC §5) and ``pair`` (SPEC §7).
HEADS = ("gaps", "pair")
# Input normalisation, NORMALIZATIONS (exported by sitar.checkpoint, whose configs name it):
# ``sitar`` (sitar.normalize: both sides in one canonical form before CGD and the model) or
# ``none`` (the text as given, SPEC §1 tokens only).


@dataclass(frozen=True)
class ScorerOptions:
    """The options of :meth:`sitar.scorer.Scorer.load` (see there for each field's meaning).

    ``None`` means "the default": the packaged checkpoint, its default ONNX variant, its head,
    tie-breaker 3 and decoding ``mean``, ONNX Runtime's thread count, the default analyzer.
    ``analyzer`` may be an analyzer name or, from Python, an analyzer object (such options cannot
    travel as JSON: :meth:`to_dict` refuses them).
    """

    checkpoint: str | os.PathLike[str] | None = None
    revision: str | None = None
    backend: str = "onnx"
    variant: str | None = None
    device: str | None = None
    threads: int | None = None
    analyzer: str | Analyzer | None = None
    head: str | None = None
    tie_breaker: int | None = None
    decode: str | None = None
    normalize: str | None = None
    allow_unverified: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.checkpoint, bool) or not (
            self.checkpoint is None or isinstance(self.checkpoint, (str, os.PathLike))
        ):
            raise InputError(
                "path_or_hub_id must be a folder path, an 'owner/name' hub id or None, got "
                f"{type(self.checkpoint).__name__}"
            )
        if self.backend not in BACKENDS:
            raise InputError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.backend == "torch" and self.variant is not None:
            raise InputError("variant selects an ONNX file; it cannot be used with backend='torch'")
        if self.backend == "onnx" and self.device is not None:
            raise InputError(
                "device applies to backend='torch'; the ONNX backend runs on CPU (use threads)"
            )
        if self.variant is not None and self.variant not in ONNX_VARIANTS:
            raise InputError(f"variant must be one of {ONNX_VARIANTS}, got {self.variant!r}")
        if self.threads is not None and (
            isinstance(self.threads, bool) or not isinstance(self.threads, int) or self.threads < 1
        ):
            raise InputError(f"threads must be a positive integer or None, got {self.threads!r}")
        if self.head is not None and self.head not in HEADS:
            raise InputError(f"head must be one of {HEADS}, got {self.head!r}")
        if self.tie_breaker is not None and (
            isinstance(self.tie_breaker, bool)
            or not isinstance(self.tie_breaker, int)
            or self.tie_breaker not in TIE_BREAK_VERSIONS
        ):
            raise InputError(
                f"tie_breaker must be one of {TIE_BREAK_VERSIONS}, got {self.tie_breaker!r}"
            )
        if self.decode is not None and (
            not isinstance(self.decode, str) or self.decode not in DECODE_RULES
        ):
            raise InputError(f"decode must be one of {DECODE_RULES}, got {self.decode!r}")
        if not isinstance(self.allow_unverified, bool):
            raise InputError(
                f"allow_unverified must be True or False, got {self.allow_unverified!r}"
            )
        if self.normalize is not None and (
            not isinstance(self.normalize, str) or self.normalize not in NORMALIZATIONS
        ):
            raise InputError(f"normalize must be one of {NORMALIZATIONS}, got {self.normalize!r}")

    def replace(self, **changes: Any) -> ScorerOptions:
        """A copy with ``changes`` applied (and checked again)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe fields (a path checkpoint as str); an analyzer object is refused."""
        data = dataclasses.asdict(self)
        if data["checkpoint"] is not None:
            data["checkpoint"] = os.fspath(data["checkpoint"])
        if data["analyzer"] is not None and not isinstance(data["analyzer"], str):
            raise InputError(
                "options with an analyzer object cannot be written as JSON; name the analyzer"
            )
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScorerOptions:
        """Options from :meth:`to_dict`'s output; unknown keys are an InputError naming them."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise InputError(f"unknown scorer option(s) {unknown}; known: {sorted(names)}")
        return cls(**data)


def default_normalization(config: Any) -> str:
    """The input form a checkpoint was trained on: ``sitar`` when its config records
    ``scoring.normalize: sitar`` (written by ``python -m training.export`` for a run with
    ``normalize: sitar``), else ``none`` (text as written; every checkpoint before
    ``sitar-minilm-gap-v11``, the v5 default included)."""
    extra = getattr(config, "extra", None) or {}
    scoring = extra.get("scoring") if isinstance(extra, dict) else None
    value = scoring.get("normalize") if isinstance(scoring, dict) else None
    return "sitar" if value == "sitar" else "none"


def default_normal_form(config: Any) -> str:
    """The normal form (:data:`sitar.normalize.NORMAL_FORM_VERSIONS`) a checkpoint read in
    training, used when it is scored with ``normalize='sitar'``: its ``scoring.normal_form``
    (written by ``python -m training.export`` for a run with ``normal_form: "3"``), else ``"2"``
    (:data:`sitar.normalize.NORMALIZER_VERSION`; every checkpoint before the field). The value
    was checked when the checkpoint was read (:mod:`sitar.checkpoint`)."""
    from sitar.normalize import NORMALIZER_VERSION

    extra = getattr(config, "extra", None) or {}
    scoring = extra.get("scoring") if isinstance(extra, dict) else None
    value = scoring.get("normal_form") if isinstance(scoring, dict) else None
    return value if isinstance(value, str) else NORMALIZER_VERSION


def default_decode(config: Any) -> str:
    """The gap head's decoding a checkpoint asks for when none is given: its ``scoring.decode``
    (recorded by ``experiments/decode-tier/choose.py --write`` after a validation choice), else ``mean``."""
    from sitar.gapscore import DEFAULT_DECODE

    extra = getattr(config, "extra", None) or {}
    scoring = extra.get("scoring") if isinstance(extra, dict) else None
    value = scoring.get("decode") if isinstance(scoring, dict) else None
    return value if isinstance(value, str) and value in DECODE_RULES else DEFAULT_DECODE


def checkpoint_t2_cut(config: Any) -> float:
    """The gap head's T1/T2 cut a checkpoint was calibrated with: its ``scoring.t2_cut``
    (recorded after a validation choice, ``experiments/severity-val-cut/``), else 4.5
    (:data:`sitar.gapscore.DEFAULT_T2_CUT`, the plain rounding). Checked on load."""
    from sitar.gapscore import DEFAULT_T2_CUT, check_t2_cut

    extra = getattr(config, "extra", None) or {}
    scoring = extra.get("scoring") if isinstance(extra, dict) else None
    if not isinstance(scoring, dict) or "t2_cut" not in scoring:
        return DEFAULT_T2_CUT
    return check_t2_cut(scoring["t2_cut"])


def add_scorer_arguments(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    *,
    checkpoint_required: bool = False,
    threads_help: str = "CPU threads for inference (default: ONNX Runtime's choice)",
) -> None:
    """Add one option per :class:`ScorerOptions` field, each with the field's name as dest.

    Every command and tool that loads a scorer calls this, so all of them accept the same options
    with the same meaning; :func:`options_from_args` reads them back.
    """
    from sitar._main import SingleValue

    add = parser.add_argument
    add(
        "--checkpoint",
        metavar="PATH_OR_HUB_ID",
        default=None,
        required=checkpoint_required,
        action=SingleValue,
        help="checkpoint folder or Hugging Face repo id"
        + ("" if checkpoint_required else " (default: the packaged default checkpoint)"),
    )
    add(
        "--revision",
        default=None,
        action=SingleValue,
        help="Hugging Face revision (branch, tag or commit)",
    )
    add(
        "--backend",
        choices=BACKENDS,
        default="onnx",
        action=SingleValue,
        help="onnx: ONNX Runtime on CPU (default); torch: needs torch and the checkpoint's torch/",
    )
    add(
        "--variant",
        choices=ONNX_VARIANTS,
        default=None,
        action=SingleValue,
        help="ONNX graph to use (default: the checkpoint's default)",
    )
    add(
        "--device",
        default=None,
        action=SingleValue,
        help="torch device for --backend torch (default: GPU if any)",
    )
    add(
        "--threads",
        type=int,
        default=None,
        metavar="N",
        action=SingleValue,
        help=threads_help,
    )
    add(
        "--analyzer",
        default=None,
        action=SingleValue,
        help="CGD analyzer for gaps and long-input windows (default: 'lexicon')",
    )
    add(
        "--head",
        choices=HEADS,
        default=None,
        action=SingleValue,
        help="scoring head: gaps (per-gap positions + SPEC §5, gap-aware checkpoints) or pair "
        "(default: the checkpoint's choice)",
    )
    add(
        "--tie-breaker",
        type=int,
        choices=TIE_BREAK_VERSIONS,
        default=None,
        action=SingleValue,
        help="gap head: the rule that orders pairs with the same SPEC §5 counts, 3 (default: "
        "severity of the top gaps and extent of the gaps) or 2 (pair head); tb: in the signature",
    )
    add(
        "--decode",
        choices=DECODE_RULES,
        default=None,
        action=SingleValue,
        help="gap head: how a gap's ordinal logits become its position: mean (the rounded "
        "expected position), median (the thresholds passed with probability > 1/2) or tier (the "
        "mean's tier, direction 0); default: the checkpoint's scoring.decode, else mean; dec: in "
        "the signature when not mean",
    )
    add(
        "--allow-unverified",
        action="store_true",
        help="score with a checkpoint whose digests are missing or cover less than this sitar "
        "requires (a warning, and -unverified in the signature); refused without this flag",
    )
    add(
        "--normalize",
        choices=NORMALIZATIONS,
        default=None,
        action=SingleValue,
        help="sitar: put both sides in one canonical written form first (numbers, currency, "
        "case, punctuation, contractions, spellings; norm: in the signature); none: the text as "
        "given. Default: the form the checkpoint was trained on (none for sitar-minilm-gap-v5)",
    )


def options_from_args(args: argparse.Namespace, **overrides: Any) -> ScorerOptions:
    """The :class:`ScorerOptions` of parsed arguments (see :func:`add_scorer_arguments`);
    ``overrides`` replace fields (e.g. ``threads`` from ``--threads-per-actor``)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(ScorerOptions)}
    values.update(overrides)
    return ScorerOptions(**values)
