"""How each value of a checkpoint's ``sitar_config.json`` is checked (the bounds and the checks
:meth:`sitar.checkpoint.CheckpointConfig.from_dict` applies; private to :mod:`sitar.checkpoint`).

Every check raises :class:`~sitar.errors.CheckpointError` naming the file (``where``) and the key,
so a bad config is reported in one line, never as a deep traceback.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sitar.errors import CheckpointError, InputError

#: Bounds of the config's scalars (inclusive unless said otherwise), checked by
#: :meth:`CheckpointConfig.from_dict` for loaded and hand-built configs alike, before any digest is
#: looked at: re-signing a checkpoint never makes an out-of-bound value load.
#:
#: * ``max_length``: 8 (three special tokens plus text) to 8192 (the longest position table of the
#:   encoders SITAR trains; a BERT-style graph has 512);
#: * ``score_scale``: from the top threshold to 7/3, the top of the SPEC §5 raw scale;
#: * ``thresholds``: 1 to 16 strictly increasing values in (0, 7/3];
#: * ``rho``: 0 < rho < 1; ``loss_weights``: finite and >= 0; ``onnx.opset``: 1 to 1000;
#: * ``pad_token_id`` and marker ids: integers 0 to 2**31 - 1;
#: * ``name``: 1 to 200 letters, digits, ``.``, ``_``, ``+`` or ``-``; ``name`` and ``backbone``
#:   never hold control characters or ``|`` (they go into one-line signatures and TSV headers).
MAX_LENGTH_BOUNDS = (8, 8192)
MAX_THRESHOLDS = 16
MAX_NAME_LENGTH = 200
MAX_TOKEN_ID = 2**31 - 1
MAX_OPSET = 1000
NAME_PATTERN = re.compile(r"[^\W_][\w.+-]*")
HEAD_NAMES = ("gaps", "pair")
#: Input forms (``scoring.normalize`` of a checkpoint; ``--normalize``): ``sitar`` (both sides
#: through :mod:`sitar.normalize`) or ``none`` (text as written).
NORMALIZATIONS = ("sitar", "none")


def bad(where: str, message: str) -> CheckpointError:
    return CheckpointError(f"{where}: {message}")


def check_str(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise bad(where, f"{key!r} must be a non-empty string, got {value!r}")
    return value


def check_optional_str(value: Any, key: str, where: str) -> str | None:
    return None if value is None else check_str(value, key, where)


def check_one_line(value: Any, key: str, where: str) -> str:
    """A non-empty string without control characters or ``|`` (it goes into signatures)."""
    value = check_str(value, key, where)
    if "|" in value or any(ord(c) < 32 or 127 <= ord(c) < 160 for c in value):
        raise bad(where, f"{key!r} must not hold control characters or '|', got {value!r}")
    return value


def check_name(value: Any, where: str) -> str:
    value = check_one_line(value, "name", where)
    if len(value) > MAX_NAME_LENGTH or not NAME_PATTERN.fullmatch(value):
        raise bad(
            where,
            f"'name' must be 1 to {MAX_NAME_LENGTH} letters, digits, '.', '_', '+' or '-' "
            f"(starting with a letter or digit), got {value[:80]!r}",
        )
    return value


def check_number(
    value: Any,
    key: str,
    where: str,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """A finite real number within the given bounds (inclusive unless ``open_*``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise bad(where, f"{key!r} must be a finite number, got {value!r}")
    x = float(value)
    too_low = low is not None and (x <= low if open_low else x < low)
    too_high = high is not None and (x >= high if open_high else x > high)
    if too_low or too_high:
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        interval = f"{'(' if open_low else '['}{lo}, {hi}{')' if open_high else ']'}"
        raise bad(where, f"{key!r} must be in {interval}, got {value!r}")
    return x


def check_int(value: Any, key: str, where: str, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise bad(where, f"{key!r} must be an integer in [{low}, {high}], got {value!r}")
    return value


def check_sections(data: Mapping[str, Any], n_thresholds: int, where: str) -> None:
    """Bounds of the optional top-level keys that change scores (kept in ``extra``)."""
    if data.get("pad_token_id") is not None:
        check_int(data["pad_token_id"], "pad_token_id", where, low=0, high=MAX_TOKEN_ID)
    head = data.get("head")
    if head is not None:
        if not isinstance(head, Mapping):
            raise bad(where, f"'head' must be an object, got {type(head).__name__}")
        if "num_thresholds" in head and head["num_thresholds"] != n_thresholds:
            raise bad(
                where,
                f"'head.num_thresholds' is {head['num_thresholds']!r} but 'thresholds' has "
                f"{n_thresholds} values",
            )
        if "dropout" in head:
            check_number(head["dropout"], "head.dropout", where, low=0.0, high=1.0, open_high=True)
        for key in ("gap_head", "gap_closeness"):
            if key in head and not isinstance(head[key], bool):
                raise bad(where, f"'head.{key}' must be true or false, got {head[key]!r}")
    closeness = data.get("closeness")
    if closeness is not None:
        if not isinstance(closeness, Mapping):
            raise bad(where, f"'closeness' must be an object, got {type(closeness).__name__}")
        check_one_line(closeness.get("version"), "closeness.version", where)
    scoring = data.get("scoring")
    if scoring is not None:
        if not isinstance(scoring, Mapping):
            raise bad(where, f"'scoring' must be an object, got {type(scoring).__name__}")
        if "head" in scoring and scoring["head"] not in HEAD_NAMES:
            raise bad(where, f"'scoring.head' must be one of {HEAD_NAMES}, got {scoring['head']!r}")
        if "decode" in scoring:
            from sitar.gapscore import DECODE_RULES

            if scoring["decode"] not in DECODE_RULES:
                raise bad(
                    where,
                    f"'scoring.decode' must be one of {DECODE_RULES}, got {scoring['decode']!r}",
                )
        from sitar.gapscore import check_t2_cut
        from sitar.normalize import check_normal_form_version
        from sitar.swer import swer_params_from_section

        # Each value's own checker (one home per rule), its InputError named by the key.
        checkers = (
            ("swer", swer_params_from_section),
            ("t2_cut", check_t2_cut),
            ("normal_form", check_normal_form_version),
        )
        for key, check in checkers:
            if key in scoring:
                try:
                    check(scoring[key])
                except InputError as e:
                    raise bad(where, f"'scoring.{key}': {e}") from e
        if "normalize" in scoring and scoring["normalize"] not in NORMALIZATIONS:
            raise bad(
                where,
                f"'scoring.normalize' must be 'none' or 'sitar', got {scoring['normalize']!r}",
            )
    markers = data.get("markers")
    if markers is not None:
        if not isinstance(markers, Mapping):
            raise bad(where, f"'markers' must be an object, got {type(markers).__name__}")
        for key in ("open", "close"):
            check_one_line(markers.get(key), f"markers.{key}", where)
        for key in ("open_id", "close_id"):
            check_int(markers.get(key), f"markers.{key}", where, low=0, high=MAX_TOKEN_ID)


def check_relative(path: str, key: str, where: str) -> str:
    """Referenced files must stay inside the checkpoint folder (no absolute paths, no ``..``)."""
    p = Path(path)
    if p.is_absolute() or ".." in p.parts:
        raise bad(where, f"{key!r} must be a path relative to the checkpoint folder, got {path!r}")
    return path
