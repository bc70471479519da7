"""The test suite mirrors the package's rooms (issue #29 item 6): no test file sits at the top of
tests/, every test folder is one the README's layout block names, and every frozen reference in
tests/reference/ is described in its README and is not itself a test."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


def test_only_the_root_conftest_sits_at_the_top_of_tests():
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["conftest.py"]


def test_every_test_folder_is_named_in_the_readme_layout():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # the layout block's tests/ entry: from "tests/ " up to the next top-level folder line
    block = re.search(r"^tests/ .*?(?=^\S)", readme, re.M | re.S)
    assert block, "README.md has no 'tests/' line in its layout block"
    folders = sorted(p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__")
    missing = [f for f in folders if f not in {"fixtures"} and f"{f}/" not in block.group(0)]
    assert not missing, missing


def test_every_frozen_reference_is_described_and_is_not_a_test():
    reference = TESTS / "reference"
    readme = (reference / "README.md").read_text(encoding="utf-8")
    modules = sorted(p.name for p in reference.glob("*.py"))
    assert modules, "tests/reference/ holds no module"
    assert not [m for m in modules if m.startswith("test_")]
    assert not [m for m in modules if f"`{m}`" not in readme]
