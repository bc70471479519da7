"""The default predicate analyzer: the lemminflect lexicon plus documented context rules.

CGD consolidation (spec §3, docs/spec.md) needs to know which tokens of one side are *predicates*: main verbs
(Universal POS ``VERB``). Auxiliaries, modals and the copula never are. This module decides that
without any statistical model, so it is deterministic, offline and fast:

1. Closed-class words (auxiliaries, modals, contractions, pronouns, determiners, prepositions,
   conjunctions, fillers, ...) are recognised from the small word lists of
   :mod:`sitar.analyzers.lexicon_words`.
2. Every other word asks the lemminflect lexicon which Penn verb forms it can realise (``VB``,
   ``VBP``, ``VBZ``, ``VBD``, ``VBN``, ``VBG``) and whether it also has noun/adjective readings. A
   word can be a predicate only if the lexicon knows it as a VERB form.
3. One left-to-right pass assigns each token a coarse tag. A verb-capable open word is decided by
   the ordered context rules in :meth:`_Pass.decide` (the first rule that answers wins), which look
   at the previous non-transparent token of the same clause and, where needed, at the next one.

The rules and their rationale are listed in the method docstring and in the project README; any
change to them must bump :data:`RULES_VERSION`, which is part of the analyzer id and therefore of
every signature.

Layout: the word lists are data in :mod:`sitar.analyzers.lexicon_words`; per-token and per-gap
facts live in :mod:`sitar.analyzers._lexicon_facts`, the tagging pass and its rules in
:mod:`sitar.analyzers._lexicon_rules`, and the analyzer itself here.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Sequence
from itertools import compress

from sitar.analyzers._lexicon_facts import (
    _GAP_INFO,
    _TOKEN_INFO,
    _fifth,
    _first,
    _get_end,
    _get_norm,
    _get_start,
    _get_text,
    _lemminflect,
)
from sitar.analyzers._lexicon_rules import _Pass
from sitar.analyzers.lexicon_words import HEDGE_NOUNS
from sitar.errors import InputError, MissingDependencyError
from sitar.text import Token

__all__ = ["RULES_VERSION", "TAGS", "LexiconAnalyzer"]

__all__ = ["RULES_VERSION", "TAGS", "LexiconAnalyzer"]

#: Version of the word lists and context rules in this module; bump on any behaviour change.
RULES_VERSION = "1"

#: The coarse tags :meth:`LexiconAnalyzer.tags` returns; only ``VERB`` tokens are predicates.
TAGS = (
    "VERB",  # main verb: a predicate
    "BE",  # any form of be (copula or auxiliary), incl. contractions like it's, I'm, isn't
    "HAVE",  # perfect auxiliary have (has approved, I've sent, haven't)
    "MOD",  # modal, do-support, semi-modal (have to, going to, used to, gonna), let's, 'll, 'd
    "TO",  # the word "to"
    "DET",  # determiner, quantifier, possessive determiner
    "NUM",  # number (digits or a number word)
    "POSS",  # a noun with possessive 's (John's)
    "DEM",  # this / that
    "WH",  # what / which / whatever / whichever
    "SUBJ",  # subject pronoun without 3rd-person-singular agreement (I, you, we, they, who)
    "SUBJ3",  # 3rd-person-singular subject pronoun (he, she, it, there, someone, nothing, ...)
    "OBJ",  # object pronoun (me, us, them, him, object it/you/her)
    "ADP",  # preposition
    "CONJ",  # conjunction or wh-adverb that starts a new clause (and, because, when, how, ...)
    "ADV",  # transparent: adverb, negation, filler, interjection, particle, hedge
    "ADJ",  # adjective, or a participle used as one (the approved draft, is closed)
    "NOUN",  # noun, or any open word not decided to be a verb
    "PROPN",  # capitalised word inside a sentence of cased text (a name)
)


class LexiconAnalyzer:
    """Default predicate analyzer: lemminflect's lexicon plus the context rules of this module.

    >>> from sitar.text import tokenize
    >>> text = "Please don't send the search results"
    >>> sorted(LexiconAnalyzer().predicates(text, tokenize(text)))
    [2]
    """

    name = "lexicon"

    def __init__(self) -> None:
        # Only check that lemminflect is there; importing it (and loading its tables) waits for
        # the first lookup, so building the analyzer for a signature costs nothing.
        if importlib.util.find_spec("lemminflect") is None:
            raise MissingDependencyError("lemminflect", "the default lexicon analyzer")
        try:
            version = importlib.metadata.version("lemminflect")
        except importlib.metadata.PackageNotFoundError:
            version = getattr(_lemminflect(), "__version__", "unknown")
        self._id = f"lexicon-{RULES_VERSION}+lemminflect-{version}"

    @property
    def id(self) -> str:
        """``lexicon-<RULES_VERSION>+lemminflect-<version>``; recorded in signatures."""
        return self._id

    def tags(self, text: str, tokens: Sequence[Token]) -> tuple[str, ...]:
        """One coarse tag per token (see :data:`TAGS`); useful to see why a token is a predicate."""
        spans = _check_tokens(text, tokens)
        if not tokens:
            return ()
        return tuple(_Pass(text, tokens, spans).run())

    def predicates(self, text: str, tokens: Sequence[Token]) -> frozenset[int]:
        """Indices of ``tokens`` (``sitar.text.tokenize(text)``) that are main-verb predicates."""
        spans = _check_tokens(text, tokens)
        if not tokens:
            return frozenset()
        tags = _Pass(text, tokens, spans).run()
        return frozenset([i for i, tag in enumerate(tags) if tag == "VERB"])

    def _predicates_within(
        self, text: str, tokens: Sequence[Token], windows: Sequence[tuple[int, int]]
    ) -> frozenset[int] | None:
        """What :func:`sitar.cgd.segment` needs of the predicates: a set ``P`` of predicates
        inside the token windows ``[a, b)`` such that any interval inside one window holds more
        than one element of ``P`` exactly when it holds more than one predicate (consolidation
        only asks whether an envelope has more than one predicate, and only of envelopes inside
        those windows).

        ``tokens`` must be ``tokenize(text)`` and are *not* checked. Returns None (decline: the
        caller then uses :meth:`predicates`) for a subclass that overrides how predicates are
        decided.

        Only *verb-capable* tokens can be predicates (open words with a verb reading in the
        lexicon, "wanna", have/do; see :class:`_TokenInfo`), so a window with fewer than two of
        them contributes nothing. Elsewhere the predicates among the verb-capable tokens are
        exact: a pass runs from the last reset point ``s`` before the first of them (see
        :meth:`_Pass.run`) to the last. Static facts are computed for tokens ``s_min`` to
        ``c + 1`` only, ``c`` being the first clause start after the last pass's end: a pass over
        ``[s, e)`` reads no token before ``s`` (the rules look back no further than a reset
        point, and the preprocessing of a "like" at or after ``s`` stops at ``s``'s clause start
        or CONJ token) and no token after the first clause start ``c >= e`` (look-ahead stays
        inside a clause and may read its first token; a "kind of" at ``c`` needs token
        ``c + 1``). The one rule that crosses clause starts backwards -- "kind of" after a
        pronoun or adverb -- is handled by starting at token 0 when "kind"/"sort" occur.
        """
        if type(self).predicates is not LexiconAnalyzer.predicates or (
            type(self).tags is not LexiconAnalyzer.tags
        ):
            return None
        info = _TOKEN_INFO.__getitem__
        targets: list[list[int]] = []  # the verb-capable tokens of each window that has two
        for a, b in windows:
            if b - a >= 2:
                capable = list(
                    compress(range(a, b), map(_fifth, map(info, map(_get_text, tokens[a:b]))))
                )
                if len(capable) >= 2:
                    targets.append(capable)
        if not targets:
            return frozenset()
        targets.sort()
        n = len(tokens)
        e_max = max(capable[-1] for capable in targets) + 1
        # c: the first clause start after e_max - 1 (the gaps tokens[j - 1] .. tokens[j]).
        after = tokens[e_max - 1 : n]
        breaks = map(
            _first,
            map(
                _GAP_INFO.__getitem__,
                map(
                    text.__getitem__,
                    map(slice, map(_get_end, after[:-1]), map(_get_start, after[1:])),
                ),
            ),
        )
        c = next((e_max + k for k, is_break in enumerate(breaks) if is_break), n)
        hi = min(n, c + 2)
        # s_min: the last reset point at or before the first target.
        s_min = targets[0][0]
        while s_min > 0 and not (
            _GAP_INFO[text[tokens[s_min - 1].end : tokens[s_min].start]][0]
            or info(tokens[s_min].text)[1] == "CONJ"
        ):
            s_min -= 1
        folded = text.casefold()  # casefold maps characters one by one: tokens' words are in it
        if ("kind" in folded or "sort" in folded) and not HEDGE_NOUNS.isdisjoint(
            map(_get_norm, tokens[:hi])
        ):
            s_min = 0  # a hedge's context may reach back over clause starts (see __init__)
        state = _Pass(text, tokens, None, s_min, hi)
        clause_start, classes = state.clause_start, state.cls
        pass_start, pass_stop = -1, -1
        for capable in targets:
            s = capable[0]
            while s > s_min and not clause_start[s] and classes[s] != "CONJ":
                s -= 1
            if s > pass_stop:  # a new pass (passes that touch or overlap are one pass)
                if pass_stop > pass_start:
                    state.run(pass_start, pass_stop)
                pass_start = s
            pass_stop = max(pass_stop, capable[-1] + 1)
        state.run(pass_start, pass_stop)
        tags = state.tags
        return frozenset([i for capable in targets for i in capable if tags[i] == "VERB"])

    def __repr__(self) -> str:
        return f"LexiconAnalyzer(id={self._id!r})"


def _check_tokens(text: str, tokens: Sequence[Token]) -> tuple[list[str], list[int], list[int]]:
    """The tokens' texts, starts and ends, after checking that they are tokens of ``text``."""
    if not isinstance(text, str):
        raise InputError(f"the analyzer expects the original string, got {type(text).__name__}")
    try:
        texts = list(map(_get_text, tokens))
        starts = list(map(_get_start, tokens))
        ends = list(map(_get_end, tokens))
    except AttributeError:
        pass  # reported below
    else:
        # The common case, checked without a Python loop: str texts, int spans, matching text.
        if (
            set(map(type, texts)) <= {str}
            and set(map(type, starts)) <= {int}
            and set(map(type, ends)) <= {int}
            and list(map(text.__getitem__, map(slice, starts, ends))) == texts
        ):
            return texts, starts, ends
    for k, token in enumerate(tokens):
        start, end = getattr(token, "start", None), getattr(token, "end", None)
        if not (isinstance(start, int) and isinstance(end, int)) or text[start:end] != getattr(
            token, "text", None
        ):
            raise InputError(
                f"token {k} ({token!r}) does not match the text at its span; pass the tokens of this "
                "very string, i.e. sitar.text.tokenize(text)"
            )
    # Valid, but not plain str/int values (an int subclass such as bool, a str subclass).
    return [t.text for t in tokens], [t.start for t in tokens], [t.end for t in tokens]
