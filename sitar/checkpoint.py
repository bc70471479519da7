"""Reading, validating and writing SITAR checkpoint folders.

A checkpoint is a self-describing folder: ``sitar_config.json`` (schema ``sitar.checkpoint/1``)
names the backbone, the pair-encoding ``max_length``, the ONNX graph files with their input and
output names, the tokenizer file, the score scale, the ordinal thresholds, ``rho`` and how the model
was trained. :class:`CheckpointConfig` is the frozen, validated form of that file; every path in it
is resolved relative to the folder it was loaded from. Loading never downloads anything: a missing
key, a wrong schema or a referenced file that does not exist raises
:class:`~sitar.errors.CheckpointError` naming the key or file. Unknown extra keys are kept and
written back unchanged by :meth:`CheckpointConfig.save`. The bounds of each value and the checks
that enforce them live in :mod:`sitar._checkpoint_fields`.

This module is also the one home of checkpoint *resolution*: :func:`resolve_checkpoint` turns what
a user names (a folder, an ``owner/name`` Hugging Face repo id, or nothing for the packaged
default) into a local folder; only a hub id ever reaches the network, through ``huggingface_hub``
and never with ``HF_HUB_OFFLINE`` set.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sitar._checkpoint_fields import (
    MAX_LENGTH_BOUNDS,
    MAX_OPSET,
    MAX_THRESHOLDS,
    NORMALIZATIONS,
    bad,
    check_int,
    check_name,
    check_number,
    check_one_line,
    check_optional_str,
    check_relative,
    check_sections,
    check_str,
)
from sitar._version import __version__
from sitar.errors import CheckpointError, InputError, MissingDependencyError
from sitar.integrity import (
    INTEGRITY_KEY,
    check_symlinks,
    compute_integrity,
    read_config_json,
)
from sitar.targets import DEFAULT_RHO, MAX_SCORE

__all__ = [
    "CHECKPOINT_SCHEMA",
    "CONFIG_FILE",
    "DEFAULT_CHECKPOINT",
    "DEFAULT_THRESHOLDS",
    "NORMALIZATIONS",
    "ONNX_INPUTS",
    "ONNX_VARIANTS",
    "CheckpointConfig",
    "OnnxConfig",
    "default_checkpoint_path",
    "read_config_json",
    "resolve_checkpoint",
    "write_integrity",
]

#: Schema id of ``sitar_config.json``; bump on incompatible changes.
CHECKPOINT_SCHEMA = "sitar.checkpoint/1"
#: Name of the config file inside a checkpoint folder.
CONFIG_FILE = "sitar_config.json"
#: The shipped checkpoint that ``Scorer.load()`` and ``sitar score`` use when none is named. It lives
#: in the repository's ``checkpoints/<name>/`` and is installed as ``sitar/checkpoints_data/<name>/``.
DEFAULT_CHECKPOINT = "sitar-minilm-gap-v5"
#: ONNX file variants a checkpoint may ship: the fp32 graph, int8 (dynamic per-tensor int8 for
#: pair-head models, static int8 for gap-aware ones) and int8row (row-wise dynamic int8 with fp32
#: down projections: batch-invariant, see ``sitar.modeling.quantize.quantize_rowwise_int8``).
ONNX_VARIANTS = ("fp32", "int8", "int8row")
#: Graph inputs SITAR knows how to feed; ``token_type_ids`` only when the graph takes it,
#: ``gap_index`` (spec §7b (docs/spec.md) marker positions) only for a gap-aware graph, and
#: ``gap_closeness`` (:mod:`sitar.closeness` features) only for one trained with them (its config
#: then has a ``closeness`` section naming the feature version).
ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids", "gap_index", "gap_closeness")
#: spec §7 ordinal thresholds on the raw scale.
DEFAULT_THRESHOLDS = (1 / 3, 2 / 3, 1.0, 4 / 3, 5 / 3, 2.0)

_REQUIRED_KEYS = ("schema", "name", "backbone", "max_length", "onnx", "tokenizer")
_REQUIRED_ONNX_KEYS = ("files", "inputs", "outputs")
# Top-level keys that map onto dataclass fields; anything else is preserved in ``extra``.
_KNOWN_KEYS = (
    "schema",
    "name",
    "backbone",
    "max_length",
    "onnx",
    "tokenizer",
    "score_scale",
    "thresholds",
    "rho",
    "loss_weights",
    "training_config_hash",
    "training",
    "sitar_version",
    "created",
)
_KNOWN_ONNX_KEYS = ("files", "default", "inputs", "outputs", "opset")


def _utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class OnnxConfig:
    """The ``onnx`` section: graph files per variant, the default variant, input/output names."""

    #: Variant (one of :data:`ONNX_VARIANTS`) -> file name relative to the folder, or None if
    #: absent.
    files: Mapping[str, str | None] = field(
        default_factory=lambda: {"fp32": "model.onnx", "int8": "model.int8.onnx"}
    )
    #: Variant used when the caller does not choose one; None picks int8 if present, else fp32.
    default: str | None = "int8"
    #: Graph input names, exactly the inputs the graph takes.
    inputs: tuple[str, ...] = ("input_ids", "attention_mask")
    #: Graph output names; ``score`` (batch,) first, optionally ``ordinal_logits`` (batch, 6).
    outputs: tuple[str, ...] = ("score", "ordinal_logits")
    opset: int | None = 17
    #: Unknown keys of the section, preserved on save.
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "onnx") -> OnnxConfig:
        if not isinstance(data, Mapping):
            raise bad(where, f"'onnx' must be a JSON object, got {type(data).__name__}")
        missing = [k for k in _REQUIRED_ONNX_KEYS if k not in data]
        if missing:
            raise bad(where, f"missing required key(s) {', '.join('onnx.' + k for k in missing)}")
        files = data["files"]
        if not isinstance(files, Mapping):
            raise bad(where, f"'onnx.files' must be an object, got {type(files).__name__}")
        checked: dict[str, str | None] = {}
        for variant, name in files.items():
            if variant not in ONNX_VARIANTS:
                raise bad(
                    where,
                    f"unknown ONNX variant {variant!r} in 'onnx.files'; expected {ONNX_VARIANTS}",
                )
            checked[variant] = check_optional_str(name, f"onnx.files.{variant}", where)
            if checked[variant] is not None:
                check_relative(name, f"onnx.files.{variant}", where)
        if not any(checked.values()):
            raise bad(where, "'onnx.files' names no ONNX file; expected at least fp32 or int8")
        default = data.get("default")
        if default is not None and not checked.get(default):
            raise bad(
                where,
                f"'onnx.default' is {default!r} but 'onnx.files' has no file for it; "
                f"available: {sorted(k for k, v in checked.items() if v)}",
            )
        inputs = data["inputs"]
        if (
            not isinstance(inputs, (list, tuple))
            or not inputs
            or any(not isinstance(x, str) for x in inputs)
        ):
            raise bad(where, f"'onnx.inputs' must be a non-empty list of names, got {inputs!r}")
        unknown = [x for x in inputs if x not in ONNX_INPUTS]
        if unknown or "input_ids" not in inputs or len(set(inputs)) != len(inputs):
            raise bad(
                where,
                f"'onnx.inputs' must be distinct names from {ONNX_INPUTS} including 'input_ids', "
                f"got {list(inputs)}",
            )
        outputs = data["outputs"]
        if (
            not isinstance(outputs, (list, tuple))
            or any(not isinstance(x, str) for x in outputs)
            or "score" not in outputs
        ):
            raise bad(
                where, f"'onnx.outputs' must be a list of names with 'score', got {outputs!r}"
            )
        opset = data.get("opset")
        if opset is not None:
            check_int(opset, "onnx.opset", where, low=1, high=MAX_OPSET)
        return cls(
            files=checked,
            default=default,
            inputs=tuple(inputs),
            outputs=tuple(outputs),
            opset=opset,
            extra={k: v for k, v in data.items() if k not in _KNOWN_ONNX_KEYS},
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": dict(self.files),
            "default": self.default,
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "opset": self.opset,
            **dict(self.extra),
        }

    @property
    def available(self) -> tuple[str, ...]:
        """Variants with a file, in :data:`ONNX_VARIANTS` order."""
        return tuple(v for v in ONNX_VARIANTS if self.files.get(v))


@dataclass(frozen=True)
class CheckpointConfig:
    """The validated content of ``sitar_config.json`` plus the folder it belongs to.

    Build one by hand (export code) and :meth:`save` it, or :meth:`load` a folder. ``folder`` is
    None for a config that has not been loaded or saved yet; the path helpers need it.
    """

    name: str
    backbone: str
    max_length: int
    onnx: OnnxConfig = field(default_factory=OnnxConfig)
    tokenizer: str = "tokenizer.json"
    #: Raw scores are clipped to ``[0, score_scale]`` and divided by it (spec §7).
    score_scale: float = MAX_SCORE
    thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS
    rho: float = DEFAULT_RHO
    loss_weights: Mapping[str, float] | None = None
    training_config_hash: str | None = None
    training: Mapping[str, Any] | None = None
    sitar_version: str = __version__
    created: str = field(default_factory=_utc_now)
    #: Unknown top-level keys, preserved on save.
    extra: Mapping[str, Any] = field(default_factory=dict)
    folder: Path | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        # Validate hand-built configs the same way as loaded ones, and store the normalised values
        # (e.g. an ``onnx`` dict becomes an OnnxConfig, lists become tuples).
        checked = self.from_dict(self.to_dict(), folder=self.folder, where="CheckpointConfig")
        for f in fields(self):
            object.__setattr__(self, f.name, getattr(checked, f.name))

    # -- (de)serialisation -------------------------------------------------------------------

    @classmethod
    def from_dict(
        cls, data: Any, *, folder: str | os.PathLike[str] | None = None, where: str = CONFIG_FILE
    ) -> CheckpointConfig:
        """Validate a config mapping; every problem raises :class:`CheckpointError` naming the key."""
        if not isinstance(data, Mapping):
            raise bad(where, f"expected a JSON object, got {type(data).__name__}")
        missing = [k for k in _REQUIRED_KEYS if k not in data]
        if missing:
            raise bad(where, f"missing required key(s) {', '.join(missing)}")
        if data["schema"] != CHECKPOINT_SCHEMA:
            raise bad(
                where,
                f"'schema' is {data['schema']!r}, expected {CHECKPOINT_SCHEMA!r}; this sitar "
                f"version ({__version__}) cannot read it",
            )
        name = check_name(data["name"], where)
        backbone = check_one_line(data["backbone"], "backbone", where)
        max_length = check_int(
            data["max_length"],
            "max_length",
            where,
            low=MAX_LENGTH_BOUNDS[0],
            high=MAX_LENGTH_BOUNDS[1],
        )
        onnx = OnnxConfig.from_dict(data["onnx"], where=where)
        tokenizer = check_relative(
            check_str(data["tokenizer"], "tokenizer", where), "tokenizer", where
        )
        thresholds = data.get("thresholds", list(DEFAULT_THRESHOLDS))
        if not isinstance(thresholds, (list, tuple)) or not 1 <= len(thresholds) <= MAX_THRESHOLDS:
            raise bad(
                where,
                f"'thresholds' must be a list of 1 to {MAX_THRESHOLDS} numbers, got {thresholds!r}",
            )
        thresholds = tuple(
            check_number(t, "thresholds", where, low=0.0, high=MAX_SCORE, open_low=True)
            for t in thresholds
        )
        if any(b <= a for a, b in itertools.pairwise(thresholds)):
            raise bad(where, f"'thresholds' must be strictly increasing, got {list(thresholds)}")
        # The top threshold must be reachable, and raw scores never exceed the SPEC scale.
        score_scale = check_number(
            data.get("score_scale", MAX_SCORE),
            "score_scale",
            where,
            low=thresholds[-1],
            high=MAX_SCORE,
        )
        rho = check_number(
            data.get("rho", DEFAULT_RHO),
            "rho",
            where,
            low=0.0,
            high=1.0,
            open_low=True,
            open_high=True,
        )
        loss_weights = data.get("loss_weights")
        if loss_weights is not None:
            if not isinstance(loss_weights, Mapping):
                raise bad(where, f"'loss_weights' must be an object or null, got {loss_weights!r}")
            loss_weights = {
                str(k): check_number(v, f"loss_weights.{k}", where, low=0.0)
                for k, v in loss_weights.items()
            }
        check_sections(data, len(thresholds), where)
        config_hash = check_optional_str(
            data.get("training_config_hash"), "training_config_hash", where
        )
        training = data.get("training")
        if training is not None and not isinstance(training, Mapping):
            raise bad(where, f"'training' must be an object or null, got {type(training).__name__}")
        version = check_str(data.get("sitar_version", "unknown"), "sitar_version", where)
        created = check_str(data.get("created", "unknown"), "created", where)
        return cls._from_validated(
            name=name,
            backbone=backbone,
            max_length=max_length,
            onnx=onnx,
            tokenizer=tokenizer,
            score_scale=score_scale,
            thresholds=thresholds,
            rho=rho,
            loss_weights=loss_weights,
            training_config_hash=config_hash,
            training=dict(training) if training is not None else None,
            sitar_version=version,
            created=created,
            extra={k: v for k, v in data.items() if k not in _KNOWN_KEYS},
            folder=Path(folder) if folder is not None else None,
        )

    @classmethod
    def _from_validated(cls, **values: Any) -> CheckpointConfig:
        # Bypass __post_init__ (the values were just validated) without duplicating field logic.
        obj = object.__new__(cls)
        for f in fields(cls):
            object.__setattr__(obj, f.name, values[f.name])
        return obj

    def to_dict(self) -> dict[str, Any]:
        """The JSON object written to ``sitar_config.json`` (``folder`` is not part of it)."""
        return {
            "schema": CHECKPOINT_SCHEMA,
            "name": self.name,
            "backbone": self.backbone,
            "max_length": self.max_length,
            "onnx": self.onnx.to_dict()
            if isinstance(self.onnx, OnnxConfig)
            else dict(self.onnx),  # a raw mapping is validated by __post_init__
            "tokenizer": self.tokenizer,
            "score_scale": self.score_scale,
            "thresholds": list(self.thresholds),
            "rho": self.rho,
            "loss_weights": dict(self.loss_weights) if self.loss_weights is not None else None,
            "training_config_hash": self.training_config_hash,
            "training": dict(self.training) if self.training is not None else None,
            "sitar_version": self.sitar_version,
            "created": self.created,
            **dict(self.extra),
        }

    @classmethod
    def load(cls, folder: str | os.PathLike[str], *, check_files: bool = True) -> CheckpointConfig:
        """Read and validate ``<folder>/sitar_config.json``.

        With ``check_files`` (the default) the tokenizer and every ONNX file the config names must
        exist in the folder, and the folder must match the digests recorded in the config
        (:func:`sitar.integrity.verify_checkpoint`: a mismatch or a symbolic link out of the folder
        is a :class:`CheckpointError`).
        """
        folder = Path(folder)
        if not folder.is_dir():
            raise CheckpointError(
                f"checkpoint folder {str(folder)!r} does not exist or is not a directory; pass a "
                "folder that contains sitar_config.json, or a Hugging Face repo id"
            )
        path = folder / CONFIG_FILE
        if not path.exists():
            raise CheckpointError(
                f"{str(folder)!r} is not a SITAR checkpoint: {CONFIG_FILE} is missing"
            )
        data = read_config_json(path)
        config = cls.from_dict(data, folder=folder, where=str(path))
        if check_files:
            config.check_files()
            # SHA-256 digests of the graphs, tokenizer and score-changing fields (sitar.integrity).
            from sitar.integrity import verify_checkpoint

            object.__setattr__(config, "_integrity", verify_checkpoint(folder, data))
        return config

    def save(self, folder: str | os.PathLike[str] | None = None) -> CheckpointConfig:
        """Write ``sitar_config.json`` atomically into ``folder`` (default: ``self.folder``).

        Returns the config bound to that folder. Files the config names are not checked here, so
        export code may write the config before or after the graphs.
        """
        target = Path(folder) if folder is not None else self.folder
        if target is None:
            raise CheckpointError("save() needs a folder: this config was not loaded from one")
        target.mkdir(parents=True, exist_ok=True)
        _write_config_json(target, self.to_dict())
        return replace(self, folder=target)

    # -- paths ----------------------------------------------------------------------------

    def _require_folder(self) -> Path:
        if self.folder is None:
            raise CheckpointError(
                f"checkpoint {self.name!r} has no folder; load it with CheckpointConfig.load(folder)"
            )
        return self.folder

    def path(self, relative: str) -> Path:
        """Resolve a file name from the config against the checkpoint folder."""
        return self._require_folder() / relative

    @property
    def tokenizer_path(self) -> Path:
        return self.path(self.tokenizer)

    def resolve_variant(self, variant: str | None = None) -> str:
        """The ONNX variant to use: ``variant`` if given, else ``onnx.default``, else int8 if the
        checkpoint has it, else fp32."""
        available = self.onnx.available
        if variant is None:
            variant = self.onnx.default or ("int8" if "int8" in available else available[0])
        if variant not in ONNX_VARIANTS:
            raise CheckpointError(
                f"unknown ONNX variant {variant!r}; expected one of {ONNX_VARIANTS}"
            )
        if variant not in available:
            raise CheckpointError(
                f"checkpoint {self.name!r} has no {variant} ONNX file; available: {list(available)}"
            )
        return variant

    def onnx_path(self, variant: str | None = None) -> Path:
        """Path of the ONNX graph for ``variant`` (see :meth:`resolve_variant`)."""
        return self.path(str(self.onnx.files[self.resolve_variant(variant)]))

    def check_files(self) -> None:
        """Raise :class:`CheckpointError` naming the first referenced file that does not exist."""
        folder = self._require_folder()
        referenced = [("tokenizer", self.tokenizer)] + [
            (f"onnx.files.{v}", f) for v, f in self.onnx.files.items() if f
        ]
        for key, name in referenced:
            try:
                mode = (folder / name).stat().st_mode
            except OSError as e:
                raise CheckpointError(
                    f"checkpoint {str(folder)!r}: {key!r} names {name!r}, which does not exist in "
                    "the folder"
                ) from e
            if not stat.S_ISREG(mode):
                raise CheckpointError(
                    f"checkpoint {str(folder)!r}: {key!r} names {name!r}, which is not a regular "
                    "file (a folder, FIFO or device); replace it with the file itself"
                )


def default_checkpoint_folders(name: str = DEFAULT_CHECKPOINT) -> tuple[Path, Path]:
    """Where the shipped checkpoint ``name`` is looked for, in order.

    1. ``sitar/checkpoints_data/<name>/`` inside the installed package (a wheel: ``pyproject.toml``
       maps the repository's ``checkpoints/`` folder to the package ``sitar.checkpoints_data``);
    2. ``checkpoints/<name>/`` next to the ``sitar/`` folder (a source checkout or an editable
       install, where the files stay in the repository).
    """
    package = Path(__file__).resolve().parent
    return (package / "checkpoints_data" / name, package.parent / "checkpoints" / name)


def default_checkpoint_path() -> Path:
    """The folder of the shipped default checkpoint :data:`DEFAULT_CHECKPOINT`.

    Raises :class:`CheckpointError`, naming the places searched, when this installation has none.
    """
    candidates = default_checkpoint_folders()
    for folder in candidates:
        if (folder / CONFIG_FILE).is_file():
            return folder
    searched = " and ".join(repr(str(folder)) for folder in candidates)
    raise CheckpointError(
        f"the default SITAR checkpoint {DEFAULT_CHECKPOINT!r} is not in this installation "
        f"(searched {searched}); reinstall sitar, or pass a checkpoint explicitly: a local "
        "folder containing sitar_config.json or a Hugging Face repo id, e.g. "
        "Scorer.load('path/to/checkpoint') or `sitar score --checkpoint PATH`"
    )


# -- resolution: a folder, a hub id or the packaged default ----------------------------------------

# owner/name, as the Hugging Face hub spells repo ids.
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_HUB_PATTERNS = ["sitar_config.json", "tokenizer.json", "parity.json", "*.onnx", "*.onnx.data"]


def _hub_offline() -> bool:
    if os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "ON", "YES", "TRUE"}:
        return True
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return bool(getattr(constants, "HF_HUB_OFFLINE", False))


def resolve_checkpoint(
    path_or_hub_id: str | os.PathLike[str] | None = None,
    *,
    revision: str | None = None,
    include_torch: bool = False,
) -> Path:
    """A local checkpoint folder for ``path_or_hub_id``.

    ``None`` -> the packaged default; an existing folder -> itself; ``owner/name`` -> a snapshot of
    that Hugging Face repo through ``huggingface_hub`` (only the checkpoint files; with
    ``HF_HUB_OFFLINE=1`` only the local cache is used and a repo that is not cached is a
    :class:`CheckpointError`, never a network call).
    """
    if path_or_hub_id is None:
        return default_checkpoint_path()
    if not isinstance(path_or_hub_id, (str, os.PathLike)):
        raise InputError(
            "the checkpoint must be a folder path (str or os.PathLike), a Hugging Face repo id "
            f"or None, got {type(path_or_hub_id).__name__} {path_or_hub_id!r}"
        )
    if not str(path_or_hub_id).strip():
        # Path("") is the current directory: an empty --checkpoint must not load whatever is there.
        raise InputError(
            "the checkpoint is an empty string; pass a folder path, an 'owner/name' hub id, or "
            "omit it for the packaged default"
        )
    path = Path(path_or_hub_id)
    if path.exists():
        return path
    text = str(path_or_hub_id)
    if not _HUB_ID.match(text):
        raise CheckpointError(
            f"checkpoint {text!r} is neither an existing folder nor a Hugging Face repo id "
            "('owner/name'); pass a folder that contains sitar_config.json"
        )
    try:
        from huggingface_hub import snapshot_download
    except ImportError as e:
        raise MissingDependencyError(
            "huggingface_hub", f"loading the checkpoint {text!r} from the Hugging Face hub"
        ) from e
    offline = _hub_offline()
    patterns = [*_HUB_PATTERNS, "torch/*"] if include_torch else list(_HUB_PATTERNS)
    try:
        folder = snapshot_download(
            repo_id=text, revision=revision, allow_patterns=patterns, local_files_only=offline
        )
    except Exception as e:  # huggingface_hub raises many error types (HTTP, offline, not found)
        if offline:  # huggingface_hub's own message speaks of Python arguments; ours is enough
            raise CheckpointError(
                f"no local folder {text!r} exists, and HF_HUB_OFFLINE is set while the repo is "
                "not in the local cache; download it once with network access, or pass a local "
                "checkpoint folder (--checkpoint PATH)"
            ) from e
        raise CheckpointError(
            f"no local folder {text!r} exists, and it cannot be fetched from the Hugging Face "
            f"hub: {type(e).__name__}: {' '.join(str(e).split())}; check the repo id, your "
            "network and your Hugging Face token"
        ) from e
    return Path(str(folder))


def write_integrity(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """Compute the digests of the checkpoint in ``folder`` and record them in its config (written
    atomically; every other key is kept as it is). Returns the section. It lives here, not in
    :mod:`sitar.integrity`, because signing vouches for the values: a config that does not
    validate (:meth:`CheckpointConfig.from_dict`) is never signed."""
    folder = Path(folder)
    path = folder / CONFIG_FILE
    data = read_config_json(path)
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: expected a JSON object")
    # Signing vouches for the values: a config that does not validate is never signed.
    CheckpointConfig.from_dict(data, folder=folder, where=str(path)).check_files()
    check_symlinks(folder)
    data.pop(INTEGRITY_KEY, None)
    section = compute_integrity(folder, data)
    data[INTEGRITY_KEY] = section
    _write_config_json(folder, data)
    return section


def _write_config_json(folder: Path, data: Mapping[str, Any]) -> None:
    """Write ``folder/sitar_config.json`` atomically (a temporary file, fsynced, then renamed)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".sitar_config.", suffix=".tmp", dir=folder)
    try:
        # mkstemp creates the file as 0600; a config is meant to be shared and read.
        os.chmod(tmp, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, folder / CONFIG_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
