"""Figures and bins of the HTML report (:mod:`sitar.report`): matplotlib, offline, inline SVG.

Score histograms are binned by the seven severity positions of SPEC §5 (:func:`score_bins`): a
pair's raw score lies in ``[β, β + 1/3)`` of its most severe gap's position ``β``, so the band
edges of the estimated tier (:func:`band_edges`: T1 from 2/7, T2 from 5/7) are bin edges and no
bin straddles one. Each system gets one figure with its score distribution and the T1 and T2
bands shaded, plus the distribution of a second per-utterance value (``swer``) when it is given.
The figures hold no user text (system names go to HTML captions and legends, which the template
escapes), and ``Figure`` objects are used directly: no pyplot, no global backend switch.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sitar.errors import MissingDependencyError

__all__ = [
    "ScoreBin",
    "band_edges",
    "figures",
    "fraction_label",
    "import_matplotlib",
    "natural_key",
    "score_bins",
    "score_histogram",
    "swer_histogram",
]

_TIER_COLOURS = ("#f2d64b", "#f08a24", "#d62728")  # T0, T1, T2 (also used by report.css)
_BAND_ALPHA = 0.2  # shading of the T1 and T2 bands (report.css: .swatch.band1/.band2, 0x33)
SYSTEM_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")
#: swer histogram: bins of this width over [0, 1], and one more bar for values above 1.
_SWER_BIN = 0.1


# -- ids, bands and bins -----------------------------------------------------------------------------

_DIGITS = re.compile(r"([0-9]+)")


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key for ids in natural order: digit runs compare as numbers (``u2 < u10``), the text
    between them as text (case-sensitive: ``U3 < u2``); equal keys fall back to the text itself
    (``u02 < u2``), so the order is total.

    Digit runs compare by their length without leading zeros, then as text: never through
    ``int``, so an id with thousands of digits is neither slow nor refused.

    >>> sorted(["u10", "u2", "u1", "a", "u02"], key=natural_key)
    ['a', 'u1', 'u02', 'u2', 'u10']
    """
    parts = _DIGITS.split(text)
    key: list[Any] = []
    for k, part in enumerate(parts):
        if k % 2:  # odd positions are digit runs
            digits = part.lstrip("0")
            key.append((len(digits), digits))
        else:
            key.append(part)
    return (tuple(key), text)


def band_edges() -> tuple[float, float]:
    """Normalised lower edges of the T1 and T2 bands of the estimated tier (``TIER_RULE``).

    T1 starts at the position of a T0 -> T1 boundary case seen from T1, ``1 - 1/3`` (raw 2/3,
    normalised 2/7); T2 at :data:`~sitar.diagnostics.MEANING_CRITICAL_THRESHOLD` (raw 5/3,
    normalised 5/7), where a gap or pair is meaning-critical.
    """
    from sitar.diagnostics import MEANING_CRITICAL_THRESHOLD
    from sitar.targets import MAX_SCORE, severity_position

    return severity_position(1, -1) / MAX_SCORE, MEANING_CRITICAL_THRESHOLD


@dataclass(frozen=True)
class ScoreBin:
    """One histogram bin: the normalised interval ``[lo, hi)`` of one SPEC §5 position."""

    lo: float
    hi: float
    tier: int
    direction: int

    @property
    def label(self) -> str:
        """``T1`` for a nominal position, ``T1→T2`` for a boundary case (SPEC §5 notation)."""
        if self.direction == 0:
            return f"T{self.tier}"
        return f"T{self.tier}→T{self.tier + self.direction}"


@functools.lru_cache(maxsize=1)
def score_bins() -> tuple[ScoreBin, ...]:
    """The seven score bins, one per severity position, in order.

    A pair's raw score lies in ``[β, β + 1/3)`` where ``β`` is its most severe gap's position
    (SPEC §5), so binning by position puts every score in the bin of that gap, and the band edges
    of :func:`band_edges` are bin edges. :func:`score_histogram` assigns scores to bins by
    ``estimate_tier``, the rule the report's gap tiers use.
    """
    from sitar.targets import MAX_SCORE, TIERS, severity_position

    starts = [
        (severity_position(tier, direction) / MAX_SCORE, tier, direction)
        for tier in TIERS
        for direction in (-1, 0, 1)
        # no boundary case below T0 nor above T2 (SPEC §5)
        if (tier, direction) not in ((TIERS[0], -1), (TIERS[-1], 1))
    ]
    ends = [lo for lo, _, _ in starts[1:]] + [1.0]
    return tuple(
        ScoreBin(lo, hi, tier, direction)
        for (lo, tier, direction), hi in zip(starts, ends, strict=True)
    )


