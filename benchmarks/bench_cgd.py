"""CGD segmentation speed and memory, reported as ratios against jiwer's word alignment and against
the previous (v1, dense-matrix) CGD implementation on the same pairs.

    python -m benchmarks cgd [--n 300] [--words 12 40 150 600 5000] [--json out.json]
    python -m benchmarks cgd --long 20000 50000 [--old-max-words 20000]
    python -m benchmarks cgd --tokenize [--n 2048]

Pairs are built deterministically at a fixed seed with word-level edits (drop, substitute, insert
fillers, at ``--error-rate`` in total; default 13 %) from one of two sources: ``dev`` repeats the
public dev set's references (15 references, so long pairs are extremely repetitive: every
reference copy matches every other copy, the hard case for anchoring), ``unigram`` draws words
independently from the dev set's word frequencies (long text without copied passages).

Default mode: for each length it times ``sitar.segment`` (decomposition + consolidation with the
default lexicon analyzer, after an untimed pass so that the lexicon cache is warm), the alignment
part alone ("align": tokenization + decomposition), ``sitar.segment`` with the v1 decomposition
swapped in ("v1": ``tests/reference/cgd_exact_v1.py``, the dense implementation this package shipped
before; skipped above ``--old-max-words``) and ``jiwer.process_words`` (Levenshtein alignment, the
peer every WER user already runs) on the same pairs, and prints pairs/s and the ratios; each time
is the best of ``--repeat`` interleaved rounds.

``--long``: one pair per length; each method is timed once, then run once more under
``tracemalloc`` (which sees numpy buffers) for its peak memory: the new and the v1 decomposition
(``segment``) and jiwer.

``--tokenize``: spec §1 (docs/spec.md) tokenization against the v1 per-character tokenizer on realistic strings.

Machines here are noisy: compare ratios from one run, not absolute numbers across runs.
"""

from __future__ import annotations

import gc
import tracemalloc
from contextlib import contextmanager
from functools import partial
from typing import Any

from benchmarks.harness import frozen_reference, timed, write_result
from benchmarks.pairs import edited_pairs
from sitar._main import ArgumentParser, tool_main


@contextmanager
def old_decomposition():
    """Swap the v1 dense decomposition into ``sitar.cgd`` for the duration."""
    import sitar.cgd

    cgd_exact_v1 = frozen_reference("cgd_exact_v1")

    saved = sitar.cgd.decompose
    sitar.cgd.decompose = cgd_exact_v1.decompose
    try:
        yield
    finally:
        sitar.cgd.decompose = saved


def _time_segment(pairs) -> float:
    import sitar

    def run() -> None:
        for ref, hyp in pairs:
            sitar.segment(ref, hyp)

    return timed(run).wall


def _time_align(pairs) -> float:
    """Tokenization and decomposition only: the part of segment() that is an alignment."""
    import sitar.cgd
    from sitar.text import tokenize

    def run() -> None:
        for ref, hyp in pairs:
            sitar.cgd.decompose([t.norm for t in tokenize(ref)], [t.norm for t in tokenize(hyp)])

    return timed(run).wall


def _time_jiwer(pairs) -> float:
    import jiwer

    def run() -> None:
        for ref, hyp in pairs:
            jiwer.process_words(ref, hyp)

    return timed(run).wall


def _time_old_segment(pairs) -> float:
    with old_decomposition():
        return _time_segment(pairs)


