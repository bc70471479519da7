"""System comparison: two or more ASR systems scored on the same utterances.

* :func:`compare` / :func:`compare_scores` compare systems joined by utterance id
  (:func:`join_by_id`) with a seeded paired bootstrap (:func:`paired_bootstrap`, definitions
  version :data:`BOOTSTRAP_VERSION`): the mean score per system with its interval, pairwise
  differences with p-values and win probabilities, the meaning-critical rate, a WER column
  (:func:`word_error_counts`: ``jiwer`` over SPEC §1 normalised tokens) and optional per-group
  breakdowns.

Scores come from a *score source* (see :mod:`sitar._sources`): a :class:`~sitar.scorer.Scorer`
or a ``predict_fn(references, hypotheses) -> array`` of normalised scores. Explanations of single
pairs live in :mod:`sitar.diagnostics`. Every result carries the SPEC §9 signature of its scores.
(These names lived in :mod:`sitar.diagnostics` before; importing them from there still works, with a
``DeprecationWarning``.)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sitar._sources import (
    MEANING_CRITICAL_THRESHOLD,
    PredictFn,
    _check_texts,
    _score,
    meaning_critical_rate,
)
from sitar.errors import InputError, MissingDependencyError

__all__ = [
    "BOOTSTRAP_VERSION",
    "MAX_BOOTSTRAP",
    "MEANING_CRITICAL_THRESHOLD",
    "Comparison",
    "GroupSummary",
    "PairwiseResult",
    "PredictFn",
    "SystemSummary",
    "compare",
    "compare_scores",
    "join_by_id",
    "meaning_critical_rate",
    "paired_bootstrap",
    "ratio_bootstrap",
    "word_error_counts",
]

#: Version of the bootstrap / p-value / win-probability definitions (see :func:`paired_bootstrap`).
BOOTSTRAP_VERSION = "1"
#: Upper bound on ``n_bootstrap`` (time grows linearly with it; more adds no precision of note).
MAX_BOOTSTRAP = 1_000_000

_MAX_LISTED_IDS = 10


# -- WER -----------------------------------------------------------------------------------------------


def _normalized_words(text: str) -> str:
    from sitar.text import tokenize

    return " ".join(t.norm for t in tokenize(text))


def word_error_counts(
    *, references: Sequence[str], hypotheses: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Per-utterance ``(errors, reference_words)`` from ``jiwer`` over SPEC §1 normalised tokens.

    ``errors`` = substitutions + deletions + insertions of each utterance; WER over any subset is
    ``sum(errors) / sum(reference_words)`` (micro, as jiwer aggregates). Normalising first makes
    WER case- and punctuation-insensitive, on the same tokens CGD aligns.
    """
    refs = _check_texts("references", references)
    hyps = _check_texts("hypotheses", hypotheses)
    if len(refs) != len(hyps):
        raise InputError(
            f"references and hypotheses must have the same length, got {len(refs)} and {len(hyps)}"
        )
    n = len(refs)
    errors = np.zeros(n, dtype=np.int64)
    ref_words = np.zeros(n, dtype=np.int64)
    if n == 0:
        return errors, ref_words
    try:
        import jiwer
    except ImportError as e:
        raise MissingDependencyError("jiwer", "the WER column", "report") from e
    out = jiwer.process_words(
        [_normalized_words(r) for r in refs], [_normalized_words(h) for h in hyps]
    )
    for i, chunks in enumerate(out.alignments):
        ref_words[i] = len(out.references[i])
        for c in chunks:
            if c.type == "substitute" or c.type == "delete":
                errors[i] += c.ref_end_idx - c.ref_start_idx
            elif c.type == "insert":
                errors[i] += c.hyp_end_idx - c.hyp_start_idx
    return errors, ref_words


def _wer(errors: np.ndarray, ref_words: np.ndarray) -> float:
    """Micro WER; nan for no utterances or for errors against zero reference words."""
    if errors.size == 0:
        return math.nan
    total = int(ref_words.sum())
    if total == 0:
        return math.nan if int(errors.sum()) else 0.0
    return float(errors.sum()) / total


