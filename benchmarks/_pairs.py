"""Synthetic ASR-like pairs for the serving and cluster benchmarks (no torch, seeded).

References are 6-30 word sentences over a small vocabulary; each hypothesis substitutes, drops or
inserts 0-3 words, so most pairs need a model call and a few are identical.
"""

from __future__ import annotations

import random

WORDS = (
    "the a to of and in on for with at by from please send call book move cancel invoice "
    "meeting doctor table friday monday tuesday morning evening noon two ten fifteen twenty "
    "left right north south office station train ticket account payment order delivery number "
    "not never always today tomorrow yesterday room floor window door price total"
).split()


def make_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str], list[str]]:
    """``(ids, references, hypotheses)`` of ``n`` pairs."""
    rng = random.Random(seed)
    ids, refs, hyps = [], [], []
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 30))]
        hyp = list(words)
        for _ in range(rng.randint(0, 3)):
            op = rng.random()
            k = rng.randrange(len(hyp)) if hyp else 0
            if op < 0.6 and hyp:
                hyp[k] = rng.choice(WORDS)
            elif op < 0.8 and len(hyp) > 1:
                del hyp[k]
            else:
                hyp.insert(k, rng.choice(WORDS))
        ids.append(f"p{i:07d}")
        refs.append(" ".join(words))
        hyps.append(" ".join(hyp))
    return ids, refs, hyps
