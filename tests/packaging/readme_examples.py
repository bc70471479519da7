"""Run the README's examples, check them (``--check``) or refresh the printed output (``--update``).

* ```` ```console ```` blocks: every ``$ command`` line runs in a scratch folder through ``bash``
  (``sitar`` is this checkout's ``python -m sitar``); the lines after it, up to the next ``$``, are
  its expected output (stdout). A line with ``…`` matches any text in that place. Numbers are
  compared with a tolerance (``--tol``, default 0.01) because int8 ONNX kernels differ by CPU
  instruction set (the README's scores are CPU-dependent in the third decimal); everything else —
  ids, the signature (including the checkpoint digest), segmentations, counts — must match exactly.
* ```` ```python ```` blocks run in order, each in a fresh namespace, in the same scratch folder;
  a block preceded by ``<!-- readme-test: skip (reason) -->`` is skipped (fragments and examples
  that need a spaCy pipeline).

``--update`` rewrites the expected output of every console block with what the commands print
now (lines with ``…`` that still match are kept), so the figures can be refreshed after a new
checkpoint ships: ``PYTHONPATH=. python tests/packaging/readme_examples.py --update && git diff README.md``
(from the repository root; the python blocks import this checkout's ``sitar``). ``tests/packaging/test_readme.py``
runs the check.

Exit code: 0 when every example runs and matches, 1 otherwise (each difference is printed).
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

from sitar._main import ArgumentParser, tool_main

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
SKIP = re.compile(r"<!--\s*readme-test:\s*skip\b")
_NUMBER = re.compile(r"-?\d+\.\d+")


@dataclass
class Block:
    lang: str
    start: int  # index of the first content line in the file's lines
    lines: list[str]
    skip: bool


def blocks(text: str) -> list[Block]:
    lines = text.split("\n")
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != "```":
                j += 1
            prev = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            found.append(Block(m.group(1), i + 1, lines[i + 1 : j], bool(SKIP.search(prev))))
            i = j + 1
        else:
            i += 1
    return found


def _shim(bindir: Path) -> None:
    script = bindir / "sitar"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m sitar "$@"\n')
    script.chmod(0o755)


def _env(bindir: Path) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if "PYTHONPATH" in env else "")
    env.pop("COLUMNS", None)
    return env


def _line_matches(expected: str, actual: str, tol: float) -> bool:
    if "…" in expected:
        parts = [re.escape(p) for p in expected.split("…")]
        return re.fullmatch(".*".join(parts), actual) is not None
    exp_nums, act_nums = _NUMBER.findall(expected), _NUMBER.findall(actual)
    if _NUMBER.sub("#", expected) != _NUMBER.sub("#", actual) or len(exp_nums) != len(act_nums):
        return False
    return all(
        math.isclose(float(a), float(b), abs_tol=tol)
        for a, b in zip(exp_nums, act_nums, strict=False)
    )


def run_console(block: Block, workdir: Path, env: dict[str, str], tol: float):
    """Yield (command index in block.lines, expected lines, actual lines, error) per command."""
    commands = [i for i, line in enumerate(block.lines) if line.startswith("$ ")]
    for n, i in enumerate(commands):
        end = commands[n + 1] if n + 1 < len(commands) else len(block.lines)
        expected = block.lines[i + 1 : end]
        proc = subprocess.run(
            ["bash", "-c", block.lines[i][2:]],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        actual = proc.stdout.rstrip("\n").split("\n") if proc.stdout.strip() else []
        error = None
        if proc.returncode != 0:
            error = f"exit {proc.returncode}: {proc.stderr.strip()}"
        elif len(expected) != len(actual) or not all(
            _line_matches(e, a, tol) for e, a in zip(expected, actual, strict=False)
        ):
            error = "output differs"
        yield i, expected, actual, error


def run_python(block: Block, workdir: Path) -> str | None:
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        exec(compile("\n".join(block.lines), f"README.md:{block.start + 1}", "exec"), {})
    except Exception:
        return traceback.format_exc(limit=3)
    finally:
        os.chdir(cwd)
    return None


@tool_main("python -m benchmarks.readme_examples")
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="check only (default)")
    mode.add_argument("--update", action="store_true", help="rewrite console outputs in place")
    parser.add_argument("--tol", type=float, default=0.01, help="tolerance on numbers")
    parser.add_argument("--readme", type=Path, default=README)
    parser.add_argument("--no-python", action="store_true", help="skip the python blocks")
    args = parser.parse_args(argv)
    text = args.readme.read_text(encoding="utf-8")
    lines = text.split("\n")
    failures = 0
    replacements: list[tuple[int, int, list[str]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir, bindir = Path(tmp) / "work", Path(tmp) / "bin"
        workdir.mkdir()
        bindir.mkdir()
        _shim(bindir)
        env = _env(bindir)
        for block in blocks(text):
            where = f"README.md:{block.start}"
            if block.skip:
                print(f"skip    {where} ({block.lang})")
                continue
            if block.lang == "console":
                for i, expected, actual, error in run_console(block, workdir, env, args.tol):
                    cmd = block.lines[i]
                    if error is None:
                        print(f"ok      {where} {cmd[:70]}")
                        continue
                    if args.update and not error.startswith("exit"):
                        kept = [
                            e if e == a or ("…" in e and _line_matches(e, a, 0.0)) else a
                            for e, a in zip(expected, actual, strict=False)
                        ] + actual[len(expected) :]
                        if len(actual) < len(expected):
                            kept = kept[: len(actual)]
                        start = block.start + i + 1
                        replacements.append((start, start + len(expected), kept))
                        print(f"updated {where} {cmd[:70]}")
                        continue
                    failures += 1
                    print(f"FAIL    {where} {cmd}: {error}")
                    for e in expected:
                        print(f"  - {e}")
                    for a in actual:
                        print(f"  + {a}")
            elif block.lang == "python" and not args.no_python:
                error = run_python(block, workdir)
                if error is None:
                    print(f"ok      {where} python block")
                else:
                    failures += 1
                    print(f"FAIL    {where} python block:\n{error}")
    if args.update and replacements:
        for start, end, new in sorted(replacements, reverse=True):
            lines[start:end] = new
        args.readme.write_text("\n".join(lines), encoding="utf-8")
        print(f"rewrote {len(replacements)} console output(s) in {args.readme}")
    print("all README examples pass" if failures == 0 else f"{failures} README example(s) failed")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
