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

Batch invariance: a pair's score does not depend on its batch neighbours, the batch size or the
input order (exact-length batches, :mod:`sitar.batches`; dynamic int8 graphs are not
batch-invariant, see the README).

Three rules decide what reaches the model:

* **Identical pairs.** A pair whose SPEC §1 normalised token sequences are equal has no gaps, so its
  score is exactly 0 (SPEC §5) and the model is not called for it.
* **Length-bucketed batches.** Model inputs are grouped by exact token length (no padding) and
  results come back in input order (:func:`sitar.batches.run_exact_length`).
* **Long pairs are windowed, never truncated** (:mod:`sitar.windows`, strategy version
  :data:`~sitar.windows.WINDOWING_VERSION`): a pair longer than the checkpoint's ``max_length`` is
  cut inside matched token runs so that every gap lies in exactly one window; windowed pairs are
  marked in :attr:`ScoreResult.windowed`.

What a scorer computes is decided by its :class:`~sitar.options.ScorerOptions` (the input of the
signature); the checkpoint is resolved by :func:`sitar.checkpoint.resolve_checkpoint`, and the
system score is :func:`sitar.result.system_score`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sitar import checkpoint as _checkpoint
from sitar import windows as _windows
from sitar.batches import BatchPredictor, ModelOutput, run_exact_length
from sitar.checkpoint import CheckpointConfig
from sitar.errors import CheckpointError, InputError, MissingDependencyError
from sitar.options import HEADS, ScorerOptions, default_normal_form, default_normalization
from sitar.result import AGGREGATION, ScoreResult, system_score
from sitar.swer import checkpoint_swer_params, pair_length, pair_swer
from sitar.targets import normalize_score
from sitar.validation import check_pairs
from sitar.windows import MarkedWindow, Spans, Windower, marked_item, norms

if TYPE_CHECKING:
    from sitar.analyzers import Analyzer
    from sitar.diagnostics import Explanation
    from sitar.encoding import EncodedPair
    from sitar.gaps import Segmentation
    from sitar.gapscore import GapPrediction

__all__ = [
    "AGGREGATION",
    "HEADS",
    "PairAnalysis",
    "ScoreResult",
    "Scorer",
    "ScorerOptions",
]

