"""``sitar report``: one self-contained HTML file to see where and how badly systems distort.

The page is rendered from Jinja2 templates shipped in ``sitar/templates/`` (``report.html.j2``,
with ``report.css`` and ``report.js`` inlined) with autoescaping on, so every text that reaches
the markup (title, system and group names, ids, the signature) is escaped by the template engine;
only the inline CSS and JS, the JSON data block and the SVG plots are marked safe. The file needs
no network: the plots are inline SVG rendered offline with matplotlib (``Figure`` objects, no
pyplot and no global backend switch) and hold no user text (legends and captions are HTML). It
holds:

* the system comparison (mean score with bootstrap CI, meaning-critical rate, WER, pairwise
  p-values and win probabilities) when a :class:`~sitar.comparison.Comparison` is given;
* the score distributions of all systems, the estimated gap tiers, and one figure per system
  with its score distribution (T1 and T2 bands shaded) and, when per-utterance ``swer`` values
  are given, their distribution. Score bins are the seven severity positions of SPEC §5
  (:func:`sitar.report_plots.score_bins`), so no bin straddles a band edge;
* a sortable, filterable table of all (utterance, system) rows, worst first, where the reference
  and hypothesis show their gaps highlighted and coloured by estimated tier; hovering a gap shows
  its single-gap score (:data:`GAP_SCORE_LABEL`), estimated tier and texts. Ids sort in natural
  order (:func:`sitar.report_plots.natural_key`: ``u2`` before ``u10``).

Scale: the data are embedded once as JSON (``<script type="application/json">``) and JavaScript
renders only the visible page (:data:`PAGE_SIZE` rows); sorting and filtering run over the whole
data set in the browser. Texts are inserted with ``textContent`` (never as HTML), and character
offsets are code points on both sides (Python ``str`` and JS ``Array.from``). The output is
deterministic: the same inputs give the same bytes (no timestamps; SVG ids are salted with a
constant).
"""

from __future__ import annotations

import functools
import json
import math
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitar.errors import InputError, MissingDependencyError
from sitar.report_plots import (
    band_edges,
    figures,
    fraction_label,
    import_matplotlib,
    natural_key,
)

if TYPE_CHECKING:
    from sitar.comparison import Comparison
    from sitar.diagnostics import Explanation

__all__ = [
    "GAP_SCORE_LABEL",
    "PAGE_SIZE",
    "REPORT_VERSION",
    "build_report",
    "render_report",
    "write_report",
]

#: Rows rendered per page of the utterance table.
PAGE_SIZE = 50
#: Version of the report layout and its embedded data format (2: ``id_rank``, optional row ``swer``).
REPORT_VERSION = "2"
#: What the hover and the legend call a gap's number, for both explain methods: the normalised
#: score of the hypothesis with that gap alone (rescored by the model, or SPEC §5 applied to the
#: gap head's predicted position).
GAP_SCORE_LABEL = "single-gap score"

_TEMPLATE = "report.html.j2"


def _round(x: float | None, digits: int = 4) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, digits)


# -- data ----------------------------------------------------------------------------------------------


def _check_per_utterance(
    values: Mapping[str, Sequence[float]] | None, names: Sequence[str], n: int, what: str
) -> dict[str, list[float]] | None:
    """``values[name][i]`` for every system and utterance: finite numbers >= 0, else InputError."""
    if values is None:
        return None
    if set(values) != set(names):
        raise InputError(
            f"{what} must have one entry per system: got {sorted(values)}, expected {sorted(names)}"
        )
    out: dict[str, list[float]] = {}
    for name in names:
        column = list(values[name])
        if len(column) != n:
            raise InputError(f"{what}[{name!r}] has {len(column)} values for {n} ids")
        for i, v in enumerate(column):
            if (
                isinstance(v, bool)
                or not isinstance(v, numbers.Real)
                or not math.isfinite(v)
                or v < 0
            ):
                raise InputError(f"{what}[{name!r}][{i}] must be a finite number >= 0, got {v!r}")
        out[name] = [float(v) for v in column]
    return out


