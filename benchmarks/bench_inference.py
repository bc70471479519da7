"""Inference throughput of one SITAR checkpoint: torch fp32 vs ONNX fp32 vs ONNX int8.

    python -m benchmarks inference --checkpoint CKPT [--n 256] [--threads 2] \
        [--batch-size 16] [--data records.jsonl] [--json out.json]

All three backends score the same pairs with the same thread budget (torch intra-op threads and
ONNX Runtime ``intra_op_num_threads``). Pairs come from a record file (``--data``) or are generated
(sentences of 8-40 words with a few substituted words, a realistic ASR utterance length). Reports
pairs/s per backend (median of ``--repeats`` timed passes after one warm-up pass), the speed ratios,
and the int8 drift against fp32 (max/mean abs diff of the raw score, Spearman). The target is int8
at least 1.3x fp32 ONNX with Spearman >= 0.995 against fp32.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.harness import timed, write_result
from benchmarks.pairs import inference_pairs
from sitar._main import ArgumentParser, tool_main


def _time(fn: Any, repeats: int) -> tuple[float, np.ndarray]:
    out = fn()  # warm-up
    times = []
    for _ in range(repeats):
        t = timed(fn)
        out = t.value
        times.append(t.wall)
    return statistics.median(times), np.asarray(out, dtype=np.float64)


def _onnx_predict(folder: Path, variant: str, threads: int) -> Any:
    """``predict_raw(refs, hyps, batch_size)`` through sitar.runtime, or bare ONNX Runtime."""
    from sitar.checkpoint import CheckpointConfig

    config = CheckpointConfig.load(folder)
    try:
        from sitar.runtime import OnnxPredictor
    except ImportError:
        OnnxPredictor = None  # the inference helper's module is not there yet
    if OnnxPredictor is not None:
        return OnnxPredictor(config, variant=variant, threads=threads).predict_raw
    import onnxruntime as ort

    from sitar.modeling import PairEncoder, load_tokenizer

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(config.onnx_path(variant)), options)
    encoder = PairEncoder(load_tokenizer(config.tokenizer_path), max_length=config.max_length)

    def predict(refs: list[str], hyps: list[str], batch_size: int) -> np.ndarray:
        items = encoder.encode(references=refs, hypotheses=hyps)
        order = sorted(range(len(items)), key=lambda i: len(items[i][0]))
        out = np.zeros(len(items))
        for s in range(0, len(order), batch_size):
            idx = order[s : s + batch_size]
            feed = encoder.collate([items[i] for i in idx], config.onnx.inputs)
            out[idx] = session.run(["score"], feed)[0]
        return out

    return predict


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from sitar.checkpoint import CheckpointConfig
    from sitar.modeling import PairEncoder, TorchPredictor, load_tokenizer

    folder = Path(args.checkpoint)
    config = CheckpointConfig.load(folder)
    refs, hyps = inference_pairs(args.n, args.seed, args.data)
    encoder = PairEncoder(load_tokenizer(config.tokenizer_path), max_length=config.max_length)
    lengths = [len(e) for e in encoder.encode(refs, hyps)]
    torch.set_num_threads(args.threads)
    results: dict[str, Any] = {
        "checkpoint": str(folder),
        "name": config.name,
        "backbone": config.backbone,
        "n_pairs": len(refs),
        "tokens_mean": float(np.mean(lengths)),
        "tokens_max": int(max(lengths)),
        "threads": args.threads,
        "batch_size": args.batch_size,
        "onnxruntime": __import__("onnxruntime").__version__,
        "torch": torch.__version__,
    }
    preds: dict[str, np.ndarray] = {}
    backends: dict[str, Any] = {}
    if (folder / "torch").is_dir():
        backends["torch_fp32"] = TorchPredictor(folder, device="cpu").predict_raw
    for variant in config.onnx.available:
        backends[f"onnx_{variant}"] = _onnx_predict(folder, variant, args.threads)
    for name, predict in backends.items():
        seconds, preds[name] = _time(
            lambda p=predict: p(refs, hyps, batch_size=args.batch_size), args.repeats
        )
        results[f"{name}_pairs_per_s"] = len(refs) / seconds
    if "onnx_fp32" in preds and "onnx_int8" in preds:
        from scipy.stats import spearmanr

        results["int8_over_fp32"] = (
            results["onnx_int8_pairs_per_s"] / results["onnx_fp32_pairs_per_s"]
        )
        diff = np.abs(preds["onnx_int8"] - preds["onnx_fp32"])
        results["int8_max_abs_diff"] = float(diff.max())
        results["int8_mean_abs_diff"] = float(diff.mean())
        results["int8_spearman_vs_fp32"] = float(
            spearmanr(preds["onnx_int8"], preds["onnx_fp32"])[0]
        )
        results["meets_target"] = bool(
            results["int8_over_fp32"] >= 1.3 and results["int8_spearman_vs_fp32"] >= 0.995
        )
    if "torch_fp32" in preds and "onnx_fp32" in preds:
        results["onnx_fp32_over_torch"] = (
            results["onnx_fp32_pairs_per_s"] / results["torch_fp32_pairs_per_s"]
        )
        results["torch_vs_onnx_fp32_max_abs_diff"] = float(
            np.max(np.abs(preds["torch_fp32"] - preds["onnx_fp32"]))
        )
    return results


@tool_main("python -m benchmarks inference")
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m benchmarks inference", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--checkpoint", required=True, help="SITAR checkpoint folder")
    parser.add_argument("--n", type=int, default=256, help="number of pairs")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads per backend")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3, help="timed passes (median)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", help="sitar.record/1 JSONL file to take pairs from")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    results = run(args)
    for key, value in results.items():
        print(f"{key:32s} {value:.4g}" if isinstance(value, float) else f"{key:32s} {value}")
    write_result(args.json, "inference", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
