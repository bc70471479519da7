"""Reader sheets of the severity benchmark -> resolved labels (``labels.jsonl``), with agreement.

    python -m benchmarks severity-labels --items benchmarks/severity/data/items.jsonl \
        --reader A=PATH[,PATH...] --reader B=PATH[,PATH...] [--adjudicator C=PATH[,PATH...]] \
        --out benchmarks/severity/data/labels.jsonl

Each reader fills, for every item, ``tier`` (T0, T1 or T2: the tier of the transcript's worst
deviation under rubric asr-v2, annotation/prompts/rubric_asr.v2.txt), ``damage`` (0-10) and a
one-line ``reason``, having seen only the item id, the reference and the transcript. A reader may
be split over several sheet files (one per session); together they must cover every item once.

**Resolution rule.** A transcript's tier is the tier both readers gave when they agree. When they
disagree, a third blind reader (the adjudicator, who sees the same three columns and neither
reader's label) reads the item, and the tier is the majority of the three; when all three differ,
it is T1 (the middle tier). Damage is the mean of the two readers' ratings (the adjudicator's
rating is kept but not averaged in, so every item's damage has the same two-reader basis).
Agreement is reported as raw agreement and Cohen's kappa over tiers (unweighted and linearly
weighted), and Spearman's rho between the two readers' damage ratings.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError

__all__ = ["agreement_report", "read_items", "read_reader", "resolve"]

TIERS = {"T0": 0, "T1": 1, "T2": 2}


def read_reader(paths: Sequence[str | Path], item_ids: set[str]) -> dict[str, dict[str, Any]]:
    """One reader's labels from their sheet files: item id -> {tier, damage, reason}. Every
    item must be labelled exactly once, with a tier, a damage in [0, 10] and a reason."""
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        path = Path(path)
        try:
            rows = list(csv.DictReader(path.open(encoding="utf-8", newline="")))
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            raise InputError(f"{path}: cannot read the sheet ({e})") from e
        for line, row in enumerate(rows, start=2):
            where = f"{path}:{line}"
            iid = (row.get("item_id") or "").strip()
            if iid not in item_ids:
                raise InputError(f"{where}: unknown item_id {iid!r}")
            if iid in out:
                raise InputError(f"{where}: item {iid} is labelled twice by this reader")
            tier = (row.get("tier") or "").strip().upper()
            if tier not in TIERS:
                raise InputError(f"{where}: tier must be T0, T1 or T2, got {row.get('tier')!r}")
            try:
                damage = float((row.get("damage") or "").strip())
            except ValueError as e:
                raise InputError(f"{where}: damage must be a number 0-10") from e
            if not 0.0 <= damage <= 10.0:
                raise InputError(f"{where}: damage must lie in [0, 10], got {damage}")
            reason = (row.get("reason") or "").strip()
            if not reason:
                raise InputError(f"{where}: every item needs a one-line reason")
            out[iid] = {"tier": TIERS[tier], "damage": damage, "reason": reason}
    return out


def read_items(path: str | Path) -> list[dict[str, Any]]:
    """The benchmark's items (JSONL, one object with ``item_id`` per line)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read the items ({e})") from e
    items = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{number}: invalid JSON ({e.msg})") from e
        if not isinstance(item, dict) or not isinstance(item.get("item_id"), str):
            raise InputError(f"{path}:{number}: expected an object with a string item_id")
        items.append(item)
    return items


def _kappa(a: Sequence[int], b: Sequence[int], weights: str | None) -> float:
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(a, b, labels=[0, 1, 2], weights=weights))


