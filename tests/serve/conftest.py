"""Fixtures of the serve tests."""

from __future__ import annotations

import pytest
from serve_helpers import TINY


@pytest.fixture(scope="session")
def tiny_scorer():
    from sitar.scorer import Scorer

    return Scorer.load(TINY, variant="fp32")
