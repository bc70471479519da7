"""Edit operators of planned tier for the synthetic corpus generator (issue #5, part 2).

An :class:`Edit` replaces one character span of the reference (an empty span is an insertion) and
records the operator, its *planned* tier and boundary direction, and the role span it touches. The
operators are grouped by the tier they plan:

* **T0, anywhere** (expression only): fillers added or dropped, immediate repetitions, restarts,
  contractions, number formats that keep the value, spelling variants, split or merged compounds,
  homophones of function words, dropped function words, punctuation and case. Every T0 edit passes
  :func:`t0_safe`: it keeps the count of negation tokens and the multiset of number tokens (a
  number-format edit instead keeps the value by construction, see :mod:`.numbers`; from
  ``synth-1.5`` on, :attr:`PlanContext.number_filter` may keep only some of them).
* **T1, on inform spans** (uptake changes, outcome preserved): antonyms, negation flips, phonetic
  neighbours of content words, dropped descriptive words or whole asides, changed values in asides.
* **T2, on outcome spans** (outcome changes): negation flips, changed numbers, dates and times,
  swapped entities, antonyms and reversed conditions (``before`` <-> ``after``, ``if`` <->
  ``unless``), changed action verbs, modal changes, dropped decisive values, phonetic neighbours of
  outcome words.

Boundary cases (spec §5 (docs/spec.md) directions), each decided by a fixed rule:

* **T0 -> T1** (``+1`` at tier 0), ``number_restart``: a restart that first says a *different*
  number and then the right one ("at fifty, fifteen"), which leaves the decisive value ambiguous.
* **T1 -> T2** (``+1`` at tier 1): an antonym or negation flip inside an inform span that opens with
  a causal word (``because``, ``since``, ``as``, ``so``, ``due``, ...): reversing the stated reason
  strongly suggests a different outcome.
* **T2 -> T1** (``-1`` at tier 2): a value change (number, date, entity, dropped value) whose
  original tokens occur again elsewhere in the reference, untouched by any T1/T2 edit, so the
  listener can recover the value. Decided after planning by :func:`finalize_directions`, which
  applies the same rule to a changed value inside an aside (``inform_value``: **T1 -> T0**).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import replace

from annotation.synth import lexicon
from annotation.synth.numbers import (
    NUMBER_WORDS,
    int_to_words,
    is_number_token,
    ordinal_suffix,
    ordinal_to_words,
    parse_ordinal,
    words_to_int,
)
from annotation.synth.ops_format import (
    CARDINAL_WORDS,
    ORDINAL_WORDS,
    digit_neighbour,
    op_case,
    op_compound,
    op_contraction,
    op_drop_function_word,
    op_filler_drop,
    op_filler_insert,
    op_homophone,
    op_number_format,
    op_punctuation,
    op_repetition,
    op_restart,
    op_spelling,
)
from annotation.synth.plan import (
    Edit,
    Operator,
    PlanContext,
    RoleSpan,
    apply_edits,
    is_word,
    match_case,
    negation_count,
    number_tokens,
    pick_one,
    t0_safe,
    token_norms,
)
from sitar.text import Token, tokenize

__all__ = [
    "CARDINAL_WORDS",
    "OPERATORS",
    "ORDINAL_WORDS",
    "VALUE_OPS",
    "Edit",
    "Operator",
    "PlanContext",
    "RoleSpan",
    "apply_edits",
    "changed_digits",
    "changed_number_word",
    "digit_neighbour",
    "finalize_directions",
    "is_entity_token",
    "is_word",
    "match_case",
    "negation_count",
    "number_tokens",
    "op_action_verb",
    "op_antonym",
    "op_case",
    "op_compound",
    "op_contraction",
    "op_date_change",
    "op_drop_function_word",
    "op_drop_value",
    "op_entity_swap",
    "op_filler_drop",
    "op_filler_insert",
    "op_homophone",
    "op_inform_antonym",
    "op_inform_drop_span",
    "op_inform_drop_word",
    "op_inform_negation",
    "op_inform_phonetic",
    "op_inform_value",
    "op_modal",
    "op_negation_flip",
    "op_number_format",
    "op_number_restart",
    "op_phonetic_outcome",
    "op_punctuation",
    "op_repetition",
    "op_restart",
    "op_spelling",
    "op_value_change",
    "pick_one",
    "sentence_initial",
    "t0_safe",
    "token_norms",
]


# ---------------------------------------------------------------------------------------------
# Value changes (shared by T2, T1 and the T0 -> T1 restart)
# ---------------------------------------------------------------------------------------------

_TEEN_TY = {f"{n}": f"{n % 10}0" for n in range(13, 20)}
_TEEN_TY.update({v: k for k, v in _TEEN_TY.items()})


def changed_digits(text: str, rng: random.Random) -> str:
    """A different number in the same written form: "250" -> "215", "15" -> "50", "3,000" ->
    "8,000"."""
    plain = text.replace(",", "")
    if plain in _TEEN_TY and rng.random() < 0.6:
        new = _TEEN_TY[plain]
    else:
        digits = list(plain)
        choice = rng.random()
        if len(digits) >= 2 and choice < 0.3:
            k = rng.randrange(len(digits) - 1)
            if digits[k] != digits[k + 1] and not (k == 0 and digits[1] == "0"):
                digits[k], digits[k + 1] = digits[k + 1], digits[k]
        if "".join(digits) == plain:
            k = rng.randrange(len(digits))
            options = [d for d in "0123456789" if d != digits[k] and not (k == 0 and d == "0")]
            digits[k] = rng.choice(options) if options else digits[k]
        new = "".join(digits)
    if "," in text and len(new) > 3:
        new = f"{int(new):,}"
    return new


def changed_number_word(word: str, ctx: PlanContext, rng: random.Random) -> str | None:
    """A sound-alike different number word ("fifteen" -> "fifty"), else a nearby value."""
    allowed = [w for w in CARDINAL_WORDS | set(ORDINAL_WORDS) if w not in ("hundred", "thousand")]
    near = ctx.phonetic.neighbours(word, allowed=allowed, max_distance=2.0)
    if near and rng.random() < 0.8:
        best = near[0][0]
        return match_case(word, rng.choice([w for d, w in near if d <= best + 0.4]))
    value = words_to_int(word)
    if value is not None:
        other = max(0, value + rng.choice([-2, -1, 1, 2, 10]))
        return match_case(word, int_to_words(other)) if other != value else None
    if word.casefold() in ORDINAL_WORDS:
        n = ORDINAL_WORDS[word.casefold()]
        return match_case(word, ordinal_to_words(n % 30 + 1))
    return None


def _value_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    for i in ctx.tokens_in(role):
        tok = ctx.tokens[i]
        ordinal = parse_ordinal(tok.text)
        if ordinal is not None:
            n = ordinal + rng.choice([1, 2, 10, -1]) if ordinal > 2 else ordinal + 10
            new = f"{n}{ordinal_suffix(n)}"
        elif re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?", tok.text):
            if "." in tok.text:
                whole, frac = tok.text.split(".")
                new = f"{whole}.{changed_digits(frac, rng)}"
            else:
                new = changed_digits(tok.text, rng)
        elif tok.norm in NUMBER_WORDS and tok.norm not in ("hundred", "thousand", "half"):
            if tok.norm in ("one", "second") and rng.random() < 0.7:
                continue  # often a pronoun / a unit, not a value
            new = changed_number_word(tok.text, ctx, rng)
        else:
            continue
        if new and new != tok.text:
            cands.append(ctx.make(tok.start, tok.end, new, op, tier))
    return cands


_ENTITY_LEXICON = frozenset(
    w.casefold() for w in (*lexicon.ENTITY_NAMES, *lexicon.ENTITY_PLACES, *lexicon.ENTITY_ORGS)
)


def sentence_initial(text: str, tokens: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` starts a sentence (first token, or after ``. ! ? :`` or a filler)."""
    if i == 0:
        return True
    sep = text[tokens[i - 1].end : tokens[i].start]
    return any(ch in ".!?:" for ch in sep) or (
        tokens[i - 1].norm in lexicon.PURE_FILLERS and sentence_initial(text, tokens, i - 1)
    )


