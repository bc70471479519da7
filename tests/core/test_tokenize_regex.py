"""The single-regex SPEC §1 tokenizer against the v1 per-character one (``tests/reference/text_v1.py``):
identical tokens, spans and normalized forms on random Unicode text."""

from __future__ import annotations

import re

import text_v1
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitar import text

# Characters that decide token boundaries: both apostrophes, both numeric joiners, digits from
# several scripts (Nd), other numbers (No, Nl), combining marks (Mn, Mc, Me), letters with and
# without case, the underscore (Pc: \w in regexes, not a token character), dashes, spaces.
TRICKY = (
    "'\u2019.,-_ \t\n"
    "0123456789\u0660\u0669\u0966\u096f\uff10\U0001d7ce"  # Nd: ASCII, Arabic-Indic, Devanagari, fullwidth, math
    "\u00bd\u00b2\u2160\u3007\u2189"  # No, No, Nl, Nl, No
    "\u0301\u0308\u0903\u20dd\u0488"  # Mn, Mn, Mc, Me, Me
    "aZßİıǅﬁΣσς東京\U00020000"  # letters incl. casefold-changing ones and a supplementary one
    '$%!?;:…–—"()[]'
)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(TRICKY), max_size=40))
@example("e\u0301t\u00e9 3,000 don\u2019t 5.x 1,a a''b 3.5.6 rock'n'roll _x_ x\u0301'y")
@example("\u0669.\u0660 \uff11,\uff12 \u00bd.5 5.\u00bd")
@example("'quoted' \u2019tis 90's")
def test_regex_tokenizer_matches_v1_on_tricky_text(s):
    assert text.tokenize(s) == text_v1.tokenize(s)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_regex_tokenizer_matches_v1_on_any_text(s):
    assert text.tokenize(s) == text_v1.tokenize(s)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_regex_tokenizer_matches_v1_on_ascii(s):
    assert text.tokenize(s) == text_v1.tokenize(s)


def _greedy(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The pattern with its possessive quantifiers made plain greedy ones."""
    return re.compile(pattern.pattern.replace("++", "+").replace(")*+", ")*"))


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="ab09'.,- ", max_size=30), st.text(alphabet="TDAJ_", max_size=30))
def test_possessive_token_patterns_match_like_greedy_ones(ascii_text, class_letters):
    for pattern, subject in ((text._ASCII_TOKEN, ascii_text), (text._CLASS_TOKEN, class_letters)):
        spans = [m.span() for m in pattern.finditer(subject)]
        assert spans == [m.span() for m in _greedy(pattern).finditer(subject)]


def test_class_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(text, "_CLASS_CACHE_LIMIT", 4)
    monkeypatch.setattr(text, "_CLASSES", text._CharClasses())
    s = "αβγδεζηθ ικλμ 12,5"
    assert text.tokenize(s) == text_v1.tokenize(s)
    assert len(text._CLASSES) <= 4


def test_fast_token_construction_is_a_real_token():
    fast = text.tokenize("ab Don't")[1]  # built by tuple.__new__ in _tokenize, not Token()
    slow = text.Token("Don't", "dont", 3, 8)
    assert type(fast) is text.Token
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert (fast.text, fast.norm, fast.start, fast.end) == ("Don't", "dont", 3, 8)
    assert fast._asdict() == {"text": "Don't", "norm": "dont", "start": 3, "end": 8}
    import pytest

    with pytest.raises(AttributeError):
        fast.norm = "x"  # type: ignore[misc]
