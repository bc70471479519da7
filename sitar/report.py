"""``sitar report``: one self-contained HTML file to see where and how badly systems distort.

The file needs no network: CSS and JavaScript are inline and the plots are inline SVG rendered
offline with matplotlib (``Figure`` objects, no pyplot and no global backend switch). It holds:

* the system comparison (mean score with bootstrap CI, meaning-critical rate, WER, pairwise
  p-values and win probabilities) when a :class:`~sitar.comparison.Comparison` is given;
* per-system distributions of the normalised scores and of the estimated gap tiers (plots);
* a sortable, filterable table of all (utterance, system) rows, worst first, where the reference
  and hypothesis show their gaps highlighted and coloured by estimated tier; hovering a gap shows
  its single-gap score, estimated tier and texts.

Scale: the data are embedded once as JSON (``<script type="application/json">``) and JavaScript
renders only the visible page (:data:`PAGE_SIZE` rows); sorting and filtering run over the whole
data set in the browser. Texts are inserted with ``textContent`` (never as HTML), and character
offsets are code points on both sides (Python ``str`` and JS ``Array.from``). The output is
deterministic: the same inputs give the same bytes (no timestamps; SVG ids are salted with a
constant).
"""

from __future__ import annotations

import html
import io
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitar.errors import InputError, MissingDependencyError

if TYPE_CHECKING:
    from sitar.comparison import Comparison
    from sitar.diagnostics import Explanation

__all__ = ["PAGE_SIZE", "REPORT_VERSION", "build_report", "render_report", "write_report"]

#: Rows rendered per page of the utterance table.
PAGE_SIZE = 50
#: Version of the report layout and its embedded data format.
REPORT_VERSION = "1"

_TIER_COLOURS = ("#f2d64b", "#f08a24", "#d62728")  # T0, T1, T2 (also used by the CSS)
_SYSTEM_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def _round(x: float, digits: int = 4) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, digits)


# -- plots ---------------------------------------------------------------------------------------------


def _import_matplotlib() -> Any:
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


def _plots(names: Sequence[str], scores: Mapping[str, Sequence[float]], tiers: Any) -> list[str]:
    """Inline SVGs: score distributions per system, and estimated gap tiers per system."""
    matplotlib, figure_cls = _import_matplotlib()
    from sitar.diagnostics import MEANING_CRITICAL_THRESHOLD

    out = []
    fig = figure_cls(figsize=(7.0, 3.2))
    ax = fig.add_subplot(1, 1, 1)
    bins = [i / 20 for i in range(21)]
    for k, name in enumerate(names):
        ax.hist(
            list(scores[name]),
            bins=bins,
            histtype="step",
            linewidth=1.6,
            color=_SYSTEM_COLOURS[k % len(_SYSTEM_COLOURS)],
            label=name,
        )
    ax.axvline(MEANING_CRITICAL_THRESHOLD, color="#d62728", linestyle="--", linewidth=1)
    ax.text(
        MEANING_CRITICAL_THRESHOLD + 0.01,
        0.95,
        "T2 band",
        transform=ax.get_xaxis_transform(),
        va="top",
        fontsize=8,
        color="#d62728",
    )
    ax.set_xlim(0, 1)
    ax.set_xlabel("normalised SITAR score (lower is better)")
    ax.set_ylabel("utterances")
    ax.set_title("Score distribution per system")
    ax.legend(fontsize=8)
    out.append(_svg(fig, matplotlib))

    fig = figure_cls(figsize=(7.0, 2.8))
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        xs = [t + (k - (len(names) - 1) / 2) * width for t in range(3)]
        ax.bar(
            xs,
            tiers[name],
            width=width,
            color=_SYSTEM_COLOURS[k % len(_SYSTEM_COLOURS)],
            label=name,
        )
    ax.set_xticks([0, 1, 2], ["T0 (expression)", "T1 (uptake)", "T2 (outcome)"])
    ax.set_ylabel("gaps")
    ax.set_title("Estimated gap tiers per system")
    ax.legend(fontsize=8)
    out.append(_svg(fig, matplotlib))
    return out


# -- data ----------------------------------------------------------------------------------------------


