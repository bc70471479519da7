"""``sitar explain``: per-gap severity of (reference, hypothesis) pairs, without an LLM.

A thin layer over :func:`sitar.diagnostics.explain_many`. With a gap-aware checkpoint each gap's
tier comes from the same forward pass that scores the pair (``--method gaps``, the default there);
otherwise, or with ``--method rescore``, the pair plus every single-gap hypothesis ``h^(i)`` are
scored in one batched call (one extra model input per gap). The readable view prints, per pair, the score, the reference and hypothesis with
gaps bracketed, and one line per gap with its single-gap score and estimated tier; then the cost,
the tier rule and the signature. ``--jsonl-out`` writes one JSON object per pair (with the
signature) and a final ``{"summary": ...}`` object.

This module also holds the checkpoint options shared by ``explain``, ``compare`` and ``report``
(:func:`add_model_arguments`, :func:`load_scorer`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from sitar.commands._model import (
    DeprecatedFlag,
    add_explain_method_argument,
    add_model_arguments,
    add_run_arguments,
    load_scorer,
    notice,
    want_progress,
)
from sitar.io import (
    add_pair_input_arguments,
    check_output_path,
    input_paths,
    open_output,
    pairs_from_args,
)

__all__ = ["add_model_arguments", "load_scorer", "register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="score each gap of a pair (per-gap severity and estimated tier)",
        description=(
            "List the CGD gaps of each pair and score every single-gap hypothesis in the same "
            "batched pass: each gap gets an estimated severity (its normalised single-gap score) "
            "and an estimated tier (T0 below 2/7, T1 from 2/7, T2 from 5/7)."
        ),
    )
    add_pair_input_arguments(parser)
    add_model_arguments(parser)
    out = parser.add_argument_group("output")
    out.add_argument(
        "--jsonl-out",
        dest="as_jsonl",
        action="store_true",
        help="write one JSON object per pair, then a summary object, instead of the readable view",
    )
    out.add_argument("--json", dest="as_jsonl", action=DeprecatedFlag, replacement="--jsonl-out")
    out.add_argument(
        "-o", "--output", metavar="PATH", help="write to a file instead of stdout ('-': stdout)"
    )
    add_run_arguments(parser)
    add_explain_method_argument(parser)
    parser.set_defaults(func=run)


def _tier_label(tier: int, direction: int) -> str:
    label = f"T{tier}"
    if direction:
        label += f" (boundary to T{tier + direction})"
    return label


def write_readable(out: TextIO, pair_id: str, explanation: Any) -> None:
    from sitar.commands.gaps import _aligned
    from sitar.gaps import Segmentation

    e = explanation
    n = len(e.gaps)
    out.write(
        f"id {pair_id}: score {e.score:.4f} (raw {e.raw:.4f}), {n} gap{'s' if n != 1 else ''}"
    )
    if n:
        what = "max gap position" if e.method == "gaps" else "max single-gap score"
        out.write(
            f", {what} {e.max_gap_score:.4f}, tiers imply {e.tier_score:.4f}, "
            f"{e.n_model_inputs} model input{'s' if e.n_model_inputs != 1 else ''}"
        )
    out.write("\n")
    if n:
        # A Segmentation view of the explained gaps for the aligned printer of `sitar gaps`
        # (it reads only the texts and the gaps' character spans).
        seg = Segmentation(
            reference=e.reference,
            hypothesis=e.hypothesis,
            ref_tokens=(),
            hyp_tokens=(),
            gaps=tuple(g.gap for g in e.gaps),
            consolidated=True,
            analyzer="",
        )
        ref_line, hyp_line = _aligned(seg, colour=False)
        out.write(f"  REF: {ref_line}\n  HYP: {hyp_line}\n")
    for g in e.gaps:
        out.write(
            f"  g{g.gap.index} {g.gap.kind:<12} {g.gap.ref_text!r} -> {g.gap.hyp_text!r}"
            f"  {'position' if e.method == 'gaps' else 'score'} {g.score:.4f}  "
            f"est. {_tier_label(g.tier, g.direction)}\n"
        )


def summary(explanations: Any) -> dict[str, Any]:
    from sitar.diagnostics import TIER_RULE

    n_gaps = sum(len(e.gaps) for e in explanations)
    costs = [e.n_model_inputs for e in explanations]
    return {
        "n_pairs": len(explanations),
        "n_gaps": n_gaps,
        "n_model_inputs": None if any(c < 0 for c in costs) else sum(costs),
        "tier_rule": explanations[0].tier_rule if explanations else TIER_RULE,
        "method": explanations[0].method if explanations else None,
        "signature": explanations[0].signature if explanations else None,
    }


def run(args: argparse.Namespace) -> int:
    from sitar.diagnostics import explain_many

    check_output_path(args.output, inputs=input_paths(args))
    pairs = pairs_from_args(args, report=lambda m: notice(args, m))
    scorer = load_scorer(args)
    explanations = explain_many(
        scorer,
        references=[p.reference for p in pairs],
        hypotheses=[p.hypothesis for p in pairs],
        analyzer=args.analyzer,
        batch_size=args.batch_size,
        method=args.method,
        progress=want_progress(args),
    )
    info = summary(explanations)
    with open_output(args.output, inputs=input_paths(args)) as out:
        if args.as_jsonl:
            for p, e in zip(pairs, explanations, strict=True):
                out.write(json.dumps({"id": p.id, **e.to_dict()}, ensure_ascii=False) + "\n")
            out.write(json.dumps({"summary": info}, ensure_ascii=False) + "\n")
        else:
            for p, e in zip(pairs, explanations, strict=True):
                write_readable(out, p.id, e)
            if info["method"] == "gaps":
                # the gap head explains from the scoring pass: no single-gap hypotheses
                cost = (
                    f"cost: {info['n_pairs']} pairs = {info['n_model_inputs']} model inputs, "
                    "the scoring pass itself (identical pairs need none)\n"
                    "tier rule: each gap's position predicted by the gap head in that pass, "
                    f"shown with its nominal tier ({info['tier_rule']})\n"
                )
            else:
                cost = (
                    f"cost: {info['n_pairs']} pairs + {info['n_gaps']} single-gap hypotheses = "
                    f"{info['n_model_inputs']} model inputs, scored in one batched call "
                    "(identical pairs need none)\n"
                    "tier rule: T0 if single-gap score < 2/7, T1 if < 5/7, else T2 "
                    f"({info['tier_rule']})\n"
                )
            out.write(cost + f"signature: {scorer.signature}\n")
    return 0