# -- bootstrap -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairwiseResult:
    """System ``a`` against system ``b`` on the same utterances (lower scores are better).

    ``diff`` = mean(a) - mean(b) with its bootstrap percentile interval ``diff_ci``; ``p_value``
    is two-sided (see :func:`paired_bootstrap`); ``win_a`` / ``win_b`` are the shares of
    utterances where ``a`` (``b``) scores strictly lower, ``ties`` the share where both are equal,
    so ``win_a + win_b + ties = 1``. ``significant`` is ``p_value < 1 - confidence``.
    """

    a: str
    b: str
    diff: float
    diff_ci: tuple[float, float]
    p_value: float
    win_a: float
    win_b: float
    ties: float
    significant: bool

    @property
    def better(self) -> str | None:
        """The significantly better (lower-scoring) system, or None."""
        if not self.significant:
            return None
        return self.a if self.diff < 0 else self.b

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "diff": _json(self.diff),
            "diff_ci": [_json(self.diff_ci[0]), _json(self.diff_ci[1])],
            "p_value": _json(self.p_value),
            "win_a": _json(self.win_a),
            "win_b": _json(self.win_b),
            "ties": _json(self.ties),
            "significant": self.significant,
            "better": self.better,
        }


@dataclass(frozen=True)
class SystemSummary:
    """One system over a set of utterances: mean normalised score with its bootstrap CI, the
    meaning-critical rate and (when computed) the micro WER."""

    name: str
    n: int
    mean: float
    ci: tuple[float, float]
    meaning_critical_rate: float
    wer: float | None
    #: The corpus ``swer`` (:mod:`sitar.swer`) with its bootstrap interval, when the scorer gives it.
    swer: float | None = None
    swer_ci: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "n": self.n,
            "mean": _json(self.mean),
            "ci": [_json(self.ci[0]), _json(self.ci[1])],
            "meaning_critical_rate": _json(self.meaning_critical_rate),
            "wer": None if self.wer is None else _json(self.wer),
        }
        if self.swer is not None:
            out["swer"] = _json(self.swer)
            out["swer_ci"] = None if self.swer_ci is None else [_json(x) for x in self.swer_ci]
        return out