def is_entity_token(text: str, tokens: Sequence[Token], i: int, common: frozenset[str]) -> bool:
    """A name, place or organisation word: capitalized, alphabetic, no apostrophe, not a word the
    pool uses in lowercase, not a function word or negation, and either inside a sentence or a
    known entity from our lists."""
    tok = tokens[i]
    low = tok.norm
    if not tok.text[:1].isupper() or not tok.text.isalpha():
        return False
    if low in common or low in lexicon.FUNCTION_WORDS or low in lexicon.NEGATIONS or low == "i":
        return False
    return low in _ENTITY_LEXICON or not sentence_initial(text, tokens, i)


def _entity_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    names = {w.casefold() for w in lexicon.ENTITY_NAMES}
    places = {w.casefold() for w in lexicon.ENTITY_PLACES}
    calendar = {w.casefold() for w in (*lexicon.MONTHS, *lexicon.WEEKDAYS)}
    for i in ctx.tokens_in(role):
        tok = ctx.tokens[i]
        low = tok.text.casefold()
        if (
            low in calendar
            or len(low) < 3
            or not is_entity_token(ctx.reference, ctx.tokens, i, ctx.common_words)
        ):
            continue
        pool = places if low in places else names if low in names else names | places
        near = ctx.phonetic.neighbours(low, allowed=pool, max_distance=2.0)
        if near and rng.random() < 0.75:
            new = near[0][1] if rng.random() < 0.6 else rng.choice(near[:4])[1]
        else:
            new = rng.choice(sorted(pool - {low}))
        cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, new.capitalize()), op, tier))
    return cands


