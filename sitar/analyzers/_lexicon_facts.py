"""What the lexicon analyzer's rules know about one token or one inter-token gap alone.

* the lemminflect lexicon profile of a word (:func:`_lookup`, imported without its spaCy hook by
  :func:`_lemminflect`) and its context-free class (:func:`_static_class`, from the word lists of
  :mod:`sitar.analyzers.lexicon_words`);
* clause and sentence breaks in the text between two tokens;
* bounded caches of both, read with ``map`` by the tagging pass
  (:mod:`sitar.analyzers._lexicon_rules`).
"""

from __future__ import annotations

import functools
import importlib.abc
import sys
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import Any

from sitar.analyzers.lexicon_words import (
    AMBIGUOUS_PRONOUNS,
    BE,
    CLAUSE_PUNCTUATION,
    CLAUSE_STARTERS,
    DEMONSTRATIVES,
    DETERMINERS,
    DO_FORMS,
    HAVE_AUX,
    HAVE_FORMS,
    IGNORED_VERB_READINGS,
    MODALS,
    NT_BASES,
    NUMBER_WORDS,
    OBJ,
    PREPOSITIONS,
    S_CONTRACTION_BASES,
    SENTENCE_PUNCTUATION,
    SUBJ,
    SUBJ3,
    TRANSPARENT,
    WH,
)
from sitar.text import APOSTROPHES


@dataclass(frozen=True, slots=True)
class _Lex:
    """What the lexicon says about one lower-cased word form."""

    readings: frozenset[str]  # UPOS tags from lemminflect: VERB, NOUN, ADJ, ADV, AUX, ...
    forms: frozenset[str]  # Penn verb tags this exact form realises; empty = never a verb
    plural_noun: bool  # has a NOUN lemma different from the form, ending in -s

    @property
    def noun(self) -> bool:
        return "NOUN" in self.readings

    @property
    def adj(self) -> bool:
        return "ADJ" in self.readings

    @property
    def verb_only(self) -> bool:
        return bool(self.forms) and not (self.noun or self.adj)


_NO_LEX = _Lex(frozenset(), frozenset(), False)


