"""The accelerate training loop on a tiny DeBERTa-v3: run layout, crash + resume reproducing an
uninterrupted run, resume safety checks, export of a run, and the command lines."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from sitar.checkpoint import CheckpointConfig
from sitar.errors import CheckpointError, InputError
from sitar.modeling import TorchPredictor, load_regressor
from training.loop import train


def _weights(run_dir):
    model = load_regressor(run_dir / "best")
    return {k: v.clone() for k, v in model.state_dict().items()}


def _last_state(run_dir):
    return json.loads((run_dir / "checkpoints" / "last" / "trainer_state.json").read_text())


def test_run_layout_and_logs(make_config):
    config = make_config()
    result = train(config)
    run = result.run_dir
    assert result.steps == 6 and result.best_step in (2, 4, 6)
    for name in ("config.yaml", "tokenizer.json", "data.json", "metrics.jsonl", "summary.json"):
        assert (run / name).is_file(), name
    assert (run / "best" / "torch" / "model.safetensors").is_file()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["training_config_hash"] == config.hash() and summary["precision"] == "no"
    assert summary["device"] == "cpu" and summary["device_name"] is None
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [x["eval"]["step"] for x in lines if "eval" in x] == [2, 4, 6]
    assert [x["train"]["step"] for x in lines if "train" in x] == [1, 2, 3, 4, 5, 6]
    state = _last_state(run)
    # 48 pairs / batch 8 = 6 batches: the data position is the end of epoch 0.
    assert state["step"] == 6 and (state["epoch"], state["batch_in_epoch"]) == (0, 6)
    data = json.loads((run / "data.json").read_text())
    assert data["train"]["n"] == 48 and data["validation"]["n"] == 16
    with pytest.raises(InputError, match="already holds a run"):
        train(config)


def test_crash_and_resume_reproduce_an_uninterrupted_run(make_config):
    # 48 train pairs / batch 8 = 6 batches per epoch; grad accumulation 2 -> 3 steps per epoch,
    # so 5 steps cross an epoch boundary. Checkpoints at steps 2 and 4.
    settings = dict(max_steps=5, grad_accum_steps=2, dropout=0.1)
    full = train(make_config("full", **settings))
    crashed = train(make_config("crash", **settings), stop_after_steps=3)
    assert crashed.steps == 3 and _last_state(crashed.run_dir)["step"] == 2
    resumed = train(make_config("crash", **settings), resume=True)
    assert resumed.steps == 5
    # The resumed run redoes step 3 from the step-2 checkpoint: identical losses and weights.
    assert np.allclose(full.losses[2:], resumed.losses, rtol=0, atol=1e-6)
    assert crashed.losses[2] == pytest.approx(full.losses[2], abs=1e-6)
    a, b = _weights(full.run_dir), _weights(crashed.run_dir)
    assert a.keys() == b.keys() and all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)
    assert full.last_eval == pytest.approx(resumed.last_eval, abs=1e-6)
    # The log has no duplicated steps after the resume.
    steps = [
        json.loads(x).get("train", {}).get("step")
        for x in (crashed.run_dir / "metrics.jsonl").read_text().splitlines()
    ]
    steps = [s for s in steps if s is not None]
    assert steps == sorted(set(steps)) == [1, 2, 3, 4, 5]


def test_resume_refuses_changed_settings_and_missing_state(make_config):
    with pytest.raises(InputError, match="nothing to resume"):
        train(make_config("r"), resume=True)
    train(make_config("r", max_steps=2))
    with pytest.raises(InputError, match="learning_rate"):
        train(make_config("r", max_steps=4, learning_rate=1e-4), resume=True)
    result = train(make_config("r", max_steps=4), resume=True)  # max_steps may change
    assert result.steps == 4


def test_early_stopping(make_config):
    # A zero learning rate never improves the metric: stop after `patience` evaluations.
    config = make_config(
        "es", learning_rate=0.0, head_learning_rate=0.0, max_steps=20, eval_every=1, patience=2
    )
    result = train(config)
    assert result.stopped_early and result.steps == 3 and result.best_step == 1


def test_init_from_a_saved_regressor(make_config):
    first = train(make_config("first")).run_dir
    saved = _weights(first)
    # With zero learning rates the second run's weights stay where they started: the first run's.
    config = make_config(
        "second", init_from=str(first / "best"), learning_rate=0.0, head_learning_rate=0.0,
        max_steps=2, dropout=0.2,
    )  # fmt: skip
    second = train(config).run_dir
    got = _weights(second)
    assert got.keys() == saved.keys()
    assert all(torch.equal(got[k], saved[k]) for k in saved)
    assert load_regressor(second / "best").head_config.dropout == 0.2
    # Without init_from the same settings start from the bare backbone: other head weights.
    fresh = _weights(train(make_config("fresh", learning_rate=0.0, head_learning_rate=0.0,
                                       max_steps=2)).run_dir)  # fmt: skip
    assert not torch.equal(fresh["regression.weight"], saved["regression.weight"])


def test_init_from_backbone_only_with_new_pooling(make_config):
    first = train(make_config("first")).run_dir
    saved = _weights(first)
    config = make_config(
        "second", init_from=str(first / "best"), init_from_heads=False, pooling="mean_max",
        learning_rate=0.0, head_learning_rate=0.0, max_steps=2,
    )  # fmt: skip
    second = train(config).run_dir
    got = _weights(second)
    backbone = [k for k in saved if k.startswith("backbone.")]
    assert backbone and all(torch.equal(got[k], saved[k]) for k in backbone)
    assert got["regression.weight"].shape[1] == 2 * saved["regression.weight"].shape[1]
    assert load_regressor(second / "best").head_config.pooling == "mean_max"


def test_init_from_refuses_other_pooling_and_missing_weights(make_config, tmp_path):
    first = train(make_config("first")).run_dir
    with pytest.raises(InputError, match="pooling 'mean'.*'cls'"):
        train(make_config("cls", init_from=str(first / "best"), pooling="cls"))
    with pytest.raises(CheckpointError, match="no torch weights"):
        train(make_config("missing", init_from=str(tmp_path / "nowhere")))


def test_export_run_and_predict(make_config, tmp_path):
    from training.export import export_run

    result = train(make_config("ex"))
    ckpt = export_run(result.run_dir, tmp_path / "ckpt", name="tiny-run", parity_n=8)
    loaded = CheckpointConfig.load(ckpt.folder)
    assert loaded.name == "tiny-run" and loaded.training_config_hash.startswith("sha256:")
    assert loaded.training["config"]["lambda_ordinal"] == 0.5
    assert loaded.training["best_validation"]["step"] == result.best_step
    assert set(loaded.training["record_signatures"]) == {"train", "validation", "test"}
    assert loaded.loss_weights == {"boundary": 1.0, "ordinal": 0.5}
    parity = json.loads((ckpt.folder / "parity.json").read_text())
    assert parity["n_pairs"] == 8 and parity["fp32"]["passed"]
    # The exported tokenizer is byte-identical to the one the run trained with.
    assert (ckpt.folder / "tokenizer.json").read_bytes() == (
        result.run_dir / "tokenizer.json"
    ).read_bytes()
    preds = TorchPredictor(ckpt.folder, device="cpu").predict_raw(
        ["please call the doctor"], ["please call the office"], batch_size=1
    )
    assert preds.shape == (1,) and np.isfinite(preds).all()


def test_keep_eval_weights_and_export_a_chosen_step(make_config, tmp_path):
    from training.export import export_run

    result = train(make_config("steps", keep_eval_weights=True))
    run = result.run_dir
    kept = sorted(p.name for p in (run / "evals").iterdir())
    assert kept == ["step-2", "step-4", "step-6"]
    assert json.loads((run / "evals" / "step-4" / "eval.json").read_text())["step"] == 4
    # Step 2's weights differ from the last step's; exporting step 2 ships step 2's weights.
    step2 = load_regressor(run / "evals" / "step-2").state_dict()
    step6 = load_regressor(run / "evals" / "step-6").state_dict()
    assert not torch.equal(step2["regression.weight"], step6["regression.weight"])
    ckpt = export_run(run, tmp_path / "ckpt", parity_n=4, step=2, variants=("fp32",))
    exported = load_regressor(ckpt.folder).state_dict()
    assert all(torch.equal(exported[k], step2[k]) for k in step2)
    chosen = CheckpointConfig.load(ckpt.folder).training
    assert chosen["best_validation"]["step"] == 2
    assert chosen["selected_weights"]["step"] == 2
    assert chosen["selected_weights"]["sha256"].startswith("sha256:")
    with pytest.raises(InputError, match="kept no weights for step 3"):
        export_run(run, tmp_path / "c3", step=3)
    with pytest.raises(InputError, match="needs the step"):
        export_run(run, tmp_path / "c4", weights=run / "evals" / "step-2" / "model.safetensors")
    # Without keep_eval_weights nothing is kept.
    plain = train(make_config("plain")).run_dir
    assert not (plain / "evals").exists()


def test_command_lines(make_config, tmp_path, capsys):
    from training.__main__ import main as train_main
    from training.export import main as export_main

    config = make_config("cli", max_steps=2)
    path = config.save(tmp_path / "cfg")
    assert train_main(["--config", str(path), "--quiet"]) == 0
    assert "2 steps" in capsys.readouterr().out
    assert train_main(["--config", str(path), "--set", "precision=fp16"]) == 2
    assert "fp16" in capsys.readouterr().err
    out = tmp_path / "ckpt"
    assert export_main(["--run", config.output_dir, "--out", str(out), "--variants", "fp32"]) == 0
    assert (out / "model.onnx").is_file() and not (out / "model.int8.onnx").exists()
    assert export_main(["--run", str(tmp_path / "nope"), "--out", str(tmp_path / "x")]) == 2


@pytest.mark.slow  # two gloo processes on CPU; about a minute on 2 shared cores
def test_two_processes_with_torchrun(make_config, tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    config = make_config("ddp", max_steps=4, grad_accum_steps=2, batch_size=4)
    path = config.save(tmp_path / "cfg")
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2"]
    cmd += ["-m", "training", "--config", str(path), "--quiet"]
    subprocess.run(cmd, env=env, check=True, timeout=600, capture_output=True)
    run = Path(config.output_dir)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["num_processes"] == 2 and summary["steps"] == 4
    last = run / "checkpoints" / "last"
    assert (last / "random_states_0.pkl").is_file() and (last / "random_states_1.pkl").is_file()


def test_a_failed_state_save_keeps_the_last_state_and_says_why(make_config, monkeypatch):
    """A full disk during ``save_state`` (torch reports it as a RuntimeError) is a one-line
    OutputError; the partial folder is removed, the previous resume state is kept, and the run
    continues from it with --resume once the disk has room."""
    from pathlib import Path

    from accelerate import Accelerator

    from sitar.errors import OutputError

    original = Accelerator.save_state
    calls = []

    def full_disk_on_second_save(self, output_dir=None, **kwargs):
        calls.append(output_dir)
        if len(calls) == 2:
            Path(output_dir).mkdir(parents=True, exist_ok=True)
            (Path(output_dir) / "optimizer.bin").write_bytes(b"partial")
            raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 5 vs 3")
        return original(self, output_dir, **kwargs)

    monkeypatch.setattr(Accelerator, "save_state", full_disk_on_second_save)
    config = make_config("full-disk")
    with pytest.raises(OutputError, match=r"resume state of step 4 .*unexpected pos.*MiB free"):
        train(config)
    run_dir = Path(config.output_dir)
    assert _last_state(run_dir)["step"] == 2
    assert not (run_dir / "checkpoints" / ".last.tmp").exists()
    monkeypatch.setattr(Accelerator, "save_state", original)
    resumed = train(make_config("full-disk"), resume=True)
    assert resumed.steps == 6 and _last_state(run_dir)["step"] == 6
