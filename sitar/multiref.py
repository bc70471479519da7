"""Several references per utterance: each hypothesis scores against its closest reference.

Issue #32 item 2. Given ``k_i >= 1`` candidate references for utterance ``i``, every
(reference_j, hypothesis_i) pair is scored in one :meth:`~sitar.scorer.Scorer.score` call and the
utterance keeps the pair chosen by :func:`choose`:

* the lowest normalised SITAR score;
* on a tie, the lowest ``swer`` (gap head only; without ``swer`` this step is skipped);
* on a further tie, the first reference in the order given.

The result is an ordinary :class:`~sitar.result.ScoreResult` of the chosen pairs, so the system
score and the corpus ``swer`` are those of :func:`sitar.result.system_score` and
:attr:`~sitar.result.ScoreResult.system_swer` over the chosen pairs, plus the chosen index (0-based)
of each utterance. Candidate lists are checked by :func:`sitar.validation.check_text`.
:func:`score_systems` does the same for several systems on the same references, still in one
``Scorer.score`` call (``sitar score --system ... --ref-file R1 --ref-file R2``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitar.errors import InputError
from sitar.result import ScoreResult, system_score
from sitar.validation import check_text, check_texts

if TYPE_CHECKING:
    from sitar.scorer import Scorer

__all__ = [
    "MultiScoreResult",
    "check_reference_lists",
    "choose",
    "score_multi",
    "score_systems",
]


def choose(scores: Sequence[float], swers: Sequence[float] | None = None) -> int:
    """The index of the closest reference among one utterance's candidates: the lowest score,
    then the lowest ``swer`` (when given), then the first in order.

    >>> choose([0.4, 0.2, 0.2], [0.3, 0.5, 0.1])
    2
    >>> choose([0.2, 0.2])
    0
    """
    if not scores:
        raise InputError("an utterance needs at least one reference to choose from")
    if swers is not None and len(swers) != len(scores):
        raise ValueError(f"{len(scores)} scores but {len(swers)} swer values")
    keys = [(s, 0.0 if swers is None else swers[j], j) for j, s in enumerate(scores)]
    return min(keys)[2]


def check_reference_lists(references: Any, n: int | None = None) -> list[list[str]]:
    """``references`` as one list of candidate texts per utterance: a sequence (not a str) whose
    items are each a non-empty sequence of str; ``n`` (the number of hypotheses) must match."""
    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
        raise InputError(
            f"references must be a list of lists of str, got {type(references).__name__}"
        )
    if n is not None and len(references) != n:
        raise InputError(
            "references and hypotheses must have the same length, got "
            f"{len(references)} references and {n} hypotheses"
        )
    out = []
    for i, refs in enumerate(references):
        if isinstance(refs, str):
            out.append([check_text(refs, f"references[{i}]")])
            continue
        texts = check_texts(f"references[{i}]", refs)
        if not texts:
            raise InputError(
                f"references[{i}] is empty: every utterance needs at least one reference"
            )
        out.append(texts)
    return out


@dataclass(frozen=True)
class MultiScoreResult:
    """The chosen pairs' :class:`ScoreResult` and, per utterance, the chosen reference's index
    (0-based, in the order given) and text."""

    result: ScoreResult
    chosen: tuple[int, ...]
    references: tuple[str, ...]


def score_multi(
    scorer: Scorer,
    *,
    references: Sequence[Sequence[str] | str],
    hypotheses: Sequence[str],
    batch_size: int = 32,
    progress: bool = False,
) -> MultiScoreResult:
    """Score each hypothesis against each of its references in one ``scorer.score`` call and keep
    the closest (:func:`choose`). A bare str in ``references`` is one candidate."""
    hyps = check_texts("hypotheses", hypotheses)
    return _score_sets(scorer, references, {"": hyps}, batch_size, progress)[""]


def score_systems(
    scorer: Scorer,
    *,
    references: Sequence[Sequence[str] | str],
    systems: Mapping[str, Sequence[str]],
    batch_size: int = 32,
    progress: bool = False,
) -> dict[str, MultiScoreResult]:
    """:func:`score_multi` for several systems (``name -> hypotheses``, each in the order of
    ``references``) on the same candidate references, all in one ``scorer.score`` call; each
    system's result is that of :func:`score_multi` on its own hypotheses."""
    hyps = {name: check_texts(f"systems[{name!r}]", h) for name, h in systems.items()}
    return _score_sets(scorer, references, hyps, batch_size, progress)


def _score_sets(
    scorer: Scorer,
    references: Sequence[Sequence[str] | str],
    systems: Mapping[str, list[str]],
    batch_size: int,
    progress: bool,
) -> dict[str, MultiScoreResult]:
    n = len(next(iter(systems.values()), []))
    for name, hyps in systems.items():
        if len(hyps) != n:
            raise InputError(f"system {name!r} has {len(hyps)} hypotheses, the first has {n}")
    candidates = check_reference_lists(references, n)
    flat_refs = [r for refs in candidates for r in refs]
    # (system, utterance, candidate) in that order: one model pass over every pair.
    all_refs = flat_refs * len(systems)
    all_hyps = [
        h
        for hyps in systems.values()
        for h, refs in zip(hyps, candidates, strict=True)
        for _ in refs
    ]
    full = scorer.score(
        references=all_refs, hypotheses=all_hyps, batch_size=batch_size, progress=progress
    )
    swers = full.swer
    out = {}
    start = 0
    for name in systems:
        picked: list[int] = []
        chosen: list[int] = []
        for refs in candidates:
            stop = start + len(refs)
            j = choose(full.scores[start:stop], None if swers is None else swers[start:stop])
            chosen.append(j)
            picked.append(start + j)
            start = stop
        out[name] = MultiScoreResult(
            result=_select(full, picked),
            chosen=tuple(chosen),
            references=tuple(all_refs[k] for k in picked),
        )
    return out


def _select(full: ScoreResult, rows: list[int]) -> ScoreResult:
    """The pairs ``rows`` of ``full`` as their own result (system values recomputed on them)."""
    scores = tuple(full.scores[k] for k in rows)

    def pick(values: tuple[Any, ...] | None) -> Any:
        return None if values is None else tuple(values[k] for k in rows)

    return ScoreResult(
        scores=scores,
        raw=pick(full.raw),
        windowed=pick(full.windowed),
        identical=pick(full.identical),
        n_windows=pick(full.n_windows),
        system_score=system_score(scores),
        aggregation=full.aggregation,
        signature=full.signature,
        swer_numerators=pick(full.swer_numerators),
        swer_lengths=pick(full.swer_lengths),
        swer_version=full.swer_version,
    )
