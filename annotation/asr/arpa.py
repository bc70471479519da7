"""A small back-off n-gram language model writer and reader in ARPA format.

The domain LMs of the recognizer systems (:mod:`annotation.asr.build`) are written here, so they
depend on nothing outside the standard library. The model is Katz-style back-off with **absolute
discounting** (one discount ``D`` per order, Ney's estimate ``D = n1 / (n1 + 2 n2)`` from the
count-of-counts, clipped to ``[0.1, 0.9]``):

* unigrams: ``P(w) = (c(w) - D1) / N + D1 * |V| / N / |V|`` (discounted counts interpolated with a
  uniform distribution over the vocabulary, so every word and ``</s>`` has mass);
* order ``n > 1``: a seen n-gram ``h w`` gets ``P(w | h) = (c(h w) - D) / c(h)``; an unseen one
  backs off, ``P(w | h) = alpha(h) * P(w | h')`` with ``h'`` the history without its first word and
  ``alpha(h) = (1 - sum_seen P(w | h)) / (1 - sum_seen P(w | h'))``, so that every distribution
  sums to one over the vocabulary plus ``</s>`` (tested).

``<s>`` is a history only: it gets the conventional log probability ``-99`` and a back-off weight.
Sentences are lists of words; words must not contain whitespace. Output is deterministic (sorted
n-grams, fixed number formatting).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sitar.errors import InputError

__all__ = ["BOS", "EOS", "ArpaModel", "build_model", "read_arpa", "write_arpa"]

BOS, EOS = "<s>", "</s>"
_NEG_INF = -99.0


@dataclass
class ArpaModel:
    """Log10 probabilities and back-off weights per n-gram (tuples of words)."""

    order: int
    logprob: dict[tuple[str, ...], float] = field(default_factory=dict)
    backoff: dict[tuple[str, ...], float] = field(default_factory=dict)

    @property
    def vocabulary(self) -> list[str]:
        """Unigrams (including ``<s>`` and ``</s>``), sorted."""
        return sorted(g[0] for g in self.logprob if len(g) == 1)

    def log10_prob(self, word: str, history: Sequence[str] = ()) -> float:
        """``log10 P(word | history)`` by the ARPA back-off rule (history truncated to
        ``order - 1`` words). An unknown word raises :class:`InputError`."""
        if (word,) not in self.logprob:
            raise InputError(f"word {word!r} is not in the model's vocabulary")
        hist = tuple(history)[-(self.order - 1) :] if self.order > 1 else ()
        penalty = 0.0
        while True:
            gram = (*hist, word)
            if gram in self.logprob:
                return penalty + self.logprob[gram]
            penalty += self.backoff.get(hist, 0.0)
            hist = hist[1:]

    def prob(self, word: str, history: Sequence[str] = ()) -> float:
        return 10.0 ** self.log10_prob(word, history)


def _discount(counts: Counter[tuple[str, ...]]) -> float:
    coc = Counter(counts.values())
    n1, n2 = coc.get(1, 0), coc.get(2, 0)
    d = n1 / (n1 + 2 * n2) if n1 + 2 * n2 > 0 else 0.5
    return min(0.9, max(0.1, d))


def build_model(sentences: Iterable[Sequence[str]], *, order: int = 3) -> ArpaModel:
    """Count n-grams of ``<s> words </s>`` and estimate the back-off model (see module doc)."""
    if order < 1:
        raise InputError(f"order must be >= 1, got {order}")
    counts: list[Counter[tuple[str, ...]]] = [Counter() for _ in range(order + 1)]
    n_sent = 0
    for words in sentences:
        words = list(words)
        for w in words:
            if not w or any(ch.isspace() for ch in w) or w in (BOS, EOS):
                raise InputError(f"invalid LM word {w!r} (empty, whitespace or a sentence marker)")
        if not words:
            continue
        n_sent += 1
        seq = [BOS, *words, EOS]
        for n in range(1, order + 1):
            for i in range(len(seq) - n + 1):
                gram = tuple(seq[i : i + n])
                if gram == (BOS,):
                    continue
                counts[n][gram] += 1
    if n_sent == 0:
        raise InputError("no sentences to train a language model on")
    model = ArpaModel(order=order)
    # Unigrams over V = words + </s>; <s> is a history only.
    uni = counts[1]
    total = sum(uni.values())
    vocab = sorted(g[0] for g in uni)
    d1 = _discount(uni)
    floor = d1 * len(vocab) / total / len(vocab)
    p_uni = {w: (uni[(w,)] - d1) / total + floor for w in vocab}
    for w in vocab:
        model.logprob[(w,)] = math.log10(p_uni[w])
    model.logprob[(BOS,)] = _NEG_INF

    def lower_prob(word: str, hist: tuple[str, ...]) -> float:
        return 10.0 ** model.log10_prob(word, hist)

    for n in range(2, order + 1):
        grams = counts[n]
        d = _discount(grams)
        by_hist: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
        for gram, c in grams.items():
            by_hist[gram[:-1]].append((gram[-1], c))
        for hist in sorted(by_hist):
            followers = sorted(by_hist[hist])
            c_hist = sum(c for _w, c in followers)
            seen_mass = 0.0
            lower_mass = 0.0
            for w, c in followers:
                p = (c - d) / c_hist
                model.logprob[(*hist, w)] = math.log10(p)
                seen_mass += p
                lower_mass += lower_prob(w, hist[1:])
            # Back-off weight of ``hist``: the discounted mass spread over the unseen words in
            # proportion to the lower order. ``lower_mass`` < 1 unless every word followed.
            left = 1.0 - lower_mass
            alpha = (1.0 - seen_mass) / left if left > 1e-12 else 1e-12
            model.backoff[hist] = math.log10(max(alpha, 1e-12))
    return model


def _fmt(x: float) -> str:
    return f"{x:.6f}"


def write_arpa(model: ArpaModel, path: str | os.PathLike[str]) -> None:
    """Write ``model`` as an ARPA file (atomically: a temporary file is renamed into place)."""
    path = Path(path)
    by_order: dict[int, list[tuple[str, ...]]] = defaultdict(list)
    for gram in model.logprob:
        by_order[len(gram)].append(gram)
    lines = ["", "\\data\\"]
    for n in range(1, model.order + 1):
        lines.append(f"ngram {n}={len(by_order[n])}")
    for n in range(1, model.order + 1):
        lines += ["", f"\\{n}-grams:"]
        for gram in sorted(by_order[n]):
            row = f"{_fmt(model.logprob[gram])}\t{' '.join(gram)}"
            if n < model.order and gram in model.backoff:
                row += f"\t{_fmt(model.backoff[gram])}"
            lines.append(row)
    lines += ["", "\\end\\", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path)


def read_arpa(path: str | os.PathLike[str]) -> ArpaModel:
    """Read an ARPA file (as written by :func:`write_arpa`, or any plain ARPA back-off model)."""
    path = Path(path)
    model = ArpaModel(order=0)
    section = 0
    declared: dict[int, int] = {}
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line == "\\data\\":
            continue
        if line.startswith("ngram "):
            n, _, k = line[6:].partition("=")
            declared[int(n)] = int(k)
            model.order = max(model.order, int(n))
            continue
        if line.endswith("-grams:"):
            section = int(line[1 : line.index("-")])
            continue
        if line == "\\end\\":
            break
        parts = line.split()
        if section == 0 or len(parts) < section + 1:
            raise InputError(f"{path}:{lineno}: malformed ARPA line {raw!r}")
        gram = tuple(parts[1 : 1 + section])
        model.logprob[gram] = float(parts[0])
        if len(parts) == section + 2:
            model.backoff[gram] = float(parts[-1])
    for n, k in declared.items():
        got = sum(1 for g in model.logprob if len(g) == n)
        if got != k:
            raise InputError(f"{path}: header declares {k} {n}-grams, found {got}")
    return model
