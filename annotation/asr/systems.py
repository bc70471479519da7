"""Recognizer system settings: voice, speaking rate, added noise and decoder beams.

A system is one :class:`SystemConfig`; a build decodes every reference with every system. Systems
are graded by several levers at once (voice, rate, SNR, beam pruning, second pass), because one
lever alone degrades quality in steps. :data:`DEFAULT_SYSTEMS` are the ones of
``data_cards/sitar-asr-v1.md``; a JSON file (a list of objects with the fields below) replaces
them (``--systems FILE``). Unknown fields, wrong types and out-of-range values are
:class:`~sitar.errors.InputError`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitar.errors import InputError

__all__ = ["DEFAULT_SYSTEMS", "SystemConfig", "load_systems", "parse_systems"]

_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


@dataclass(frozen=True)
class SystemConfig:
    """One recognizer system (espeak-ng voice and rate, noise, pocketsphinx search settings)."""

    id: str
    #: espeak-ng voice, e.g. ``en-us+f5`` (the plain ``en-us`` voice decodes badly).
    voice: str
    #: Speaking rate in words per minute (espeak-ng ``-s``; its default is 175).
    rate: int = 175
    #: Pitch 0-99 (espeak-ng ``-p``; default 50).
    pitch: int = 50
    #: Signal-to-noise ratio of added white noise in dB; None = clean.
    snr_db: float | None = None
    #: pocketsphinx search: beam widths (smaller = wider), HMMs per frame, second passes.
    beam: float = 1e-48
    wbeam: float = 7e-29
    pbeam: float = 1e-48
    maxhmmpf: int = 30000
    fwdflat: bool = True
    bestpath: bool = True
    #: Language weight (pocketsphinx ``lw``; default 6.5).
    lw: float = 6.5

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID_RE.match(self.id):
            raise InputError(
                f"system id must be 1-32 lowercase letters, digits, '-' or '_', got {self.id!r}"
            )
        if not isinstance(self.voice, str) or not re.match(
            r"^[a-z]{2}[a-z-]*(\+[a-z0-9]+)?$", self.voice
        ):
            raise InputError(f"{self.id}: voice must look like 'en-us+f5', got {self.voice!r}")
        for name, lo, hi in (("rate", 80, 450), ("pitch", 0, 99), ("maxhmmpf", 100, 10**6)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise InputError(f"{self.id}: {name} must be an integer in [{lo}, {hi}], got {v!r}")
        for name in ("beam", "wbeam", "pbeam"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1:
                raise InputError(f"{self.id}: {name} must be a number in (0, 1), got {v!r}")
        if self.snr_db is not None and (
            isinstance(self.snr_db, bool)
            or not isinstance(self.snr_db, (int, float))
            or not -10 <= self.snr_db <= 60
        ):
            raise InputError(
                f"{self.id}: snr_db must be null or a number in [-10, 60], got {self.snr_db!r}"
            )
        for name in ("fwdflat", "bestpath"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"{self.id}: {name} must be true or false")
        if (
            isinstance(self.lw, bool)
            or not isinstance(self.lw, (int, float))
            or not 0 < self.lw <= 30
        ):
            raise InputError(f"{self.id}: lw must be a number in (0, 30], got {self.lw!r}")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def decoder_options(self) -> dict[str, Any]:
        """Keyword arguments for ``pocketsphinx.Decoder`` (model paths are added by the caller).

        Cepstral mean normalization is ``batch`` (the mean of the utterance itself): pocketsphinx's
        default ``live`` CMN carries its estimate from one utterance to the next, so a hypothesis
        would depend on which utterances the decoder saw before (and a resumed build would differ
        from an uninterrupted one)."""
        return {
            "cmn": "batch",
            "beam": float(self.beam),
            "wbeam": float(self.wbeam),
            "pbeam": float(self.pbeam),
            "maxhmmpf": self.maxhmmpf,
            "fwdflat": self.fwdflat,
            "bestpath": self.bestpath,
            "lw": float(self.lw),
        }


def parse_systems(data: Any) -> tuple[SystemConfig, ...]:
    """Systems from a parsed JSON value: a non-empty list of objects with unique ids."""
    if not isinstance(data, list) or not data:
        raise InputError("systems must be a non-empty JSON list of objects")
    fields = {f.name for f in dataclasses.fields(SystemConfig)}
    out: list[SystemConfig] = []
    for k, item in enumerate(data):
        if not isinstance(item, Mapping):
            raise InputError(f"system {k}: expected an object, got {type(item).__name__}")
        unknown = sorted(set(item) - fields)
        if unknown:
            raise InputError(f"system {k}: unknown field(s) {unknown}; known: {sorted(fields)}")
        missing = [f for f in ("id", "voice") if f not in item]
        if missing:
            raise InputError(f"system {k}: missing field(s) {missing}")
        out.append(SystemConfig(**item))
    ids = [s.id for s in out]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise InputError(f"duplicate system id(s) {dupes}")
    return tuple(out)


def load_systems(path: str | Path) -> tuple[SystemConfig, ...]:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise InputError(f"systems file not found: {path}") from e
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: invalid JSON ({e.msg} at line {e.lineno})") from e
    return parse_systems(data)


#: The graded systems of sitar-asr-v1 (calibrated on 50 utterances; see the data card).
DEFAULT_SYSTEMS: Sequence[SystemConfig] = (
    SystemConfig(id="a-f5-clean", voice="en-us+f5", rate=160,
                 beam=1e-40, pbeam=1e-40, wbeam=1e-24),
    SystemConfig(id="b-klatt-snr15", voice="en-us+klatt", rate=200, snr_db=15.0,
                 beam=1e-35, pbeam=1e-35, wbeam=1e-22, maxhmmpf=10000),
    SystemConfig(id="c-edward-snr25", voice="en-us+edward", rate=185, snr_db=25.0,
                 beam=1e-35, pbeam=1e-35, wbeam=1e-22, maxhmmpf=8000, fwdflat=False),
    SystemConfig(id="d-edward-narrow", voice="en-us+edward", rate=185, snr_db=25.0,
                 beam=1e-30, pbeam=1e-30, wbeam=1e-20, maxhmmpf=5000, fwdflat=False),
)  # fmt: skip
