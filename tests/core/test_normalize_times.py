"""Normal form version 4 (sitar.normalize rule 12 and digit groups in rule 10): clock phrases,
day periods, the 24-hour clock, day-month order; what it must not touch; the public invariance
suite in version 4."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.invariance import load_suite
from sitar import segment
from sitar.normalize import normalize, normalize_pair, normalizer_id, original_gap_spans


def _v4(reference: str, hypothesis: str) -> tuple[str, str]:
    return normalize_pair(reference, hypothesis, version="4").texts


def _same(a: str, b: str) -> bool:
    ref, hyp = _v4(a, b)
    return ref == hyp


def _gaps(reference: str, hypothesis: str, version: str = "4") -> list[tuple[str, str]]:
    pair = normalize_pair(reference, hypothesis, version=version)
    return [(g.ref_text, g.hyp_text) for g in segment(*pair.texts).gaps]


@pytest.mark.parametrize(
    ("a", "b", "text"),
    [
        ("at half past seven", "at seven thirty", "at 7 30"),
        ("at 7:30", "at half past 7", "at 7 30"),
        ("by a quarter to four", "by three forty-five", "by 3 45"),
        ("quarter past three", "3:15", "3 15"),
        ("at quarter after nine", "at nine fifteen", "at 9 15"),
        ("at ten past two", "at 2:10", "at 2 10"),
        ("at twenty five past six", "at six twenty five", "at 6 25"),
        ("at ten to four", "at 3:50", "at 3 50"),
        ("at five to one", "at 12:55", "at 12 55"),
        ("at a quarter to one", "at 12:45", "at 12 45"),
    ],
)
def test_clock_phrases_are_hour_and_minutes(a: str, b: str, text: str) -> None:
    assert _v4(a, b) == (text, text)


@pytest.mark.parametrize(
    ("a", "b", "text"),
    [
        ("The bus leaves at 14:10.", "the bus leaves at ten past two in the afternoon",
         "the bus leaves at 2 10 pm"),
        ("Doors open at 6 pm.", "doors open at six in the evening", "doors open at 6 pm"),
        ("at 9 in the morning", "at 9 am", "at 9 am"),
        ("seven o'clock in the evening", "7 pm", "7 pm"),
        ("at 14 10", "at 14:10", "at 2 10 pm"),  # the colon is not read
        ("at 00:30", "at 12:30 am", "at 12 30 am"),
        ("meet at midday", "meet at 12 noon", "meet at noon"),
    ],
)  # fmt: skip
def test_day_periods_and_the_24_hour_clock(a: str, b: str, text: str) -> None:
    assert _v4(a, b) == (text, text)


@pytest.mark.parametrize(
    ("a", "b", "text"),
    [
        ("Your appointment is on the 3rd of May.", "your appointment is on may the third",
         "your appointment is on may 3"),
        ("on 5 June", "on the fifth of June", "on june 5"),
        ("Pay by the 1st of June.", "pay by june first", "pay by june one"),
        ("born on March 3rd, 1990", "born on the third of march nineteen ninety",
         "born on march 3 1990"),
        ("3 May 2024", "may third twenty twenty four", "may 3 2024"),
        ("They married on 12 May 2018.", "they married on 12 may 2018", "they married on may 12 2018"),
    ],
)  # fmt: skip
def test_dates_are_month_then_day(a: str, b: str, text: str) -> None:
    assert _v4(a, b) == (text, text)


def test_digit_groups_join_when_the_other_side_holds_them() -> None:
    assert _gaps("Call me at 07700 900 461.", "call me at oh seven seven oh oh nine oh oh four six one") == []  # fmt: skip
    assert _gaps("call 0800 123 45 67", "call 08001234567") == []
    assert _gaps("Call me at 07700 900 461.", "call me at 07700 900 462") != []
    # version 3 keeps digit groups apart
    assert _gaps("call 0800 123", "call 0800123", version="3") != []


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("at half past seven", "at half past eight"),
        ("at ten to four", "at ten past four"),
        ("at a quarter to four", "at a quarter past four"),
        ("at 6 in the morning", "at 6 in the evening"),
        ("at 14:10", "at 2:10 am"),
        ("on the 3rd of May", "on the 3rd of March"),
        ("on the 3rd of May", "on the 4th of May"),
        ("call 0800 123", "call 0800 124"),
    ],
)
def test_different_times_and_dates_stay_different(a: str, b: str) -> None:
    assert not _same(a, b)


@pytest.mark.parametrize(
    "text",
    [
        "from five to six days",  # a range
        "it takes ten minutes to two hours",  # a duration, not a time
        "between 5 to 6 people",
        "we may 3 times",  # "may" the verb
        "3 of may's friends",
        "the 1st of the month",
        "I had 6 in the evening",  # no time word before the hour
        "half to 4 of them",
    ],
)
def test_ambiguous_phrases_are_kept(text: str) -> None:
    assert _v4(text, text)[0] == normalize(text).plain_text


def test_spans_cover_the_whole_rewritten_phrase() -> None:
    ref, hyp = "Come on the 3rd of May at 14:10.", "come on the third of may at two ten pm"
    pair = normalize_pair(ref, "come on the 4th of may at 2 10 pm", version="4")
    seg = segment(*pair.texts)
    assert [ref[slice(*r)] for r, _ in original_gap_spans(seg, pair)] == ["the 3rd of May"]
    assert _gaps(ref, hyp) == []
    tokens = normalize_pair(ref, hyp, version="4").reference
    assert tokens.tokens[-3:] == ("2", "10", "pm")
    assert {tokens.original[a:b] for a, b in tokens.spans[-3:]} == {"14:10"}


def test_the_hour_of_00_30_is_kept_in_every_version() -> None:
    assert normalize("at 00:30").tokens == ("at", "00", "30")
    assert normalize("at 3:00 pm").tokens == ("at", "3", "pm")


def test_version_4_on_the_invariance_suite() -> None:
    formats, flips = load_suite("format"), load_suite("flips")
    failing = [i.id for i in formats if _gaps(i.reference, i.hypothesis)]
    assert len(failing) <= 0.02 * len(formats), failing
    assert [i.id for i in flips if not _gaps(i.reference, i.hypothesis)] == []
    for item in formats + flips:  # normalising the version-4 text again changes nothing
        for text in _v4(item.reference, item.hypothesis):
            assert _v4(text, text)[0] == text, text


def test_version_4_reads_neither_case_nor_punctuation() -> None:
    # Version 3's promise: a pair as written and the same pair stripped of case and punctuation
    # are one text. Rule 12 must keep it wherever version 3 does (it reads tokens, never a colon
    # or a capital).
    from benchmarks.invariance import strip
    from training.evaluate_checkpoint import _load_devset

    pairs = [(i.reference, i.hypothesis) for i in load_suite("format") + load_suite("flips")]
    dev = _load_devset(Path(__file__).resolve().parents[2] / "annotation/devset/sitar_dev_v1.jsonl")
    pairs += [(r["reference"], r["hypothesis"]) for r in dev]
    pairs += [("The 14:10 train, on 3 May 2024.", "x"), ("Seven o'clock in the evening.", "x")]

    def moved(version: str) -> set[tuple[str, str]]:
        def texts(a: str, b: str) -> tuple[str, str]:
            return normalize_pair(a, b, version=version).texts

        return {(a, b) for a, b in pairs if texts(a, b) != texts(strip(a), strip(b))}

    # strip() also splits "1,200" into two numbers, which no version can undo
    assert moved("4") <= moved("3")
    assert len(moved("3")) < len(pairs) / 4


def test_version_4_is_named_in_the_signature() -> None:
    assert normalizer_id("4").startswith("sitar-norm-4+whisper-normalizer-")