class _BlockSpacy(importlib.abc.MetaPathFinder):
    """Makes ``import spacy`` fail while lemminflect is imported (see :func:`_lemminflect`)."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname == "spacy" or fullname.startswith("spacy."):
            raise ImportError("spaCy is hidden while the lexicon analyzer imports lemminflect")
        return None


@functools.lru_cache(maxsize=1)
def _lemminflect() -> Any:
    """Import lemminflect without its spaCy hook.

    ``import lemminflect`` imports spaCy when it is installed (to register token extensions), and
    spaCy pulls in thinc and often torch: tens of seconds, for a feature we do not use. When spaCy
    is not imported yet, hide it for the duration of the import. (Consequence: lemminflect's
    ``Token._.lemma``/``._.inflect`` spaCy extensions are not registered by us; users who want them
    import spaCy before lemminflect, in which case this hiding does not happen.)
    """
    if "spacy" in sys.modules or "lemminflect" in sys.modules:
        import lemminflect

        return lemminflect
    blocker = _BlockSpacy()
    sys.meta_path.insert(0, blocker)
    try:
        import lemminflect
    finally:
        sys.meta_path.remove(blocker)
    return lemminflect


@functools.lru_cache(maxsize=65536)
def _lookup(word: str) -> _Lex:
    """Lexicon profile of a lower-cased word (cached: it runs for every token of every pair)."""
    lemminflect = _lemminflect()

    lemmas = lemminflect.getAllLemmas(word)
    forms: set[str] = set()
    for lemma in lemmas.get("VERB", ()):
        table = dict(lemminflect.getAllInflections(lemma, upos="VERB"))
        # The tables omit VBN/VBP when they equal VBD/VB (approved, book): restore them.
        table.setdefault("VBN", table.get("VBD", ()))
        table.setdefault("VBP", table.get("VB", ()))
        for tag, realised in table.items():
            if word in realised:
                forms.add(tag)
    if lemmas.get("VERB") and not forms:
        # A spelling the inflection table does not list: fall back on the ending.
        if word.endswith("ing"):
            forms.add("VBG")
        elif word.endswith("ed"):
            forms.update(("VBD", "VBN"))
        elif word.endswith("s"):
            forms.add("VBZ")
        else:
            forms.update(("VB", "VBP"))
    plural = word.endswith("s") and any(lemma != word for lemma in lemmas.get("NOUN", ()))
    return _Lex(frozenset(lemmas), frozenset(forms), plural)


def _plain(text: str) -> str:
    """Lower-cased token text with every apostrophe as U+0027."""
    text = text.casefold()
    for apostrophe in APOSTROPHES:
        text = text.replace(apostrophe, "'")
    return text


def _contraction_class(word: str) -> str | None:
    """Tag of a word written with an apostrophe, or None if it is not an auxiliary contraction."""
    base, sep, suffix = word.rpartition("'")
    if not sep:
        return None
    if word.endswith("n't"):
        return NT_BASES.get(word[:-3], "ADV")
    if suffix in ("re", "m"):
        return "BE"
    if suffix == "ve":
        return "HAVE"
    if suffix in ("ll", "d"):
        return "MOD"
    if suffix == "s":
        if base == "let":
            return "MOD"
        return "BE" if base in S_CONTRACTION_BASES else "POSS"
    return None


@functools.lru_cache(maxsize=65536)
def _static_class(word: str) -> str:
    """Context-free class of a token: a closed-class tag, a placeholder or ``"OPEN"``."""
    contraction = _contraction_class(word)
    if contraction is not None:
        return contraction
    if word in BE:
        return "BE"
    if word in HAVE_AUX:
        return "HAVE"
    if word in HAVE_FORMS:
        return "HAVEF"  # auxiliary, semi-modal or main verb: decided in context
    if word in DO_FORMS:
        return "DOF"  # do-support or main verb: decided in context
    if word in MODALS:
        return "MOD"
    if word == "to":
        return "TO"
    if word in CLAUSE_STARTERS:
        return "CONJ"
    if word in TRANSPARENT:
        return "ADV"
    if word in DEMONSTRATIVES:
        return "DEM"
    if word in NUMBER_WORDS or any(ch.isdigit() for ch in word):
        return "NUM"
    if word in DETERMINERS:
        return "DET"
    if word in WH:
        return "WH"
    if word in SUBJ:
        return "SUBJ"
    if word in SUBJ3:
        return "SUBJ3"
    if word in OBJ:
        return "OBJ"
    if word in AMBIGUOUS_PRONOUNS:
        return "PRON"
    if word == "her":
        return "HER"
    if word in PREPOSITIONS:
        return "ADP"
    return "OPEN"


@functools.lru_cache(maxsize=4096)
def _is_clause_break(gap: str) -> bool:
    """Clause punctuation, or a hyphen that is not intra-word (as in CGD's boundary rule).

    ``gap`` is the text between two adjacent tokens, so a hyphen in it is intra-word exactly when
    the gap is that single hyphen (follow-up); any other hyphen is a dash (red - blue, red -- blue).
    """
    if any(ch in CLAUSE_PUNCTUATION for ch in gap):
        return True
    return "-" in gap and gap != "-"


@functools.lru_cache(maxsize=4096)
def _is_sentence_break(gap: str) -> bool:
    return any(ch in SENTENCE_PUNCTUATION for ch in gap)


#: Entries in each of the per-token and per-gap caches below before they are emptied (bounded
#: memory on adversarial input; the working set of real text is far smaller).
_CACHE_LIMIT = 1 << 16


class _TokenInfo(dict):
    """Token text -> what the rules need to know about that token alone, computed once:
    ``(word, static class, lexicon profile, capitalised, verb-capable)``. ``capitalised`` is the
    per-token half of the name test (upper-case first character, not the pronoun I);
    ``verb-capable`` says whether :meth:`_Pass.tag` can ever return VERB for the token (have/do,
    "wanna", or an open word with a verb reading): every other class is returned as a non-verb
    tag whatever the context, and preprocessing only ever turns a class into ADV."""

    def __missing__(self, text: str) -> tuple[str, str, _Lex, bool, bool]:
        word = _plain(text)
        cls = _static_class(word)
        lex = _lookup(word) if cls == "OPEN" else _NO_LEX
        if cls == "OPEN" and word in IGNORED_VERB_READINGS:
            # Word lists override the lexicon's rare verb readings.
            lex = _Lex(lex.readings - {"VERB"}, frozenset(), False)
        capable = cls in ("HAVEF", "DOF") or (
            cls == "OPEN" and (bool(lex.forms) or word == "wanna")
        )
        info = (word, cls, lex, text[:1].isupper() and word != "i", capable)
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[text] = info
        return info


class _CaseCodes(dict):
    """Token text -> its part in the cased-text test: 0 not a word of two letters or more,
    1 such a word, capitalised, 2 such a word, not capitalised."""

    def __missing__(self, text: str) -> int:
        first = text[:1]
        code = (1 if first.isupper() else 2) if first.isalpha() and len(text) > 1 else 0
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[text] = code
        return code


class _GapInfo(dict):
    """Text between two tokens -> ``(clause break, sentence break, intra-word hyphen)``."""

    def __missing__(self, gap: str) -> tuple[bool, bool, bool]:
        info = (_is_clause_break(gap), _is_sentence_break(gap), gap == "-")
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[gap] = info
        return info


_TOKEN_INFO = _TokenInfo()
_GAP_INFO = _GapInfo()
_CASE_CODES = _CaseCodes()
_first, _second, _third, _fourth = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)
_fifth = itemgetter(4)
_get_text, _get_start, _get_end = attrgetter("text"), attrgetter("start"), attrgetter("end")
_get_norm = attrgetter("norm")
