"""One text normaliser: score what was said, not how it was typed (issue #28).

:func:`normalize` canonicalises one string; :func:`normalize_pair` canonicalises a (reference,
hypothesis) pair (adding the one pair-aware rule, compound spacing) and
:func:`original_gap_spans` maps the gaps that :func:`sitar.segment` finds on the normalised pair
back to character spans of the ORIGINAL strings. The English number, contraction and spelling
knowledge is the ASR leaderboards' normaliser (``whisper-normalizer``, OpenAI Whisper's English
normaliser; chosen by measurement, see ``experiments/normaliser-choice/``); the rules below say
where and how it is applied and where it is overruled because it changes meaning.

The output is a sequence of tokens, each a single token of SPEC §1 (so ``tokenize`` of the
normalised text gives exactly these tokens, in order), each with the half-open character span of
the original text it came from. Several tokens may share one span (``"don't"`` gives ``do not``;
``"2,500 dollars"`` gives ``2500 dollars``, both on the span of the whole amount).

Rules (each is tested in ``tests/core/test_normalize.py``; rule 12 in
``tests/core/test_normalize_times.py``). Rules 1-5 and 9 run word by word in
:mod:`sitar._normalize_words`, then rules 6-8 over number runs in :mod:`sitar._normalize_numbers`,
then (version 4) rule 12 on each side, then rule 10 over the pair, and rule 11 when the text is
written out:

1. **Tokens** are SPEC §1 tokens of the original (letters, marks, numbers; word-internal
   apostrophes; ``.``/``,`` between digits), so spans are original spans. Each token is put in
   NFC, loses variation selectors (U+FE00-FE0F, U+E0100-E01EF) and the combining marks on Latin
   letters (``café`` = ``cafe``, as the library does; marks of other scripts are kept), gets
   U+2019 written as ``'``, and is casefolded. A token that is empty after this is dropped.
2. **Punctuation and symbols** between tokens are dropped (rule 11 keeps one boundary mark), except: ``$ £ € ¢`` (currency, kept for
   the number step), ``%`` after a number (``percent``), ``-``/``−``/``+`` directly before a number
   and not directly after a token (``minus``/``plus``: ``-2`` is not ``2``), ``&`` (``and``),
   ``°`` (``degrees``; ``°C``/``°F`` give ``degrees celsius``/``fahrenheit``), ``#`` before a
   number (``number``), and ``:`` between an hour and two-digit minutes (a time, rule 7). Hyphens
   and other joiners are separators, so ``long-term`` equals ``long term``. Any other punctuation
   between two tokens is a *pause*: a number does not continue across it (rule 6).
3. **Digit grouping**: ``2,500`` is ``2500`` (only well-formed thousands groups).
4. **Contractions** are expanded with the library's table (``don't`` -> ``do not``, ``I'm`` ->
   ``i am``, ``won't`` -> ``will not``, ``gonna`` -> ``going to``, ``'s been`` -> ``has been``),
   plus ``cannot`` -> ``can not`` and ``'cause`` -> ``because``. Overruled: the library's bare
   ``cause`` -> ``because`` (``the cause`` is a noun), and ``'s`` -> ``is`` is applied only after
   pronouns and question words (``he's``, ``that's``, ``where's``) or before ``not``, ``been``,
   ``gone``, ``got``; after a noun ``'s`` is usually possessive, so ``John's`` stays and compares
   as ``johns`` (SPEC §1 drops apostrophes). ``'d better`` is ``had better`` (the library: would).
5. **Titles** (``Dr``, ``Mr``, ``St``, ``Prof`` ...) are expanded with the library's table only when
   written as an abbreviation: followed by ``.`` or capitalised. A lowercase ``rep`` or ``col`` is
   a word, not a title. ``No.`` before a number is ``number``.
6. **Spoken and written numbers** are made canonical on both sides by the library's number
   normaliser, applied to each maximal run of number words and digits (with ``and`` and
   ``point`` between numbers, ``a``/``one`` before a magnitude word, ``minus``/``plus``,
   ``double``/``triple``, ``and a half``, and currency and percent words after a number). Output:
   digits (``three hundred and fifty`` -> ``350``; ``twenty five hundred`` -> ``2500``; ``nineteen
   ninety nine`` -> ``1999``; ``twenty first`` -> ``21st``; ``three point five million`` ->
   ``3500000``), the sign as a word (``minus 2``), and currency and percent as words after the
   number (``$12.50`` and ``twelve dollars and fifty cents`` -> ``12.50 dollars``; ``50%`` ->
   ``50 percent``): SPEC §1 tokens drop symbols, and ``$5`` must not equal ``€5`` or ``5``.
   Different values stay different (``300``/``3000``, ``hundred``/``thousand``). Overruled:

   - a digit ``1`` on its own is written ``one`` as the library does, but only as a whole token
     (the library's regex also rewrote ``1.5`` as ``one.5`` and ``$1`` as ``$one``);
   - ``a hundred`` is ``100`` like ``one hundred`` (the library gave ``a 100``), but an article
     written before digits (``a 100``) is a word of its own and stays;
   - ``oh`` is zero only next to another number (``three oh five``; not ``oh no``), and the
     letter ``o`` only after one (``three o five``; not ``c o two``);
   - an ordinal right after a units word or a digit starts a new number (the library read
     ``one second`` as ``12nd``); ``second`` after ``a``, ``one``, ``per``, ``each``, ``every``,
     ``few``, ``split`` or a number is the unit of time and stays a word;
   - a sign at the start of a run is kept (the library turned ``minus fifty dollars`` into
     ``$50``);
   - ``2 and a half`` is ``2.5`` like ``two and a half`` (the library only read it after a
     number word);
   - a third decade word in a row starts a new number (the library read ``twenty thirty sixty``
     as ``203060``; it is ``2030 60``);
   - ``ninth`` is an ordinal (the library only knows its misspelling ``nineth``);
   - a run of digits only (``6 05``, ``555 1234``) is kept as written (the library dropped the
     zero of ``05``, so normalising twice changed the text);
   - a run does not continue across a pause (rule 2): written ``two, three`` is two numbers, not
     the library's ``23``;
   - ``two pounds fifty`` (``£2 50``) is ``2.50 pounds`` when two-digit pence end the run and the
     amount is under 100 (so ``pay five dollars twenty times`` also reads ``5.20 dollars``:
     spoken text cannot tell; ``three hundred dollars twenty boxes`` stays a list);
   - a run is cut after 48 words (the library's cost grows faster than linearly);
   - if the library fails on a run, the run's words are kept as they are.
7. **Times**: ``3:30`` is ``3 30``; ``:00`` minutes are dropped (``3:00 pm`` -> ``3 pm``; the
   hour ``00`` of ``00:30`` stays);
   ``o'clock`` after a number is dropped; ``p.m.``/``PM``/``p m`` after a number are ``pm`` (and
   ``am``). Spoken hour-minute pairs (``three thirty``, ``ten oh five``) are ``3 30``/``10 05``
   when they follow ``at``, ``by``, ``until``, ``till``, ``before``, ``after``, ``around``,
   ``from`` or precede ``am``/``pm``/``o'clock`` (elsewhere ``three fifty`` is ``350``).
8. **Dates and units**: an ordinal next to a month name is its number (``March 3rd`` = ``march
   third`` = ``March 3``; ``3rd of March`` -> ``3 of march``); years are numbers by rule 6, and
   ``1990's`` is ``1990s``; a month abbreviation written with ``.`` or a capital before a number
   is the month (``Sept. 5``). Unit abbreviations after a number are words, singular after
   ``one`` and plural otherwise (``5 km`` = ``five kilometers``, ``1 hr`` = ``one hour``; ``km kg
   mg mcg cm mm mi ft yd(s) lb(s) oz ml gal tbsp tsp hr(s) min(s) sec(s) kb mb gb tb mph kph``;
   not ``m``, ``g``, ``l``, ``in``, which are also words or names).
9. **Spellings**: British spellings become American with the library's list (``colour`` ->
   ``color``, ``centre`` -> ``center``, ``organise`` -> ``organize``); ``ok`` is ``okay``.
10. **Compound spacing** (pair only, :func:`normalize_pair`): two or three adjacent word tokens
    on one side whose concatenation is a token of the other side are joined (``week ends`` /
    ``weekends``, ``e mail`` / ``email``, ``i o s`` / ``iOS``; hyphens were already separators). Only spellings present in the pair
    are joined, so no word is invented.
11. **Boundaries** (SPEC §3): where the original text between two tokens holds an informational
    boundary (one of ``. ! ? ; : … ,``, an en or em dash, or a ``-`` that does not join two word
    characters; not ``:``, ``,`` or ``.`` between two digits, as in ``3:00``, and not the ``.`` of
    an abbreviation: after a single letter or a dotted word, ``U.S.``, ``p.m.``, or after at most
    four letters that rules 4-8 wrote as another word, ``Dr.``, ``No.``, ``Sept.``), the normalised text keeps one
    mark after the first token: the first such
    character, ``…`` written ``.`` and a dash written ``,`` (``"truck. Leave"`` -> ``truck.
    leave``). Marks are not tokens, so the tokens and every gap are the same with or without
    them; they let CGD's consolidation see the original's boundaries, which the spec reads in
    the original text of either side. Without them, a stripped normal form merged edits of
    different sentences into one gap (the public dev set's ``early``/``Sam`` edits, ten words
    apart across a full stop). Nothing is marked before the first token or after the last.
12. **Clock phrases and dates** (normal form version 4 only, :mod:`sitar._normalize_times`, on
    each side before rule 10): ``half past 7``/``quarter past 3``/``a quarter to 4``/``10 past
    2`` are ``7 30``/``3 15``/``3 45``/``2 10`` (``M to H`` and ``M after H`` with a number M
    only after ``at``, ``by``, ``until``, ``till``, ``before``, ``after``, ``around`` or
    ``about``: ``from 5 to 6`` is a range, ``10 minutes to 2 hours`` a duration); ``in the
    morning`` after a time is ``am``, ``in the afternoon``/``in the evening`` ``pm`` (a time:
    ``H MM``, or an hour after one of those words or written with ``o'clock``); a colon time
    with hour 13-23 or ``00`` is 12-hour (``14:10`` -> ``2 10 pm``, ``00:30``
    -> ``12 30 am``; read from the tokens, so ``14 10`` too); ``midday`` and ``12 noon`` are
    ``noon``; ``[the] D of MONTH`` (with ``the`` or an ordinal D), ``MONTH the Dth`` and ``D
    MONTH`` are ``MONTH D`` (``D may``/``D march`` only before a year: ``we may 3 times``). Rule
    12 reads neither case nor punctuation, so version 4 keeps version 3's promise that a pair as
    written and stripped are one text. Every token of a rewritten phrase carries the original
    span of the whole phrase. In version 4 rule 10 also
    joins 2-4 groups of digits whose concatenation is a token of the other side (``07700 900
    461`` / ``07700900461``).

**Normal-form versions.** Version 2 (:data:`NORMALIZER_VERSION`, the default) is rules 1-11.
Version 3 is rules 1-10 without rule 11: the text is the tokens joined by single spaces, so a
pair written with punctuation and the same pair stripped of it have one normal form, and score
the same by construction (issue #28's invariance). A checkpoint names the version it was trained
on (``scoring.normal_form``, :func:`sitar.options.default_normal_form`); the tokens, their spans
and :func:`original_gap_spans` are the same in both, only the text CGD and the model read
differs. Measured on a candidate in ``experiments/v32-nf3/``. Version 4 is version 3 with rule 12
and digit groups in rule 10; its tokens differ from version 3's only where those rules apply
(``experiments/normal-form-4/``).

Not canonicalised (each stays a gap): filler words (``uh``, ``um``) and bracketed text, which the
library's full pipeline deletes (deleting words is not a format change); slashed dates and ranges
(``3/4``, ``5-10``: their reading depends on locale); digit-by-digit phone numbers against grouped
digits (version 4 joins them where the other side holds the joined number); abbreviations other
than titles, months, units and ``ok``; ``x`` for ``times``; feet and inches (``6'2"``); ``on 5
June`` against ``on the fifth of June`` (version 4: both ``on june 5``); a spoken time without a
time word around it (``it's one fifteen`` is ``115``; ``at one fifteen`` is ``1 15``).

:func:`normalize` never raises on a ``str``: lone surrogates and control characters are
separators (SPEC §1), and a 1 MB line is linear work. Its version string :data:`NORMALIZER_VERSION`
and :func:`normalizer_id` (which adds the library's version) belong in the signature.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from sitar._normalize_numbers import canonical_words
from sitar._normalize_times import clock_and_dates
from sitar._normalize_words import LIBRARY, Interval, load_library, read_pieces, read_words
from sitar.boundaries import BOUNDARY_PUNCTUATION, has_dash
from sitar.errors import InputError
from sitar.text import is_token_char, tokenize

__all__ = [
    "NORMALIZER_VERSION",
    "NORMAL_FORM_VERSIONS",
    "Normalized",
    "NormalizedPair",
    "check_normal_form_version",
    "normalize",
    "normalize_pair",
    "normalizer_id",
    "original_gap_spans",
    "original_segmentation",
]

#: Version of the rules in this module's docstring; with the library's version in the signature.
#: The default normal form (rules 1-11), for every checkpoint that does not name one.
NORMALIZER_VERSION = "2"
#: The normal forms :func:`normalize_pair` writes: ``2`` (rules 1-11), ``3`` (rules 1-10, no
#: boundary marks) and ``4`` (rules 1-10 and 12); see "Normal-form versions" in the module
#: docstring.
NORMAL_FORM_VERSIONS = ("2", "3", "4")


@dataclass(frozen=True)
class Normalized:
    """A normalised string: the original, the canonical text, and each token's original span.

    ``text`` is the tokens joined by spaces, each followed by rule 11's boundary mark where the
    original has a boundary before the next token; ``spans[i]`` is the half-open character span
    of ``original`` that token ``i`` came from.
    """

    original: str
    tokens: tuple[str, ...]
    spans: tuple[Interval, ...]

    @property
    def text(self) -> str:
        """The tokens joined by spaces, with rule 11's boundary marks (normal form version 2)."""
        return _with_marks(self.original, self.tokens, self.spans)

    @property
    def plain_text(self) -> str:
        """The tokens joined by single spaces, without marks (normal form version 3)."""
        return " ".join(self.tokens)

    def original_span(self, start: int, end: int) -> Interval:
        """The original span of normalised tokens ``[start, end)``; for an empty interval, the
        SPEC §4 insertion point (the original end of token ``start - 1``, or 0)."""
        if end > start:
            first = min(s for s, _ in self.spans[start:end])
            last = max(e for _, e in self.spans[start:end])
            return (first, last)
        point = self.spans[start - 1][1] if start > 0 else 0
        return (point, point)


