"""Bad and hostile inputs and conditions (tests/packaging/hostile_inputs.py): every case ends cleanly.

The full run (95 cases, each a subprocess; minutes on a busy machine) is marked slow; the fast tests
check the classification the run relies on. ``python tests/packaging/hostile_inputs.py --json out.json``
runs the same cases against any checkout (``--repo``) and tabulates them.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import hostile_inputs as hostile
import pytest


def _proc(returncode: int, stdout: str = "", stderr: str = "") -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess([], returncode, stdout, stderr)


def test_error_classification():
    assert hostile.err_outcome(_proc(2, stderr="sitar score: error: bad\n")) == "clean"
    assert hostile.err_outcome(_proc(1, stderr="Traceback (most recent call last):\n")) == (
        "traceback"
    )
    assert hostile.err_outcome(_proc(0, stdout="0.5\n")) == "silent wrong"
    assert hostile.ok_outcome(_proc(0, stdout="ok")) == "clean"
    assert hostile.ok_outcome(_proc(2, stderr="error\n")) == "refused valid"
    assert hostile.ok_outcome(_proc(0, stdout="wrong"), lambda out: out == "ok") == "silent wrong"


def test_cases_are_registered_once_each():
    names = Counter(name for _, name, _ in hostile.CASES)
    assert len(names) >= 90
    assert not [n for n, k in names.items() if k > 1]
    assert {category for category, _, _ in hostile.CASES} <= set(hostile.CATEGORIES)


@pytest.mark.slow
def test_every_hostile_case_ends_cleanly():
    results = hostile.run_all(Path(__file__).resolve().parents[2])
    bad = [r for r in results if r["outcome"] not in ("clean", "skipped")]
    assert not bad, hostile.table(results) + "\n" + "\n".join(map(str, bad))
