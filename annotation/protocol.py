"""spec §6 (docs/spec.md) as code: rounds, self-consistency, majority, committee review, filter and target.

:func:`annotate_pair` runs the protocol for one pair through an ``ask`` callable that returns one
annotator answer. The live pipeline passes an ``ask`` that consults the journal and calls the model
only for missing answers; offline recomputation passes one that reads the journal alone. Both
therefore reach the same decision from the same answers. The remaining functions are pure.

Outcome of a pair: ``accepted`` (with tiers ``t_rev``, directions ``sign(t_maj - t_rev)`` and the
§5 score), ``rejected`` with one of :data:`REJECTION_REASONS`, or ``pending`` when an answer is
not available yet (not called, transport errors, budget cap); pending pairs are never written as
records and are picked up again by ``resume``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.schema import BASELINE
from sitar.errors import InputError, SitarError
from sitar.targets import score_from_tiers

__all__ = [
    "REJECTION_REASONS",
    "AnswerRecord",
    "CallPending",
    "PairOutcome",
    "annotate_pair",
    "committee_tier",
    "majority_tier",
    "round_contradictions",
]

#: Why a pair can be rejected (spec §6): a round contradicted itself, a gap had no majority
#: tier, the review fell outside {majority, dissent}, or an answer stayed invalid after re-asks.
REJECTION_REASONS = ("contradiction", "no_majority", "filter", "failure")


class CallPending(SitarError):
    """An answer the protocol needs is not available (yet); the pair stays pending."""


@dataclass(frozen=True)
class AnswerRecord:
    """One finished call as the protocol sees it: a validated answer, or a recorded failure."""

    ok: bool
    parsed: Any = None
    problem: str = ""


@dataclass(frozen=True)
class PairOutcome:
    """The protocol's decision for one pair."""

    status: str  # "accepted" | "rejected" | "pending"
    reason: str | None = None
    detail: str = ""
    tiers: tuple[int, ...] = ()
    directions: tuple[int, ...] = ()
    score: float | None = None
    #: Per-gap diagnostics: round tiers, majority, dissent, committee votes and reviewed tier.
    gaps: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "detail": self.detail,
            "tiers": list(self.tiers),
            "directions": list(self.directions),
            "score": self.score,
            "gaps": [dict(g) for g in self.gaps],
        }


def round_contradictions(ranking: Sequence[Sequence[str]], tiers: Mapping[str, int]) -> list[str]:
    """spec §6.2: every way one round's ranking and tiers contradict each other.

    ``g_i ≺ g_j`` with ``t_i > t_j``, ``g_i ≈ g_j`` with ``t_i != t_j``, or ``g_i ≈ baseline``
    with ``t_i != 0``. Returns human-readable descriptions (empty when consistent).
    """
    position = {item: k for k, group in enumerate(ranking) for item in group}

    def tier(item: str) -> int:
        return 0 if item == BASELINE else tiers[item]

    items = sorted(position, key=lambda s: (position[s], s != BASELINE, len(s), s))
    problems = []
    for a_i, a in enumerate(items):
        for b in items[a_i + 1 :]:
            ta, tb = tier(a), tier(b)
            if position[a] == position[b] and ta != tb:
                if BASELINE in (a, b):
                    gap = b if a == BASELINE else a
                    problems.append(f"{gap} ≈ baseline but its tier is T{tier(gap)}")
                else:
                    problems.append(f"{a} ≈ {b} but tiers T{ta} != T{tb}")
            elif position[a] < position[b] and ta > tb and a != BASELINE:
                problems.append(f"{a} ≺ {b} but T{ta} > T{tb}")
    return problems


def majority_tier(round_tiers: Sequence[int]) -> tuple[int | None, int | None]:
    """spec §6.3: ``(t_maj, t_dis)`` from one gap's round tiers.

    ``t_maj`` is the tier given in at least two rounds (None if there is none); ``t_dis`` is the
    single dissenting tier when exactly one round disagrees with the majority, else None.
    """
    counts = Counter(round_tiers)
    tier, n = max(counts.items(), key=lambda kv: (kv[1], -kv[0]))
    if n < 2:
        return None, None
    others = [t for t in round_tiers if t != tier]
    return tier, (others[0] if len(others) == 1 else None)


