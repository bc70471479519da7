"""spec §9 (docs/spec.md): the reproducibility signature carried by every saved output.

In the spirit of sacreBLEU, the signature is one ``|``-separated string of ``key:value`` fields
naming everything that decides a result: the spec version, tokenizer rules, boundary-word list,
analyzer name and version, ``rho``, the package version and, for scores, the checkpoint id. Papers
can report it verbatim; :func:`parse_signature` reads it back.
"""

from __future__ import annotations

from collections.abc import Mapping

from sitar._version import __version__
from sitar.boundaries import BOUNDARY_WORDS_VERSION
from sitar.errors import InputError
from sitar.text import TOKENIZER_VERSION

__all__ = ["SPEC_VERSION", "make_signature", "parse_signature"]

#: Version of the spec (docs/spec.md) that this package implements.
SPEC_VERSION = "1"

_ORDER = ("sitar", "spec", "tok", "bw", "analyzer", "rho", "ckpt")


def make_signature(
    *,
    analyzer: str,
    rho: float | None = None,
    checkpoint: str | None = None,
    extra: Mapping[str, str] | None = None,
) -> str:
    """Build the signature string, for example
    ``sitar:0.1.0|spec:1|tok:1|bw:1|analyzer:lexicon-1+lemminflect-0.2.3|rho:0.5``.

    ``analyzer`` is the analyzer's ``name-version`` id; ``rho`` is included whenever a score or
    target is involved, ``checkpoint`` whenever a model produced the numbers.
    """
    fields: dict[str, str] = {
        "sitar": __version__,
        "spec": SPEC_VERSION,
        "tok": TOKENIZER_VERSION,
        "bw": BOUNDARY_WORDS_VERSION,
        "analyzer": analyzer,
    }
    if rho is not None:
        fields["rho"] = repr(float(rho))
    if checkpoint is not None:
        fields["ckpt"] = checkpoint
    for key, value in (extra or {}).items():
        if key in fields or "|" in key or ":" in key or "|" in str(value):
            raise InputError(f"invalid extra signature field {key!r}={value!r}")
        fields[key] = str(value)
    for key, value in fields.items():
        # One line by construction: a signature is written as a TSV/JSONL header line.
        if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in key + value):
            raise InputError(
                f"signature field {key!r} holds a control character: {value!r}; names that go "
                "into a signature must be printable"
            )
    return "|".join(f"{k}:{v}" for k, v in fields.items())


def parse_signature(signature: str) -> dict[str, str]:
    """Split a signature back into its fields; raises :class:`InputError` when malformed."""
    fields: dict[str, str] = {}
    for part in signature.split("|"):
        key, sep, value = part.partition(":")
        if not sep or not key:
            raise InputError(f"malformed signature field {part!r} in {signature!r}")
        fields[key] = value
    for key in _ORDER[:5]:
        if key not in fields:
            raise InputError(f"signature {signature!r} lacks the field {key!r}")
    return fields
