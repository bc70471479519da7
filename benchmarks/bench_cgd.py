"""CGD segmentation speed, reported as a ratio against jiwer's word alignment on the same pairs.

    python benchmarks/bench_cgd.py [--n 300] [--words 12 40 150 600]

Pairs are built deterministically from the public dev set's references (repeated to reach each
length) with word-level edits (drop, substitute, insert fillers) at a fixed seed. For each length
it times ``sitar.segment`` (decomposition + consolidation with the default lexicon analyzer, on a
second pass so that the lexicon cache is warm) and ``jiwer.process_words`` (Levenshtein alignment, the peer every WER user already runs) on
the same pairs and prints pairs/s for both and the ratio. Machines here are noisy: compare ratios
from one run, not absolute numbers across runs.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEVSET = ROOT / "annotation" / "devset" / "sitar_dev_v1.source.jsonl"


def make_pairs(n: int, words: int, seed: int) -> list[tuple[str, str]]:
    refs = [
        json.loads(line)["reference"] for line in DEVSET.read_text(encoding="utf-8").splitlines()
    ]
    rng = random.Random(seed)
    vocab = " ".join(refs).split()
    pairs = []
    for _ in range(n):
        tokens: list[str] = []
        while len(tokens) < words:
            tokens.extend(rng.choice(refs).split())
        ref = tokens[:words]
        hyp = []
        for w in ref:
            r = rng.random()
            if r < 0.05:
                continue
            if r < 0.10:
                hyp.append(rng.choice(vocab))
            elif r < 0.13:
                hyp.extend([w, rng.choice(["uh", "um"])])
            else:
                hyp.append(w)
        pairs.append((" ".join(ref), " ".join(hyp)))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="pairs per length")
    parser.add_argument("--words", type=int, nargs="+", default=[12, 40, 150, 600])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import jiwer

    import sitar

    sitar.segment("warm up the analyzer", "warm up analyzer")
    print(f"{'words':>6} {'pairs':>6} {'sitar.segment/s':>16} {'jiwer/s':>10} {'ratio':>7}")
    for words in args.words:
        pairs = make_pairs(args.n, words, args.seed)
        for ref, hyp in pairs:  # untimed pass: fills the analyzer's lexicon cache
            sitar.segment(ref, hyp)
        t0 = time.perf_counter()
        for ref, hyp in pairs:
            sitar.segment(ref, hyp)
        t_cgd = time.perf_counter() - t0
        t0 = time.perf_counter()
        for ref, hyp in pairs:
            jiwer.process_words(ref, hyp)
        t_jiwer = time.perf_counter() - t0
        n = len(pairs)
        print(f"{words:>6} {n:>6} {n / t_cgd:>16.1f} {n / t_jiwer:>10.1f} {t_cgd / t_jiwer:>6.1f}x")


if __name__ == "__main__":
    main()
