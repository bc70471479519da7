(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('sitar-data').textContent);
  var meta = data.meta, ids = data.ids, refs = data.refs, rows = data.rows;
  // idRank[i]: position of ids[i] in natural order (digit runs compare as numbers: u2 < u10),
  // computed in Python so that every browser sorts alike.
  var idRank = data.id_rank;
  var PAGE = meta.page_size;
  var state = {key: 'score', dir: 'desc', system: -1, query: '', page: 0, view: null};
  var DIR_NAMES = {'-1': ' (boundary to T', '1': ' (boundary to T'};

  function keyOf(r, key) {
    if (key === 'score') { return r[2]; }
    if (key === 'id') { return idRank[r[0]]; }
    if (key === 'system') { return meta.systems[r[1]]; }
    if (key === 'gaps') { return r[4].length; }
    if (key === 'maxgap') {
      var m = 0; for (var i = 0; i < r[4].length; i++) { if (r[4][i][4] > m) { m = r[4][i][4]; } }
      return m;
    }
    if (key === 'wer') { return r[5] === null ? -1 : r[5]; }
    if (key === 'swer') { return r[6] === null ? -1 : r[6]; }
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
      m.title = 'gap ' + k + ': "' + rt + '" → "' + ht + '"\n' + meta.gap_score_label + ' ' +
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
      if (meta.has_swer) { cell(tr, 'num swer', r[6] === null ? '–' : r[6].toFixed(3)); }
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
