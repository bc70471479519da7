"""``compute(predictions=, references=, **options)``: SITAR as a metric function.

The shape of Hugging Face ``evaluate``'s and jiwer's metric calls: lists of hypotheses
(``predictions``) and references in, a plain dict out::

    {"score": 0.529, "scores": [...], "swer": 0.143, "swers": [...],
     "swer_version": "swer-1:t1=0.6,ext=words", "signature": "sitar:0.1.0|..."}

``score`` is the system score (:func:`sitar.result.system_score`, the macro mean of the per-pair
``scores``; the ``#system`` line of ``sitar score``), ``swer`` the corpus ``swer`` (micro, as
WER's; only with a gap head, else the three ``swer`` keys are absent), ``swers`` each pair's.
With several references per utterance (a list of lists) the result also has ``chosen_reference``.

``options`` are :class:`~sitar.options.ScorerOptions` fields (``checkpoint``, ``normalize``,
``threads``, ...), checked by it, so an unknown or bad option is an :class:`~sitar.errors.
InputError` before any model is loaded. Loaded scorers are kept in a small LRU cache keyed by the
frozen options (:func:`load_scorer`), so calling :func:`compute` once per evaluation step does not
reload the model. The ``evaluate`` script (``integrations/hf_evaluate/sitar/``) and the
torchmetrics metric (:mod:`sitar.integrations.torchmetrics`) are thin wrappers over this module.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sitar import validation
from sitar.errors import InputError
from sitar.options import ScorerOptions

if TYPE_CHECKING:
    from sitar.result import ScoreResult
    from sitar.scorer import Scorer

__all__ = [
    "CACHE_SIZE",
    "check_texts",
    "clear_cache",
    "compute",
    "load_scorer",
    "result_dict",
    "score_references",
]

#: How many loaded scorers :func:`load_scorer` keeps (least recently used first out).
CACHE_SIZE = 4

_cache: OrderedDict[ScorerOptions, Scorer] = OrderedDict()
_lock = threading.Lock()


def load_scorer(**options: Any) -> Scorer:
    """The :class:`~sitar.scorer.Scorer` of these :class:`~sitar.options.ScorerOptions` fields,
    loaded once and then reused (an LRU cache of :data:`CACHE_SIZE` scorers keyed by the options).

    Options that cannot be a cache key (an unhashable analyzer object) load a fresh scorer.
    A checkpoint folder changed on disk after loading is not noticed: :func:`clear_cache`.
    """
    built = ScorerOptions.from_dict(options)  # unknown or bad options: InputError
    from sitar.scorer import Scorer

    try:
        hash(built)
    except TypeError:
        return Scorer.load(built)
    with _lock:
        scorer = _cache.get(built)
        if scorer is not None:
            _cache.move_to_end(built)
            return scorer
    scorer = Scorer.load(built)  # outside the lock: loading takes a while
    with _lock:
        _cache[built] = scorer
        _cache.move_to_end(built)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return scorer


def clear_cache() -> None:
    """Forget every scorer :func:`load_scorer` keeps."""
    with _lock:
        _cache.clear()


def check_texts(predictions: Any, references: Any) -> tuple[list[str], list[str]]:
    """``predictions`` and ``references`` as lists of valid texts of the same length, or an
    :class:`~sitar.errors.InputError` that names the argument (and item) at fault: the shared
    text check (:func:`sitar.validation.check_texts`) under this API's argument names."""
    preds = validation.check_texts("predictions", predictions)
    refs = validation.check_texts("references", references)
    if len(preds) != len(refs):
        raise InputError(
            "predictions and references must have the same length, got "
            f"{len(preds)} predictions and {len(refs)} references"
        )
    return preds, refs


def result_dict(result: ScoreResult) -> dict[str, Any]:
    """The dict :func:`compute` returns for a :class:`~sitar.result.ScoreResult` (plain floats;
    ``nan`` for the corpus values of zero pairs)."""
    out: dict[str, Any] = {"score": result.system_score, "scores": list(result.scores)}
    swers = result.swer
    if swers is not None:
        out["swer"] = result.system_swer
        out["swers"] = list(swers)
        out["swer_version"] = result.swer_version
    out["signature"] = result.signature
    return out


def compute(
    *,
    predictions: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    batch_size: int = 32,
    **options: Any,
) -> dict[str, Any]:
    """Score ``predictions`` (hypotheses) against ``references``, pair by pair.

    ``options`` are :class:`~sitar.options.ScorerOptions` fields (e.g. ``checkpoint=``,
    ``normalize="sitar"``, ``threads=2``); ``batch_size`` is the model batch size (it never
    changes a score). Returns ``score`` (system), ``scores`` (per pair), ``swer`` and ``swers``
    with ``swer_version`` (gap head only) and ``signature``: see the module docstring.

    ``references`` may give several candidates per utterance (``[["a", "b"], ["c"]]``): each
    prediction then scores against its closest reference (:mod:`sitar.multiref`: lowest score,
    then lowest ``swer``, then the first given), the corpus values are over the chosen pairs, and
    ``chosen_reference`` lists each chosen index (0-based).

    >>> compute(predictions=["turn right"], references=["turn left"])["score"]  # doctest: +SKIP
    0.72...
    """
    scorer = load_scorer(**options)
    result, chosen = score_references(
        scorer, predictions=predictions, references=references, batch_size=batch_size
    )
    out = result_dict(result)
    if chosen is not None:
        out["chosen_reference"] = list(chosen)
    return out


def score_references(
    scorer: Scorer,
    *,
    predictions: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    batch_size: int = 32,
) -> tuple[ScoreResult, tuple[int, ...] | None]:
    """The one scoring path of :func:`compute` and the metric wrappers (the torchmetrics metric):
    ``references`` one str per prediction, or (any item a list) candidate lists, of which each
    prediction keeps its closest (:func:`sitar.multiref.score_multi`). Returns the (chosen)
    pairs' :class:`~sitar.result.ScoreResult` and the chosen 0-based indices (``None`` with one
    reference per prediction)."""
    if _has_lists(references):
        from sitar.multiref import check_reference_lists, score_multi

        preds = validation.check_texts("predictions", predictions)
        lists = check_reference_lists(references, len(preds))
        multi = score_multi(scorer, references=lists, hypotheses=preds, batch_size=batch_size)
        return multi.result, multi.chosen
    preds, refs = check_texts(predictions, references)
    return scorer.score(references=refs, hypotheses=preds, batch_size=batch_size), None


def _has_lists(references: Any) -> bool:
    """Whether ``references`` gives several candidates per utterance (any item a list)."""
    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
        return False
    return any(isinstance(r, Sequence) and not isinstance(r, (str, bytes)) for r in references)
