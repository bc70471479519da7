"""Deterministic slot fillers for pool templates (``{slot}`` placeholders, typed in pool.md).

Every filler is a function of a :class:`random.Random` only, so a template instance is a function
of the generator seed and the template id. Values mix written and spoken forms the way transcripts
do ("$250", "250 dollars", "two hundred and fifty pounds"; "5 pm", "half past five"), with names
and places from several cultures. All lists are ours; no real private persons.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

from annotation.synth import lexicon
from annotation.synth.numbers import int_to_words, ordinal_suffix, ordinal_to_words, year_to_words
from sitar.errors import InputError

__all__ = ["SLOT_FILLERS", "fill_slot"]

_FIRST = (
    "Aisha", "Amara", "Anil", "Bruno", "Camille", "Chen", "Daniela", "Dmitri", "Elena", "Emeka",
    "Fatima", "Felix", "Grace", "Hana", "Hiroshi", "Ines", "Ivan", "Jamal", "Jana", "Joanna",
    "Kai", "Karim", "Kofi", "Lena", "Liam", "Luca", "Maria", "Marta", "Mei", "Mohammed", "Nadia",
    "Nina", "Noah", "Olga", "Omar", "Pablo", "Priya", "Rafael", "Ravi", "Rosa", "Sami", "Sofia",
    "Tariq", "Tomas", "Vera", "Wei", "Yara", "Yusuf", "Zara", "Zoe",
)  # fmt: skip
_LAST = (
    "Patel", "Nguyen", "Okafor", "Kowalski", "Haddad", "Silva", "Tanaka", "Schmidt", "Moreau",
    "Rossi", "Kim", "Mendez", "Novak", "Larsen", "Osei", "Costa", "Brennan", "Fischer", "Murphy",
    "Khan", "Ortiz", "Andersson", "Dubois", "Ivanova", "Yilmaz", "Mensah", "Sato", "Garcia",
)  # fmt: skip
_COUNTRIES = (
    "Portugal", "Kenya", "Japan", "Canada", "Mexico", "Norway", "Ghana", "Peru", "Poland",
    "Ireland", "India", "Brazil", "Egypt", "Spain", "Chile", "Austria", "Australia", "Vietnam",
)  # fmt: skip
_STREETS = (
    "Harbour Lane", "Maple Street", "Station Road", "Elm Avenue", "Church Street", "Mill Road",
    "Park Crescent", "Orchard Way", "Victoria Road", "King Street", "Riverside Drive", "Oak Close",
)  # fmt: skip
_PRODUCTS = (
    "blue kettle", "wireless router", "standing desk", "phone charger", "winter jacket",
    "coffee grinder", "noise-cancelling headphones", "baby monitor", "garden hose",
    "laptop stand", "electric toothbrush", "saucepan set", "streaming", "gym", "broadband",
    "mobile phone", "washing machine", "car insurance",
)  # fmt: skip
_MEDICATIONS = (
    "amoxicillin", "ibuprofen", "paracetamol", "metformin", "lisinopril", "omeprazole",
    "cetirizine", "atorvastatin", "salbutamol", "sertraline", "levothyroxine", "naproxen",
)  # fmt: skip
_TEAMS = (
    "the Harbour Hawks", "Riverside United", "the Northfield Foxes", "City Rovers",
    "the Valley Vipers", "Eastgate Athletic", "the Lakeside Lions", "Westbrook Wanderers",
)  # fmt: skip
_DEPARTMENTS = (
    "billing", "accounts", "customer support", "radiology", "the pharmacy", "human resources",
    "sales", "the front desk", "logistics", "cardiology", "IT support", "procurement",
)  # fmt: skip
_QUANTITY_UNITS = (
    "boxes",
    "boxes of paper",
    "bags",
    "litres",
    "kilos",
    "cartons",
    "packs",
    "units",
)
_DURATION_UNITS = ("minutes", "hours", "days", "weeks", "months")


def _money(rng: random.Random) -> str:
    amount = rng.choice([rng.randint(5, 99), rng.randint(100, 990), rng.randint(1000, 9000)])
    if amount > 300 and rng.random() < 0.5:
        amount = amount // 10 * 10
    style = rng.randrange(5)
    currency = rng.choice([("$", "dollars"), ("£", "pounds"), ("€", "euros")])
    if style == 0:
        return f"{currency[0]}{amount:,}"
    if style == 1:
        return f"{amount} {currency[1]}"
    if style == 2 and amount < 1000:
        return f"{int_to_words(amount, british_and=rng.random() < 0.5)} {currency[1]}"
    if style == 3:
        return f"{currency[0]}{amount}.{rng.randint(1, 99):02d}"
    return f"{currency[0]}{amount}"


def _time(rng: random.Random) -> str:
    hour = rng.randint(1, 12)
    minute = rng.choice([0, 0, 15, 30, 45, 10, 20, 40, 5])
    ampm = rng.choice(["am", "pm", "a.m.", "p.m.", ""])
    style = rng.randrange(4)
    if style == 0:
        return f"{hour}:{minute:02d}{' ' + ampm if ampm else ''}"
    if style == 1 and minute == 0:
        return f"{hour} {ampm or 'o clock'}".replace("o clock", "o'clock")
    if style == 2:
        if minute == 30:
            return f"half past {int_to_words(hour)}"
        if minute == 15:
            return f"quarter past {int_to_words(hour)}"
        return f"{int_to_words(hour)} {int_to_words(minute) if minute >= 10 else 'o clock'}"
    return f"{hour}:{minute:02d}"


def _date(rng: random.Random) -> str:
    day = rng.randint(1, 28)
    month = rng.choice(lexicon.MONTHS)
    style = rng.randrange(4)
    if style == 0:
        return f"the {day}{ordinal_suffix(day)} of {month}"
    if style == 1:
        return f"{month} {day}{ordinal_suffix(day)}"
    if style == 2:
        return f"{ordinal_to_words(day)} of {month}"
    return f"{day} {month}"


def _code(rng: random.Random, letters: int, digits: int, sep: str = "") -> str:
    head = "".join(rng.choice(string.ascii_uppercase) for _ in range(letters))
    tail = "".join(rng.choice(string.digits) for _ in range(digits))
    return f"{head}{sep}{tail}"


def _number(rng: random.Random) -> str:
    n = rng.choice([rng.randint(11, 99), rng.randint(100, 999), rng.randint(1000, 20000)])
    return str(n) if rng.random() < 0.6 or n >= 1000 else int_to_words(n)


def _small(rng: random.Random) -> str:
    n = rng.randint(1, 12)
    return int_to_words(n) if rng.random() < 0.6 else str(n)


def _ordinal(rng: random.Random) -> str:
    n = rng.randint(1, 30)
    return ordinal_to_words(n) if rng.random() < 0.5 else f"{n}{ordinal_suffix(n)}"


def _duration(rng: random.Random) -> str:
    unit = rng.choice(_DURATION_UNITS)
    n = rng.randint(2, 12) if unit != "minutes" else rng.choice([5, 10, 15, 20, 30, 45])
    return f"{int_to_words(n) if rng.random() < 0.5 else n} {unit}"


def _quantity(rng: random.Random) -> str:
    n = rng.randint(2, 40)
    return f"{int_to_words(n) if rng.random() < 0.5 else n} {rng.choice(_QUANTITY_UNITS)}"


def _dose(rng: random.Random) -> str:
    return rng.choice(
        [
            f"{rng.choice([5, 10, 20, 25, 50, 100, 250, 500])} milligrams",
            f"{rng.choice([5, 10, 20, 250, 500])} mg",
            f"{int_to_words(rng.randint(1, 3))} tablets",
            f"{rng.choice([2, 5, 10])} millilitres",
        ]
    )


def _phone(rng: random.Random) -> str:
    digits = "0" + "".join(rng.choice(string.digits) for _ in range(10))
    return f"{digits[:5]} {digits[5:8]} {digits[8:]}" if rng.random() < 0.5 else digits


def _email(rng: random.Random) -> str:
    first = rng.choice(_FIRST).lower()
    last = rng.choice(_LAST).lower()
    domain = rng.choice(["example.com", "mail.example.org", "example.net"])
    return f"{first}.{last}@{domain}"


SLOT_FILLERS: dict[str, Callable[[random.Random], str]] = {
    "person_name": lambda r: f"{r.choice(_FIRST)} {r.choice(_LAST)}",
    "first_name": lambda r: r.choice(_FIRST),
    "last_name": lambda r: r.choice(_LAST),
    "city": lambda r: r.choice(lexicon.ENTITY_PLACES),
    "country": lambda r: r.choice(_COUNTRIES),
    "street_address": lambda r: f"{r.randint(2, 240)} {r.choice(_STREETS)}",
    "date": _date,
    "weekday": lambda r: r.choice(lexicon.WEEKDAYS),
    "month": lambda r: r.choice(lexicon.MONTHS),
    "time": _time,
    "money": _money,
    "number": _number,
    "small_number": _small,
    "ordinal": _ordinal,
    "percent": lambda r: f"{r.randint(2, 95)}{r.choice(['%', ' percent', ' per cent'])}",
    "phone": _phone,
    "account_number": lambda r: "".join(r.choice(string.digits) for _ in range(r.choice([6, 8]))),
    "flight_number": lambda r: _code(r, 2, r.choice([3, 4]), r.choice(["", " "])),
    "order_number": lambda r: _code(r, r.choice([2, 3]), 5, "-"),
    "product": lambda r: r.choice(_PRODUCTS),
    "company": lambda r: r.choice(lexicon.ENTITY_ORGS),
    "duration": _duration,
    "quantity": _quantity,
    "medication": lambda r: r.choice(_MEDICATIONS),
    "dose": _dose,
    "room": lambda r: (
        f"{r.choice(['', 'B', 'C'])}{r.randint(1, 5)}{r.randint(0, 2)}{r.randint(1, 9)}"
    ),
    "gate": lambda r: f"{r.choice('ABCDE')}{r.randint(1, 40)}",
    "platform": lambda r: (
        str(r.randint(1, 14)) if r.random() < 0.6 else int_to_words(r.randint(1, 14))
    ),
    "team": lambda r: r.choice(_TEAMS),
    "score": lambda r: (
        f"{r.randint(0, 5)}-{r.randint(0, 5)}"
        if r.random() < 0.5
        else f"{int_to_words(r.randint(0, 5))} {int_to_words(r.randint(0, 5))}"
    ),
    "year": lambda r: (
        str(r.randint(1990, 2031)) if r.random() < 0.6 else year_to_words(r.randint(1990, 2031))
    ),
    "department": lambda r: r.choice(_DEPARTMENTS),
    "email": _email,
}


def fill_slot(kind: str, rng: random.Random) -> str:
    """One value for a slot of type ``kind`` (see pool.md for the types)."""
    try:
        filler = SLOT_FILLERS[kind]
    except KeyError as e:
        raise InputError(
            f"unknown slot type {kind!r}; expected one of {', '.join(sorted(SLOT_FILLERS))}"
        ) from e
    return filler(rng)
