"""The lexicon analyzer's context rules: one left-to-right tagging pass over one string.

:class:`_Pass` assigns each token a coarse tag (:data:`sitar.analyzers.lexicon.TAGS`); a
verb-capable open word is decided by the ordered context rules of :meth:`_Pass.decide`. Per-token
facts come from :mod:`sitar.analyzers._lexicon_facts`, word lists from
:mod:`sitar.analyzers.lexicon_words`. Any behaviour change must bump
:data:`sitar.analyzers.lexicon.RULES_VERSION`.
"""

from __future__ import annotations

from collections.abc import Sequence

from sitar.analyzers._lexicon_facts import (
    _CASE_CODES,
    _GAP_INFO,
    _NO_LEX,
    _TOKEN_INFO,
    _first,
    _fourth,
    _get_end,
    _get_start,
    _get_text,
    _Lex,
    _second,
    _third,
)
from sitar.analyzers.lexicon_words import (
    ADJECTIVAL_PARTICIPLES,
    AUX_TAGS,
    CAUSATIVE,
    COMPLEMENT_VERBS,
    DET_LIKE,
    FIXED_CLASSES,
    GET_FORMS,
    HAVE_FORMS,
    HEDGE_NOUNS,
    LIKE_VERB_AFTER,
    SEMI_MODAL_BEFORE_TO,
    SERIAL_VERBS,
    TO_AS_PREPOSITION_AFTER,
)
from sitar.text import Token