_BETWEEN_DIGITS = frozenset(":,.")
_MARK_OF = {"…": ".", "–": ",", "—": ","}


def _boundary_mark(original: str, lo: int, hi: int, before: str) -> str:
    """Rule 11: the mark for the original text ``original[lo:hi]`` between two tokens, or ``""``.
    ``before`` is the normalised token before it (to tell an abbreviation's ``.``)."""
    for i in range(lo, hi):
        ch = original[i]
        if ch in _BETWEEN_DIGITS and 0 < i < len(original) - 1:
            if original[i - 1].isdigit() and original[i + 1].isdigit():
                continue  # 3:30, 3:00 (the minutes were dropped), 2,500
        if ch == "." and i == lo and _abbreviation(original, lo, before):
            continue
        if ch in BOUNDARY_PUNCTUATION:
            return _MARK_OF.get(ch, ch)
        if ch == "-" and has_dash(original[max(i - 1, 0) : i + 2]):  # the spec §3 dash rule
            return ","
    return ""


def _abbreviation(original: str, end: int, before: str) -> bool:
    """Whether the ``.`` at ``original[end]`` ends an abbreviation: the word before it is a
    single letter or holds a ``.`` (``U.S.``, ``p.m.``), or is at most four letters that the
    normaliser wrote as another word (``Dr.``, ``No.``, ``Sept.``; not ``ok``)."""
    start = end
    while start > 0 and (is_token_char(original[start - 1]) or original[start - 1] == "."):
        start -= 1
    written = original[start:end]
    word = written.replace(".", "").casefold()
    if not word.isalpha():
        return False
    if len(word) == 1 or "." in written:
        return True
    return len(word) <= 4 and before.isalpha() and before != word and word != "ok"


