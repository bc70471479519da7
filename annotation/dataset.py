"""Turn a run's journal into the versioned dataset: records, split, augmentation, stats, data card.

:func:`outcome_records` maps accepted outcomes to :class:`sitar.records.Record` objects (the
schema ``training/`` reads). :func:`build_dataset` recomputes every outcome from the journal
(offline), splits by reference, augments the training split, and writes into ``out_dir``:

- ``records.jsonl`` -- every record with its ``split``; ``train.jsonl``, ``validation.jsonl``,
  ``test.jsonl`` -- the same records by split (train includes augmentation);
- ``rejected.jsonl`` -- one line per rejected or pending pair with its reason and detail;
- ``stats.json`` -- tier distribution, rejection reasons, calls, tokens, cost, split and
  augmentation reports, and how everything was made (configuration, versions, seeds);
- a data card (Markdown) at ``card_path`` (default ``data_cards/<name>.md``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from annotation.augment import augment_records, score_bin
from annotation.config import PROTOCOL_VERSION
from annotation.pipeline import Evaluated, recompute
from annotation.protocol import REJECTION_REASONS
from annotation.split import DEFAULT_FRACTIONS, split_records
from sitar._version import __version__ as sitar_version
from sitar.records import Record, write_records
from sitar.signature import make_signature

__all__ = [
    "build_dataset",
    "outcome_records",
    "render_data_card",
    "summarize",
    "summarize_records",
    "write_dataset",
]


def record_signature(evaluated: Evaluated, meta: Mapping[str, Any]) -> str:
    protocol = meta["config"]["protocol"]
    extra = {"annot": f"protocol-{meta.get('protocol_version', PROTOCOL_VERSION)}"}
    if protocol.get("max_bridge_tokens") is not None:
        extra["max_bridge"] = str(protocol["max_bridge_tokens"])
    return make_signature(analyzer=evaluated.seg.analyzer, rho=protocol["rho"], extra=extra)


def outcome_records(evaluated: Sequence[Evaluated], meta: Mapping[str, Any]) -> list[Record]:
    """Records for the accepted pairs, in input order (split unset)."""
    config = meta["config"]
    reviewer = config["reviewer"] or config["annotator"]
    out = []
    for ev in evaluated:
        o = ev.outcome
        if o.status != "accepted":
            continue
        out.append(
            Record(
                id=ev.row.id,
                reference=ev.row.reference,
                hypothesis=ev.row.hypothesis,
                gaps=tuple(g.to_dict() for g in ev.seg.gaps),
                tiers=o.tiers,
                directions=o.directions,
                score=float(o.score or 0.0),
                rho=float(config["protocol"]["rho"]),
                provenance={
                    "source": meta.get("source"),
                    "annotator": {"kind": "llm", "model": config["annotator"]["model"]},
                    "reviewer": {"model": reviewer["model"], "n": config["protocol"]["reviewers"]},
                    "prompts": meta.get("prompts"),
                    "protocol_version": meta.get("protocol_version"),
                    "per_gap": [dict(g) for g in o.gaps],
                },
                signature=record_signature(ev, meta),
            )
        )
    return out


def summarize(
    evaluated: Sequence[Evaluated], records: Iterable[Record], meta: Mapping[str, Any]
) -> dict[str, Any]:
    """Stats of a run: outcomes, rejection reasons, tier/direction distributions, calls, cost."""
    status = Counter(ev.outcome.status for ev in evaluated)
    reasons = Counter(ev.outcome.reason for ev in evaluated if ev.outcome.status == "rejected")
    tiers: Counter[str] = Counter()
    directions: Counter[str] = Counter()
    bins = [0] * 10
    no_gap = 0
    for r in records:
        tiers.update(f"T{t}" for t in r.tiers)
        directions.update(str(d) for d in r.directions)
        bins[score_bin(r.score)] += 1
        no_gap += not r.gaps
    return {
        "pairs": len(evaluated),
        "accepted": status.get("accepted", 0),
        "accepted_without_gaps": no_gap,
        "rejected": status.get("rejected", 0),
        "pending": status.get("pending", 0),
        "rejection_reasons": {reason: reasons.get(reason, 0) for reason in REJECTION_REASONS},
        "tier_distribution": {f"T{t}": tiers.get(f"T{t}", 0) for t in (0, 1, 2)},
        "direction_distribution": {d: directions.get(d, 0) for d in ("-1", "0", "1")},
        "score_bins": bins,
        **meta.get("totals", {}),
    }


def _write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def build_dataset(
    run_dir: str | Path,
    out_dir: str | Path,
    *,
    seed: int = 0,
    augment: bool = True,
    fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
    card_path: str | Path | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """Recompute the run from its journal and write the dataset (see the module docstring).

    Returns the stats dict (also written to ``stats.json``). Pending pairs are reported in
    ``rejected.jsonl`` with status ``pending``, never written as records.
    """
    evaluated, meta = recompute(run_dir)
    base = outcome_records(evaluated, meta)
    stats = summarize(evaluated, base, meta)
    made_with = {
        "annotator": "llm",
        "config": meta["config"],
        "prompts": meta["prompts"],
        "protocol_version": meta["protocol_version"],
        "rounds": meta["rounds"],
        "analyzer": meta["analyzer"],
        "run_sitar_version": meta["sitar_version"],
        "source": meta["source"],
    }
    rejected = [
        {"id": ev.row.id, **ev.outcome.to_dict()}
        for ev in evaluated
        if ev.outcome.status != "accepted"
    ]
    protocol = meta["config"]["protocol"]
    return write_dataset(
        base,
        out_dir,
        stats=stats,
        made_with=made_with,
        rejected=rejected,
        seed=seed,
        augment=augment,
        fractions=fractions,
        analyzer=protocol["analyzer"],
        max_bridge_tokens=protocol.get("max_bridge_tokens"),
        card_path=card_path,
        name=name,
    )


def write_dataset(
    records: Sequence[Record],
    out_dir: str | Path,
    *,
    stats: Mapping[str, Any] | None = None,
    made_with: Mapping[str, Any] | None = None,
    rejected: Sequence[Mapping[str, Any]] = (),
    seed: int = 0,
    augment: bool = True,
    fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
    analyzer: str = "lexicon",
    max_bridge_tokens: int | None = None,
    card_path: str | Path | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """Split ``records`` by reference, augment the training split and write the dataset files,
    ``stats.json`` and the data card. Used for LLM runs and for human-labelled records."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = [dataclasses.replace(r, split=None) for r in records]
    split = split_records(base, fractions=fractions, seed=seed) if base else []
    train = [r for r in split if r.split == "train"]
    aug_report: dict[str, Any] = {"enabled": augment}
    if augment:
        result = augment_records(
            train, seed=seed, analyzer=analyzer, max_bridge_tokens=max_bridge_tokens
        )
        train = result.records
        aug_report.update(result.report)
    by_split = {
        "train": train,
        "validation": [r for r in split if r.split == "validation"],
        "test": [r for r in split if r.split == "test"],
    }
    all_records = [*by_split["train"], *by_split["validation"], *by_split["test"]]
    write_records(out_dir / "records.jsonl", all_records)
    for key, recs in by_split.items():
        write_records(out_dir / f"{key}.jsonl", recs)
    _write_jsonl(out_dir / "rejected.jsonl", rejected)
    stats = dict(stats) if stats is not None else summarize_records(base)
    stats["splits"] = {key: len(recs) for key, recs in by_split.items()}
    stats["augmentation"] = aug_report
    stats["made_with"] = {
        **dict(made_with or {}),
        "sitar_version": sitar_version,
        "split_seed": seed,
        "split_fractions": list(fractions),
        "signature": all_records[0].signature if all_records else None,
    }
    (out_dir / "stats.json").write_text(
        json.dumps(stats, indent=2, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8"
    )
    name = name or out_dir.name
    card = Path(card_path) if card_path is not None else Path("data_cards") / f"{name}.md"
    card.parent.mkdir(parents=True, exist_ok=True)
    card.write_text(render_data_card(name, stats), encoding="utf-8")
    stats["card"] = str(card)
    return stats


def summarize_records(records: Sequence[Record]) -> dict[str, Any]:
    """Stats for records that did not come from a run journal (e.g. human sheets)."""
    stats = summarize([], records, {})
    stats.update(pairs=len(records), accepted=len(records))
    return stats


def render_data_card(name: str, stats: Mapping[str, Any]) -> str:
    """A Markdown data card from a stats dict (deterministic: no clocks, no paths)."""
    made = stats["made_with"]
    config = made.get("config")
    aug = stats.get("augmentation", {})
    lines = [
        f"# Data card: {name}",
        "",
        "SITAR supervision (records schema `sitar.record/1`). Targets follow SPEC §5.",
        "",
        "## How it was made",
        "",
        f"- Signature: `{made.get('signature')}`",
        f"- sitar version: {made.get('sitar_version')}",
    ]
    if config is not None:
        reviewer = config["reviewer"] or config["annotator"]
        lines += [
            "- Labels: offline LLM annotation (`python -m annotation run`) following SPEC §6:",
            "  three ranking+tier rounds, self-consistency check, majority and dissent, committee",
            "  review, consistency filter, directions from sign(t_maj - t_rev).",
            f"- Run made with sitar {made.get('run_sitar_version')}; protocol version "
            f"{made.get('protocol_version')}, rounds: {made.get('rounds')}",
            f"- Analyzer: `{made.get('analyzer')}`",
            f"- Annotator model: `{config['annotator']['model']}` (temperature "
            f"{config['annotator']['temperature']}, seed {config['annotator']['seed']})",
            f"- Reviewer model: `{reviewer['model']}`, committee of "
            f"{config['protocol']['reviewers']}",
            f"- Re-asks after an unusable answer: {config['protocol']['max_invalid']}",
            f"- rho: {config['protocol']['rho']}",
            f"- Prompts: {', '.join(f'`{v}`' for v in (made.get('prompts') or {}).values())}",
            f"- Input source: {made.get('source')}",
        ]
    else:
        lines += [
            f"- Labels: {made.get('annotator', 'records given to write_dataset')}",
            f"- Input: {made.get('source')}",
        ]
    lines += [
        f"- Split: {made['split_fractions']} grouped by reference, seed {made['split_seed']}",
        "",
        "## Counts",
        "",
        "| pairs | accepted | (of which without gaps) | rejected | pending |",
        "| --- | --- | --- | --- | --- |",
        f"| {stats['pairs']} | {stats['accepted']} | {stats['accepted_without_gaps']} | "
        f"{stats['rejected']} | {stats['pending']} |",
        "",
        "Rejection reasons: "
        + ", ".join(f"{k} {v}" for k, v in stats["rejection_reasons"].items()),
        "",
        "Reviewed tiers of accepted gaps: "
        + ", ".join(f"{k} {v}" for k, v in stats["tier_distribution"].items()),
        "",
        "Directions (sign of t_maj - t_rev): "
        + ", ".join(f"{k} {v}" for k, v in stats["direction_distribution"].items()),
        "",
        "Normalized score bins (0.1 wide) of the annotated pairs: "
        + " ".join(str(c) for c in stats["score_bins"]),
        "",
        "| split | records |",
        "| --- | --- |",
        *(f"| {k} | {v} |" for k, v in stats["splits"].items()),
        "",
        "## Augmentation (training split only)",
        "",
    ]
    if aug.get("enabled"):
        lines += [
            f"- Variants added by selective gap restoration: {aug['variants_added']} "
            f"(skipped as inconsistent after re-segmentation: {aug['skipped_inconsistent']})",
            f"- Duplicated once (bins still below {aug['target_per_bin']}): "
            f"{aug['duplicates_added']} records in bins {aug['upsampled_bins']}",
            f"- Bins before: {aug['bins_before']}",
            f"- Bins after variants: {aug['bins_after_variants']}",
            f"- Bins after upsampling: {aug['bins_after_upsampling']}",
            f"- Seed: {aug['seed']}",
        ]
    else:
        lines.append("- Disabled.")
    lines += [
        "",
        "## Calls and cost",
        "",
        f"- Calls: {stats.get('calls', 0)} (failed after re-asks: {stats.get('failed_calls', 0)}),"
        f" HTTP requests: {stats.get('requests', 0)}",
        f"- Tokens: {stats.get('prompt_tokens', 0)} prompt, "
        f"{stats.get('completion_tokens', 0)} completion",
        f"- Cost: {stats.get('cost', 0.0):.6f}"
        + (
            f" (annotator prices per million tokens: {config['annotator']['price_input_per_mtok']}"
            f" in / {config['annotator']['price_output_per_mtok']} out)"
            if config is not None
            else ""
        ),
        "",
        "## Caveats",
        "",
        "- LLM labels come from language models and a rubric, not from human judgment; human",
        "  sheets record nominal tiers only (directions 0).",
        "- LLM targets can be recomputed from the run journal without any calls.",
        "",
    ]
    return "\n".join(lines)