def _report_data(
    *,
    ids: Sequence[str],
    explanations: Mapping[str, Sequence[Explanation]],
    utterance_wer: Mapping[str, Sequence[float]] | None,
    utterance_swer: Mapping[str, Sequence[float]] | None,
    comparison: Comparison | None,
    title: str,
    page_size: int,
) -> dict[str, Any]:
    names = list(explanations)
    n = len(ids)
    refs = [explanations[names[0]][i].reference for i in range(n)]
    rows = []
    for s, name in enumerate(names):
        wers = utterance_wer.get(name) if utterance_wer else None
        swers = utterance_swer[name] if utterance_swer is not None else None
        for i, e in enumerate(explanations[name]):
            gaps = [
                [*g.gap.ref_span, *g.gap.hyp_span, round(g.score, 4), g.tier, g.direction]
                for g in e.gaps
            ]
            wer = _round(float(wers[i]), 4) if wers is not None else None
            row = [i, s, round(e.score, 4), e.hypothesis, gaps, wer]
            if swers is not None:  # only then: 20,000 rows x ",null" would be 100 kB for nothing
                row.append(_round(swers[i], 4))
            rows.append(row)
    signature = (
        comparison.signature
        if comparison is not None
        else next((e.signature for name in names for e in explanations[name]), "")
    )
    from sitar._version import __version__
    from sitar.diagnostics import MEANING_CRITICAL_THRESHOLD, TIER_RULE

    # The explanations' own rule and method (same-pass gap head or single-gap rescoring).
    first = next((e for name in names for e in explanations[name]), None)
    tier_rule = first.tier_rule if first is not None else TIER_RULE
    method = first.method if first is not None else None
    order = sorted(range(n), key=lambda i: natural_key(ids[i]))
    id_rank = [0] * n
    for rank, i in enumerate(order):
        id_rank[i] = rank

    return {
        "meta": {
            "title": title,
            "report_version": REPORT_VERSION,
            "sitar_version": __version__,
            "signature": signature,
            "tier_rule": tier_rule,
            "explain_method": method,
            "meaning_critical_threshold": MEANING_CRITICAL_THRESHOLD,
            "gap_score_label": GAP_SCORE_LABEL,
            "has_swer": utterance_swer is not None,
            "systems": names,
            "n_utterances": n,
            "page_size": page_size,
        },
        "ids": list(ids),
        # id_rank[i]: rank of ids[i] in natural order (natural_key); the table sorts ids by it.
        "id_rank": id_rank,
        "refs": refs,
        # Row: [utterance index, system index, score, hypothesis,
        #       gaps [[ref_start, ref_end, hyp_start, hyp_end, score, tier, direction]], WER,
        #       swer (only when meta.has_swer)]
        "rows": rows,
        "comparison": comparison.to_dict() if comparison is not None else None,
    }


def _tier_legend(meta: Mapping[str, Any]) -> str:
    """How the report's gap tiers were obtained (same-pass gap head, or single-gap rescoring).

    Plain text: the template escapes it. Both methods name the hover's number by
    :data:`GAP_SCORE_LABEL`."""
    rule = meta["tier_rule"]
    t1, t2 = (fraction_label(x) for x in band_edges())
    if meta.get("explain_method") == "gaps":
        return (
            f"Hover a gap for its {GAP_SCORE_LABEL}: the SPEC §5 score of its predicted position "
            "alone; tier and direction come from the gap head of the scoring pass itself "
            f"(rule {rule})."
        )
    return (
        f"Hover a gap for its {GAP_SCORE_LABEL}: the model's score of the hypothesis with only "
        f"that gap. Estimated tier from it: T0 < {t1} ≤ T1 < {t2} ≤ T2 (rule {rule})."
    )


