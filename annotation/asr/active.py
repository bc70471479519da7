"""New labelling sheets, half chosen actively: where the current model is least sure.

``python -m annotation.asr active-sheets BUILD --exclude-labels annotation/asr/labels
--gaps 5000 --first-sheet 20`` writes blank sheets for references that no committed label sheet
holds yet. Each reference brings every distinct erroneous hypothesis of every system (as
:func:`annotation.asr.export.export_sheets` does), and each reference is tagged with how it was
chosen, so metrics can be reported for the two parts separately:

* **active** (``active_share`` of the gaps, default one half): references in decreasing
  *priority*. A reference's priority is the largest, over its hypotheses, of

  - *boundary closeness* of a gap: ``1 - d / 1.5``, clipped to ``[0, 1]``, where ``d`` is the
    distance of the model's expected severity step (0..6, :meth:`sitar.Scorer.analyze`) to the
    nearest tier boundary (1.5 between T0 and T1, 4.5 between T1 and T2): 1 on a boundary, 0 at a
    tier's centre;
  - *disagreement with WER* of a hypothesis: ``|q(score) - q(WER)|``, the difference of the two
    metrics' quantiles among all candidate hypotheses (ties share their mean quantile);

  the two averaged. Ties break by the seeded random order. With fewer candidate gaps than
  ``target_gaps``, the share applies to the gaps there are.
* **random** (the rest): references in a seeded random order, among those not chosen actively.

Sheets are filled one reference at a time and never split a reference; ``double_share`` of the
gaps (default 0.15), taken from both parts in proportion, are on sheets marked ``double`` in the
manifest: two readers label those independently, for agreement (kappa) figures. The model and its
signature are recorded in the manifest. Labels come back through ``python -m annotation.asr
labels`` like every other sheet.
"""

from __future__ import annotations

import csv
import json
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from annotation.asr.build import _write_json, _write_lines
from annotation.asr.records import read_pairs
from sitar import segment
from sitar.errors import InputError

__all__ = ["boundary_closeness", "labelled_references", "priorities", "write_active_sheets"]

#: Expected-step values where the tier changes (steps 0-1 are T0, 2-4 T1, 5-6 T2).
BOUNDARIES = (1.5, 4.5)


def boundary_closeness(expected_step: float) -> float:
    """``1 - d / 1.5`` clipped to ``[0, 1]``; ``d`` the distance to the nearest tier boundary."""
    d = min(abs(float(expected_step) - b) for b in BOUNDARIES)
    return float(min(max(1.0 - d / 1.5, 0.0), 1.0))


def labelled_references(folders: Sequence[str | Path]) -> set[str]:
    """Reference ids (``pair_id`` after the ``system/``) of every label sheet in the folders."""
    refs: set[str] = set()
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise InputError(f"labels folder not found: {folder}")
        for f in sorted(folder.glob("*.csv")):
            with f.open(encoding="utf-8-sig", newline="") as fh:
                for row in csv.DictReader(fh):
                    pid = row.get("pair_id") or ""
                    if "/" in pid:
                        refs.add(pid.split("/", 1)[1])
    return refs


def _quantiles(values: Sequence[float]) -> np.ndarray:
    from scipy.stats import rankdata

    v = np.asarray(values, dtype=float)
    if len(v) < 2:
        return np.zeros(len(v))
    return (rankdata(v) - 1) / (len(v) - 1)


def priorities(rows: Sequence[dict[str, Any]], scorer: Any) -> list[float]:
    """Priority of each candidate hypothesis row (``reference``, ``hypothesis``, ``wer``): the mean
    of its largest gap boundary closeness and its score/WER quantile disagreement."""
    if not rows:
        return []
    analyses = scorer.analyze(
        references=[r["reference"] for r in rows], hypotheses=[r["hypothesis"] for r in rows]
    )
    closeness = [
        max((boundary_closeness(g.expected) for g in (a.gaps or ())), default=0.0) for a in analyses
    ]
    disagreement = np.abs(
        _quantiles([a.raw for a in analyses]) - _quantiles([r["wer"] for r in rows])
    )
    return [0.5 * (c + float(d)) for c, d in zip(closeness, disagreement, strict=True)]


