"""Benchmark ``sitar report`` at 10,000 utterances (and the cost of ``explain``).

Generates seeded synthetic (reference, hypothesis) pairs for two systems, explains them with a
fast model-free ``predict_fn`` (so the numbers are about the report, not a model), and measures:

* explain_many time (CGD segmentation + single-gap hypotheses; the predict_fn is trivial);
* report build time (comparison + plots + HTML) and file size;
* with Chromium installed: time to first render inside the page (``data-render-ms``, from
  navigation start) and the time of a full-data re-sort and of a page flip (clicks timed in the
  page), plus the wall time of the whole headless run;
* with the tiny test checkpoint: the cost of explain versus plain scoring (model inputs and wall
  time of one batched call each).

Run: ``python -m benchmarks report [--utterances 10000] [--out DIR]``. Prints the numbers
and writes them as JSON next to the report.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

from benchmarks.harness import ROOT, timed, write_result
from benchmarks.pairs import report_systems
from sitar._main import ArgumentParser, tool_main


class NoPredicates:
    """CGD analyzer without predicates: the report's cost does not depend on the analyzer."""

    id = "bench-no-predicates"

    def predicates(self, text, tokens):
        return frozenset()


def fake_predict(references, hypotheses):
    """Deterministic pseudo-scores in [0, 1): 0 for equal pairs, else from a hash of the texts."""
    out = np.zeros(len(references))
    for i, (r, h) in enumerate(zip(references, hypotheses, strict=True)):
        if r != h:
            out[i] = (zlib.crc32(f"{r}\n{h}".encode()) % 10_000) / 10_000 * 0.99
            if " not " in f" {h} " and " not " not in f" {r} ":
                out[i] = max(out[i], 0.75)
    return out


def browser_numbers(html_path: Path, workdir: Path) -> dict[str, float] | None:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        return None
    probe = """<script>(function(){
      var t0 = performance.now();
      document.querySelector('#utts th[data-key="id"]').click();
      var t1 = performance.now();
      document.getElementById('next').click();
      var t2 = performance.now();
      var pre = document.createElement('pre'); pre.id = 'bench';
      pre.textContent = JSON.stringify({sort_ms: t1 - t0, page_ms: t2 - t1,
        render_ms: parseFloat(document.documentElement.getAttribute('data-render-ms'))});
      document.body.appendChild(pre);
    })();</script>"""
    page = workdir / "probe.html"
    page.write_text(html_path.read_text(encoding="utf-8").replace("</body>", probe + "</body>"))
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={workdir / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
    ]
    timing = timed(
        subprocess.run,
        [binary, *flags, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    run, wall = timing.value, timing.wall
    match = re.search(r'<pre id="bench">(.*?)</pre>', run.stdout, re.S)
    if not match:
        return {"error": run.stderr[-500:]}  # type: ignore[dict-item]
    numbers = json.loads(match.group(1).replace("&quot;", '"'))
    numbers["headless_wall_s"] = wall
    numbers["console_lines"] = sum(":CONSOLE" in line for line in run.stderr.splitlines())
    return numbers


def explain_cost(n_pairs: int, refs, systems) -> dict[str, float] | None:
    tiny = ROOT / "tests" / "fixtures" / "tiny_onnx"
    try:
        from sitar.scorer import Scorer

        scorer = Scorer.load(tiny, variant="fp32", analyzer=NoPredicates())
    except Exception as e:  # onnxruntime/tokenizers missing: skip this part, say why
        return {"skipped": f"{type(e).__name__}: {e}"}  # type: ignore[dict-item]
    from sitar.diagnostics import explain_many

    ids = list(refs)[:n_pairs]
    r = [refs[u] for u in ids]
    h = [systems["B"][u] for u in ids]
    scorer.score(references=r[:8], hypotheses=h[:8])  # warm-up (session, signature)
    t = timed(scorer.score, references=r, hypotheses=h)
    plain, t_plain = t.value, t.wall
    t = timed(explain_many, scorer, references=r, hypotheses=h)
    ex, t_explain = t.value, t.wall
    n_gaps = sum(len(e.gaps) for e in ex)
    return {
        "pairs": n_pairs,
        "gaps": n_gaps,
        "model_inputs_score": int(sum(plain.n_windows)),
        "model_inputs_explain": int(sum(e.n_model_inputs for e in ex)),
        "score_s": t_plain,
        "explain_s": t_explain,
    }


@tool_main("python -m benchmarks report")
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m benchmarks report", description=__doc__.splitlines()[0])
    parser.add_argument("--utterances", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--explain-pairs", type=int, default=500)
    parser.add_argument("--out", default=None, help="folder for report.html and bench.json")
    args = parser.parse_args(argv)

    from sitar.comparison import compare_scores, word_error_counts
    from sitar.diagnostics import explain_many
    from sitar.report import render_report, write_report

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="sitar-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    refs, systems = report_systems(args.utterances, args.seed)
    ids = list(refs)
    names = list(systems)
    r = [refs[u] for u in ids]

    t = timed(
        explain_many,
        fake_predict,
        references=r * len(names),
        hypotheses=[systems[k][u] for k in names for u in ids],
        analyzer=NoPredicates(),
    )
    explained, t_explain = t.value, t.wall
    n = len(ids)
    per_system = {k: explained[s * n : (s + 1) * n] for s, k in enumerate(names)}

    def wer_and_compare():
        word_errors = {
            k: word_error_counts(references=r, hypotheses=[systems[k][u] for u in ids])
            for k in names
        }
        return compare_scores(
            {k: [e.score for e in per_system[k]] for k in names},
            ids=ids,
            word_errors=word_errors,
            seed=args.seed,
            signature=explained[0].signature,
        )

    t = timed(wer_and_compare)
    comparison, t_compare = t.value, t.wall
    t = timed(render_report, ids=ids, explanations=per_system, comparison=comparison)
    page, t_render = t.value, t.wall
    path = write_report(out / "report.html", page)

    numbers = {
        "utterances": n,
        "systems": len(names),
        "rows": n * len(names),
        "gaps": sum(len(e.gaps) for e in explained),
        "explain_many_s": round(t_explain, 3),
        "compare_s (WER + 1000 bootstrap)": round(t_compare, 3),
        "render_s (plots + HTML)": round(t_render, 3),
        "file_bytes": path.stat().st_size,
        "file_mib": round(path.stat().st_size / 2**20, 2),
        "browser": browser_numbers(path, out),
        "explain_cost_tiny_model": explain_cost(args.explain_pairs, refs, systems),
    }
    report = write_result(out / "bench.json", "report", numbers)
    print(json.dumps(report, indent=2))
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
