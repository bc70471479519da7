"""Command line: ``python -m annotation.synth --out DIR --seed 13 --pairs-per-reference K``.

Generates the synthetic corpus (see :mod:`annotation.synth.generate`) into ``DIR`` with a progress
bar and prints a summary; ``--card PATH`` also writes the data card. Errors from SITAR
(:class:`~sitar.errors.SitarError`) exit with status 2 and a one-line message.

``--passage-probability P`` and ``--family-probability Q`` (both 0 by default, which reproduces the
``synth-1.0`` corpus byte for byte) turn on multi-sentence passages and nested siblings
(``synth-1.1``); ``--ladder-probability L`` adds ladders (``synth-1.2``). ``--reword-probability
R``, ``--direction-probability D``, ``--short-commands`` and ``--sentence-rewrites`` add the
families of issue #12 (``synth-1.3``); ``--quantifier-probability Q`` adds quantifier and frequency
scope pairs (``synth-1.4``). ``--value-probability V``, ``--contrast-probability C``,
``--long-sentences`` and ``--number-format {all,residual,none}`` (default ``all``, the earlier
versions' behaviour) give ``synth-1.5`` (issue #28).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from annotation.synth.card import render_data_card
from annotation.synth.config import DEFAULT_POOL_ROOT
from annotation.synth.generate import (
    NUMBER_FORMAT_MODES,
    GenerationConfig,
    StandInAnalyzer,
    generate_corpus,
)
from sitar._main import ArgumentParser, tool_main


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="python -m annotation.synth",
        description="Generate the synthetic SITAR corpus with planned tiers (issue #5).",
    )
    p.add_argument("--out", required=True, type=Path, help="output folder (outside the repo)")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--pairs-per-reference", type=int, default=24, metavar="K")
    p.add_argument("--fills-per-template", type=int, default=4, metavar="F")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="use N references only")
    p.add_argument("--pool-root", type=Path, default=DEFAULT_POOL_ROOT)
    p.add_argument(
        "--analyzer",
        default="lexicon",
        help="CGD analyzer: lexicon (default), spacy, spacy:<pipeline>, or standin (tests only)",
    )
    p.add_argument("--no-augment", action="store_true", help="skip training-split augmentation")
    p.add_argument("--strict", action="store_true", help="fail on an invalid pool line")
    p.add_argument(
        "--passage-probability",
        type=float,
        default=0.0,
        metavar="P",
        help="share of references joined with 1-2 same-domain, same-split references into a "
        "passage (default 0; any value > 0 gives a synth-1.1 corpus)",
    )
    p.add_argument(
        "--family-probability",
        type=float,
        default=0.0,
        metavar="Q",
        help="share of pairs with a token-changing T0 edit that also get a nested sibling "
        "without one T0 edit (default 0; any value > 0 gives a synth-1.1 corpus)",
    )
    p.add_argument(
        "--ladder-probability",
        type=float,
        default=0.0,
        metavar="L",
        help="share of references with an inform span that also get a ladder: one T2, one T1 "
        "and two T0 edits in the 11 nested combinations a-k (default 0; any value > 0 gives a "
        "synth-1.2 corpus)",
    )
    p.add_argument(
        "--reword-probability",
        type=float,
        default=0.0,
        metavar="R",
        help="share of references that also get a phrase-lexicon rewording pair (T0) and its "
        "look-alike contrast flip (T2/T1) (default 0; any value > 0 gives a synth-1.3 corpus)",
    )
    p.add_argument(
        "--direction-probability",
        type=float,
        default=0.0,
        metavar="D",
        help="share of references with a direction or antonym word in a role span that also get "
        "a direction pair (T2 on outcome, T1 on inform spans) (default 0; > 0 gives synth-1.3)",
    )
    p.add_argument(
        "--short-commands",
        action="store_true",
        help="add the hand-written short commands (sources/short/*.jsonl, 2-8 words) as "
        "references (synth-1.3)",
    )
    p.add_argument(
        "--short-pairs-per-reference", type=int, default=8, metavar="K",
        help="pairs per short command (default 8)",
    )  # fmt: skip
    p.add_argument(
        "--sentence-rewrites",
        action="store_true",
        help="add the hand-written whole-sentence rewrites of pool references (all gaps T0) and "
        "their contrast flips (sources/rewrites/*.jsonl) (synth-1.3)",
    )
    p.add_argument(
        "--quantifier-probability",
        type=float,
        default=0.0,
        metavar="Q",
        help="share of references with a quantifiable noun phrase or frequency adverb in a role "
        "span that also get a quantifier pair ('the figures' -> 'most of the figures'; T2 on "
        "outcome, T1 on inform spans) (default 0; > 0 gives synth-1.4)",
    )
    p.add_argument(
        "--value-probability",
        type=float,
        default=0.0,
        metavar="V",
        help="share of references with a value in a role span that also get a value pair "
        "(magnitude, digit order, unit, time, date; T2 on outcome, T1 on inform spans) and its "
        "recognizer-form twin (default 0; > 0 gives synth-1.5)",
    )
    p.add_argument(
        "--contrast-probability",
        type=float,
        default=0.0,
        metavar="C",
        help="share of references with a contrast word in a role span (enable/disable, "
        "buy/sell, accept/decline ...) that also get a contrast pair (T2 on outcome, T1 on "
        "inform spans) and its recognizer-form twin (default 0; > 0 gives synth-1.5)",
    )
    p.add_argument(
        "--long-sentences",
        action="store_true",
        help="add the hand-written long sentences (sources/long/*.jsonl, 25-80 words) as "
        "references (synth-1.5)",
    )
    p.add_argument(
        "--long-pairs-per-reference", type=int, default=4, metavar="K",
        help="ordinary pairs per long sentence (default 4)",
    )  # fmt: skip
    p.add_argument(
        "--number-format",
        choices=NUMBER_FORMAT_MODES,
        default="all",
        help="T0 number-format edits: all (default; every earlier version), residual (only "
        "those sitar.normalize cannot make equal) or none; residual/none give synth-1.5",
    )
    p.add_argument("--card", type=Path, default=None, help="also write the data card here")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


@tool_main("python -m annotation.synth")
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.pairs_per_reference < 1 or args.fills_per_template < 0:
        print("error: --pairs-per-reference must be >= 1 and --fills-per-template >= 0",
              file=sys.stderr)  # fmt: skip
        return 2
    for name in ("short_pairs_per_reference", "long_pairs_per_reference"):
        if getattr(args, name) < 1:
            print(f"error: --{name.replace('_', '-')} must be >= 1", file=sys.stderr)
            return 2
    for name in ("passage_probability", "family_probability", "ladder_probability",
                 "reword_probability", "direction_probability",
                 "quantifier_probability", "value_probability",
                 "contrast_probability"):  # fmt: skip
        if not 0.0 <= getattr(args, name) <= 1.0:
            flag = "--" + name.replace("_", "-")
            print(f"error: {flag} must be in [0, 1]", file=sys.stderr)
            return 2
    config = GenerationConfig(
        seed=args.seed,
        pairs_per_reference=args.pairs_per_reference,
        fills_per_template=args.fills_per_template,
        limit=args.limit,
        augment=not args.no_augment,
        strict=args.strict,
        passage_probability=args.passage_probability,
        family_probability=args.family_probability,
        ladder_probability=args.ladder_probability,
        reword_probability=args.reword_probability,
        direction_probability=args.direction_probability,
        short_commands=args.short_commands,
        short_pairs_per_reference=args.short_pairs_per_reference,
        sentence_rewrites=args.sentence_rewrites,
        quantifier_probability=args.quantifier_probability,
        value_probability=args.value_probability,
        contrast_probability=args.contrast_probability,
        long_sentences=args.long_sentences,
        long_pairs_per_reference=args.long_pairs_per_reference,
        number_format=args.number_format,
    )
    analyzer = StandInAnalyzer() if args.analyzer == "standin" else args.analyzer
    progress = None
    if not args.quiet:
        try:
            from tqdm import tqdm

            def progress(refs):  # type: ignore[no-untyped-def]
                return tqdm(refs, desc="references", unit="ref")
        except ImportError:
            progress = None
    stats = generate_corpus(
        args.out, config=config, pool_root=args.pool_root, analyzer=analyzer, progress=progress
    )
    if args.card is not None:
        manifest = json.loads((args.out / "manifest.json").read_text(encoding="utf-8"))
        args.card.parent.mkdir(parents=True, exist_ok=True)
        args.card.write_text(render_data_card(stats, manifest), encoding="utf-8")
    before = stats["before_augmentation"]
    print(f"wrote {args.out}: {stats['counts']}")
    print(f"pairs generated {before['pairs']}, gaps {before['gaps']}, "
          f"unexplained gaps {before['unexplained_gaps']} ({100 * before['unexplained_gap_rate']:.2f} %)")  # fmt: skip
    print(f"pair positions {before['pair_max_position']}")
    print(f"histogram (0.1 bins) {before['score_histogram_normalized_0.1_bins']}")
    print(f"boundary pairs {before['boundary_pairs']} ({100 * before['boundary_pair_rate']:.1f} %)")
    if "passages" in stats:
        passages, families = stats["passages"], stats["families"]
        print(f"generator {stats['generator_version']}: passage references "
              f"{passages['references']} ({passages['pairs']} pairs), nested siblings "
              f"{families['siblings']} of {families['drawn']} drawn")  # fmt: skip
    if "families_v13" in stats:
        print(f"synth-1.3/1.4 families: {stats['families_v13']['records']}")
    if "families_v15" in stats:
        v15 = stats["families_v15"]
        print(f"synth-1.5 families: {v15['records']} by form {v15['records_by_form']}, "
              f"long-sentence records {v15['long_sentence_records']}, number-format edits "
              f"{v15['number_format_edits']}")  # fmt: skip
    if args.card is not None:
        print(f"data card: {args.card}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
