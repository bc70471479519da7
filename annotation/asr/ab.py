"""A HATS-style A/B set from real recognizer output: which of two transcripts keeps the meaning?

``python -m annotation.asr ab-build BUILD --out DIR`` picks the items, **without looking at any
metric**: references of the held-out splits (test first, then validation, never train) in a seeded
order; for each, two systems drawn at random among those whose transcripts differ (after spec §1 (docs/spec.md)
normalisation), shown as A and B in a seeded random order. It writes

* ``DIR/ab_items.jsonl``: everything (reference, both transcripts, their systems, the split);
* ``DIR/ab_blind.csv``: what the judge sees (``item_id``, ``reference``, ``transcript_a``,
  ``transcript_b``) and fills (``judgement`` = ``A``, ``B`` or ``same``; ``reason``: one line).

``python -m annotation.asr ab-merge DIR --judged FILLED.csv --judge NAME --out SET.jsonl`` joins
the judgements back (every item must be judged; ids and texts must match) into the public set.
Agreement of metrics with the judge is computed by ``python -m training.evaluate_ab``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sitar.errors import InputError
from sitar.text import tokenize

__all__ = [
    "AB_SCHEMA",
    "JUDGEMENTS",
    "build_ab",
    "judge_agreement",
    "load_ab",
    "merge_judgements",
]

AB_SCHEMA = "sitar-ab-1"
JUDGEMENTS = ("A", "B", "same")
_BLIND_COLUMNS = ("item_id", "reference", "transcript_a", "transcript_b", "judgement", "reason")


def _norm(text: str) -> tuple[str, ...]:
    return tuple(t.norm for t in tokenize(text))


def build_ab(
    build: str | Path,
    out: str | Path,
    *,
    n: int | None = 240,
    seed: int = 17,
    splits: Sequence[str] = ("test", "validation"),
    exclude: Sequence[str | Path] = (),
) -> dict[str, Any]:
    """Choose ``n`` items (one per reference) from the build's decodes; see the module doc.

    ``n=None`` takes every eligible reference. ``exclude``: A/B set files (``sitar-ab-1`` JSONL)
    whose references are left out, so that a second set (for example a validation set for model
    selection) shares no reference with a published one."""
    build, out = Path(build), Path(out)
    if n is not None and n < 1:
        raise InputError(f"n must be >= 1 or None (all), got {n}")
    excluded = {it["reference_id"] for path in exclude for it in load_ab(path)}
    pairs_path = build / "pairs.jsonl"
    if not pairs_path.is_file():
        raise InputError(f"{pairs_path} not found; run `python -m annotation.asr export` first")
    by_ref: dict[str, list[dict[str, Any]]] = {}
    for line in pairs_path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            p = json.loads(line)
            by_ref.setdefault(p["reference_id"], []).append(p)
    items: list[dict[str, Any]] = []
    rng = random.Random(f"{seed}:ab")
    for split in splits:
        refs = sorted(
            rid for rid, ps in by_ref.items() if ps[0]["split"] == split and rid not in excluded
        )
        rng.shuffle(refs)
        for rid in refs:
            if n is not None and len(items) >= n:
                break
            ps = sorted(by_ref[rid], key=lambda p: p["system"])
            candidates = [
                (a, b)
                for i, a in enumerate(ps)
                for b in ps[i + 1 :]
                if _norm(a["hypothesis"]) != _norm(b["hypothesis"])
            ]
            if not candidates:
                continue
            a, b = rng.choice(candidates)
            if rng.random() < 0.5:
                a, b = b, a
            item_id = "ab-" + hashlib.sha256(f"{seed}:{rid}".encode()).hexdigest()[:10]
            items.append(
                {
                    "schema": AB_SCHEMA,
                    "id": item_id,
                    "reference_id": rid,
                    "reference": ps[0]["reference"],
                    "a": a["hypothesis"],
                    "b": b["hypothesis"],
                    "system_a": a["system"],
                    "system_b": b["system"],
                    "split": split,
                }
            )
    if n is None and not items:
        raise InputError(f"no reference of splits {list(splits)} has two differing transcripts")
    if n is not None and len(items) < n:
        raise InputError(
            f"only {len(items)} references of splits {list(splits)} have two differing "
            f"transcripts; decode more references or lower n ({n})"
        )
    out.mkdir(parents=True, exist_ok=True)
    (out / "ab_items.jsonl").write_text(
        "".join(json.dumps(it, ensure_ascii=False, sort_keys=True) + "\n" for it in items),
        encoding="utf-8",
    )
    with (out / "ab_blind.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=_BLIND_COLUMNS, lineterminator="\n")
        w.writeheader()
        for it in items:
            w.writerow({"item_id": it["id"], "reference": it["reference"],
                        "transcript_a": it["a"], "transcript_b": it["b"],
                        "judgement": "", "reason": ""})  # fmt: skip
    return {
        "items": len(items),
        "per_split": {s: sum(it["split"] == s for it in items) for s in splits},
        "seed": seed,
        "excluded_references": len(excluded),
    }


def merge_judgements(
    folder: str | Path, judged: str | Path, *, judge: str, out: str | Path
) -> dict[str, Any]:
    """The public set: every item of ``folder/ab_items.jsonl`` with its judgement and reason."""
    folder = Path(folder)
    items = [
        json.loads(line)
        for line in (folder / "ab_items.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    with Path(judged).open(encoding="utf-8-sig", newline="") as fh:
        rows = {row["item_id"]: row for row in csv.DictReader(fh)}
    merged = []
    for it in items:
        row = rows.pop(it["id"], None)
        if row is None:
            raise InputError(f"{judged}: item {it['id']} is not judged")
        if (row["reference"], row["transcript_a"], row["transcript_b"]) != (
            it["reference"], it["a"], it["b"],
        ):  # fmt: skip
            raise InputError(f"{judged}: item {it['id']} texts differ from ab_items.jsonl")
        judgement = row["judgement"].strip()
        judgement = {"a": "A", "b": "B", "same": "same", "tie": "same"}.get(
            judgement.lower(), judgement
        )
        if judgement not in JUDGEMENTS:
            raise InputError(f"{judged}: item {it['id']}: judgement must be A, B or same")
        if not row["reason"].strip():
            raise InputError(f"{judged}: item {it['id']}: a one-line reason is required")
        merged.append({**it, "judgement": judgement, "reason": row["reason"].strip(),
                       "judge": judge})  # fmt: skip
    if rows:
        raise InputError(f"{judged}: unknown item ids {sorted(rows)[:5]}")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(
        "".join(json.dumps(it, ensure_ascii=False, sort_keys=True) + "\n" for it in merged),
        encoding="utf-8",
    )
    return {j: sum(it["judgement"] == j for it in merged) for j in JUDGEMENTS}


def load_ab(path: str | Path) -> list[dict[str, Any]]:
    """Judged items of a public A/B set (schema ``sitar-ab-1``), validated."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"A/B set not found: {path}")
    items = []
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            it = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{k}: invalid JSON ({e.msg})") from e
        if not isinstance(it, dict) or it.get("schema") != AB_SCHEMA:
            raise InputError(f"{path}:{k}: not a {AB_SCHEMA} item")
        missing = [f for f in ("id", "reference", "a", "b", "judgement") if f not in it]
        if missing or it["judgement"] not in JUDGEMENTS:
            raise InputError(f"{path}:{k}: missing {missing} or bad judgement")
        items.append(it)
    if not items:
        raise InputError(f"{path}: no items")
    return items