class _Pass:
    """One left-to-right tagging pass over the tokens of one string."""

    def __init__(
        self,
        text: str,
        tokens: Sequence[Token],
        spans: tuple[list[str], list[int], list[int]] | None = None,
        lo: int = 0,
        hi: int | None = None,
    ) -> None:
        """Static facts of tokens ``lo`` to ``hi - 1`` (default: all) of ``tokens``.

        ``spans``: the texts, starts and ends of *all* tokens when the caller has them (checked
        by :func:`_check_tokens`); otherwise they are read from ``tokens[lo : hi + 1]``.

        Everything that depends on one token or one inter-token gap alone comes from the caches
        :data:`_TOKEN_INFO` and :data:`_GAP_INFO`, read with ``map`` so that no bytecode runs per
        token here; the per-token rules run in :meth:`run`. Outside ``[lo, hi)`` the lists hold
        neutral placeholders (no word, no class, a clause start); a partial range is only for
        :meth:`LexiconAnalyzer._predicates_within`, which proves that its passes read nothing
        there.
        """
        self.text = text
        self.tokens = tokens
        self.n = n = len(tokens)
        hi = n if hi is None else hi
        top = min(n, hi + 1)  # the gap after token hi - 1 says whether it is hyphenated
        if spans is None:
            part = tokens[max(0, lo - 1) : top]
            texts = list(map(_get_text, part))
            starts = list(map(_get_start, part))
            ends = list(map(_get_end, part))
            offset = max(0, lo - 1)
        else:
            texts, starts, ends = spans
            offset = 0
        # Local positions of tokens lo .. top - 1 in texts/starts/ends.
        first, last = lo - offset, top - offset
        infos = list(map(_TOKEN_INFO.__getitem__, texts[first : first + hi - lo]))
        gap_starts = ends[first - 1 : last - 1] if first else [0, *ends[: last - 1]]
        gaps = map(text.__getitem__, map(slice, gap_starts, starts[first:last]))
        gap_infos = list(map(_GAP_INFO.__getitem__, gaps))

        self.words: list[str] = [""] * n
        self.cls: list[str] = [""] * n
        self.lex: list[_Lex] = [_NO_LEX] * n
        self.capitalised: list[bool] = [False] * n
        self.clause_start: list[bool] = [True] * n
        self.sentence_start: list[bool] = [True] * n
        # hyphen_after[i]: token i is joined to token i + 1 by an intra-word hyphen (follow-up).
        self.hyphen_after: list[bool] = [False] * n
        self.words[lo:hi] = map(_first, infos)
        self.cls[lo:hi] = map(_second, infos)
        self.lex[lo:hi] = map(_third, infos)
        self.capitalised[lo:hi] = map(_fourth, infos)
        self.clause_start[lo:hi] = map(_first, gap_infos[: hi - lo])
        self.sentence_start[lo:hi] = map(_second, gap_infos[: hi - lo])
        self.hyphen_after[lo : top - 1] = map(_third, gap_infos[1:])
        if n and lo == 0:
            self.clause_start[0] = self.sentence_start[0] = True
        self._cased: bool | None = None
        words, cls = self.words, self.cls
        # Hedges "kind of" / "sort of" after a pronoun or adverb are transparent as a whole.
        if not HEDGE_NOUNS.isdisjoint(words):
            for i in range(lo, hi - 1):
                if words[i] in HEDGE_NOUNS and words[i + 1] == "of":
                    if i == 0 or cls[i - 1] in ("SUBJ", "SUBJ3", "PRON", "ADV", "MOD", "BE"):
                        cls[i] = cls[i + 1] = "ADV"
        # Bare "like" not after a subject, modal, do or "to" is a filler or preposition (so like
        # the app, keeps like logging, looks like rain): transparent for the look-ahead as well.
        if "like" in words:
            for i in range(lo, hi):
                if words[i] == "like":
                    j = i - 1
                    while j >= 0 and cls[j] == "ADV" and not self.clause_start[j + 1]:
                        j -= 1
                    if j < 0 or self.clause_start[j + 1] or cls[j] not in LIKE_VERB_AFTER:
                        cls[i] = "ADV"
        self.tags: list[str] = [""] * n

    @property
    def cased(self) -> bool:
        """Whether capitals carry information: not all-caps text, not every word capitalised.
        A property of the whole text, computed on first use (only names need it)."""
        if self._cased is None:
            text = self.text
            if text.isascii():
                has_lower = text.upper() != text  # ASCII upper() changes exactly the a-z
            else:
                has_lower = any(ch.islower() for ch in text)
            if has_lower:
                codes = set(map(_CASE_CODES.__getitem__, map(_get_text, self.tokens)))
                self._cased = 2 in codes or 1 not in codes
            else:
                self._cased = False
        return self._cased

    # --- navigation -------------------------------------------------------------------------

    def next_index(self, i: int) -> int | None:
        """The next non-transparent token after ``i`` in the same clause, or None."""
        j = i + 1
        while j < self.n and not self.clause_start[j]:
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
        return self.capitalised[i] and not self.sentence_start[i] and self.cased

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
        if self.cls[j] in DET_LIKE:
            k: int | None = j
            for step in range(4):
                k = self.next_index(k) if k is not None else None
                if k is None or self.cls[k] not in ("OPEN", "DET", "NUM"):
                    return False
                if step >= 1 and verb_at(k):
                    return True
        return False

    # --- the pass ---------------------------------------------------------------------------

    def run(self, start: int = 0, stop: int | None = None) -> list[str]:
        """Tag tokens ``start`` to ``stop - 1`` (default: all) left to right; returns the tags.

        A partial pass must start at a *reset point*: the first token, a clause start or a
        token of class CONJ. Every pass resets its context there (a CONJ token is tagged CONJ in
        any context and resets it), no rule looks further back than the current clause's last
        reset point (``previous_index`` and ``question_position`` stop at clause starts and at
        CONJ tokens), and rules read only tags to the left; so the tags from a reset point on
        equal those of the full pass. The static per-token facts a rule may read anywhere else
        (classes, lexicon, clause and hyphen marks, names) are computed for every token in
        ``__init__``.
        """
        if stop is None:
            stop = self.n
        ctx_tag, ctx_i = "START", -1
        inverted: str | None = None  # clause-initial auxiliary still waiting for its verb
        head_seen = False  # a subject head was seen after that auxiliary
        classes, clause_start, tags = self.cls, self.clause_start, self.tags
        for i in range(start, stop):
            if clause_start[i]:
                ctx_tag, ctx_i, inverted, head_seen = "START", -1, None, False
            tag = classes[i]
            if tag not in FIXED_CLASSES:
                tag = self.tag(i, ctx_tag, ctx_i, inverted)
            tags[i] = tag
            if tag == "CONJ":
                ctx_tag, ctx_i, inverted, head_seen = "START", -1, None, False
                continue
            if tag == "ADV":
                continue
            if tag in AUX_TAGS and self.question_position(ctx_tag, ctx_i):
                inverted, head_seen = tag, False
            elif tag == "VERB" or tag in AUX_TAGS:
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
            nxt = i + 1 < self.n and not self.clause_start[i + 1]
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
        if word in SEMI_MODAL_BEFORE_TO and self.semi_modal_to(i):
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
        n = self.n
        return (
            i + 2 < n
            and self.words[i + 1] == "not"
            and not self.clause_start[i + 1]
            and self.base_verb_ahead(i + 2)
        )

    def semi_modal_to(self, i: int) -> bool:
        """going/used/got + to + bare verb (going to book, used to work, got to go)."""
        n = self.n
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
        if ctx == "VERB" and self.words[ctx_i] in COMPLEMENT_VERBS:
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
                if before in TO_AS_PREPOSITION_AFTER:
                    return False
            return True
        # R7 - R9 auxiliaries
        if ctx in AUX_TAGS:
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
            if "VB" in forms and governor in CAUSATIVE:
                return True
            if "VBG" in forms and governor in CAUSATIVE:
                return True
            if forms & {"VBN", "VBD"} and (governor in GET_FORMS or governor in HAVE_FORMS):
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
            if "VB" in forms and previous in SERIAL_VERBS:
                return True
            if forms & {"VBN", "VBD"} and previous in GET_FORMS:
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
                if self.words[i] in ADJECTIVAL_PARTICIPLES and not (
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
                    return i + 1 < self.n and not self.clause_start[i + 1]
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
