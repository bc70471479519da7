"""The README's examples run and print what the README shows (benchmarks/readme_examples.py).

Console blocks run through bash with this checkout's ``sitar``; their printed output must match
(numbers to ±0.01, since int8 scores are CPU-dependent). Python blocks run, except those marked
``<!-- readme-test: skip (reason) -->``. After a new checkpoint ships, refresh the printed output
with ``python benchmarks/readme_examples.py --update``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location(
        "readme_examples", REPO / "benchmarks" / "readme_examples.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["readme_examples"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_readme_examples_run_and_match(capsys):
    code = _script().main(["--check"])
    out = capsys.readouterr().out
    assert code == 0, out
    # the check really ran the blocks that show output: console commands and python examples
    assert out.count("ok      README.md") >= 8, out


def test_readme_check_detects_a_wrong_figure(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(
        "```console\n$ sitar gaps --ref 'do not send it' --hyp 'do send it'\nid 1: 2 gaps\n```\n"
    )
    script = _script()
    assert script.main(["--check", "--readme", str(readme)]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert script.main(["--update", "--readme", str(readme)]) == 0
    assert "id 1: 1 gap\n" in readme.read_text()
    assert script.main(["--check", "--readme", str(readme)]) == 0
