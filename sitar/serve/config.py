"""Configuration of ``sitar serve``: one frozen dataclass, passed to every worker process.

:class:`ServeConfig` holds everything a worker needs to build the app (the scorer's
:class:`~sitar.options.ScorerOptions`, batching, limits, security). It travels to uvicorn's worker processes as JSON in the environment variable
:data:`CONFIG_ENV` (workers are spawned and import the app by name, so they cannot receive Python
objects). The API key itself never travels in the config: only the file or environment variable
it is read from, so the key does not appear in process listings, logs or the config dump.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitar.errors import InputError
from sitar.options import ScorerOptions

__all__ = ["API_KEY_ENV", "CONFIG_ENV", "LOOPBACK_HOSTS", "ServeConfig", "read_api_key"]

#: Environment variable holding the JSON-encoded :class:`ServeConfig` for worker processes.
CONFIG_ENV = "SITAR_SERVE_CONFIG"
#: Environment variable that may hold the bearer token (used when no ``--api-key-file`` is given).
API_KEY_ENV = "SITAR_API_KEY"
#: The Host names a keyless server bound to loopback answers to by default.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


@dataclass(frozen=True)
class ServeConfig:
    """Settings of one ``sitar serve`` deployment (see ``sitar serve --help`` for each field)."""

    # model: every option of `sitar score` (sitar.options.ScorerOptions), and the batch size
    scorer: ScorerOptions = field(default_factory=ScorerOptions)
    batch_size: int = 32
    # network and processes
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    # micro-batching
    max_batch_pairs: int = 64
    max_wait_ms: float = 5.0
    max_queue_pairs: int = 1024
    # limits
    max_pairs_per_request: int = 256
    max_chars_per_text: int = 4096
    request_timeout_s: float = 30.0
    #: Requests one client address may have in flight on a worker (``--max-client-requests``;
    #: more: 429). None: no limit.
    max_client_requests: int | None = None
    # security: where the bearer token comes from (never the token itself)
    api_key_file: str | None = None
    api_key_env: bool = False
    cors_origins: tuple[str, ...] = ()
    #: Host header names served (``--allowed-hosts``); None: the rule of
    #: :attr:`effective_allowed_hosts`.
    allowed_hosts: tuple[str, ...] | None = None
    # operations
    access_log: bool = True
    graceful_timeout_s: float = 30.0
    header_timeout_s: float = 10.0

    def __post_init__(self) -> None:
        positive_ints = ("batch_size", "workers", "max_batch_pairs", "max_queue_pairs")
        for name in (*positive_ints, "max_pairs_per_request", "max_chars_per_text"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name} must be a positive integer, got {value!r}")
        limit = self.max_client_requests
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise InputError(
                f"max_client_requests must be a positive integer or None, got {limit!r}"
            )
        for name in ("request_timeout_s", "graceful_timeout_s", "header_timeout_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not value > 0:
                raise InputError(f"{name} must be a positive number of seconds, got {value!r}")
        if not isinstance(self.max_wait_ms, (int, float)) or not self.max_wait_ms >= 0:
            raise InputError(f"max_wait_ms must be >= 0, got {self.max_wait_ms!r}")
        if not isinstance(self.scorer, ScorerOptions):
            raise InputError(f"scorer must be a ScorerOptions, got {type(self.scorer).__name__}")
        if self.allowed_hosts is not None:
            for name in self.allowed_hosts:
                if not isinstance(name, str) or not name.strip() or any(c in name for c in "/ "):
                    raise InputError(
                        f"allowed_hosts must be host names (or '*' for any), got {name!r}"
                    )
        if not 0 <= self.port <= 65535:
            raise InputError(f"port must be in 0..65535, got {self.port}")
        if self.max_queue_pairs < self.max_pairs_per_request:
            raise InputError(
                f"max_queue_pairs ({self.max_queue_pairs}) must be at least "
                f"max_pairs_per_request ({self.max_pairs_per_request}), or a full-size request "
                "could never be admitted"
            )

    @property
    def effective_allowed_hosts(self) -> tuple[str, ...] | None:
        """The ``Host`` names requests may carry (lower case), or None for any.

        ``--allowed-hosts`` when given (``*`` among them: any). Otherwise, a server without auth
        bound to a loopback address answers only to the loopback names :data:`LOOPBACK_HOSTS`:
        a web page in a browser on the same machine then cannot reach it through a DNS name
        rebound to 127.0.0.1 (its requests carry the attacker's name). With auth, or bound
        beyond loopback (where the names clients use are not known), there is no default list.
        """
        if self.allowed_hosts is not None:
            names = tuple(h.strip().lower().rstrip(".") for h in self.allowed_hosts)
            return None if "*" in names else names
        auth = self.api_key_file is not None or self.api_key_env
        return LOOPBACK_HOSTS if not auth and _is_loopback(self.host) else None

    @property
    def max_body_bytes(self) -> int:
        """Largest request body accepted before parsing: the text limits in UTF-8 worst case
        (4 bytes a character, JSON escapes up to 6 per character for control characters) plus
        room for the JSON structure."""
        return self.max_pairs_per_request * 2 * (self.max_chars_per_text * 6 + 64) + 4096

    def to_json(self) -> str:
        return json.dumps(self.public_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ServeConfig:
        data: dict[str, Any] = json.loads(text)
        data["cors_origins"] = tuple(data.get("cors_origins", ()))
        if data.get("allowed_hosts") is not None:
            data["allowed_hosts"] = tuple(data["allowed_hosts"])
        data["scorer"] = ScorerOptions.from_dict(data.get("scorer", {}))
        return cls(**data)

    def public_dict(self) -> dict[str, Any]:
        """The settings safe to log or return (all of them: the key is never stored here)."""
        data = dataclasses.asdict(self)
        data["scorer"] = self.scorer.to_dict()
        return data


def _is_loopback(host: str) -> bool:
    if host.strip().lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_api_key(config: ServeConfig) -> str | None:
    """The bearer token the server requires, or ``None`` when auth is off.

    From ``api_key_file`` (first line, surrounding whitespace stripped) if set, else from the
    environment variable :data:`API_KEY_ENV` if ``api_key_env``. An empty key is an error, never
    "auth off": a deployment that asked for auth must not silently run without it.
    """
    if config.api_key_file is not None:
        path = Path(config.api_key_file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise InputError(f"cannot read the API key file {path}: {e.strerror}") from e
        key = text.strip().splitlines()[0].strip() if text.strip() else ""
        if not key:
            raise InputError(f"the API key file {path} is empty; put the bearer token in it")
        return key
    if config.api_key_env:
        key = os.environ.get(API_KEY_ENV, "").strip()
        if not key:
            raise InputError(
                f"--api-key-env was given but the environment variable {API_KEY_ENV} is empty or unset"
            )
        return key
    return None