def _with_marks(original: str, tokens: tuple[str, ...], spans: tuple[Interval, ...]) -> str:
    parts: list[str] = []
    for i, token in enumerate(tokens):
        if i:
            lo, hi = spans[i - 1][1], spans[i][0]
            mark = _boundary_mark(original, lo, hi, tokens[i - 1]) if hi > lo else ""
            parts.append(mark + " ")
        parts.append(token)
    return "".join(parts)


class NormalizedPair(NamedTuple):
    """The normalised reference and hypothesis in normal form ``version``; ``texts`` is what
    :func:`sitar.segment` takes (with rule 11's marks in version 2, without in versions 3 and
    4)."""

    reference: Normalized
    hypothesis: Normalized
    version: str = NORMALIZER_VERSION

    @property
    def texts(self) -> tuple[str, str]:
        if self.version in ("3", "4"):
            return (self.reference.plain_text, self.hypothesis.plain_text)
        return (self.reference.text, self.hypothesis.text)


def check_normal_form_version(version: object) -> str:
    """``version`` if it is one of :data:`NORMAL_FORM_VERSIONS`, else an :class:`InputError`."""
    if not isinstance(version, str) or version not in NORMAL_FORM_VERSIONS:
        raise InputError(f"normal form must be one of {NORMAL_FORM_VERSIONS}, got {version!r}")
    return version


