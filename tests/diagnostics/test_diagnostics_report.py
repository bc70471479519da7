"""The HTML report: content, self-containment, determinism, safety, CLI and a headless browser."""

from __future__ import annotations

import argparse
import json
import re
import sys

import pytest

from sitar.diagnostics import TIER_RULE
from sitar.errors import InputError, MissingDependencyError

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

_DATA = re.compile(r"<script type='application/json' id='sitar-data'>(.*?)</script>", re.S)


@pytest.fixture
def report_html(fake_predict, corpus):
    from sitar.report import build_report

    refs, a, b = corpus
    groups = {u: ("spk1" if i % 2 else "spk2") for i, u in enumerate(refs)}
    return build_report(
        fake_predict,
        references=refs,
        systems={"A": a, "B": b},
        groups=groups,
        n_bootstrap=200,
        seed=1,
        title="test report",
    )


def _data(report: str) -> dict:
    (payload,) = _DATA.findall(report)
    return json.loads(payload)


def test_report_content(report_html, corpus):
    refs, _, _ = corpus
    data = _data(report_html)
    meta = data["meta"]
    assert meta["systems"] == ["A", "B"] and meta["n_utterances"] == len(refs)
    assert meta["signature"].startswith("sitar:") and meta["signature"] in report_html
    assert data["ids"] == list(refs) and data["refs"] == list(refs.values())
    assert len(data["rows"]) == 2 * len(refs)
    # Row of u01 in system B: "not" inserted, one T2 gap with its single-gap score.
    row = next(r for r in data["rows"] if data["ids"][r[0]] == "u01" and r[1] == 1)
    (gap,) = row[4]
    ref_start, ref_end, hyp_start, hyp_end, score, tier, _direction = gap
    assert ref_start == ref_end and row[3][hyp_start:hyp_end] == "not"
    assert (score, tier) == (0.9, 2)
    comparison = data["comparison"]
    assert comparison["seed"] == 1 and comparison["pairwise"][0]["better"] == "A"
    assert [g["group"] for g in comparison["groups"]] == ["spk1", "spk2"]
    # Score distributions, tiers, and one figure per system (captioned in HTML).
    assert report_html.count("<svg") == 4
    assert "<figcaption>Scores of system A</figcaption>" in report_html
    assert "Per group" in report_html and "meaning-critical" in report_html


def test_report_is_self_contained_and_deterministic(report_html, fake_predict, corpus):
    from sitar.report import build_report

    lowered = report_html.lower()
    assert "<link" not in lowered and " src=" not in lowered and "@import" not in lowered
    # url() only for in-document references (SVG clip paths: url(#id)); nothing is fetched.
    assert re.findall(r"url\((?!#)", lowered) == [] and "fetch(" not in lowered
    # The only URLs are XML namespace names inside the inline SVG, never fetched
    # (and the RDF metadata matplotlib writes): all inside <svg>, none in an attribute that loads.
    outside_svg = re.sub(r"<svg.*?</svg>", "", report_html, flags=re.S)
    assert re.findall(r"https?://", outside_svg) == []
    refs, a, b = corpus
    groups = {u: ("spk1" if i % 2 else "spk2") for i, u in enumerate(refs)}
    again = build_report(
        fake_predict,
        references=refs,
        systems={"A": a, "B": b},
        groups=groups,
        n_bootstrap=200,
        seed=1,
        title="test report",
    )
    assert again == report_html


def test_report_escapes_hostile_text(fake_predict):
    from sitar.report import build_report

    evil = "</script><script>alert(1)</script> <b>bold</b> & more"
    out = build_report(
        fake_predict,
        references={"x</script>": "a b c"},
        systems={"<i>S</i>": {"x</script>": evil}},
        wer=False,
        title="<title>",
    )
    assert "<script>alert(1)" not in out and "<b>bold" not in out and "<i>S</i>" not in out
    data = _data(out)
    assert data["rows"][0][3] == evil and data["ids"] == ["x</script>"]
    assert "&lt;title&gt;" in out


def test_render_report_input_errors(fake_predict):
    from sitar.diagnostics import explain_many
    from sitar.report import render_report

    ex = explain_many(fake_predict, references=["a b", "c d"], hypotheses=["a x", "c d"])
    with pytest.raises(InputError, match="at least one"):
        render_report(ids=["1", "2"], explanations={})
    with pytest.raises(InputError, match="explanations for"):
        render_report(ids=["1"], explanations={"S": ex})
    other = explain_many(fake_predict, references=["a b", "z z"], hypotheses=["a b", "z z"])
    with pytest.raises(InputError, match="same references"):
        render_report(ids=["1", "2"], explanations={"S": ex, "T": other})
    with pytest.raises(InputError, match="page_size"):
        render_report(ids=["1", "2"], explanations={"S": ex}, page_size=0)


