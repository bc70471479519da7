"""Checkpoint integrity: SHA-256 digests of everything in a checkpoint that changes scores.

``sitar_config.json`` carries an ``integrity`` section written at export time
(:func:`write_integrity`)::

    "integrity": {
      "algorithm": "sha256",
      "files": {"model.int8.onnx": "<hex>", "tokenizer.json": "<hex>"},
      "fields": {"covered": ["head", "max_length", "onnx", ...], "sha256": "<hex>"},
      "digest": "<hex>"
    }

* ``files``: every file the config references: the tokenizer, each ONNX graph and its external
  data file (``<graph>.data``) when there is one;
* ``fields``: one digest over the score-changing config values and the name: :data:`SCORE_FIELDS`
  (``max_length``, ``name``, ``onnx``, ``pad_token_id``, ``rho``, ``score_scale``, ``thresholds``,
  ``tokenizer``) plus every top-level section of :data:`SCORE_SECTIONS` (``head``, ``markers``,
  ``scoring``, ``closeness``) that the config has; absent keys count as ``null``, so adding one is a change too;
* ``digest``: one digest over the two above; its first :data:`SHORT_DIGEST_LEN` hex digits
  go into the score signature (``ckpt:<name>@<digest>``).

:func:`verify_checkpoint` (called by :meth:`sitar.checkpoint.CheckpointConfig.load`) recomputes them
from the folder. Any difference is a :class:`~sitar.errors.CheckpointError` naming the file or the
fields: a checkpoint edited after export (``score_scale`` changed by hand, a swapped graph) never
loads. A checkpoint *without* an ``integrity`` section (exported before this check existed, or
built by hand), or whose digests cover less than :data:`SCORE_FIELDS` (signed by an older sitar,
before ``name`` and ``pad_token_id`` were covered), is *unverified*: its digest is computed from what
is on disk and the signature marks it ``ckpt:<name>@<digest>-unverified``, so two different
checkpoints never share a signature. :func:`require_verified` (called by ``Scorer.load``) refuses to
score with an unverified checkpoint unless the caller passes ``allow_unverified=True``
(``--allow-unverified`` on the command line), and then warns. The packaged default checkpoint
carries digests that cover everything (a test checks it). Digests never replace validation: the
config's values are checked against their bounds (:mod:`sitar.checkpoint`) before the digests, and
``write`` refuses to sign a config that does not validate. Symbolic links inside a checkpoint
folder that point outside it are refused, with or without digests (a Hugging Face cache snapshot may
link into its own repository's ``blobs/``).

Command line: ``sitar checkpoint sign FOLDER`` records the digests (after an intended change);
``sitar checkpoint verify FOLDER`` checks them (:mod:`sitar.commands.checkpoint`). The older
``python -m sitar.integrity write|verify`` still works, with a deprecation notice
(:mod:`sitar.integrity.__main__`). This module imports nothing of :mod:`sitar.checkpoint`, which
imports it.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitar.errors import CheckpointError

__all__ = [
    "INTEGRITY_KEY",
    "MAX_CONFIG_BYTES",
    "SCORE_FIELDS",
    "SCORE_SECTIONS",
    "SHORT_DIGEST_LEN",
    "IntegrityStatus",
    "check_symlinks",
    "checkpoint_id",
    "compute_integrity",
    "read_config_json",
    "require_verified",
    "sha256_file",
    "verify_checkpoint",
]

#: Key of the integrity section in ``sitar_config.json``.
INTEGRITY_KEY = "integrity"
#: Top-level config values that change scores (always covered, ``null`` when absent).
SCORE_FIELDS = (
    "max_length",
    "name",
    "onnx",
    "pad_token_id",
    "rho",
    "score_scale",
    "thresholds",
    "tokenizer",
)
#: The members of :data:`SCORE_FIELDS` that sitar 0.1.0 did not cover at first: digests recorded
#: without them still detect tampering with what they cover, but leave the checkpoint unverified.
_LATER_FIELDS = ("name", "pad_token_id")
#: Top-level sections covered whenever present (the per-gap head, the gap markers, the default
#: scoring head and the gap closeness feature version).
SCORE_SECTIONS = ("head", "markers", "scoring", "closeness")
#: Hex digits of the checkpoint digest shown in signatures.
SHORT_DIGEST_LEN = 8
_ALGORITHM = "sha256"
_CONFIG_FILE = "sitar_config.json"


@dataclass(frozen=True)
class IntegrityStatus:
    """The digest of a checkpoint as found on disk, and whether it matched a recorded one."""

    digest: str
    verified: bool
    #: Why the checkpoint is not verified ("" when it is).
    reason: str = ""

    @property
    def short(self) -> str:
        return self.digest[:SHORT_DIGEST_LEN] + ("" if self.verified else "-unverified")


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes (read in 1 MiB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False).encode("utf-8")


def referenced_files(folder: Path, data: Mapping[str, Any]) -> list[str]:
    """Relative names of the files the config references, sorted (existing external data too)."""
    names: set[str] = set()
    tokenizer = data.get("tokenizer")
    if isinstance(tokenizer, str):
        names.add(tokenizer)
    onnx = data.get("onnx")
    files = onnx.get("files") if isinstance(onnx, Mapping) else None
    if isinstance(files, Mapping):
        for name in files.values():
            if isinstance(name, str) and name:
                names.add(name)
                if (folder / f"{name}.data").is_file():
                    names.add(f"{name}.data")
    return sorted(names)


def _covered(data: Mapping[str, Any]) -> list[str]:
    return sorted({*SCORE_FIELDS, *(k for k in SCORE_SECTIONS if k in data)})


def _fields_digest(data: Mapping[str, Any], covered: Sequence[str]) -> str:
    return hashlib.sha256(_canonical({k: data.get(k) for k in covered})).hexdigest()


def _overall(files: Mapping[str, str], fields_sha: str) -> str:
    return hashlib.sha256(_canonical({"files": dict(files), "fields": fields_sha})).hexdigest()


def compute_integrity(folder: str | os.PathLike[str], data: Mapping[str, Any]) -> dict[str, Any]:
    """The ``integrity`` section for the checkpoint in ``folder`` whose config is ``data``."""
    folder = Path(folder)
    files: dict[str, str] = {}
    for name in referenced_files(folder, data):
        path = folder / name
        if not path.is_file():
            raise CheckpointError(f"checkpoint {str(folder)!r}: {name!r} does not exist")
        files[name] = sha256_file(path)
    covered = _covered(data)
    fields_sha = _fields_digest(data, covered)
    return {
        "algorithm": _ALGORITHM,
        "files": files,
        "fields": {"covered": covered, "sha256": fields_sha},
        "digest": _overall(files, fields_sha),
    }


def _allowed_roots(folder: Path) -> list[Path]:
    real = Path(os.path.realpath(folder))
    roots = [real]
    # huggingface_hub: <cache>/models--owner--name/snapshots/<rev>/file -> ../../blobs/<sha>
    if folder.parent.name == "snapshots" and folder.parent.parent.name.startswith("models--"):
        roots.append(Path(os.path.realpath(folder.parent.parent)))
    return roots


def check_symlinks(folder: str | os.PathLike[str]) -> None:
    """Refuse symbolic links inside ``folder`` (at any depth) that resolve outside it."""
    folder = Path(folder)
    roots = _allowed_roots(folder)
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            if not path.is_symlink():
                continue
            target = Path(os.path.realpath(path))
            if not any(target == root or root in target.parents for root in roots):
                raise CheckpointError(
                    f"checkpoint {str(folder)!r}: {str(path.relative_to(folder))!r} is a symbolic "
                    f"link to {str(target)!r}, outside the checkpoint folder; copy the file into "
                    "the folder instead"
                )


def verify_checkpoint(folder: str | os.PathLike[str], data: Mapping[str, Any]) -> IntegrityStatus:
    """Check ``folder`` against the digests recorded in its config ``data``.

    Raises :class:`CheckpointError` on an outside symlink, a malformed section or any mismatch;
    returns the digest found on disk and whether it was verified (False: no digests recorded).
    """
    folder = Path(folder)
    check_symlinks(folder)
    recorded = data.get(INTEGRITY_KEY)
    where = f"{folder / _CONFIG_FILE}"
    if recorded is None:
        actual = compute_integrity(folder, data)
        return IntegrityStatus(
            actual["digest"], verified=False, reason="its config records no digests"
        )
    if (
        not isinstance(recorded, Mapping)
        or recorded.get("algorithm") != _ALGORITHM
        or not isinstance(recorded.get("files"), Mapping)
        or not isinstance(recorded.get("fields"), Mapping)
        or not isinstance(recorded["fields"].get("covered"), list)
    ):
        raise CheckpointError(
            f"{where}: the {INTEGRITY_KEY!r} section is malformed (expected algorithm "
            f"{_ALGORITHM!r}, files and fields); re-export the checkpoint"
        )
    actual = compute_integrity(folder, data)
    missing = sorted(set(actual["files"]) - set(recorded["files"]))
    if missing:
        raise CheckpointError(
            f"checkpoint {str(folder)!r} failed its integrity check: {', '.join(missing)} "
            "is referenced by the config but has no recorded digest (the config was edited)"
        )
    for name, digest in sorted(recorded["files"].items()):
        if name not in actual["files"]:
            path = folder / str(name)
            if not path.is_file():
                raise CheckpointError(
                    f"checkpoint {str(folder)!r} failed its integrity check: {name!r} has a "
                    "recorded digest but is missing"
                )
            actual["files"][name] = sha256_file(path)
        if actual["files"][name] != digest:
            raise CheckpointError(
                f"checkpoint {str(folder)!r} failed its integrity check: {name!r} differs from "
                "the file it was exported with (SHA-256 mismatch); re-download or re-export it"
            )
    recorded_covered = set(map(str, recorded["fields"]["covered"]))
    # Fields added to SCORE_FIELDS later are checked only when the record covers them; a record
    # without them leaves the checkpoint unverified (below), not failed.
    uncovered = sorted(set(_LATER_FIELDS) - recorded_covered)
    covered = sorted((recorded_covered | set(_covered(data))) - set(uncovered))
    if _fields_digest(data, covered) != recorded["fields"].get("sha256"):
        raise CheckpointError(
            f"checkpoint {str(folder)!r} failed its integrity check: the score-changing config "
            f"values ({', '.join(covered)}) differ from those it was exported with; undo the "
            "edit, or record it with `sitar checkpoint sign FOLDER` if it is intended"
        )
    overall = _overall(dict(recorded["files"]), str(recorded["fields"]["sha256"]))
    if recorded.get("digest") != overall:
        raise CheckpointError(
            f"checkpoint {str(folder)!r} failed its integrity check: the recorded overall digest "
            "does not match the recorded parts"
        )
    if uncovered:
        # Signed by an older sitar: what the digests cover matched above (tampering with it is
        # still an error), but the rest is unprotected, so the checkpoint is not verified.
        actual_digest = _overall(actual["files"], _fields_digest(data, _covered(data)))
        return IntegrityStatus(
            actual_digest,
            verified=False,
            reason=f"its digests do not cover {', '.join(uncovered)} (signed by an older sitar)",
        )
    return IntegrityStatus(overall, verified=True)


#: Largest ``sitar_config.json`` read (a config is a few kB; the bound stops a decompression-bomb
#: style file before it is parsed).
MAX_CONFIG_BYTES = 16 * 1024 * 1024


def read_config_json(path: str | os.PathLike[str]) -> Any:
    """Parse a ``sitar_config.json`` with a size limit (:data:`MAX_CONFIG_BYTES`); every failure,
    including nesting too deep for the parser, is a :class:`CheckpointError` naming the file."""
    path = Path(path)
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block the read forever
            raise CheckpointError(
                f"cannot read {path}: not a regular file (a folder, FIFO or device)"
            )
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise CheckpointError(
                f"cannot read {path}: larger than {MAX_CONFIG_BYTES} bytes; a checkpoint config "
                "is a few kB"
            )
        return json.loads(raw.decode("utf-8"))
    except RecursionError as e:
        raise CheckpointError(f"cannot read {path}: JSON nested too deeply") from e
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"cannot read {path}: {e}") from e


def checkpoint_id(config: Any) -> str:
    """``<name>@<short digest>`` for a loaded :class:`~sitar.checkpoint.CheckpointConfig` (the
    signature's ``ckpt`` field); ``-unverified`` is appended when no digests were recorded."""
    status = getattr(config, "_integrity", None)
    if status is None:
        if config.folder is None:
            return str(config.name)
        status = _status_of(config)
    return f"{config.name}@{status.short}"


def _status_of(config: Any) -> IntegrityStatus:
    status = getattr(config, "_integrity", None)
    if status is None:
        data = read_config_json(Path(config.folder) / _CONFIG_FILE)
        status = verify_checkpoint(config.folder, data)
        object.__setattr__(config, "_integrity", status)
    return status


def require_verified(config: Any, *, allow_unverified: bool = False) -> IntegrityStatus:
    """The integrity status of a loaded checkpoint config; an unverified checkpoint is a
    :class:`CheckpointError` unless ``allow_unverified``, and then a warning (on stderr by default).

    This is the one place that decides whether scoring may use a checkpoint whose score-changing
    values no digest vouches for (``Scorer.load`` calls it; ``--allow-unverified`` sets the flag).
    """
    if config.folder is None:
        raise CheckpointError(
            f"checkpoint {config.name!r} has no folder; load it with CheckpointConfig.load(folder)"
        )
    status = _status_of(config)
    if status.verified:
        return status
    message = (
        f"checkpoint {str(config.folder)!r} is unverified: {status.reason}, so nothing vouches "
        "for its score-changing values (score_scale, thresholds, graphs)"
    )
    if not allow_unverified:
        raise CheckpointError(
            f"{message}; record its digests with `sitar checkpoint sign FOLDER` if you "
            "trust it, or pass allow_unverified=True (--allow-unverified on the command line) to "
            "score with it anyway"
        )
    import warnings

    warnings.warn(
        f"{message}; scoring anyway (allow_unverified); its signature says "
        f"ckpt:{config.name}@{status.short}",
        UserWarning,
        stacklevel=3,
    )
    return status