def normalizer_id(version: str = NORMALIZER_VERSION) -> str:
    """``sitar-norm-<normal form version>+whisper-normalizer-<version>``, for the signature."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    check_normal_form_version(version)
    try:
        library_version = installed(LIBRARY)
    except PackageNotFoundError:
        library_version = "missing"
    return f"sitar-norm-{version}+{LIBRARY}-{library_version}"


def _canonical(text: str) -> tuple[list[str], list[Interval]]:
    """Rules 1-9: the canonical tokens of ``text`` and each one's original span."""
    lib = load_library()
    out = canonical_words(read_words(read_pieces(text), lib), lib)
    tokens: list[str] = []
    spans: list[Interval] = []
    for word, span in out:
        if word.isascii() and word.isalnum():  # one SPEC §1 token already (the common case)
            tokens.append(word)
            spans.append(span)
            continue
        for token in tokenize(word):  # each output token is exactly one SPEC §1 token
            tokens.append(token.text)
            spans.append(span)
    return tokens, spans


# --------------------------------------------------------------------------------------------
# The public calls
# --------------------------------------------------------------------------------------------


def normalize(text: str) -> Normalized:
    """Canonicalise ``text`` (rules 1-9 of the module docstring) and keep original spans.

    >>> n = normalize("Meet me at Gate 7C.")
    >>> n.text, n.spans[-2:]
    ('meet me at gate 7 c', ((16, 18), (16, 18)))
    >>> normalize("I'm wiring $2,500 tonight").text
    'i am wiring 2500 dollars tonight'
    """
    if not isinstance(text, str):
        raise InputError(f"normalize() expects a str, got {type(text).__name__}")
    tokens, spans = _canonical(text)
    return Normalized(original=text, tokens=tuple(tokens), spans=tuple(spans))


