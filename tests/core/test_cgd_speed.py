"""The faster CGD pipeline (issue #11 item 7) against frozen copies of the code it replaced.

``tests/reference/cgd_v2.py`` and ``tests/reference/lexicon_v1.py`` are the decomposition, consolidation, span
building and lexicon analyzer exactly as they were before the speed work; every rewritten path
must give the same atomic gaps, the same tags and predicates, and the same ``Segmentation``
(tokens, gaps, spans, texts, analyzer id) on many random pairs: realistic ASR-like pairs built
from the dev set's references with word edits, pairs with many small gaps and boundary words,
and arbitrary Unicode text.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import cgd_v2
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from stub_analyzer import KeywordAnalyzer

import sitar
import sitar.decomposition as decomposition
from sitar.text import tokenize

lexicon_v1 = pytest.importorskip("lexicon_v1")
pytest.importorskip("lemminflect")

from sitar.analyzers.lexicon import LexiconAnalyzer  # noqa: E402

DEVSET = Path(__file__).resolve().parents[2] / "annotation" / "devset" / "sitar_dev_v1.source.jsonl"
REFERENCES = [json.loads(line)["reference"] for line in DEVSET.read_text("utf-8").splitlines()]
DEV_WORDS = " ".join(REFERENCES).split()

OLD = lexicon_v1.LexiconAnalyzer()
NEW = LexiconAnalyzer()

# Words that exercise the analyzer's closed classes, contractions, context rules and name rule,
# in several casings; separators that exercise clause, sentence and hyphen handling.
WORDS = (
    "the a an send search it's it’s don't don’t I I'm have has had do did does to of and but so "
    "because when can will would going used got need dare not uh um Bill mark May will 3.5 3,000 "
    "who what which that this her you it there let's lets gonna wanna be been is was approved "
    "booking work works run kids let make help kind sort like like-minded check-in follow-up "
    "results page customer calls figures look right go come back to work manager approved "
    "they we he she me them him by going used got ready meeting John's café Straße twenty-five "
    "SEND Send OK okay well yes please thanks one two hundred up out down"
).split()
SEPARATORS = [" "] * 8 + [", ", ". ", "! ", "? ", " - ", " -- ", "; ", ": ", "-", " — ", "\n", "… "]


def _text(rng: random.Random, words: list[str], n: int) -> str:
    out = []
    for k in range(n):
        out.append(rng.choice(words))
        if k < n - 1:
            out.append(rng.choice(SEPARATORS))
    return "".join(out)


def _edited(rng: random.Random, tokens: list[str], rate: float, vocab: list[str]) -> list[str]:
    """Word edits as in ``benchmarks/bench_cgd.py``: drop, substitute, add a filler."""
    hyp = []
    for w in tokens:
        r = rng.random()
        if r < rate * 5 / 13:
            continue
        if r < rate * 10 / 13:
            hyp.append(rng.choice(vocab))
        elif r < rate:
            hyp.extend([w, rng.choice(["uh", "um"])])
        else:
            hyp.append(w)
    return hyp


@st.composite
def asr_pairs(draw):
    """Benchmark-like pairs: dev-set reference text (with its punctuation and case) cut to a
    length, the hypothesis with word edits at a drawn rate; sometimes lower-cased without
    punctuation like raw recognizer output."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.sampled_from([0, 1, 2, 5, 12, 22, 40, 90]))
    tokens: list[str] = []
    while len(tokens) < n:
        tokens.extend(rng.choice(REFERENCES).split())
    ref = tokens[:n]
    hyp = _edited(rng, ref, draw(st.sampled_from([0.0, 0.05, 0.13, 0.3, 0.7])), DEV_WORDS)
    ref_s, hyp_s = " ".join(ref), " ".join(hyp)
    if draw(st.booleans()):
        hyp_s = "".join(ch for ch in hyp_s.lower() if ch.isalnum() or ch in " '")
    return ref_s, hyp_s


