"""``sitar gaps``: show how CGD segments pairs into gaps (spec §2-4, docs/spec.md).

The readable view prints, per pair, the reference and hypothesis with gaps bracketed and aligned
column by column (gap colours only on a terminal), then one line per gap. ``--jsonl`` prints one
JSON object per pair with each gap's token intervals, character spans and texts on both sides, and
the spec §9 signature.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from sitar._main import SingleValue
from sitar.cgd import segment
from sitar.commands._model import DeprecatedFlag, add_run_arguments, notice, want_progress
from sitar.errors import InputError
from sitar.gaps import Segmentation
from sitar.io import (
    _is_stdout,
    add_pair_input_arguments,
    check_output_path,
    input_paths,
    open_output,
    pairs_from_args,
)
from sitar.normalize import NORMAL_FORM_VERSIONS, NORMALIZER_VERSION
from sitar.options import NORMALIZATIONS

_COLOURS = {"substitution": "\033[33m", "deletion": "\033[31m", "insertion": "\033[32m"}
_RESET = "\033[0m"
_EMPTY = "*"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "gaps",
        help="segment pairs into gaps with CGD",
        description="Segment (reference, hypothesis) pairs into paired gaps with CGD and print them.",
    )
    add_pair_input_arguments(parser)
    parser.add_argument(
        "--jsonl-out",
        dest="as_jsonl",
        action="store_true",
        help="write one JSON object per pair (with the signature) instead of the readable view",
    )
    parser.add_argument("--json", dest="as_jsonl", action=DeprecatedFlag, replacement="--jsonl-out")
    parser.add_argument(
        "--no-consolidate",
        dest="consolidate",
        action="store_false",
        help="print the atomic gaps of SPEC §2 (no consolidation); useful for debugging",
    )
    parser.add_argument(
        "--analyzer",
        default=None,
        help="predicate analyzer for consolidation: 'lexicon' (default), 'spacy' or 'spacy:<pipeline>'",
    )
    parser.add_argument(
        "--max-bridge-tokens",
        type=int,
        default=None,
        metavar="N",
        help="never consolidate across more than N matched tokens (default: no limit)",
    )
    parser.add_argument(
        "--normalize",
        choices=NORMALIZATIONS,
        default="none",
        action=SingleValue,
        help="sitar: segment the canonical forms of both sides (sitar.normalize; spans still "
        "point into the text as given, norm: in the signature); none (default): the text as given",
    )
    parser.add_argument(
        "--normal-form",
        choices=NORMAL_FORM_VERSIONS,
        default=NORMALIZER_VERSION,
        action=SingleValue,
        help="with --normalize sitar, the normal form compared: 2 (default) keeps one boundary "
        "mark where the text has one, so CGD sees its sentences; 3 has none; 4 is 3 with "
        "clock phrases, day periods, the 24-hour clock, dates and digit groups made canonical "
        "(a checkpoint names the form it was trained on; sitar.normalize)",
    )
    parser.add_argument(
        "--show-normalized",
        action="store_true",
        help="also print what was compared (the normalised texts; needs --normalize sitar)",
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour gaps in the readable view (auto: only on a terminal)",
    )
    parser.add_argument(
        "-o", "--output", metavar="PATH", help="write to a file instead of stdout ('-': stdout)"
    )
    add_run_arguments(parser)
    parser.set_defaults(func=run)


def _aligned(seg: Segmentation, colour: bool) -> tuple[str, str]:
    """REF and HYP lines with each gap bracketed and padded to the same width on both sides."""
    ref_parts: list[str] = []
    hyp_parts: list[str] = []
    r_pos = h_pos = 0
    for gap in seg.gaps:
        # Matched text before the gap: each side's own original characters, padded to align.
        r_text = seg.reference[r_pos : gap.ref_span[0]].strip()
        h_text = seg.hypothesis[h_pos : gap.hyp_span[0]].strip()
        if r_text or h_text:
            width = max(len(r_text), len(h_text))
            ref_parts.append(r_text.ljust(width))
            hyp_parts.append(h_text.ljust(width))
        r_gap = f"[{gap.ref_text or _EMPTY}]"
        h_gap = f"[{gap.hyp_text or _EMPTY}]"
        width = max(len(r_gap), len(h_gap))
        r_gap, h_gap = r_gap.ljust(width), h_gap.ljust(width)
        if colour:
            r_gap = f"{_COLOURS[gap.kind]}{r_gap}{_RESET}"
            h_gap = f"{_COLOURS[gap.kind]}{h_gap}{_RESET}"
        ref_parts.append(r_gap)
        hyp_parts.append(h_gap)
        r_pos, h_pos = gap.ref_span[1], gap.hyp_span[1]
    r_text = seg.reference[r_pos:].strip()
    h_text = seg.hypothesis[h_pos:].strip()
    if r_text or h_text:
        width = max(len(r_text), len(h_text))
        ref_parts.append(r_text.ljust(width))
        hyp_parts.append(h_text.ljust(width))
    return " ".join(ref_parts).rstrip(), " ".join(hyp_parts).rstrip()


def _write_readable(out: TextIO, pair_id: str, seg: Segmentation, colour: bool) -> None:
    n = len(seg.gaps)
    out.write(f"id {pair_id}: {n} gap{'s' if n != 1 else ''}\n")
    ref_line, hyp_line = _aligned(seg, colour)
    out.write(f"  REF: {ref_line}\n  HYP: {hyp_line}\n")
    for gap in seg.gaps:
        out.write(
            f"  g{gap.index} {gap.kind:<12} {gap.ref_text!r} -> {gap.hyp_text!r}"
            f"  ref tokens [{gap.ref_tokens[0]},{gap.ref_tokens[1]})"
            f" hyp tokens [{gap.hyp_tokens[0]},{gap.hyp_tokens[1]})"
            + (f"  ({gap.n_atomic} atomic)" if gap.n_atomic > 1 else "")
            + "\n"
        )


def _segment(args: argparse.Namespace, reference: str, hypothesis: str) -> tuple[Any, Any]:
    """The pair's segmentation (told in the original strings) and, with ``--normalize sitar``,
    the normalised pair that was compared (else None)."""
    options = {
        "analyzer": args.analyzer,
        "consolidate": args.consolidate,
        "max_bridge_tokens": args.max_bridge_tokens,
    }
    if args.normalize != "sitar":
        return segment(reference, hypothesis, **options), None
    from sitar.normalize import normalize_pair, original_segmentation

    pair = normalize_pair(reference, hypothesis, version=args.normal_form)
    return original_segmentation(segment(*pair.texts, **options), pair), pair


def run(args: argparse.Namespace) -> int:
    if args.show_normalized and args.normalize != "sitar":
        raise InputError("--show-normalized shows what --normalize sitar compares; add it")
    check_output_path(args.output, inputs=input_paths(args))
    pairs = pairs_from_args(args, report=lambda m: notice(args, m))
    with open_output(args.output, inputs=input_paths(args)) as out:
        to_terminal = _is_stdout(args.output) and sys.stdout.isatty()
        colour = args.color == "always" or (
            args.color == "auto" and to_terminal and not args.as_jsonl
        )
        signature = ""
        items = pairs
        if want_progress(args):
            from tqdm.auto import tqdm

            items = tqdm(pairs, desc="sitar gaps", unit="pair")
        for pair in items:
            seg, normalized = _segment(args, pair.reference, pair.hypothesis)
            signature = seg.signature
            if normalized is not None:
                from sitar.normalize import normalizer_id

                signature += f"|norm:{normalizer_id(normalized.version)}"
            if args.as_jsonl:
                record = {"id": pair.id, **seg.to_dict(), "signature": signature}
                if args.show_normalized and normalized is not None:
                    record["normalized"] = list(normalized.texts)
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
            else:
                _write_readable(out, pair.id, seg, colour)
                if args.show_normalized and normalized is not None:
                    out.write(f"  compared REF: {normalized.texts[0]}\n")
                    out.write(f"  compared HYP: {normalized.texts[1]}\n")
        if not args.as_jsonl and pairs:
            out.write(f"signature: {signature}\n")
    return 0
