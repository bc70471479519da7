"""The checkpoint storage rule (issue #32: keep the git clone small): ``checkpoints/`` holds the
default checkpoint only, stored once, within a byte budget. A new default replaces the old folder
in the same commit; earlier checkpoints stay reachable in the history, never as a second folder.
The rule and the budget are written in ``CONTRIBUTING.md`` and ``checkpoints/README.md``; this
test reads the budget from both, so the number has one value."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sitar.checkpoint import DEFAULT_CHECKPOINT

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINTS = ROOT / "checkpoints"
MIB = 1024 * 1024
# "budget: 96 MiB" in the documents (one number, checked below to agree).
_BUDGET = re.compile(r"checkpoint budget: \*\*(\d+) MiB\*\*")


def _tracked_sizes() -> dict[str, int]:
    """Path (relative to ``checkpoints/``) -> size of every file git tracks there; every file on
    disk when this is not a git checkout (an unpacked source archive)."""
    git = shutil.which("git")
    if git is not None and (ROOT / ".git").exists():
        out = subprocess.run(
            [git, "ls-files", "-z", "--", "checkpoints"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode("utf-8")
        paths = [ROOT / p for p in out.split("\0") if p]
    else:
        paths = [p for p in CHECKPOINTS.rglob("*") if p.is_file()]
    return {p.relative_to(CHECKPOINTS).as_posix(): p.stat().st_size for p in paths if p.exists()}


def _budget(path: Path) -> int:
    found = _BUDGET.findall(path.read_text(encoding="utf-8"))
    assert len(found) == 1, f"{path.name} must state the checkpoint budget once, found {found}"
    return int(found[0]) * MIB


def test_the_budget_is_documented_once_with_one_value():
    assert _budget(ROOT / "CONTRIBUTING.md") == _budget(CHECKPOINTS / "README.md")


def test_only_the_default_checkpoint_holds_onnx_graphs():
    sizes = _tracked_sizes()
    folders = sorted({path.split("/")[0] for path in sizes if path.endswith(".onnx")})
    assert folders == [DEFAULT_CHECKPOINT], (
        f"checkpoints/ holds ONNX graphs in {folders}; only the default ({DEFAULT_CHECKPOINT}) "
        "may: a new default replaces the old folder (git rm it), see CONTRIBUTING.md"
    )
    others = sorted({p.split("/")[0] for p in sizes if "/" in p} - {DEFAULT_CHECKPOINT})
    assert not others, f"checkpoints/ has folders besides the default: {others}"


def test_tracked_checkpoint_bytes_stay_within_the_budget():
    total = sum(_tracked_sizes().values())
    budget = _budget(CHECKPOINTS / "README.md")
    assert total <= budget, (
        f"checkpoints/ holds {total / MIB:.1f} MiB, over the {budget // MIB} MiB budget; ship one "
        "graph variant of the default only (python -m training.export --drop-variant), see "
        "CONTRIBUTING.md"
    )
    assert total > 0


@pytest.mark.parametrize("bad", ["second", "graph"])
def test_the_checks_fail_on_a_second_checkpoint(bad, monkeypatch):
    """The rule's own test: a listing with a second checkpoint's graph, or over the budget."""
    real = _tracked_sizes()
    extra = (
        {"sitar-old-v4/model.int8.onnx": 1}
        if bad == "second"
        else {f"{DEFAULT_CHECKPOINT}/model.onnx": 200 * MIB}
    )
    monkeypatch.setitem(globals(), "_tracked_sizes", lambda: {**real, **extra})
    check = (
        test_only_the_default_checkpoint_holds_onnx_graphs
        if bad == "second"
        else test_tracked_checkpoint_bytes_stay_within_the_budget
    )
    with pytest.raises(AssertionError, match="sitar-old-v4|over the"):
        check()
