"""Throughput of a gap-head checkpoint against the same design on a larger encoder, in one run.

    python -m benchmarks encoder-size --data records.jsonl [--checkpoint CKPT] [--n 512] \
        [--rounds 3] [--threads 2] [--layers 12 --hidden 768 --heads 12 --ffn 3072] \
        [--shape-dir FOLDER] [--json out.json]

What would a stronger encoder cost at scoring time? This builds a checkpoint of exactly the
checkpoint's design -- its tokenizer with the gap markers, its head configuration (gap head and
pair head), the row-wise int8 graph (``int8row``) -- on a BERT-style encoder of the given shape
with **random weights** (speed does not depend on weight values; the default shape is BERT-base's,
that of the ``all-mpnet-base-v2`` family), exports it with this package's exporter (fp32 parity
against torch, then int8row), and times both through :class:`~sitar.scorer.Scorer` on the same
``--n`` seeded pairs of ``--data``, taking turns for ``--rounds`` rounds after a warm-up. Issue #11
sets the floor at the first wave's int8 scorer (about 100 pairs/s for pairs of about 22 words).
Building needs torch and transformers; ``--shape-dir`` keeps the built folder for later runs.
Machines here are noisy: compare ratios from one run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.harness import built_folder, same_run_report, take_turns
from benchmarks.pairs import sample_pairs
from sitar._main import ArgumentParser, tool_main


def build_shape(
    folder: Path, checkpoint: Path, shape: dict[str, int], refs: list[str], hyps: list[str]
) -> Path:
    """Write a random-weight gap-head checkpoint of ``checkpoint``'s design on a BERT encoder of
    ``shape`` (``num_hidden_layers``, ``hidden_size``, ``num_attention_heads``,
    ``intermediate_size``) into ``folder``."""
    import torch
    from transformers import BertConfig, BertModel

    from sitar.checkpoint import CheckpointConfig
    from sitar.errors import InputError
    from sitar.modeling import HeadConfig, load_tokenizer
    from sitar.modeling.export import export_checkpoint
    from sitar.modeling.model import SitarRegressor

    config = CheckpointConfig.load(checkpoint)
    head = HeadConfig.from_dict(config.extra.get("head", {}))
    if not head.gap_head:
        raise InputError(f"{checkpoint} has no gap head; this benchmark builds gap-head models")
    tokenizer = load_tokenizer(config.tokenizer_path)
    bert = BertConfig(
        vocab_size=tokenizer.get_vocab_size(),
        max_position_embeddings=512,
        hidden_act="gelu",
        **shape,
    )
    torch.manual_seed(0)
    model = SitarRegressor(BertModel(bert), head).eval()
    export_checkpoint(
        model,
        tokenizer,
        folder,
        name="bert-shape-random-gap",
        backbone=f"random weights, BERT encoder of shape {shape} (speed only)",
        max_length=config.max_length,
        references=refs[:8],
        hypotheses=hyps[:8],
        variants=("fp32", "int8row"),
        default_variant="int8row",
        include_torch=False,
        overwrite=True,
        calibration_pairs=(refs[:64], hyps[:64]),
    )
    return folder


@tool_main("python -m benchmarks encoder-size")
def main(argv: list[str] | None = None) -> int:
    from sitar.checkpoint import default_checkpoint_path
    from sitar.scorer import Scorer

    p = ArgumentParser(
        prog="python -m benchmarks encoder-size", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--data", required=True, help="record file (JSONL) to sample pairs from")
    p.add_argument(
        "--checkpoint", help="gap-head checkpoint under test (default: the packaged one)"
    )
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--ffn", type=int, default=3072)
    p.add_argument("--shape-dir", help="folder for the built checkpoint (kept; reused)")
    p.add_argument("--json", help="write the report here")
    args = p.parse_args(argv)
    shape = {
        "num_hidden_layers": args.layers,
        "hidden_size": args.hidden,
        "num_attention_heads": args.heads,
        "intermediate_size": args.ffn,
    }

    refs, hyps = sample_pairs(args.data, args.n, args.seed)
    ckpt = Path(args.checkpoint) if args.checkpoint else default_checkpoint_path()
    built, tmp = built_folder(
        args.shape_dir, "bert-shape-random-gap", lambda f: build_shape(f, ckpt, shape, refs, hyps)
    )
    systems: dict[str, Any] = {
        "checkpoint": Scorer.load(ckpt, threads=args.threads),
        "shape": Scorer.load(built, threads=args.threads),
    }
    runs = take_turns(systems, refs, hyps, rounds=args.rounds, batch_size=args.batch_size)
    same_run_report(
        refs,
        runs,
        args,
        other="shape",
        label=f"{args.layers}x{args.hidden} encoder",
        benchmark="encoder-size",
        extra={"shape": shape, "weights": "random (seed 0)"},
    )
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
