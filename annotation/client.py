"""Chat clients for the annotator: one small protocol and an OpenAI-compatible HTTP implementation.

:class:`ChatClient` is all the pipeline needs: ``complete(messages, seed=...) -> ChatResult``.
:class:`OpenAIChatClient` talks to any ``POST {base_url}/chat/completions`` endpoint (OpenAI,
DeepSeek, vLLM, llama.cpp's server). It reads the API key from an environment variable (never
from a config file), retries 429, 5xx, timeouts and connection errors with exponential backoff
and full jitter (honouring ``Retry-After``), bounds concurrency and requests per minute, and
accounts tokens and cost from each response's ``usage``. A budget cap is checked before every
request: once spending reaches it, :class:`BudgetExceeded` is raised and no request is sent.

Errors: :class:`TransportError` (retries exhausted: the call is *not* recorded, so a later resume
tries again) and :class:`EndpointError` (a non-retryable 4xx such as a wrong key or model name:
the run stops).

Deadlines: ``timeout_s`` bounds each attempt as a whole, from connecting to the last byte of the
answer (an endpoint that trickles one byte a second cannot hold an attempt past it): every attempt
opens its own connection, and a timer shuts that socket down at the deadline.

Usage: an answer's ``usage`` must hold finite, non-negative token counts (absent counts are 0).
Anything else (``"lots"``, ``Infinity``, a negative count that would pay back the budget) makes the
attempt a failed one, recorded in the journal with the problem, and adds nothing to the cost.

Secrets: a ``base_url`` with a secret in any component is refused before anything is written (the
configuration is saved in ``config.json``, the journal and ``stats.json``): credentials in the
userinfo (``https://user:password@host``), and anything that looks like a key in the host, path,
parameters, query or fragment (``sk-...``, ``hf_...``, ``key=...``, ``token=...``, a bearer token, a
long random-looking segment; :func:`find_secret`). Put the key in the environment variable named
by ``api_key_env``. Error messages built from an endpoint's answer are passed through
:func:`redact`, which masks the key in use and anything that looks like a key.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import re
import socket
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from sitar.errors import InputError, MissingDependencyError, SitarError

__all__ = [
    "BudgetExceeded",
    "ChatClient",
    "ChatResult",
    "ClientConfig",
    "EndpointError",
    "OpenAIChatClient",
    "TransportError",
    "Usage",
    "find_secret",
    "redact",
]

_MASK = "***"
# Bearer tokens, provider keys (OpenAI sk-/sk-proj-, Anthropic sk-ant-, Hugging Face hf_, Groq gsk_,
# xAI xai-, Google AIza..., GitHub gh?_) and key=value / "api_key": "..." pairs.
_SECRET_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)[^\s\"',;/]+"),
    re.compile(r"\b(?:sk|xai)-[A-Za-z0-9_\-]{6,}|\b(?:hf|gsk|gh[pousr])_[A-Za-z0-9]{16,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),
    re.compile(
        r"(?i)((?:api[_-]?key|apikey|access[_-]?token|authorization|token|secret|password|key)"
        r"[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}&/#]+"
    ),
)
# A bare random-looking token: 24+ letters and digits (with - or _), mixing upper case, lower case
# and digits. Model names, deployments and UUIDs (one case only) do not match.
_RANDOM_TOKEN = re.compile(r"[A-Za-z0-9_\-]{24,}")


def _looks_random(segment: str) -> bool:
    return bool(
        _RANDOM_TOKEN.fullmatch(segment)
        and any(c.isupper() for c in segment)
        and any(c.islower() for c in segment)
        and sum(c.isdigit() for c in segment) >= 2
    )


def find_secret(url: str) -> str | None:
    """The component of ``url`` that holds something like a secret (``"userinfo"``, ``"path"``,
    ``"query"``, ...), or None. Every component is checked, percent-decoded."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is not None or parts.password is not None:
        return "userinfo"
    components = {
        "host": parts.hostname or "",
        "path": parts.path,
        "query": parts.query,
        "fragment": parts.fragment,
    }
    for name, raw in components.items():
        text = urllib.parse.unquote_plus(raw) if name == "query" else urllib.parse.unquote(raw)
        if any(p.search(text) for p in _SECRET_PATTERNS):
            return name
        pieces = re.split(r"[/;,=&?#.\s]+", text) if name != "host" else []
        if any(_looks_random(piece) for piece in pieces):
            return name
    return None


