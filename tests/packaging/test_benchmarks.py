"""The benchmark harness: ``python -m benchmarks NAME`` runs every benchmark, results share one
schema with provenance, and nothing in tests/ or benchmarks/ edits ``sys.path``."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.__main__ import BENCHMARKS
from benchmarks.__main__ import main as benchmarks_main
from benchmarks.harness import RESULT_SCHEMA, result, timed, write_result

ROOT = Path(__file__).resolve().parents[2]


def test_every_benchmark_script_is_registered():
    # every script with a main: bench_*.py, the other top-level tools and the severity package's
    scripts = {p.stem for p in (ROOT / "benchmarks").glob("*.py") if "def main(" in p.read_text()}
    scripts |= {
        f"severity.{p.stem}"
        for p in (ROOT / "benchmarks" / "severity").glob("*.py")
        if "def main(" in p.read_text()
    }
    scripts.discard("__main__")
    assert scripts == {module for module, _ in BENCHMARKS.values()}


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_benchmark_starts(name, capsys):
    module = importlib.import_module(f"benchmarks.{BENCHMARKS[name][0]}")
    assert callable(module.main)
    with pytest.raises(SystemExit) as info:
        benchmarks_main([name, "--help"])
    assert info.value.code == 0
    assert f"python -m benchmarks {name}" in capsys.readouterr().out


def test_listing_and_unknown_names(capsys):
    assert benchmarks_main([]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in BENCHMARKS)
    assert benchmarks_main(["no-such-bench"]) == 2
    assert "unknown benchmark 'no-such-bench'" in capsys.readouterr().err


def test_the_command_line_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks", "cgd", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: python -m benchmarks cgd")


def test_result_schema_and_provenance(tmp_path):
    path = tmp_path / "r.json"
    written = write_result(path, "cgd", {"rows": [1, 2]})
    assert json.loads(path.read_text()) == written
    assert written["schema"] == RESULT_SCHEMA and written["benchmark"] == "cgd"
    assert written["rows"] == [1, 2]
    prov = written["provenance"]
    assert prov["argv"] and prov["python"] and "numpy" in prov["versions"]
    assert write_result(None, "cgd", {})["benchmark"] == "cgd"  # nothing written, still returned
    with pytest.raises(ValueError, match="provenance"):
        result("cgd", {"provenance": {}})


def test_timer():
    t = timed(sum, [1, 2, 3])
    assert t.value == 6 and t.wall >= 0.0 and t.cpu >= 0.0


def test_a_tiny_cgd_run_writes_its_result(tmp_path, capsys):
    from benchmarks import bench_cgd

    out = tmp_path / "cgd.json"
    argv = [
        "--n",
        "2",
        "--words",
        "12",
        "--repeat",
        "1",
        "--old-max-words",
        "0",
        "--json",
        str(out),
    ]
    assert bench_cgd.main(argv) == 0
    data = json.loads(out.read_text())
    assert data["benchmark"] == "cgd" and data["mode"] == "short"
    (row,) = data["rows"]
    assert row["words"] == 12 and row["pairs"] == 2 and set(row["best_seconds"]) >= {"new", "jiwer"}


def test_no_sys_path_bridges():
    pattern = re.compile(r"sys\.path\s*(\.|\[|=|\+=)")
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for folder in ("tests", "benchmarks")
        for p in sorted((ROOT / folder).rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line) and p.name != Path(__file__).name
    ]
    assert not found, found
