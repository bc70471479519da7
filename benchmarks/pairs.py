"""Where every benchmark gets its pairs: the one pair source of ``benchmarks/``.

Each recipe is the one its benchmark has always used (changing a recipe changes what the
benchmark measures, so they are kept, not merged); all are seeded and need no network.

* :func:`sample_pairs`: a seeded sample of a record file (realistic ASR utterances);
* :func:`two_systems`: two hypotheses per reference from a record file, as two systems;
* :func:`synthetic_pairs`: generated ASR-like pairs with ids (serving and cluster benchmarks);
* :func:`inference_pairs`: a record file's first pairs, or generated 8-40 word sentences;
* :func:`edited_pairs`: long dev-set text with word edits at a given rate (CGD speed);
* :func:`report_systems`: two generated systems with known error rates (the HTML report);
* :func:`recognizer_pairs`: a seeded sample of the committed real recognizer transcripts (the
  severity benchmark's items and the public A/B sets; ``bench_speed``).
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEVSET = ROOT / "annotation" / "devset" / "sitar_dev_v1.source.jsonl"
#: Committed real recognizer transcripts (pocketsphinx on espeak-ng speech) with their references.
SEVERITY_ITEMS = ROOT / "benchmarks" / "severity" / "data" / "items.jsonl"
AB_SETS = (
    ROOT / "annotation" / "ab" / "sitar_ab_v1.jsonl",
    ROOT / "annotation" / "ab" / "sitar_ab_val_v1.jsonl",
)


def sample_pairs(path: str, n: int, seed: int) -> tuple[list[str], list[str]]:
    """A seeded sample of ``n`` (reference, hypothesis) pairs of a record file (realistic ASR
    utterances; ``bench_gap_scoring``, ``bench_vs_large``, ``bench_encoder_size``; the child
    process of ``bench_vs_release`` draws the same sample)."""
    from sitar.records import read_records

    records = list(read_records(path))
    rng = random.Random(seed)
    chosen = rng.sample(records, min(n, len(records)))
    return [r.reference for r in chosen], [r.hypothesis for r in chosen]


def two_systems(
    path: str, n_references: int, seed: int
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Two systems from a JSONL file whose rows have ``reference`` and ``hypothesis`` fields."""
    by_ref: dict[str, list[str]] = defaultdict(list)
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            if not isinstance(row.get("reference"), str) or not isinstance(
                row.get("hypothesis"), str
            ):
                raise SystemExit(f"{path}:{lineno}: no 'reference' and 'hypothesis' strings")
            if row["hypothesis"] not in by_ref[row["reference"]]:
                by_ref[row["reference"]].append(row["hypothesis"])
    usable = sorted(ref for ref, hyps in by_ref.items() if len(hyps) >= 2)
    if not usable:
        raise SystemExit(f"{path}: no reference has two different hypotheses")
    chosen = random.Random(seed).sample(usable, min(n_references, len(usable)))
    refs = {f"u{i:05d}": ref for i, ref in enumerate(chosen)}
    systems = {
        "A": {u: by_ref[ref][0] for u, ref in refs.items()},
        "B": {u: by_ref[ref][1] for u, ref in refs.items()},
    }
    return refs, systems


SYNTHETIC_WORDS = (
    "the a to of and in on for with at by from please send call book move cancel invoice "
    "meeting doctor table friday monday tuesday morning evening noon two ten fifteen twenty "
    "left right north south office station train ticket account payment order delivery number "
    "not never always today tomorrow yesterday room floor window door price total"
).split()


def synthetic_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str], list[str]]:
    """``(ids, references, hypotheses)`` of ``n`` pairs for ``bench_serve`` and ``bench_ray``:
    6-30 words over a small vocabulary, 0-3 word edits each (most pairs need a model call, a few
    are identical)."""
    rng = random.Random(seed)
    ids, refs, hyps = [], [], []
    for i in range(n):
        words = [rng.choice(SYNTHETIC_WORDS) for _ in range(rng.randint(6, 30))]
        hyp = list(words)
        for _ in range(rng.randint(0, 3)):
            op = rng.random()
            k = rng.randrange(len(hyp)) if hyp else 0
            if op < 0.6 and hyp:
                hyp[k] = rng.choice(SYNTHETIC_WORDS)
            elif op < 0.8 and len(hyp) > 1:
                del hyp[k]
            else:
                hyp.insert(k, rng.choice(SYNTHETIC_WORDS))
        ids.append(f"p{i:07d}")
        refs.append(" ".join(words))
        hyps.append(" ".join(hyp))
    return ids, refs, hyps