def write_active_sheets(
    out: str | Path,
    *,
    scorer: Any,
    exclude_labels: Sequence[str | Path],
    target_gaps: int,
    first_sheet: int,
    active_share: float = 0.5,
    double_share: float = 0.15,
    gaps_per_sheet: int = 250,
    seed: int = 31,
    analyzer: str = "lexicon",
) -> dict[str, Any]:
    """Write ``out/sheets/asr-sheet-NN.{pairs.jsonl,csv}`` from ``first_sheet`` on and
    ``out/sheets/active-manifest-<first>.json`` (see the module docstring)."""
    from annotation.__main__ import main as annotation_main

    out = Path(out)
    if target_gaps < 1 or gaps_per_sheet < 1 or first_sheet < 1:
        raise InputError("target_gaps, gaps_per_sheet and first_sheet must be positive")
    if not 0.0 <= active_share <= 1.0 or not 0.0 <= double_share <= 1.0:
        raise InputError("active_share and double_share must lie in [0, 1]")
    sheet_dir = out / "sheets"
    clash = sorted(
        p.name for p in sheet_dir.glob("asr-sheet-*.csv") if int(p.stem.split("-")[-1]) >= first_sheet
    ) if sheet_dir.is_dir() else []  # fmt: skip
    if clash:
        raise InputError(f"{sheet_dir} already holds {clash[:3]}...; choose a larger --first-sheet")
    done = labelled_references(exclude_labels)
    by_ref: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for p in read_pairs(out / "pairs.jsonl"):
        if p["errors"] == 0 or p["reference_id"] in done:
            continue
        key = " ".join(p["hypothesis"].split())
        rows = by_ref[p["reference_id"]]
        if key in rows:
            rows[key]["also_systems"].append(p["system"])
            continue
        rows[key] = {"id": p["id"], "reference": p["reference"], "hypothesis": p["hypothesis"],
                     "system": p["system"], "also_systems": [], "split": p["split"], "wer": p["wer"]}  # fmt: skip
    refs = sorted(by_ref)
    if not refs:
        raise InputError(f"no unlabelled reference with an erroneous hypothesis in {out}")
    random.Random(f"{seed}:active").shuffle(refs)
    flat = [row for rid in refs for row in by_ref[rid].values()]
    prio = priorities(flat, scorer)
    ref_prio: dict[str, float] = defaultdict(float)
    for row, pr in zip(flat, prio, strict=True):
        row["priority"] = round(pr, 6)
        ref_prio[row["id"].split("/", 1)[1]] = max(ref_prio[row["id"].split("/", 1)[1]], pr)
    gaps_of = {
        rid: sum(len(segment(r["reference"], r["hypothesis"], analyzer=analyzer).gaps)
                 for r in by_ref[rid].values())
        for rid in refs
    }  # fmt: skip
    active_order = sorted(
        refs, key=lambda rid: -ref_prio[rid]
    )  # stable: ties keep the seeded order
    chosen: list[tuple[str, str]] = []
    taken: set[str] = set()
    n_active = 0
    # With fewer candidates than asked for, the two parts share what there is, in proportion.
    budget = min(target_gaps, sum(gaps_of.values()))
    for rid in active_order:
        if n_active >= active_share * budget:
            break
        chosen.append((rid, "active"))
        taken.add(rid)
        n_active += gaps_of[rid]
    n_random = 0
    for rid in refs:
        if n_active + n_random >= budget:
            break
        if rid not in taken:
            chosen.append((rid, "random"))
            n_random += gaps_of[rid]
    # interleave the two parts so that every sheet (and the double-read ones) holds both
    act = [c for c in chosen if c[1] == "active"]
    ran = [c for c in chosen if c[1] == "random"]
    mixed: list[tuple[str, str]] = []
    while act or ran:
        for part in (act, ran):
            if part:
                mixed.append(part.pop(0))
    sheets: list[list[dict[str, Any]]] = [[]]
    sheet_gaps = [0]
    for rid, how in mixed:
        g = gaps_of[rid]
        if sheet_gaps[-1] and sheet_gaps[-1] + g > gaps_per_sheet:
            sheets.append([])
            sheet_gaps.append(0)
        for row in by_ref[rid].values():
            sheets[-1].append({**row, "selection": how, "gaps": len(
                segment(row["reference"], row["hypothesis"], analyzer=analyzer).gaps)})  # fmt: skip
        sheet_gaps[-1] += g
    total = sum(sheet_gaps)
    per_system: Counter[str] = Counter()
    for sheet in sheets:
        for r in sheet:
            per_system[r["system"]] += r["gaps"]
    files = []
    double_gaps = 0
    sheet_dir.mkdir(parents=True, exist_ok=True)
    for k, rows in enumerate(sheets, first_sheet):
        stem = sheet_dir / f"asr-sheet-{k:02d}"
        _write_lines(stem.with_suffix(".pairs.jsonl"),
                     (json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows))  # fmt: skip
        code = annotation_main(["export-sheet", "--jsonl", str(stem.with_suffix(".pairs.jsonl")),
                                "--out", str(stem.with_suffix(".csv")), "--analyzer", analyzer])  # fmt: skip
        if code != 0:
            raise InputError(f"export-sheet failed for {stem.name} (exit {code})")
        double = double_gaps < double_share * total
        if double:
            double_gaps += sheet_gaps[k - first_sheet]
        files.append({"sheet": stem.with_suffix(".csv").name, "pairs": len(rows),
                      "gaps": sheet_gaps[k - first_sheet], "double": double,
                      "selection": dict(Counter(r["selection"] for r in rows))})  # fmt: skip
    manifest = {
        "rule": "annotation/asr/active.py module docstring",
        "model": getattr(scorer, "signature", None),
        "seed": seed,
        "target_gaps": target_gaps,
        "active_share": active_share,
        "double_share": double_share,
        "excluded_label_folders": [str(f) for f in exclude_labels],
        "excluded_references": len(done),
        "gaps": total,
        "gaps_active": n_active,
        "gaps_random": n_random,
        "gaps_double": double_gaps,
        "references": len(chosen),
        "gaps_per_system": dict(sorted(per_system.items())),
        "sheets": files,
    }
    _write_json(sheet_dir / f"active-manifest-{first_sheet:02d}.json", manifest)
    return manifest