def run_short(args) -> list[dict[str, Any]]:
    import sitar

    sitar.segment("warm up the analyzer", "warm up analyzer")
    print(
        f"source={args.source} error_rate={args.error_rate} seed={args.seed} repeat={args.repeat}"
    )
    print(
        f"{'words':>6} {'pairs':>6} {'segment/s':>10} {'align/s':>9} {'v1/s':>9} {'jiwer/s':>9} "
        f"{'seg/jiwer':>10} {'align/jiwer':>12} {'v1/new':>8}"
    )
    rows = []
    for words in args.words:
        n = args.n if words <= 1000 else max(3, args.n // 30)
        pairs = edited_pairs(n, words, args.seed, source=args.source, error_rate=args.error_rate)
        for ref, hyp in pairs:  # untimed pass: fills the analyzer's lexicon cache
            sitar.segment(ref, hyp)
        timers = {"new": _time_segment, "align": _time_align, "jiwer": _time_jiwer}
        if words <= args.old_max_words:
            timers["v1"] = _time_old_segment
        # Interleaved rounds, best of each: the least disturbed run of each method.
        best = dict.fromkeys(timers, float("inf"))
        for _ in range(args.repeat):
            for name, timer in timers.items():
                best[name] = min(best[name], timer(pairs))
        t_old = best.get("v1")
        old_rate = f"{n / t_old:>9.1f}" if t_old else f"{'-':>9}"
        old_ratio = f"{t_old / best['new']:>7.1f}x" if t_old else f"{'-':>8}"
        print(
            f"{words:>6} {n:>6} {n / best['new']:>10.1f} {n / best['align']:>9.1f} {old_rate} "
            f"{n / best['jiwer']:>9.1f} {best['new'] / best['jiwer']:>9.2f}x "
            f"{best['align'] / best['jiwer']:>11.2f}x {old_ratio}",
            flush=True,
        )
        rows.append({"words": words, "pairs": n, "best_seconds": best})
    return rows


def _measure(fn) -> tuple[float, float]:
    """(seconds, peak MiB) of ``fn()``: timed on one call, memory traced on a second call
    (``tracemalloc`` slows allocation-heavy Python code several times over, so it never runs
    while the clock does)."""
    gc.collect()
    elapsed = timed(fn).wall
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return elapsed, peak


def _segment_into(holder: dict, ref: str, hyp: str) -> None:
    import sitar

    holder["seg"] = sitar.segment(ref, hyp)


def run_long(args) -> list[dict[str, Any]]:
    import jiwer

    import sitar

    sitar.segment("warm up the analyzer", "warm up analyzer")
    print(f"source={args.source} error_rate={args.error_rate} seed={args.seed}")
    print(
        f"{'words':>6} {'gaps':>6} {'new s':>7} {'new MiB':>8} {'v1 s':>7} {'v1 MiB':>8} "
        f"{'jiwer s':>8} {'jiwer MiB':>9} {'vs jiwer':>9} {'v1 vs new':>10}"
    )
    rows = []
    for words in args.long:
        ((ref, hyp),) = edited_pairs(
            1, words, args.seed, source=args.source, error_rate=args.error_rate
        )
        sitar.segment(ref, hyp)  # warm the lexicon cache for this vocabulary
        holder: dict = {}
        t_new, m_new = _measure(partial(_segment_into, holder, ref, hyp))
        old = "       -        -"
        ratio_old = f"{'-':>10}"
        row: dict[str, Any] = {"words": words, "gaps": len(holder["seg"].gaps)}
        row.update(new_seconds=t_new, new_peak_mib=m_new)
        if words <= args.old_max_words:
            with old_decomposition():
                t_old, m_old = _measure(partial(sitar.segment, ref, hyp))
            old = f"{t_old:>7.2f} {m_old:>8.1f}"
            ratio_old = f"{t_old / t_new:>9.1f}x"
            row.update(v1_seconds=t_old, v1_peak_mib=m_old)
        t_j, m_j = _measure(partial(jiwer.process_words, ref, hyp))
        row.update(jiwer_seconds=t_j, jiwer_peak_mib=m_j)
        rows.append(row)
        print(
            f"{words:>6} {len(holder['seg'].gaps):>6} {t_new:>7.2f} {m_new:>8.1f} {old} "
            f"{t_j:>8.3f} {m_j:>9.1f} {t_new / t_j:>8.2f}x {ratio_old}",
            flush=True,
        )
    return rows


def _tokenize_all(fn, texts) -> None:
    for text in texts:
        fn(text)


def run_tokenize(args) -> dict[str, Any]:
    from sitar.text import tokenize

    text_v1 = frozen_reference("text_v1")
    pairs = edited_pairs(args.n // 2, 22, args.seed, source="dev", error_rate=args.error_rate)
    texts = [t for pair in pairs for t in pair]
    for fn in (tokenize, text_v1.tokenize):  # warm up
        for text in texts[:50]:
            fn(text)
    timings = dict.fromkeys(("regex", "v1"), float("inf"))
    for _ in range(args.repeat):
        for name, fn in (("regex", tokenize), ("v1", text_v1.tokenize)):
            timings[name] = min(timings[name], timed(_tokenize_all, fn, texts).wall)
    print(
        f"{len(texts)} strings: regex {len(texts) / timings['regex']:.0f}/s, "
        f"v1 {len(texts) / timings['v1']:.0f}/s, speed-up {timings['v1'] / timings['regex']:.1f}x"
    )
    return {"strings": len(texts), "best_seconds": timings}


@tool_main("python -m benchmarks cgd")
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m benchmarks cgd", description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="pairs per length (short mode)")
    parser.add_argument("--words", type=int, nargs="+", default=[12, 40, 150, 600, 5000])
    parser.add_argument("--long", type=int, nargs="+", help="one pair per length, time + memory")
    parser.add_argument("--tokenize", action="store_true", help="benchmark SPEC §1 tokenization")
    parser.add_argument("--source", choices=["dev", "unigram"], default="dev")
    parser.add_argument("--error-rate", type=float, default=0.13)
    parser.add_argument(
        "--old-max-words", type=int, default=5000, help="longest pair given to the v1 code"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds, best kept")
    parser.add_argument("--json", help="also write the numbers here")
    args = parser.parse_args(argv)
    settings = {"source": args.source, "error_rate": args.error_rate, "seed": args.seed}
    if args.tokenize:
        numbers = {"mode": "tokenize", **settings, "repeat": args.repeat, **run_tokenize(args)}
    elif args.long:
        numbers = {"mode": "long", **settings, "rows": run_long(args)}
    else:
        numbers = {"mode": "short", **settings, "repeat": args.repeat, "rows": run_short(args)}
    write_result(args.json, "cgd", numbers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