def _report_data(
    *,
    ids: Sequence[str],
    explanations: Mapping[str, Sequence[Explanation]],
    utterance_wer: Mapping[str, Sequence[float]] | None,
    comparison: Comparison | None,
    title: str,
    page_size: int,
) -> dict[str, Any]:
    names = list(explanations)
    n = len(ids)
    refs: list[str] = []
    for i in range(n):
        refs.append(explanations[names[0]][i].reference)
    rows = []
    for s, name in enumerate(names):
        wers = utterance_wer.get(name) if utterance_wer else None
        for i, e in enumerate(explanations[name]):
            gaps = [
                [*g.gap.ref_span, *g.gap.hyp_span, round(g.score, 4), g.tier, g.direction]
                for g in e.gaps
            ]
            wer = _round(float(wers[i]), 4) if wers is not None else None
            rows.append([i, s, round(e.score, 4), e.hypothesis, gaps, wer])
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

    return {
        "meta": {
            "title": title,
            "report_version": REPORT_VERSION,
            "sitar_version": __version__,
            "signature": signature,
            "tier_rule": tier_rule,
            "explain_method": method,
            "meaning_critical_threshold": MEANING_CRITICAL_THRESHOLD,
            "systems": names,
            "n_utterances": n,
            "page_size": page_size,
        },
        "ids": list(ids),
        "refs": refs,
        # Row: [utterance index, system index, score, hypothesis,
        #       gaps [[ref_start, ref_end, hyp_start, hyp_end, score, tier, direction]], WER]
        "rows": rows,
        "comparison": comparison.to_dict() if comparison is not None else None,
    }


def _tier_legend(meta: Mapping[str, Any]) -> str:
    """How the report's gap tiers were obtained (same-pass gap head, or single-gap rescoring)."""
    rule = html.escape(str(meta["tier_rule"]))
    if meta.get("explain_method") == "gaps":
        return (
            "Hover a gap for its predicted position (the SPEC §5 score of that gap alone); tier "
            f"and direction come from the gap head of the scoring pass itself (rule {rule})."
        )
    return (
        "Hover a gap for its single-gap score. Estimated tier from the single-gap score: "
        f"T0 &lt; 2/7 ≤ T1 &lt; 5/7 ≤ T2 (rule {rule})."
    )


def _embed_json(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # Inside <script> the sequences "</" and "<!--" must not appear; JSON escapes keep it valid.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _summary_html(comparison: Comparison | None) -> str:
    if comparison is None:
        return ""
    pct = f"{comparison.confidence * 100:.4g}"
    e = html.escape

    def f(x: float | None, spec: str = ".4f") -> str:
        return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)

    rows = "".join(
        f"<tr><td>{e(s.name)}</td><td>{s.n}</td><td>{f(s.mean)}</td>"
        f"<td>[{f(s.ci[0])}, {f(s.ci[1])}]</td><td>{f(s.meaning_critical_rate, '.3f')}</td>"
        f"<td>{f(s.wer, '.3f')}</td></tr>"
        for s in comparison.systems
    )
    pairs = "".join(
        f"<tr><td>{e(p.a)} vs {e(p.b)}</td><td>{f(p.diff, '+.4f')}</td>"
        f"<td>[{f(p.diff_ci[0], '+.4f')}, {f(p.diff_ci[1], '+.4f')}]</td>"
        f"<td>{f(p.p_value)}</td><td>{f(p.win_a, '.3f')}</td><td>{f(p.win_b, '.3f')}</td>"
        f"<td>{f(p.ties, '.3f')}</td><td>{e(p.better or 'n.s.')}</td></tr>"
        for p in comparison.pairwise
    )
    groups = ""
    for g in comparison.groups:
        g_rows = "".join(
            f"<tr><td>{e(g.group)}</td><td>{e(s.name)}</td><td>{s.n}</td><td>{f(s.mean)}</td>"
            f"<td>[{f(s.ci[0])}, {f(s.ci[1])}]</td>"
            f"<td>{f(s.meaning_critical_rate, '.3f')}</td><td>{f(s.wer, '.3f')}</td></tr>"
            for s in g.systems
        )
        groups += g_rows
    group_table = (
        "<h3>Per group</h3><table class='stats grouped'><thead><tr><th>group</th><th>system</th>"
        f"<th>n</th><th>mean</th><th>{pct}% CI</th><th>MCR</th><th>WER</th></tr></thead>"
        f"<tbody>{groups}</tbody></table>"
        if groups
        else ""
    )
    pair_table = (
        "<h3>Pairwise</h3><table class='stats'><thead><tr><th>A vs B</th><th>mean(A) − mean(B)"
        f"</th><th>{pct}% CI</th><th>p</th><th>win A</th><th>win B</th><th>ties</th>"
        f"<th>better</th></tr></thead><tbody>{pairs}</tbody></table>"
        if pairs
        else ""
    )
    return (
        "<section id='summary'><h2>Systems</h2><table class='stats'><thead><tr><th>system</th>"
        f"<th>n</th><th>mean score</th><th>{pct}% CI</th><th>MCR</th><th>WER</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>{pair_table}{group_table}"
        f"<p class='note'>Paired bootstrap: {comparison.n_bootstrap} resamples, seed "
        f"{comparison.seed}; two-sided p; win = share of utterances scored strictly lower. "
        "MCR = meaning-critical rate (score ≥ 5/7, the T2 band). WER: "
        f"{e(comparison.wer_note)}. Lower is better everywhere.</p></section>"
    )


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em;color:#222;
  max-width:1400px}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:1.4em}
