"""The lexicon analyzer's word lists: closed-class words and tag sets (data, no logic).

:mod:`sitar.analyzers.lexicon` (and its rules) read these; any change to them changes which tokens
are predicates, so it must bump :data:`sitar.analyzers.lexicon.RULES_VERSION` (part of the analyzer
id and of every signature). Words are lower case, apostrophes as U+0027.
"""

from __future__ import annotations

# --- closed-class word lists (lower case, apostrophes as U+0027) --------------------------------

BE = frozenset(
    "be am is are was were been being ain't isn't aren't wasn't weren't aint isnt arent wasnt "
    "werent im youre theyre thats whats theres heres shes".split()
)
HAVE_FORMS = frozenset("have has had having".split())
HAVE_AUX = frozenset("haven't hasn't hadn't havent hasnt hadnt ive youve weve theyve".split())
DO_FORMS = frozenset("do does did".split())
MODALS = frozenset(
    "can could will would shall should may might must ought cannot gonna gotta don't doesn't "
    "didn't dont doesnt didnt cant couldnt wont wouldnt shouldnt mustnt neednt youll theyll "
    "itll thatll youd theyd hafta".split()
)
#: Bases that precede n't in negated auxiliaries, by the tag they give.
NT_BASES = {
    **dict.fromkeys(
        "do does did ca can could wo would sha shall should might must need dare ought".split(),
        "MOD",
    ),
    **dict.fromkeys("is are was were ai am".split(), "BE"),
    **dict.fromkeys("have has had".split(), "HAVE"),
}
#: Words before 's that make it "is"/"has" rather than a possessive.
S_CONTRACTION_BASES = frozenset(
    "it he she that there here what who where how when why everyone everybody everything "
    "someone somebody something nothing nobody one this".split()
)
DETERMINERS = frozenset(
    "the a an my your his its our their some any no every each another both either neither "
    "several many few whose such half much these those".split()
)
DEMONSTRATIVES = frozenset({"this", "that"})
WH = frozenset("what which whatever whichever".split())
SUBJ = frozenset("i we they who whoever y'all".split())
SUBJ3 = frozenset(
    "he she someone somebody everyone everybody anyone anybody nobody everything something "
    "nothing anything".split()
)
OBJ = frozenset(
    "me us them him whom myself yourself himself herself itself ourselves yourselves themselves".split()
)
#: Pronouns whose subject/object role is decided from context (see _Pass.pronoun).
AMBIGUOUS_PRONOUNS = frozenset({"you", "it", "there"})
PREPOSITIONS = frozenset(
    "of in on at for with by from into onto about under through throughout without within during "
    "against toward towards across behind between among via per than upon near beside besides "
    "despite except inside outside beyond along amid versus as".split()
)
#: Conjunctions and wh-adverbs that start a new clause: the context resets as at a sentence start.
CLAUSE_STARTERS = frozenset(
    "and but or nor so because cuz although though if unless until till while whereas since "
    "when whenever where wherever after before once then how why whether".split()
)
NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred thousand million billion dozen".split()
)
#: Transparent words: skipped when the rules look for the previous or next word.
TRANSPARENT = frozenset(
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
IGNORED_VERB_READINGS = frozenset(
    "right still even second well up down back over out okay ok near home further better best "
    "last next fine total yes no".split()
)
#: The verb before an object pronoun that makes a following base form a verb (let me check).
CAUSATIVE = frozenset(
    "let lets letting make makes made making help helps helped helping have has had having see "
    "sees saw seen watch watched hear heard feel felt bid".split()
)
#: Verbs taking a clause complement without "that": the next you/it/there is a subject.
COMPLEMENT_VERBS = frozenset(
    "think thinks thought hope hoped guess guessed believe believed know knew say says said mean "
    "meant suppose supposed bet wish wished feel felt reckon".split()
)
#: Serial verbs followed by a bare verb (go check, come see, help find).
SERIAL_VERBS = frozenset("go goes went come comes came help helps helped".split())
GET_FORMS = frozenset("get gets got gotten getting".split())
#: Words after which "to" is a preposition, so a following noun-or-verb word is a noun (go to work).
TO_AS_PREPOSITION_AFTER = frozenset(
    "go goes went gone come comes came coming back return returns returned returning way "
    "according due next prior listen listens listened talk talks talked talking speak speaks "
    "spoke reply replies replied switch switched move moved moving thanks welcome close closer "
    "similar related compared up".split()
)
#: Forms that become semi-modals before "to" + verb (going to book, used to work, got to go).
SEMI_MODAL_BEFORE_TO = frozenset({"going", "used", "got"})
HEDGE_NOUNS = frozenset({"kind", "sort"})
#: Participles that after "be" describe a state or feeling (adjectives, not passives), unless a
#: by-phrase follows: "I'm interested", "we're married". Every other participle after be is a
#: passive verb (was charged, is closed, got approved).
ADJECTIVAL_PARTICIPLES = frozenset(
    "interested excited tired married worried pleased confused disappointed concerned supposed "
    "done based scared surprised satisfied bored annoyed frustrated embarrassed amazed exhausted "
    "located stuck engaged divorced qualified dressed relieved impressed".split()
)
CLAUSE_PUNCTUATION = frozenset(".!?;:,…–—\n")
SENTENCE_PUNCTUATION = frozenset(".!?:…\n")

AUX_TAGS = frozenset({"BE", "HAVE", "MOD"})
#: Static classes that :meth:`_Pass.tag` returns unchanged in every context (it decides only
#: HAVEF, DOF, PRON, HER, OPEN, some MOD words and the NUM word "one").
FIXED_CLASSES = frozenset(
    {"BE", "HAVE", "TO", "CONJ", "ADV", "DEM", "DET", "WH", "SUBJ", "SUBJ3", "OBJ", "ADP", "POSS"}
)
#: Static classes after which a bare "like" may be a verb (I like, would you like, to like).
LIKE_VERB_AFTER = frozenset({"SUBJ", "PRON", "MOD", "DOF", "TO", "HAVE"})
DET_LIKE = frozenset({"DET", "POSS", "NUM"})