#: Names that moved out of this module: still importable from here, with a DeprecationWarning.
_MOVED = {
    "WINDOWING_VERSION": ("sitar.windows", _windows.WINDOWING_VERSION),
    "combine_window_scores": ("sitar.windows", _windows.combine_window_scores),
    "plan_windows": ("sitar.windows", _windows.plan_windows),
    "resolve_checkpoint": ("sitar.checkpoint", _checkpoint.resolve_checkpoint),
}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        home, value = _MOVED[name]
        warnings.warn(
            f"sitar.scorer.{name} moved to {home}.{name}; import it from there "
            "(the old name goes away in a later release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return value
    raise AttributeError(f"module 'sitar.scorer' has no attribute {name!r}")


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
        predictor: BatchPredictor,
        *,
        backend: str = "onnx",
        variant: str | None = None,
        analyzer: str | Analyzer | None = None,
        head: str | None = None,
        tie_breaker: int | None = None,
        decode: str | None = None,
        normalize: str | None = None,
    ) -> None:
        for attr in ("run_batch", "input_names"):
            if not hasattr(predictor, attr):
                raise InputError(
                    f"predictor must have run_batch(arrays) and input_names (as "
                    f"sitar.runtime.OnnxPredictor); {type(predictor).__name__} has no {attr!r}"
                )
        #: What this scorer computes (checked here: a known head, tie-breaker, decoding rule);
        #: :meth:`load` replaces it with the full options it was loaded from.
        self.options = ScorerOptions(
            backend=backend,
            variant=variant,
            analyzer=analyzer,
            head=head,
            tie_breaker=tie_breaker,
            decode=decode,
            normalize=normalize,
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
        #: The gap head's T1/T2 cut on the expected step (:func:`sitar.gapscore.calibrate_steps`):
        #: the checkpoint's ``scoring.t2_cut``, else 4.5 (``cut:`` in the signature otherwise).
        self.t2_cut = self._resolve_t2_cut()
        #: ``sitar`` or ``none`` (:data:`sitar.options.NORMALIZATIONS`); None means the form the
        #: checkpoint was trained on (:func:`default_normalization`).
        self.normalize = normalize if normalize is not None else default_normalization(config)
        #: The normal form ``normalize='sitar'`` writes: the one the checkpoint was trained on
        #: (:func:`default_normal_form`; ``"2"`` with rule 11's boundary marks, ``"3"`` without).
        self.normal_form = default_normal_form(config)
        #: ``swer``'s T1 weight and extent for this checkpoint (:mod:`sitar.swer`).
        self.swer_params = checkpoint_swer_params(config)
        self._signature: str | None = None

    # Values are checked by ScorerOptions; what is left needs the checkpoint (has it a gap head?).

    def _resolve_decode(self, rule: str | None) -> str:
        from sitar.gapscore import DEFAULT_DECODE

        if rule is None:
            from sitar.options import default_decode

            return default_decode(self.config) if self.head == "gaps" else DEFAULT_DECODE
        if self.head != "gaps":
            raise InputError("decode applies to the gap head (head='gaps') only")
        return rule

    def _resolve_t2_cut(self) -> float:
        from sitar.gapscore import DEFAULT_T2_CUT, check_decode_cut
        from sitar.options import checkpoint_t2_cut

        cut = checkpoint_t2_cut(self.config) if self.head == "gaps" else DEFAULT_T2_CUT
        check_decode_cut(self.decode, cut)  # at load, not first at scoring
        return cut

    def _resolve_tie_breaker(self, version: int | None) -> int:
        from sitar.gapscore import TIE_BREAK_VERSION

        if version is None:
            return TIE_BREAK_VERSION
        if self.head != "gaps":
            raise InputError("tie_breaker applies to the gap head (head='gaps') only")
        return int(version)

    def _resolve_head(self, head: str | None) -> str:
        if head is None:
            head = default_head(self.config, gap_aware=self.gap_aware)
        if head == "gaps" and not self.gap_aware:
            raise InputError(
                f"checkpoint {self.config.name!r} has no gap head (it reads unmarked pairs); "
                "use head='pair'"
            )
        return head

    @classmethod
    def load(
        cls,
        path_or_hub_id: str | os.PathLike[str] | ScorerOptions | None = None,
        *,
        backend: str | None = None,
        variant: str | None = None,
        threads: int | None = None,
        device: str | None = None,
        revision: str | None = None,
        analyzer: str | Analyzer | None = None,
        head: str | None = None,
        tie_breaker: int | None = None,
        decode: str | None = None,
        normalize: str | None = None,
        allow_unverified: bool | None = None,
    ) -> Scorer:
        """Load a scorer from :class:`~sitar.options.ScorerOptions`, or from the same options as
        keywords: ``Scorer.load(options)`` equals ``Scorer.load(options.checkpoint, **rest)``.

        The checkpoint is a local folder, a Hugging Face repo id (``revision`` optional;
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
        (default, or the checkpoint's ``scoring.decode``), ``"median"`` or ``"tier"``
        (:func:`sitar.gapscore.decoded_steps`; ``dec:median``/``dec:tier`` in the
        signature). ``normalize`` is ``"sitar"`` (both sides through :mod:`sitar.normalize`
        before CGD and the model; ``norm:`` in the signature) or ``"none"`` (the text as given);
        default: the form the checkpoint was trained on (:func:`default_normalization`). A
        checkpoint whose digests do not vouch for it (:mod:`sitar.integrity`) is a
        :class:`~sitar.errors.CheckpointError` unless ``allow_unverified`` is True, and then a
        warning.
        """
        keywords: dict[str, Any] = {
            "backend": backend,
            "variant": variant,
            "threads": threads,
            "device": device,
            "revision": revision,
            "analyzer": analyzer,
            "head": head,
            "tie_breaker": tie_breaker,
            "decode": decode,
            "normalize": normalize,
            "allow_unverified": allow_unverified,
        }
        if isinstance(path_or_hub_id, ScorerOptions):
            given = sorted(k for k, v in keywords.items() if v is not None)
            if given:
                raise InputError(
                    f"pass either ScorerOptions or keywords, not both (got options and {given}); "
                    "use options.replace(...) to change a field"
                )
            options = path_or_hub_id
        else:
            keywords["backend"] = backend if backend is not None else "onnx"
            keywords["allow_unverified"] = bool(allow_unverified)
            options = ScorerOptions(checkpoint=path_or_hub_id, **keywords)
        return cls.from_options(options)

    @classmethod
    def from_options(cls, options: ScorerOptions) -> Scorer:
        """The scorer :meth:`load` builds for ``options``."""
        if not isinstance(options, ScorerOptions):
            raise InputError(f"options must be a ScorerOptions, got {type(options).__name__}")
        o = options
        folder = _checkpoint.resolve_checkpoint(
            o.checkpoint, revision=o.revision, include_torch=o.backend == "torch"
        )
        config = CheckpointConfig.load(folder)
        from sitar.integrity import require_verified

        require_verified(config, allow_unverified=o.allow_unverified)
        head_options: dict[str, Any] = {
            "analyzer": o.analyzer,
            "head": o.head,
            "tie_breaker": o.tie_breaker,
            "decode": o.decode,
            "normalize": o.normalize,
        }
        if o.backend == "onnx":
            from sitar.runtime import OnnxPredictor

            onnx_predictor = OnnxPredictor(config, variant=o.variant, threads=o.threads)
            scorer = cls(
                config,
                onnx_predictor,
                backend="onnx",
                variant=onnx_predictor.variant,
                **head_options,
            )
        else:
            try:
                from sitar.modeling import TorchPredictor
            except ImportError as e:
                raise MissingDependencyError("torch", "the torch backend", "torch") from e
            if o.threads is not None:
                import torch

                torch.set_num_threads(o.threads)
            scorer = cls(
                config, TorchPredictor(folder, device=o.device), backend="torch", **head_options
            )
        scorer.options = options
        return scorer

    @property
    def max_length(self) -> int:
        return self.config.max_length

    @property
    def signature(self) -> str:
        """SPEC §9 signature of scores from this scorer (analyzer, rho, checkpoint, backend,
        head, windowing and, for gap-marked input, the marking version, plus ``feat:`` the closeness
        feature version when the gap head reads them). With the torch backend
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
            if getattr(self.encoder, "closeness", False):
                from sitar.closeness import CLOSENESS_VERSION

                # The gap head also reads the spans' closeness features (sitar.closeness).
                extra["feat"] = CLOSENESS_VERSION
            if self.head == "gaps":
                extra["tb"] = str(self.tie_breaker)
                from sitar.gapscore import DEFAULT_DECODE

                if self.decode != DEFAULT_DECODE:
                    extra["dec"] = self.decode
                from sitar.gapscore import DEFAULT_T2_CUT

                if self.t2_cut != DEFAULT_T2_CUT:
                    extra["cut"] = f"{self.t2_cut:g}"
            extra["win"] = _windows.WINDOWING_VERSION
            if self.normalize == "sitar":
                from sitar.normalize import normalizer_id

                extra["norm"] = normalizer_id(self.normal_form)
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
        return Windower(self._fits, self.analyzer).plan(reference, hypothesis)

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
        system = system_score(scores)
        parts = [a.swer for a in analyses]
        swer: dict[str, Any] = {}
        if self.head == "gaps" and all(p is not None for p in parts):
            swer = {
                "swer_numerators": tuple(p[0] for p in parts if p is not None),
                "swer_lengths": tuple(p[1] for p in parts if p is not None),
                "swer_version": self.swer_params.version,
            }
        return ScoreResult(
            scores=scores,
            raw=tuple(raw),
            windowed=tuple(a.windowed for a in analyses),
            identical=tuple(a.identical for a in analyses),
            n_windows=tuple(a.n_windows for a in analyses),
            system_score=system,
            aggregation=AGGREGATION,
            signature=self.signature,
            **swer,
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
        refs, hyps = self.prepare(references, hypotheses)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        if self.head == "gaps":
            return self._analyze_gaps(refs, hyps, batch_size, progress)
        return self._analyze_pair(refs, hyps, batch_size, progress)

    def prepare(
        self, references: Sequence[str], hypotheses: Sequence[str]
    ) -> tuple[list[str], list[str]]:
        """The checked texts as the model and CGD see them: as given (``normalize='none'``) or
        both sides in the canonical form of :func:`sitar.normalize.normalize_pair`, in the
        checkpoint's normal form (:attr:`normal_form`)."""
        refs, hyps = _check_inputs(references, hypotheses)
        if self.normalize == "sitar":
            from sitar.normalize import normalize_pair

            form = self.normal_form
            pairs = [
                normalize_pair(r, h, version=form).texts for r, h in zip(refs, hyps, strict=True)
            ]
            refs, hyps = [p[0] for p in pairs], [p[1] for p in pairs]
        return refs, hyps

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
        identical = [norms(r) == norms(h) for r, h in zip(refs, hyps, strict=True)]
        marked = self.gap_aware  # a gap-aware model reads marked input with either head
        todo = [i for i in range(n) if not identical[i]]
        segs: dict[int, Segmentation] = {}
        if marked:
            segs = self._segment({i: (refs[i], hyps[i]) for i in todo})
            full = self.encoder.encode_marked([marked_item(segs[i]) for i in todo])
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
            plan = Windower(self._fits, self.analyzer).plan(refs[i], hyps[i])
            n_units[i] = len(plan)
            for u, pieces in enumerate(plan):
                for r, h in pieces:
                    n_windows[i] += 1
                    if norms(r) == norms(h):
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
                raw=_windows.combine_window_scores(unit_raw[i], rho=self.config.rho, scale=scale)
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
        identical = [norms(r) == norms(h) for r, h in zip(refs, hyps, strict=True)]
        todo = [i for i in range(n) if not identical[i]]
        segs = self._segment({i: (refs[i], hyps[i]) for i in todo})
        full = self.encoder.encode_marked([marked_item(segs[i]) for i in todo])
        jobs: list[MarkedWindow] = []
        owner: list[int] = []
        windowed = [False] * n
        n_windows = [0] * n
        for i, enc in zip(todo, full, strict=True):
            if len(enc) <= self.max_length:
                jobs.append(MarkedWindow(enc, tuple(range(len(segs[i].gaps)))))
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
        per_pair: dict[int, list[tuple[MarkedWindow, ModelOutput]]] = {i: [] for i in todo}
        for i, window, out in zip(owner, jobs, outputs, strict=True):
            if out.gap_logits is None or out.gap_logits.shape[0] != len(window.gap_ids):
                raise CheckpointError(
                    f"the {self.backend} predictor returned no per-gap logits for a gap-marked "
                    "input; the checkpoint's graph has no gap head"
                )
            e = decoded_steps(out.gap_logits, self.decode, self.t2_cut)  # (G_window,)
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
                length = pair_length(norms(refs[i]), self.swer_params.extent)
                results.append(PairAnalysis(0.0, True, False, 0, None, (), (0.0, length)))
                continue
            for k, gap in enumerate(segs[i].gaps):
                # Sides that differ only in variation selectors read the same: a T0 gap by rule.
                if norms(gap.ref_text) == norms(gap.hyp_text):
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
            swer = pair_swer(segs[i], [g.tier for g in gaps], self.swer_params)
            results.append(PairAnalysis(raw, False, windowed[i], n_windows[i], segs[i], gaps, swer))
        return tuple(results)

    # -- shared ---------------------------------------------------------------------------------------

    def _segment(self, pairs: dict[int, tuple[str, str]]) -> dict[int, Segmentation]:
        from sitar.cgd import segment

        return {i: segment(r, h, analyzer=self.analyzer) for i, (r, h) in pairs.items()}

    def _marked_windows(self, seg: Segmentation) -> list[list[MarkedWindow]]:
        """Gap-marked windows of one over-long pair (:func:`sitar.windows.marked_windows`)."""
        return _windows.marked_windows(
            seg, lambda item: self.encoder.encode_marked([item])[0], self.max_length
        )

    def _run(
        self, jobs: Sequence[EncodedPair], *, batch_size: int, progress: bool | str
    ) -> list[ModelOutput]:
        """Model outputs of inputs that all fit, in input order, from exact-length batches
        (:func:`sitar.batches.run_exact_length`: batch invariance)."""
        return run_exact_length(
            jobs,
            encoder=self.encoder,
            predictor=self.predictor,
            batch_size=batch_size,
            max_length=self.max_length,
            progress=progress,
            backend=self.backend,
            model_name=self.config.name,
        )


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
    #: ``(numerator, length)`` of the pair's ``swer`` (:func:`sitar.swer.pair_swer`) with the gap
    #: head, else None.
    swer: tuple[float, float] | None = None


def _check_inputs(
    references: Sequence[str], hypotheses: Sequence[str]
) -> tuple[list[str], list[str]]:
    # The one text check (sitar.validation), shared with the CLI and `sitar serve`.
    return check_pairs(references, hypotheses)
