"""A writer killed with SIGKILL cannot remove its temporary ``.part`` file (issue #30): the next
write to the same destination removes the parts whose writer is gone, and only those."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sitar.io import open_output

REPO = Path(__file__).resolve().parents[2]


def _dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(proc.stdout)


def test_next_write_removes_parts_of_dead_writers_only(tmp_path):
    dest = tmp_path / "out.tsv"
    dead = tmp_path / f".out.tsv.{_dead_pid()}.abc123.part"
    dead.write_text("half a file")
    alive = tmp_path / f".out.tsv.{os.getpid()}.def456.part"  # a writer still running
    alive.write_text("being written")
    other = tmp_path / f".other.tsv.{_dead_pid()}.ghi789.part"  # another destination
    other.write_text("not ours")
    unrelated = tmp_path / ".out.tsv.notes.part"  # not a name the writer makes
    unrelated.write_text("keep")
    with open_output(dest) as fh:
        fh.write("x\n")
    assert dest.read_text() == "x\n"
    assert not dead.exists()
    assert alive.exists() and other.exists() and unrelated.exists()


def test_part_name_carries_the_writer_pid(tmp_path):
    dest = tmp_path / "out.tsv"
    with open_output(dest) as fh:
        fh.write("x")
        parts = list(tmp_path.glob(".out.tsv.*.part"))
        assert len(parts) == 1 and f".{os.getpid()}." in parts[0].name


@pytest.mark.slow
def test_kill_9_during_gaps_then_rerun_leaves_no_part(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    with pairs.open("w") as fh:
        for i in range(40000):
            fh.write(
                json.dumps(
                    {
                        "id": f"u{i}",
                        "reference": f"turn left at light {i}",
                        "hypothesis": f"turn right at the light {i}",
                    }
                )
                + "\n"
            )
    out = tmp_path / "gaps.tsv"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "sitar", "gaps", "--jsonl", str(pairs), "-o", str(out)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(
        p.stat().st_size > 0 for p in tmp_path.glob(".gaps.tsv.*.part")
    ):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert list(tmp_path.glob(".gaps.tsv.*.part")), "the writer was killed before writing"
    small = tmp_path / "small.jsonl"
    small.write_text(pairs.read_text().splitlines()[0] + "\n")
    cmd[cmd.index("--jsonl") + 1] = str(small)
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    assert not list(tmp_path.glob(".gaps.tsv.*.part"))
    assert out.exists()
