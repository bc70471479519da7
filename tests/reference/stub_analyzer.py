"""A deterministic stand-in predicate analyzer for core tests."""

from __future__ import annotations


class KeywordAnalyzer:
    """A deterministic stand-in analyzer for tests that must not depend on the lexicon rules:
    a token is a predicate iff its normalized form is in ``verbs``."""

    def __init__(self, verbs=("send", "approve", "check", "search", "book", "pay", "call", "go")):
        self.verbs = frozenset(verbs)

    @property
    def id(self) -> str:
        return "keyword-test"

    def predicates(self, text, tokens):
        return frozenset(i for i, t in enumerate(tokens) if t.norm in self.verbs)