def _json(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def paired_bootstrap(
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    n_bootstrap: int = 1000,
    seed: int | Sequence[int] = 0,
    confidence: float = 0.95,
) -> tuple[dict[str, tuple[float, float]], list[PairwiseResult]]:
    """Paired bootstrap over utterances (definitions version :data:`BOOTSTRAP_VERSION`).

    All systems are resampled with the *same* utterance indices: ``n_bootstrap`` draws of ``n``
    indices with replacement from ``numpy.random.default_rng(seed)``. Returns per-system percentile
    intervals of the mean (``confidence`` level) and, for every pair of systems in input order,
    a :class:`PairwiseResult`. The two-sided p-value of ``diff = mean(a) - mean(b)`` counts the
    resamples whose difference does not have the observed sign, ``k = #{d* : d* · sign(diff) <= 0}``,
    and is ``min(1, 2 (k + 1) / (n_bootstrap + 1))`` (never 0; the smallest value is
    ``2 / (n_bootstrap + 1)``); a zero observed difference gives 1. Zero utterances give ``nan``.
    """
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 1:
        raise InputError(f"n_bootstrap must be a positive integer, got {n_bootstrap!r}")
    if n_bootstrap > MAX_BOOTSTRAP:
        raise InputError(
            f"n_bootstrap must be at most {MAX_BOOTSTRAP:,}, got {n_bootstrap:,}; 10,000 resamples "
            "already give p-values down to 2e-4"
        )
    seeds = [seed] if isinstance(seed, numbers.Integral) else seed
    if (
        isinstance(seed, bool)
        or not isinstance(seeds, Sequence)
        or not seeds
        or any(isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 0 for x in seeds)
    ):
        raise InputError(
            f"seed must be a non-negative integer (or a sequence of them), got {seed!r}"
        )
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, numbers.Real)
        or not 0.0 < confidence < 1.0
    ):
        raise InputError(f"confidence must be in (0, 1), got {confidence!r}")
    names = list(scores)
    if not names:
        raise InputError("paired_bootstrap needs at least one system")
    rows = [np.asarray(scores[k], dtype=np.float64).reshape(-1) for k in names]
    if len({r.shape[0] for r in rows}) != 1:
        sizes = {k: r.shape[0] for k, r in zip(names, rows, strict=True)}
        raise InputError(
            f"every system needs one score per utterance, got these counts: {sizes}; join the "
            "systems by utterance id first (join_by_id)"
        )
    matrix = np.stack(rows)  # (S, n)
    if not np.all(np.isfinite(matrix)):
        raise InputError("scores must be finite numbers")
    n_sys, n = matrix.shape
    nan_ci = (math.nan, math.nan)
    alpha = 1.0 - float(confidence)
    if n == 0:
        cis = {k: nan_ci for k in names}
        pairs = [
            PairwiseResult(
                names[a], names[b], math.nan, nan_ci, math.nan, math.nan, math.nan, math.nan, False
            )
            for a in range(n_sys)
            for b in range(a + 1, n_sys)
        ]
        return cis, pairs
    rng = np.random.default_rng([int(x) for x in seeds] if len(seeds) > 1 else int(seeds[0]))
    boot = np.empty((n_sys, n_bootstrap), dtype=np.float64)  # (S, B) resampled means
    # Chunks bound memory at about 8 MB of indices whatever n is.
    chunk = max(1, min(n_bootstrap, 1_000_000 // n))
    for start in range(0, n_bootstrap, chunk):
        stop = min(n_bootstrap, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))  # (b, n)
        boot[:, start:stop] = matrix[:, idx].mean(axis=2)  # (S, b, n) -> (S, b)
    q = [alpha / 2.0, 1.0 - alpha / 2.0]
    cis = {}
    for s, name in enumerate(names):
        lo, hi = np.quantile(boot[s], q)
        cis[name] = (float(lo), float(hi))
    means = matrix.mean(axis=1)
    pairs = []
    for a in range(n_sys):
        for b in range(a + 1, n_sys):
            diff = float(means[a] - means[b])
            d_star = boot[a] - boot[b]
            lo, hi = np.quantile(d_star, q)
            if diff == 0.0:
                p = 1.0
            else:
                k = int(np.count_nonzero(d_star * math.copysign(1.0, diff) <= 0.0))
                p = min(1.0, 2.0 * (k + 1) / (n_bootstrap + 1))
            win_a = float(np.mean(matrix[a] < matrix[b]))
            win_b = float(np.mean(matrix[b] < matrix[a]))
            pairs.append(
                PairwiseResult(
                    a=names[a],
                    b=names[b],
                    diff=diff,
                    diff_ci=(float(lo), float(hi)),
                    p_value=p,
                    win_a=win_a,
                    win_b=win_b,
                    ties=1.0 - win_a - win_b,
                    significant=p < alpha,
                )
            )
    return cis, pairs


# -- compare ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupSummary:
    """Per-system summaries and pairwise results on the utterances of one group."""

    group: str
    n: int
    systems: tuple[SystemSummary, ...]
    pairwise: tuple[PairwiseResult, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "n": self.n,
            "systems": [s.to_dict() for s in self.systems],
            "pairwise": [p.to_dict() for p in self.pairwise],
        }


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`: overall and per-group statistics of two or more systems.

    ``scores[name]`` holds the per-utterance normalised scores in ``ids`` order. Lower is better.
    """

    ids: tuple[str, ...]
    systems: tuple[SystemSummary, ...]
    pairwise: tuple[PairwiseResult, ...]
    groups: tuple[GroupSummary, ...]
    scores: Mapping[str, tuple[float, ...]]
    n_bootstrap: int
    seed: int
    confidence: float
    signature: str
    wer_note: str = "micro WER (jiwer) over SPEC §1 normalised tokens"
    bootstrap_version: str = BOOTSTRAP_VERSION
    extra: Mapping[str, Any] = field(default_factory=dict)

    def system(self, name: str) -> SystemSummary:
        for s in self.systems:
            if s.name == name:
                return s
        raise InputError(f"no system {name!r}; systems are {[s.name for s in self.systems]}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_utterances": len(self.ids),
            "systems": [s.to_dict() for s in self.systems],
            "pairwise": [p.to_dict() for p in self.pairwise],
            "groups": [g.to_dict() for g in self.groups],
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
            "confidence": self.confidence,
            "bootstrap_version": self.bootstrap_version,
            "meaning_critical_threshold": MEANING_CRITICAL_THRESHOLD,
            "wer": self.wer_note,
            "lower_is_better": True,
            **dict(self.extra),
            "signature": self.signature,
        }

    def to_table(self) -> str:
        """A readable plain-text table (systems, pairwise tests, groups, settings, signature)."""
        pct = f"{self.confidence * 100:.4g}"
        lines = [f"SITAR system comparison: {len(self.ids)} utterances (lower is better)", ""]
        lines += _system_table(self.systems, pct)
        lines += [
            "",
            "pairwise (diff = mean(A) - mean(B); win = share of utterances strictly lower)",
        ]
        lines += _pairwise_table(self.pairwise, pct)
        for g in self.groups:
            lines += ["", f"group {g.group!r} ({g.n} utterances)"]
            lines += _system_table(g.systems, pct)
            lines += _pairwise_table(g.pairwise, pct)
        lines += [
            "",
            f"paired bootstrap: {self.n_bootstrap} resamples, seed {self.seed}, "
            f"{pct}% percentile intervals, two-sided p (bootstrap v{self.bootstrap_version})",
            f"MCR = meaning-critical rate (score >= 5/7, the T2 band); WER = {self.wer_note}",
            f"signature: {self.signature}",
        ]
        return "\n".join(lines) + "\n"


def _fmt(x: float | None, spec: str = ".4f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def _render_rows(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    out = []
    for r in [header, *rows]:
        cells = [r[0].ljust(widths[0])] + [r[c].rjust(widths[c]) for c in range(1, len(r))]
        out.append("  ".join(cells).rstrip())
    return out


def _system_table(systems: Sequence[SystemSummary], pct: str) -> list[str]:
    header = ["system", "n", "mean", f"{pct}% CI", "MCR", "WER"]
    with_swer = any(s.swer is not None for s in systems)
    if with_swer:
        header += ["swer", f"swer {pct}% CI"]
    rows = []
    for s in systems:
        row = [
            s.name,
            str(s.n),
            _fmt(s.mean),
            f"[{_fmt(s.ci[0])}, {_fmt(s.ci[1])}]",
            _fmt(s.meaning_critical_rate, ".3f"),
            _fmt(s.wer, ".3f"),
        ]
        if with_swer:
            ci = s.swer_ci or (math.nan, math.nan)
            row += [_fmt(s.swer, ".3f"), f"[{_fmt(ci[0], '.3f')}, {_fmt(ci[1], '.3f')}]"]
        rows.append(row)
    return _render_rows(header, rows)


def _pairwise_table(pairs: Sequence[PairwiseResult], pct: str) -> list[str]:
    if not pairs:
        return []
    header = ["A vs B", "diff", f"{pct}% CI", "p", "win A", "win B", "ties", "better"]
    rows = [
        [
            f"{p.a} vs {p.b}",
            _fmt(p.diff, "+.4f"),
            f"[{_fmt(p.diff_ci[0], '+.4f')}, {_fmt(p.diff_ci[1], '+.4f')}]",
            _fmt(p.p_value, ".4f"),
            _fmt(p.win_a, ".3f"),
            _fmt(p.win_b, ".3f"),
            _fmt(p.ties, ".3f"),
            p.better or "n.s.",
        ]
        for p in pairs
    ]
    return _render_rows(header, rows)


def _list_ids(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_MAX_LISTED_IDS])
    more = f" and {len(ids) - _MAX_LISTED_IDS} more" if len(ids) > _MAX_LISTED_IDS else ""
    return shown + more


def join_by_id(
    references: Mapping[str, str], systems: Mapping[str, Mapping[str, str]]
) -> tuple[list[str], dict[str, list[str]]]:
    """Join system hypotheses to the references by utterance id, in reference order.

    Every system must have exactly the reference ids; otherwise :class:`InputError` names the
    missing and extra ids of every system at once (nothing is dropped silently).
    """
    if not isinstance(references, Mapping) or not isinstance(systems, Mapping):
        raise InputError("references and systems must be mappings (utt_id -> text)")
    ids = [str(k) for k in references]
    problems = []
    for name, hyps in systems.items():
        if not isinstance(hyps, Mapping):
            raise InputError(f"system {name!r}: hypotheses must be a mapping utt_id -> text")
        missing = [u for u in references if u not in hyps]
        extra = [u for u in hyps if u not in references]
        if missing:
            problems.append(f"system {name!r} lacks {len(missing)} id(s): {_list_ids(missing)}")
        if extra:
            problems.append(
                f"system {name!r} has {len(extra)} id(s) not in the references: {_list_ids(extra)}"
            )
    if problems:
        raise InputError(
            "systems do not cover the reference ids: "
            + "; ".join(problems)
            + "; every system needs one hypothesis per reference id"
        )
    joined = {name: [hyps[u] for u in references] for name, hyps in systems.items()}
    return ids, joined


def ratio_bootstrap(
    numerators: np.ndarray,
    lengths: np.ndarray,
    *,
    n_bootstrap: int,
    seed: int | Sequence[int],
    confidence: float,
) -> tuple[float, tuple[float, float]]:
    """A micro rate (``sum(numerators) / sum(lengths)``, as WER and ``swer`` are) and its
    percentile bootstrap interval over utterances (``nan`` for an empty total length)."""
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(lengths, dtype=np.float64)
    total = float(den.sum())
    value = float(num.sum()) / total if total > 0 else math.nan
    if num.size == 0 or n_bootstrap < 1:
        return value, (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, num.size, size=(n_bootstrap, num.size))  # (B, n)
    d = den[idx].sum(axis=1)
    rates = np.where(d > 0, num[idx].sum(axis=1) / np.where(d > 0, d, 1.0), np.nan)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = (
        np.nanquantile(rates, [alpha, 1.0 - alpha]) if np.isfinite(rates).any() else (math.nan,) * 2
    )
    return value, (float(lo), float(hi))


def compare_scores(
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    ids: Sequence[str],
    groups: Mapping[str, str] | None = None,
    word_errors: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    signature: str,
    swer_parts: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> Comparison:
    """Statistics of precomputed per-utterance normalised scores (see :func:`compare`).

    ``word_errors[name]`` = per-utterance ``(errors, reference_words)`` from
    :func:`word_error_counts`; without it the WER column is None. ``swer_parts[name]`` =
    per-utterance ``swer`` ``(numerators, lengths)`` (:class:`~sitar.result.ScoreResult`); with it
    each system also gets its corpus ``swer`` and a bootstrap interval (:func:`ratio_bootstrap`, the
    same seed). Every id needs a group; ids
    of ``groups`` that are not in ``ids`` are ignored and counted in
    ``extra["group_ids_not_in_utterances"]``. Groups are bootstrapped
    separately with seeds ``[seed, k]`` (``k`` = 1-based rank of the group name in sorted order),
    so a group's result does not depend on the other groups.
    """
    names = list(scores)
    if len(names) < 1:
        raise InputError("compare needs at least one system")
    n = len(ids)
    arrays = {k: np.asarray(scores[k], dtype=np.float64).reshape(-1) for k in names}
    for k, a in arrays.items():
        if a.shape[0] != n:
            raise InputError(f"system {k!r} has {a.shape[0]} scores for {n} utterance ids")
    group_of: dict[str, str] = {}
    extra: dict[str, Any] = {}
    if groups is not None:
        missing = [u for u in ids if u not in groups]
        if missing:
            raise InputError(
                f"{len(missing)} utterance id(s) have no group: {_list_ids(missing)}; give every "
                "utterance a group in the groups map (utt_id -> group)"
            )
        group_of = {u: str(groups[u]) for u in ids}
        # Ids in the map but not among the utterances are harmless (a map for a larger corpus);
        # they are counted in the result, not dropped silently.
        id_set = set(ids)
        extra["group_ids_not_in_utterances"] = sum(1 for u in groups if u not in id_set)

    def summarize(
        index: np.ndarray, rng_seed: int | list[int]
    ) -> tuple[tuple[SystemSummary, ...], tuple[PairwiseResult, ...]]:
        sub = {k: arrays[k][index] for k in names}
        cis, pairs = paired_bootstrap(
            sub, n_bootstrap=n_bootstrap, seed=rng_seed, confidence=confidence
        )
        summaries = []
        for k in names:
            wer = None
            if word_errors is not None and k in word_errors:
                err, words = word_errors[k]
                wer = _wer(np.asarray(err)[index], np.asarray(words)[index])
            values = sub[k]
            swer = swer_ci = None
            if swer_parts is not None and k in swer_parts:
                num, den = swer_parts[k]
                swer, swer_ci = ratio_bootstrap(
                    np.asarray(num)[index], np.asarray(den)[index], n_bootstrap=n_bootstrap,
                    seed=rng_seed, confidence=confidence,
                )  # fmt: skip
            summaries.append(
                SystemSummary(
                    name=k,
                    n=int(values.size),
                    mean=float(values.mean()) if values.size else math.nan,
                    ci=cis[k],
                    meaning_critical_rate=meaning_critical_rate(values),
                    wer=wer,
                    swer=swer,
                    swer_ci=swer_ci,
                )
            )
        return tuple(summaries), tuple(pairs)

    systems, pairwise = summarize(np.arange(n), seed)
    group_results = []
    if groups is not None:
        id_list = list(ids)
        for rank, name in enumerate(sorted(set(group_of.values())), start=1):
            index = np.asarray([i for i, u in enumerate(id_list) if group_of[u] == name])
            g_sys, g_pairs = summarize(index, [seed, rank])
            group_results.append(GroupSummary(name, int(index.size), g_sys, g_pairs))
    return Comparison(
        ids=tuple(str(u) for u in ids),
        systems=systems,
        pairwise=pairwise,
        groups=tuple(group_results),
        scores={k: tuple(float(x) for x in arrays[k]) for k in names},
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=float(confidence),
        signature=signature,
        extra=extra,
    )


def compare(
    source: Any,
    *,
    references: Mapping[str, str],
    systems: Mapping[str, Mapping[str, str]],
    groups: Mapping[str, str] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    wer: bool = True,
    batch_size: int = 32,
    signature: str | None = None,
    progress: bool = False,
) -> Comparison:
    """Compare two or more ASR systems on the same references, joined by utterance id.

    ``references`` maps ``utt_id -> reference``; ``systems`` maps ``name -> {utt_id ->
    hypothesis}`` and every system must cover exactly the reference ids (see :func:`join_by_id`).
    All systems are scored with one call to ``source`` (a Scorer or a ``predict_fn``). Reports the
    mean score per system with a ``confidence`` paired-bootstrap interval, pairwise differences
    with p-values and win probabilities (:func:`paired_bootstrap`), the meaning-critical rate,
    the WER (``wer=True`` needs ``jiwer``) and, with ``groups`` (``utt_id -> group``), the same per
    group. ``seed`` makes the bootstrap reproducible.
    """
    if len(systems) < 2:
        raise InputError(
            f"compare needs at least two systems, got {len(systems)}; pass systems={{name: "
            "{utt_id: hypothesis}}} with two or more names"
        )
    ids, joined = join_by_id(references, systems)
    refs = [references[u] for u in references]
    names = list(joined)
    all_r = refs * len(names)
    all_h = [h for k in names for h in joined[k]]
    scored = _score(
        source,
        all_r,
        all_h,
        batch_size=batch_size,
        signature=signature,
        progress=progress,
        inputs=f"{len(names)} systems x {len(refs)} utterances",
    )
    n = len(ids)
    per_system = {k: scored.scores[s * n : (s + 1) * n] for s, k in enumerate(names)}
    word_errors = None
    if wer:
        word_errors = {k: word_error_counts(references=refs, hypotheses=joined[k]) for k in names}
    swer_parts = None
    if scored.swer_parts is not None:
        nums, lens = scored.swer_parts
        swer_parts = {
            k: (nums[s * n : (s + 1) * n], lens[s * n : (s + 1) * n]) for s, k in enumerate(names)
        }
    return compare_scores(
        per_system,
        ids=ids,
        groups=groups,
        word_errors=word_errors,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
        signature=scored.signature,
        swer_parts=swer_parts,
    )