def _calendar_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    for i in ctx.tokens_in(role):
        tok = ctx.tokens[i]
        low = tok.norm
        options = (
            lexicon.WEEKDAY_CONFUSIONS.get(low)
            or (lexicon.MONTH_CONFUSIONS.get(low) if tok.text[:1].isupper() else None)
            or lexicon.TIME_WORD_SWAPS.get(low)
        )
        if options:
            new = rng.choice(options)
            if not new[:1].isupper():
                new = match_case(tok.text, new)
            cands.append(ctx.make(tok.start, tok.end, new, op, tier))
    return cands


def op_number_restart(ctx: PlanContext, rng: random.Random) -> Edit | None:
    """T0 -> T1: a restart on a wrong value, then the right one ("at fifty, fifteen")."""
    cands = []
    for i in ctx.tokens_in("outcome"):
        tok = ctx.tokens[i]
        if re.fullmatch(r"\d+", tok.text):
            wrong = changed_digits(tok.text, rng)
        elif tok.norm in CARDINAL_WORDS and tok.norm not in ("hundred", "thousand", "one"):
            wrong = changed_number_word(tok.text, ctx, rng)
        else:
            continue
        if wrong and wrong != tok.text:
            sep = rng.choice(["- ", ", ", " "])
            cands.append(ctx.make(tok.start, tok.start, wrong + sep, "number_restart", 0, 1))
    return pick_one(rng, cands)


# ---------------------------------------------------------------------------------------------
# Negation, antonyms, verbs, modals
# ---------------------------------------------------------------------------------------------

_NEG_REMOVE = {
    "dont": "do", "doesnt": "does", "didnt": "did", "cant": "can", "cannot": "can",
    "wont": "will", "isnt": "is", "arent": "are", "wasnt": "was", "werent": "were",
    "havent": "have", "hasnt": "has", "hadnt": "had", "couldnt": "could", "wouldnt": "would",
    "shouldnt": "should", "mustnt": "must", "neednt": "need", "never": "always",
    "nobody": "somebody", "nothing": "something", "nowhere": "somewhere", "none": "some",
}  # fmt: skip
_NEG_ADD = {
    "is": "isn't", "are": "aren't", "was": "wasn't", "were": "weren't", "will": "won't",
    "can": "can't", "could": "couldn't", "should": "shouldn't", "would": "wouldn't",
    "do": "don't", "does": "doesn't", "did": "didn't", "must": "mustn't", "have": "haven't",
    "has": "hasn't", "always": "never",
}  # fmt: skip


def _negation_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    toks = ctx.tokens
    for i in ctx.tokens_in(role):
        tok = toks[i]
        if tok.norm == "not" or (tok.norm == "no" and i + 1 < len(toks)):
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", op, tier))
        elif tok.norm in _NEG_REMOVE:
            cands.append(
                ctx.make(tok.start, tok.end, match_case(tok.text, _NEG_REMOVE[tok.norm]), op, tier)
            )
        elif tok.norm in _NEG_ADD and not (
            i + 1 < len(toks) and toks[i + 1].norm in lexicon.NEGATIONS
        ):
            new = _NEG_ADD[tok.norm] if rng.random() < 0.6 else f"{tok.text} not"
            if tok.norm == "always":
                new = "never"
            cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, new), op, tier))
        elif role == "outcome" and _verb_lemma(tok.text) in lexicon.ACTION_VERBS:
            # Imperative at the start of a clause: "send it" -> "don't send it".
            prev = toks[i - 1].norm if i > 0 else ""
            sep = ctx.reference[toks[i - 1].end : tok.start] if i > 0 else ""
            if i == 0 or prev == "please" or any(ch in sep for ch in ",.;:!?"):
                new = match_case(tok.text, "don't") + " " + tok.text[:1].lower() + tok.text[1:]
                cands.append(ctx.make(tok.start, tok.end, new, op, tier))
    return cands


