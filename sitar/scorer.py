"""``Scorer``: the one entry point for scoring (reference, hypothesis) pairs with a checkpoint.

``Scorer.load(...)`` resolves a checkpoint (a local folder, a Hugging Face repo id, or the packaged
default) and a backend (ONNX Runtime by default, torch optionally); ``Scorer.score(references=...,
hypotheses=...)`` returns a frozen :class:`ScoreResult` with the normalised per-pair scores
``clip(f, 0, 7/3) / (7/3)`` (SPEC §7), the raw clipped scores, the system score with its
aggregation named, and the SPEC §9 signature.

Three rules decide what reaches the model:

* **Identical pairs.** A pair whose SPEC §1 normalised token sequences are equal has no gaps, so its
  score is exactly 0 (SPEC §5) and the model is not called for it.
* **Length-sorted batches.** Model inputs are sorted by encoded length into batches (little
  padding); results are scattered back, so the output order is the input order.
* **Long pairs are windowed, never truncated** (strategy version :data:`WINDOWING_VERSION`). When
  the pair encoding ``[CLS] r [SEP] h [SEP]`` is longer than the checkpoint's ``max_length``, the
  pair is segmented with CGD (:func:`sitar.segment`, default analyzer) and cut only inside anchor
  (matched) token runs: consecutive gaps are grouped greedily while the group's span fits, and each
  group is widened with the same number of matched context tokens on both sides (as many as fit,
  never crossing another gap). Every gap lies in exactly one window, so no text is dropped or
  counted twice. A single gap too long for a window on its own is cut into the fewest equal-share
  pieces (by token count on each side) that fit; its pieces are scored separately and the gap
  takes the maximum of their scores, because they are one gap. Windows are then combined with
  :func:`combine_window_scores`, which reads each window like a gap of SPEC §5: the highest window
  fixes the base interval ``[β, β + 1/3)`` and the other windows refine inside it through the
  ``Q_ρ`` recursion, by their tiers. Windowed pairs are marked in
  :attr:`ScoreResult.windowed`; a pair with one token longer than ``max_length`` on its own raises
  :class:`~sitar.errors.InputError`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from sitar.checkpoint import CheckpointConfig, default_checkpoint_path
from sitar.errors import CheckpointError, InputError, MissingDependencyError
from sitar.targets import DEFAULT_RHO, MAX_SCORE
from sitar.text import Token, tokenize

if TYPE_CHECKING:
    from sitar.analyzers import Analyzer
    from sitar.diagnostics import Explanation

__all__ = [
    "AGGREGATION",
    "WINDOWING_VERSION",
    "ScoreResult",
    "Scorer",
    "combine_window_scores",
    "resolve_checkpoint",
]

#: How :attr:`ScoreResult.system_score` is computed.
AGGREGATION = "macro mean of per-pair normalized scores"
#: Version of the long-input windowing strategy; part of every score signature (``win:``).
WINDOWING_VERSION = "1"

_BACKENDS = ("onnx", "torch")
# owner/name, as the Hugging Face hub spells repo ids.
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_HUB_PATTERNS = ["sitar_config.json", "tokenizer.json", "parity.json", "*.onnx", "*.onnx.data"]


class _RawPredictor(Protocol):
    def predict_raw(
        self, references: Sequence[str], hypotheses: Sequence[str], batch_size: int = 32
    ) -> np.ndarray: ...


# -- results -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreResult:
    """Scores of n pairs, in input order.

    ``scores`` are normalised to ``[0, 1]``; ``raw`` are the model's raw scores clipped to
    ``[0, 7/3]`` (after window combination for long pairs); ``identical[i]`` says pair ``i`` was
    identical after normalisation (score 0, no model call); ``windowed[i]`` says it was longer than
    the checkpoint's ``max_length`` and scored by windows (``n_windows[i]`` model inputs; 0 for
    identical pairs, 1 for ordinary ones). For zero pairs ``system_score`` is ``nan`` (a mean of
    nothing) and :meth:`to_dict` writes it as ``null``.
    """

    scores: tuple[float, ...]
    raw: tuple[float, ...]
    windowed: tuple[bool, ...]
    identical: tuple[bool, ...]
    n_windows: tuple[int, ...]
    system_score: float
    aggregation: str
    signature: str

    def __len__(self) -> int:
        return len(self.scores)

    @property
    def n_identical(self) -> int:
        return sum(self.identical)

    @property
    def n_windowed(self) -> int:
        return sum(self.windowed)

    def to_dict(self) -> dict[str, Any]:
        system = None if math.isnan(self.system_score) else self.system_score
        return {
            "scores": list(self.scores),
            "raw": list(self.raw),
            "windowed": list(self.windowed),
            "identical": list(self.identical),
            "n_windows": list(self.n_windows),
            "system_score": system,
            "aggregation": self.aggregation,
            "n_pairs": len(self),
            "n_identical": self.n_identical,
            "n_windowed": self.n_windowed,
            "signature": self.signature,
        }


# -- window combination (pure) ---------------------------------------------------------------------


def combine_window_scores(
    window_scores: Sequence[float], *, rho: float = DEFAULT_RHO, scale: float = MAX_SCORE
) -> float:
    """Combine the raw scores of disjoint windows of one pair into one raw score (SPEC §5 logic).

    Each window holds at least one gap and is read like a gap of SPEC §5: its score ``s_j`` gives
    a severity position ``β_j = floor(3 s_j) / 3`` (at most 2), a nominal tier
    ``t_j = round(β_j)`` (the tier of ``t + δ/3``) and a refinement ``q_j = 3 (s_j - β_j)`` in
    ``[0, 1]`` that stands for the window's own further gaps. Then

    * ``β = max β_j`` is the base, as in SPEC §5; ``K`` its nominal tier;
    * per tier level ``k``, ``P_k = Π ρ (1 - q_j)`` over the windows of nominal tier ``k``
      (each counts as one gap of that tier plus its own refinement), except that the windows at
      ``β`` itself contribute ``ρ^(m-1) Π (1 - q_j)`` (one of the ``m`` is the base gap);
    * ``Q`` follows the ``Q_ρ`` recursion with ``P_k`` in place of ``ρ^(c̄_k)``:
      ``Q = 1 - P_0``, then ``Q = 1 - P_k (1 - (1 - ρ) Q)`` for ``k = 1 .. K``;
    * the result is ``β + Q / 3``, kept below ``β + 1/3``.

    One window returns its own score unchanged, and the result never leaves the highest window's
    base interval, nor falls below the highest window score; raising one window's score inside
    its own third-wide interval never lowers it (crossing into the next interval may, because the
    refinement restarts there, as in SPEC §5). It equals SPEC §5 exactly when every window holds
    one gap; otherwise it approximates it.

    >>> round(combine_window_scores([1.0, 1.0]), 4)  # T1 + T1, as score_from_tiers([1, 1])
    1.1667
    >>> round(combine_window_scores([2.0, 0.0]), 4)  # T2 + T0, as score_from_tiers([2, 0])
    2.0417
    """
    if not window_scores:
        return 0.0
    clipped = [min(max(float(s), 0.0), scale) for s in window_scores]
    if len(clipped) == 1:
        return clipped[0]
    # The small epsilon keeps grid values computed in floating point (1.0 as 0.999...) in place.
    steps = [min(math.floor(3.0 * s + 1e-9), 6) for s in clipped]  # beta_j = step / 3
    qs = [min(max(3.0 * s - k, 0.0), 1.0) for s, k in zip(clipped, steps, strict=True)]
    top_step = max(steps)
    top_tier = round(top_step / 3.0)
    factors = [1.0] * (top_tier + 1)
    m = 0
    for k, q in zip(steps, qs, strict=True):
        if k == top_step:
            m += 1
            factors[top_tier] *= 1.0 - q
        else:
            factors[round(k / 3.0)] *= rho * (1.0 - q)
    factors[top_tier] *= rho ** (m - 1)
    q = 0.0
    for level, p in enumerate(factors):
        q = 1.0 - p if level == 0 else 1.0 - p * (1.0 - (1.0 - rho) * q)
    beta = top_step / 3.0
    return min(beta + q / 3.0, math.nextafter(beta + 1.0 / 3.0, -math.inf))


# -- checkpoint resolution ---------------------------------------------------------------------------


def _hub_offline() -> bool:
    if os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "ON", "YES", "TRUE"}:
        return True
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return bool(getattr(constants, "HF_HUB_OFFLINE", False))


def resolve_checkpoint(
    path_or_hub_id: str | os.PathLike[str] | None = None,
    *,
    revision: str | None = None,
    include_torch: bool = False,
) -> Path:
    """A local checkpoint folder for ``path_or_hub_id``.

    ``None`` -> the packaged default; an existing folder -> itself; ``owner/name`` -> a snapshot of
    that Hugging Face repo through ``huggingface_hub`` (only the checkpoint files; with
    ``HF_HUB_OFFLINE=1`` only the local cache is used and a repo that is not cached is a
    :class:`CheckpointError`, never a network call).
    """
    if path_or_hub_id is None:
        return default_checkpoint_path()
    if not isinstance(path_or_hub_id, (str, os.PathLike)):
        raise InputError(
            "the checkpoint must be a folder path (str or os.PathLike), a Hugging Face repo id "
            f"or None, got {type(path_or_hub_id).__name__} {path_or_hub_id!r}"
        )
    path = Path(path_or_hub_id)
    if path.exists():
        return path
    text = str(path_or_hub_id)
    if not _HUB_ID.match(text):
        raise CheckpointError(
            f"checkpoint {text!r} is neither an existing folder nor a Hugging Face repo id "
            "('owner/name'); pass a folder that contains sitar_config.json"
        )
    try:
        from huggingface_hub import snapshot_download
    except ImportError as e:
        raise MissingDependencyError(
            "huggingface_hub", f"loading the checkpoint {text!r} from the Hugging Face hub", "hub"
        ) from e
    offline = _hub_offline()
    patterns = [*_HUB_PATTERNS, "torch/*"] if include_torch else list(_HUB_PATTERNS)
    try:
        folder = snapshot_download(
            repo_id=text, revision=revision, allow_patterns=patterns, local_files_only=offline
        )
    except Exception as e:  # huggingface_hub raises many error types (HTTP, offline, not found)
        if offline:  # huggingface_hub's own message speaks of Python arguments; ours is enough
            raise CheckpointError(
                f"no local folder {text!r} exists, and HF_HUB_OFFLINE is set while the repo is "
                "not in the local cache; download it once with network access, or pass a local "
                "checkpoint folder (--checkpoint PATH)"
            ) from e
        raise CheckpointError(
            f"no local folder {text!r} exists, and it cannot be fetched from the Hugging Face "
            f"hub: {type(e).__name__}: {' '.join(str(e).split())}; check the repo id, your "
            "network and your Hugging Face token"
        ) from e
    return Path(str(folder))


# -- windowing -----------------------------------------------------------------------------------------


def _span(text: str, tokens: Sequence[Token], a: int, b: int) -> str:
    """Original text of tokens ``[a, b)`` (from the first token's start to the last one's end)."""
    return text[tokens[a].start : tokens[b - 1].end] if a < b else ""


def _norms(text: str) -> list[str]:
    return [t.norm for t in tokenize(text)]


Spans = tuple[tuple[int, int], tuple[int, int]]


class _Windower:
    """Plans the windows of one over-long pair (see the module docstring)."""

    def __init__(self, fits: Callable[[str, str], bool], analyzer: Any = None) -> None:
        self._fits = fits
        self._analyzer = analyzer

    def plan(self, reference: str, hypothesis: str) -> list[list[tuple[str, str]]]:
        """Units of (reference, hypothesis) window texts; a unit with several pieces is one
        oversized gap (its pieces are combined by max)."""
        return [
            [self._texts(reference, hypothesis, r, h) for r, h in unit]
            for unit in self.plan_spans(reference, hypothesis)
        ]

    def _texts(
        self, reference: str, hypothesis: str, ref: tuple[int, int], hyp: tuple[int, int]
    ) -> tuple[str, str]:
        return (
            _span(reference, self._ref_tokens, *ref),
            _span(hypothesis, self._hyp_tokens, *hyp),
        )

    def plan_spans(self, reference: str, hypothesis: str) -> list[list[Spans]]:
        """Like :meth:`plan`, as half-open SPEC §1 token intervals ``((ra, rb), (ha, hb))``."""
        from sitar.cgd import segment

        seg = segment(reference, hypothesis, analyzer=self._analyzer)
        self._ref_tokens, self._hyp_tokens = seg.ref_tokens, seg.hyp_tokens
        n_ref, n_hyp, gaps = len(seg.ref_tokens), len(seg.hyp_tokens), seg.gaps

        def fits(ra: int, rb: int, ha: int, hb: int) -> bool:
            return self._fits(*self._texts(reference, hypothesis, (ra, rb), (ha, hb)))

        units: list[list[Spans]] = []
        i = 0
        while i < len(gaps):
            g = gaps[i]
            if not fits(*g.ref_tokens, *g.hyp_tokens):
                units.append(self._split_gap(g.ref_tokens, g.hyp_tokens, fits))
                i += 1
                continue
            # Greedy grouping: add the next gap while the span from gap i to it still fits.
            j = i
            while j + 1 < len(gaps) and fits(
                g.ref_tokens[0],
                gaps[j + 1].ref_tokens[1],
                g.hyp_tokens[0],
                gaps[j + 1].hyp_tokens[1],
            ):
                j += 1
            ra, ha = g.ref_tokens[0], g.hyp_tokens[0]
            rb, hb = gaps[j].ref_tokens[1], gaps[j].hyp_tokens[1]
            # Matched context available on each side, up to the neighbouring gaps (anchors pair
            # up one to one, so both sides have the same count; min() is only a safeguard).
            prev_r, prev_h = (
                gaps[i - 1].ref_tokens[1] if i else 0,
                gaps[i - 1].hyp_tokens[1] if i else 0,
            )
            last = j + 1 == len(gaps)
            next_r = n_ref if last else gaps[j + 1].ref_tokens[0]
            next_h = n_hyp if last else gaps[j + 1].hyp_tokens[0]
            avail_left = min(ra - prev_r, ha - prev_h)
            avail_right = min(next_r - rb, next_h - hb)

            def with_context(
                n: int, ra=ra, rb=rb, ha=ha, hb=hb, al=avail_left, ar=avail_right
            ) -> tuple[int, int, int, int]:
                left, right = min(n, al), min(n, ar)
                return ra - left, rb + right, ha - left, hb + right

            # Largest n whose window fits (fitting is monotone in n); n = 0 fits by construction.
            lo, hi = 0, max(avail_left, avail_right)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if fits(*with_context(mid)):
                    lo = mid
                else:
                    hi = mid - 1
            wra, wrb, wha, whb = with_context(lo)
            units.append([((wra, wrb), (wha, whb))])
            i = j + 1
        return units

    @staticmethod
    def _split_gap(
        ref: tuple[int, int],
        hyp: tuple[int, int],
        fits: Callable[[int, int, int, int], bool],
    ) -> list[Spans]:
        """Cut one gap into the fewest k equal-share pieces (by token count per side) that fit."""
        nr, nh = ref[1] - ref[0], hyp[1] - hyp[0]
        for k in range(2, max(nr, nh) + 1):
            pieces = [
                (
                    (ref[0] + p * nr // k, ref[0] + (p + 1) * nr // k),
                    (hyp[0] + p * nh // k, hyp[0] + (p + 1) * nh // k),
                )
                for p in range(k)
            ]
            if all(fits(*r, *h) for r, h in pieces):
                return pieces
        raise InputError(
            "a pair cannot be split into windows that fit the checkpoint's max_length: a single "
            "token is longer than max_length on its own; shorten or clean that token"
        )


# -- the scorer ------------------------------------------------------------------------------------------


class Scorer:
    """Scores pairs with a SITAR checkpoint. Build it with :meth:`Scorer.load`.

    >>> scorer = Scorer.load("path/to/checkpoint")  # doctest: +SKIP
    >>> result = scorer.score(references=["turn left"], hypotheses=["turn right"])  # doctest: +SKIP
    >>> result.scores, result.system_score, result.signature  # doctest: +SKIP
    """

    def __init__(
        self,
        config: CheckpointConfig,
        predictor: _RawPredictor,
        *,
        backend: str = "onnx",
        variant: str | None = None,
        analyzer: str | Analyzer | None = None,
    ) -> None:
        from sitar.runtime import PairEncoder

        self.config = config
        self.predictor = predictor
        self.backend = backend
        self.variant = variant
        #: CGD analyzer used to window long pairs (None: the default analyzer).
        self.analyzer = analyzer
        self.encoder = PairEncoder(config.tokenizer_path, max_length=config.max_length)
        self._signature: str | None = None

    @classmethod
    def load(
        cls,
        path_or_hub_id: str | os.PathLike[str] | None = None,
        *,
        backend: str = "onnx",
        variant: str | None = None,
        threads: int | None = None,
        device: str | None = None,
        revision: str | None = None,
        analyzer: str | Analyzer | None = None,
    ) -> Scorer:
        """Load a checkpoint: a local folder, a Hugging Face repo id (``revision`` optional;
        ``HF_HUB_OFFLINE`` respected) or ``None`` for the packaged default.

        ``backend="onnx"`` (default) runs ONNX Runtime on CPU with ``variant`` ``"int8"`` or
        ``"fp32"`` (default: the checkpoint's choice) and ``threads`` intra-op threads.
        ``backend="torch"`` runs ``sitar.modeling.TorchPredictor`` on ``device`` (default: GPU if
        available); it needs torch and the checkpoint's ``torch/`` folder (``threads`` then calls
        ``torch.set_num_threads``, which is process-wide). ``analyzer`` is the CGD
        analyzer used to window pairs longer than ``max_length`` (default: the default analyzer);
        its id goes into the signature.
        """
        if backend not in _BACKENDS:
            raise InputError(f"backend must be one of {_BACKENDS}, got {backend!r}")
        if backend == "torch" and variant is not None:
            raise InputError("variant selects an ONNX file; it cannot be used with backend='torch'")
        if backend == "onnx" and device is not None:
            raise InputError(
                "device applies to backend='torch'; the ONNX backend runs on CPU (use threads)"
            )
        folder = resolve_checkpoint(
            path_or_hub_id, revision=revision, include_torch=backend == "torch"
        )
        config = CheckpointConfig.load(folder)
        if backend == "onnx":
            from sitar.runtime import OnnxPredictor

            onnx_predictor = OnnxPredictor(config, variant=variant, threads=threads)
            return cls(
                config,
                onnx_predictor,
                backend="onnx",
                variant=onnx_predictor.variant,
                analyzer=analyzer,
            )
        try:
            from sitar.modeling import TorchPredictor
        except ImportError as e:
            raise MissingDependencyError("torch", "the torch backend", "torch") from e
        if threads is not None:
            import torch

            torch.set_num_threads(threads)
        return cls(
            config, TorchPredictor(folder, device=device), backend="torch", analyzer=analyzer
        )

    @property
    def max_length(self) -> int:
        return self.config.max_length

    @property
    def signature(self) -> str:
        """SPEC §9 signature of scores from this scorer (analyzer, rho, checkpoint, backend)."""
        if self._signature is None:
            from sitar.integrity import checkpoint_id
            from sitar.signature import make_signature

            try:
                from sitar.analyzers import get_analyzer

                analyzer = get_analyzer(self.analyzer).id
            except ImportError:
                # The default analyzer is only needed to window long pairs; name its absence.
                analyzer = "unavailable"
            extra = {"onnx": str(self.variant)} if self.backend == "onnx" else {"backend": "torch"}
            extra["win"] = WINDOWING_VERSION
            self._signature = make_signature(
                analyzer=analyzer,
                rho=self.config.rho,
                checkpoint=checkpoint_id(self.config),
                extra=extra,
            )
        return self._signature

    def _fits(self, reference: str, hypothesis: str) -> bool:
        return self.encoder.pair_length(reference, hypothesis) <= self.max_length

    def explain(self, reference: str, hypothesis: str, *, batch_size: int = 32) -> Explanation:
        """Per-gap severity for one pair: see :func:`sitar.diagnostics.explain`."""
        from sitar.diagnostics import explain

        return explain(self, reference, hypothesis, batch_size=batch_size)

    def windows(self, reference: str, hypothesis: str) -> list[list[tuple[str, str]]]:
        """The model inputs for one pair: ``[[(reference, hypothesis)]]`` when it fits, else the
        windows of the long-input strategy grouped by gap unit (see the module docstring)."""
        if self._fits(reference, hypothesis):
            return [[(reference, hypothesis)]]
        return _Windower(self._fits, self.analyzer).plan(reference, hypothesis)

    def score(
        self,
        *,
        references: Sequence[str],
        hypotheses: Sequence[str],
        batch_size: int = 32,
        progress: bool = False,
    ) -> ScoreResult:
        """Score pairs; see the module docstring for identical pairs, batching and windowing.

        ``references`` and ``hypotheses`` are sequences of str of the same length. ``progress``
        shows a tqdm bar on stderr. Empty inputs give an empty result with ``system_score`` nan.
        """
        refs, hyps = _check_inputs(references, hypotheses)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        n = len(refs)
        identical = [_norms(r) == _norms(h) for r, h in zip(refs, hyps, strict=True)]
        # jobs: model inputs; owner[k] = (pair index, unit index) of job k.
        jobs_r: list[str] = []
        jobs_h: list[str] = []
        owner: list[tuple[int, int]] = []
        n_units = [0] * n
        n_windows = [0] * n
        windowed = [False] * n
        todo = [i for i in range(n) if not identical[i]]
        lengths = self.encoder.lengths([refs[i] for i in todo], [hyps[i] for i in todo])
        for i, length in zip(todo, lengths, strict=True):
            if length <= self.max_length:
                n_units[i] = n_windows[i] = 1
                jobs_r.append(refs[i])
                jobs_h.append(hyps[i])
                owner.append((i, 0))
                continue
            windowed[i] = True
            units = _Windower(self._fits, self.analyzer).plan(refs[i], hyps[i])
            n_units[i] = len(units)
            for u, pieces in enumerate(units):
                for r, h in pieces:
                    n_windows[i] += 1
                    if _norms(r) == _norms(h):
                        continue  # an unchanged piece of a split gap: raw 0 without the model
                    jobs_r.append(r)
                    jobs_h.append(h)
                    owner.append((i, u))
        job_raw = self._run(jobs_r, jobs_h, batch_size=batch_size, progress=progress)

        scale = self.config.score_scale
        unit_raw: list[list[float]] = [[0.0] * n_units[i] for i in range(n)]
        for (i, u), value in zip(owner, job_raw, strict=True):
            # Pieces of one oversized gap are one gap: it takes the maximum piece score.
            unit_raw[i][u] = max(unit_raw[i][u], min(max(float(value), 0.0), scale))
        raw = [
            combine_window_scores(unit_raw[i], rho=self.config.rho, scale=scale)
            if n_units[i]
            else 0.0
            for i in range(n)
        ]
        scores = tuple(r / scale for r in raw)
        system = float(np.mean(scores)) if scores else math.nan
        return ScoreResult(
            scores=scores,
            raw=tuple(raw),
            windowed=tuple(windowed),
            identical=tuple(identical),
            n_windows=tuple(n_windows),
            system_score=system,
            aggregation=AGGREGATION,
            signature=self.signature,
        )

    def _run(
        self, references: list[str], hypotheses: list[str], *, batch_size: int, progress: bool
    ) -> np.ndarray:
        """Raw model scores for inputs that all fit, in input order, length-sorted batches."""
        from sitar.runtime import length_sorted_batches

        if not references:
            return np.zeros(0, dtype=np.float32)
        lengths = self.encoder.lengths(references, hypotheses)
        bar = _progress_bar(len(references)) if progress else None
        out = np.zeros(len(references), dtype=np.float64)
        try:
            for idx in length_sorted_batches(lengths, batch_size):
                batch_r = [references[k] for k in idx]
                batch_h = [hypotheses[k] for k in idx]
                values = np.asarray(
                    self.predictor.predict_raw(batch_r, batch_h, batch_size=batch_size)
                ).reshape(-1)  # (batch,)
                if values.shape[0] != len(idx):
                    raise CheckpointError(
                        f"the {self.backend} predictor returned {values.shape[0]} scores for a "
                        f"batch of {len(idx)} pairs"
                    )
                out[idx] = values
                if bar is not None:
                    bar.update(len(idx))
        finally:
            if bar is not None:
                bar.close()
        if not np.all(np.isfinite(out)):
            raise CheckpointError(
                f"checkpoint {self.config.name!r} produced non-finite scores; the model is broken"
            )
        return out


def _progress_bar(total: int) -> Any:
    try:
        from tqdm import tqdm
    except ImportError as e:
        raise MissingDependencyError("tqdm", "the progress bar") from e
    return tqdm(total=total, unit="pair", desc="sitar score", leave=False)


def _check_inputs(
    references: Sequence[str], hypotheses: Sequence[str]
) -> tuple[list[str], list[str]]:
    for name, items in (("references", references), ("hypotheses", hypotheses)):
        if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
            raise InputError(
                f"{name} must be a list of str, got {type(items).__name__}; "
                "wrap a single pair as references=[r], hypotheses=[h]"
            )
    if len(references) != len(hypotheses):
        raise InputError(
            "references and hypotheses must have the same length, got "
            f"{len(references)} references and {len(hypotheses)} hypotheses"
        )
    for name, items in (("references", references), ("hypotheses", hypotheses)):
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise InputError(f"{name}[{i}] must be a str, got {type(item).__name__}")
    return list(references), list(hypotheses)
