"""Issue 13: never lose or corrupt a user's file.

Every command that writes checks its destination before any work, writes to a temporary file in
the same folder and moves it into place only on success (a full disk, Ctrl-C or SIGTERM leave no
partial file and never truncate an existing one), and write errors on standard output end with one
line, not a traceback.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import sitar.cli
from sitar.errors import OutputError
from sitar.io import check_output_path, open_output

REPO = Path(__file__).resolve().parents[2]
TINY = str(REPO / "tests" / "fixtures" / "tiny_onnx")
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _pairs(tmp_path: Path, n: int = 5) -> tuple[str, str]:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("".join(f"do not send it {i}\n" for i in range(n)))
    hyp.write_text("".join(f"do send it {i}\n" for i in range(n)))
    return str(ref), str(hyp)


def _no_leftovers(folder: Path) -> None:
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".part")]


@pytest.fixture
def no_model(monkeypatch):
    """Fail the test if a command gets as far as loading a model."""
    import sitar.scorer

    def refuse(*a, **k):
        raise AssertionError("the model was loaded before the output path was checked")

    monkeypatch.setattr(sitar.scorer.Scorer, "load", classmethod(refuse))


# -- destination checked before any work -------------------------------------------------------


@pytest.mark.parametrize("command", ["score", "explain", "gaps"])
def test_bad_destinations_fail_fast_with_one_line(tmp_path, capsys, no_model, command):
    ref, hyp = _pairs(tmp_path)
    (tmp_path / "adir").mkdir()
    readonly = tmp_path / "ro.tsv"
    readonly.write_text("keep\n")
    readonly.chmod(0o444)
    cases = {
        str(tmp_path / "missing" / "out.tsv"): "does not exist",
        str(tmp_path / "adir"): "is a directory",
        ref: "same file as the input",
    }
    if os.geteuid() != 0:  # root writes read-only files anyway
        cases[str(readonly)] = "read-only"
    for dest, message in cases.items():
        code = sitar.cli.main(
            [command, "--ref-file", ref, "--hyp-file", hyp, "-o", dest, "--checkpoint", TINY]
            if command != "gaps"
            else [command, "--ref-file", ref, "--hyp-file", hyp, "-o", dest]
        )
        err = capsys.readouterr().err
        assert code == 2, dest
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert Path(ref).read_text().startswith("do not send it 0")


def test_same_file_through_symlink_and_hard_link(tmp_path):
    ref, _ = _pairs(tmp_path)
    os.symlink(ref, tmp_path / "soft")
    os.link(ref, tmp_path / "hard")
    for dest in ("soft", "hard"):
        with pytest.raises(OutputError, match="same file as the input"):
            check_output_path(tmp_path / dest, inputs=[ref])


def test_compare_and_report_check_both_outputs_first(tmp_path, capsys, no_model):
    ref = tmp_path / "ref.txt"
    ref.write_text("u1 a b\n")
    argv = ["--ref-file", str(ref), "--system", f"A={ref}", "--system", f"B={ref}"]
    assert sitar.cli.main(["compare", *argv, "--json-out", str(tmp_path / "no" / "x.json")]) == 2
    assert "--json-out" in capsys.readouterr().err
    assert sitar.cli.main(["compare", *argv, "-o", str(ref)]) == 2
    assert "same file" in capsys.readouterr().err
    assert sitar.cli.main(["report", *argv, "-o", str(tmp_path / "no" / "r.html")]) == 2
    assert "does not exist" in capsys.readouterr().err


# -- atomic replacement ----------------------------------------------------------------------


def test_failed_write_keeps_the_existing_file(tmp_path):
    dest = tmp_path / "result.tsv"
    dest.write_text("".join(f"old {i}\n" for i in range(203)))
    with pytest.raises(OutputError, match="No space left"):
        with open_output(dest) as out:
            out.write("new row\n" * 50)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert len(dest.read_text().splitlines()) == 203
    _no_leftovers(tmp_path)


def test_interrupt_keeps_the_existing_file_and_leaves_no_partial(tmp_path, capsys, monkeypatch):
    import sitar.commands.gaps as gaps_cmd

    ref, hyp = _pairs(tmp_path, 20)
    dest = tmp_path / "gaps.jsonl"
    calls = []
    real = gaps_cmd.segment

    def interrupted(*a, **k):
        calls.append(1)
        if len(calls) == 10:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(gaps_cmd, "segment", interrupted)
    argv = ["gaps", "--ref-file", ref, "--hyp-file", hyp, "--jsonl-out", "-o", str(dest)]
    assert sitar.cli.main(argv) == 130
    assert not dest.exists()  # not a file that ends on a record boundary and looks complete
    dest.write_text("previous\n")
    calls.clear()
    assert sitar.cli.main(argv) == 130
    assert dest.read_text() == "previous\n"
    _no_leftovers(tmp_path)


def test_sigterm_is_cleaned_up_like_ctrl_c(tmp_path, capsys, monkeypatch):
    import sitar.commands.gaps as gaps_cmd

    ref, hyp = _pairs(tmp_path, 20)
    dest = tmp_path / "gaps.txt"
    calls = []
    real = gaps_cmd.segment

    def terminated(*a, **k):
        calls.append(1)
        if len(calls) == 5:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(*a, **k)

    monkeypatch.setattr(gaps_cmd, "segment", terminated)
    before = signal.getsignal(signal.SIGTERM)
    assert sitar.cli.main(["gaps", "--ref-file", ref, "--hyp-file", hyp, "-o", str(dest)]) == 143
    assert signal.getsignal(signal.SIGTERM) == before
    assert not dest.exists()
    _no_leftovers(tmp_path)


def test_success_replaces_atomically_and_keeps_permissions(tmp_path, capsys):
    ref, hyp = _pairs(tmp_path)
    dest = tmp_path / "gaps.txt"
    dest.write_text("old\n")
    dest.chmod(0o640)
    assert sitar.cli.main(["gaps", "--ref-file", ref, "--hyp-file", hyp, "-o", str(dest)]) == 0
    assert dest.read_text().startswith("id 1:")
    assert oct(dest.stat().st_mode & 0o777) == oct(0o640)
    # a symlinked destination updates its target and stays a link
    target = tmp_path / "target.txt"
    target.write_text("")
    os.symlink(target, tmp_path / "link.txt")
    argv = ["gaps", "--ref-file", ref, "--hyp-file", hyp, "-o", str(tmp_path / "link.txt")]
    assert sitar.cli.main(argv) == 0
    assert (tmp_path / "link.txt").is_symlink() and target.read_text().startswith("id 1:")
    _no_leftovers(tmp_path)


def test_dev_null_is_written_in_place(tmp_path, capsys):
    ref, hyp = _pairs(tmp_path)
    assert sitar.cli.main(["gaps", "--ref-file", ref, "--hyp-file", hyp, "-o", "/dev/null"]) == 0
    assert Path("/dev/null").exists() and not Path("/dev/null").is_file()


def test_small_tmpfs_full_disk_keeps_existing_file(tmp_path):
    mnt = tmp_path / "small"
    mnt.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {proc.stderr.decode().strip()}")
    try:
        ref, hyp = _pairs(tmp_path, 2000)
        dest = mnt / "result.jsonl"
        dest.write_text("".join(f"kept {i}\n" for i in range(203)))
        proc = subprocess.run(
            [sys.executable, "-m", "sitar", "gaps", "--ref-file", ref, "--hyp-file", hyp,
             "--jsonl-out", "-o", str(dest)],
            capture_output=True, text=True, env=ENV,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert "No space left on device" in proc.stderr and "Traceback" not in proc.stderr
        assert len(dest.read_text().splitlines()) == 203
        _no_leftovers(mnt)
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


# -- standard output -------------------------------------------------------------------------


def _sh(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=ENV)


def test_stdout_full_closed_and_piped(tmp_path):
    ref, hyp = _pairs(tmp_path, 3000)
    base = f"{sys.executable} -m sitar gaps --ref-file {ref} --hyp-file {hyp}"
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    proc = _sh(f"{base} > /dev/full")
    assert proc.returncode == 2 and "No space left" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = _sh(f"{base} >&-")
    assert proc.returncode == 2 and "standard output is closed" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = _sh(f"set -o pipefail; {base} | head -n 1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and proc.stdout.startswith("id 1:")


def test_closed_stdin_is_one_line(tmp_path):
    proc = _sh(f"{sys.executable} -m sitar gaps --jsonl - <&-")
    assert proc.returncode == 2 and "standard input is closed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_json_out_dash_replaces_the_table(tmp_path, capsys, monkeypatch):
    """`--json-out -` is the new spelling of the deprecated `compare --json`."""
    import sitar.commands.compare as compare_cmd

    def fake_compare(source, **kw):
        class R:
            def to_dict(self):
                return {"ok": True}

            def to_table(self):
                return "TABLE\n"

        return R()

    monkeypatch.setattr("sitar.comparison.compare", fake_compare)
    monkeypatch.setattr(compare_cmd, "load_scorer", lambda args: None)
    ref = tmp_path / "ref.txt"
    ref.write_text("u1 a b\n")
    argv = ["compare", "--ref-file", str(ref), "--system", f"A={ref}", "--system", f"B={ref}"]
    assert sitar.cli.main([*argv, "--format", "kaldi", "--json-out", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True}
    assert sitar.cli.main([*argv, "--format", "kaldi", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"ok": True} and "--json is deprecated" in err
    assert sitar.cli.main([*argv, "--format", "kaldi", "--json-out", str(tmp_path / "c.json")]) == 0
    out, err = capsys.readouterr()
    assert out == "TABLE\n" and err == ""  # the transition notice of the kaldi default is gone
    assert json.loads((tmp_path / "c.json").read_text()) == {"ok": True}
