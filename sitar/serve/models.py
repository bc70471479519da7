"""The request and response models of ``sitar serve`` (pydantic v2): the one description of the
wire format, from which FastAPI writes ``/openapi.json`` and ``/docs``.

Requests are checked by the same function as ``Scorer.score`` (:mod:`sitar.validation`) inside
the models' ``before`` validators, so a wrong field, type or text is HTTP 422 with the message
``Scorer.score`` would raise (``hypotheses[1] must be a str, got int``), never a second wording.
The server's own limits (pairs per request, characters per text) depend on its configuration and
are checked after the model, by the endpoint (HTTP 413).

Responses are what the library returns (``ScoreResult.to_dict()``, ``Explanation.to_dict()``),
written as JSON directly; the models here document them, and the tests check every answer
against them (a field the library adds without a line here fails a test). ``NaN`` is written
as ``null`` (the convention of ``ScoreResult.to_dict``). Importing this module loads pydantic;
:mod:`sitar.serve` does not import it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sitar import validation
from sitar.errors import InputError

__all__ = [
    "ERROR_KINDS",
    "ErrorBody",
    "ExplainRequest",
    "ExplainResponse",
    "GapExplanationBody",
    "HealthResponse",
    "ReadyResponse",
    "ScoreRequest",
    "ScoreResponse",
]

#: Every ``error`` kind an answer can carry, with its HTTP status (docs/serving.md has the table).
ERROR_KINDS: dict[str, int] = {
    "bad_request": 400,
    "invalid_host": 400,
    "unauthorized": 401,
    "not_found": 404,
    "method_not_allowed": 405,
    "too_large": 413,
    "unsupported_media_type": 415,
    "invalid": 422,
    "too_many_requests": 429,
    "internal": 500,
    "queue_full": 503,
    "timeout": 503,
    "not_ready": 503,
    "shutting_down": 503,
}

_SCORE_FIELDS = ("references", "hypotheses")
_EXPLAIN_FIELDS = ("reference", "hypothesis")


def check_fields(body: Any, expected: tuple[str, ...]) -> dict[str, Any]:
    """``body`` if it is an object with exactly the fields ``expected``, else an
    :class:`~sitar.errors.InputError` naming what is missing or unknown."""
    if not isinstance(body, dict):
        raise InputError(
            f"expected a JSON object with {', '.join(expected)}, got {type(body).__name__}"
        )
    missing = [k for k in expected if k not in body]
    if missing:
        raise InputError(f"missing field(s) {', '.join(missing)}")
    unknown = sorted(k for k in body if k not in expected)
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(unknown)}; expected {', '.join(expected)}")
    return body


# -- requests ----------------------------------------------------------------------------------


class ScoreRequest(BaseModel):
    """Pairs to score: parallel lists, ``references[i]`` with ``hypotheses[i]``."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "references": ["turn left at the station", "call the doctor"],
                    "hypotheses": ["turn right at the station", "call the doctor"],
                }
            ]
        },
    )

    references: list[str] = Field(
        description="Reference transcripts (valid Unicode; at most --max-chars characters "
        "each, at most --max-pairs per request)."
    )
    hypotheses: list[str] = Field(
        description="Hypothesis transcripts, one per reference, in the same order."
    )

    @model_validator(mode="before")
    @classmethod
    def _scorer_checks(cls, data: Any) -> Any:
        # The messages of Scorer.score (sitar.validation): an InputError is a ValueError, so
        # pydantic reports it as a value_error whose ctx holds it (the app answers its text).
        body = check_fields(data, _SCORE_FIELDS)
        refs, hyps = validation.check_pairs(body["references"], body["hypotheses"])
        return {"references": refs, "hypotheses": hyps}


