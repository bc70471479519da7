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

Run: ``python benchmarks/bench_report.py [--utterances 10000] [--out DIR]``. Prints the numbers
and writes them as JSON next to the report.
"""

from __future__ import annotations

import json
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

from sitar._main import ArgumentParser, tool_main

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = (
    "the a to of and in is it you that he was for on are with as his they be at one have this "
    "from or had by hot word but what some we can out other were all there when up use your how "
    "said an each she which do their time if will way about many then them write would like so "
    "these her long make thing see him two has look more day could go come did number sound no "
    "most people my over know water than call first who may down side been now find send report "
    "client meeting invoice pay book flight left right noon friday tomorrow today bank doctor"
).split()


class NoPredicates:
    """CGD analyzer without predicates: the report's cost does not depend on the analyzer."""

    id = "bench-no-predicates"

    def predicates(self, text, tokens):
        return frozenset()


def synth(n: int, seed: int) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    rng = np.random.default_rng(seed)
    refs: dict[str, str] = {}
    systems: dict[str, dict[str, str]] = {"A": {}, "B": {}}
    for i in range(n):
        words = list(rng.choice(WORDS, size=int(rng.integers(6, 24))))
        utt = f"utt{i:05d}"
        refs[utt] = " ".join(words).capitalize() + "."
        for name, rate in (("A", 0.08), ("B", 0.14)):
            hyp = list(words)
            for _ in range(int(rng.binomial(len(hyp), rate))):
                op = rng.integers(0, 4)
                k = int(rng.integers(0, len(hyp) + 1))
                if op == 0 and k < len(hyp):
                    hyp[k] = str(rng.choice(WORDS))
                elif op == 1 and k < len(hyp) and len(hyp) > 1:
                    del hyp[k]
                elif op == 2:
                    hyp.insert(k, str(rng.choice(WORDS)))
                else:
                    hyp.insert(k, "not")
            systems[name][utt] = " ".join(hyp)
    return refs, systems


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
    t = time.perf_counter()
    run = subprocess.run(
        [binary, *flags, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    wall = time.perf_counter() - t
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
    t = time.perf_counter()
    plain = scorer.score(references=r, hypotheses=h)
    t_plain = time.perf_counter() - t
    t = time.perf_counter()
    ex = explain_many(scorer, references=r, hypotheses=h)
    t_explain = time.perf_counter() - t
    n_gaps = sum(len(e.gaps) for e in ex)
    return {
        "pairs": n_pairs,
        "gaps": n_gaps,
        "model_inputs_score": int(sum(plain.n_windows)),
        "model_inputs_explain": int(sum(e.n_model_inputs for e in ex)),
        "score_s": t_plain,
        "explain_s": t_explain,
    }


@tool_main("python -m benchmarks.bench_report")
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--utterances", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--explain-pairs", type=int, default=500)
    parser.add_argument("--out", default=None, help="folder for report.html and bench.json")
    args = parser.parse_args(argv)

    from sitar.diagnostics import compare_scores, explain_many, word_error_counts
    from sitar.report import render_report, write_report

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="sitar-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    refs, systems = synth(args.utterances, args.seed)
    ids = list(refs)
    names = list(systems)
    r = [refs[u] for u in ids]

    t = time.perf_counter()
    explained = explain_many(
        fake_predict,
        references=r * len(names),
        hypotheses=[systems[k][u] for k in names for u in ids],
        analyzer=NoPredicates(),
    )
    t_explain = time.perf_counter() - t
    n = len(ids)
    per_system = {k: explained[s * n : (s + 1) * n] for s, k in enumerate(names)}

    t = time.perf_counter()
    word_errors = {
        k: word_error_counts(references=r, hypotheses=[systems[k][u] for u in ids]) for k in names
    }
    comparison = compare_scores(
        {k: [e.score for e in per_system[k]] for k in names},
        ids=ids,
        word_errors=word_errors,
        seed=args.seed,
        signature=explained[0].signature,
    )
    t_compare = time.perf_counter() - t
    t = time.perf_counter()
    page = render_report(ids=ids, explanations=per_system, comparison=comparison)
    t_render = time.perf_counter() - t
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
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    (out / "bench.json").write_text(json.dumps(numbers, indent=2))
    print(json.dumps(numbers, indent=2))
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
