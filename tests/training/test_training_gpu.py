"""The training loop on a CUDA GPU: the same run, resume and export as on the CPU, in fp32 and bf16.

Skipped where torch sees no GPU (CI and the development machines); run on a GPU machine with
``python -m pytest tests/training/test_training_gpu.py``. What it checks is that a config with
``cpu: false`` trains on the GPU through ``accelerate``, records the device and precision, resumes
after a crash to the same losses and weights (within the GPU's arithmetic), and exports a
checkpoint whose ONNX graph agrees with its torch weights on the CPU.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from training.loop import train  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

# The tolerance of a resumed run against an uninterrupted one: fp32 kernels on the GPU may pick
# other reduction orders between processes; bf16 rounds every matmul to 8 mantissa bits.
TOL = {"fp32": 1e-4, "bf16": 2e-2}


@pytest.mark.parametrize(("precision", "recorded"), [("fp32", "no"), ("bf16", "bf16")])
def test_a_run_on_the_gpu_records_its_device_and_precision(make_config, precision, recorded):
    result = train(make_config(f"gpu-{precision}", cpu=False, precision=precision))
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary["device"] == "cuda" and summary["device_name"] == torch.cuda.get_device_name(0)
    assert summary["precision"] == recorded and summary["num_processes"] == 1
    assert result.steps == 6 and np.isfinite(result.losses).all()
    assert all(np.isfinite(v) for v in result.last_eval.values() if isinstance(v, float))


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_crash_and_resume_on_the_gpu(make_config, precision):
    settings = dict(max_steps=5, grad_accum_steps=2, dropout=0.1, cpu=False, precision=precision)
    full = train(make_config(f"full-{precision}", **settings))
    crashed = train(make_config(f"crash-{precision}", **settings), stop_after_steps=3)
    resumed = train(make_config(f"crash-{precision}", **settings), resume=True)
    assert resumed.steps == 5
    assert np.allclose(full.losses[2:], resumed.losses, rtol=0, atol=TOL[precision])
    from safetensors.torch import load_file

    a = load_file(full.run_dir / "best" / "torch" / "model.safetensors")
    b = load_file(crashed.run_dir / "best" / "torch" / "model.safetensors")
    assert a.keys() == b.keys()
    assert max((a[k].float() - b[k].float()).abs().max().item() for k in a) <= TOL[precision]


def test_a_gpu_run_exports_a_checkpoint_that_scores_on_the_cpu(make_config, tmp_path):
    from sitar import Scorer
    from training.export import export_run

    result = train(make_config("gpu-export", cpu=False, precision="bf16"))
    ckpt = export_run(result.run_dir, tmp_path / "ckpt", name="tiny-gpu", parity_n=8)
    parity = json.loads((ckpt.folder / "parity.json").read_text())
    assert parity["fp32"]["passed"]  # the ONNX graph against the torch weights, on the CPU
    result = Scorer.load(str(ckpt.folder)).score(
        references=["please call the doctor"], hypotheses=["please call the office"]
    )
    assert len(result.scores) == 1 and 0.0 <= result.scores[0] <= 1.0
