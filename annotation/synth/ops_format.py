"""T0 operators of the synthetic generator: expression changes that keep the meaning (fillers,
repetitions, restarts, contractions, number formats, spellings, compounds, function-word
homophones and drops, punctuation, case). Every one passes :func:`.plan.t0_safe` or keeps the
value by construction; see :mod:`.operators` for the tiers and the registry."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from annotation.synth import lexicon
from annotation.synth.numbers import (
    NUMBER_WORDS,
    digits_to_words,
    int_to_words,
    is_number_token,
    ordinal_suffix,
    ordinal_to_words,
    parse_ordinal,
    words_to_int,
    year_to_words,
)
from annotation.synth.plan import Edit, PlanContext, is_word, match_case, pick_one, token_norms
from sitar.text import Token

__all__ = [
    "CARDINAL_WORDS",
    "ORDINAL_WORDS",
    "digit_neighbour",
    "op_case",
    "op_compound",
    "op_contraction",
    "op_drop_function_word",
    "op_filler_drop",
    "op_filler_insert",
    "op_homophone",
    "op_number_format",
    "op_punctuation",
    "op_repetition",
    "op_restart",
    "op_spelling",
]


def op_filler_insert(ctx: PlanContext, rng: random.Random) -> Edit | None:
    if not ctx.tokens:
        return None
    i = rng.randrange(len(ctx.tokens))
    filler = rng.choice(lexicon.INSERTABLE_FILLERS)
    if i == 0:
        filler = match_case(ctx.tokens[0].text, filler)
    sep = rng.choice([" ", " ", ", "])
    return ctx.make(ctx.tokens[i].start, ctx.tokens[i].start, filler + sep, "filler_insert", 0)


def op_filler_drop(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    toks = ctx.tokens
    for i, tok in enumerate(toks):
        if tok.norm in lexicon.PURE_FILLERS:
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", "filler_drop", 0))
        elif i + 1 < len(toks) and (tok.norm, toks[i + 1].norm) in (("you", "know"), ("i", "mean")):
            # Only as a parenthetical: followed by a comma.
            if ctx.reference[toks[i + 1].end : toks[i + 1].end + 1] == ",":
                a, b = ctx.delete_range(i, i + 2)
                cands.append(ctx.make(a, b, "", "filler_drop", 0))
    return pick_one(rng, cands)


def op_repetition(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for tok in ctx.tokens:
        if is_word(tok) and tok.norm not in lexicon.NEGATIONS and not is_number_token(tok.norm):
            cands.append(ctx.make(tok.start, tok.start, tok.text + " ", "repetition", 0))
    return pick_one(rng, cands)


def op_restart(ctx: PlanContext, rng: random.Random) -> Edit | None:
    toks = ctx.tokens
    if not toks:
        return None
    if rng.random() < 0.5:
        # A cut-off word: "fif- fifteen", "can- cancel".
        cands = []
        for tok in toks:
            if is_word(tok) and len(tok.text) >= 4:
                k = rng.randint(2, len(tok.text) - 2)
                part = tok.text[:k]
                if part.casefold() in NUMBER_WORDS or part.casefold() in lexicon.NEGATIONS:
                    continue
                cands.append(ctx.make(tok.start, tok.start, part + "- ", "restart", 0))
        return pick_one(rng, cands)
    # A phrase restart: "I want to, I want to go".
    cands = []
    for i in range(1, len(toks)):
        k = rng.randint(1, min(3, i))
        a, b = toks[i - k].start, toks[i - 1].end
        phrase = ctx.reference[a:b]
        if any(ch in phrase for ch in ".?!;:,"):
            continue
        sep = rng.choice([" ", "- ", ", "])
        cands.append(ctx.make(a, a, phrase + sep, "restart", 0))
    return pick_one(rng, cands)


def _contraction_tables() -> tuple[dict[str, str], dict[tuple[str, ...], str]]:
    contract = {k.casefold().replace("'", ""): v for k, v in lexicon.CONTRACTIONS.items()}
    expand = {tuple(token_norms(v)): k for k, v in lexicon.CONTRACTIONS.items()}
    return contract, expand


_CONTRACT, _EXPAND = _contraction_tables()


def op_contraction(ctx: PlanContext, rng: random.Random) -> Edit | None:
    toks = ctx.tokens
    cands = []
    for i, tok in enumerate(toks):
        if tok.norm in _CONTRACT and ("'" in tok.text or "’" in tok.text or tok.norm == "cannot"):
            nxt = toks[i + 1].norm if i + 1 < len(toks) else ""
            if tok.norm in {"its", "thats", "theres", "hes", "shes", "whats"} and nxt in {
                "been",
                "got",
                "had",
            }:
                continue
            cands.append(
                ctx.make(
                    tok.start, tok.end, match_case(tok.text, _CONTRACT[tok.norm]), "contraction", 0
                )
            )
        if i + 1 < len(toks):
            pair = (tok.norm, toks[i + 1].norm)
            if pair in _EXPAND and ctx.reference[tok.end : toks[i + 1].start] == " ":
                new = match_case(tok.text, _EXPAND[pair])
                cands.append(ctx.make(tok.start, toks[i + 1].end, new, "contraction", 0))
    return pick_one(rng, cands)


_MONEY_RE = re.compile(r"([$£€])(\d{1,3}(?:,\d{3})+|\d+)(\.\d\d)?(?!\d)")
_CURRENCY = {"$": "dollars", "£": "pounds", "€": "euros"}
_TIME_RE = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])")
_PERCENT_RE = re.compile(r"(?<![\d.,])(\d+)%")
_MONEY_WORDS = frozenset({"dollars", "pounds", "euros", "percent", "cents", "pence", "bucks"})
CARDINAL_WORDS = frozenset(
    w for w in NUMBER_WORDS if words_to_int(w) is not None or w in ("hundred", "thousand")
)


def _number_format_candidates(ctx: PlanContext, rng: random.Random) -> list[Edit | None]:
    text, toks = ctx.reference, ctx.tokens
    cands: list[Edit | None] = []
    covered: set[int] = set()
    for m in _MONEY_RE.finditer(text):
        sym, digits, cents = m.group(1), m.group(2), m.group(3)
        value = int(digits.replace(",", ""))
        if cents or value >= 1_000_000 or rng.random() < 0.5:
            new = f"{digits}{cents or ''} {_CURRENCY[sym]}"
        else:
            new = f"{int_to_words(value, british_and=sym == '£')} {_CURRENCY[sym]}"
        cands.append(ctx.make(m.start(), m.end(), new, "number_format", 0))
        covered.update(range(m.start(), m.end()))
    for m in _TIME_RE.finditer(text):
        hour, minute = int(m.group(1)), int(m.group(2))
        if not (0 < hour <= 24 and minute < 60):
            continue
        h = int_to_words(hour)
        if minute == 0:
            after = text[m.end() : m.end() + 4].casefold()
            new = h if after.strip().startswith(("am", "pm", "a.m", "p.m")) else f"{h} o'clock"
        elif minute < 10:
            new = f"{h} oh {int_to_words(minute)}"
        else:
            new = f"{h} {int_to_words(minute)}"
        cands.append(ctx.make(m.start(), m.end(), new, "number_format", 0))
        covered.update(range(m.start(), m.end()))
    for m in _PERCENT_RE.finditer(text):
        cands.append(ctx.make(m.start(), m.end(), f"{m.group(1)} percent", "number_format", 0))
        covered.update(range(m.start(), m.end()))
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.start in covered:
            i += 1
            continue
        ordinal = parse_ordinal(tok.text)
        if ordinal is not None and 0 < ordinal < 1000:
            cands.append(
                ctx.make(tok.start, tok.end, ordinal_to_words(ordinal), "number_format", 0)
            )
        elif re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+", tok.text):
            before = text[max(0, tok.start - 1) : tok.start]
            after_tok = toks[i + 1].norm if i + 1 < len(toks) else ""
            plain = tok.text.replace(",", "")
            value = int(plain)
            is_code = (
                before == "-"
                or (i > 0 and text[toks[i - 1].end : tok.start] == "" and before != "")
                or (len(plain) >= 5 and "," not in tok.text)
                or (plain.startswith("0") and len(plain) > 1)
                or digit_neighbour(text, toks, i)
                or (i > 0 and toks[i - 1].text.isupper() and toks[i - 1].text.isalpha())
            )
            money = before in _CURRENCY or after_tok in _MONEY_WORDS
            if is_code:
                new = digits_to_words(plain, rng)
            elif len(plain) == 4 and not money and "," not in tok.text:
                new = year_to_words(value) if 1900 <= value <= 2099 else digits_to_words(plain, rng)
            elif value < 1_000_000:
                new = int_to_words(value, british_and=rng.random() < 0.3)
            else:
                new = None
            if new is not None:
                cands.append(ctx.make(tok.start, tok.end, new, "number_format", 0))
        elif tok.norm in CARDINAL_WORDS:
            # Longest run of cardinal words that parses ("two hundred and fifty", "forty-two").
            j = i + 1
            while j < len(toks) and (
                toks[j].norm in CARDINAL_WORDS
                or (toks[j].norm == "and" and toks[j - 1].norm in ("hundred", "thousand"))
            ):
                j += 1
            while j > i:
                raw = text[tok.start : toks[j - 1].end]
                value = words_to_int(raw)
                if value is not None and not re.search(r"[^\w\s\-]", raw):
                    break
                j -= 1
            if j > i and raw.casefold() not in ("one", "a"):
                fmt = f"{value:,}" if value >= 1000 and rng.random() < 0.5 else str(value)
                cands.append(ctx.make(tok.start, toks[j - 1].end, fmt, "number_format", 0))
                i = j
                continue
        elif tok.norm in ORDINAL_WORDS and tok.norm not in ("second",):
            n = ORDINAL_WORDS[tok.norm]
            cands.append(
                ctx.make(tok.start, tok.end, f"{n}{ordinal_suffix(n)}", "number_format", 0)
            )
        i += 1
    return cands


ORDINAL_WORDS = {ordinal_to_words(n): n for n in range(1, 32)}


def digit_neighbour(text: str, toks: Sequence[Token], i: int) -> bool:
    """Whether token ``i`` is one group of a spaced digit string ("07700 900 442")."""
    for j in (i - 1, i + 1):
        if 0 <= j < len(toks) and toks[j].text.isdigit():
            a, b = sorted((j, i))
            if text[toks[a].end : toks[b].start] in (" ", "-"):
                return True
    return False


def op_number_format(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = _number_format_candidates(ctx, rng)
    if ctx.number_filter is not None:  # synth-1.5 --number-format residual / none
        cands = [
            c
            for c in cands
            if c is not None and not _inside_number(ctx.reference, c) and ctx.keeps_number_format(c)
        ]
    return pick_one(rng, cands)


def _inside_number(text: str, edit: Edit) -> bool:
    """Whether ``edit`` rewrites one part of a hyphenated number or score ("seventh" of
    "twenty-seventh", "2" of "0-2"): a form no recognizer writes ("twenty-7th"). The earlier
    versions plan such edits; from ``synth-1.5`` on, with a ``number_format`` filter, they are
    left out."""
    before = text[edit.start - 2 : edit.start] if edit.start >= 2 else ""
    after = text[edit.end : edit.end + 2]
    return (len(before) == 2 and before[1] == "-" and before[0].isalnum()) or (
        len(after) == 2 and after[0] == "-" and after[1].isalnum()
    )


_SPELL_REVERSE_SKIP = frozenset({"check", "story", "practice", "tire", "curb", "meter", "program"})
_SPELLING = {**lexicon.SPELLING_VARIANTS}
_SPELLING.update(
    {v.casefold(): k for k, v in lexicon.SPELLING_VARIANTS.items() if v not in _SPELL_REVERSE_SKIP}
)


def op_spelling(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for tok in ctx.tokens:
        alt = _SPELLING.get(tok.text.casefold())
        if alt:
            new = alt if alt.isupper() else match_case(tok.text, alt)
            cands.append(ctx.make(tok.start, tok.end, new, "spelling", 0))
    return pick_one(rng, cands)


_SPLIT_SKIP = frozenset({"already"})
_MERGE = {tuple(k.split()): v for k, v in lexicon.MERGES.items()}
_MERGE.update({tuple(v.split()): k for k, v in lexicon.COMPOUNDS.items() if k not in _SPLIT_SKIP})


def op_compound(ctx: PlanContext, rng: random.Random) -> Edit | None:
    toks = ctx.tokens
    cands = []
    for i, tok in enumerate(toks):
        parts = lexicon.COMPOUNDS.get(tok.text.casefold())
        if parts and tok.text.casefold() not in _SPLIT_SKIP:
            cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, parts), "compound", 0))
        if i + 1 < len(toks) and ctx.reference[tok.end : toks[i + 1].start] == " ":
            merged = _MERGE.get((tok.norm, toks[i + 1].norm))
            if merged:
                new = match_case(tok.text, merged)
                cands.append(ctx.make(tok.start, toks[i + 1].end, new, "compound", 0))
    return pick_one(rng, cands)


def op_homophone(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for tok in ctx.tokens:
        key = tok.text.casefold().replace("’", "'")
        if key in lexicon.HOMOPHONES and key not in lexicon.UNSAFE_HOMOPHONES:
            alt = rng.choice(lexicon.HOMOPHONES[key])
            cands.append(ctx.make(tok.start, tok.end, match_case(tok.text, alt), "homophone", 0))
    return pick_one(rng, cands)


def op_drop_function_word(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for i, tok in enumerate(ctx.tokens):
        if tok.norm in lexicon.DROPPABLE_FUNCTION_WORDS and len(ctx.tokens) > 3:
            cands.append(ctx.make(*ctx.delete_range(i, i + 1), "", "drop_function_word", 0))
    return pick_one(rng, cands)


def op_punctuation(ctx: PlanContext, rng: random.Random) -> Edit | None:
    text = ctx.reference
    cands = []
    for k, ch in enumerate(text):
        if ch in ",;:.!?" and (k + 1 == len(text) or text[k + 1] == " "):
            cands.append(ctx.make(k, k + 1, "", "punctuation", 0))
    for tok in ctx.tokens[:-1]:
        if text[tok.end : tok.end + 1] == " ":
            cands.append(ctx.make(tok.end, tok.end, ",", "punctuation", 0))
    return pick_one(rng, cands)


def op_case(ctx: PlanContext, rng: random.Random) -> Edit | None:
    cands = []
    for tok in ctx.tokens:
        if not is_word(tok):
            continue
        new = tok.text.lower() if tok.text[:1].isupper() else tok.text[:1].upper() + tok.text[1:]
        cands.append(ctx.make(tok.start, tok.end, new, "case", 0))
    return pick_one(rng, cands)
