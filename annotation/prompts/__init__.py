"""Versioned prompt templates for the spec §6 (docs/spec.md) annotation protocol, and their rendering.

The templates are plain text files in this folder, named ``<task>.v<N>.txt``: ``ranking``
(order the single-gap hypotheses by distortion, anchored at the zero-deviation baseline),
``tiers`` (assign T0/T1/T2 per gap), ``review`` (a committee member re-assesses proposed tiers),
the shared ``rubric`` and the ``reask`` message sent after an unusable answer. A prompt's
*version id* is ``<task>.v<N>+<first 12 hex of sha256(template + rubric)>``: editing a file
without bumping ``N`` still changes the id, so journal entries made with an older text are never
reused for a newer one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from sitar.errors import InputError

__all__ = [
    "PROMPT_VERSIONS",
    "TASKS",
    "GapView",
    "Prompt",
    "load_prompt",
    "render_prompt",
    "render_reask",
]

#: The task prompts and the version of each that this code uses.
PROMPT_VERSIONS = {"ranking": 1, "tiers": 1, "review": 1, "rubric": 1, "reask": 1}
TASKS = ("ranking", "tiers", "review")


@dataclass(frozen=True)
class GapView:
    """What a prompt shows about one gap (ids are ``g1 .. gm``, 1-based)."""

    gap_id: str
    kind: str
    ref_text: str
    hyp_text: str
    single_gap_hypothesis: str
    proposed_tier: int | None = None


@dataclass(frozen=True)
class Prompt:
    """A loaded template with its version id."""

    task: str
    template: str
    rubric: str
    version: str


def _read(name: str) -> str:
    try:
        return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise InputError(
            f"prompt file {name!r} is missing from annotation/prompts/; restore it from git"
        ) from e


def load_prompt(task: str) -> Prompt:
    """Load the current template for ``task`` (``ranking``, ``tiers``, ``review`` or ``reask``)."""
    if task not in PROMPT_VERSIONS or task == "rubric":
        raise InputError(f"unknown prompt task {task!r}; expected one of {(*TASKS, 'reask')}")
    template = _read(f"{task}.v{PROMPT_VERSIONS[task]}.txt")
    rubric = _read(f"rubric.v{PROMPT_VERSIONS['rubric']}.txt").strip()
    digest = hashlib.sha256((template + "\x00" + rubric).encode("utf-8")).hexdigest()[:12]
    return Prompt(
        task=task,
        template=template,
        rubric=rubric,
        version=f"{task}.v{PROMPT_VERSIONS[task]}+{digest}",
    )


def _format_gaps(gaps: Sequence[GapView]) -> str:
    lines = []
    for gap in gaps:
        # json.dumps quotes and escapes the texts, so quotes or newlines in transcripts cannot
        # break the layout.
        lines.append(
            f"{gap.gap_id} ({gap.kind}): reference {json.dumps(gap.ref_text, ensure_ascii=False)}"
            f" -> hypothesis {json.dumps(gap.hyp_text, ensure_ascii=False)}"
        )
        lines.append(f"    single-gap hypothesis: {gap.single_gap_hypothesis}")
        if gap.proposed_tier is not None:
            lines.append(f"    proposed tier: T{gap.proposed_tier}")
    return "\n".join(lines)


def render_prompt(prompt: Prompt, *, reference: str, gaps: Sequence[GapView]) -> str:
    """Fill a task template with one pair's reference and gaps."""
    if prompt.task == "review" and any(g.proposed_tier is None for g in gaps):
        raise InputError("review prompts need a proposed tier for every gap")
    return prompt.template.format(
        rubric=prompt.rubric,
        n_gaps=len(gaps),
        reference=reference,
        gaps=_format_gaps(gaps),
    )


def render_reask(problem: str) -> str:
    """The follow-up message sent after an answer that failed parsing or validation."""
    return load_prompt("reask").template.format(problem=problem).strip()
