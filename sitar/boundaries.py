"""spec §3 (docs/spec.md) informational boundaries: the boundary-word list and punctuation, with their version.

They live in this small module, below both :mod:`sitar.cgd` (which applies them) and
:mod:`sitar.signature` (which records their version), so neither imports the other.
``sitar.cgd`` re-exports every name here.
"""

from __future__ import annotations

__all__ = ["BOUNDARY_PUNCTUATION", "BOUNDARY_WORDS", "BOUNDARY_WORDS_VERSION"]

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
