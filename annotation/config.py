"""Configuration of an annotation run, saved in the run folder and in the journal.

A run has one annotator endpoint (ranking and tier rounds), an optional separate reviewer endpoint
for the committee (the paper used a different model family for review), the protocol settings and
an optional budget cap. Load it from JSON (``--config``) or build it from CLI flags; the API key is
never part of it, only the name of the environment variable that holds it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.client import ClientConfig
from sitar.errors import InputError
from sitar.targets import DEFAULT_RHO

__all__ = ["PROTOCOL_VERSION", "ROUNDS", "ProtocolConfig", "RunConfig", "load_config"]

#: Version of the annotation protocol implemented in annotation.protocol (spec §6, docs/spec.md).
PROTOCOL_VERSION = "1"
#: spec §6.1: three independent rounds.
ROUNDS = 3


@dataclass
class ProtocolConfig:
    """spec §6 settings."""

    #: Committee size N (spec §6.4; default 4).
    reviewers: int = 4
    #: How often an unusable answer is re-asked before the call is recorded as a failure.
    max_invalid: int = 2
    rho: float = DEFAULT_RHO
    #: Analyzer used by CGD consolidation (recorded in every signature).
    analyzer: str = "lexicon"
    max_bridge_tokens: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.reviewers, bool) or not isinstance(self.reviewers, int):
            raise InputError(f"reviewers must be an integer >= 1, got {self.reviewers!r}")
        if self.reviewers < 1:
            raise InputError(f"reviewers must be >= 1, got {self.reviewers}")
        if isinstance(self.max_invalid, bool) or not isinstance(self.max_invalid, int):
            raise InputError(f"max_invalid must be an integer >= 0, got {self.max_invalid!r}")
        if self.max_invalid < 0:
            raise InputError(f"max_invalid must be >= 0, got {self.max_invalid}")
        if not 0.0 < float(self.rho) < 1.0:
            raise InputError(f"rho must satisfy 0 < rho < 1, got {self.rho!r}")


@dataclass
class RunConfig:
    annotator: ClientConfig = field(default_factory=ClientConfig)
    #: None: the annotator endpoint also reviews.
    reviewer: ClientConfig | None = None
    protocol: ProtocolConfig = field(default_factory=ProtocolConfig)
    #: Stop cleanly once this much has been spent (same currency as the prices); None: no cap.
    budget: float | None = None

    @property
    def review_client(self) -> ClientConfig:
        return self.reviewer if self.reviewer is not None else self.annotator

    def to_dict(self) -> dict[str, Any]:
        return {
            "annotator": self.annotator.to_dict(),
            "reviewer": None if self.reviewer is None else self.reviewer.to_dict(),
            "protocol": dict(self.protocol.__dict__),
            "budget": self.budget,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunConfig:
        if not isinstance(data, Mapping):
            raise InputError("a run configuration must be a JSON object")
        unknown = sorted(set(data) - {"annotator", "reviewer", "protocol", "budget"})
        if unknown:
            raise InputError(
                f"unknown configuration key(s) {unknown}; "
                "expected annotator, reviewer, protocol, budget"
            )
        protocol = dict(data.get("protocol") or {})
        bad = sorted(set(protocol) - set(ProtocolConfig.__dataclass_fields__))
        if bad:
            raise InputError(
                f"unknown protocol setting(s) {bad}; "
                f"known: {sorted(ProtocolConfig.__dataclass_fields__)}"
            )
        budget = data.get("budget")
        if budget is not None and (
            isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget < 0
        ):
            raise InputError(f"budget must be a number >= 0 or null, got {budget!r}")
        reviewer = data.get("reviewer")
        return cls(
            annotator=ClientConfig.from_dict(data.get("annotator") or {}),
            reviewer=None if reviewer is None else ClientConfig.from_dict(reviewer),
            protocol=ProtocolConfig(**protocol),
            budget=None if budget is None else float(budget),
        )


def load_config(path: str | Path) -> RunConfig:
    """Read a run configuration from a JSON file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise InputError(f"configuration file not found: {path}") from e
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: invalid JSON ({e.msg} at line {e.lineno})") from e
    return RunConfig.from_dict(data)