def committee_tier(votes: Sequence[int], t_maj: int) -> int:
    """spec §6.4: the committee's tier: most votes; ties go to the tier nearest ``t_maj``, then
    to the lower tier."""
    if not votes:
        raise InputError("a committee needs at least one reviewer vote")
    counts = Counter(votes)
    best = max(counts.values())
    tied = [t for t, n in counts.items() if n == best]
    return min(tied, key=lambda t: (abs(t - t_maj), t))


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


Ask = Callable[[str, int, Sequence[int] | None], AnswerRecord]


def annotate_pair(
    *,
    n_gaps: int,
    ask: Ask,
    rounds: int = 3,
    reviewers: int = 4,
    rho: float = 0.5,
) -> PairOutcome:
    """Run the protocol for one pair with ``n_gaps`` gaps.

    ``ask(task, index, proposed)`` returns the :class:`AnswerRecord` of one call: ``task`` is
    ``ranking``, ``tiers`` or ``review``; ``index`` is the round (1-based) or the reviewer
    number; ``proposed`` is the majority tier per gap for reviews, else None. It raises
    :class:`CallPending` when the answer is not available.
    """
    if n_gaps == 0:
        return PairOutcome(status="accepted", score=0.0)
    ids = [f"g{i + 1}" for i in range(n_gaps)]
    try:
        per_round: list[dict[str, int]] = []
        for k in range(1, rounds + 1):
            ranking = ask("ranking", k, None)
            if not ranking.ok:
                return _reject("failure", f"round {k} ranking: {ranking.problem}")
            tiers = ask("tiers", k, None)
            if not tiers.ok:
                return _reject("failure", f"round {k} tiers: {tiers.problem}")
            problems = round_contradictions(ranking.parsed, tiers.parsed)
            if problems:
                return _reject("contradiction", f"round {k}: " + "; ".join(problems))
            per_round.append(dict(tiers.parsed))
        diag: list[dict[str, Any]] = []
        t_maj: list[int] = []
        t_dis: list[int | None] = []
        for gap_id in ids:
            rt = [r[gap_id] for r in per_round]
            maj, dis = majority_tier(rt)
            diag.append({"gap": gap_id, "round_tiers": rt, "t_maj": maj, "t_dis": dis})
            if maj is None:
                return _reject(
                    "no_majority", f"{gap_id} got tiers {rt} in {rounds} rounds", diag=diag
                )
            t_maj.append(maj)
            t_dis.append(dis)
        votes: list[dict[str, int]] = []
        for j in range(1, reviewers + 1):
            review = ask("review", j, tuple(t_maj))
            if not review.ok:
                return _reject("failure", f"reviewer {j}: {review.problem}", diag=diag)
            votes.append(dict(review.parsed))
    except CallPending as e:
        return PairOutcome(status="pending", detail=str(e))
    t_rev: list[int] = []
    for i, gap_id in enumerate(ids):
        gv = [v[gap_id] for v in votes]
        rev = committee_tier(gv, t_maj[i])
        diag[i].update(votes=gv, t_rev=rev)
        t_rev.append(rev)
        if rev not in {t_maj[i], t_dis[i]}:
            allowed = sorted(t for t in {t_maj[i], t_dis[i]} if t is not None)
            return _reject(
                "filter",
                f"{gap_id}: reviewed T{rev} is not among the round tiers {allowed}",
                diag=diag,
            )
    directions = tuple(_sign(m - r) for m, r in zip(t_maj, t_rev, strict=True))
    score = score_from_tiers(t_rev, directions, rho=rho)
    return PairOutcome(
        status="accepted",
        tiers=tuple(t_rev),
        directions=directions,
        score=score,
        gaps=tuple(diag),
    )


def _reject(reason: str, detail: str, *, diag: Sequence[Mapping[str, Any]] = ()) -> PairOutcome:
    return PairOutcome(status="rejected", reason=reason, detail=detail, gaps=tuple(diag))
