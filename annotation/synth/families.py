"""Operator families of ``synth-1.3`` (issue #12, part 3): rewordings, directions, short commands.

Three hand-written data sources, each read and checked here:

* **Phrase lexicon** (``data/reword_lexicon.tsv``): tab-separated ``tier, kind, a, b, mode,
  source``. Tier-0 rows are meaning-preserving rewordings ("you can" -> "you're able to", "half
  past seven" -> "seven thirty"); ``mode`` ``<>`` allows both directions, ``>`` only ``a -> b``.
  Tier-2 rows are *contrast flips*: a rewording that looks alike but changes the meaning ("you
  can" -> "you can't", "ahead of" -> "after"). :func:`op_reword` applies a tier-0 row anywhere
  (T0); :func:`op_reword_flip` applies a tier-2 row inside an outcome span (T2) or an inform span
  (T1), as the pool's role spans decide for every other operator.
* **Directions and antonyms** (``data/directions.tsv``): ``kind, word, other, source`` with
  ``kind`` ``antonym`` (left/right, lock/unlock, love/hate ...), ``neighbour`` (a phonetic
  neighbour that is another word: left -> lift, accept -> except) or ``homophone`` (same sound:
  right -> write, sell -> cell). Antonyms apply both ways, neighbours and homophones only from
  the direction word. :func:`op_direction` plans T2 on outcome spans and T1 on inform
  spans for antonyms and neighbours; a homophone keeps the word recoverable from its sound and
  context, so it is one tier lower (T1 on outcome spans, T0 on inform spans).
* **Contrast words** (``synth-1.5``, issue #28; ``data/contrasts.tsv``, the same format):
  :func:`op_contrast` flips enable/disable, buy/sell, accept/decline, include/exclude and the
  like, or swaps in a phonetic neighbour, with the tiers of :func:`op_direction`.
* **Sentence rewrites and short commands** are pool sources (``annotation/sources/rewrites/`` and
  ``annotation/sources/short/``), read by :func:`load_rewrites` and by the generator's pool
  reader; ``annotation/sources/check_pool.py`` validates them.

Matching is on whole tokens, case ignored but apostrophes kept ("we'll" never matches "well");
the replacement carries the capitalization of the first replaced token.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation.synth import lexicon
from annotation.synth.numbers import is_number_token
from annotation.synth.plan import (
    Edit,
    PlanContext,
    is_word,
    match_case,
    negation_count,
    number_tokens,
    token_norms,
)
from sitar.errors import InputError
from sitar.text import tokenize

__all__ = [
    "DATA_DIR",
    "DIRECTION_KINDS",
    "DirectionPair",
    "LexiconEntry",
    "Rewrite",
    "directional",
    "load_directions",
    "load_lexicon",
    "load_rewrites",
    "op_contrast",
    "op_direction",
    "op_quantifier",
    "op_reword",
    "op_reword_flip",
]

DATA_DIR = Path(__file__).resolve().parent / "data"
LEXICON_FILE = DATA_DIR / "reword_lexicon.tsv"
DIRECTIONS_FILE = DATA_DIR / "directions.tsv"
#: ``synth-1.5`` contrast words (issue #28), in the format of the directions table.
CONTRASTS_FILE = DATA_DIR / "contrasts.tsv"
DIRECTION_KINDS = ("antonym", "neighbour", "homophone")
#: Lexicon kinds whose rows change number tokens on purpose (same value, other words: "half past
#: seven" -> "seven thirty"); every other tier-0 row must keep the number tokens.
NUMBER_KINDS = frozenset({"number", "time", "date"})


@dataclass(frozen=True)
class LexiconEntry:
    """One phrase-lexicon row: ``a`` may become ``b`` (and ``b`` become ``a`` if ``both``)."""

    tier: int
    kind: str
    a: str
    b: str
    both: bool
    source: str
    line: int


@dataclass(frozen=True)
class DirectionPair:
    """One directions row: ``word`` -> ``other`` (an antonym also ``other`` -> ``word``)."""

    kind: str
    word: str
    other: str
    source: str
    line: int


@dataclass(frozen=True)
class Rewrite:
    """A hand-written whole-sentence rewrite of a pool reference, with an optional contrast flip
    (``flip_old`` in the rewrite becomes ``flip_new``, planned tier ``flip_tier``)."""

    id: str
    pool_id: str
    reference: str
    rewrite: str
    source: str
    flip_old: str = ""
    flip_new: str = ""
    flip_tier: int = 0
    flip_reason: str = ""

    @property
    def flipped(self) -> str:
        """The rewrite with the flip applied ("" without a flip)."""
        if not self.flip_old:
            return ""
        return self.rewrite.replace(self.flip_old, self.flip_new, 1)


def _rows(path: Path, width: int) -> list[tuple[int, list[str]]]:
    if not path.is_file():
        raise InputError(f"missing data file {path}")
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) != width or not all(c.strip() == c and c for c in cells):
            raise InputError(
                f"{path.name}:{lineno}: expected {width} non-empty tab-separated cells without "
                f"surrounding spaces, got {cells!r}"
            )
        out.append((lineno, cells))
    return out


@functools.lru_cache(maxsize=4)
def load_lexicon(path: Path = LEXICON_FILE) -> tuple[LexiconEntry, ...]:
    """Rows of the phrase lexicon, checked: tier 0 or 2, mode ``<>`` or ``>``, ``a != b``, no
    duplicate ``(a, b)``, and tier-0 rows keep the negation count (and the number tokens, except
    the number/time/date kinds)."""
    entries = []
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for lineno, (tier, kind, a, b, mode, source) in _rows(path, 6):
        where = f"{path.name}:{lineno}"
        if tier not in ("0", "2") or mode not in ("<>", ">"):
            raise InputError(f"{where}: tier must be 0 or 2 and mode <> or >, got {tier}, {mode}")
        key = (token_norms(a), token_norms(b))
        if not key[0] or not key[1] or key[0] == key[1]:
            raise InputError(f"{where}: {a!r} -> {b!r} changes no token")
        if key in seen:
            raise InputError(f"{where}: duplicate row {a!r} -> {b!r}")
        seen.add(key)
        if tier == "0":
            if negation_count(a) != negation_count(b):
                raise InputError(f"{where}: a tier-0 rewording changes the negations: {a!r}")
            if kind not in NUMBER_KINDS:
                if number_tokens(a) != number_tokens(b):
                    raise InputError(f"{where}: a tier-0 rewording changes a number: {a!r}")
        entries.append(LexiconEntry(int(tier), kind, a, b, mode == "<>", source, lineno))
    return tuple(entries)


@functools.lru_cache(maxsize=4)
def load_directions(path: Path = DIRECTIONS_FILE) -> tuple[DirectionPair, ...]:
    """Rows of the directions table, checked: a known kind, single words, no duplicates."""
    out = []
    seen: set[tuple[str, str]] = set()
    for lineno, (kind, word, other, source) in _rows(path, 4):
        where = f"{path.name}:{lineno}"
        if kind not in DIRECTION_KINDS:
            raise InputError(f"{where}: kind must be one of {DIRECTION_KINDS}, got {kind!r}")
        if (
            len(token_norms(word)) != 1
            or len(token_norms(other)) != 1
            or token_norms(word) == token_norms(other)
        ):
            raise InputError(f"{where}: need two different single words, got {word!r} {other!r}")
        key = (word.casefold(), other.casefold())
        if key in seen or key[::-1] in seen:
            raise InputError(f"{where}: duplicate pair {word!r} / {other!r}")
        seen.add(key)
        out.append(DirectionPair(kind, word, other, source, lineno))
    return tuple(out)


def load_rewrites(root: Path) -> tuple[list[Rewrite], dict[str, str]]:
    """Sentence rewrites under ``root/rewrites/*.jsonl`` (sorted by id) and the SHA-256 of each
    file (by path relative to ``root``). Raises :class:`InputError` on a malformed line."""
    import hashlib

    out: list[Rewrite] = []
    hashes: dict[str, str] = {}
    for path in sorted((root / "rewrites").glob("*.jsonl")):
        rel = path.relative_to(root).as_posix()
        hashes[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                flip = d.get("flip") or {}
                rw = Rewrite(
                    id=str(d["id"]),
                    pool_id=str(d["pool_id"]),
                    reference=str(d["reference"]),
                    rewrite=str(d["rewrite"]),
                    source=str(d["source"]),
                    flip_old=str(flip.get("old", "")),
                    flip_new=str(flip.get("new", "")),
                    flip_tier=int(flip.get("tier", 0)),
                    flip_reason=str(flip.get("reason", "")),
                )
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as e:
                raise InputError(f"{rel}:{lineno}: invalid rewrite line ({e})") from e
            if flip and (rw.rewrite.count(rw.flip_old) != 1 or rw.flip_tier not in (1, 2)):
                raise InputError(
                    f"{rel}:{lineno}: flip 'old' must occur once in the rewrite and its tier be "
                    "1 or 2"
                )
            out.append(rw)
    out.sort(key=lambda r: r.id)
    return out, hashes


# ---------------------------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------------------------


def _forms(text: str) -> tuple[str, ...]:
    """Casefolded token texts with the apostrophe kept (``I'll`` is not ``ill``)."""
    return tuple(t.text.casefold().replace("\u2019", "'") for t in tokenize(text))


def _phrase_hits(ctx: PlanContext, phrase: str) -> list[tuple[int, int]]:
    """Token index ranges ``[i, j)`` of the reference whose tokens equal the phrase's (case
    ignored, apostrophes kept, so that "we'll" never matches "well")."""
    target = _forms(phrase)
    norms = [t.text.casefold().replace("\u2019", "'") for t in ctx.tokens]
    n = len(target)
    return [(i, i + n) for i in range(len(norms) - n + 1) if tuple(norms[i : i + n]) == target]


def _directed(entries: Sequence[LexiconEntry], tier: int) -> list[tuple[LexiconEntry, str, str]]:
    out = []
    for e in entries:
        if e.tier != tier:
            continue
        out.append((e, e.a, e.b))
        if e.both:
            out.append((e, e.b, e.a))
    return out


def _role_tier(ctx: PlanContext, i: int, j: int) -> int | None:
    """T2 if tokens ``[i, j)`` lie in one outcome span, T1 if in one inform span, else None."""
    owners = {ctx.role_of(k) for k in range(i, j)}
    if len(owners) != 1:
        return None
    (span,) = owners
    if span is None:
        return None
    return {"outcome": 2, "inform": 1}.get(span.role)


def _number_next_to(ctx: PlanContext, i: int, j: int) -> bool:
    """Whether a number token (or "o'clock", "am", "pm") is just before ``i`` or at ``j``: a
    number rewording must cover the whole value."""
    from annotation.synth.numbers import is_number_token

    near = [k for k in (i - 1, j) if 0 <= k < len(ctx.tokens)]
    return any(
        is_number_token(ctx.tokens[k].norm) or ctx.tokens[k].norm in ("oclock", "am", "pm")
        for k in near
    )


def op_reword(ctx: PlanContext, rng: random.Random) -> Edit | None:
    """T0: one tier-0 phrase-lexicon rewording, anywhere (a number rewording only where the
    ``synth-1.5`` ``number_format`` filter keeps it, :meth:`PlanContext.keeps_number_format`)."""
    cands: list[Edit] = []
    for entry, old, new in _directed(load_lexicon(), 0):
        for i, j in _phrase_hits(ctx, old):
            if entry.kind in NUMBER_KINDS and _number_next_to(ctx, i, j):
                continue  # "at nine" inside "at nine thirty" is not "at nine o'clock"
            a, b = ctx.tokens[i].start, ctx.tokens[j - 1].end
            op = "reword_number" if entry.kind in NUMBER_KINDS else "reword"
            edit = ctx.make(a, b, match_case(ctx.tokens[i].text, new), op, 0)
            if edit is not None and (not _number_form(edit) or ctx.keeps_number_format(edit)):
                cands.append(edit)
    return rng.choice(cands) if cands else None


def _number_form(edit: Edit) -> bool:
    """Whether a rewording changes how a number is said ("half past seven" -> "seven thirty"),
    which the ``synth-1.5`` ``number_format`` switch governs; a time rewording without a number
    ("until" -> "till") is an ordinary rewording."""
    return edit.op == "reword_number" and bool(number_tokens(edit.old) or number_tokens(edit.new))


def op_reword_flip(ctx: PlanContext, rng: random.Random) -> Edit | None:
    """A contrast flip from the lexicon's tier-2 rows: T2 inside an outcome span, T1 inside an
    inform span, never elsewhere."""
    cands: list[Edit] = []
    for _entry, old, new in _directed(load_lexicon(), 2):
        for i, j in _phrase_hits(ctx, old):
            tier = _role_tier(ctx, i, j)
            if tier is None:
                continue
            a, b = ctx.tokens[i].start, ctx.tokens[j - 1].end
            edit = ctx.make(a, b, match_case(ctx.tokens[i].text, new), "reword_flip", tier)
            if edit is not None:
                cands.append(edit)
    return rng.choice(cands) if cands else None


def _direction_table(path: Path = DIRECTIONS_FILE) -> dict[str, list[tuple[str, str]]]:
    table: dict[str, list[tuple[str, str]]] = {}
    for p in load_directions(path):
        table.setdefault(token_norms(p.word)[0], []).append((p.kind, p.other))
        if p.kind == "antonym":  # a neighbour or homophone only replaces the direction word
            table.setdefault(token_norms(p.other)[0], []).append((p.kind, p.word))
    return table


#: Words that are directions only in some uses ("turn left" but "I left early", "check in" but
#: "in May", "turn on" but "on Friday"): swapped only in a directional context, when one of the
#: two words before is a verb of :data:`DIRECTION_VERBS` or the next word is one of
#: :data:`DIRECTION_NOUNS`.
AMBIGUOUS_DIRECTIONS = frozenset({"left", "right", "up", "down", "in", "out", "on", "off"})
DIRECTION_VERBS = frozenset(
    {
        "turn", "turns", "turned", "turning", "go", "goes", "going", "keep", "bear", "veer",
        "move", "head", "heading", "swipe", "scroll", "look", "step", "walk", "drive", "pull",
        "slide", "zoom", "check", "checked", "checking", "log", "logged", "sign", "signed",
        "plug", "switch", "switched", "switching", "opt", "clock", "punch", "speed", "slow",
        "count", "come", "climb", "lean", "shut", "jump", "volume", "swing", "fold", "roll",
        "pan", "tilt", "merge", "stay", "exit", "lift", "hold", "flip", "shift",
    }
)  # fmt: skip
DIRECTION_NOUNS = frozenset(
    {"lane", "lanes", "side", "hand", "turn", "exit", "wing", "arrow", "button", "door", "fork"}
)
#: "close" is a verb ("close the door") or an adjective ("close to the station"); only the verb.
_CLOSE_NEXT = frozenset(
    {"the", "my", "your", "this", "that", "all", "it", "down", "our", "his", "her", "their", "up"}
)


def directional(tokens: Sequence[Any], i: int) -> bool:
    """Whether token ``i`` may be swapped by :func:`op_direction` (context rule above)."""
    norm = tokens[i].norm
    nxt = tokens[i + 1].norm if i + 1 < len(tokens) else ""
    if norm in ("close", "closes"):
        return nxt in _CLOSE_NEXT
    if norm not in AMBIGUOUS_DIRECTIONS:
        return True
    before = {tokens[k].norm for k in range(max(0, i - 2), i)}
    return bool(before & DIRECTION_VERBS) or nxt in DIRECTION_NOUNS


def op_direction(ctx: PlanContext, rng: random.Random) -> Edit | None:
    """A direction or antonym word swapped for its opposite or a phonetic neighbour: T2 on an
    outcome span, T1 on an inform span (a homophone one tier lower), never elsewhere; ambiguous
    words only in a directional context (:func:`directional`)."""
    return _swap_word(ctx, rng, _direction_table(), "direction")


def op_contrast(ctx: PlanContext, rng: random.Random) -> Edit | None:
    """``synth-1.5`` (issue #28): a contrast word of ``data/contrasts.tsv`` (enable/disable,
    lock/unlock, buy/sell, upstairs/downstairs, raise/lower, positive/negative, before/after,
    on/off, left/right, accept/decline, include/exclude and their inflections) swapped for its
    opposite or a phonetic neighbour ("accept" -> "except", "lower" -> "lore"). The flip reverses
    the instruction or decision where it lies in an outcome span (T2) and changes what the
    listener learns where it lies in an inform span (T1); a homophone is one tier lower; outside
    the role spans nothing is planned. Ambiguous words (on, off, left, right) follow
    :func:`directional`, exactly as :func:`op_direction`."""
    return _swap_word(ctx, rng, _direction_table(CONTRASTS_FILE), "contrast", _dated)


#: Words after "on" / "off" that make it a date or a number, not a switch ("shift on April 4th",
#: "on Friday", "off 20 percent"): :func:`op_contrast` leaves it alone there.
_DATE_WORDS = frozenset(w.casefold() for w in (*lexicon.MONTHS, *lexicon.WEEKDAYS))


def _dated(tokens: Sequence[Any], i: int) -> bool:
    nxt = tokens[i + 1].norm if i + 1 < len(tokens) else ""
    if tokens[i].norm not in ("on", "off") or not nxt:
        return False
    return nxt in _DATE_WORDS or is_number_token(nxt)


def _swap_word(
    ctx: PlanContext,
    rng: random.Random,
    table: dict[str, list[tuple[str, str]]],
    prefix: str,
    skip: Callable[[Sequence[Any], int], bool] | None = None,
) -> Edit | None:
    """One word of ``table`` swapped (op ``{prefix}_{kind}``), the tier from its role span; a
    word for which ``skip`` (tokens, index) says True is left alone."""
    cands: list[Edit] = []
    for i, tok in enumerate(ctx.tokens):
        alts = table.get(tok.norm)
        if not alts or not directional(ctx.tokens, i) or (skip is not None and skip(ctx.tokens, i)):
            continue
        base = _role_tier(ctx, i, i + 1)
        if base is None:
            continue
        for kind, other in alts:
            tier = base - 1 if kind == "homophone" else base
            op = f"{prefix}_{kind}"
            edit = ctx.make(tok.start, tok.end, match_case(tok.text, other), op, tier)
            if edit is not None:
                cands.append(edit)
    return rng.choice(cands) if cands else None


# ---------------------------------------------------------------------------------------------
# Quantifier and frequency scope (synth-1.4)
# ---------------------------------------------------------------------------------------------

#: Determiners that open a noun phrase a quantifier can narrow ("the figures" -> "most of the
#: figures").
QUANTIFIABLE_DETERMINERS = frozenset(
    {"the", "my", "your", "our", "his", "her", "their", "these", "those"}
)
#: Quantifiers inserted before such a noun phrase: each makes a claim about part of what the
#: reference says of the whole.
PARTIAL_QUANTIFIERS = ("most of", "some of", "half of", "not all of", "only some of")
#: Words before the determiner after which no quantifier is inserted: prepositions ("send it to
#: the client" must not become "to most of the client") and words that already quantify.
_NO_QUANTIFIER_AFTER = frozenset(
    {
        "to", "at", "in", "on", "by", "for", "from", "with", "into", "onto", "about", "of",
        "before", "after", "until", "over", "under", "behind", "near", "through", "during",
        "without", "within", "across", "around", "between", "off", "up", "down", "out", "past",
        "per", "via", "towards", "toward", "inside", "outside", "against", "along", "among",
        "since", "all", "both", "half", "most", "some", "each", "every", "any", "none", "one",
        "many", "few", "several", "only", "like", "than",
    }
)  # fmt: skip
#: Plural nouns that do not look plural to the lemma test (:func:`_plural_at`).
_IRREGULAR_PLURALS = frozenset(
    {"people", "children", "men", "women", "staff", "belongings", "goods", "clothes", "police",
     "feet", "teeth", "mice", "data", "media"}
)  # fmt: skip
#: Frequency adverbs and the ones they are swapped for (a different frequency, never a plain
#: negation: "always" -> "never" is a negation flip, which other operators cover).
FREQUENCY_SWAPS: dict[str, tuple[str, ...]] = {
    "always": ("usually", "sometimes", "often"),
    "usually": ("always", "sometimes", "rarely"),
    "often": ("rarely", "always"),
    "sometimes": ("always", "often", "rarely"),
    "rarely": ("often", "always"),
    "never": ("rarely", "sometimes"),
}
#: "all" and the partial quantifiers it becomes ("all the files" -> "most of the files").
_ALL_SWAPS = ("most of", "some of", "half of")
#: Words after "all" that make a phrase of its own, not a quantified noun phrase ("all right",
#: "all day", "all set"): "all" is left alone before them.
_NOT_QUANTIFIED_AFTER_ALL = frozenset(
    {"right", "set", "day", "night", "week", "year", "along", "over", "in", "out", "done",
     "good", "clear", "ready", "gone", "together", "at", "around", "about"}
)  # fmt: skip
#: Meaning-preserving forms of the same quantifiers (T0): "all the" <-> "all of the".
_OF_OPTIONAL = frozenset({"all", "both", "half"})


@functools.cache
def _is_plural_noun(word: str) -> bool:
    """A plural noun: a listed irregular plural, or a word in -s whose noun lemma differs from it
    ("figures" -> "figure"; "news", "bus", "glass" are not)."""
    from lemminflect import getLemma

    if word in _IRREGULAR_PLURALS:
        return True
    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return False
    return word not in getLemma(word, upos="NOUN")


def _plural_at(toks: Sequence[Any], i: int) -> bool:
    """Whether the noun phrase starting at token ``i`` has a plural head: token ``i`` or ``i + 1``
    (one adjective or noun modifier in between) is a plural noun. Quantifiers are inserted only
    there: "most of the figures", not "most of the gap"."""
    return any(
        k < len(toks) and is_word(toks[k]) and _is_plural_noun(toks[k].norm) for k in (i, i + 1)
    )


def op_quantifier(ctx: PlanContext, rng: random.Random) -> Edit | None:
    """A change of quantifier or frequency scope inside a role span: T2 on an outcome span, T1 on
    an inform span, never elsewhere.

    * a partial quantifier inserted before a determiner noun phrase ("The figures look right" ->
      "Most of the figures look right") whose head noun is plural, not after a preposition or
      another quantifier;
    * "all (of) the X" narrowed to "most of / some of / half of the X", and "most / some / half of
      the X" widened to "the X" or "all of the X";
    * a frequency adverb swapped for another frequency ("always" -> "usually").

    With probability 1/4, and only where the reference has "all the", "both the" or "half the"
    (or the same with "of"), a T0 rewording of the same words is planned instead ("all the X" ->
    "all of the X"): the family must not teach that touching a quantifier always distorts.
    """
    toks = ctx.tokens
    n = len(toks)
    cands: list[Edit] = []
    neutral: list[Edit] = []

    def add(i: int, j: int, new: str, covered: int | None = None) -> None:
        tier = _role_tier(ctx, i, j if covered is None else covered)
        if tier is None:
            return
        edit = ctx.make(toks[i].start, toks[j - 1].end, new, "quantifier", tier)
        if edit is not None:
            cands.append(edit)

    for i, tok in enumerate(toks):
        norm = tok.norm
        nxt = toks[i + 1] if i + 1 < n else None
        prev = toks[i - 1].norm if i > 0 else ""
        if (
            norm in QUANTIFIABLE_DETERMINERS
            and nxt is not None
            and is_word(nxt)
            and prev not in _NO_QUANTIFIER_AFTER
            and _plural_at(toks, i + 1)
        ):
            q = rng.choice(PARTIAL_QUANTIFIERS)
            add(i, i + 1, match_case(tok.text, f"{q} {tok.text.lower()}"), covered=i + 2)
        if norm == "all" and nxt is not None:
            # "all the X" / "all of the X" / "all X"
            j = i + 2 if nxt.norm == "of" else i + 1
            q = rng.choice(_ALL_SWAPS)
            if j < n and toks[j].norm in QUANTIFIABLE_DETERMINERS:
                add(i, j, match_case(tok.text, q), covered=j + 1)
            elif j == i + 1 and is_word(nxt) and nxt.norm not in _NOT_QUANTIFIED_AFTER_ALL:
                add(i, i + 1, match_case(tok.text, q.split()[0]), covered=i + 2)
        if norm in ("most", "some", "half") and nxt is not None and nxt.norm == "of":
            if i + 2 < n and toks[i + 2].norm in QUANTIFIABLE_DETERMINERS:
                wide = rng.choice(("", "all of"))
                if wide:
                    add(i, i + 2, match_case(tok.text, wide), covered=i + 3)
                else:  # drop "most of": the determiner takes the capital
                    det = toks[i + 2]
                    tier = _role_tier(ctx, i, i + 3)
                    if tier is not None:
                        edit = ctx.make(
                            tok.start, det.end, match_case(tok.text, det.text.lower()),
                            "quantifier", tier,
                        )  # fmt: skip
                        if edit is not None:
                            cands.append(edit)
        if norm in FREQUENCY_SWAPS:
            add(i, i + 1, match_case(tok.text, rng.choice(FREQUENCY_SWAPS[norm])))
        if norm in _OF_OPTIONAL and nxt is not None:
            if nxt.norm in QUANTIFIABLE_DETERMINERS:  # "all the" -> "all of the"
                new = f"{tok.text} of {nxt.text}"
                edit = ctx.make(tok.start, nxt.end, new, "quantifier_reword", 0)
            elif nxt.norm == "of" and i + 2 < n and toks[i + 2].norm in QUANTIFIABLE_DETERMINERS:
                edit = ctx.make(tok.start, toks[i + 2].end, f"{tok.text} {toks[i + 2].text}",
                                "quantifier_reword", 0)  # fmt: skip
            else:
                edit = None
            if edit is not None:
                neutral.append(edit)
    if neutral and rng.random() < 0.25:
        return rng.choice(neutral)
    return rng.choice(cands) if cands else None
