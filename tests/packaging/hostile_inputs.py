"""Try bad and hostile inputs and conditions against a SITAR checkout and tabulate the outcomes.

Each case runs the CLI (``python -m sitar``) or a Python snippet in a subprocess with
``PYTHONPATH=<repo>`` and classifies what happened:

* ``clean``: the documented result, or a one-line error with exit code 2 (no traceback);
* ``traceback``: a Python traceback reached the user;
* ``silent wrong``: exit 0 (or a plausible result) that is wrong: lines merged, a tampered
  checkpoint scored, a secret printed or saved, an id that TSV readers misread...;
* ``data lost``: a user's file truncated, overwritten or left partial under its final name;
* ``refused valid``: valid input or a documented option refused.

Run it on two checkouts to compare, e.g. the base commit of issue 13 and this one::

    git archive ac6edcc | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    python tests/packaging/hostile_inputs.py --repo /tmp/base --json /tmp/before.json
    python tests/packaging/hostile_inputs.py --repo . --json /tmp/after.json
    python tests/packaging/hostile_inputs.py --table /tmp/before.json /tmp/after.json

Score cases use the repository's tiny test checkpoint (``tests/fixtures/tiny_onnx``, fp32) so the
script runs in about a minute on a laptop. Cases that need root (a small tmpfs) are reported as
``skipped`` where they cannot run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sitar._main import ArgumentParser, tool_main

OUTCOMES = ("clean", "traceback", "silent wrong", "data lost", "refused valid")
CATEGORIES = (
    "parsing",
    "options",
    "sizes",
    "output faults",
    "signals",
    "checkpoints",
    "API types",
    "annotation secrets",
)


class Ctx:
    def __init__(self, repo: Path, work: Path) -> None:
        self.repo = repo.resolve()
        self.work = work
        self.tiny = str(self.repo / "tests" / "fixtures" / "tiny_onnx")
        self.env = {**os.environ, "PYTHONPATH": str(self.repo)}
        self.env.pop("HF_HUB_OFFLINE", None)
        self.n = 0

    def dir(self) -> Path:
        self.n += 1
        d = self.work / f"case{self.n}"
        d.mkdir()
        return d

    def sh(self, script: str, *, cwd: Path | None = None, timeout: float = 120, env=None):
        return subprocess.run(
            ["bash", "-c", script],
            cwd=cwd or self.work,
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            errors="replace",
        )

    def sitar(self, *argv: str, stdin: str | None = None, cwd: Path | None = None, env=None):
        return subprocess.run(
            [sys.executable, "-m", "sitar", *argv],
            cwd=cwd or self.work,
            env=env or self.env,
            capture_output=True,
            text=True,
            input=stdin,
            timeout=300,
            errors="replace",
        )

    def py(self, code: str, env=None):
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            cwd=self.work,
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=120,
            errors="replace",
        )

    def score(self, *argv: str, **kw):
        return self.sitar("score", "--checkpoint", self.tiny, "--variant", "fp32", *argv, **kw)


def err_outcome(proc, *, want: str | None = None) -> str:
    """An expected error: one line, exit 2, optionally containing ``want``."""
    if "Traceback" in proc.stderr:
        return "traceback"
    if proc.returncode == 0:
        return "silent wrong"
    lines = proc.stderr.strip().splitlines()
    if proc.returncode == 2 and len(lines) >= 1 and (want is None or want in proc.stderr):
        return "clean"
    return "silent wrong" if proc.returncode == 0 else "traceback" if not lines else "clean"


def ok_outcome(proc, check: Callable[[str], bool] = lambda out: True) -> str:
    if "Traceback" in proc.stderr:
        return "traceback"
    if proc.returncode != 0:
        return "refused valid"
    return "clean" if check(proc.stdout) else "silent wrong"


CASES: list[tuple[str, str, Callable[[Ctx], str]]] = []


def case(category: str, name: str):
    def register(fn):
        CASES.append((category, name, fn))
        return fn

    return register


def _pairs(d: Path, n: int = 3, prefix: str = "") -> tuple[str, str]:
    ref, hyp = d / "ref.txt", d / "hyp.txt"
    ref.write_text("".join(f"{prefix}do not send it {i}\n" for i in range(n)))
    hyp.write_text("".join(f"{prefix}do send it {i}\n" for i in range(n)))
    return str(ref), str(hyp)


# -- parsing -------------------------------------------------------------------------------------


@case("parsing", "process substitution --ref-file <(...)")
def _(c):
    p = c.sh(
        f"{sys.executable} -m sitar gaps --ref-file <(printf 'do not\\n') --hyp-file <(printf 'do\\n')"
    )
    return ok_outcome(p, lambda o: "[not]" in o)


@case("parsing", "--ref-file /dev/stdin")
def _(c):
    d = c.dir()
    (d / "h").write_text("do it\n")
    return ok_outcome(
        c.sitar(
            "gaps", "--ref-file", "/dev/stdin", "--hyp-file", str(d / "h"), stdin="do not it\n"
        ),
        lambda o: "[not]" in o,
    )


@case("parsing", "--ref-file - (stdin)")
def _(c):
    d = c.dir()
    (d / "h").write_text("do it\n")
    return ok_outcome(
        c.sitar("gaps", "--ref-file", "-", "--hyp-file", str(d / "h"), stdin="do not it\n"),
        lambda o: "[not]" in o,
    )


@case("parsing", "named pipe")
def _(c):
    d = c.dir()
    fifo = d / "ref.fifo"
    os.mkfifo(fifo)
    (d / "h").write_text("do it\n")

    def feed():
        try:
            with open(fifo, "w") as fh:
                fh.write("do not it\n")
        except OSError:
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    p = c.sitar("gaps", "--ref-file", str(fifo), "--hyp-file", str(d / "h"))
    if t.is_alive():  # the command never opened the pipe: unblock the writer
        with open(fifo, "rb") as fh:
            fh.read()
    return ok_outcome(p, lambda o: "[not]" in o)


@case("parsing", "a directory as input says 'is a directory'")
def _(c):
    d = c.dir()
    p = c.sitar("gaps", "--ref-file", str(d), "--hyp-file", str(d))
    out = err_outcome(p)
    return out if out != "clean" or "directory" in p.stderr else "silent wrong"


@case("parsing", "lone surrogate in JSONL")
def _(c):
    d = c.dir()
    (d / "p.jsonl").write_text('{"id": "1", "reference": "a\\ud800", "hypothesis": "b"}\n')
    return err_outcome(c.sitar("gaps", "--jsonl", str(d / "p.jsonl")))


@case("parsing", "lone surrogate id in JSONL, score")
def _(c):
    d = c.dir()
    (d / "p.jsonl").write_text('{"id": "\\udc80", "reference": "a b", "hypothesis": "a c"}\n')
    return err_outcome(c.score("--jsonl", str(d / "p.jsonl")))


@case("parsing", "lone surrogate on the command line")
def _(c):
    p = subprocess.run(
        [sys.executable, "-m", "sitar", "gaps", "--ref", b"a\xff".decode("utf-8", "surrogateescape"),
         "--hyp", "a"],
        env=c.env, capture_output=True, text=True, errors="replace",
    )  # fmt: skip
    return err_outcome(p)


@case("parsing", "over-long integer id (5000 digits)")
def _(c):
    d = c.dir()
    (d / "p.jsonl").write_text('{"id": ' + "9" * 5000 + ', "reference": "a", "hypothesis": "b"}\n')
    return err_outcome(c.sitar("gaps", "--jsonl", str(d / "p.jsonl")))


@case("parsing", "deeply nested JSON")
def _(c):
    d = c.dir()
    (d / "p.jsonl").write_text("[" * 200000 + "]" * 200000 + "\n")
    return err_outcome(c.sitar("gaps", "--jsonl", str(d / "p.jsonl")))


@case("parsing", "deeply nested JSON in compare --format jsonl")
def _(c):
    d = c.dir()
    (d / "r.jsonl").write_text("[" * 200000 + "\n")
    return err_outcome(
        c.sitar("compare", "--format", "jsonl", "--ref-file", str(d / "r.jsonl"),
                "--system", f"A={d / 'r.jsonl'}", "--system", f"B={d / 'r.jsonl'}",
                "--checkpoint", c.tiny)
    )  # fmt: skip


@case("parsing", "lone surrogate in compare --format jsonl")
def _(c):
    d = c.dir()
    (d / "r.jsonl").write_text('{"id": "1", "reference": "a\\ud800"}\n')
    (d / "h.jsonl").write_text('{"id": "1", "hypothesis": "a"}\n')
    return err_outcome(
        c.sitar("compare", "--format", "jsonl", "--ref-file", str(d / "r.jsonl"),
                "--system", f"A={d / 'h.jsonl'}", "--system", f"B={d / 'h.jsonl'}",
                "--checkpoint", c.tiny, "--no-wer", "--bootstrap", "10")
    )  # fmt: skip


@case("parsing", "closed stdin with --jsonl -")
def _(c):
    return err_outcome(c.sh(f"{sys.executable} -m sitar gaps --jsonl - <&-"))


@case("parsing", "CR-only line endings: 3 utterances")
def _(c):
    d = c.dir()
    (d / "r").write_bytes(b"do not a\rdo not b\rdo not c\r")
    (d / "h").write_bytes(b"do a\rdo b\rdo c\r")
    p = c.sitar("gaps", "--ref-file", str(d / "r"), "--hyp-file", str(d / "h"))
    if p.returncode == 2 and "Traceback" not in p.stderr:
        return "clean"  # refused with a message is allowed
    return ok_outcome(p, lambda o: o.count("\nid ") + o.startswith("id ") == 3)


@case("parsing", "TSV id starting with '#'")
def _(c):
    return _tsv_id(c, "#u1")


@case("parsing", "TSV id containing '#'")
def _(c):
    return _tsv_id(c, "u#1")


@case("parsing", "TSV id with a tab")
def _(c):
    return _tsv_id(c, "a\tb")


@case("parsing", "TSV id with a newline")
def _(c):
    return _tsv_id(c, "a\nb")


def _tsv_id(c: Ctx, bad: str) -> str:
    d = c.dir()
    rows = [{"id": bad, "reference": "a b", "hypothesis": "a c"},
            {"id": "ok", "reference": "x y", "hypothesis": "x z"}]  # fmt: skip
    (d / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = c.score("--jsonl", str(d / "p.jsonl"), "-o", str(d / "out.tsv"))
    if p.returncode == 2 and "Traceback" not in p.stderr:
        return "clean"
    if "Traceback" in p.stderr:
        return "traceback"
    # read it back the README's way: comment='#', tab-separated
    data = [
        line.split("#", 1)[0]
        for line in (d / "out.tsv").read_text().split("\n")
        if line.split("#", 1)[0].strip()
    ]
    ids = [row.split("\t")[0] for row in data[1:]]
    return "clean" if ids == [bad, "ok"] else "silent wrong"


@case("parsing", "non-UTF-8 file")
def _(c):
    d = c.dir()
    (d / "r").write_bytes(b"caf\xe9\n")
    return err_outcome(c.sitar("gaps", "--ref-file", str(d / "r"), "--hyp-file", str(d / "r")))


@case("parsing", "UTF-8 BOM and CRLF")
def _(c):
    d = c.dir()
    (d / "r").write_bytes(b"\xef\xbb\xbfdo not a\r\n")
    (d / "h").write_bytes(b"do a\r\n")
    p = c.sitar("gaps", "--ref-file", str(d / "r"), "--hyp-file", str(d / "h"))
    return ok_outcome(p, lambda o: "[not]" in o and "\ufeff" not in o)


@case("parsing", "missing file")
def _(c):
    return err_outcome(c.sitar("gaps", "--ref-file", "/nonexistent/r", "--hyp-file", "/x"))


@case("parsing", "parallel files of different length")
def _(c):
    d = c.dir()
    (d / "r").write_text("a\nb\n")
    (d / "h").write_text("a\n")
    return err_outcome(c.sitar("gaps", "--ref-file", str(d / "r"), "--hyp-file", str(d / "h")))


@case("parsing", "kaldi files with mismatched ids")
def _(c):
    d = c.dir()
    (d / "r").write_text("u1 a\nu2 b\n")
    (d / "h").write_text("u1 a\nu3 b\n")
    argv = ["--ref-file", str(d / "r"), "--hyp-file", str(d / "h"), "--format", "kaldi"]
    return err_outcome(c.sitar("gaps", *argv), want="u2")


@case("parsing", "JSONL with a missing field")
def _(c):
    d = c.dir()
    (d / "p.jsonl").write_text('{"id": "1", "reference": "a"}\n')
    return err_outcome(c.sitar("gaps", "--jsonl", str(d / "p.jsonl")))


# -- options --------------------------------------------------------------------------------------


def _compare_files(c: Ctx) -> list[str]:
    d = c.dir()
    (d / "r").write_text("u1 do not send it\nu2 turn left\n")
    (d / "a").write_text("u1 do send it\nu2 turn left\n")
    (d / "b").write_text("u1 do not send it\nu2 turn right\n")
    return ["--ref-file", str(d / "r"), "--system", f"A={d / 'a'}", "--system", f"B={d / 'b'}",
            "--format", "kaldi", "--checkpoint", c.tiny, "--variant", "fp32"]  # fmt: skip


@case("options", "--bootstrap 1000000000 is bounded")
def _(c):
    argv = _compare_files(c)
    try:
        p = c.sitar("compare", *argv, "--bootstrap", "1000000000", "--no-wer")
    except subprocess.TimeoutExpired:
        return "silent wrong"  # runs for ever instead of refusing
    return err_outcome(p)


@case("options", "--bootstrap 0")
def _(c):
    return err_outcome(c.sitar("compare", *_compare_files(c), "--bootstrap", "0", "--no-wer"))


@case("options", "--confidence 1.5")
def _(c):
    return err_outcome(c.sitar("compare", *_compare_files(c), "--confidence", "1.5", "--no-wer"))


@case("options", "--confidence nan")
def _(c):
    return err_outcome(c.sitar("compare", *_compare_files(c), "--confidence", "nan", "--no-wer"))


@case("options", "--seed -1")
def _(c):
    return err_outcome(c.sitar("compare", *_compare_files(c), "--seed", "-1", "--no-wer"))


@case("options", "--batch-size 0")
def _(c):
    return err_outcome(c.score("--ref", "a", "--hyp", "b", "--batch-size", "0"))


@case("options", "--threads -1")
def _(c):
    return err_outcome(c.score("--ref", "a", "--hyp", "b", "--threads", "-1"))


@case("options", "--decode bogus, and --decode for a pair-head checkpoint")
def _(c):
    bad = err_outcome(c.score("--ref", "a", "--hyp", "b", "--decode", "bogus"))
    if bad != "clean":
        return bad
    # the tiny checkpoint has a pair head only
    return err_outcome(c.score("--ref", "a", "--hyp", "b", "--decode", "median"), want="gap head")


@case("options", "unknown analyzer")
def _(c):
    return err_outcome(c.sitar("gaps", "--ref", "a", "--hyp", "b", "--analyzer", "nope"))


@case("options", "compare on a plain install (no jiwer)")
def _(c):
    d = c.dir()
    (d / "jiwer.py").write_text("raise ImportError('jiwer is not installed (simulated)')\n")
    env = {**c.env, "PYTHONPATH": f"{d}{os.pathsep}{c.repo}"}
    p = c.sitar("compare", *_compare_files(c), "--bootstrap", "50", env=env)
    return ok_outcome(p, lambda o: "A vs B" in o)


@case("options", "--json means one thing (deprecation warning outside JSONL)")
def _(c):
    p = c.sitar("compare", *_compare_files(c), "--bootstrap", "50", "--no-wer", "--json")
    q = c.sitar("gaps", "--ref", "a b", "--hyp", "a c", "--json")
    if "Traceback" in p.stderr + q.stderr:
        return "traceback"
    return "clean" if "deprecated" in p.stderr and "deprecated" in q.stderr else "silent wrong"


@case("options", "explain --progress")
def _(c):
    return ok_outcome(
        c.sitar("explain", "--ref", "a b", "--hyp", "a c", "--checkpoint", c.tiny, "--progress")
    )


@case("options", "gaps --quiet")
def _(c):
    return ok_outcome(c.sitar("gaps", "--ref", "a b", "--hyp", "a c", "--quiet"))


@case("options", "compare --no-progress")
def _(c):
    return ok_outcome(
        c.sitar("compare", *_compare_files(c), "--bootstrap", "20", "--no-wer", "--no-progress")
    )


@case("options", "report --quiet")
def _(c):
    d = c.dir()
    argv = _compare_files(c)
    return ok_outcome(
        c.sitar("report", *argv, "--bootstrap", "20", "--no-wer", "-o", str(d / "r.html"), "-q")
    )


@case("options", "offline hub id: one line in CLI terms")
def _(c):
    env = {**c.env, "HF_HUB_OFFLINE": "1"}
    p = c.sitar("score", "--ref", "a", "--hyp", "b", "--checkpoint", "nobody/nothing", env=env)
    out = err_outcome(p)
    if out == "clean" and (
        len(p.stderr.strip().splitlines()) != 1 or "local_files_only" in p.stderr
    ):
        return "silent wrong"  # multi-line or Python-terms message
    return out


# -- sizes -----------------------------------------------------------------------------------------


@case("sizes", "empty reference and hypothesis")
def _(c):
    return ok_outcome(c.score("--ref", "", "--hyp", ""), lambda o: "\n1\t0.000000" in o)


@case("sizes", "zero pairs (empty JSONL)")
def _(c):
    d = c.dir()
    (d / "p.jsonl").write_text("")
    return ok_outcome(c.score("--jsonl", str(d / "p.jsonl")), lambda o: "n=0" in o)


@case("sizes", "5000 pairs through gaps")
def _(c):
    d = c.dir()
    ref, hyp = _pairs(d, 5000)
    return ok_outcome(
        c.sitar("gaps", "--ref-file", ref, "--hyp-file", hyp, "--jsonl-out"),
        lambda o: o.count("\n") == 5000,
    )


@case("sizes", "a 50 kB line")
def _(c):
    d = c.dir()
    (d / "r").write_text("word " * 10000 + "not\n")
    (d / "h").write_text("word " * 10000 + "\n")
    return ok_outcome(c.sitar("gaps", "--ref-file", str(d / "r"), "--hyp-file", str(d / "h")))


@case("sizes", "a long pair is windowed, not truncated")
def _(c):
    long_ref = " ".join(["please send the report"] * 60) + " today"
    long_hyp = " ".join(["please send the report"] * 60) + " tomorrow"
    return ok_outcome(c.score("--ref", long_ref, "--hyp", long_hyp), lambda o: "\t1\n" in o)


# -- output faults ---------------------------------------------------------------------------------


def _fails_fast(c: Ctx, command: str, dest: str, extra: tuple[str, ...] = ()) -> str:
    d = c.dir()
    ref, hyp = _pairs(d)
    argv = [command, "--ref-file", ref, "--hyp-file", hyp, "-o", dest, *extra]
    if command != "gaps":
        argv += ["--checkpoint", c.tiny]
    p = c.sitar(*argv)
    return err_outcome(p)


@case("output faults", "score -o into a missing folder")
def _(c):
    return _fails_fast(c, "score", str(c.work / "missing" / "x.tsv"))


@case("output faults", "explain -o into a missing folder")
def _(c):
    return _fails_fast(c, "explain", str(c.work / "missing" / "x.txt"))


@case("output faults", "gaps -o into a missing folder")
def _(c):
    return _fails_fast(c, "gaps", str(c.work / "missing" / "x.txt"))


@case("output faults", "score -o is a directory")
def _(c):
    return _fails_fast(c, "score", str(c.dir()))


@case("output faults", "compare -o into a missing folder")
def _(c):
    return err_outcome(c.sitar("compare", *_compare_files(c), "-o", str(c.work / "no" / "t")))


@case("output faults", "compare --json-out into a missing folder")
def _(c):
    return err_outcome(
        c.sitar("compare", *_compare_files(c), "--json-out", str(c.work / "no" / "c.json"))
    )


@case("output faults", "report -o into a missing folder")
def _(c):
    return err_outcome(c.sitar("report", *_compare_files(c), "-o", str(c.work / "no" / "r.html")))


def _same_file(c: Ctx, how: str) -> str:
    d = c.dir()
    ref, hyp = _pairs(d)
    before = Path(ref).read_text()
    dest = ref
    if how == "symlink":
        os.symlink(ref, d / "link")
        dest = str(d / "link")
    elif how == "hardlink":
        os.link(ref, d / "hard")
        dest = str(d / "hard")
    p = c.score("--ref-file", ref, "--hyp-file", hyp, "-o", dest)
    if Path(ref).read_text() != before:
        return "data lost"
    return err_outcome(p)


@case("output faults", "score -o the input file")
def _(c):
    return _same_file(c, "same")


@case("output faults", "score -o a symlink to the input")
def _(c):
    return _same_file(c, "symlink")


@case("output faults", "score -o a hard link to the input")
def _(c):
    return _same_file(c, "hardlink")


@case("output faults", "gaps > /dev/full")
def _(c):
    d = c.dir()
    ref, hyp = _pairs(d, 2000)
    return err_outcome(
        c.sh(f"{sys.executable} -m sitar gaps --ref-file {ref} --hyp-file {hyp} > /dev/full")
    )


@case("output faults", "score > /dev/full")
def _(c):
    d = c.dir()
    ref, hyp = _pairs(d, 20)
    cmd = f"{sys.executable} -m sitar score --checkpoint {c.tiny} --ref-file {ref} --hyp-file {hyp}"
    return err_outcome(c.sh(cmd + " > /dev/full"))


@case("output faults", "stdout closed")
def _(c):
    return err_outcome(c.sh(f"{sys.executable} -m sitar gaps --ref a --hyp b >&-"))


@case("output faults", "| head -n 1 ends quietly")
def _(c):
    d = c.dir()
    ref, hyp = _pairs(d, 5000)
    p = c.sh(
        f"set -o pipefail; {sys.executable} -m sitar gaps --ref-file {ref} --hyp-file {hyp} | head -n 1"
    )
    if "Traceback" in p.stderr or "Exception ignored" in p.stderr:
        return "traceback"
    return "clean" if p.returncode == 0 and p.stderr == "" else "silent wrong"


def _tmpfs(c: Ctx, size: str = "64k") -> Path | None:
    mnt = c.dir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)],
                       capture_output=True)  # fmt: skip
    return mnt if p.returncode == 0 else None


def _umount(mnt: Path) -> None:
    subprocess.run(["umount", str(mnt)], capture_output=True)


def _full_disk(c: Ctx, command: str, existing: bool) -> str:
    mnt = _tmpfs(c)
    if mnt is None:
        return "skipped"
    try:
        d = c.dir()
        ref, hyp = _pairs(d, 3000)
        dest = mnt / "out"
        if existing:
            dest.write_text("".join(f"kept {i}\n" for i in range(203)))
        before = dest.read_text() if existing else None
        if command == "gaps":
            p = c.sitar(
                "gaps", "--ref-file", ref, "--hyp-file", hyp, "--jsonl-out", "-o", str(dest)
            )
        else:
            p = c.sitar("report", *_compare_files(c), "--bootstrap", "20", "--no-wer", "-o",
                        str(dest))  # fmt: skip
        partial = [x.name for x in mnt.iterdir() if x.name != "out"]
        if existing and dest.read_text() != before:
            return "data lost"
        if not existing and dest.exists() and p.returncode != 0:
            return "data lost"
        if partial:
            return "data lost"
        if p.returncode == 0:
            return "clean" if dest.exists() else "silent wrong"
        return err_outcome(p)
    finally:
        _umount(mnt)


@case("output faults", "full disk, existing 203-line file (gaps)")
def _(c):
    return _full_disk(c, "gaps", existing=True)


@case("output faults", "full disk, new file (gaps)")
def _(c):
    return _full_disk(c, "gaps", existing=False)


@case("output faults", "full disk, report")
def _(c):
    return _full_disk(c, "report", existing=False)


# -- signals ---------------------------------------------------------------------------------------


def _signal(c: Ctx, sig: int, existing: bool, command: str = "gaps") -> str:
    d = c.dir()
    ref, hyp = _pairs(d, 40000)
    dest = d / "out.jsonl"
    if existing:
        dest.write_text("previous\n")
    argv = [sys.executable, "-m", "sitar", command, "--ref-file", ref, "--hyp-file", hyp,
            "--jsonl-out", "-o", str(dest)]  # fmt: skip
    if command == "score":
        argv += ["--checkpoint", c.tiny]
    proc = subprocess.Popen(argv, env=c.env, cwd=c.work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    # Signal once the command is writing: its output (or temporary) file exists or changed.
    deadline = time.monotonic() + (120 if command == "gaps" else 4)
    while time.monotonic() < deadline and proc.poll() is None:
        started = any(x.name.startswith(".out.jsonl") for x in d.iterdir()) or (
            dest.exists() and (not existing or dest.read_text() != "previous\n")
        )
        if started and command == "gaps":
            break
        time.sleep(0.05)
    time.sleep(0.2)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    leftovers = [x.name for x in d.iterdir() if x.name.startswith(".out.jsonl")]
    if proc.returncode == 0:
        return "skipped"  # it finished before the signal arrived: nothing was tried
    if existing and dest.read_text() != "previous\n":
        return "data lost"
    if not existing and dest.exists() and proc.returncode != 0:
        return "data lost"
    if leftovers:
        return "data lost"
    if "Traceback" in err:
        return "traceback"
    return "clean"


@case("signals", "SIGINT during gaps -o (new file)")
def _(c):
    return _signal(c, signal.SIGINT, existing=False)


@case("signals", "SIGTERM during gaps -o (new file)")
def _(c):
    return _signal(c, signal.SIGTERM, existing=False)


@case("signals", "SIGINT during gaps -o (existing file)")
def _(c):
    return _signal(c, signal.SIGINT, existing=True)


@case("signals", "SIGTERM during gaps -o (existing file)")
def _(c):
    return _signal(c, signal.SIGTERM, existing=True)


@case("signals", "SIGTERM during score -o")
def _(c):
    return _signal(c, signal.SIGTERM, existing=True, command="score")


# -- checkpoints -----------------------------------------------------------------------------------


def _ckpt_copy(c: Ctx, change: Callable[[dict], None] | None = None) -> Path:
    d = c.dir() / "ckpt"
    shutil.copytree(c.tiny, d)
    if change:
        path = d / "sitar_config.json"
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data, indent=2))
    return d


def _tampered(c: Ctx, change) -> str:
    d = _ckpt_copy(c, change)
    p = c.sitar(
        "score", "--checkpoint", str(d), "--variant", "fp32", "--ref", "a b", "--hyp", "a c"
    )
    return err_outcome(p)


@case("checkpoints", "score_scale changed by hand")
def _(c):
    return _tampered(c, lambda d: d.update(score_scale=1e-6))


@case("checkpoints", "rho changed by hand")
def _(c):
    return _tampered(c, lambda d: d.update(rho=0.25))


@case("checkpoints", "thresholds changed by hand")
def _(c):
    return _tampered(c, lambda d: d.update(thresholds=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]))


@case("checkpoints", "max_length changed by hand")
def _(c):
    return _tampered(c, lambda d: d.update(max_length=d["max_length"] + 8))


@case("checkpoints", "tokenizer file edited")
def _(c):
    d = _ckpt_copy(c)
    tok = json.loads((d / "tokenizer.json").read_text())
    vocab = tok["model"]["vocab"]
    keys = sorted(vocab)[-2:]
    vocab[keys[0]], vocab[keys[1]] = vocab[keys[1]], vocab[keys[0]]
    (d / "tokenizer.json").write_text(json.dumps(tok))
    p = c.sitar(
        "score", "--checkpoint", str(d), "--variant", "fp32", "--ref", "a b", "--hyp", "a c"
    )
    return err_outcome(p)


@case("checkpoints", "ONNX graph swapped for the other variant")
def _(c):
    d = _ckpt_copy(c)
    shutil.copy(d / "model.int8.onnx", d / "model.onnx")
    p = c.sitar(
        "score", "--checkpoint", str(d), "--variant", "fp32", "--ref", "a b", "--hyp", "a c"
    )
    return err_outcome(p)


@case("checkpoints", "symlink to a file outside the folder")
def _(c):
    d = _ckpt_copy(c)
    outside = d.parent / "tok.json"
    shutil.move(d / "tokenizer.json", outside)
    os.symlink(outside, d / "tokenizer.json")
    p = c.sitar(
        "score", "--checkpoint", str(d), "--variant", "fp32", "--ref", "a b", "--hyp", "a c"
    )
    return err_outcome(p)


@case("checkpoints", "two different checkpoints, same signature?")
def _(c):
    def strip(d):
        d.pop("integrity", None)

    a = _ckpt_copy(c, strip)
    b = _ckpt_copy(c, lambda d: strip(d) or d.update(score_scale=2.0))
    sig = []
    for folder in (a, b):
        p = c.sitar("score", "--checkpoint", str(folder), "--variant", "fp32", "--ref", "a",
                    "--hyp", "b", "--system-only")  # fmt: skip
        if p.returncode != 0:
            return err_outcome(p)
        sig.append(p.stdout.splitlines()[0])
    return "clean" if sig[0] != sig[1] else "silent wrong"


@case("checkpoints", "config is not JSON")
def _(c):
    d = _ckpt_copy(c)
    (d / "sitar_config.json").write_text("{ not json")
    return err_outcome(c.sitar("score", "--checkpoint", str(d), "--ref", "a", "--hyp", "b"))


@case("checkpoints", "config missing")
def _(c):
    d = _ckpt_copy(c)
    (d / "sitar_config.json").unlink()
    return err_outcome(c.sitar("score", "--checkpoint", str(d), "--ref", "a", "--hyp", "b"))


@case("checkpoints", "checkpoint path is a file")
def _(c):
    d = _ckpt_copy(c)
    return err_outcome(
        c.sitar("score", "--checkpoint", str(d / "tokenizer.json"), "--ref", "a", "--hyp", "b")
    )


@case("checkpoints", "ONNX graph truncated")
def _(c):
    d = _ckpt_copy(c)
    data = (d / "model.onnx").read_bytes()
    (d / "model.onnx").write_bytes(data[: len(data) // 2])
    p = c.sitar(
        "score", "--checkpoint", str(d), "--variant", "fp32", "--ref", "a b", "--hyp", "a c"
    )
    return err_outcome(p)


# -- API types -------------------------------------------------------------------------------------


def _api(c: Ctx, body: str) -> str:
    code = (
        "import sys\nfrom sitar.errors import InputError, SitarError\ntry:\n"
        + textwrap.indent(textwrap.dedent(body), "    ")
        + "\nexcept InputError as e:\n    print('INPUTERROR', e)\n    sys.exit(0)\n"
        "print('NO ERROR')\n"
    )
    p = c.py(code)
    if "INPUTERROR" in p.stdout:
        return "clean"
    if "Traceback" in p.stderr:
        return "traceback"
    return "silent wrong"


@case("API types", "score_from_tiers(None)")
def _(c):
    return _api(c, "import sitar; sitar.score_from_tiers(None)")


@case("API types", "score_from_tiers([1], 3)")
def _(c):
    return _api(c, "import sitar; sitar.score_from_tiers([1], 3)")


@case("API types", "Scorer.load(123)")
def _(c):
    return _api(c, "from sitar.scorer import Scorer; Scorer.load(123)")


@case("API types", "Scorer.load(b'folder')")
def _(c):
    return _api(c, "from sitar.scorer import Scorer; Scorer.load(b'folder')")


for _label, _value in (("None", "None"), ("a string", "'0.5'"), ("a 2-D array", "[[0.1, 0.2]]"),
                       ("a scalar", "0.5"), ("too many", "[0.1, 0.2, 0.3, 0.4, 0.5]")):  # fmt: skip

    def _make(value=_value):
        def run(c):
            return _api(
                c,
                "from sitar.diagnostics import explain_many\n"
                f"explain_many(lambda r, h: {value}, references=['a b'], hypotheses=['a c'])",
            )

        return run

    CASES.append(("API types", f"predict_fn returning {_label}", _make()))


@case("API types", "scorer.score(references='a string')")
def _(c):
    return _api(
        c,
        f"from sitar.scorer import Scorer\nScorer.load({c.tiny!r}, variant='fp32')"
        ".score(references='abc', hypotheses='abd')",
    )


@case("API types", "segment(None, 'a')")
def _(c):
    return _api(c, "import sitar; sitar.segment(None, 'a')")


@case("API types", "paired_bootstrap(n_bootstrap=10**9)")
def _(c):
    return _api(
        c,
        "from sitar.comparison import paired_bootstrap\n"
        "paired_bootstrap({'a': [0.1], 'b': [0.2]}, n_bootstrap=10**9)",
    )


@case("API types", "normalize_score('x')")
def _(c):
    return _api(c, "import sitar; sitar.normalize_score('x')")


# -- annotation secrets ----------------------------------------------------------------------------

SECRET = "s3cretPassw0rd"
KEY = "sk-proj-ABCDEFGHIJKLMNOP0123456789"


@case("annotation secrets", "user:password@ in --base-url")
def _(c):
    d = c.dir()
    (d / "p.jsonl").write_text(json.dumps({"id": "1", "reference": "a b", "hypothesis": "a c"}))
    p = subprocess.run(
        [sys.executable, "-m", "annotation", "run", str(d / "run"), "--jsonl", str(d / "p.jsonl"),
         "--base-url", f"http://alice:{SECRET}@127.0.0.1:9/v1", "--api-key-env", "",
         "--max-retries", "0", "--timeout", "1"],
        cwd=c.repo, env=c.env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    leaked = [x for x in d.rglob("*") if x.is_file() and SECRET.encode() in x.read_bytes()]
    if leaked or SECRET in p.stdout + p.stderr:
        return "silent wrong"
    return "traceback" if "Traceback" in p.stderr else "clean"


@case("annotation secrets", "api_key in the --base-url query")
def _(c):
    return _api(
        c,
        "from annotation.client import ClientConfig\n"
        f"ClientConfig(base_url='https://h/v1?api_key={SECRET}')",
    )


@case("annotation secrets", "a 401 that echoes the key")
def _(c):
    code = f"""
    import http.server, json, os, threading, sys
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_POST(self):
            self.rfile.read(int(self.headers.get('Content-Length', 0)))
            body = json.dumps({{'error': 'bad key: ' + str(self.headers.get('Authorization'))}})
            self.send_response(401); self.end_headers(); self.wfile.write(body.encode())
    s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
    threading.Thread(target=s.serve_forever, daemon=True).start()
    os.environ['K'] = {KEY!r}
    from annotation.client import ClientConfig, OpenAIChatClient
    cfg = ClientConfig(base_url=f'http://127.0.0.1:{{s.server_address[1]}}/v1', model='m',
                       api_key_env='K', max_retries=0)
    try:
        OpenAIChatClient(cfg).complete([{{'role': 'user', 'content': 'x'}}])
    except Exception as e:
        print('MESSAGE', e)
    """
    p = c.py(code, env={**c.env, "PYTHONPATH": str(c.repo)})
    if "MESSAGE" not in p.stdout:
        return "traceback"
    return "silent wrong" if KEY in p.stdout or KEY[:12] in p.stdout else "clean"


@case("annotation secrets", "a Bearer token in an error body")
def _(c):
    code = """
    try:
        from annotation.client import redact
    except ImportError:
        print('NO REDACT'); raise SystemExit
    print(redact('upstream said: Authorization: Bearer abcdefghijklmnop'))
    """
    p = c.py(code)
    if "NO REDACT" in p.stdout:
        return "silent wrong"  # error bodies are shown as they come
    return "clean" if "abcdefghijklmnop" not in p.stdout and p.returncode == 0 else "silent wrong"


# -- driver ----------------------------------------------------------------------------------------


def run_all(repo: Path, only: str | None = None) -> list[dict[str, str]]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        ctx = Ctx(repo, Path(tmp))
        for category, name, fn in CASES:
            if only and only not in name:
                continue
            try:
                outcome = fn(ctx)
            except subprocess.TimeoutExpired:
                outcome = "silent wrong"
            except Exception as e:  # a crash of the harness itself is reported, not hidden
                outcome = f"harness error: {type(e).__name__}: {e}"
            results.append({"category": category, "case": name, "outcome": outcome})
            print(f"{outcome:<14} {category:<19} {name}", file=sys.stderr, flush=True)
    return results


def table(before: list[dict[str, str]], after: list[dict[str, str]] | None = None) -> str:
    cols = ("tried", *OUTCOMES)
    head = "| category | " + " | ".join(cols) + " |"
    if after is not None:
        head = "| category | " + " | ".join(f"{c} (before → after)" for c in cols) + " |"
    lines = [head, "|" + "---|" * (len(cols) + 1)]

    def counts(rows, category):
        sel = [r for r in rows if category in (None, r["category"]) and r["outcome"] != "skipped"]
        return [len(sel), *(sum(r["outcome"] == o for r in sel) for o in OUTCOMES)]

    for category in (*CATEGORIES, None):
        b = counts(before, category)
        label = category or "**total**"
        if after is None:
            lines.append(f"| {label} | " + " | ".join(map(str, b)) + " |")
        else:
            a = counts(after, category)
            lines.append(
                f"| {label} | " + " | ".join(f"{x} → {y}" for x, y in zip(b, a, strict=True)) + " |"
            )
    return "\n".join(lines)


@tool_main("python -m benchmarks.hostile_inputs")
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[2])
    parser.add_argument("--json", type=Path, help="save the per-case outcomes here")
    parser.add_argument("--only", help="run only cases whose name contains this text")
    parser.add_argument("--table", nargs="+", type=Path, metavar="JSON",
                        help="print the table of one saved run, or before/after of two")  # fmt: skip
    args = parser.parse_args(argv)
    if args.table:
        runs = [json.loads(p.read_text()) for p in args.table]
        print(table(runs[0], runs[1] if len(runs) > 1 else None))
        if len(runs) > 1:
            b = {r["case"]: r["outcome"] for r in runs[0]}
            print("\nper case (before → after):")
            for r in runs[1]:
                mark = "" if b.get(r["case"]) == r["outcome"] else "  *"
                print(f"- {r['category']}: {r['case']}: {b.get(r['case'])} → {r['outcome']}{mark}")
        return 0
    results = run_all(args.repo, args.only)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print(table(results))
    bad = [r for r in results if r["outcome"] not in ("clean", "skipped")]
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