#: Antonym keys too ambiguous to swap on their own ("on Friday", "I left", "am" in "I am").
_ANTONYM_SKIP = frozenset({"in", "on", "up", "over", "left", "right", "light", "down", "out"})
_ANTONYM: dict[str, list[str]] = {}
for _a, _b in lexicon.ANTONYMS:
    _ANTONYM.setdefault(_a, []).append(_b)
    _ANTONYM.setdefault(_b, []).append(_a)


def _antonym_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int, conditions: bool
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    toks = ctx.tokens
    idx = ctx.tokens_in(role)
    for i in idx:
        tok = toks[i]
        alts = _ANTONYM.get(tok.text.casefold())
        prev_is_number = i > 0 and is_number_token(toks[i - 1].norm)
        if alts and tok.norm not in _ANTONYM_SKIP and (tok.norm != "am" or prev_is_number):
            cands.append(
                ctx.make(tok.start, tok.end, match_case(tok.text, rng.choice(alts)), op, tier)
            )
        if not conditions:
            continue
        for width in (3, 2, 1):
            if i + width > len(toks) or (i + width - 1) not in idx:
                continue
            phrase = " ".join(t.norm for t in toks[i : i + width])
            swaps = lexicon.CONDITION_SWAPS.get(phrase)
            if swaps:
                a, b = toks[i].start, toks[i + width - 1].end
                new = match_case(toks[i].text, rng.choice(swaps))
                cands.append(ctx.make(a, b, new, op, tier))
                break
    return cands


def _verb_lemma(word: str) -> str:
    from lemminflect import getAllLemmas

    low = word.casefold()
    if low in lexicon.ACTION_VERBS:
        return low
    lemmas = getAllLemmas(low).get("VERB", ())
    return lemmas[0] if lemmas else ""


def _inflect_like(word: str, lemma: str, new_lemma: str) -> str:
    from lemminflect import getAllInflections, getInflection

    low = word.casefold()
    head, _, tail = new_lemma.partition(" ")
    if low != lemma:
        for tag, forms in getAllInflections(lemma, upos="VERB").items():
            if low in forms:
                inflected = getInflection(head, tag=tag)
                if inflected:
                    head = inflected[0]
                break
    return match_case(word, head + (" " + tail if tail else ""))


_DETERMINERS = frozenset(
    {"the", "a", "an", "my", "your", "our", "his", "her", "their", "its", "this", "that", "these",
     "those", "every", "each", "no", "any", "some"}
)  # fmt: skip