def normalize_pair(
    reference: str, hypothesis: str, *, version: str = NORMALIZER_VERSION
) -> NormalizedPair:
    """Normalise both sides, then join compounds spelt apart on one side only (rule 10);
    ``version`` is the normal form whose texts ``.texts`` gives (``"2"``, ``"3"`` or ``"4"``;
    version 4 also applies rule 12 to each side first, and rule 10 to digit groups).

    >>> pair = normalize_pair("The clinic is closed on weekends.", "the clinic is closed on week ends")
    >>> pair.texts
    ('the clinic is closed on weekends', 'the clinic is closed on weekends')
    >>> normalize_pair("Stop. Then go left.", "stop then go left", version="3").texts
    ('stop then go left', 'stop then go left')
    """
    check_normal_form_version(version)
    for name, value in (("reference", reference), ("hypothesis", hypothesis)):
        if not isinstance(value, str):
            raise InputError(f"{name} must be a str, got {type(value).__name__}")
    ref, hyp = normalize(reference), normalize(hypothesis)
    digits = version == "4"
    if digits:
        ref, hyp = _clock_and_dates(ref), _clock_and_dates(hyp)
    ref_joined = _join_compounds(ref, frozenset(hyp.tokens), frozenset(ref.tokens), digits)
    hyp_joined = _join_compounds(hyp, frozenset(ref.tokens), frozenset(hyp.tokens), digits)
    return NormalizedPair(ref_joined, hyp_joined, version)


