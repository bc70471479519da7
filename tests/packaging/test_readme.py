"""The README's examples run and print what the README shows (tests/packaging/readme_examples.py).

Console blocks run through bash with this checkout's ``sitar``; their printed output must match
(numbers to ±0.01, since int8 scores are CPU-dependent). Python blocks run, except those marked
``<!-- readme-test: skip (reason) -->``. After a new checkpoint ships, refresh the printed output
with ``PYTHONPATH=. python tests/packaging/readme_examples.py --update``.
"""

from __future__ import annotations

import readme_examples


def _script():
    return readme_examples


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