def op_action_verb(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    toks = ctx.tokens
    idx = ctx.tokens_in("outcome")
    for i in idx:
        tok = toks[i]
        if i + 1 < len(toks) and (i + 1) in idx:
            phrase = f"{tok.norm} {toks[i + 1].norm}"
            if phrase in lexicon.ACTION_VERBS:
                new = match_case(tok.text, rng.choice(lexicon.ACTION_VERBS[phrase]))
                cands.append(ctx.make(tok.start, toks[i + 1].end, new, "action_verb", 2))
                continue
        if i > 0 and toks[i - 1].norm in _DETERMINERS:
            continue  # a noun use: "the meeting", "the end", "your order"
        lemma = _verb_lemma(tok.text)
        if lemma in lexicon.ACTION_VERBS and " " not in lemma:
            new = _inflect_like(tok.text, lemma, rng.choice(lexicon.ACTION_VERBS[lemma]))
            cands.append(ctx.make(tok.start, tok.end, new, "action_verb", 2))
    return pick_one(rng, cands)


def op_modal(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    toks = ctx.tokens
    idx = ctx.tokens_in("outcome")
    for i in idx:
        tok = toks[i]
        if i + 1 < len(toks) and (i + 1) in idx:
            phrase = f"{tok.norm} {toks[i + 1].norm}"
            if phrase in lexicon.MODAL_SWAPS:
                new = match_case(tok.text, rng.choice(lexicon.MODAL_SWAPS[phrase]))
                cands.append(ctx.make(tok.start, toks[i + 1].end, new, "modal", 2))
                continue
        if tok.norm in lexicon.MODAL_SWAPS:
            if tok.norm == "may" and tok.text[:1].isupper() and i > 0:
                continue  # the month
            new = match_case(tok.text, rng.choice(lexicon.MODAL_SWAPS[tok.norm]))
            cands.append(ctx.make(tok.start, tok.end, new, "modal", 2))
    return pick_one(rng, cands)


# ---------------------------------------------------------------------------------------------
# T2 operators (outcome spans)
# ---------------------------------------------------------------------------------------------


def op_negation_flip(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return pick_one(rng, _negation_candidates(ctx, rng, "outcome", "negation_flip", 2))


def op_value_change(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return pick_one(rng, _value_candidates(ctx, rng, "outcome", "value_change", 2))


def op_entity_swap(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return pick_one(rng, _entity_candidates(ctx, rng, "outcome", "entity_swap", 2))


def op_date_change(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return pick_one(rng, _calendar_candidates(ctx, rng, "outcome", "date_change", 2))


def op_antonym(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return pick_one(rng, _antonym_candidates(ctx, rng, "outcome", "antonym", 2, True))


def op_drop_value(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for i in ctx.tokens_in("outcome"):
        tok = ctx.tokens[i]
        if any(ch.isdigit() for ch in tok.text) or is_entity_token(
            ctx.reference, ctx.tokens, i, ctx.common_words
        ):
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", "drop_value", 2))
    return pick_one(rng, cands)


def _phonetic_candidates(
    ctx: PlanContext, rng: random.Random, role: str, op: str, tier: int
) -> list[Edit | None]:
    cands: list[Edit | None] = []
    for i in ctx.tokens_in(role):
        tok = ctx.tokens[i]
        if (
            not is_word(tok)
            or tok.norm in lexicon.FUNCTION_WORDS
            or tok.norm in lexicon.NEGATIONS
            or is_number_token(tok.norm)
            or len(tok.norm) < 3
        ):
            continue
        near = [
            (d, w)
            for d, w in ctx.phonetic.neighbours(tok.text)
            if w not in lexicon.NEGATIONS
            and w.replace("'", "") not in lexicon.NEGATIONS
            and not is_number_token(w)
            and "'" not in w
            and len(w) >= 3
        ]
        if near:
            best = near[0][0]
            new = rng.choice([w for d, w in near if d <= best + 0.4])
            cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, new), op, tier))
    return cands


def op_phonetic_outcome(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return pick_one(rng, _phonetic_candidates(ctx, rng, "outcome", "phonetic_outcome", 2))


# ---------------------------------------------------------------------------------------------
# T1 operators (inform spans)
# ---------------------------------------------------------------------------------------------


def _causal(ctx: PlanContext, edit: Edit) -> int:
    """Direction for a reversed inform span: +1 (T1 -> T2) if the span states a reason (its first
    word, or the word just before it, is a causal opener such as "because")."""
    for span in ctx.spans_of("inform"):
        if span.start <= edit.start and edit.end <= span.end:
            first = tokenize(span.text)
            before = [t for t in ctx.tokens if t.end <= span.start]
            words = [first[0].norm] if first else []
            if before:
                words.append(before[-1].norm)
            return 1 if any(w in lexicon.CAUSAL_OPENERS for w in words) else 0
    return 0


def _with_causal(ctx: PlanContext, edit: Edit | None) -> Edit | None:
    if edit is None:
        return None
    direction = _causal(ctx, edit)
    return replace(edit, direction=direction) if direction else edit


def op_inform_antonym(ctx: PlanContext, rng: random.Random) -> Edit | None:
    edit = pick_one(rng, _antonym_candidates(ctx, rng, "inform", "inform_antonym", 1, False))
    return _with_causal(ctx, edit)


def op_inform_negation(ctx: PlanContext, rng: random.Random) -> Edit | None:
    edit = pick_one(rng, _negation_candidates(ctx, rng, "inform", "inform_negation", 1))
    return _with_causal(ctx, edit)


def op_inform_phonetic(ctx: PlanContext, rng: random.Random) -> Edit | None:
    return pick_one(rng, _phonetic_candidates(ctx, rng, "inform", "inform_phonetic", 1))


def op_inform_drop_word(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for i in ctx.tokens_in("inform"):
        tok = ctx.tokens[i]
        span = ctx.role_of(i)
        if (
            span is not None
            and len(tokenize(span.text)) >= 2
            and is_word(tok)
            and tok.norm not in lexicon.FUNCTION_WORDS
            and tok.norm not in lexicon.NEGATIONS
            and len(tok.norm) >= 3
        ):
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", "inform_drop_word", 1))
    return pick_one(rng, cands)


def op_inform_drop_span(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    toks = ctx.tokens
    for span in ctx.spans_of("inform"):
        idx = [i for i, t in enumerate(toks) if span.start <= t.start and t.end <= span.end]
        if not idx or len(idx) > 6 or len(toks) - len(idx) < 4:
            continue
        a, b = ctx.delete_range(idx[0], idx[-1] + 1)
        cands.append(ctx.make(a, b, "", "inform_drop_span", 1))
    return pick_one(rng, cands)


def op_inform_value(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = _value_candidates(ctx, rng, "inform", "inform_value", 1)
    cands += _entity_candidates(ctx, rng, "inform", "inform_value", 1)
    cands += _calendar_candidates(ctx, rng, "inform", "inform_value", 1)
    return pick_one(rng, cands)


#: Every operator: name -> (planned tier, function). Weights live in :mod:`.generate`.
OPERATORS: dict[str, tuple[int, Operator]] = {
    "filler_insert": (0, op_filler_insert),
    "filler_drop": (0, op_filler_drop),
    "repetition": (0, op_repetition),
    "restart": (0, op_restart),
    "contraction": (0, op_contraction),
    "number_format": (0, op_number_format),
    "spelling": (0, op_spelling),
    "compound": (0, op_compound),
    "homophone": (0, op_homophone),
    "drop_function_word": (0, op_drop_function_word),
    "punctuation": (0, op_punctuation),
    "case": (0, op_case),
    "number_restart": (0, op_number_restart),
    "inform_antonym": (1, op_inform_antonym),
    "inform_negation": (1, op_inform_negation),
    "inform_phonetic": (1, op_inform_phonetic),
    "inform_drop_word": (1, op_inform_drop_word),
    "inform_drop_span": (1, op_inform_drop_span),
    "inform_value": (1, op_inform_value),
    "negation_flip": (2, op_negation_flip),
    "value_change": (2, op_value_change),
    "entity_swap": (2, op_entity_swap),
    "date_change": (2, op_date_change),
    "antonym": (2, op_antonym),
    "action_verb": (2, op_action_verb),
    "modal": (2, op_modal),
    "drop_value": (2, op_drop_value),
    "phonetic_outcome": (2, op_phonetic_outcome),
}

#: Operators whose T2 change is recoverable when the original value is restated elsewhere.
VALUE_OPS = frozenset({"value_change", "entity_swap", "date_change", "drop_value"})


def _distinctive(tokens: Sequence[Token]) -> bool:
    """Values worth restating: a number of two or more characters, a name, a date word."""
    if not tokens:
        return False
    return all(
        (any(ch.isdigit() for ch in t.text) and len(t.text) >= 2) or t.text[:1].isupper()
        for t in tokens
    )


def finalize_directions(reference: str, edits: Sequence[Edit]) -> list[Edit]:
    """Apply the recoverable-value rule: a T2 value edit (or a T1 ``inform_value`` edit) whose
    original tokens occur again in the reference, outside every T1/T2 edit, gets direction -1
    (T2 -> T1, or T1 -> T0): the listener can recover the value."""
    toks = tokenize(reference)
    norms = [t.norm for t in toks]
    changed = [(e.start, e.end) for e in edits if e.tier >= 1]
    out = []
    for e in edits:
        if not ((e.tier == 2 and e.op in VALUE_OPS) or (e.tier == 1 and e.op == "inform_value")):
            out.append(e)
            continue
        own = [t for t in toks if e.start < t.end and t.start < e.end]
        target = [t.norm for t in own]
        found = False
        if _distinctive(own):
            n = len(target)
            for k in range(len(norms) - n + 1):
                if norms[k : k + n] != target:
                    continue
                a, b = toks[k].start, toks[k + n - 1].end
                if any(a < ce and cs < b for cs, ce in changed):
                    continue
                found = True
                break
        out.append(replace(e, direction=-1) if found else e)
    return out
