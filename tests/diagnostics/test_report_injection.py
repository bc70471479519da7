"""Hostile text in the HTML report: ten injection cases, each placed wherever user text reaches
the page (title, system name, utterance id, group name, reference, hypothesis).

Each case is checked on the HTML (nothing raw outside the JSON data block, no injected element or
event handler, the text round-trips through the data) and, all ten at once, in headless Chromium
(no script runs, every text shows literally). A last test renders every case with the template
engine's autoescape switched off and asserts that the same checks fail for each case: the checks
can fail.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

#: name -> payload. Every payload holds at least one of < > & ' " so that escaping changes it.
CASES = {
    "script-close": "</script><script>alert('script-close')</script>",
    "img-onerror": "<img src=x onerror=alert('img-onerror')>",
    "attribute-break-double": '"><svg onload=alert("attribute-break-double")>',
    "attribute-break-single": "' onmouseover='alert(1)' data-x='",
    "comment-open": "<!-- <script>alert('comment-open')</script>",
    "entity-literal": "&lt;b&gt;not bold&lt;/b&gt; &amp; &#60;i&#62;",
    "template-syntax": "<b>{{ 7 * 7 }}</b>{% if true %}jinja{% endif %}{# c #}",
    "style-close": "</style><style>body{display:none}</style>",
    "title-close": "</title></head><body onload=alert('title-close')>",
    "javascript-url": "<a href='javascript:alert(1)'>click</a>\u2028\u2029",
}

_DATA = re.compile(r"<script type='application/json' id='sitar-data'>([^<]*)</script>")
#: The elements the report's own markup uses; anything else was injected.
_ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "code", "section",
    "table", "thead", "tbody", "tr", "th", "td", "div", "figure", "figcaption", "span", "mark",
    "label", "select", "option", "input", "button", "script",
    # inline SVG (matplotlib)
    "svg", "defs", "g", "path", "use", "text", "clippath", "rect", "pattern",
}  # fmt: skip


def _build(fake_predict, payloads: dict[str, str], title: str) -> str:
    """One report: utterance ``k`` has id, group, reference and hypothesis built from payload
    ``k``; system names and the title are payloads too."""
    from sitar.report import build_report

    names = list(payloads)
    refs = {f"{name}|{p}": f"please send {p} today" for name, p in payloads.items()}
    hyp = {u: f"please do not send {u.split('|', 1)[1]} now" for u in refs}
    systems = {f"sys {payloads[names[0]]}": hyp, f"other {payloads[names[-1]]}": dict(refs)}
    groups = {u: f"group {u.split('|', 1)[1]}" for u in refs}
    return build_report(
        fake_predict,
        references=refs,
        systems=systems,
        groups=groups,
        n_bootstrap=20,
        wer=False,
        title=title,
    )


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def _problems(page: str, payload: str, title: str) -> list[str]:
    """What is wrong with how ``payload`` (and the ``title``) reached ``page``; empty when safe."""
    from markupsafe import escape

    problems = []
    blocks = _DATA.findall(page)
    if len(blocks) != 1:
        return [f"{len(blocks)} JSON data blocks"]
    data = json.loads(blocks[0])
    if data["meta"]["title"] != title or not any(payload in u for u in data["ids"]):
        problems.append("the text does not round-trip through the JSON data")
    outside = _DATA.sub("", page)
    if payload in outside:
        problems.append("the raw payload is in the markup")
    if f"<title>{escape(title)}</title>" not in page or f"<h1>{escape(title)}</h1>" not in page:
        problems.append("the title is not escaped text in <title> and <h1>")
    parser = _Tags()
    parser.feed(outside)
    for tag, attrs in parser.tags:
        if tag not in _ALLOWED_TAGS:
            problems.append(f"injected element <{tag}>")
        handlers = [k for k, _ in attrs if k.startswith("on")]
        if handlers:
            problems.append(f"event handler {handlers} on <{tag}>")
    scripts = [attrs for tag, attrs in parser.tags if tag == "script"]
    if len(scripts) != 1:  # the report's own JS (the data block is cut out above)
        problems.append(f"{len(scripts)} script elements")
    return problems


@pytest.mark.parametrize("name", list(CASES))
def test_injection_case_is_escaped(fake_predict, name):
    payload = CASES[name]
    page = _build(fake_predict, {name: payload}, title=payload)
    assert _problems(page, payload, payload) == []


def test_injection_checks_fail_without_autoescape(fake_predict, monkeypatch):
    """The same checks catch every case when the template engine stops escaping."""
    import sitar.report as report

    real = report._environment
    monkeypatch.setattr(report, "_environment", lambda autoescape=True: real(autoescape=False))
    for name, payload in CASES.items():
        page = _build(fake_predict, {name: payload}, title=payload)
        assert "the raw payload is in the markup" in _problems(page, payload, payload), name


_BROWSER_PROBE = """
  function texts(sel) {
    return Array.prototype.map.call(document.querySelectorAll(sel),
                                    function (e) { return e.textContent; });
  }
  var handlers = [];
  var all = document.querySelectorAll('*');
  for (var i = 0; i < all.length; i++) {
    for (var k = 0; k < all[i].attributes.length; k++) {
      var a = all[i].attributes[k].name;
      if (a.indexOf('on') === 0) { handlers.push(all[i].tagName + ' ' + a); }
    }
  }
  return {
    title: document.title, h1: texts('h1')[0], ids: texts('#utts-body td.id'),
    systems: texts('#utts-body td.system'), hyps: texts('#utts-body td.hyp'),
    summary: texts('#summary td:first-child'), groups: texts('#summary .grouped td:first-child'),
    captions: texts('figcaption'), handlers: handlers,
    injected: document.querySelectorAll('img, a, iframe, object, embed, b, i').length,
    scripts: document.scripts.length,
    hidden: getComputedStyle(document.body).display
  };
"""


def test_injection_cases_in_headless_chromium(fake_predict, browser_probe):
    title = CASES["title-close"] + CASES["script-close"]
    page = _build(fake_predict, CASES, title=title)
    res = browser_probe(page, _BROWSER_PROBE)
    assert res["errors"] == [] and res["alerts"] == []
    assert res["handlers"] == [] and res["injected"] == 0 and res["hidden"] != "none"
    assert res["scripts"] == 4  # watcher, data, the report's JS, the probe
    # Every text shows literally where it belongs.
    assert res["title"] == title and res["h1"] == title
    ids = {f"{name}|{payload}" for name, payload in CASES.items()}
    assert set(res["ids"]) == ids and len(res["ids"]) == 2 * len(CASES)
    names = {f"sys {CASES['script-close']}", f"other {CASES['javascript-url']}"}
    assert set(res["systems"]) == names and set(res["summary"]) >= names
    assert {f"group {p}" for p in CASES.values()} == set(res["groups"])
    hyps = {f"please do not send {p} now" for p in CASES.values()}
    assert hyps <= set(res["hyps"])
    assert {f"Scores of system {n}" for n in names} <= set(res["captions"])