def inference_pairs(n: int, seed: int, data: str | None) -> tuple[list[str], list[str]]:
    """``bench_inference``'s pairs: the first ``n`` records of ``data``, or (no file) sentences of
    8-40 words from :mod:`sitar.modeling.tiny`'s vocabulary with up to 3 substituted words."""
    if data:
        from sitar.records import read_records

        records = list(read_records(data))[:n]
        return [r.reference for r in records], [r.hypothesis for r in records]
    from sitar.modeling.tiny import WORDS as TINY_WORDS
    from sitar.modeling.tiny import sample_sentences

    rng = random.Random(seed)
    refs = sample_sentences(n, seed=seed, min_words=8, max_words=40)
    hyps = []
    for ref in refs:
        words = ref.split()
        for _ in range(rng.randint(0, 3)):
            words[rng.randrange(len(words))] = rng.choice(TINY_WORDS)
        hyps.append(" ".join(words))
    return refs, hyps


def _dev_references() -> list[str]:
    return [
        json.loads(line)["reference"] for line in DEVSET.read_text(encoding="utf-8").splitlines()
    ]


def edited_pairs(
    n: int, words: int, seed: int, *, source: str = "dev", error_rate: float = 0.13
) -> list[tuple[str, str]]:
    """``n`` pairs of ``words`` words for ``bench_cgd``: references from the dev set (``dev``: its
    references repeated; ``unigram``: words drawn by their dev-set frequency), hypotheses with
    word edits at ``error_rate`` (5/13 drops, 5/13 substitutions, 3/13 fillers)."""
    refs = _dev_references()
    rng = random.Random(seed)
    vocab = " ".join(refs).split()
    counts = Counter(vocab)
    unigram_words, unigram_weights = list(counts), list(counts.values())
    # Split of the edits as in the original benchmark: 5 % drop, 5 % substitute, 3 % filler.
    p_drop, p_sub = error_rate * 5 / 13, error_rate * 10 / 13
    pairs = []
    for _ in range(n):
        if source == "dev":
            tokens: list[str] = []
            while len(tokens) < words:
                tokens.extend(rng.choice(refs).split())
        else:
            tokens = rng.choices(unigram_words, unigram_weights, k=words)
        ref = tokens[:words]
        hyp = []
        for w in ref:
            r = rng.random()
            if r < p_drop:
                continue
            if r < p_sub:
                hyp.append(rng.choice(vocab))
            elif r < error_rate:
                hyp.extend([w, rng.choice(["uh", "um"])])
            else:
                hyp.append(w)
        pairs.append((" ".join(ref), " ".join(hyp)))
    return pairs


REPORT_WORDS = (
    "the a to of and in is it you that he was for on are with as his they be at one have this "
    "from or had by hot word but what some we can out other were all there when up use your how "
    "said an each she which do their time if will way about many then them write would like so "
    "these her long make thing see him two has look more day could go come did number sound no "
    "most people my over know water than call first who may down side been now find send report "
    "client meeting invoice pay book flight left right noon friday tomorrow today bank doctor"
).split()


def report_systems(n: int, seed: int) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """``bench_report``'s two systems over ``n`` seeded sentences of 6-23 words: word error rates
    about 8 % (A) and 14 % (B), some errors inserting "not"."""
    rng = np.random.default_rng(seed)
    refs: dict[str, str] = {}
    systems: dict[str, dict[str, str]] = {"A": {}, "B": {}}
    for i in range(n):
        words = list(rng.choice(REPORT_WORDS, size=int(rng.integers(6, 24))))
        utt = f"utt{i:05d}"
        refs[utt] = " ".join(words).capitalize() + "."
        for name, rate in (("A", 0.08), ("B", 0.14)):
            hyp = list(words)
            for _ in range(int(rng.binomial(len(hyp), rate))):
                op = rng.integers(0, 4)
                k = int(rng.integers(0, len(hyp) + 1))
                if op == 0 and k < len(hyp):
                    hyp[k] = str(rng.choice(REPORT_WORDS))
                elif op == 1 and k < len(hyp) and len(hyp) > 1:
                    del hyp[k]
                elif op == 2:
                    hyp.insert(k, str(rng.choice(REPORT_WORDS)))
                else:
                    hyp.insert(k, "not")
            systems[name][utt] = " ".join(hyp)
    return refs, systems


def recognizer_pairs(n: int, seed: int) -> tuple[list[str], list[str]]:
    """``bench_speed``'s pairs: a seeded sample of ``n`` distinct (reference, hypothesis) pairs of
    real recognizer output committed in the repo, pooled from the severity benchmark's 900 items
    (the reference as written, ``reference_written``: digits, punctuation and case, as a user's
    reference comes) and both transcripts of every item of the public A/B sets (test and
    validation; their references are in spoken form). 1,724 distinct pairs in all; asking for more
    is an error rather than a silent repeat (repeated texts would flatter the baseline, which encodes
    each distinct text once per call)."""
    pool: set[tuple[str, str]] = set()
    for line in SEVERITY_ITEMS.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        pool.add((item["reference_written"], item["hypothesis"]))
    for path in AB_SETS:
        for line in path.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            pool.add((item["reference"], item["a"]))
            pool.add((item["reference"], item["b"]))
    if n > len(pool):
        raise SystemExit(f"only {len(pool)} distinct recognizer pairs are committed, asked for {n}")
    chosen = random.Random(seed).sample(sorted(pool), n)
    return [r for r, _ in chosen], [h for _, h in chosen]
