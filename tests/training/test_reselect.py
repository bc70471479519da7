"""experiments/_pipeline/reselect.py: the step a finished run would select with one of its
validation files swapped, on a tiny gap-head run that keeps its evaluation weights."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from training.loop import train

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "_pipeline" / "reselect.py"


@pytest.fixture(scope="module")
def reselect():
    spec = importlib.util.spec_from_file_location("reselect", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


@pytest.fixture
def run(make_config):
    return train(make_config("rs", gap_head=True, keep_eval_weights=True)).run_dir


def _validation_subset(src: Path, dst: Path, keep: int) -> None:
    """``src`` with only its first ``keep`` validation records (train and test kept)."""
    lines, seen = [], 0
    for line in src.read_text(encoding="utf-8").splitlines():
        if json.loads(line)["split"] == "validation":
            seen += 1
            if seen > keep:
                continue
        lines.append(line)
    dst.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_an_identical_file_reproduces_the_run_and_another_changes_the_figures(
    run, reselect, records_file, tmp_path
):
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(records_file.read_bytes())
    out = tmp_path / "same.json"
    assert reselect([str(run), "--replace", f"{records_file}={copy}", "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["logged"]["by_step"] == report["swapped"]["by_step"]
    assert report["same_step"] and report["swapped"]["n"] == 16
    assert set(report["logged"]["by_step"]) == {"2", "4", "6"}

    fewer = tmp_path / "fewer.jsonl"
    _validation_subset(records_file, fewer, keep=10)
    out = tmp_path / "fewer.json"
    assert reselect([str(run), "--replace", f"{records_file}={fewer}", "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["swapped"]["n"] == 10
    assert report["swapped"]["by_step"] != report["logged"]["by_step"]
    assert report["replaced"] == {"old": str(records_file), "new": str(fewer)}


def test_bad_arguments_exit_with_a_message(run, reselect, records_file, tmp_path, capsys):
    other = tmp_path / "other.jsonl"
    other.write_bytes(records_file.read_bytes())
    cases = [
        [str(run), "--replace", f"{other}={records_file}"],  # OLD is not one of the run's files
        [str(run), "--replace", f"{records_file}={tmp_path / 'missing.jsonl'}"],
        [str(run), "--replace", str(records_file)],  # no '='
        [str(tmp_path), "--replace", f"{records_file}={other}"],  # not a run
    ]
    for argv in cases:
        assert reselect(argv) == 2, argv
        assert "error" in capsys.readouterr().err.lower()