def redact(text: str, secrets: Sequence[str | None] = ()) -> str:
    """``text`` with every secret in ``secrets`` and anything that looks like a bearer token, an
    ``sk-...`` key or an ``api_key=...`` value replaced by ``***`` (for messages shown or saved)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, _MASK)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + _MASK, text)
    return text


class TransportError(SitarError):
    """The endpoint could not be reached or kept failing after all retries."""


class EndpointError(SitarError):
    """The endpoint refused the request in a way retrying cannot fix (for example 401 or 404)."""


class BudgetExceeded(SitarError):
    """The configured budget cap is reached; no further requests are sent."""


@dataclass(frozen=True)
class ChatResult:
    """One completed request: the answer text and the usage the endpoint reported."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cost: float
    model: str
    #: Number of HTTP requests this result took (1 + retries).
    requests: int = 1
    #: Why the answer cannot be used although it arrived (invalid usage); "" when it can.
    problem: str = ""


class ChatClient(Protocol):
    """What the pipeline needs from an annotator backend."""

    @property
    def model(self) -> str: ...

    def complete(
        self, messages: Sequence[Mapping[str, str]], *, seed: int | None = None
    ) -> ChatResult: ...


@dataclass
class ClientConfig:
    """Settings of one OpenAI-compatible endpoint. Saved with every run (the key itself never)."""

    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4o-mini"
    #: Name of the environment variable that holds the API key (empty: send no key, e.g. vLLM).
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 1.0
    #: Base seed; round/reviewer ``k`` sends ``seed + k``. None: send no seed.
    seed: int | None = None
    #: Ask for ``response_format: {"type": "json_object"}`` (OpenAI, DeepSeek, vLLM, llama.cpp).
    json_mode: bool = True
    max_tokens: int | None = None
    timeout_s: float = 120.0
    max_retries: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    #: Concurrent requests at most (to this endpoint).
    concurrency: int = 4
    #: Requests per minute at most; None for no limit.
    rpm: float | None = None
    #: Prices in currency units per one million tokens, for cost accounting and the budget.
    price_input_per_mtok: float = 0.0
    price_output_per_mtok: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.base_url, str) or not self.base_url.startswith(
            ("http://", "https://")
        ):
            raise InputError(
                f"base_url must start with http:// or https://, got {redact(str(self.base_url))!r}"
            )
        where = find_secret(self.base_url)
        if where == "userinfo":
            raise InputError(
                "base_url must not contain credentials (user:password@); they would be saved in "
                "the run's config.json, journal and stats.json. Put the key in the environment "
                "variable named by api_key_env (--api-key-env) instead"
            )
        if where is not None:
            raise InputError(
                f"base_url must not carry a key (its {where} looks like one); it would be saved "
                "in the run's config.json, journal and stats.json. Put the key in the environment "
                "variable named by api_key_env (--api-key-env) instead"
            )
        if not isinstance(self.model, str) or not self.model:
            raise InputError("model must be a non-empty model name")
        if any(p.search(self.model) for p in _SECRET_PATTERNS):
            raise InputError(
                "model looks like an API key, which would be saved in the run folder; give the "
                "model name, and put the key in the environment variable named by api_key_env"
            )
        if not isinstance(self.api_key_env, str) or (
            self.api_key_env and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,127}", self.api_key_env)
        ):
            raise InputError(
                "api_key_env must be the NAME of an environment variable (e.g. OPENAI_API_KEY) "
                "or '', not the key itself: it is saved in the run folder"
            )
        for name in ("timeout_s", "backoff_base_s", "backoff_max_s"):
            if getattr(self, name) <= 0:
                raise InputError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if self.max_retries < 0 or self.concurrency < 1:
            raise InputError("max_retries must be >= 0 and concurrency >= 1")
        if self.rpm is not None and self.rpm <= 0:
            raise InputError(f"rpm must be > 0 or null, got {self.rpm!r}")
        if self.price_input_per_mtok < 0 or self.price_output_per_mtok < 0:
            raise InputError("prices must be >= 0")

    def api_key(self) -> str | None:
        """The API key from the environment (None when ``api_key_env`` is empty)."""
        if not self.api_key_env:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise InputError(
                f"the API key variable {self.api_key_env} is not set; export it, or set "
                "api_key_env to '' (--api-key-env '') for endpoints that need no key (e.g. vLLM)"
            )
        return key

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClientConfig:
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise InputError(
                f"unknown client setting(s) {unknown}; known: {sorted(cls.__dataclass_fields__)}"
            )
        return cls(**data)


