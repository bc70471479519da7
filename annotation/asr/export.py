"""After decoding: pair records, the grouped split, and blank single-gap sheets for hand labels.

* :func:`collect` joins ``references.jsonl`` and ``decodes/*.jsonl`` into ``pairs.jsonl``
  (:mod:`.records`), draws the train / validation / test split **per pool item** (so per
  reference: every hypothesis of a reference, from every system, and every fill of a template
  land in one split; :func:`annotation.synth.generate.assign_group_splits`, 75 / 10 / 15, seeded)
  into ``splits.json``, and writes per-system WER and counts to ``summary.json``.
* :func:`export_sheets` samples references in a seeded order and takes, for each, every pair
  whose hypothesis differs from the reference (one pair per distinct hypothesis: systems that
  wrote the same hypothesis share it; ``also_systems`` in the pair file says which), until the
  pairs hold at least ``target_gaps`` CGD gaps. References are never split across sheets. Each
  sheet is written by the existing human-sheet path, ``python -m annotation export-sheet --jsonl
  sheets/asr-sheet-NN.pairs.jsonl --out sheets/asr-sheet-NN.csv`` (one row per gap with the
  marked reference and the single-gap hypothesis; ``tier`` and ``rank`` blank), and
  ``sheets/manifest.json`` records the seed, the sampling rule and the counts.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from annotation.asr.build import _write_json, _write_lines, read_decodes
from annotation.asr.corpus import SPLIT_FRACTIONS, group_splits
from annotation.asr.records import make_pair, read_pairs, system_wer, write_pairs
from sitar import segment
from sitar.errors import InputError

__all__ = ["SPLIT_FRACTIONS", "collect", "export_sheets"]


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(f"{path} not found; run `python -m annotation.asr build` first")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


#: The synthetic corpora's seed: with it a pool item, template or short command lands in the same
#: split here as in ``sitar-synth-v1.2``/``v1.3`` (the same function over the same groups), so a
#: test reference of the recognizer data was never a training reference of a model trained on
#: the synthetic corpus either.
DEFAULT_SPLIT_SEED = 13


def collect(out: str | Path, *, split_seed: int = DEFAULT_SPLIT_SEED) -> dict[str, Any]:
    """Write ``pairs.jsonl``, ``splits.json`` and ``summary.json``; returns the summary.

    The split is drawn like the synthetic generator's: pool items and templates together, short
    commands on their own (:func:`annotation.synth.generate.assign_group_splits`, 75/10/15)."""
    out = Path(out)
    if not (out / "manifest.json").is_file():
        raise InputError(
            f"{out / 'manifest.json'} not found; run `python -m annotation.asr build` first"
        )
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    refs = {r["id"]: r for r in _read_jsonl(out / "references.jsonl")}
    split_of = group_splits(
        ((r["group"], bool(r.get("short"))) for r in refs.values()), split_seed=split_seed
    )
    _write_json(
        out / "splits.json",
        {
            "by": "group (pool item or template id; all references and hypotheses of a group "
            "share a split)",
            "fractions": list(SPLIT_FRACTIONS),
            "seed": split_seed,
            "groups": split_of,
        },
    )
    pairs = []
    for system in manifest["config"]["systems"]:
        for rid, row in sorted(read_decodes(out / "decodes" / f"{system['id']}.jsonl").items()):
            if rid not in refs:
                raise InputError(f"decode of unknown reference {rid!r} ({system['id']})")
            pairs.append(make_pair(refs[rid], row, split_of[refs[rid]["group"]]))
    n = write_pairs(out / "pairs.jsonl", pairs)
    per_split = Counter(p["split"] for p in pairs)
    summary = {
        "pairs": n,
        "references_decoded": len({p["reference_id"] for p in pairs}),
        "references": len(refs),
        "systems": system_wer(pairs),
        "pairs_per_split": dict(sorted(per_split.items())),
        "references_per_split": dict(
            sorted(Counter(split_of[r["group"]] for r in refs.values()).items())
        ),
        "split_seed": split_seed,
    }
    _write_json(out / "summary.json", summary)
    return summary


def export_sheets(
    out: str | Path,
    *,
    target_gaps: int = 2500,
    seed: int = 12,
    gaps_per_sheet: int = 250,
    analyzer: str = "lexicon",
    append: bool = False,
    splits: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Sample pairs (grouped by reference) and write blank sheets under ``out/sheets``.

    With ``append`` the sheets already there are kept as they are (they may be out for labelling)
    and new sheets, numbered after them, take references that are on no sheet yet, until all the
    sheets together hold ``target_gaps``; each sheet records the export batch it came from. This is
    how labelling starts while the build is still decoding. ``splits`` restricts new sheets to
    references of those splits (e.g. more test references for a larger hand-labelled test split).
    """
    from annotation.__main__ import main as annotation_main

    out = Path(out)
    if target_gaps < 1 or gaps_per_sheet < 1:
        raise InputError("target_gaps and gaps_per_sheet must be positive")
    pairs = read_pairs(out / "pairs.jsonl")
    by_ref: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in pairs:
        if p["errors"] > 0 and (splits is None or p["split"] in splits):
            by_ref[p["reference_id"]].append(p)
    order = sorted(by_ref)
    random.Random(f"{seed}:sheets").shuffle(order)
    sheet_dir = out / "sheets"
    old: dict[str, Any] = {"sheets": [], "gaps": 0, "references": 0, "batches": 0}
    taken: set[str] = set()
    if append and (sheet_dir / "manifest.json").is_file():
        old = json.loads((sheet_dir / "manifest.json").read_text(encoding="utf-8"))
        old.setdefault("batches", 1)
        for f in old["sheets"]:
            for line in (
                (sheet_dir / f["sheet"])
                .with_suffix(".pairs.jsonl")
                .read_text(encoding="utf-8")
                .splitlines()
            ):
                if line.strip():
                    taken.add(json.loads(line)["id"].split("/", 1)[1])
        order = [rid for rid in order if rid not in taken]
    elif sheet_dir.is_dir():
        for stale in sheet_dir.glob("asr-sheet-*"):
            stale.unlink()
    # an append that finds no new reference writes no sheet and starts no batch
    batch = int(old["batches"]) + 1 if append else 1
    sheets: list[list[dict[str, Any]]] = [[]]
    sheet_gaps = [0]
    total = int(old["gaps"])
    per_system: Counter[str] = Counter(old.get("gaps_per_system", {}))
    per_split: Counter[str] = Counter(old.get("gaps_per_split", {}))
    n_refs = int(old["references"])
    for rid in order:
        if total >= target_gaps:
            break
        distinct: dict[str, dict[str, Any]] = {}
        for p in sorted(by_ref[rid], key=lambda p: p["system"]):
            key = " ".join(p["hypothesis"].split())
            if key in distinct:
                distinct[key]["also_systems"].append(p["system"])
                continue
            distinct[key] = {
                "id": p["id"],
                "reference": p["reference"],
                "hypothesis": p["hypothesis"],
                "system": p["system"],
                "also_systems": [],
                "split": p["split"],
                "wer": p["wer"],
            }
        rows = list(distinct.values())
        gaps = 0
        for row in rows:
            n = len(segment(row["reference"], row["hypothesis"], analyzer=analyzer).gaps)
            row["gaps"] = n
            gaps += n
            per_system[row["system"]] += n
            per_split[row["split"]] += n
        if sheet_gaps[-1] and sheet_gaps[-1] + gaps > gaps_per_sheet:
            sheets.append([])
            sheet_gaps.append(0)
        sheets[-1].extend(rows)
        sheet_gaps[-1] += gaps
        total += gaps
        n_refs += 1
    sheet_dir.mkdir(parents=True, exist_ok=True)
    files = list(old["sheets"])
    first = len(files) + 1
    for k, rows in enumerate((s for s in sheets if s), first):
        stem = sheet_dir / f"asr-sheet-{k:02d}"
        _write_lines(
            stem.with_suffix(".pairs.jsonl"),
            (json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows),
        )
        argv = ["export-sheet", "--jsonl", str(stem.with_suffix(".pairs.jsonl")),
                "--out", str(stem.with_suffix(".csv")), "--analyzer", analyzer]  # fmt: skip
        code = annotation_main(argv)
        if code != 0:
            raise InputError(f"export-sheet failed for {stem.name} (exit {code})")
        files.append({"sheet": stem.with_suffix(".csv").name, "pairs": len(rows),
                      "gaps": sheet_gaps[k - first], "batch": batch})  # fmt: skip
    manifest = {
        "sampling": "references in a seeded order (random.Random(f'{seed}:sheets') over sorted "
        "reference ids with at least one erroneous hypothesis); per reference every distinct "
        "erroneous hypothesis (systems sharing it listed in also_systems); stop once the gaps "
        "reach target_gaps; a reference never crosses sheets",
        "seed": seed,
        "target_gaps": target_gaps,
        "splits_of_last_batch": list(splits) if splits else "all",
        "analyzer": analyzer,
        "gaps": total,
        "pairs": sum(f["pairs"] for f in files),
        "references": n_refs,
        "batches": batch if any(sheets) or not append else int(old["batches"]),
        "gaps_per_system": dict(sorted(per_system.items())),
        "gaps_per_split": dict(sorted(per_split.items())),
        "sheets": files,
        "export_command": "python -m annotation export-sheet --jsonl sheets/NAME.pairs.jsonl "
        f"--out sheets/NAME.csv --analyzer {analyzer}",
    }
    _write_json(sheet_dir / "manifest.json", manifest)
    return manifest