def _embed_json(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # Inside <script> the sequences "</" and "<!--" must not appear; JSON escapes keep it valid.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _format_number(x: float | None, spec: str = ".4f") -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


@functools.lru_cache(maxsize=2)
def _environment(autoescape: bool = True) -> Any:
    """The Jinja2 environment over ``sitar/templates/`` (autoescape on; tests turn it off once
    to show that the injection checks would catch it)."""
    try:
        import jinja2
    except ImportError as e:
        raise MissingDependencyError("jinja2", "the HTML report's templates", "report") from e
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("sitar", "templates"),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["fmt"] = _format_number
    return env


def _asset(env: Any, name: str) -> Any:
    """A shipped file as safe markup, read through the template loader without rendering it."""
    from markupsafe import Markup

    source, _, _ = env.loader.get_source(env, name)
    return Markup(source)


def render_report(
    *,
    ids: Sequence[str],
    explanations: Mapping[str, Sequence[Explanation]],
    comparison: Comparison | None = None,
    utterance_wer: Mapping[str, Sequence[float]] | None = None,
    utterance_swer: Mapping[str, Sequence[float]] | None = None,
    title: str = "SITAR report",
    page_size: int = PAGE_SIZE,
) -> str:
    """The report as one HTML string.

    ``explanations[name][i]`` explains utterance ``ids[i]`` for system ``name`` (all systems on
    the same references, in the same order); ``comparison`` adds the statistics section;
    ``utterance_wer[name][i]`` adds a per-utterance WER column; ``utterance_swer[name][i]``
    (finite, >= 0, one list per system) adds a ``swer`` column and the ``swer`` distribution to
    each system's figure.
    """
    names = list(explanations)
    if not names:
        raise InputError("render_report needs at least one system's explanations")
    n = len(ids)
    for name in names:
        if len(explanations[name]) != n:
            raise InputError(
                f"system {name!r} has {len(explanations[name])} explanations for {n} ids"
            )
        for i, e in enumerate(explanations[name]):
            if e.reference != explanations[names[0]][i].reference:
                raise InputError(
                    f"system {name!r}, utterance {ids[i]!r}: the reference differs from system "
                    f"{names[0]!r}; all systems must be explained on the same references"
                )
    if isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1:
        raise InputError(f"page_size must be a positive integer, got {page_size!r}")
    swer = _check_per_utterance(utterance_swer, names, n, "utterance_swer")
    env = _environment()  # first, so that a missing jinja2 is reported before any work
    data = _report_data(
        ids=ids,
        explanations=explanations,
        utterance_wer=utterance_wer,
        utterance_swer=swer,
        comparison=comparison,
        title=title,
        page_size=page_size,
    )
    scores = {name: [e.score for e in explanations[name]] for name in names}
    tiers = {name: [0, 0, 0] for name in names}
    for name in names:
        for e in explanations[name]:
            for g in e.gaps:
                tiers[name][g.tier] += 1
    from markupsafe import Markup

    columns = [
        ("order", "#"),
        ("id", "id"),
        ("system", "system"),
        ("score", "score"),
        ("gaps", "gaps"),
        ("maxgap", "max gap"),
        ("wer", "WER"),
        *([("swer", "swer")] if swer is not None else []),
        ("", "reference"),
        ("", "hypothesis"),
    ]
    t1, t2 = band_edges()
    return env.get_template(_TEMPLATE).render(
        title=title,
        meta=data["meta"],
        comparison=comparison,
        bands={"t1_label": fraction_label(t1), "t2_label": fraction_label(t2)},
        figures=[{**f, "svg": Markup(f["svg"])} for f in figures(names, scores, tiers, swer)],
        tier_legend=_tier_legend(data["meta"]),
        columns=columns,
        css=_asset(env, "report.css"),
        js=_asset(env, "report.js"),
        data_json=Markup(_embed_json(data)),
    )


def build_report(
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
    title: str = "SITAR report",
    analyzer: Any = None,
    signature: str | None = None,
    progress: bool = False,
    method: str = "auto",
) -> str:
    """Score, explain and compare systems, then render the report (see :func:`render_report`).

    One :func:`~sitar.diagnostics.explain_many` call covers every system's pairs (``analyzer``
    and ``method`` as there: with a gap-aware scorer the gap tiers come from the scoring pass
    itself; ``method="rescore"`` adds every single-gap hypothesis to the call instead); the
    comparison reuses those pair scores.
    """
    from sitar.comparison import compare_scores, join_by_id, word_error_counts
    from sitar.diagnostics import explain_many

    # A missing template engine or plotting library stops the run before any scoring.
    _environment()
    import_matplotlib()
    ids, joined = join_by_id(references, systems)
    names = list(joined)
    if not names:
        raise InputError("build_report needs at least one system")
    refs = [references[u] for u in references]
    n = len(ids)
    explained = explain_many(
        source,
        references=refs * len(names),
        hypotheses=[h for k in names for h in joined[k]],
        analyzer=analyzer,
        batch_size=batch_size,
        signature=signature,
        method=method,
        progress=progress,
    )
    per_system = {k: explained[s * n : (s + 1) * n] for s, k in enumerate(names)}
    word_errors = None
    utterance_wer = None
    if wer:
        word_errors = {k: word_error_counts(references=refs, hypotheses=joined[k]) for k in names}
        utterance_wer = {
            k: [
                (float(e) / float(w)) if w else (math.nan if e else 0.0)
                for e, w in zip(*word_errors[k], strict=True)
            ]
            for k in names
        }
    # swer needs the scoring pass's own per-gap tiers (a gap head): with rescored tiers it would
    # not be the scorer's swer, so the report leaves it out then.
    swer_parts = utterance_swer = None
    if explained and all(e.method == "gaps" for e in explained):
        import numpy as np

        from sitar.swer import SWER_DEFAULT, explanation_swer, pair_value

        params = getattr(source, "swer_params", SWER_DEFAULT)  # the scorer's, for its checkpoint
        parts = {k: [explanation_swer(e, params) for e in per_system[k]] for k in names}
        swer_parts = {
            k: (np.array([p[0] for p in v]), np.array([p[1] for p in v])) for k, v in parts.items()
        }
        utterance_swer = {k: [pair_value(*p) for p in v] for k, v in parts.items()}
    comparison = compare_scores(
        {k: [e.score for e in per_system[k]] for k in names},
        ids=ids,
        groups=groups,
        word_errors=word_errors,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
        signature=explained[0].signature if explained else (signature or ""),
        swer_parts=swer_parts,
    )
    return render_report(
        ids=ids,
        explanations=per_system,
        comparison=comparison,
        utterance_wer=utterance_wer,
        utterance_swer=utterance_swer,
        title=title,
    )


def write_report(path: str | Path, report_html: str) -> Path:
    """Write the report as UTF-8 and return its path.

    The file is written atomically (:func:`sitar.io.open_output`): a failure (full disk, Ctrl-C)
    leaves no partial report and an existing file untouched.
    """
    from sitar.io import open_output

    with open_output(path, flag="report path") as out:
        out.write(report_html)
    return Path(path)