def test_report_needs_matplotlib(monkeypatch, fake_predict):
    from sitar.diagnostics import explain_many
    from sitar.report import render_report

    ex = explain_many(fake_predict, references=["a b"], hypotheses=["a x"])
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MissingDependencyError, match=r"sitar\[report\]"):
        render_report(ids=["1"], explanations={"S": ex})


def test_report_command_writes_file(tmp_path, tiny_scorer, corpus, monkeypatch, capsys):
    import sitar.commands.report as report_cmd
    from sitar.scorer import Scorer

    monkeypatch.setattr(
        report_cmd,
        "load_scorer",
        lambda args: Scorer.load(
            args.checkpoint, variant=args.variant, analyzer=tiny_scorer.analyzer
        ),
    )
    refs, a, b = corpus
    files = {}
    for name, table in (("ref", refs), ("a", a), ("b", b)):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("".join(f"{k} {v}\n" for k, v in table.items()))
    parser = argparse.ArgumentParser(prog="sitar")
    report_cmd.register(parser.add_subparsers(dest="command"))
    out = tmp_path / "r.html"
    args = parser.parse_args(
        [
            "report",
            "--ref-file",
            str(files["ref"]),
            "--system",
            f"A={files['a']}",
            "--system",
            f"B={files['b']}",
            "--checkpoint",
            str(tiny_scorer.config.folder),
            "--variant",
            "fp32",
            "--format",
            "kaldi",
            "--bootstrap",
            "100",
            "--method",
            "rescore",
            "-o",
            str(out),
        ]
    )
    assert report_cmd.run(args) == 0
    data = _data(out.read_text(encoding="utf-8"))
    assert data["meta"]["signature"] == tiny_scorer.signature
    assert data["meta"]["explain_method"] == "rescore"
    assert data["meta"]["tier_rule"] == TIER_RULE
    # A pair-head checkpoint has no same-pass gap tiers to report.
    args.method = "gaps"
    with pytest.raises(InputError, match="method='gaps' needs"):
        report_cmd.run(args)
    assert len(data["rows"]) == 80 and "wrote" in capsys.readouterr().err


# -- headless browser --------------------------------------------------------------------------

_PROBE = """
  function col(cls) {
    return Array.prototype.map.call(
      document.querySelectorAll('#utts-body td.' + cls), function (td) { return td.textContent; });
  }
  var known = document.querySelector('#utts-body tr[data-id="u01"][data-system="B"]');
  var res = {known: known ? known.outerHTML : null,
             info: document.getElementById('page-info').textContent, initial: col('score')};
  var byId = document.querySelector('#utts th[data-key="id"]');
  byId.click(); res.idAsc = col('id');
  byId.click(); res.idDesc = col('id');
  var byScore = document.querySelector('#utts th[data-key="score"]');
  byScore.click(); res.scoreFirst = col('score');
  byScore.click(); res.scoreSecond = col('score');
  document.getElementById('next').click();
  res.page2 = document.getElementById('page-info').textContent;
  return res;
"""


def test_report_in_headless_chromium(
    report_html, corpus, browser_probe, run_chromium, tmp_path, artifact_dir
):
    res = browser_probe(report_html, _PROBE)
    assert res["errors"] == [] and res["alerts"] == []
    refs, _, _ = corpus
    assert res["info"] == f"rows 1–50 of {2 * len(refs)} (page 1 of 2)"
    # Known pair u01 / B: the inserted "not" is highlighted as T2 with its single-gap score.
    known = res["known"]
    assert known is not None
    assert re.search(
        r'<mark class="gap t2"[^>]*title="[^"]*single-gap score 0\.9000[^"]*"[^>]*>'
        r"not</mark>",
        known,
    ), known
    assert 'class="gap t2 empty"' in known  # the insertion point on the reference side
    # Sorting runs over the whole data set: worst first initially, then by id both ways.
    scores = [float(x) for x in res["initial"]]
    worst = max(r[2] for r in _data(report_html)["rows"])
    assert scores == sorted(scores, reverse=True) and scores[0] == pytest.approx(worst)
    all_ids = sorted(list(refs) * 2)
    assert res["idAsc"] == all_ids[:50]
    assert res["idDesc"] == sorted(all_ids, reverse=True)[:50]
    first = [float(x) for x in res["scoreFirst"]]
    second = [float(x) for x in res["scoreSecond"]]
    assert first == sorted(first, reverse=True)
    assert second == sorted(second) and second[0] == 0.0
    assert res["page2"] == f"rows 51–{2 * len(refs)} of {2 * len(refs)} (page 2 of 2)"
    # A screenshot for people, kept with the test artefacts (never in git).
    original = tmp_path / "report.html"
    original.write_text(report_html, encoding="utf-8")
    shot = artifact_dir / "diagnostics_report.png"
    run = run_chromium(
        "--hide-scrollbars",
        "--window-size=1300,1800",
        f"--screenshot={shot}",
        original.as_uri(),
    )
    assert run.returncode == 0 and shot.is_file() and shot.stat().st_size > 10_000
