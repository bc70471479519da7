"""``Scorer``: the one entry point for scoring (reference, hypothesis) pairs with a checkpoint.

``Scorer.load(...)`` resolves a checkpoint (a local folder, a Hugging Face repo id, or the packaged
default) and a backend (ONNX Runtime by default, torch optionally); ``Scorer.score(references=...,
hypotheses=...)`` returns a frozen :class:`ScoreResult` with the normalised per-pair scores
``clip(f, 0, 7/3) / (7/3)`` (SPEC §7), the raw clipped scores, the system score with its
aggregation named, and the SPEC §9 signature.

Two scoring heads exist (the signature names the one used, ``head:gaps`` or ``head:pair``):

* **gaps** (SPEC §7b, the default of gap-aware checkpoints): every pair is segmented with CGD, its
  gaps are marked in the model input (:mod:`sitar.encoding`), one forward pass predicts each gap's
  severity position, and the score is SPEC §5 applied to those positions, with the pair head as a
  tie-breaker that never leaves the interval SPEC §5 gives (:mod:`sitar.gapscore`). Per-gap tiers
  come out of the same pass (:meth:`Scorer.analyze`, ``explain``).
* **pair** (SPEC §7): the pair head's raw score, clipped.

Batch invariance: a batch holds model inputs of one exact length only, so no input is ever padded
and each is computed at its own width; a pair's score does not depend on its batch neighbours, the
batch size or the input order (measured and tested for the fp32, static int8 and row-wise int8
(``int8row``) graphs; dynamic int8 graphs compute activation scales per batch and are not
batch-invariant, see the README).

Three rules decide what reaches the model:

* **Identical pairs.** A pair whose SPEC §1 normalised token sequences are equal has no gaps, so its
  score is exactly 0 (SPEC §5) and the model is not called for it.
* **Length-bucketed batches.** Model inputs are grouped by their exact token length into batches
  (no padding at all); results are scattered back, so the output order is the input order.
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
  ``Q_ρ`` recursion, by their tiers (head ``pair``). With the head ``gaps`` no approximation is
  needed: each gap is classified in the window that holds it (marked, with its context), the
  pieces of a split gap count once at their highest position, and SPEC §5 aggregates all gaps of
  the pair exactly. Windowed pairs are marked in :attr:`ScoreResult.windowed`; a pair with one
  token longer than ``max_length`` on its own raises :class:`~sitar.errors.InputError`.
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
from sitar.targets import DEFAULT_RHO, MAX_SCORE, normalize_score
from sitar.text import Token, presentation_key

if TYPE_CHECKING:
    from sitar.analyzers import Analyzer
    from sitar.diagnostics import Explanation
    from sitar.encoding import EncodedPair
    from sitar.gaps import Segmentation
    from sitar.gapscore import GapPrediction

__all__ = [
    "AGGREGATION",
    "HEADS",
    "WINDOWING_VERSION",
    "PairAnalysis",
    "ScoreResult",
    "Scorer",
    "combine_window_scores",
    "resolve_checkpoint",
]

#: How :attr:`ScoreResult.system_score` is computed.
AGGREGATION = "macro mean of per-pair normalized scores"
#: Version of the long-input windowing strategy; part of every score signature (``win:``).
WINDOWING_VERSION = "1"
#: Scoring heads: ``gaps`` (SPEC §7b, per-gap positions + SPEC §5) and ``pair`` (SPEC §7).
HEADS = ("gaps", "pair")

_BACKENDS = ("onnx", "torch")
# owner/name, as the Hugging Face hub spells repo ids.
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_HUB_PATTERNS = ["sitar_config.json", "tokenizer.json", "parity.json", "*.onnx", "*.onnx.data"]


class _BatchPredictor(Protocol):
    """What the Scorer needs of a backend (``OnnxPredictor``, ``TorchPredictor``)."""

    input_names: tuple[str, ...]

    def run_batch(self, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]: ...


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
    if not str(path_or_hub_id).strip():
        # Path("") is the current directory: an empty --checkpoint must not load whatever is there.
        raise InputError(
            "the checkpoint is an empty string; pass a folder path, an 'owner/name' hub id, or "
            "omit it for the packaged default"
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


def _norms(text: str) -> tuple[str, ...]:
    """What two texts must share to be the same words: :func:`sitar.text.presentation_key`."""
    return presentation_key(text)


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

        def fits(ra: int, rb: int, ha: int, hb: int, first: int, last: int) -> bool:
            return self._fits(*self._texts(reference, hypothesis, (ra, rb), (ha, hb)))

        return [[spans for spans, _ in unit] for unit in plan_windows(seg, fits)]

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


def plan_windows(
    seg: Segmentation, fits: Callable[[int, int, int, int, int, int], bool]
) -> list[list[tuple[Spans, tuple[int, int]]]]:
    """The windows of one over-long segmented pair (see the module docstring).

    ``fits(ra, rb, ha, hb, first, last)`` says whether the window with token intervals
    ``[ra, rb)``/``[ha, hb)`` holding gaps ``first..last`` (inclusive) fits the model. Returns units;
    each unit is a list of ``(((ra, rb), (ha, hb)), (first, last))``: one window holding gaps
    ``first..last`` with matched context, or the pieces of one oversized gap (``first == last``).
    """
    n_ref, n_hyp, gaps = len(seg.ref_tokens), len(seg.hyp_tokens), seg.gaps
    units: list[list[tuple[Spans, tuple[int, int]]]] = []
    i = 0
    while i < len(gaps):
        g = gaps[i]
        if not fits(*g.ref_tokens, *g.hyp_tokens, i, i):

            def piece_fits(ra: int, rb: int, ha: int, hb: int, k: int = i) -> bool:
                return fits(ra, rb, ha, hb, k, k)

            pieces = _Windower._split_gap(g.ref_tokens, g.hyp_tokens, piece_fits)
            units.append([(piece, (i, i)) for piece in pieces])
            i += 1
            continue
        # Greedy grouping: add the next gap while the span from gap i to it still fits.
        j = i
        while j + 1 < len(gaps) and fits(
            g.ref_tokens[0],
            gaps[j + 1].ref_tokens[1],
            g.hyp_tokens[0],
            gaps[j + 1].hyp_tokens[1],
            i,
            j + 1,
        ):
            j += 1
        ra, ha = g.ref_tokens[0], g.hyp_tokens[0]
        rb, hb = gaps[j].ref_tokens[1], gaps[j].hyp_tokens[1]
        # Matched context available on each side, up to the neighbouring gaps (anchors pair up
        # one to one, so both sides have the same count; min() is only a safeguard).
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
            if fits(*with_context(mid), i, j):
                lo = mid
            else:
                hi = mid - 1
        wra, wrb, wha, whb = with_context(lo)
        units.append([(((wra, wrb), (wha, whb)), (i, j))])
        i = j + 1
    return units


# -- the scorer ------------------------------------------------------------------------------------------


def default_head(config: CheckpointConfig, *, gap_aware: bool) -> str:
    """The head a checkpoint scores with when none is asked for: its ``scoring.head`` (default
    ``"gaps"``) when its graph has a gap head, else ``"pair"``."""
    scoring = config.extra.get("scoring") if gap_aware else None
    return scoring.get("head", "gaps") if isinstance(scoring, dict) else "pair"


class Scorer:
    """Scores pairs with a SITAR checkpoint. Build it with :meth:`Scorer.load`.

    >>> scorer = Scorer.load("path/to/checkpoint")  # doctest: +SKIP
    >>> result = scorer.score(references=["turn left"], hypotheses=["turn right"])  # doctest: +SKIP
    >>> result.scores, result.system_score, result.signature  # doctest: +SKIP
    """

    def __init__(
        self,
        config: CheckpointConfig,
        predictor: _BatchPredictor,
        *,
        backend: str = "onnx",
        variant: str | None = None,
        analyzer: str | Analyzer | None = None,
        head: str | None = None,
        tie_breaker: int | None = None,
        decode: str | None = None,
    ) -> None:
        for attr in ("run_batch", "input_names"):
            if not hasattr(predictor, attr):
                raise InputError(
                    f"predictor must have run_batch(arrays) and input_names (as "
                    f"sitar.runtime.OnnxPredictor); {type(predictor).__name__} has no {attr!r}"
                )
        self.config = config
        self.predictor = predictor
        self.backend = backend
        self.variant = variant
        #: CGD analyzer used to segment pairs (gap head) and to window long pairs.
        self.analyzer = analyzer
        #: The predictor's encoder (the tokenizer is read once per scorer).
        encoder = getattr(predictor, "encoder", None)
        if encoder is None:
            from sitar.encoding import checkpoint_encoder

            encoder = checkpoint_encoder(config)
        self.encoder = encoder
        #: True when the model reads gap-marked input and predicts per-gap positions (SPEC §7b).
        self.gap_aware = bool(getattr(predictor, "gap_aware", False))
        self.head = self._resolve_head(head)
        self.tie_breaker = self._resolve_tie_breaker(tie_breaker)
        self.decode = self._resolve_decode(decode)
        self._signature: str | None = None

    def _resolve_decode(self, rule: str | None) -> str:
        from sitar.gapscore import DECODE_RULES, DEFAULT_DECODE

        if rule is None:
            return DEFAULT_DECODE
        if not isinstance(rule, str) or rule not in DECODE_RULES:
            raise InputError(f"decode must be one of {DECODE_RULES}, got {rule!r}")
        if self.head != "gaps":
            raise InputError("decode applies to the gap head (head='gaps') only")
        return rule

    def _resolve_tie_breaker(self, version: int | None) -> int:
        from sitar.gapscore import TIE_BREAK_VERSION, TIE_BREAK_VERSIONS

        if version is None:
            return TIE_BREAK_VERSION
        if (
            isinstance(version, bool)
            or not isinstance(version, int)
            or version not in TIE_BREAK_VERSIONS
        ):
            raise InputError(f"tie_breaker must be one of {TIE_BREAK_VERSIONS}, got {version!r}")
        if self.head != "gaps":
            raise InputError("tie_breaker applies to the gap head (head='gaps') only")
        return int(version)

    def _resolve_head(self, head: str | None) -> str:
        if head is None:
            head = default_head(self.config, gap_aware=self.gap_aware)
        if head not in HEADS:
            raise InputError(f"head must be one of {HEADS}, got {head!r}")
        if head == "gaps" and not self.gap_aware:
            raise InputError(
                f"checkpoint {self.config.name!r} has no gap head (it reads unmarked pairs); "
                "use head='pair'"
            )
        return head

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
        head: str | None = None,
        tie_breaker: int | None = None,
        decode: str | None = None,
        allow_unverified: bool = False,
    ) -> Scorer:
        """Load a checkpoint: a local folder, a Hugging Face repo id (``revision`` optional;
        ``HF_HUB_OFFLINE`` respected) or ``None`` for the packaged default.

        ``backend="onnx"`` (default) runs ONNX Runtime on CPU with ``variant`` ``"fp32"``,
        ``"int8"`` or ``"int8row"`` (default: the checkpoint's choice) and ``threads`` intra-op
        threads.
        ``backend="torch"`` runs ``sitar.modeling.TorchPredictor`` on ``device`` (default: GPU if
        available); it needs torch and the checkpoint's ``torch/`` folder (``threads`` then calls
        ``torch.set_num_threads``, which is process-wide). ``analyzer`` is the CGD analyzer used to
        segment pairs and window long ones (default: the default analyzer); its id goes into the
        signature. ``head`` is ``"gaps"`` or ``"pair"`` (default: the checkpoint's choice;
        ``"pair"`` for checkpoints without a gap head). ``tie_breaker`` is the gap head's rule
        inside the SPEC §5 interval, 3 (default) or 2 (:mod:`sitar.gapscore`; ``tb:`` in the
        signature). ``decode`` is how the gap head's ordinal logits become a step, ``"mean"``
        (default) or ``"median"`` (:func:`sitar.gapscore.decoded_steps`; ``dec:median`` in the
        signature). A checkpoint whose digests do not vouch for it (:mod:`sitar.integrity`) is a
        :class:`CheckpointError` unless ``allow_unverified`` is True, and then a warning.
        """
        if isinstance(path_or_hub_id, bool) or not (
            path_or_hub_id is None or isinstance(path_or_hub_id, (str, os.PathLike))
        ):
            raise InputError(
                "path_or_hub_id must be a folder path, an 'owner/name' hub id or None, got "
                f"{type(path_or_hub_id).__name__}"
            )
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
        from sitar.integrity import require_verified

        require_verified(config, allow_unverified=allow_unverified)
        if backend == "onnx":
            from sitar.runtime import OnnxPredictor

            onnx_predictor = OnnxPredictor(config, variant=variant, threads=threads)
            return cls(
                config,
                onnx_predictor,
                backend="onnx",
                variant=onnx_predictor.variant,
                analyzer=analyzer,
                head=head,
                tie_breaker=tie_breaker,
                decode=decode,
            )
        try:
            from sitar.modeling import TorchPredictor
        except ImportError as e:
            raise MissingDependencyError("torch", "the torch backend", "torch") from e
        if threads is not None:
            import torch

            torch.set_num_threads(threads)
        return cls(
            config,
            TorchPredictor(folder, device=device),
            backend="torch",
            analyzer=analyzer,
            head=head,
            tie_breaker=tie_breaker,
            decode=decode,
        )

    @property
    def max_length(self) -> int:
        return self.config.max_length

    @property
    def signature(self) -> str:
        """SPEC §9 signature of scores from this scorer (analyzer, rho, checkpoint, backend,
        head, windowing and, for gap-marked input, the marking version). With the torch backend
        it also names the weights file (``weights:`` the first 8 hex digits of its SHA-256),
        which the checkpoint id does not cover."""
        if self._signature is None:
            from sitar.integrity import checkpoint_id
            from sitar.signature import make_signature

            try:
                from sitar.analyzers import get_analyzer

                analyzer = get_analyzer(self.analyzer).id
            except ImportError:
                # The default analyzer is only needed to segment pairs; name its absence.
                analyzer = "unavailable"
            if self.backend == "onnx":
                extra = {"onnx": str(self.variant)}
            else:
                extra = {"backend": "torch"}
                weights = getattr(self.predictor, "weights_digest", None)
                if weights:  # the checkpoint id does not cover torch/ (it digests the graphs)
                    extra["weights"] = str(weights)
            extra["head"] = self.head
            if self.gap_aware:
                from sitar.encoding import MARKING_VERSION

                extra["mark"] = MARKING_VERSION
            if self.head == "gaps":
                extra["tb"] = str(self.tie_breaker)
                from sitar.gapscore import DEFAULT_DECODE

                if self.decode != DEFAULT_DECODE:
                    extra["dec"] = self.decode
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

    def explain(
        self, reference: str, hypothesis: str, *, batch_size: int = 32, method: str = "auto"
    ) -> Explanation:
        """Per-gap severity for one pair: see :func:`sitar.diagnostics.explain`."""
        from sitar.diagnostics import explain

        return explain(self, reference, hypothesis, batch_size=batch_size, method=method)

    def windows(self, reference: str, hypothesis: str) -> list[list[tuple[str, str]]]:
        """The plain model inputs of a pair-head scorer for one pair: ``[[(reference,
        hypothesis)]]`` when it fits, else the windows of the long-input strategy grouped by gap
        unit (see the module docstring)."""
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
        A pair's score depends only on the pair and the checkpoint, never on ``batch_size`` or the
        other pairs.
        """
        analyses = self.analyze(
            references=references, hypotheses=hypotheses, batch_size=batch_size, progress=progress
        )
        return self.result_of(analyses)

    def result_of(self, analyses: Sequence[PairAnalysis]) -> ScoreResult:
        """The :class:`ScoreResult` of pairs already run through :meth:`analyze` (what
        :meth:`score` returns for them), for callers that also need the per-gap analyses."""
        scale = self.config.score_scale
        raw = [a.raw for a in analyses]
        # Clipped to [0, scale] before dividing: a normalised score is in [0, 1] by construction.
        scores = tuple(normalize_score(r, scale) for r in raw)
        system = float(np.mean(scores)) if scores else math.nan
        return ScoreResult(
            scores=scores,
            raw=tuple(raw),
            windowed=tuple(a.windowed for a in analyses),
            identical=tuple(a.identical for a in analyses),
            n_windows=tuple(a.n_windows for a in analyses),
            system_score=system,
            aggregation=AGGREGATION,
            signature=self.signature,
        )

    def analyze(
        self,
        *,
        references: Sequence[str],
        hypotheses: Sequence[str],
        batch_size: int = 32,
        progress: bool = False,
    ) -> tuple[PairAnalysis, ...]:
        """Score pairs and keep what the single forward pass says about each gap.

        Each :class:`PairAnalysis` holds the raw score, the pair's CGD segmentation (gap head; the
        pair head segments only long pairs) and, with the gap head, one
        :class:`~sitar.gapscore.GapPrediction` per gap (tier, direction, position).
        """
        refs, hyps = _check_inputs(references, hypotheses)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        if self.head == "gaps":
            return self._analyze_gaps(refs, hyps, batch_size, progress)
        return self._analyze_pair(refs, hyps, batch_size, progress)

    def gap_logits(
        self,
        items: Sequence[tuple[str, str, Sequence[Spans]]],
        *,
        batch_size: int = 32,
        progress: bool | str = False,
    ) -> list[np.ndarray | None]:
        """The gap head's ordinal logits for pairs whose gaps are given rather than segmented:
        ``(reference, hypothesis, [(ref_span, hyp_span), ...])`` character spans per gap (e.g. a
        record's own gaps). One ``(n_gaps, K)`` float64 array per item, in input order, from the
        same exact-length batches as :meth:`score` (so independent of batching); None for an
        item whose marked input exceeds ``max_length`` (never truncated or windowed here).
        ``progress``: a progress bar, labelled "sitar score" or by the str given."""
        if not self.gap_aware:
            raise InputError(f"checkpoint {self.config.name!r} has no gap head (gap-marked input)")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        encs = self.encoder.encode_marked(items)
        fits = [k for k, enc in enumerate(encs) if len(enc) <= self.max_length]
        outputs = self._run([encs[k] for k in fits], batch_size=batch_size, progress=progress)
        out: list[np.ndarray | None] = [None] * len(encs)
        for k, o in zip(fits, outputs, strict=True):
            out[k] = o.gap_logits
        return out

    # -- head "pair" ---------------------------------------------------------------------------------

    def _analyze_pair(
        self, refs: list[str], hyps: list[str], batch_size: int, progress: bool
    ) -> tuple[PairAnalysis, ...]:
        n = len(refs)
        identical = [_norms(r) == _norms(h) for r, h in zip(refs, hyps, strict=True)]
        marked = self.gap_aware  # a gap-aware model reads marked input with either head
        todo = [i for i in range(n) if not identical[i]]
        segs: dict[int, Segmentation] = {}
        if marked:
            segs = self._segment({i: (refs[i], hyps[i]) for i in todo})
            full = self.encoder.encode_marked([_marked_item(segs[i]) for i in todo])
        else:
            full = self.encoder.encode([refs[i] for i in todo], [hyps[i] for i in todo])
        jobs: list[EncodedPair] = []
        owner: list[tuple[int, int]] = []  # (pair, unit) of each job
        n_units = [0] * n
        n_windows = [0] * n
        windowed = [False] * n
        for i, enc in zip(todo, full, strict=True):
            if len(enc) <= self.max_length:
                n_units[i] = n_windows[i] = 1
                jobs.append(enc)
                owner.append((i, 0))
                continue
            windowed[i] = True
            if marked:
                units = self._marked_windows(segs[i])
                for u, unit in enumerate(units):
                    for window in unit:
                        n_windows[i] += 1
                        jobs.append(window.encoded)
                        owner.append((i, u))
                n_units[i] = len(units)
                continue
            plan = _Windower(self._fits, self.analyzer).plan(refs[i], hyps[i])
            n_units[i] = len(plan)
            for u, pieces in enumerate(plan):
                for r, h in pieces:
                    n_windows[i] += 1
                    if _norms(r) == _norms(h):
                        continue  # an unchanged piece of a split gap: raw 0 without the model
                    jobs.append(self.encoder.encode([r], [h])[0])
                    owner.append((i, u))
        outputs = self._run(jobs, batch_size=batch_size, progress=progress)
        scale = self.config.score_scale
        unit_raw: list[list[float]] = [[0.0] * n_units[i] for i in range(n)]
        for (i, u), out in zip(owner, outputs, strict=True):
            # Pieces of one oversized gap are one gap: it takes the maximum piece score.
            unit_raw[i][u] = max(unit_raw[i][u], min(max(out.score, 0.0), scale))
        return tuple(
            PairAnalysis(
                raw=combine_window_scores(unit_raw[i], rho=self.config.rho, scale=scale)
                if n_units[i]
                else 0.0,
                identical=identical[i],
                windowed=windowed[i],
                n_windows=n_windows[i],
                segmentation=segs.get(i),
                gaps=None,
            )
            for i in range(n)
        )

    # -- head "gaps" -----------------------------------------------------------------------------------

    def _analyze_gaps(
        self, refs: list[str], hyps: list[str], batch_size: int, progress: bool
    ) -> tuple[PairAnalysis, ...]:
        from sitar.gapscore import (
            aggregate,
            decoded_steps,
            predict_gaps,
            segmentation_extent,
            severity_extent_fraction,
            tie_fraction,
        )

        n = len(refs)
        identical = [_norms(r) == _norms(h) for r, h in zip(refs, hyps, strict=True)]
        todo = [i for i in range(n) if not identical[i]]
        segs = self._segment({i: (refs[i], hyps[i]) for i in todo})
        full = self.encoder.encode_marked([_marked_item(segs[i]) for i in todo])
        jobs: list[_Window] = []
        owner: list[int] = []
        windowed = [False] * n
        n_windows = [0] * n
        for i, enc in zip(todo, full, strict=True):
            if len(enc) <= self.max_length:
                jobs.append(_Window(enc, tuple(range(len(segs[i].gaps)))))
                owner.append(i)
                n_windows[i] = 1
                continue
            windowed[i] = True
            for unit in self._marked_windows(segs[i]):
                for window in unit:
                    jobs.append(window)
                    owner.append(i)
                    n_windows[i] += 1
        outputs = self._run([w.encoded for w in jobs], batch_size=batch_size, progress=progress)
        expected: dict[int, list[float]] = {i: [0.0] * len(segs[i].gaps) for i in todo}
        seen: dict[int, list[bool]] = {i: [False] * len(segs[i].gaps) for i in todo}
        per_pair: dict[int, list[tuple[_Window, _Output]]] = {i: [] for i in todo}
        for i, window, out in zip(owner, jobs, outputs, strict=True):
            if out.gap_logits is None or out.gap_logits.shape[0] != len(window.gap_ids):
                raise CheckpointError(
                    f"the {self.backend} predictor returned no per-gap logits for a gap-marked "
                    "input; the checkpoint's graph has no gap head"
                )
            e = decoded_steps(out.gap_logits, self.decode)  # (G_window,)
            for k, gap_id in enumerate(window.gap_ids):
                # Pieces of one oversized gap are one gap: its highest piece counts.
                if not seen[i][gap_id] or e[k] > expected[i][gap_id]:
                    expected[i][gap_id] = float(e[k])
                    seen[i][gap_id] = True
            per_pair[i].append((window, out))
        results = []
        rho = self.config.rho
        for i in range(n):
            if identical[i]:
                results.append(PairAnalysis(0.0, True, False, 0, None, ()))
                continue
            for k, gap in enumerate(segs[i].gaps):
                # Sides that differ only in variation selectors read the same: a T0 gap by rule.
                if _norms(gap.ref_text) == _norms(gap.hyp_text):
                    expected[i][k] = 0.0
            gaps = tuple(predict_gaps(expected[i]))
            u = 0.0
            if self.tie_breaker == 3:
                u = severity_extent_fraction(gaps, extent=segmentation_extent(segs[i]))
            else:
                top = max(g.step for g in gaps)
                for window, out in per_pair[i]:
                    # The tie-breaker comes from a window holding a gap at the top position.
                    if any(gaps[k].step == top for k in window.gap_ids):
                        window_gaps = [gaps[k] for k in window.gap_ids]
                        u = max(u, tie_fraction(window_gaps, pair_raw=out.score, rho=rho))
            raw = aggregate(gaps, u=u, rho=rho)[0]
            results.append(PairAnalysis(raw, False, windowed[i], n_windows[i], segs[i], gaps))
        return tuple(results)

    # -- shared ---------------------------------------------------------------------------------------

    def _segment(self, pairs: dict[int, tuple[str, str]]) -> dict[int, Segmentation]:
        from sitar.cgd import segment

        return {i: segment(r, h, analyzer=self.analyzer) for i, (r, h) in pairs.items()}

    def _marked_windows(self, seg: Segmentation) -> list[list[_Window]]:
        """Gap-marked windows of one over-long pair; every gap lies in exactly one window (the
        pieces of an oversized gap each carry that gap)."""
        cache: dict[tuple[int, ...], EncodedPair] = {}

        def encode(ra: int, rb: int, ha: int, hb: int, first: int, last: int) -> EncodedPair:
            key = (ra, rb, ha, hb, first, last)
            if key not in cache:
                cache[key] = self.encoder.encode_marked(
                    [_window_item(seg, (ra, rb), (ha, hb), first, last)]
                )[0]
            return cache[key]

        def fits(ra: int, rb: int, ha: int, hb: int, first: int, last: int) -> bool:
            return len(encode(ra, rb, ha, hb, first, last)) <= self.max_length

        units = []
        for unit in plan_windows(seg, fits):
            units.append(
                [
                    _Window(encode(*r, *h, first, last), tuple(range(first, last + 1)))
                    for ((r, h), (first, last)) in unit
                ]
            )
        return units

    def _run(
        self, jobs: Sequence[EncodedPair], *, batch_size: int, progress: bool | str
    ) -> list[_Output]:
        """Model outputs of inputs that all fit, in input order.

        Inputs are grouped by their exact length, so a batch needs no padding and an input is
        always computed at its own width whatever its neighbours (batch invariance). (Padding to a
        multiple of 16 tokens, the first rule, was as invariant but 1.1x slower.)
        """
        out: list[_Output | None] = [None] * len(jobs)
        if not jobs:
            return []
        for enc in jobs:
            if len(enc) > self.max_length:
                raise InputError(
                    f"a model input of {len(enc)} tokens exceeds max_length {self.max_length}"
                )
        widths = [len(e) for e in jobs]
        by_width: dict[int, list[int]] = {}
        for k in sorted(range(len(jobs)), key=lambda k: (-widths[k], k)):
            by_width.setdefault(widths[k], []).append(k)
        bar = _progress_bar(len(jobs), progress) if progress else None
        names = tuple(self.predictor.input_names)
        try:
            for width, members in by_width.items():
                for start in range(0, len(members), batch_size):
                    idx = members[start : start + batch_size]
                    arrays = self.encoder.collate([jobs[k] for k in idx], names, width=width)
                    values = self.predictor.run_batch(arrays)
                    score = np.asarray(values.get("score"), dtype=np.float64).reshape(-1)
                    if score.shape[0] != len(idx):
                        raise CheckpointError(
                            f"the {self.backend} predictor returned {score.shape[0]} scores for "
                            f"a batch of {len(idx)} pairs"
                        )
                    if not np.all(np.isfinite(score)):
                        raise CheckpointError(
                            f"checkpoint {self.config.name!r} produced non-finite scores; the "
                            "model is broken"
                        )
                    gap_logits = values.get("gap_logits")
                    for row, k in enumerate(idx):
                        logits = None
                        if gap_logits is not None:
                            logits = np.asarray(gap_logits[row, : jobs[k].n_gaps], np.float64)
                        out[k] = _Output(float(score[row]), logits)
                    if bar is not None:
                        bar.update(len(idx))
        finally:
            if bar is not None:
                bar.close()
        return [o for o in out if o is not None]