h3{font-size:1em}
code.sig{font-size:.8em;word-break:break-all;background:#f4f4f4;padding:2px 4px}
table{border-collapse:collapse} .stats td,.stats th{padding:3px 8px;border-bottom:1px solid #ddd;
  text-align:right} .stats td:first-child,.stats th:first-child{text-align:left}
.stats.grouped td:nth-child(2),.stats.grouped th:nth-child(2){text-align:left}
.note{font-size:.85em;color:#555}
.plots{display:flex;flex-wrap:wrap;gap:1em} .plots svg{max-width:100%;height:auto}
#controls{margin:.6em 0;display:flex;gap:.8em;align-items:center;flex-wrap:wrap}
#utts{width:100%;font-size:.9em} #utts th{background:#eee;cursor:pointer;user-select:none;
  padding:4px 6px;text-align:left;position:sticky;top:0}
#utts th[data-dir=asc]::after{content:' ▲'} #utts th[data-dir=desc]::after{content:' ▼'}
#utts td{padding:4px 6px;border-bottom:1px solid #e4e4e4;vertical-align:top}
#utts td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
#utts td.text{min-width:16em}
mark.gap{border-radius:3px;padding:0 2px;cursor:help}
mark.t0{background:#f2d64b66;border-bottom:2px solid #f2d64b}
mark.t1{background:#f08a2466;border-bottom:2px solid #f08a24}
mark.t2{background:#d6272855;border-bottom:2px solid #d62728}
mark.empty{padding:0 1px;font-weight:bold}
mark.gap:hover{outline:1px solid #333}
.legend mark{margin-right:.6em}
"""

_JS = r"""
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('sitar-data').textContent);
  var meta = data.meta, ids = data.ids, refs = data.refs, rows = data.rows;
  var PAGE = meta.page_size;
  var state = {key: 'score', dir: 'desc', system: -1, query: '', page: 0, view: null};
  var DIR_NAMES = {'-1': ' (boundary to T', '1': ' (boundary to T'};

  function keyOf(r, key) {
    if (key === 'score') { return r[2]; }
    if (key === 'id') { return ids[r[0]]; }
    if (key === 'system') { return meta.systems[r[1]]; }
    if (key === 'gaps') { return r[4].length; }
    if (key === 'maxgap') {
      var m = 0; for (var i = 0; i < r[4].length; i++) { if (r[4][i][4] > m) { m = r[4][i][4]; } }
      return m;
    }
    if (key === 'wer') { return r[5] === null ? -1 : r[5]; }
    if (key === 'order') { return r[0]; }
    return 0;
  }

  function compute() {
    var q = state.query.toLowerCase(), out = [];
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      if (state.system >= 0 && r[1] !== state.system) { continue; }
      if (q && ids[r[0]].toLowerCase().indexOf(q) < 0 && refs[r[0]].toLowerCase().indexOf(q) < 0
          && r[3].toLowerCase().indexOf(q) < 0) { continue; }
      out.push(i);
    }
    var key = state.key, sign = state.dir === 'asc' ? 1 : -1;
    out.sort(function (a, b) {
      var ka = keyOf(rows[a], key), kb = keyOf(rows[b], key);
      if (ka < kb) { return -sign; }
      if (ka > kb) { return sign; }
      return a - b;  // stable: input order breaks ties
    });
    state.view = out;
  }

  function tierText(g) {
    var t = 'T' + g[5];
    if (g[6] !== 0) { t += DIR_NAMES[String(g[6])] + (g[5] + g[6]) + ')'; }
    return t;
  }

  function highlighted(text, gaps, side, rowIdx) {
    // side 0: reference spans (g[0], g[1]); side 1: hypothesis spans (g[2], g[3]).
    var chars = Array.from(text), frag = document.createDocumentFragment(), pos = 0;
    var refText = Array.from(refs[rows[rowIdx][0]]), hypText = Array.from(rows[rowIdx][3]);
    for (var k = 0; k < gaps.length; k++) {
      var g = gaps[k], s = g[2 * side], e = g[2 * side + 1];
      if (s > pos) { frag.appendChild(document.createTextNode(chars.slice(pos, s).join(''))); }
      var m = document.createElement('mark');
      m.className = 'gap t' + g[5] + (s === e ? ' empty' : '');
      m.textContent = s === e ? '‸' : chars.slice(s, e).join('');
      var rt = refText.slice(g[0], g[1]).join(''), ht = hypText.slice(g[2], g[3]).join('');
      m.title = 'gap ' + k + ': "' + rt + '" → "' + ht + '"\nsingle-gap score ' +
        g[4].toFixed(4) + '\nestimated ' + tierText(g);
      m.setAttribute('data-gap', String(k));
      m.setAttribute('data-score', g[4].toFixed(4));
      frag.appendChild(m);
      pos = Math.max(pos, e);
    }
    if (pos < chars.length) { frag.appendChild(document.createTextNode(chars.slice(pos).join(''))); }
    return frag;
  }

  function cell(tr, cls, text) {
    var td = document.createElement('td');
    td.className = cls;
    if (text !== undefined) { td.textContent = text; }
    tr.appendChild(td);
    return td;
  }

  function render() {
    var body = document.getElementById('utts-body'), view = state.view;
    var pages = Math.max(1, Math.ceil(view.length / PAGE));
    if (state.page >= pages) { state.page = pages - 1; }
    var start = state.page * PAGE, stop = Math.min(view.length, start + PAGE);
    var frag = document.createDocumentFragment();
    for (var k = start; k < stop; k++) {
      var idx = view[k], r = rows[idx], tr = document.createElement('tr');
      tr.setAttribute('data-id', ids[r[0]]);
      tr.setAttribute('data-system', meta.systems[r[1]]);
      cell(tr, 'num rank', String(k + 1));
      cell(tr, 'id', ids[r[0]]);
      cell(tr, 'system', meta.systems[r[1]]);
      cell(tr, 'num score', r[2].toFixed(4));
      cell(tr, 'num gaps', String(r[4].length));
      cell(tr, 'num maxgap', keyOf(r, 'maxgap').toFixed(4));
      cell(tr, 'num wer', r[5] === null ? '–' : r[5].toFixed(3));
      cell(tr, 'text ref').appendChild(highlighted(refs[r[0]], r[4], 0, idx));
      cell(tr, 'text hyp').appendChild(highlighted(r[3], r[4], 1, idx));
      frag.appendChild(tr);
    }
    body.replaceChildren(frag);
    document.getElementById('page-info').textContent = view.length ?
      ('rows ' + (start + 1) + '–' + stop + ' of ' + view.length + ' (page ' + (state.page + 1) +
       ' of ' + pages + ')') : 'no rows';
    document.getElementById('prev').disabled = state.page === 0;
    document.getElementById('next').disabled = state.page >= pages - 1;
    var ths = document.querySelectorAll('#utts th[data-key]');
    for (var i = 0; i < ths.length; i++) {
      var th = ths[i];
      if (th.getAttribute('data-key') === state.key) { th.setAttribute('data-dir', state.dir); }
      else { th.removeAttribute('data-dir'); }
    }
  }

  function refresh() { compute(); render(); }

  var ths = document.querySelectorAll('#utts th[data-key]');
  for (var i = 0; i < ths.length; i++) {
    ths[i].addEventListener('click', function (ev) {
      var key = ev.currentTarget.getAttribute('data-key');
      if (state.key === key) { state.dir = state.dir === 'asc' ? 'desc' : 'asc'; }
      else { state.key = key; state.dir = (key === 'id' || key === 'system') ? 'asc' : 'desc'; }
      state.page = 0;
      refresh();
    });
  }
  var sel = document.getElementById('system-filter');
  for (var s = 0; s < meta.systems.length; s++) {
    var opt = document.createElement('option');
    opt.value = String(s);
    opt.textContent = meta.systems[s];
    sel.appendChild(opt);
  }
  sel.addEventListener('change', function () {
    state.system = parseInt(sel.value, 10); state.page = 0; refresh();
  });
  var search = document.getElementById('search');
  search.addEventListener('input', function () {
    state.query = search.value; state.page = 0; refresh();
  });
  document.getElementById('prev').addEventListener('click', function () {
    if (state.page > 0) { state.page -= 1; render(); }
  });
  document.getElementById('next').addEventListener('click', function () {
    state.page += 1; render();
  });
  refresh();
  document.documentElement.setAttribute('data-render-ms', performance.now().toFixed(1));
})();
"""


def render_report(
    *,
    ids: Sequence[str],
    explanations: Mapping[str, Sequence[Explanation]],
    comparison: Comparison | None = None,
    utterance_wer: Mapping[str, Sequence[float]] | None = None,
    title: str = "SITAR report",
    page_size: int = PAGE_SIZE,
) -> str:
    """The report as one HTML string.

    ``explanations[name][i]`` explains utterance ``ids[i]`` for system ``name`` (all systems on
    the same references, in the same order); ``comparison`` adds the statistics section;
    ``utterance_wer[name][i]`` adds a per-utterance WER column.
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
    data = _report_data(
        ids=ids,
        explanations=explanations,
        utterance_wer=utterance_wer,
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
    plots = "".join(f"<figure>{svg}</figure>" for svg in _plots(names, scores, tiers))
    esc = html.escape
    meta = data["meta"]
    headers = "".join(
        f"<th data-key='{k}' title='sort by {label}'>{label}</th>" if k else f"<th>{label}</th>"
        for k, label in (
            ("order", "#"),
            ("id", "id"),
            ("system", "system"),
            ("score", "score"),
            ("gaps", "gaps"),
            ("maxgap", "max gap"),
            ("wer", "WER"),
            ("", "reference"),
            ("", "hypothesis"),
        )
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<meta name='generator' content='sitar {esc(meta['sitar_version'])}'>"
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{esc(title)}</h1>"
        f"<p>{n} utterances × {len(names)} system(s): {esc(', '.join(names))}. "
        "Normalised SITAR scores in [0, 1]; lower is less situational distortion.</p>"
        f"<p>Signature: <code class='sig' id='signature'>{esc(meta['signature'])}</code></p>"
        f"{_summary_html(comparison)}"
        f"<section id='plots'><h2>Distributions</h2><div class='plots'>{plots}</div></section>"
        "<section id='utterances'><h2>Utterances (worst first)</h2>"
        "<p class='legend'>Gaps by estimated tier: <mark class='gap t0'>T0 expression</mark>"
        "<mark class='gap t1'>T1 uptake</mark><mark class='gap t2'>T2 outcome</mark>"
        f"<mark class='gap t1 empty'>‸</mark>= insertion point. {_tier_legend(meta)} "
        "Click a column header to sort.</p>"
        "<div id='controls'><label>System <select id='system-filter'>"
        "<option value='-1'>all</option></select></label>"
        "<label>Search <input id='search' type='search' placeholder='id or text'></label>"
        "<button id='prev' type='button'>◀ prev</button>"
        "<button id='next' type='button'>next ▶</button><span id='page-info'></span></div>"
        f"<table id='utts'><thead><tr>{headers}</tr></thead><tbody id='utts-body'></tbody>"
        "</table></section>"
        f"<script type='application/json' id='sitar-data'>{_embed_json(data)}</script>"
        f"<script>{_JS}</script></body></html>\n"
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
    comparison = compare_scores(
        {k: [e.score for e in per_system[k]] for k in names},
        ids=ids,
        groups=groups,
        word_errors=word_errors,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=confidence,
        signature=explained[0].signature if explained else (signature or ""),
    )
    return render_report(
        ids=ids,
        explanations=per_system,
        comparison=comparison,
        utterance_wer=utterance_wer,
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