def _clock_and_dates(side: Normalized) -> Normalized:
    """Rule 12 (version 4) on one side."""
    tokens, spans = clock_and_dates(side.original, side.tokens, side.spans)
    if tuple(tokens) == side.tokens and tuple(spans) == side.spans:
        return side
    return Normalized(side.original, tuple(tokens), tuple(spans))


def _join_compounds(
    side: Normalized, other: frozenset[str], own: frozenset[str], digits: bool = False
) -> Normalized:
    """Rule 10: join 2-3 word tokens (version 4: also 2-4 digit groups, ``digits``) whose
    concatenation is a token of the other side and not of this one."""
    tokens, spans = side.tokens, side.spans
    out_tokens: list[str] = []
    out_spans: list[Interval] = []
    i = 0
    while i < len(tokens):
        for width in (4, 3, 2):  # the longest spelling first: "i o s" before "i o"
            parts = tokens[i : i + width]
            if len(parts) != width:
                continue
            if (width < 4 and all(map(str.isalpha, parts))) or (
                digits and all(p.isascii() and p.isdigit() for p in parts)
            ):
                joined = "".join(parts)
                if joined in other and joined not in own:
                    out_tokens.append(joined)
                    out_spans.append(
                        (
                            min(s for s, _ in spans[i : i + width]),
                            max(e for _, e in spans[i : i + width]),
                        )
                    )
                    i += width
                    break
        else:
            out_tokens.append(tokens[i])
            out_spans.append(spans[i])
            i += 1
    if len(out_tokens) == len(tokens):
        return side
    return Normalized(side.original, tuple(out_tokens), tuple(out_spans))


def original_gap_spans(
    segmentation: Any, pair: NormalizedPair
) -> tuple[tuple[Interval, Interval], ...]:
    """For each gap of ``segment(*pair.texts)``: its (reference, hypothesis) spans in the
    ORIGINAL strings (token intervals mapped through :meth:`Normalized.original_span`)."""
    if (segmentation.reference, segmentation.hypothesis) != pair.texts:
        raise InputError(
            "original_gap_spans() needs the segmentation of this pair's normalised texts"
        )
    return tuple(
        (
            pair.reference.original_span(*gap.ref_tokens),
            pair.hypothesis.original_span(*gap.hyp_tokens),
        )
        for gap in segmentation.gaps
    )


def original_segmentation(segmentation: Any, pair: NormalizedPair) -> Any:
    """The segmentation of ``pair``'s normalised texts, told in the ORIGINAL strings: the same
    gaps (their token intervals still count normalised tokens) with character spans and texts in
    the user's reference and hypothesis, so outputs point into what the user gave. A
    single-gap hypothesis of the result applies the gap to the original reference (the original
    hypothesis span replaces the original reference span)."""
    import dataclasses

    from sitar.text import Token

    spans = original_gap_spans(segmentation, pair)
    ref, hyp = pair.reference.original, pair.hypothesis.original

    def tokens(side: Normalized, toks: Any) -> tuple[Any, ...]:
        return tuple(
            Token(side.original[a:b], t.norm, a, b)
            for t, (a, b) in zip(toks, side.spans, strict=True)
        )

    gaps = tuple(
        dataclasses.replace(
            gap,
            ref_span=rs,
            hyp_span=hs,
            ref_text=ref[rs[0] : rs[1]],
            hyp_text=hyp[hs[0] : hs[1]],
        )
        for gap, (rs, hs) in zip(segmentation.gaps, spans, strict=True)
    )
    return dataclasses.replace(
        segmentation,
        reference=ref,
        hypothesis=hyp,
        ref_tokens=tokens(pair.reference, segmentation.ref_tokens),
        hyp_tokens=tokens(pair.hypothesis, segmentation.hyp_tokens),
        gaps=gaps,
    )