def score_histogram(scores: Sequence[float]) -> list[int]:
    """Counts of ``scores`` (normalised) per bin of :func:`score_bins`.

    A score's bin is its position by ``estimate_tier`` (floor of ``3 * raw`` with a float
    tolerance), so a raw 5/3 that division left at 0.71428...42 still counts in the T2 band, as
    it does for the meaning-critical rate.
    """
    from sitar.diagnostics import estimate_tier

    index = {(b.tier, b.direction): k for k, b in enumerate(score_bins())}
    counts = [0] * len(index)
    for s in scores:
        counts[index[estimate_tier(s)]] += 1
    return counts


def fraction_label(x: float) -> str:
    f = Fraction(x).limit_denominator(100)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


# -- plots ---------------------------------------------------------------------------------------------


def import_matplotlib() -> Any:
    """``(matplotlib, Figure)``, or MissingDependencyError naming the ``report`` extra."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as e:
        raise MissingDependencyError("matplotlib", "the HTML report's plots", "report") from e
    return matplotlib, Figure


def _svg(fig: Any, matplotlib: Any) -> str:
    buf = io.StringIO()
    # A constant hash salt and no date make the SVG bytes reproducible; text stays text (small).
    with matplotlib.rc_context({"svg.hashsalt": "sitar-report", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    text = text[text.index("<svg") :]  # drop the XML prolog and DOCTYPE for inline use
    # The RDF metadata block (creator, format) is dead weight inside an HTML page.
    start, end = text.find("<metadata>"), text.find("</metadata>")
    if 0 <= start < end:
        text = text[:start] + text[end + len("</metadata>") :]
    return text


def _shade_bands(ax: Any) -> None:
    """The T1 and T2 bands as shaded spans with their names (no user text)."""
    t1, t2 = band_edges()
    for lo, hi, name, colour in (
        (t1, t2, "T1 band", _TIER_COLOURS[1]),
        (t2, 1.0, "T2 band", _TIER_COLOURS[2]),
    ):
        ax.axvspan(lo, hi, color=colour, alpha=_BAND_ALPHA, linewidth=0, zorder=0)
        ax.text(
            lo + 0.01,
            0.97,
            name,
            transform=ax.get_xaxis_transform(),
            va="top",
            fontsize=8,
            color=colour,
        )


def _score_axis(ax: Any) -> None:
    bins = score_bins()
    edges = [b.lo for b in bins] + [bins[-1].hi]
    ax.set_xlim(0, 1)
    ax.set_xticks(edges, [fraction_label(e) for e in edges])
    ax.set_xlabel("normalised SITAR score (lower is better); bins = severity positions")


def _figure_scores(
    figure_cls: Any, names: Sequence[str], scores: Mapping[str, Sequence[float]]
) -> Any:
    bins = score_bins()
    edges = [b.lo for b in bins] + [bins[-1].hi]
    fig = figure_cls(figsize=(7.0, 3.2))
    ax = fig.add_subplot(1, 1, 1)
    _shade_bands(ax)
    for k, name in enumerate(names):
        ax.stairs(
            score_histogram(scores[name]),
            edges,
            linewidth=1.6,
            color=SYSTEM_COLOURS[k % len(SYSTEM_COLOURS)],
        )
    _score_axis(ax)
    ax.set_ylabel("utterances")
    return fig


def _figure_tiers(figure_cls: Any, names: Sequence[str], tiers: Mapping[str, Sequence[int]]) -> Any:
    fig = figure_cls(figsize=(7.0, 2.8))
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        xs = [t + (k - (len(names) - 1) / 2) * width for t in range(3)]
        ax.bar(xs, tiers[name], width=width, color=SYSTEM_COLOURS[k % len(SYSTEM_COLOURS)])
    ax.set_xticks([0, 1, 2], ["T0 (expression)", "T1 (uptake)", "T2 (outcome)"])
    ax.set_ylabel("gaps")
    return fig


def swer_histogram(values: Sequence[float]) -> tuple[list[float], list[int], int]:
    """``(edges, counts, above)``: bins of width 0.1 over ``[0, 1]`` (the last one closed) and the
    number of values above 1 (``swer``, like WER, is not bounded by 1)."""
    n_bins = round(1.0 / _SWER_BIN)
    edges = [k / n_bins for k in range(n_bins + 1)]
    counts = [0] * n_bins
    above = 0
    for v in values:
        if v > 1.0:
            above += 1
        else:
            counts[min(int(v * n_bins), n_bins - 1)] += 1
    return edges, counts, above


def _figure_system(
    figure_cls: Any, colour: str, scores: Sequence[float], swer: Sequence[float] | None
) -> Any:
    bins = score_bins()
    fig = figure_cls(figsize=(7.0, 2.6) if swer is None else (10.0, 2.6))
    ax = fig.add_subplot(1, 1 if swer is None else 2, 1)
    _shade_bands(ax)
    ax.bar(
        [b.lo for b in bins],
        score_histogram(scores),
        width=[b.hi - b.lo for b in bins],
        align="edge",
        color=colour,
        edgecolor="white",
        linewidth=0.8,
    )
    _score_axis(ax)
    ax.set_ylabel("utterances")
    ax.set_title("score", fontsize=9)
    if swer is not None:
        ax2 = fig.add_subplot(1, 2, 2)
        edges, counts, above = swer_histogram(swer)
        ax2.bar(
            edges[:-1],
            counts,
            width=_SWER_BIN,
            align="edge",
            color=colour,
            edgecolor="white",
            linewidth=0.8,
        )
        # Values above 1 (insertions): one hatched bar, set apart from the [0, 1] bins.
        ax2.bar(
            [1.0 + _SWER_BIN / 2],
            [above],
            width=_SWER_BIN,
            align="edge",
            color=colour,
            hatch="//",
            edgecolor="white",
        )
        ax2.set_xticks([*edges[::2], 1.0 + _SWER_BIN], [*(f"{e:g}" for e in edges[::2]), "> 1"])
        ax2.set_xlim(0, 1.0 + 2 * _SWER_BIN)
        ax2.set_xlabel("swer per utterance (lower is better)")
        ax2.set_title("swer", fontsize=9)
    return fig


def figures(
    names: Sequence[str],
    scores: Mapping[str, Sequence[float]],
    tiers: Mapping[str, Sequence[int]],
    swer: Mapping[str, Sequence[float]] | None,
) -> list[dict[str, Any]]:
    """The report's figures as dicts: ``kind``, ``caption`` and ``legend`` (``(name, colour)``
    pairs), which the template escapes, and ``svg``, inline SVG text that holds no user text
    (matplotlib escapes its own XML). ``swer[name]``, when given, adds that system's per-utterance
    ``swer`` distribution to its figure."""
    matplotlib, figure_cls = import_matplotlib()

    colours = {name: SYSTEM_COLOURS[k % len(SYSTEM_COLOURS)] for k, name in enumerate(names)}
    legend = [(name, colours[name]) for name in names]
    out = [
        {
            "kind": "scores",
            "caption": "Score distribution per system",
            "legend": legend,
            "svg": _figure_scores(figure_cls, names, scores),
        },
        {
            "kind": "tiers",
            "caption": "Estimated gap tiers per system",
            "legend": legend,
            "svg": _figure_tiers(figure_cls, names, tiers),
        },
    ]
    for name in names:
        what = "Scores and swer" if swer is not None else "Scores"
        out.append(
            {
                "kind": "system",
                "caption": f"{what} of system {name}",
                "legend": [],
                "svg": _figure_system(
                    figure_cls,
                    colours[name],
                    scores[name],
                    swer[name] if swer is not None else None,
                ),
            }
        )
    for fig in out:
        fig["svg"] = _svg(fig["svg"], matplotlib)
    return out
