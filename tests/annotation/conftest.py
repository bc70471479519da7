"""Fixtures for the annotation tests: the fake OpenAI-compatible server and small configs."""

from __future__ import annotations

import pytest
from fake_llm import FakeLLM


@pytest.fixture
def fake_llm():
    with FakeLLM(base_seed=100, slow_s=1.5) as server:
        yield server
