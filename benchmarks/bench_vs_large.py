"""Throughput of a SITAR checkpoint against a DeBERTa-v3-large cross-encoder of the paper's shape.

    python -m benchmarks vs-large --data records.jsonl [--checkpoint CKPT] [--n 256] \
        [--rounds 3] [--threads 2] [--large-dir FOLDER] [--json out.json]

The paper's scorer is a DeBERTa-v3-large cross-encoder with a pair head, exported to ONNX and
quantized to dynamic int8 (what ``python -m training.export`` does for a pair-head model). Its
pretrained weights cannot be downloaded here, and speed does not depend on weight values, so this
script builds a model of exactly that shape with **random weights** (the public
``microsoft/deberta-v3-large`` configuration: 24 layers, hidden size 1024, 16 heads, FFN 4096,
relative attention with 256 position buckets, shared attention keys, ``p2c``/``c2p``), exports it
with this package's own exporter (fp32 parity check against torch, then dynamic int8), and times it
through the same :class:`~sitar.scorer.Scorer` as the checkpoint under test. The large model uses the
checkpoint's tokenizer with the embedding table resized to it (the real model's 128k-entry
SentencePiece table only changes an embedding lookup, not the work per token; English words
tokenize to about the same number of pieces). Building needs torch and transformers and takes a few
minutes; ``--large-dir`` keeps the built folder for later runs.

Both scorers score the same ``--n`` seeded pairs of the record file ``--data``, taking turns for
``--rounds`` rounds after a warm-up; the report gives pairs/s per round, their medians and the median of the per-round ratios. Issue #11 asks for at
least 50x. This is a benchmark, not a test; machines here are noisy, so compare ratios from one
run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.harness import built_folder, same_run_report, take_turns
from benchmarks.pairs import sample_pairs
from sitar._main import ArgumentParser, tool_main

#: ``microsoft/deberta-v3-large``'s public ``config.json`` (architecture fields; the vocabulary
#: size is set from the tokenizer used).
DEBERTA_V3_LARGE: dict[str, Any] = {
    "hidden_size": 1024,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "intermediate_size": 4096,
    "hidden_act": "gelu",
    "max_position_embeddings": 512,
    "relative_attention": True,
    "position_buckets": 256,
    "norm_rel_ebd": "layer_norm",
    "share_att_key": True,
    "pos_att_type": ["p2c", "c2p"],
    "position_biased_input": False,
    "max_relative_positions": -1,
    "type_vocab_size": 0,
    "layer_norm_eps": 1e-7,
    "pad_token_id": 0,
}
LARGE_NAME = "deberta-v3-large-shape-random"


def build_large(folder: Path, tokenizer_file: Path, refs: list[str], hyps: list[str]) -> Path:
    """Write a DeBERTa-v3-large-shaped pair-head checkpoint with random weights into ``folder``
    (dynamic int8 graph, as the first-wave export made for pair-head models)."""
    import torch
    from tokenizers import Tokenizer
    from transformers import DebertaV2Config

    from sitar.modeling import HeadConfig, build_regressor
    from sitar.modeling.export import export_checkpoint

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    config = DebertaV2Config(vocab_size=tokenizer.get_vocab_size(), **DEBERTA_V3_LARGE)
    torch.manual_seed(0)
    model = build_regressor(config, HeadConfig(pooling="cls")).eval()
    export_checkpoint(
        model,
        tokenizer,
        folder,
        name=LARGE_NAME,
        backbone="random weights in the shape of microsoft/deberta-v3-large (speed only)",
        max_length=512,
        references=refs[:4],
        hypotheses=hyps[:4],
        variants=("int8",),
        default_variant="int8",
        include_torch=False,
        overwrite=True,
    )
    return folder


@tool_main("python -m benchmarks vs-large")
def main(argv: list[str] | None = None) -> int:
    from sitar.checkpoint import CheckpointConfig, default_checkpoint_path
    from sitar.scorer import Scorer

    p = ArgumentParser(prog="python -m benchmarks vs-large", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="record file (JSONL) to sample pairs from")
    p.add_argument("--checkpoint", help="checkpoint under test (default: the packaged one)")
    p.add_argument("--variant", help="its ONNX variant (default: the checkpoint's default)")
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--large-dir", help="folder for the built large checkpoint (kept; reused)")
    p.add_argument("--json", help="write the report here")
    args = p.parse_args(argv)

    refs, hyps = sample_pairs(args.data, args.n, args.seed)
    ckpt = Path(args.checkpoint) if args.checkpoint else default_checkpoint_path()
    tokenizer_file = CheckpointConfig.load(ckpt).tokenizer_path
    large, tmp = built_folder(
        args.large_dir, LARGE_NAME, lambda f: build_large(f, tokenizer_file, refs, hyps)
    )
    kw = {"variant": args.variant} if args.variant else {}
    systems = {
        "checkpoint": Scorer.load(ckpt, threads=args.threads, **kw),
        "large": Scorer.load(large, threads=args.threads),
    }
    runs = take_turns(systems, refs, hyps, rounds=args.rounds, batch_size=args.batch_size)
    same_run_report(
        refs,
        runs,
        args,
        other="large",
        label="large",
        benchmark="vs-large",
        extra={
            "large_model": {
                "config": DEBERTA_V3_LARGE,
                "weights": "random (seed 0)",
                "int8": "dynamic",
            }
        },
    )
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
