"""SPEC §1 tokens, and the reproducibility signature of SPEC §9."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitar.errors import InputError
from sitar.signature import make_signature, parse_signature
from sitar.text import tokenize


@pytest.mark.parametrize(
    ("text", "norms"),
    [
        ("Haven't", ["havent"]),
        ("I haven’t", ["i", "havent"]),
        ("twenty-five", ["twenty", "five"]),
        ("3.5 and 3,000", ["3.5", "and", "3,000"]),
        ("3.5.6", ["3.5.6"]),
        ("end. Next", ["end", "next"]),
        ("5.x", ["5", "x"]),
        ("1,a", ["1", "a"]),
        ("a''b", ["a", "b"]),
        ("'quoted'", ["quoted"]),
        ("rock'n'roll", ["rocknroll"]),
        ("10:30", ["10", "30"]),
        ("$25", ["25"]),
        ("Straße", ["strasse"]),
        ("naïve café", ["naïve", "café"]),
        ("東京 2024", ["東京", "2024"]),
        ("e\u0301t\u00e9", ["e\u0301té"]),  # combining mark stays inside the token
        ("", []),
        ("  ...!?  ", []),
        ("½ ²", ["½", "²"]),  # category N (No) counts as a token character
    ],
)
def test_tokenize(text, norms):
    assert [t.norm for t in tokenize(text)] == norms


def test_offsets_map_back():
    text = "Don’t send 3,000 boxes—please!"
    for tok in tokenize(text):
        assert text[tok.start : tok.end] == tok.text


@given(st.text())
def test_offsets_property(text):
    tokens = tokenize(text)
    prev_end = 0
    for tok in tokens:
        assert text[tok.start : tok.end] == tok.text
        assert tok.start >= prev_end and tok.end > tok.start
        assert tok.norm  # never empty
        prev_end = tok.end


def test_non_string_input():
    with pytest.raises(InputError, match="expects a str"):
        tokenize(b"bytes")  # type: ignore[arg-type]


def test_signature_round_trip():
    sig = make_signature(analyzer="keyword-test", rho=0.5, checkpoint="ckpt-x")
    fields = parse_signature(sig)
    assert fields["analyzer"] == "keyword-test"
    assert fields["rho"] == "0.5"
    assert fields["ckpt"] == "ckpt-x"
    assert {"sitar", "spec", "tok", "bw"} <= set(fields)


def test_signature_errors():
    with pytest.raises(InputError):
        parse_signature("nonsense")
    with pytest.raises(InputError):
        make_signature(analyzer="a", extra={"spec": "2"})
