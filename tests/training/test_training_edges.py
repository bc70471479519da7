"""Training run edges of issue #30: a run killed before its first checkpoint restarts without
``rm``, ``--resume`` on a finished run changes nothing, YAML is loaded with alias and size limits,
and an output_dir that cannot be written is one clean error."""

from __future__ import annotations

import json
import time

import pytest

from sitar.errors import InputError, OutputError
from training.config import load_config
from training.loop import train


def test_run_killed_before_its_first_checkpoint_restarts(make_config):
    # eval_every=4: one step, then "killed" (no checkpoint was written yet).
    killed = train(make_config("k", max_steps=4, eval_every=4), stop_after_steps=1)
    run = killed.run_dir
    assert (run / "config.yaml").is_file()
    assert not (run / "checkpoints" / "last").exists()
    result = train(make_config("k", max_steps=2, eval_every=2))  # no --resume, no rm
    assert result.steps == 2 and (run / "checkpoints" / "last").is_dir()
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [x["train"]["step"] for x in lines if "train" in x] == [1, 2]  # no stale log lines


def test_resume_of_a_run_without_checkpoint_starts_it_over(make_config):
    train(make_config("k2", max_steps=4, eval_every=4), stop_after_steps=1)
    result = train(make_config("k2", max_steps=2, eval_every=2), resume=True)
    assert result.steps == 2


def test_resume_on_a_finished_run_is_a_no_op(make_config):
    config = make_config("done", max_steps=2, eval_every=2)
    first = train(config)
    summary = first.run_dir / "summary.json"
    before = summary.read_bytes()
    metrics = (first.run_dir / "metrics.jsonl").read_bytes()
    start = time.monotonic()
    again = train(config, resume=True)
    assert time.monotonic() - start < 5.0  # nothing is trained or evaluated again
    assert summary.read_bytes() == before
    assert (first.run_dir / "metrics.jsonl").read_bytes() == metrics
    assert again.steps == first.steps and again.best_step == first.best_step
    assert again.last_eval == pytest.approx(first.last_eval)


def test_yaml_alias_bomb_fails_fast(tmp_path):
    lines = ["extra:", '  a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 12):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"  a{i}: &a{i} [{refs}]")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    start = time.monotonic()
    with pytest.raises(InputError, match="alias"):
        load_config(path)
    assert time.monotonic() - start < 2.0


def test_huge_or_deep_yaml_is_refused(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("notes: '" + "x" * (2 * 1024 * 1024) + "'\n")
    with pytest.raises(InputError, match="larger than"):
        load_config(big)
    deep = tmp_path / "deep.yaml"
    deep.write_text("extra: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(InputError, match="nest"):
        load_config(deep)
    with pytest.raises(InputError, match="alias|nest"):
        load_config(None, ["extra=" + "[" * 5000 + "]" * 5000])


def test_a_few_aliases_still_load(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("extra:\n  base: &b {x: 1}\n  copy: *b\n")
    assert load_config(path).extra == {"base": {"x": 1}, "copy": {"x": 1}}


def test_unwritable_output_dir_is_one_clean_error(make_config, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    config = make_config(output_dir=str(blocker / "run"))
    start = time.monotonic()
    with pytest.raises(OutputError, match="output_dir"):
        train(config)
    assert time.monotonic() - start < 5.0  # found before any data or model is loaded
    from training.__main__ import main

    code = main(["--set", f"output_dir={blocker / 'run'}", "--set", "backbone=none", "--quiet"])
    assert code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_read_only_output_dir(make_config, tmp_path, monkeypatch):
    import os

    run = tmp_path / "ro"
    run.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode, **kw: False if str(p) == str(run) else real_access(p, mode)
    )
    with pytest.raises(OutputError, match="read-only|not writable"):
        train(make_config("ro"))
