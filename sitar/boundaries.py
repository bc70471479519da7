"""spec §3 (docs/spec.md) informational boundaries: the boundary-word list, the punctuation and the
dash rule, with their version.

They live in this small module, below :mod:`sitar.cgd` (which applies them), :mod:`sitar.normalize`
(whose rule 11 keeps them in the normal form) and :mod:`sitar.signature` (which records their
version), so none of those imports another for them.
``sitar.cgd`` re-exports every name here.
"""

from __future__ import annotations

from sitar.text import is_token_char

__all__ = ["BOUNDARY_PUNCTUATION", "BOUNDARY_WORDS", "BOUNDARY_WORDS_VERSION", "has_dash"]

#: Version of the informational-boundary rules (word list and punctuation) below; in signatures.
BOUNDARY_WORDS_VERSION = "1"
#: Bridge tokens that mark an informational boundary (spec §3 [C]), compared on normalized forms.
BOUNDARY_WORDS = frozenset(
    {
        "and", "but", "or", "nor", "so", "yet", "because", "although", "though", "if", "unless",
        "until", "while", "whereas", "since", "when", "whenever", "where", "after", "before", "once",
    }
)  # fmt: skip
#: Characters that mark an informational boundary anywhere in a bridge's original text.
BOUNDARY_PUNCTUATION = frozenset(".!?;:…,–—")


def has_dash(text: str) -> bool:
    """Whether ``text`` holds a hyphen that is not an intra-word hyphen (token characters on both
    sides inside ``text``, as in "twenty-five"): a dash."""
    for i, ch in enumerate(text):
        if ch == "-" and not (
            0 < i < len(text) - 1 and is_token_char(text[i - 1]) and is_token_char(text[i + 1])
        ):
            return True
    return False
