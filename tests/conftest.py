from __future__ import annotations

import pytest
from stub_analyzer import KeywordAnalyzer


@pytest.fixture
def keyword_analyzer():
    return KeywordAnalyzer()