@st.composite
def wordy_pairs(draw):
    """Pairs over the analyzer word list with varied separators: many small gaps, boundary words
    and punctuation in bridges, predicates everywhere."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(0, 30))
    ref_words = [rng.choice(WORDS) for _ in range(n)]
    hyp_words = _edited(rng, ref_words, draw(st.sampled_from([0.1, 0.3, 0.6])), WORDS)
    seps = lambda k: [rng.choice(SEPARATORS) for _ in range(k)]  # noqa: E731
    ref = "".join(w + s for w, s in zip(ref_words, seps(n), strict=True)).rstrip()
    hyp = "".join(w + s for w, s in zip(hyp_words, seps(len(hyp_words)), strict=True))
    return ref, hyp


TRICKY = "ab'’.,-–— \n3x5ÉéßİΣ東aA!?;:…"
unicode_text = st.text(alphabet=st.sampled_from(TRICKY), max_size=30)


def _old_segment(ref: str, hyp: str, analyzer, **kwargs):
    return cgd_v2.segment(ref, hyp, analyzer=analyzer, **kwargs)


def _same_segmentation(ref: str, hyp: str) -> None:
    for consolidate, max_bridge in ((True, None), (False, None), (True, 1)):
        kwargs = {"consolidate": consolidate, "max_bridge_tokens": max_bridge}
        new = sitar.segment(ref, hyp, **kwargs)
        old = _old_segment(ref, hyp, OLD, **kwargs)
        assert new == old, (ref, hyp, kwargs)
        assert new.signature == old.signature
    stub = KeywordAnalyzer()
    assert sitar.segment(ref, hyp, analyzer=stub) == _old_segment(ref, hyp, stub)


def _atoms(gaps) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    return [(g.ref, g.hyp) for g in gaps]


# --- the analyzer ------------------------------------------------------------------------------


def _same_tags(text: str) -> None:
    tokens = tokenize(text)
    assert NEW.tags(text, tokens) == OLD.tags(text, tokens), text
    assert NEW.predicates(text, tokens) == OLD.predicates(text, tokens)


def test_analyzer_matches_v1_on_the_hand_marked_table():
    from test_analyzer import SENTENCES, XFAIL, parse_marked

    for marked in [m for _, m in SENTENCES] + list(XFAIL):
        text, _ = parse_marked(marked)
        for variant in (text, text.upper(), text.capitalize(), text.title()):
            _same_tags(variant)


def test_analyzer_matches_v1_on_dev_references():
    for text in REFERENCES:
        _same_tags(text)
        _same_tags(text.lower())


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40))
def test_analyzer_matches_v1_on_word_salad(seed, n):
    rng = random.Random(seed)
    _same_tags(_text(rng, WORDS, n))
    _same_tags(_text(rng, DEV_WORDS, n))


@settings(max_examples=300, deadline=None)
@given(unicode_text)
@example("")
@example("kind of kind of like like send")
@example("Bill will May")
def test_analyzer_matches_v1_on_unicode(text):
    _same_tags(text)


# --- segment ----------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(asr_pairs())
def test_segment_matches_v2_on_asr_pairs(pair):
    _same_segmentation(*pair)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wordy_pairs())
@example(("", ""))
@example(("send it", "send it"))
@example(("Send it, now.", "send it now"))
def test_segment_matches_v2_on_wordy_pairs(pair):
    _same_segmentation(*pair)


@settings(max_examples=200, deadline=None)
@given(unicode_text, unicode_text)
def test_segment_matches_v2_on_unicode(ref, hyp):
    _same_segmentation(ref, hyp)


# --- decomposition ------------------------------------------------------------------------------

small_vocab_seq = st.integers(1, 4).flatmap(
    lambda k: st.lists(st.sampled_from("abcd"[:k]), min_size=0, max_size=24)
)


@settings(max_examples=500, deadline=None)
@given(small_vocab_seq, small_vocab_seq)
def test_decompose_matches_v2(u, v):
    assert _atoms(decomposition.decompose(u, v)) == _atoms(cgd_v2.decompose(u, v))


@settings(max_examples=200, deadline=None)
@given(asr_pairs())
def test_decompose_matches_v2_on_asr_pairs(pair):
    u = [t.norm for t in tokenize(pair[0])]
    v = [t.norm for t in tokenize(pair[1])]
    assert _atoms(decomposition.decompose(u, v)) == _atoms(cgd_v2.decompose(u, v))


def _check_within(text: str, windows: list[tuple[int, int]]) -> None:
    """``_predicates_within``'s contract against the full v1 pass: only predicates, only inside
    the windows, and every interval inside a window has more than one of them exactly when it
    has more than one predicate."""
    tokens = tokenize(text)
    full = OLD.predicates(text, tokens)
    got = NEW._predicates_within(text, tokens, windows)
    assert got is not None and got <= full, (text, windows)
    assert all(any(a <= k < b for a, b in windows) for k in got)
    for a, b in windows:
        for lo in range(a, b):
            for hi in range(lo + 1, b + 1):
                many = sum(1 for k in full if lo <= k < hi) > 1
                assert (sum(1 for k in got if lo <= k < hi) > 1) == many, (text, (lo, hi))


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40), st.data())
@example(0, 0, None)
def test_predicates_within_windows_match_full_predicates(seed, n, data):
    """The windowed passes (from each window's last reset point, over verb-capable tokens)."""
    rng = random.Random(seed)
    text = _text(rng, WORDS, n)
    if data is None:
        text = "They. Kind of send, I think it works and so we want to book it"
    n_tokens = len(tokenize(text))
    bounds = st.integers(0, n_tokens)
    windows = (
        [(0, n_tokens), (2, 5)]
        if data is None
        else data.draw(st.lists(st.tuples(bounds, bounds), max_size=4))
    )
    # Windows as consolidation makes them: disjoint, in order (possibly empty).
    cuts = sorted(x for w in windows for x in w)
    _check_within(text, list(zip(cuts[::2], cuts[1::2], strict=True)))


def test_predicates_within_declines_for_subclasses():
    class Stricter(LexiconAnalyzer):
        def predicates(self, text, tokens):
            return frozenset()

    text = "please send it"
    assert Stricter()._predicates_within(text, tokenize(text), [(0, 3)]) is None
    assert sitar.segment("send it and check it", "sent it check", analyzer=Stricter()) == (
        _old_segment("send it and check it", "sent it check", Stricter())
    )


# Vocabularies from 2 to 40 ids: small ones repeat bigrams (the dictionary path), large ones
# rarely do (the one-bigram-per-position path).
id_seqs = st.integers(2, 40).flatmap(
    lambda k: st.tuples(
        st.lists(st.integers(0, k - 1), max_size=30), st.lists(st.integers(0, k - 1), max_size=30)
    )
)


@settings(max_examples=1000, deadline=None)
@given(id_seqs)
@example(([1, 2, 3, 9, 1, 2, 3], [1, 2, 3, 1, 2, 3]))
@example(([5, 6], [5, 6]))
@example(([7, 8, 7, 8], [8, 7, 8, 7]))
def test_small_region_candidates_match_v2(pair):
    u, v = pair
    assert decomposition._candidates_small(u, v) == cgd_v2._candidates_small(u, v)
    assert _atoms(decomposition.decompose(u, v)) == _atoms(cgd_v2.decompose(u, v))
