"""Shared helpers for the annotation tests (pairs and configurations for the fake server)."""

from __future__ import annotations

from annotation.client import ClientConfig
from annotation.config import ProtocolConfig, RunConfig
from sitar.io import Pair


def make_config(server, *, reviewers: int = 3, **client) -> RunConfig:
    settings = dict(
        base_url=server.base_url,
        model="fake-annotator",
        api_key_env="",
        seed=server.base_seed,
        max_retries=2,
        backoff_base_s=0.001,
        backoff_max_s=0.005,
        timeout_s=5.0,
        concurrency=4,
        price_input_per_mtok=1.0,
        price_output_per_mtok=4.0,
    )
    settings.update(client)
    return RunConfig(
        annotator=ClientConfig(**settings),
        protocol=ProtocolConfig(reviewers=reviewers, max_invalid=2),
    )


#: (pair id, reference, hypothesis, expected status or rejection reason, tiers, directions)
SCRIPTED = [
    (
        "valid-t0",
        "please send the report mk0 today",
        "please send the report today",
        "accepted",
        (0,),
        (0,),
    ),
    (
        "valid-t2",
        "do not send the draft to the client",
        "do send the draft mk2 to the client",
        "accepted",
        (2,),
        (0,),
    ),
    ("no-gaps", "the same words here", "the same words here", "accepted", (), ()),
    (
        "malformed-once",
        "casemalformedonce we will meet at noon",
        "casemalformedonce we will meet at mk1 noon",
        "accepted",
        (1,),
        (0,),
    ),
    (
        "malformed",
        "casemalformedalways we will meet at noon",
        "casemalformedalways we will meet at mk1 noon",
        "failure",
        (),
        (),
    ),
    (
        "schema",
        "caseschema we will meet at noon",
        "caseschema we will meet at mk1 noon",
        "failure",
        (),
        (),
    ),
    (
        "contradiction",
        "casecontradict we will meet at noon",
        "casecontradict we will meet at mk2 noon",
        "contradiction",
        (),
        (),
    ),
    (
        "three-tiers",
        "casesplit we will meet at noon",
        "casesplit we will greet at noon",
        "no_majority",
        (),
        (),
    ),
    (
        "filter",
        "casefilter we will meet at noon",
        "casefilter we will meet at mk2 noon",
        "filter",
        (),
        (),
    ),
    (
        "dissent",
        "casedissent we will meet at noon",
        "casedissent we will meet at mk1 noon",
        "accepted",
        (2,),
        (-1,),
    ),
    (
        "rate-limited",
        "case429 we will meet at noon",
        "case429 we will meet at mk2 noon",
        "accepted",
        (2,),
        (0,),
    ),
    (
        "server-error",
        "case500once we will meet at noon",
        "case500once we will meet at mk1 noon",
        "accepted",
        (1,),
        (0,),
    ),
    (
        "slow-once",
        "caseslowonce we will meet at noon",
        "caseslowonce we will meet at mk1 noon",
        "accepted",
        (1,),
        (0,),
    ),
    (
        "slow-always",
        "caseslowalways we will meet at noon",
        "caseslowalways we will meet at mk1 noon",
        "pending",
        (),
        (),
    ),
    (
        "two-gaps",
        "first we pay the rent and then we call the bank today",
        "first we mk0 pay the rent and then we mk2 call a bank today",
        "accepted",
        (0, 2),
        (0, 0),
    ),
]


def scripted_pairs() -> list[Pair]:
    return [Pair(pid, ref, hyp) for pid, ref, hyp, *_ in SCRIPTED]


def many_pairs(n: int, kinds: tuple[int, ...] = (0, 1, 2, 3, 4, 5)) -> list[Pair]:
    """``n`` deterministic pairs cycling through ``kinds``: 0 no gap, 1 one gap (tier i % 3),
    2 two gaps (T0 + T2), 3 a contradictory pair, 4 one T1 gap, 5 three gaps (T2, T0, T1)."""
    out = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        ref = f"item {i}: we will send the parcel, then call the office, and pay the bill on monday"
        if kind == 0:
            hyp = ref
        elif kind == 1:
            hyp = ref.replace("parcel", f"mk{i % 3} parcel")
        elif kind == 2:
            hyp = ref.replace("the parcel", "the mk0 parcel").replace("office", "mk2 office")
        elif kind == 3:
            ref = "casecontradict " + ref
            hyp = ref.replace("monday", "mk2 monday")
        elif kind == 4:
            hyp = ref.replace("send", "mk1 send")
        else:
            hyp = (
                ref.replace("the parcel", "the mk2 parcel")
                .replace("the office", "mk0 the office")
                .replace("the bill", "the mk1 bill")
            )
        out.append(Pair(f"pair-{i:04d}", ref, hyp))
    return out
