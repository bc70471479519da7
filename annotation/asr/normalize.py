"""Spoken form of a pool reference: what the synthesizer says and what the decoder can write.

A pool reference is written text ("£312.40", "10:42", "KX-40917", "3rd", "NATO"). The recognizer
systems need (a) a text to speak that is exactly the words that count as the reference, and (b)
lowercase words that the pocketsphinx dictionary spells. :func:`spoken_form` rewrites every
non-word token in place, keeping the rest of the text (case, punctuation) as it is:

* money ``£312.40`` -> "three hundred twelve pounds forty"; ``$5`` -> "five dollars"; ``€``
  -> euros; percentages ``20%`` -> "twenty percent";
* clock times ``10:42`` -> "ten forty-two", ``9:05`` -> "nine oh five", ``16:00`` -> "sixteen
  hundred";
* ordinals ``3rd`` -> "third"; decimals ``4.5`` -> "four point five"; years 1100-2099 standing
  alone -> "nineteen eighty-nine"; decades ``1990s`` -> "nineteen nineties";
* other numbers: up to four digits without a leading zero (or with thousands commas) as
  cardinals, longer ones and ones with a leading zero digit by digit;
* codes mixing letters and digits (``KX-40917``, ``BS3``, ``22B``) and all-capital words the
  dictionary does not know (``VAT``) letter by letter; e-mail addresses with "at" and "dot";
* accents stripped (``café`` -> "cafe"); ``&`` -> "and".

The pair records keep this spoken text as the reference (so a number read aloud is not counted as
a format error) and the original pool text alongside it. :func:`lm_words` gives the lowercase word
list used for language models, dictionaries and WER (apostrophes kept: "i'd" is a dictionary word).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Container

from annotation.synth.numbers import int_to_words, ordinal_to_words, year_to_words

__all__ = ["lm_words", "spoken_form"]

_CURRENCY = {"£": ("pound", "pounds"), "$": ("dollar", "dollars"), "€": ("euro", "euros")}
_WORD_RE = re.compile(r"[a-z]+(?:'[a-z]+)*")


def _cardinal(n: int) -> str:
    if n >= 1_000_000:
        millions, rest = divmod(n, 1_000_000)
        head = f"{int_to_words(millions)} million"
        return head if not rest else f"{head} {int_to_words(rest)}"
    return int_to_words(n)


def _digits(s: str) -> str:
    return " ".join(int_to_words(int(ch)) for ch in s)


def _number(s: str) -> str:
    """A bare number token (digits, commas, one decimal point)."""
    if "." in s:
        whole, _, frac = s.partition(".")
        return f"{_number(whole) if whole else 'point'} point {_digits(frac)}".replace(
            "point point", "point"
        )
    if "," in s:
        return _cardinal(int(s.replace(",", "")))
    if len(s) > 1 and s.startswith("0"):
        return _digits(s)
    n = int(s)
    if len(s) == 4 and 1100 <= n <= 2099:
        return year_to_words(n)
    if len(s) <= 4:
        return _cardinal(n)
    return _digits(s)


def _money(sym: str, amount: str) -> str:
    one, many = _CURRENCY[sym]
    whole, _, frac = amount.partition(".")
    n = int(whole.replace(",", "")) if whole else 0
    out = f"{_cardinal(n)} {one if n == 1 else many}"
    if frac:
        f = int(frac)
        if f:
            out += f" {_cardinal(f)}"
    return out


def _time(h: str, m: str) -> str:
    hh, mm = int(h), int(m)
    if mm == 0:
        return f"{int_to_words(hh)} {'hundred' if hh > 12 else 'o clock'}".replace(
            "o clock", "o'clock"
        )
    if mm < 10:
        return f"{int_to_words(hh)} oh {int_to_words(mm)}"
    return f"{int_to_words(hh)} {int_to_words(mm)}"


def _spell(code: str, known: Callable[[str], bool]) -> str:
    """Letters one by one, digit runs as numbers (<= 2 digits) or digit by digit."""
    out: list[str] = []
    for part in re.findall(r"[A-Za-z]+|\d+", code):
        if part.isdigit():
            out.append(_number(part) if len(part) <= 2 else _digits(part))
        elif part.isupper() or len(part) <= 2 or not known(part.lower()):
            out.extend(ch.lower() for ch in part)
        else:
            out.append(part)
    return " ".join(out)


_TOKEN_RE = re.compile(
    r"(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
    r"|(?P<money>[£$€])(?P<amount>\d[\d,]*(?:\.\d+)?)"
    r"|(?P<time>\b(?P<h>\d{1,2}):(?P<m>\d{2})\b)"
    r"|(?P<decade>\b(?P<dec>1\d|20)(?P<yy>\d0)s\b)"
    r"|(?P<ord>\b(?P<on>\d+)(?:st|nd|rd|th)\b)"
    r"|(?P<pct>\b(?P<pn>\d+(?:\.\d+)?)%)"
    r"|(?P<code>\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b)"
    r"|(?P<num>\b\d[\d,]*(?:\.\d+)?(?:-\d+)*\b)"
    r"|(?P<caps>\b[A-Z]{2,}\b)"
)


def spoken_form(text: str, known: Container[str] | None = None) -> str:
    """``text`` with every written-only token rewritten as words (see the module doc).

    ``known`` (lowercase words the dictionary spells) decides whether an all-capital word is read
    as a word ("NATO") or spelled ("V A T"); without it, capital words are kept as written.
    """

    def is_known(word: str) -> bool:
        return known is not None and word in known

    def repl(m: re.Match[str]) -> str:
        if m.group("email"):
            local, _, domain = m.group("email").partition("@")

            def part(s: str) -> str:
                return " dot ".join(_spell(p, is_known) if not is_known(p.lower()) else p
                                    for p in s.split("."))  # fmt: skip

            return f"{part(local)} at {part(domain)}"
        if m.group("money"):
            return _money(m.group("money"), m.group("amount"))
        if m.group("time"):
            return _time(m.group("h"), m.group("m"))
        if m.group("decade"):
            century = int_to_words(int(m.group("dec")))
            yy = int(m.group("yy"))
            tens = "hundreds" if yy == 0 else int_to_words(yy)[:-1] + "ies"
            return f"{century} {tens}"
        if m.group("ord"):
            n = int(m.group("on"))
            return ordinal_to_words(n) if 0 < n < 1000 else _digits(m.group("on"))
        if m.group("pct"):
            return f"{_number(m.group('pn'))} percent"
        if m.group("code"):
            return _spell(m.group("code"), is_known)
        if m.group("num"):
            return " ".join(_number(p) for p in m.group("num").split("-"))
        caps = m.group("caps")
        if known is None or is_known(caps.lower()):
            return caps
        return " ".join(caps.lower())

    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.replace("&", " and ").replace("’", "'")
    return _TOKEN_RE.sub(repl, text)


def lm_words(text: str) -> list[str]:
    """Lowercase words of a spoken-form text (hyphens split words; apostrophes stay inside)."""
    return _WORD_RE.findall(text.lower().replace("’", "'"))