class ExplainRequest(BaseModel):
    """One pair to explain gap by gap."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "reference": "please send the invoice on friday",
                    "hypothesis": "please send an invoice on monday",
                }
            ]
        },
    )

    reference: str = Field(description="The reference transcript (at most --max-chars characters).")
    hypothesis: str = Field(description="The hypothesis transcript.")

    @model_validator(mode="before")
    @classmethod
    def _scorer_checks(cls, data: Any) -> Any:
        body = check_fields(data, _EXPLAIN_FIELDS)
        return {name: validation.check_text(body[name], name) for name in _EXPLAIN_FIELDS}


# -- responses ---------------------------------------------------------------------------------


class ScoreResponse(BaseModel):
    """``ScoreResult.to_dict()`` of exactly the request's pairs, in request order."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "scores": [0.4411, 0.0],
                    "raw": [1.0293, 0.0],
                    "windowed": [False, False],
                    "identical": [False, True],
                    "n_windows": [1, 0],
                    "system_score": 0.22055,
                    "aggregation": "macro mean of per-pair normalized scores",
                    "n_pairs": 2,
                    "n_identical": 1,
                    "n_windowed": 0,
                    "signature": "sitar:0.1.0|spec:1|...|win:1",
                    "swer": [0.2, 0.0],
                    "system_swer": 0.111111,
                    "swer_version": "swer-1:t1=0.6,ext=words",
                }
            ]
        }
    )

    scores: list[float] = Field(description="Normalised SITAR score of each pair, in [0, 1].")
    raw: list[float] = Field(description="Raw model score of each pair, clipped to [0, 7/3].")
    windowed: list[bool] = Field(
        description="Pair longer than the checkpoint's max_length, scored by windows."
    )
    identical: list[bool] = Field(
        description="Pair identical after normalisation (score 0, no model call)."
    )
    n_windows: list[int] = Field(
        description="Model inputs spent on each pair (0 identical, 1 ordinary, more windowed)."
    )
    system_score: float | None = Field(
        description="Macro mean of `scores` over this request's pairs; null for no pairs."
    )
    aggregation: str = Field(description="How `system_score` is computed.")
    n_pairs: int = Field(description="Pairs in this request.")
    n_identical: int = Field(description="Pairs identical after normalisation.")
    n_windowed: int = Field(description="Pairs scored by windows.")
    signature: str = Field(description="Reproducibility signature of the scorer (SPEC §9).")
    swer: list[float | None] | None = Field(
        default=None,
        description="Each pair's swer (gap-head checkpoints only; absent otherwise).",
    )
    system_swer: float | None = Field(
        default=None,
        description="Corpus swer of this request: numerators over lengths (gap head only; "
        "null for no pairs).",
    )
    swer_version: str | None = Field(
        default=None, description="What the swer values were computed with (gap head only)."
    )


class GapExplanationBody(BaseModel):
    """One gap of the pair and the score of its single-gap hypothesis (SPEC §4)."""

    index: int = Field(description="Gap index, left to right.")
    kind: Literal["substitution", "deletion", "insertion"]
    ref_tokens: list[int] = Field(description="Token interval [start, end) in the reference.")
    hyp_tokens: list[int] = Field(description="Token interval [start, end) in the hypothesis.")
    ref_span: list[int] = Field(description="Character span [start, end) in the reference.")
    hyp_span: list[int] = Field(description="Character span [start, end) in the hypothesis.")
    ref_text: str
    hyp_text: str
    n_atomic: int = Field(description="Atomic gaps consolidated into this one.")
    single_gap_hypothesis: str = Field(description="The reference with only this gap applied.")
    score: float = Field(description="Normalised score of the single-gap hypothesis.")
    raw: float = Field(description="The same on the raw scale [0, 7/3].")
    tier: int = Field(description="Estimated tier (0, 1 or 2) of the gap.")
    direction: int = Field(description="Estimated boundary direction (-1, 0 or +1).")
    meaning_critical: bool


class ExplainResponse(BaseModel):
    """``Explanation.to_dict()``: the pair score and every gap's estimated severity."""

    reference: str
    hypothesis: str
    score: float = Field(description="Normalised score of the pair, in [0, 1].")
    raw: float = Field(description="The same on the raw scale [0, 7/3].")
    meaning_critical: bool
    max_gap_score: float
    tier_score: float = Field(description="SPEC §5 score the estimated tiers alone imply.")
    n_gaps: int
    n_model_inputs: int
    gaps: list[GapExplanationBody]
    tier_rule: str
    method: str = Field(description="`gaps` (tiers from the scoring pass) or `rescore`.")
    signature: str
    segmentation_signature: str


class HealthResponse(BaseModel):
    """``GET /healthz``: the process answers."""

    status: Literal["ok"]
    pid: int


class ReadyResponse(BaseModel):
    """``GET /readyz``: 200 with ``ready`` once the model is loaded and warm; 503 with
    ``loading`` or ``failed`` (and ``error``) before."""

    status: Literal["ready", "loading", "failed"]
    pid: int
    signature: str | None = Field(default=None, description="The scorer's signature (ready).")
    error: str | None = Field(default=None, description="Why the model failed to load.")


class ErrorBody(BaseModel):
    """Every error, whatever its status: a kind to branch on and a message for people."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"error": "invalid", "message": "hypotheses[1] must be a str, got int"}]
        }
    )

    error: Literal[
        "bad_request",
        "invalid_host",
        "unauthorized",
        "not_found",
        "method_not_allowed",
        "too_large",
        "unsupported_media_type",
        "invalid",
        "too_many_requests",
        "internal",
        "queue_full",
        "timeout",
        "not_ready",
        "shutting_down",
    ] = Field(description="The error kind; each kind has one HTTP status.")
    message: str = Field(description="What went wrong and how to fix it.")