@dataclass(frozen=True)
class _Output:
    score: float
    gap_logits: np.ndarray | None


@dataclass(frozen=True)
class _Window:
    """One gap-marked model input and the pair's gap indices it marks, in order."""

    encoded: EncodedPair
    gap_ids: tuple[int, ...]


@dataclass(frozen=True)
class PairAnalysis:
    """What scoring found for one pair (see :meth:`Scorer.analyze`).

    ``raw`` is the raw score (clipped to ``[0, 7/3]``); ``segmentation`` the pair's CGD
    segmentation (None for identical pairs, and for short pairs under a plain pair head);
    ``gaps`` one :class:`~sitar.gapscore.GapPrediction` per gap with the gap head, else None.
    """

    raw: float
    identical: bool
    windowed: bool
    n_windows: int
    segmentation: Segmentation | None
    gaps: tuple[GapPrediction, ...] | None


def _marked_item(
    seg: Segmentation,
) -> tuple[str, str, list[tuple[tuple[int, int], tuple[int, int]]]]:
    return seg.reference, seg.hypothesis, [(g.ref_span, g.hyp_span) for g in seg.gaps]


def _window_item(
    seg: Segmentation, ref: tuple[int, int], hyp: tuple[int, int], first: int, last: int
) -> tuple[str, str, list[tuple[tuple[int, int], tuple[int, int]]]]:
    """Texts of the token window ``ref``/``hyp`` and the spans of gaps ``first..last`` inside it.

    A window that is one piece of an oversized gap is marked as that gap whole.
    """
    r_text = _span(seg.reference, seg.ref_tokens, *ref)
    h_text = _span(seg.hypothesis, seg.hyp_tokens, *hyp)
    r0 = seg.ref_tokens[ref[0]].start if ref[0] < ref[1] else 0
    h0 = seg.hyp_tokens[hyp[0]].start if hyp[0] < hyp[1] else 0
    gaps = seg.gaps[first : last + 1]

    def inside(a: int, b: int, lo: int, hi: int) -> bool:
        return lo <= a and b <= hi

    if first == last and not (
        inside(*gaps[0].ref_tokens, *ref) and inside(*gaps[0].hyp_tokens, *hyp)
    ):
        return r_text, h_text, [((0, len(r_text)), (0, len(h_text)))]

    def shift(span: tuple[int, int], offset: int, size: int) -> tuple[int, int]:
        return (min(max(span[0] - offset, 0), size), min(max(span[1] - offset, 0), size))

    return (
        r_text,
        h_text,
        [(shift(g.ref_span, r0, len(r_text)), shift(g.hyp_span, h0, len(h_text))) for g in gaps],
    )


def _progress_bar(total: int, label: bool | str = True) -> Any:
    try:
        from tqdm import tqdm
    except ImportError as e:
        raise MissingDependencyError("tqdm", "the progress bar") from e
    desc = label if isinstance(label, str) else "sitar score"
    return tqdm(total=total, unit="pair", desc=desc, leave=False)


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
