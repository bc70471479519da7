"""Frozen copy of ``sitar/analyzers/lexicon.py`` as of commit efe927f (before the CGD speed work
of issue #11 item 7), kept as the reference the faster analyzer is checked against
(``tests/core/test_cgd_speed.py``): same word lists, same rules, same tags. Only this docstring
differs from that version. Do not optimise this file: its value is that it does not change.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.metadata
import importlib.util
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sitar.errors import InputError, MissingDependencyError
from sitar.text import APOSTROPHES, Token

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

# --- closed-class word lists (lower case, apostrophes as U+0027) --------------------------------

_BE = frozenset(
    "be am is are was were been being ain't isn't aren't wasn't weren't aint isnt arent wasnt "
    "werent im youre theyre thats whats theres heres shes".split()
)
_HAVE_FORMS = frozenset("have has had having".split())
_HAVE_AUX = frozenset("haven't hasn't hadn't havent hasnt hadnt ive youve weve theyve".split())
_DO_FORMS = frozenset("do does did".split())
_MODALS = frozenset(
    "can could will would shall should may might must ought cannot gonna gotta don't doesn't "
    "didn't dont doesnt didnt cant couldnt wont wouldnt shouldnt mustnt neednt youll theyll "
    "itll thatll youd theyd hafta".split()
)
#: Bases that precede n't in negated auxiliaries, by the tag they give.
_NT_BASES = {
    **dict.fromkeys(
        "do does did ca can could wo would sha shall should might must need dare ought".split(),
        "MOD",
    ),
    **dict.fromkeys("is are was were ai am".split(), "BE"),
    **dict.fromkeys("have has had".split(), "HAVE"),
}
#: Words before 's that make it "is"/"has" rather than a possessive.
_S_CONTRACTION_BASES = frozenset(
    "it he she that there here what who where how when why everyone everybody everything "
    "someone somebody something nothing nobody one this".split()
)
_DETERMINERS = frozenset(
    "the a an my your his its our their some any no every each another both either neither "
    "several many few whose such half much these those".split()
)
_DEMONSTRATIVES = frozenset({"this", "that"})
_WH = frozenset("what which whatever whichever".split())
_SUBJ = frozenset("i we they who whoever y'all".split())
_SUBJ3 = frozenset(
    "he she someone somebody everyone everybody anyone anybody nobody everything something "
    "nothing anything".split()
)
_OBJ = frozenset(
    "me us them him whom myself yourself himself herself itself ourselves yourselves themselves".split()
)
#: Pronouns whose subject/object role is decided from context (see _Pass.pronoun).
_AMBIGUOUS_PRONOUNS = frozenset({"you", "it", "there"})
_PREPOSITIONS = frozenset(
    "of in on at for with by from into onto about under through throughout without within during "
    "against toward towards across behind between among via per than upon near beside besides "
    "despite except inside outside beyond along amid versus as".split()
)
#: Conjunctions and wh-adverbs that start a new clause: the context resets as at a sentence start.
_CLAUSE_STARTERS = frozenset(
    "and but or nor so because cuz although though if unless until till while whereas since "
    "when whenever where wherever after before once then how why whether".split()
)
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred thousand million billion dozen".split()
)
#: Transparent words: skipped when the rules look for the previous or next word.
_TRANSPARENT = frozenset(
    # negation, fillers and interjections
    "not never uh um umm uhm uhh er erm ah eh hmm hm mm mhm huh yes yeah yep yup nope okay ok "
    "oh hi hello hey well please thanks alright wow "
    # adverbs that commonly stand between a subject/auxiliary and its verb
    "just also really actually probably maybe perhaps definitely certainly already always usually "
    "often sometimes still even only again soon now today tomorrow yesterday tonight later here "
    "right too very quite rather almost ever kindly all instead anyway basically literally "
    "totally immediately yet "
    # particles of phrasal verbs
    "up down out off back away around over forward together".split()
)
#: Verb readings in the lexicon that are too rare in speech to trust (right the wrong, I second
#: that, still the waters, better oneself, last a week, well up, okay a plan): never predicates.
_IGNORED_VERB_READINGS = frozenset(
    "right still even second well up down back over out okay ok near home further better best "
    "last next fine total yes no".split()
)
#: The verb before an object pronoun that makes a following base form a verb (let me check).
_CAUSATIVE = frozenset(
    "let lets letting make makes made making help helps helped helping have has had having see "
    "sees saw seen watch watched hear heard feel felt bid".split()
)
#: Verbs taking a clause complement without "that": the next you/it/there is a subject.
_COMPLEMENT_VERBS = frozenset(
    "think thinks thought hope hoped guess guessed believe believed know knew say says said mean "
    "meant suppose supposed bet wish wished feel felt reckon".split()
)
#: Serial verbs followed by a bare verb (go check, come see, help find).
_SERIAL_VERBS = frozenset("go goes went come comes came help helps helped".split())
_GET_FORMS = frozenset("get gets got gotten getting".split())
#: Words after which "to" is a preposition, so a following noun-or-verb word is a noun (go to work).
_TO_AS_PREPOSITION_AFTER = frozenset(
    "go goes went gone come comes came coming back return returns returned returning way "
    "according due next prior listen listens listened talk talks talked talking speak speaks "
    "spoke reply replies replied switch switched move moved moving thanks welcome close closer "
    "similar related compared up".split()
)
#: Forms that become semi-modals before "to" + verb (going to book, used to work, got to go).
_SEMI_MODAL_BEFORE_TO = frozenset({"going", "used", "got"})
_HEDGE_NOUNS = frozenset({"kind", "sort"})
#: Participles that after "be" describe a state or feeling (adjectives, not passives), unless a
#: by-phrase follows: "I'm interested", "we're married". Every other participle after be is a
#: passive verb (was charged, is closed, got approved).
_ADJECTIVAL_PARTICIPLES = frozenset(
    "interested excited tired married worried pleased confused disappointed concerned supposed "
    "done based scared surprised satisfied bored annoyed frustrated embarrassed amazed exhausted "
    "located stuck engaged divorced qualified dressed relieved impressed".split()
)
_CLAUSE_PUNCTUATION = frozenset(".!?;:,…–—\n")
_SENTENCE_PUNCTUATION = frozenset(".!?:…\n")

_AUX_TAGS = frozenset({"BE", "HAVE", "MOD"})
#: Static classes after which a bare "like" may be a verb (I like, would you like, to like).
_LIKE_VERB_AFTER = frozenset({"SUBJ", "PRON", "MOD", "DOF", "TO", "HAVE"})
_DET_LIKE = frozenset({"DET", "POSS", "NUM"})


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


def _plain(token: Token) -> str:
    """Lower-cased token text with every apostrophe as U+0027."""
    text = token.text.casefold()
    for apostrophe in APOSTROPHES:
        text = text.replace(apostrophe, "'")
    return text


def _contraction_class(word: str) -> str | None:
    """Tag of a word written with an apostrophe, or None if it is not an auxiliary contraction."""
    base, sep, suffix = word.rpartition("'")
    if not sep:
        return None
    if word.endswith("n't"):
        return _NT_BASES.get(word[:-3], "ADV")
    if suffix in ("re", "m"):
        return "BE"
    if suffix == "ve":
        return "HAVE"
    if suffix in ("ll", "d"):
        return "MOD"
    if suffix == "s":
        if base == "let":
            return "MOD"
        return "BE" if base in _S_CONTRACTION_BASES else "POSS"
    return None


@functools.lru_cache(maxsize=65536)
def _static_class(word: str) -> str:
    """Context-free class of a token: a closed-class tag, a placeholder or ``"OPEN"``."""
    contraction = _contraction_class(word)
    if contraction is not None:
        return contraction
    if word in _BE:
        return "BE"
    if word in _HAVE_AUX:
        return "HAVE"
    if word in _HAVE_FORMS:
        return "HAVEF"  # auxiliary, semi-modal or main verb: decided in context
    if word in _DO_FORMS:
        return "DOF"  # do-support or main verb: decided in context
    if word in _MODALS:
        return "MOD"
    if word == "to":
        return "TO"
    if word in _CLAUSE_STARTERS:
        return "CONJ"
    if word in _TRANSPARENT:
        return "ADV"
    if word in _DEMONSTRATIVES:
        return "DEM"
    if word in _NUMBER_WORDS or any(ch.isdigit() for ch in word):
        return "NUM"
    if word in _DETERMINERS:
        return "DET"
    if word in _WH:
        return "WH"
    if word in _SUBJ:
        return "SUBJ"
    if word in _SUBJ3:
        return "SUBJ3"
    if word in _OBJ:
        return "OBJ"
    if word in _AMBIGUOUS_PRONOUNS:
        return "PRON"
    if word == "her":
        return "HER"
    if word in _PREPOSITIONS:
        return "ADP"
    return "OPEN"


class _Pass:
    """One left-to-right tagging pass over the tokens of one string."""

    def __init__(self, text: str, tokens: Sequence[Token]) -> None:
        self.text = text
        self.tokens = tokens
        n = len(tokens)
        self.words = [_plain(t) for t in tokens]
        self.cls = [_static_class(w) for w in self.words]
        self.lex = [
            _lookup(w) if c == "OPEN" else _NO_LEX
            for w, c in zip(self.words, self.cls, strict=True)
        ]
        # Word lists override the lexicon's rare verb readings.
        for i, w in enumerate(self.words):
            if self.cls[i] == "OPEN" and w in _IGNORED_VERB_READINGS:
                self.lex[i] = _Lex(self.lex[i].readings - {"VERB"}, frozenset(), False)
        gaps = [
            text[tokens[i - 1].end : tokens[i].start] if i else text[: tokens[0].start]
            for i in range(n)
        ]
        self.clause_start = [i == 0 or _is_clause_break(g) for i, g in enumerate(gaps)]
        self.sentence_start = [i == 0 or _is_sentence_break(g) for i, g in enumerate(gaps)]
        self.cased = _is_cased(text, tokens)
        # hyphen_after[i]: token i is joined to token i + 1 by an intra-word hyphen (follow-up).
        self.hyphen_after = [g == "-" for g in gaps[1:]] + [False]
        # Hedges "kind of" / "sort of" after a pronoun or adverb are transparent as a whole.
        for i in range(n - 1):
            if self.words[i] in _HEDGE_NOUNS and self.words[i + 1] == "of":
                if i == 0 or self.cls[i - 1] in ("SUBJ", "SUBJ3", "PRON", "ADV", "MOD", "BE"):
                    self.cls[i] = self.cls[i + 1] = "ADV"
        # Bare "like" not after a subject, modal, do or "to" is a filler or preposition (so like
        # the app, keeps like logging, looks like rain): transparent for the look-ahead as well.
        for i in range(n):
            if self.words[i] == "like":
                j = i - 1
                while j >= 0 and self.cls[j] == "ADV" and not self.clause_start[j + 1]:
                    j -= 1
                if j < 0 or self.clause_start[j + 1] or self.cls[j] not in _LIKE_VERB_AFTER:
                    self.cls[i] = "ADV"
        self.tags: list[str] = [""] * n

    # --- navigation -------------------------------------------------------------------------

    def next_index(self, i: int) -> int | None:
        """The next non-transparent token after ``i`` in the same clause, or None."""
        j = i + 1
        while j < len(self.tokens) and not self.clause_start[j]:
            if self.cls[j] != "ADV":
                return j
            j += 1
        return None

    def is_open_verb(self, j: int | None, form: str) -> bool:
        """Token ``j`` is an open word that can realise the verb form ``form``."""
        return (
            j is not None
            and self.cls[j] == "OPEN"
            and form in self.lex[j].forms
            and not self.is_name(j)
        )

    def base_verb_ahead(self, j: int | None) -> bool:
        """Token ``j`` can be a bare verb (open VB form, or have/do)."""
        return j is not None and (self.is_open_verb(j, "VB") or self.words[j] in ("have", "do"))

    def starts_noun_phrase(self, j: int | None) -> bool:
        """Token ``j`` begins a noun phrase: determiner, number, pronoun, name or a noun-only word."""
        if j is None:
            return False
        if self.cls[j] in ("DET", "NUM", "POSS", "DEM", "OBJ", "PRON", "HER", "SUBJ3"):
            return True
        if self.cls[j] == "OPEN":
            lex = self.lex[j]
            return self.is_name(j) or (not lex.forms and (lex.noun or lex.adj))
        return False

    def starts_object(self, j: int | None) -> bool:
        """Token ``j`` is a determiner, number, possessive, pronoun or name: it opens an object."""
        if j is None:
            return False
        if self.cls[j] in ("DET", "NUM", "POSS", "DEM", "OBJ", "PRON", "HER"):
            return True
        return self.cls[j] == "OPEN" and self.is_name(j)

    def question_position(self, ctx: str, ctx_i: int) -> bool:
        """Whether an auxiliary here is clause-initial: at the start, after what/which/how/where...,
        or after a what/which/how + word (what time does, how much does, how long will)."""
        if ctx in ("START", "WH"):
            return True
        # Walk back over a short noun phrase (what kind of plan, how many people) to the wh-word.
        j = ctx_i
        for _ in range(5):
            if j < 0 or not (
                self.tags[j] in ("NOUN", "DET", "ADJ", "NUM") or self.words[j] == "of"
            ):
                return False
            j = self.previous_index(j)
            if j >= 0 and (self.tags[j] == "WH" or self.words[j] == "how"):
                return True
        return False

    def after_compound(self, i: int) -> int | None:
        """The next non-transparent token after the hyphenated word that starts at ``i``."""
        while self.hyphen_after[i]:
            i += 1
        return self.next_index(i)

    def aux_ahead(self, j: int | None) -> bool:
        return j is not None and self.cls[j] in ("BE", "HAVE", "HAVEF", "DOF", "MOD")

    def is_name(self, i: int) -> bool:
        """A capitalised word inside a sentence of cased text is a name (PROPN)."""
        text = self.tokens[i].text
        return (
            self.cased
            and not self.sentence_start[i]
            and text[:1].isupper()
            and self.words[i] != "i"
        )

    def inverted_subject_ahead(self, j: int | None, form: str) -> bool:
        """Question order after a clause-initial auxiliary: subject, then a verb of ``form``.

        The subject is a pronoun, or a determiner followed by up to three more words; the verb must
        come at least two words after the determiner (did the manager approve, has the order shipped).
        """
        if j is None:
            return False

        def verb_at(k: int | None) -> bool:
            if form == "VB":
                return self.base_verb_ahead(k)
            return self.is_open_verb(k, form) or (k is not None and self.words[k] == "been")

        if self.cls[j] in ("SUBJ", "SUBJ3", "PRON", "DEM"):
            return verb_at(self.next_index(j))
        if self.cls[j] in _DET_LIKE:
            k: int | None = j
            for step in range(4):
                k = self.next_index(k) if k is not None else None
                if k is None or self.cls[k] not in ("OPEN", "DET", "NUM"):
                    return False
                if step >= 1 and verb_at(k):
                    return True
        return False

    # --- the pass ---------------------------------------------------------------------------

    def run(self) -> list[str]:
        ctx_tag, ctx_i = "START", -1
        inverted: str | None = None  # clause-initial auxiliary still waiting for its verb
        head_seen = False  # a subject head was seen after that auxiliary
        for i in range(len(self.tokens)):
            if self.clause_start[i]:
                ctx_tag, ctx_i, inverted, head_seen = "START", -1, None, False
            tag = self.tag(i, ctx_tag, ctx_i, inverted)
            self.tags[i] = tag
            if tag == "CONJ":
                ctx_tag, ctx_i, inverted, head_seen = "START", -1, None, False
                continue
            if tag == "ADV":
                continue
            if tag in _AUX_TAGS and self.question_position(ctx_tag, ctx_i):
                inverted, head_seen = tag, False
            elif tag == "VERB" or tag in _AUX_TAGS:
                inverted = None
            elif inverted is not None:
                if tag in ("SUBJ", "SUBJ3", "NOUN", "PROPN", "OBJ"):
                    head_seen = True
                elif tag in ("DET", "NUM", "POSS", "DEM") and head_seen:
                    inverted = None  # a second noun phrase: not a question subject any more
                elif tag not in ("ADJ", "DET", "NUM", "POSS", "DEM"):
                    inverted = None
            ctx_tag, ctx_i = tag, i
        return self.tags

    def tag(self, i: int, ctx: str, ctx_i: int, inverted: str | None) -> str:
        cls, word = self.cls[i], self.words[i]
        if cls == "HAVEF":
            return self.have_form(i, ctx, ctx_i)
        if cls == "DOF":
            return self.do_form(i, ctx, ctx_i)
        if cls == "PRON":
            return self.pronoun(i, ctx, ctx_i)
        if cls == "HER":
            nxt = i + 1 < len(self.tokens) and not self.clause_start[i + 1]
            if nxt and self.cls[i + 1] == "OPEN" and (self.lex[i + 1].noun or self.lex[i + 1].adj):
                return "DET"
            return "OBJ"
        if cls == "MOD" and word in ("may", "will", "can", "must"):
            if self.is_name(i):
                return "PROPN"
            if ctx in ("DET", "NUM", "POSS", "ADJ", "DEM"):
                return "NOUN"  # the will, a can
        if word == "one" and ctx in ("DET", "ADJ", "DEM", "NOUN"):
            return "NOUN"  # the blue one: a pronoun head, not a number
        if cls != "OPEN":
            return cls
        if self.is_name(i):
            return "PROPN"
        if word == "wanna":
            return "VERB"  # want to: a main verb; the next bare verb is an infinitive (R6)
        if word == "like" and not self.like_is_verb(i, ctx, inverted):
            return (
                "ADV"  # filler or preposition: so like the app, looks like rain, for like an hour
            )
        lex = self.lex[i]
        if not lex.forms:
            if lex.noun or not lex.readings:
                return "NOUN"
            if lex.adj:
                return "ADJ"
            return "ADV"  # ADV-only words in the lexicon (quickly, here)
        if word in ("need", "dare") and self.is_modal_need(i):
            return "MOD"
        if word in _SEMI_MODAL_BEFORE_TO and self.semi_modal_to(i):
            return "MOD"
        if self.decide(i, ctx, ctx_i, inverted):
            return "VERB"
        return self.non_verb_tag(lex)

    @staticmethod
    def non_verb_tag(lex: _Lex) -> str:
        if lex.noun and not (lex.forms & {"VBN", "VBD"} and not lex.forms & {"VB", "VBZ", "VBG"}):
            return "NOUN"
        return "ADJ"

    def like_is_verb(self, i: int, ctx: str, inverted: str | None) -> bool:
        """Bare "like" is a verb only after a subject pronoun or a modal/do-support (I like it,
        would you like, don't like) or after "to" when no bare verb follows (to like it, not the
        filler in "to like check"). Elsewhere it is a filler or a preposition."""
        if ctx == "SUBJ" or ctx == "MOD" or (inverted == "MOD" and ctx in ("SUBJ3", "NOUN")):
            return True
        if ctx == "TO":
            return not self.base_verb_ahead(self.next_index(i))
        return False

    def is_modal_need(self, i: int) -> bool:
        """need/dare are modals before "not" + bare verb (you need not worry)."""
        n = len(self.tokens)
        return (
            i + 2 < n
            and self.words[i + 1] == "not"
            and not self.clause_start[i + 1]
            and self.base_verb_ahead(i + 2)
        )

    def semi_modal_to(self, i: int) -> bool:
        """going/used/got + to + bare verb (going to book, used to work, got to go)."""
        n = len(self.tokens)
        return (
            i + 2 < n
            and self.words[i + 1] == "to"
            and not self.clause_start[i + 1]
            and not self.clause_start[i + 2]
            and self.base_verb_ahead(i + 2)
        )

    def have_form(self, i: int, ctx: str, ctx_i: int) -> str:
        """have/has/had/having: semi-modal before to + verb, auxiliary before a participle (also in
        question order), otherwise a main verb (I have a car) and so a predicate."""
        if self.semi_modal_to(i):
            return "MOD"
        j = self.next_index(i)
        if self.is_open_verb(j, "VBN") or (j is not None and self.words[j] == "been"):
            return "HAVE"
        if self.question_position(ctx, ctx_i) and self.inverted_subject_ahead(j, "VBN"):
            return "HAVE"
        return "VERB"

    def do_form(self, i: int, ctx: str, ctx_i: int) -> str:
        """do/does/did: do-support before a bare verb (also in question order), else a main verb
        (do the dishes, I did it) and so a predicate."""
        j = self.next_index(i)
        if self.base_verb_ahead(j):
            return "MOD"
        if self.question_position(ctx, ctx_i) and self.inverted_subject_ahead(j, "VB"):
            return "MOD"
        return "VERB"

    def pronoun(self, i: int, ctx: str, ctx_i: int) -> str:
        """you / it / there: a subject unless they follow a verb or preposition as its object; after
        a verb of saying/thinking, or before an auxiliary or a finite verb, they are subjects."""
        subj = "SUBJ" if self.words[i] == "you" else "SUBJ3"
        if ctx not in ("VERB", "ADP", "TO", "OBJ"):
            return subj
        if ctx == "VERB" and self.words[ctx_i] in _COMPLEMENT_VERBS:
            return subj
        j = self.next_index(i)
        if self.aux_ahead(j):
            return subj
        if j is not None and self.cls[j] == "OPEN":
            forms = self.lex[j].forms
            if subj == "SUBJ3" and forms & {"VBZ", "VBD"}:
                return subj
        return "OBJ"

    def decide(self, i: int, ctx: str, ctx_i: int, inverted: str | None) -> bool:
        """Whether the verb-capable open word ``i`` is a predicate. Ordered rules, first answer wins.

        R0 hyphenated compound: the first part of a hyphenated word is a verb only where the context
           demands one (to/modal/subject/auxiliary before it, or a clause start): not in "the red
           follow-up", "my check-in time"; a part after a closed-class word is never a verb
           (so-called, up-to-date). The particle after it (up, in) is transparent anyway.
        R1 repetition: the same word right after itself (fillers and adverbs skipped) copies its
           decision (send uh send it).
        R2 inversion: after a clause-initial auxiliary and its subject, the auxiliary's rule applies
           (can you send -> R7, is the order approved -> R8, have you sent -> R9).
        R3 determiner: after a determiner, possessive or number it is a noun/adjective (the search,
           my work, the approved draft); after a number a verb-only word stays a verb; after a
           possessive 's a verb-only -ing/-ed form is a verb (John's calling = John is calling).
        R4 this/that: a verb only as -s or past form (that works, that changed) not (that plan).
        R5 adjective: after an adjective a noun-capable word is a noun and a participle an adjective.
        R6 infinitive: after "to" (or wanna) a base form is a verb, except a noun-capable word when
           "to" follows go/come/back/according/... (go to work).
        R7 modal/do-support: after a modal, do-support, semi-modal or let's a base form is a verb
           (and a participle after 'd: I'd booked).
        R8 be: after a form of be an -ing form or a participle is a verb (is searching, was approved,
           was charged), except an -ing form the lexicon also lists as an adjective with no object
           after it (is missing; "going" is always a verb) and a participle from the list of state
           participles with no by-phrase after it (I'm interested, we're married).
        R9 have: after perfect have a participle is a verb (has approved).
        R10 preposition: after a preposition an -ing form is a verb if it has no noun reading or an
           object follows (for calling the bank; not for training purposes); a verb-only base
           form is a verb, the preposition being a particle (hold on let me check).
        R11 what/which: a verb only as -s or past form (what happened) not (which plan).
        R12 subject pronoun: after I/we/they/you/who a verb; after he/she/it/there only an -s,
           past or -ing form (it works; not it back).
        R13 object pronoun: after an object a bare verb only follows let/make/help/see/hear..., an
           -ing form only those, a participle only have/get (let me check, had it fixed).
        R14 noun: after a noun a past form is a verb (the manager approved); an -s form is a verb
           unless a following auxiliary or finite verb shows it is the subject head (customer calls
           are) or it ends the clause after a noun that is also a verb (the search results); a base
           form is a verb after a plural noun (customers want, the figures look right) unless that
           plural is also a verb and the word heads a compound (the results page [is]); an -ing
           form is a verb when an object follows or it has no noun reading.
        R15 verb: after a main verb an -ing form is a verb (stop calling), a bare verb after
           go/come/help (go check), a participle after get (got approved); anything else is its
           object (I need help).
        R16 clause start: at the start of a sentence or clause (also after and/because/...), an
           imperative or subject-less verb: base forms are verbs unless an auxiliary follows (Work
           is hard, check-in has), a subject pronoun follows (like I said), a noun and then an
           auxiliary or verb-only word follow (warehouse staff can, Search results appear), or an
           adjective reading stands before to/preposition/end (Ready to go); -s forms are verbs
           only before an object; -ing forms with a noun reading only before an object (Meeting
           at noon). A bare "like" counts only after a subject, modal, do or "to" (see tag()).
        R17 default: verb-only words are verbs, noun/adjective-capable words are not.
        """
        lex = self.lex[i]
        forms = lex.forms
        word = self.words[i]
        # R0 hyphenated compound
        if i > 0 and self.hyphen_after[i - 1] and self.cls[i - 1] not in ("OPEN", "HAVEF", "DOF"):
            return False
        if self.hyphen_after[i] and ctx not in (
            "START",
            "TO",
            "MOD",
            "SUBJ",
            "SUBJ3",
            "BE",
            "HAVE",
        ):
            return False
        # R1 repetition
        if ctx_i >= 0 and self.words[ctx_i] == word:
            return self.tags[ctx_i] == "VERB"
        # R2 inversion
        if inverted is not None and ctx in ("SUBJ", "SUBJ3", "NOUN", "PROPN"):
            answer = self.after_aux(i, inverted, ctx_i)
            if answer is not None:
                return answer
        # R3 determiner / number / possessive
        if ctx == "DET":
            return False
        if ctx == "NUM":
            return lex.verb_only
        if ctx == "POSS":
            return lex.verb_only and bool(forms & {"VBG", "VBN"})
        # R4 this / that
        if ctx == "DEM":
            return bool(forms & {"VBZ", "VBD"})
        # R5 adjective
        if ctx == "ADJ":
            if lex.noun or not forms & {"VB", "VBP", "VBZ"}:
                return False
            return lex.verb_only
        # R6 infinitive
        if ctx == "TO" or (ctx == "VERB" and self.words[ctx_i] == "wanna"):
            if "VB" not in forms:
                return lex.verb_only
            if ctx == "TO" and lex.noun:
                before = self.previous_word(ctx_i)
                if before in _TO_AS_PREPOSITION_AFTER:
                    return False
            return True
        # R7 - R9 auxiliaries
        if ctx in _AUX_TAGS:
            answer = self.after_aux(i, ctx, ctx_i)
            if answer is not None:
                return answer
            return lex.verb_only
        # R10 preposition
        if ctx == "ADP":
            if lex.verb_only and "VB" in forms:
                return True  # a particle read as a preposition: hold on, let me check
            return "VBG" in forms and (not lex.noun or self.starts_object(self.next_index(i)))
        # R11 what / which
        if ctx == "WH":
            return bool(forms & {"VBZ", "VBD"})
        # R12 subject pronoun
        if ctx == "SUBJ":
            return True
        if ctx == "SUBJ3":
            return bool(forms & {"VBZ", "VBD", "VBN", "VBG"})
        # R13 object pronoun
        if ctx == "OBJ":
            governor = self.previous_word(ctx_i)
            if "VB" in forms and governor in _CAUSATIVE:
                return True
            if "VBG" in forms and governor in _CAUSATIVE:
                return True
            if forms & {"VBN", "VBD"} and (governor in _GET_FORMS or governor in _HAVE_FORMS):
                return True
            return False
        # R14 noun
        if ctx in ("NOUN", "PROPN"):
            return self.after_noun(i, ctx, ctx_i)
        # R15 verb
        if ctx == "VERB":
            previous = self.words[ctx_i]
            if "VBG" in forms:
                return True
            if "VB" in forms and previous in _SERIAL_VERBS:
                return True
            if forms & {"VBN", "VBD"} and previous in _GET_FORMS:
                return True
            return False
        # R16 clause start
        if ctx == "START":
            return self.at_clause_start(i)
        # R17 default
        return lex.verb_only

    def previous_index(self, i: int) -> int:
        """The token before ``i`` in the same clause, skipping transparent words; -1 if none."""
        j = i - 1
        while j >= 0 and not self.clause_start[j + 1]:
            if self.cls[j] != "ADV":
                return j
            j -= 1
        return -1

    def previous_word(self, i: int) -> str:
        """The word before token ``i`` in the same clause, skipping transparent words."""
        j = self.previous_index(i)
        return self.words[j] if j >= 0 else ""

    def after_aux(self, i: int, aux: str, aux_i: int) -> bool | None:
        lex = self.lex[i]
        forms = lex.forms
        if aux == "MOD":  # R7
            if "VB" in forms:
                return True
            if forms & {"VBN", "VBD"} and self.words[aux_i].endswith("'d"):
                return True
            return None
        if aux == "BE":  # R8
            nxt = self.next_index(i)
            if "VBG" in forms:
                if lex.adj and self.words[i] != "going" and not self.starts_noun_phrase(nxt):
                    return False
                return True
            if "VBN" in forms:
                if self.words[i] in _ADJECTIVAL_PARTICIPLES and not (
                    nxt is not None and self.words[nxt] == "by"
                ):
                    return False
                return True
            if lex.noun or lex.adj:
                return False
            return None
        if aux == "HAVE":  # R9
            if "VBN" in forms:
                return True
            return None
        return None

    def after_noun(self, i: int, ctx: str, ctx_i: int) -> bool:
        lex = self.lex[i]
        forms = lex.forms
        noun_is_verb = ctx == "NOUN" and bool(self.lex[ctx_i].forms)
        if forms & {"VBD", "VBN"} and not forms & {"VB", "VBZ"}:
            return True
        if "VBZ" in forms:
            if not lex.noun:
                return True
            nxt = self.next_index(i)
            if self.aux_ahead(nxt) or (
                nxt is not None
                and self.cls[nxt] == "OPEN"
                and self.lex[nxt].forms & {"VB", "VBZ", "VBD"}
            ):
                return False  # subject head of a following verb: customer calls are, page loads
            return nxt is not None or not noun_is_verb
        if forms & {"VB", "VBP"}:
            if lex.verb_only:
                return True
            plural = ctx == "NOUN" and self.lex[ctx_i].plural_noun
            if plural and not noun_is_verb:
                return not self.aux_ahead(self.next_index(i))  # customers want; the sales team must
            if plural:
                # A plural that is also a verb form (figures, kids, results): a verb unless it is a
                # compound head (the results page is..., the results page loads, the results page).
                nxt = self.next_index(i)
                if self.aux_ahead(nxt):
                    return False
                if nxt is not None and self.cls[nxt] == "OPEN":
                    return not self.lex[nxt].forms & {"VB", "VBZ", "VBD"}
                if nxt is None:
                    return i + 1 < len(self.tokens) and not self.clause_start[i + 1]
                return True
            if forms & {"VBD", "VBN"}:
                return True  # read, put, set: past form after a singular noun
            return False
        if "VBG" in forms:
            return self.starts_object(self.next_index(i)) or not lex.noun
        return lex.verb_only

    def at_clause_start(self, i: int) -> bool:
        lex = self.lex[i]
        forms = lex.forms
        nxt = self.next_index(i)
        if nxt is not None and (
            self.cls[nxt] == "SUBJ"
            or (self.cls[nxt] == "SUBJ3" and self.words[nxt] in ("he", "she"))
        ):
            return False
        if lex.verb_only:
            return True
        if forms & {"VB", "VBP"}:
            if self.aux_ahead(nxt) or (
                self.hyphen_after[i] and self.aux_ahead(self.after_compound(i))
            ):
                return False  # Work is hard; check-in has moved
            if nxt is not None and self.cls[nxt] == "OPEN" and self.lex[nxt].noun:
                after = self.next_index(nxt)
                if self.aux_ahead(after) or (
                    after is not None and self.cls[after] == "OPEN" and self.lex[after].verb_only
                ):
                    return False  # noun modifier of a subject: warehouse staff can, search results appear
            if lex.adj and (nxt is None or self.cls[nxt] in ("TO", "ADP")):
                return False
            return True
        if "VBZ" in forms:
            return self.starts_noun_phrase(nxt)
        if forms & {"VBD", "VBN"}:
            return True
        if "VBG" in forms:
            return self.starts_object(nxt) or not lex.noun
        return False


@functools.lru_cache(maxsize=4096)
def _is_clause_break(gap: str) -> bool:
    """Clause punctuation, or a hyphen that is not intra-word (as in CGD's boundary rule).

    ``gap`` is the text between two adjacent tokens, so a hyphen in it is intra-word exactly when
    the gap is that single hyphen (follow-up); any other hyphen is a dash (red - blue, red -- blue).
    """
    if any(ch in _CLAUSE_PUNCTUATION for ch in gap):
        return True
    return "-" in gap and gap != "-"


@functools.lru_cache(maxsize=4096)
def _is_sentence_break(gap: str) -> bool:
    return any(ch in _SENTENCE_PUNCTUATION for ch in gap)


def _is_cased(text: str, tokens: Sequence[Token]) -> bool:
    """Whether capitals carry information: not all-caps text, not every word capitalised."""
    if not any(ch.islower() for ch in text):
        return False
    words = [t.text for t in tokens if t.text[:1].isalpha() and len(t.text) > 1]
    return not words or not all(w[:1].isupper() for w in words)


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
        _check_tokens(text, tokens)
        if not tokens:
            return ()
        return tuple(_Pass(text, tokens).run())

    def predicates(self, text: str, tokens: Sequence[Token]) -> frozenset[int]:
        """Indices of ``tokens`` (``sitar.text.tokenize(text)``) that are main-verb predicates."""
        return frozenset(i for i, tag in enumerate(self.tags(text, tokens)) if tag == "VERB")

    def __repr__(self) -> str:
        return f"LexiconAnalyzer(id={self._id!r})"


def _check_tokens(text: str, tokens: Sequence[Token]) -> None:
    if not isinstance(text, str):
        raise InputError(f"the analyzer expects the original string, got {type(text).__name__}")
    for k, token in enumerate(tokens):
        start, end = getattr(token, "start", None), getattr(token, "end", None)
        if not (isinstance(start, int) and isinstance(end, int)) or text[start:end] != getattr(
            token, "text", None
        ):
            raise InputError(
                f"token {k} ({token!r}) does not match the text at its span; pass the tokens of this "
                "very string, i.e. sitar.text.tokenize(text)"
            )