def judge_agreement(
    first: Sequence[dict[str, Any]], second: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """How two judges of the same A/B items agree: items matched by ``id`` (every item in both,
    with the same reference and transcripts, else :class:`InputError`); raw agreement and Cohen's
    kappa over ``A`` / ``B`` / ``same``, the 3x3 confusion (rows: ``first``, columns: ``second``,
    in that order), how many items both decided (A or B), and how many of those they decided
    oppositely (``opposite``), with those items' ids."""
    from annotation.sheets import cohen_kappa

    by_id = {it["id"]: it for it in second}
    if len(by_id) != len(second) or len({it["id"] for it in first}) != len(first):
        raise InputError("an A/B set holds the same item id twice")
    if set(by_id) != {it["id"] for it in first}:
        only = sorted(set(by_id) ^ {it["id"] for it in first})
        raise InputError(f"the two sets do not hold the same items (e.g. {only[:3]})")
    order = list(JUDGEMENTS)
    matrix = [[0] * len(order) for _ in order]
    opposite = []
    for it in first:
        other = by_id[it["id"]]
        if (it["reference"], it["a"], it["b"]) != (other["reference"], other["a"], other["b"]):
            raise InputError(f"item {it['id']} has different texts in the two sets")
        matrix[order.index(it["judgement"])][order.index(other["judgement"])] += 1
        if {it["judgement"], other["judgement"]} == {"A", "B"}:
            opposite.append(it["id"])
    observed, kappa = cohen_kappa(matrix)
    both = sum(matrix[i][j] for i in range(2) for j in range(2))
    return {
        "items": len(first),
        "labels": order,
        "agreement": observed,
        "kappa": kappa,
        "confusion": matrix,
        "decided_by_both": both,
        "opposite": len(opposite),
        "opposite_ids": opposite,
    }