@dataclass
class Usage:
    """Thread-safe running totals of tokens, cost and requests."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    requests: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, *, prompt: int = 0, completion: int = 0, cost: float = 0.0, requests: int = 0):
        with self._lock:
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.cost += cost
            self.requests += requests


class _RateLimiter:
    """At most ``rpm`` request starts in any sliding 60-second window."""

    def __init__(self, rpm: float | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._rpm = rpm
        self._clock = clock
        self._starts: deque[float] = deque()
        self._lock = threading.Lock()

    def acquire(self) -> None:
        if self._rpm is None:
            return
        limit = max(1, int(self._rpm))
        while True:
            with self._lock:
                now = self._clock()
                while self._starts and now - self._starts[0] >= 60.0:
                    self._starts.popleft()
                if len(self._starts) < limit:
                    self._starts.append(now)
                    return
                wait = 60.0 - (now - self._starts[0])
            time.sleep(max(wait, 0.001))


class OpenAIChatClient:
    """An OpenAI-compatible ``/chat/completions`` client with retries, limits and accounting."""

    def __init__(
        self,
        config: ClientConfig,
        *,
        budget: float | None = None,
        usage: Usage | None = None,
        spent: float = 0.0,
        rng: random.Random | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        try:
            import httpx
        except ImportError as e:
            raise MissingDependencyError("httpx", "the OpenAI-compatible client", "annotate") from e
        self._httpx = httpx
        self.config = config
        self.budget = budget
        #: Totals of this process (shared between clients when the same object is passed).
        self.usage = usage if usage is not None else Usage()
        self._spent_before = spent
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._sem = threading.BoundedSemaphore(config.concurrency)
        self._limiter = _RateLimiter(config.rpm)
        headers = {"Content-Type": "application/json"}
        key = config.api_key()
        self._secrets = (key,)
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.Client(
            base_url=config.base_url.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(config.timeout_s),
            # No keep-alive: each attempt opens its own connection, whose socket the deadline
            # timer can shut down (an LLM call takes seconds; a handshake is noise next to it).
            limits=httpx.Limits(max_connections=config.concurrency, max_keepalive_connections=0),
        )

    @property
    def model(self) -> str:
        return self.config.model

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAIChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def spent(self) -> float:
        """Cost so far, including what earlier runs of the same journal spent."""
        return self._spent_before + self.usage.cost

    def _check_budget(self) -> None:
        if self.budget is not None and self.spent >= self.budget:
            raise BudgetExceeded(
                f"budget cap {self.budget} reached (spent {self.spent:.6f}); raise --budget and "
                "resume to continue"
            )

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        cap = min(self.config.backoff_max_s, self.config.backoff_base_s * 2.0**attempt)
        delay = self._rng.uniform(0.0, cap)  # full jitter
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.config.backoff_max_s))
        return delay

    def complete(
        self, messages: Sequence[Mapping[str, str]], *, seed: int | None = None
    ) -> ChatResult:
        """Send one chat request; returns the first choice's text and its usage."""
        cfg = self.config
        body: dict[str, Any] = {
            "model": cfg.model,
            "messages": [dict(m) for m in messages],
            "temperature": cfg.temperature,
        }
        if seed is not None:
            body["seed"] = seed
        if cfg.json_mode:
            body["response_format"] = {"type": "json_object"}
        if cfg.max_tokens is not None:
            body["max_tokens"] = cfg.max_tokens
        last = ""
        for attempt in range(cfg.max_retries + 1):
            self._check_budget()
            self._limiter.acquire()
            retry_after: float | None = None
            with self._sem:
                try:
                    response = self._post(body)
                except self._httpx.TransportError as e:  # timeouts and connection errors
                    response = None
                    last = f"{type(e).__name__}: {redact(str(e), self._secrets)}"
                except _DeadlineExceeded:
                    response = None
                    last = f"deadline of {cfg.timeout_s:g} s (timeout_s) exceeded"
            self.usage.add(requests=1)
            if response is not None:
                status = response.status_code
                if status == 200:
                    return self._result(response, attempt + 1)
                last = f"HTTP {status}: {redact(response.text, self._secrets)[:200]}"
                if status != 429 and status < 500:
                    raise EndpointError(
                        f"{cfg.base_url} answered {last}; check the model name, API key "
                        f"({cfg.api_key_env or 'none'}) and base_url"
                    )
                retry_after = _retry_after(response.headers.get("retry-after"))
            if attempt < cfg.max_retries:
                self._sleep(self._backoff(attempt, retry_after))
        raise TransportError(
            f"{cfg.base_url}: no answer after {cfg.max_retries + 1} attempts (last: {last})"
        )

    def _post(self, body: Mapping[str, Any]) -> Any:
        """One attempt, bounded as a whole by ``timeout_s``: a timer shuts the attempt's socket
        down at the deadline, which ends any read in progress however slowly bytes arrive."""
        lock = threading.Lock()
        state: dict[str, Any] = {"socket": None, "expired": False}

        def shut(sock: Any) -> None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

        def trace(event: str, info: Mapping[str, Any]) -> None:
            if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
                stream = info.get("return_value")
                sock = stream.get_extra_info("socket") if stream is not None else None
                with lock:
                    state["socket"] = sock
                    expired = state["expired"]
                if expired and sock is not None:
                    shut(sock)

        def expire() -> None:
            with lock:
                state["expired"] = True
                sock = state["socket"]
            if sock is not None:
                shut(sock)

        timer = threading.Timer(self.config.timeout_s, expire)
        timer.daemon = True
        timer.start()
        try:
            response = self._http.post("/chat/completions", json=body, extensions={"trace": trace})
        except self._httpx.TransportError:
            if state["expired"]:
                raise _DeadlineExceeded from None
            raise
        finally:
            timer.cancel()
        if state["expired"]:
            raise _DeadlineExceeded
        return response

    def _result(self, response: Any, requests: int) -> ChatResult:
        try:
            data = response.json()
            text = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise TransportError(
                f"{self.config.base_url} returned a body that is not an OpenAI chat completion: "
                f"{redact(response.text, self._secrets)[:200]!r}"
            ) from e
        problem = ""
        try:
            prompt, completion = _usage_counts(data.get("usage"))
        except ValueError as e:
            # The answer arrived but its accounting is unusable: a failed attempt (recorded with
            # this problem by the pipeline) that costs nothing, so no value can pay the budget back.
            prompt, completion, problem = 0, 0, f"invalid usage in the answer: {e}"
        cost = (
            prompt * self.config.price_input_per_mtok
            + completion * self.config.price_output_per_mtok
        ) / 1e6
        self.usage.add(prompt=prompt, completion=completion, cost=cost)
        return ChatResult(
            text=text if isinstance(text, str) else "",
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost=cost,
            model=str(data.get("model") or self.config.model),
            requests=requests,
            problem=problem,
        )


#: Largest token count accepted in one answer's usage (far above any context window).
MAX_USAGE_TOKENS = 10**9


def _usage_counts(usage: Any) -> tuple[int, int]:
    """``(prompt_tokens, completion_tokens)`` of an answer's ``usage``; absent or null counts are
    0, fractions are rounded up. Raises ValueError, saying why, for anything but a finite number in
    [0, MAX_USAGE_TOKENS]."""
    if usage is None:
        return 0, 0
    if not isinstance(usage, Mapping):
        raise ValueError(f"'usage' must be an object, got {type(usage).__name__}")
    counts = []
    for name in ("prompt_tokens", "completion_tokens"):
        value = usage.get(name)
        if value is None:
            value = 0
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a number, got {str(value)[:40]!r}")
        if not (math.isfinite(value) and 0 <= value <= MAX_USAGE_TOKENS):
            raise ValueError(
                f"{name} must be a finite number in [0, {MAX_USAGE_TOKENS}], got {value}"
            )
        counts.append(math.ceil(value))  # a fractional count is rounded up, never down
    return counts[0], counts[1]


class _DeadlineExceeded(Exception):
    """An attempt ran past ``timeout_s`` (internal; reported as a transport failure)."""


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
