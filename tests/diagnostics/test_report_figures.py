"""The report's bins, id order, gap-score label, per-system figures (with a second distribution,
``swer``) and its template dependency."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import sys
from fractions import Fraction

import pytest

from sitar.errors import InputError, MissingDependencyError

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

_DATA = re.compile(r"<script type='application/json' id='sitar-data'>(.*?)</script>", re.S)


def _data(page: str) -> dict:
    (payload,) = _DATA.findall(page)
    return json.loads(payload)


@pytest.fixture
def explained(fake_predict):
    from sitar.diagnostics import explain_many

    refs = ["do not send it", "call the bank", "pay the bill today", "a b"]
    hyps = ["do send it", "call a bank", "pay the bill today", "a b c"]
    return explain_many(fake_predict, references=refs, hypotheses=hyps)


# -- bins ----------------------------------------------------------------------------------------


def test_score_bins_are_the_positions_and_align_with_the_bands():
    from sitar.diagnostics import MEANING_CRITICAL_THRESHOLD, estimate_tier
    from sitar.report_plots import band_edges, score_bins

    bins = score_bins()
    assert [Fraction(b.lo).limit_denominator(100) for b in bins] == [
        Fraction(k, 7) for k in range(7)
    ]
    assert bins[-1].hi == 1.0 and all(a.hi == b.lo for a, b in itertools.pairwise(bins))
    assert [b.label for b in bins] == ["T0", "T0→T1", "T1→T0", "T1", "T1→T2", "T2→T1", "T2"]
    t1, t2 = band_edges()
    assert t2 == MEANING_CRITICAL_THRESHOLD and t1 == pytest.approx(2 / 7)
    edges = {b.lo for b in bins}
    assert t1 in edges and t2 in edges
    for b in bins:  # no bin straddles a band edge: each lies in one estimated tier
        assert not (b.lo < t1 < b.hi) and not (b.lo < t2 < b.hi)
        mid = (b.lo + b.hi) / 2
        assert estimate_tier(b.lo) == estimate_tier(mid) == (b.tier, b.direction)


def test_score_histogram_counts_band_edge_scores_in_the_upper_band():
    from sitar.diagnostics import meaning_critical_rate
    from sitar.report_plots import score_histogram
    from sitar.targets import T2_BAND_RAW, normalize_score, score_from_tiers

    edge = normalize_score(T2_BAND_RAW)  # raw 5/3 after division: just below 5/7 in floats
    assert score_histogram([edge]) == [0, 0, 0, 0, 0, 1, 0]
    # The old bins (i / 20) put 0.70 and 5/7 into one bin [0.70, 0.75); these do not.
    assert score_histogram([0.70, edge]) == [0, 0, 0, 0, 1, 1, 0]
    scores = [
        normalize_score(score_from_tiers(tiers, [0] * len(tiers)))
        for tiers in ([], [0], [1], [2], [0, 1], [1, 1], [1, 2], [2, 2, 0])
    ] + [edge, 1.0, 0.0]
    counts = score_histogram(scores)
    assert sum(counts) == len(scores)
    assert sum(counts[5:]) == round(meaning_critical_rate(scores) * len(scores))


def test_swer_histogram():
    from sitar.report_plots import swer_histogram

    edges, counts, above = swer_histogram([0.0, 0.05, 0.1, 0.99, 1.0, 1.5, 3.0])
    assert edges[0] == 0.0 and edges[-1] == 1.0 and len(counts) == len(edges) - 1 == 10
    assert counts[0] == 2 and counts[1] == 1 and counts[-1] == 2 and sum(counts) == 5
    assert above == 2


# -- ids -----------------------------------------------------------------------------------------


def test_natural_key():
    from sitar.report_plots import natural_key

    ids = ["u10", "u2", "u1", "a", "u02", "U3", "u1b", "u1a", "10", "9", "x" + "7" * 5000]
    assert sorted(ids, key=natural_key) == [
        "9", "10", "U3", "a", "u1", "u1a", "u1b", "u02", "u2", "u10", "x" + "7" * 5000,
    ]  # fmt: skip
    assert sorted(["x100", "x20", "x3"], key=natural_key) == ["x3", "x20", "x100"]


def test_report_ranks_ids_in_natural_order(explained):
    from sitar.report import render_report

    page = render_report(ids=["u10", "u2", "u1", "u9"], explanations={"S": explained})
    assert _data(page)["id_rank"] == [3, 1, 0, 2]


# -- label ---------------------------------------------------------------------------------------


def test_one_label_for_the_gap_score_in_legend_and_hover(explained):
    from sitar.report import GAP_SCORE_LABEL, render_report

    for method in ("rescore", "gaps"):
        ex = [dataclasses.replace(e, method=method) for e in explained]
        page = render_report(ids=["1", "2", "3", "4"], explanations={"S": ex})
        legend = re.search(r"<p class='legend'>(.*?)</p>", page, re.S).group(1)
        assert f"Hover a gap for its {GAP_SCORE_LABEL}" in legend, method
        assert "for its predicted position" not in legend
        assert _data(page)["meta"]["gap_score_label"] == GAP_SCORE_LABEL
    # The hover builds its text from that one label (no second literal in the script).
    assert "meta.gap_score_label" in page and "single-gap score" not in page.split("<script>")[-1]


# -- per-system figures and the second distribution ----------------------------------------------


def test_per_system_figures_with_and_without_swer(explained):
    from sitar.report import render_report

    ids = ["1", "2", "3", "4"]
    plain = render_report(ids=ids, explanations={"A": explained, "B": explained})
    assert plain.count("<svg") == 4 and "swer per utterance" not in plain
    assert plain.count("T2 band</text>") == 3 and plain.count("T1 band</text>") == 3
    data = _data(plain)
    assert data["meta"]["has_swer"] is False and {len(r) for r in data["rows"]} == {6}
    assert "data-key='swer'" not in plain

    swer = {"A": [0.0, 0.25, 1.0, 2.5], "B": [0.1, 0.0, 0.0, 0.0]}
    page = render_report(
        ids=ids, explanations={"A": explained, "B": explained}, utterance_swer=swer
    )
    assert page.count("<svg") == 4 and page.count("swer per utterance") == 2
    assert "<figcaption>Scores and swer of system B</figcaption>" in page
    data = _data(page)
    assert data["meta"]["has_swer"] is True and "data-key='swer'" in page
    rows = {(data["meta"]["systems"][r[1]], r[0]): r[6] for r in data["rows"]}
    assert rows[("A", 3)] == 2.5 and rows[("B", 0)] == 0.1


@pytest.mark.parametrize(
    ("swer", "match"),
    [
        ({"A": [0.0, 0.0, 0.0, 0.0]}, "one entry per system"),
        ({"A": [0.0] * 4, "B": [0.0] * 4, "C": [0.0] * 4}, "one entry per system"),
        ({"A": [0.0] * 4, "B": [0.0] * 3}, r"\['B'\] has 3 values for 4 ids"),
        ({"A": [0.0] * 4, "B": [0.0, float("nan"), 0.0, 0.0]}, r"\['B'\]\[1\] must be a finite"),
        ({"A": [0.0] * 4, "B": [0.0, 0.0, -0.5, 0.0]}, r"must be a finite number >= 0"),
        ({"A": [0.0] * 4, "B": [0.0, 0.0, 0.0, True]}, r"got True"),
        ({"A": [0.0] * 4, "B": [0.0, "0.1", 0.0, 0.0]}, r"got '0.1'"),
    ],
)
def test_swer_input_errors(explained, swer, match):
    from sitar.report import render_report

    with pytest.raises(InputError, match=match):
        render_report(
            ids=["1", "2", "3", "4"],
            explanations={"A": explained, "B": explained},
            utterance_swer=swer,
        )


# -- the template dependency ---------------------------------------------------------------------


@pytest.mark.parametrize("missing", ["jinja2", "matplotlib"])
def test_report_needs_its_extra_before_any_scoring(monkeypatch, explained, fake_predict, missing):
    import sitar.report as report

    report._environment.cache_clear()
    monkeypatch.setitem(sys.modules, missing, None)
    if missing == "matplotlib":
        monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    calls = len(fake_predict.calls)
    try:
        with pytest.raises(MissingDependencyError, match=rf"'{missing}'.*sitar\[report\]"):
            report.render_report(ids=["1", "2", "3", "4"], explanations={"S": explained})
        with pytest.raises(MissingDependencyError, match=rf"'{missing}'.*sitar\[report\]"):
            report.build_report(fake_predict, references={"u": "a b"}, systems={"S": {"u": "a"}})
        assert len(fake_predict.calls) == calls  # nothing was scored
    finally:
        report._environment.cache_clear()


def test_templates_ship_inside_the_package():
    """The loader reads sitar/templates/ from the package (pyproject's package-data ships it)."""
    tomllib = pytest.importorskip("tomllib")
    from pathlib import Path

    import sitar
    from sitar.report import _environment

    env = _environment()
    folder = Path(sitar.__file__).parent / "templates"
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(env.list_templates()) == ["report.css", "report.html.j2", "report.js"]
    pyproject = Path(sitar.__file__).parents[1] / "pyproject.toml"
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    assert "templates/*" in config["tool"]["setuptools"]["package-data"]["sitar"]
    extra = config["project"]["optional-dependencies"]["report"]
    assert any(re.fullmatch(r"jinja2>=\d+(\.\d+)*", d) for d in extra), extra


_SORT_PROBE = """
  function col(cls) {
    return Array.prototype.map.call(
      document.querySelectorAll('#utts-body td.' + cls), function (td) { return td.textContent; });
  }
  var byId = document.querySelector('#utts th[data-key="id"]');
  byId.click(); var asc = col('id');
  byId.click(); var desc = col('id');
  var bySwer = document.querySelector('#utts th[data-key="swer"]');
  bySwer.click(); var swer = col('swer');
  var mark = document.querySelector('#utts-body mark.gap');
  return {asc: asc, desc: desc, swer: swer, hover: mark ? mark.title : null};
"""


def test_natural_sort_swer_column_and_hover_in_headless_chromium(fake_predict, browser_probe):
    from sitar.diagnostics import explain_many
    from sitar.report import GAP_SCORE_LABEL, render_report

    ids = ["u10", "u2", "u1", "u9", "u100"]
    ex = explain_many(
        fake_predict,
        references=["call the bank"] * len(ids),
        hypotheses=["call the bank", "call a bank", "call the bank", "call the bank now", "x"],
    )
    ex = [dataclasses.replace(e, method="gaps") for e in ex]
    page = render_report(
        ids=ids, explanations={"S": ex}, utterance_swer={"S": [0.5, 0.0, 1.25, 0.1, 3.0]}
    )
    res = browser_probe(page, _SORT_PROBE)
    assert res["errors"] == [] and res["alerts"] == []
    assert res["asc"] == ["u1", "u2", "u9", "u10", "u100"]
    assert res["desc"] == ["u100", "u10", "u9", "u2", "u1"]
    assert res["swer"] == ["3.000", "1.250", "0.500", "0.100", "0.000"]
    assert res["hover"] is not None and f"\n{GAP_SCORE_LABEL} 0." in res["hover"]
