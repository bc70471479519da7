"""The one spine of every command-line tool (sitar._main.run_main / tool_main).

Pins issue #29 item 2: a SitarError is one line `PROG: error: ...` with exit code 2, a broken pipe
ends quietly with 0, Ctrl-C is 130 and SIGTERM 143, the same in the sitar CLI and in every
`python -m` tool; no tool hand-writes its own `except SitarError` tail any more."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sitar._main import run_main, tool_main
from sitar.errors import CheckpointError, InputError

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _raise(error: BaseException):
    def body():
        raise error

    return body


def test_a_sitar_error_is_one_line_with_the_prog_prefix_and_exit_2(capsys):
    assert run_main(_raise(InputError("bad\n  input\nhere")), prog="python -m tool") == 2
    assert capsys.readouterr().err == "python -m tool: error: bad input here\n"


def test_exit_codes_of_the_other_endings(capsys):
    assert run_main(lambda: 0, prog="t") == 0
    assert run_main(lambda: None, prog="t") == 0
    assert run_main(lambda: 3, prog="t") == 3
    assert run_main(_raise(KeyboardInterrupt()), prog="t") == 130
    assert capsys.readouterr().err == "t: interrupted\n"
    err = OSError(13, "Permission denied")
    err.filename = "/x/out.txt"
    assert run_main(_raise(err), prog="t") == 2
    assert capsys.readouterr().err == "t: error: /x/out.txt: Permission denied\n"


def test_sigterm_runs_the_clean_up_and_exits_143(capsys):
    cleaned = []
    before = signal.getsignal(signal.SIGTERM)

    def body():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            signal.pause() if hasattr(signal, "pause") else None
        finally:
            cleaned.append(True)

    assert run_main(body, prog="t") == 143
    assert cleaned == [True] and "t: terminated" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) == before


def test_tool_main_wraps_main_and_keeps_argparse_usage_errors(capsys):
    @tool_main("python -m demo")
    def main(argv=None):
        if argv == ["fail"]:
            raise CheckpointError("no such checkpoint")
        if argv == ["usage"]:
            raise SystemExit(2)
        return 0

    assert main.__name__ == "main"
    assert main([]) == 0
    assert main(["fail"]) == 2
    assert capsys.readouterr().err == "python -m demo: error: no such checkpoint\n"
    with pytest.raises(SystemExit):
        main(["usage"])


@pytest.mark.parametrize(
    ("argv", "prefix"),
    [
        (["-m", "sitar.integrity", "verify", "/nonexistent/ckpt"], "python -m sitar.integrity"),
        (["-m", "training.recover", "--checkpoint", "/nonexistent", "--out", "/tmp/x"], None),
        (["-m", "sitar", "score", "--ref-file", "/nonexistent", "--hyp-file", "x"], "sitar score"),
    ],
)
def test_tools_end_errors_the_same_way_in_a_subprocess(argv, prefix):
    proc = subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    expected = prefix or f"python -m {argv[1]}"
    assert lines[0].startswith(f"{expected}: error: "), lines[0]


def test_a_broken_pipe_ends_quietly(tmp_path):
    ref = tmp_path / "r.txt"
    ref.write_text("".join(f"line number {i} of many\n" for i in range(20000)))
    cmd = (
        f"{sys.executable} -m sitar gaps --ref-file {ref} --hyp-file {ref} --jsonl-out | head -n 1"
    )
    proc = subprocess.run(
        ["bash", "-o", "pipefail", "-c", cmd],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and proc.stdout.count("\n") == 1


def test_every_python_m_tool_uses_the_spine():
    """Every module with a main() is decorated with @tool_main (or is the sitar CLI, which calls
    run_main), and none hand-writes an `except SitarError` tail."""
    files = [
        p
        for folder in ("sitar", "training", "annotation", "benchmarks")
        for p in sorted((ROOT / folder).rglob("*.py"))
    ]
    mains = [p for p in files if re.search(r"^def main\(", p.read_text(), re.M)]
    assert len(mains) >= 28
    for path in mains:
        text = path.read_text()
        rel = path.relative_to(ROOT).as_posix()
        if rel == "sitar/cli.py":
            assert "run_main(" in text
            continue
        # "python -m benchmarks NAME" names a benchmark of the harness
        pattern = r"^@tool_main\(\"python -m [\w.]+( [\w-]+)?\"\)\ndef main\("
        assert re.search(pattern, text, re.M), rel
    tail = re.compile(r"except SitarError as \w+:\n\s+(print\(|raise SystemExit)")
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        if rel != "sitar/_main.py":  # the spine itself
            assert not tail.search(path.read_text()), rel