def agreement_report(
    ra: dict[str, dict[str, Any]], rb: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Raw agreement, Cohen's kappa (plain and linear), the confusion matrix, damage Spearman."""
    from scipy.stats import spearmanr

    ids = sorted(set(ra) & set(rb))
    ta = [ra[i]["tier"] for i in ids]
    tb = [rb[i]["tier"] for i in ids]
    confusion = [[0] * 3 for _ in range(3)]
    for x, y in zip(ta, tb, strict=True):
        confusion[x][y] += 1
    rho = spearmanr([ra[i]["damage"] for i in ids], [rb[i]["damage"] for i in ids]).statistic
    return {
        "items": len(ids),
        "tier_agreement": sum(x == y for x, y in zip(ta, tb, strict=True)) / len(ids),
        "kappa": _kappa(ta, tb, None),
        "kappa_linear": _kappa(ta, tb, "linear"),
        "confusion_A_rows_B_cols": confusion,
        "damage_spearman": float(rho),
    }


def resolve(
    items: Sequence[dict[str, Any]],
    ra: dict[str, dict[str, Any]],
    rb: dict[str, dict[str, Any]],
    rc: dict[str, dict[str, Any]] | None,
) -> list[dict[str, Any]]:
    """The resolved label of every item (module docstring's rule). Raises :class:`InputError`
    when a reader misses an item or a disagreement has no adjudicator label."""
    out = []
    missing_c = []
    for it in items:
        iid = it["item_id"]
        for name, r in (("A", ra), ("B", rb)):
            if iid not in r:
                raise InputError(f"reader {name} has not labelled item {iid}")
        a, b = ra[iid], rb[iid]
        readers = {"A": a, "B": b}
        if a["tier"] == b["tier"]:
            tier, how = a["tier"], "agreed"
        elif rc is None or iid not in rc:
            missing_c.append(iid)
            continue
        else:
            c = rc[iid]
            readers["C"] = c
            top, count = Counter([a["tier"], b["tier"], c["tier"]]).most_common(1)[0]
            tier, how = (top, "majority") if count >= 2 else (1, "all-differ")
        out.append(
            {
                "item_id": iid,
                "tier": tier,
                "damage": (a["damage"] + b["damage"]) / 2.0,
                "resolved_by": how,
                "readers": readers,
            }
        )
    if missing_c:
        raise InputError(
            f"{len(missing_c)} items on which readers A and B disagree have no adjudicator label "
            f"(e.g. {missing_c[:5]}); give --adjudicator C=SHEET covering them"
        )
    return out


def _reader_arg(value: str) -> tuple[str, list[str]]:
    name, sep, paths = value.partition("=")
    if not sep or not name or not paths:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH[,PATH...], got {value!r}")
    return name, paths.split(",")


@tool_main("python -m benchmarks severity-labels")
def main(argv: Sequence[str] | None = None) -> int:
    ap = ArgumentParser(
        prog="python -m benchmarks severity-labels", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--items", required=True)
    ap.add_argument("--reader", type=_reader_arg, action="append", required=True)
    ap.add_argument("--adjudicator", type=_reader_arg, default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--report", default=None, help="also write the agreement report as JSON here")
    ap.add_argument(
        "--disagreements", default=None, help="write a blind sheet of the items A and B disagree on"
    )
    args = ap.parse_args(argv)
    if len(args.reader) != 2:
        ap.error("give exactly two --reader NAME=PATHS")
    items = read_items(args.items)
    ids = {it["item_id"] for it in items}
    ra = read_reader(args.reader[0][1], ids)
    rb = read_reader(args.reader[1][1], ids)
    for name, r in (("A", ra), ("B", rb)):
        missing = [i for i in sorted(ids) if i not in r]
        if missing:
            raise InputError(
                f"reader {name} has not labelled {len(missing)} items (e.g. {missing[:3]})"
            )
    report = agreement_report(ra, rb)
    print(json.dumps(report, indent=1))
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if args.disagreements:
        rows = [it for it in items if ra[it["item_id"]]["tier"] != rb[it["item_id"]]["tier"]]
        with open(args.disagreements, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["item_id", "reference", "hypothesis", "tier", "damage", "reason"])
            for it in rows:
                w.writerow([it["item_id"], it["reference"], it["hypothesis"], "", "", ""])
        print(f"wrote {len(rows)} disagreements to {args.disagreements}")
        if not args.adjudicator:
            return 0
    rc = read_reader(args.adjudicator[1], ids) if args.adjudicator else None
    labels = resolve(items, ra, rb, rc)
    with open(args.out, "w", encoding="utf-8") as fh:
        for row in labels:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    print(f"wrote {len(labels)} labels to {args.out}: tiers {Counter(r['tier'] for r in labels)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
