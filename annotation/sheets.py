"""Human labels: export a blank annotation sheet, read filled sheets back as records.

This is how a team labels a dev set the way the paper's Appendix C did: one row per gap, showing
the full reference, the hypothesis, the gap's texts, its single-gap hypothesis and the reference
with the gap marked ``[[reference text => hypothesis text]]``. People fill ``tier`` with ``T0``,
``T1`` or ``T2`` (``0``/``1``/``2`` are accepted too) and may fill ``rank``: an integer where 0
means "no more distortion than the unchanged reference", equal ranks mean ≈ and a higher rank
means more distortion. A pair without gaps gets one row with an empty ``gap_id`` (its score is 0).
The optional ``direction`` column marks a boundary case (spec §5 (docs/spec.md): ``T_t -> T_{t+δ}``): ``+`` when the
gap sits at the upper edge of its tier (towards the next tier up), ``-`` at the lower edge, empty or
``0`` when it is a clear case; a tier may also carry it as a suffix (``T1+``, ``T2-``). ``+`` is
impossible at T2 and ``-`` at T0.

Reading sheets back re-segments each pair and checks that the gap texts still match (a sheet edited
out of alignment is an :class:`~sitar.errors.InputError` naming the file and line). With several
sheets (annotators), a gap's tier is the label given by more than half of them. Outcomes: a pair
with an empty tier is ``unlabeled``; ranks that contradict the tiers (spec §6.2) reject it as
``contradiction``; no majority rejects it as ``no_majority``. A gap's direction is the one given by
more than half of the sheets that gave its majority tier, else 0 (a clear case).
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.protocol import round_contradictions
from annotation.schema import BASELINE, gap_ids
from sitar import segment
from sitar.errors import InputError
from sitar.records import Record
from sitar.signature import make_signature
from sitar.targets import DEFAULT_RHO, score_from_tiers

__all__ = [
    "SHEET_COLUMNS",
    "SheetImport",
    "export_sheet",
    "import_sheets",
    "reread_tier",
    "write_derived",
]

SHEET_COLUMNS = (
    "pair_id",
    "gap_id",
    "reference",
    "hypothesis",
    "gap_reference_text",
    "gap_hypothesis_text",
    "marked_reference",
    "single_gap_hypothesis",
    "tier",
    "direction",
    "rank",
    "note",
)
_TIER_VALUES = {"T0": 0, "T1": 1, "T2": 2, "0": 0, "1": 1, "2": 2}


def _marked(reference: str, span: tuple[int, int], ref_text: str, hyp_text: str) -> str:
    return f"{reference[: span[0]]}[[{ref_text} => {hyp_text}]]{reference[span[1] :]}"


def export_sheet(
    pairs: Sequence[Any],
    path: str | Path,
    *,
    analyzer: str = "lexicon",
    max_bridge_tokens: int | None = None,
) -> int:
    """Write a blank sheet (CSV if ``path`` ends in ``.csv``, else JSONL); returns the row count."""
    path = Path(path)
    rows: list[dict[str, str]] = []
    seen: set[str] = set()
    for p in pairs:
        if p.id in seen:
            raise InputError(f"duplicate pair id {p.id!r}; ids must be unique")
        seen.add(p.id)
        seg = segment(
            p.reference, p.hypothesis, analyzer=analyzer, max_bridge_tokens=max_bridge_tokens
        )
        base = {"pair_id": p.id, "reference": p.reference, "hypothesis": p.hypothesis}
        if not seg.gaps:
            rows.append({**dict.fromkeys(SHEET_COLUMNS, ""), **base})
            continue
        for gid, gap, h in zip(
            gap_ids(len(seg.gaps)), seg.gaps, seg.single_gap_hypotheses(), strict=True
        ):
            rows.append(
                {
                    **dict.fromkeys(SHEET_COLUMNS, ""),
                    **base,
                    "gap_id": gid,
                    "gap_reference_text": gap.ref_text,
                    "gap_hypothesis_text": gap.hyp_text,
                    "marked_reference": _marked(
                        p.reference, gap.ref_span, gap.ref_text, gap.hyp_text
                    ),
                    "single_gap_hypothesis": h,
                }
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=SHEET_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        path.write_text(buf.getvalue(), encoding="utf-8")
    else:
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    return len(rows)


def _read_sheet(path: Path) -> list[tuple[str, dict[str, str]]]:
    """Rows with their ``file:line`` location."""
    if not path.is_file():
        raise InputError(f"sheet not found: {path}")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not valid UTF-8; save the sheet as UTF-8") from e
    out = []
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        missing = [
            c
            for c in ("pair_id", "gap_id", "reference", "hypothesis", "tier")
            if c not in (reader.fieldnames or [])
        ]
        if missing:
            raise InputError(f"{path}: the header lacks column(s) {missing}")
        for row in reader:
            out.append((f"{path}:{reader.line_num}", {k: (v or "") for k, v in row.items()}))
        return out
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{lineno}: invalid JSON ({e.msg})") from e
        if not isinstance(row, dict):
            raise InputError(f"{path}:{lineno}: expected a JSON object")
        out.append((f"{path}:{lineno}", {k: "" if v is None else str(v) for k, v in row.items()}))
    return out


@dataclass
class SheetImport:
    """Records for the pairs the sheets label, and the pairs they do not (with reasons)."""

    records: list[Record]
    rejected: list[dict[str, Any]] = field(default_factory=list)

    def reasons(self) -> dict[str, int]:
        return dict(Counter(r["reason"] for r in self.rejected))


_DIRECTION_VALUES = {"": 0, "0": 0, "+": 1, "+1": 1, "1": 1, "UP": 1, "-": -1, "-1": -1, "DOWN": -1}


def _parse_tier(value: str, where: str, direction: str = "") -> tuple[int | None, int]:
    """``(tier, direction)`` from a ``tier`` cell (``T1``, or ``T1+`` / ``T1-`` with the direction
    as a suffix) and a ``direction`` cell; an empty tier is ``(None, 0)``."""
    value = value.strip().upper()
    suffix = ""
    if value[-1:] in ("+", "-"):
        value, suffix = value[:-1].strip(), value[-1]
    d_cell = direction.strip().upper()
    if d_cell not in _DIRECTION_VALUES:
        raise InputError(f"{where}: direction must be +, - or empty (or 0), got {direction!r}")
    if suffix and d_cell and _DIRECTION_VALUES[d_cell] != _DIRECTION_VALUES[suffix]:
        raise InputError(
            f"{where}: the tier's suffix {suffix!r} and the direction {direction!r} disagree"
        )
    d = _DIRECTION_VALUES[suffix or d_cell]
    if not value:
        if d:
            raise InputError(f"{where}: a direction without a tier")
        return None, 0
    if value not in _TIER_VALUES:
        raise InputError(
            f"{where}: tier must be T0, T1 or T2, optionally with + or - (or empty), got {value!r}"
        )
    tier = _TIER_VALUES[value]
    if (tier == 2 and d == 1) or (tier == 0 and d == -1):
        raise InputError(
            f"{where}: T{tier}{'+' if d > 0 else '-'} is impossible (no tier above T2 or below T0)"
        )
    return tier, d


def _parse_rank(value: str, where: str) -> int | None:
    value = value.strip()
    if not value:
        return None
    try:
        rank = int(value)
    except ValueError as e:
        raise InputError(f"{where}: rank must be a non-negative integer, got {value!r}") from e
    if rank < 0:
        raise InputError(f"{where}: rank must be >= 0, got {rank}")
    return rank


def import_sheets(
    paths: Sequence[str | Path],
    *,
    analyzer: str = "lexicon",
    max_bridge_tokens: int | None = None,
    rho: float = DEFAULT_RHO,
) -> SheetImport:
    """Read one or more filled sheets (one per annotator) into records (see the module doc)."""
    if not paths:
        raise InputError("give at least one filled sheet")
    # pair id -> sheet index -> gap id -> (tier, rank, where, direction)
    labels: dict[str, dict[int, dict[str, _Label]]] = defaultdict(lambda: defaultdict(dict))
    texts: dict[str, tuple[str, str, str]] = {}
    gap_texts: dict[tuple[str, str], tuple[str, str]] = {}
    order: list[str] = []
    for s, p in enumerate(paths):
        for where, row in _read_sheet(Path(p)):
            pid, gid = row.get("pair_id", ""), row.get("gap_id", "").strip()
            if not pid:
                raise InputError(f"{where}: empty pair_id")
            pair_text = (row.get("reference", ""), row.get("hypothesis", ""))
            if pid not in texts:
                texts[pid] = (*pair_text, where)
                order.append(pid)
            elif texts[pid][:2] != pair_text:
                raise InputError(
                    f"{where}: reference/hypothesis of pair {pid!r} differ from {texts[pid][2]}"
                )
            if gid in labels[pid][s]:
                raise InputError(f"{where}: duplicate row for pair {pid!r} gap {gid!r}")
            tier, direction = _parse_tier(row.get("tier", ""), where, row.get("direction", ""))
            labels[pid][s][gid] = (tier, _parse_rank(row.get("rank", ""), where), where, direction)
            gap_texts.setdefault(
                (pid, gid), (row.get("gap_reference_text", ""), row.get("gap_hypothesis_text", ""))
            )
    result = SheetImport(records=[])
    sheets = [str(p) for p in paths]
    for pid in order:
        reference, hypothesis, where = texts[pid]
        seg = segment(reference, hypothesis, analyzer=analyzer, max_bridge_tokens=max_bridge_tokens)
        ids = gap_ids(len(seg.gaps))
        expected = set(ids) if ids else {""}
        for s, per_gap in labels[pid].items():
            if set(per_gap) != expected:
                raise InputError(
                    f"{sheets[s]}: pair {pid!r} has gap rows {sorted(per_gap)} but CGD finds "
                    f"{sorted(expected)}; re-export the sheet with the same analyzer ({seg.analyzer})"
                )
        for gid, gap in zip(ids, seg.gaps, strict=True):
            if gap_texts.get((pid, gid)) not in (None, ("", ""), (gap.ref_text, gap.hyp_text)):
                raise InputError(
                    f"{where}: pair {pid!r} {gid} texts {gap_texts[(pid, gid)]} do not match the "
                    f"segmentation ({gap.ref_text!r} -> {gap.hyp_text!r})"
                )
        signature = make_signature(analyzer=seg.analyzer, rho=rho, extra={"annot": "human-sheet-1"})
        provenance = {"annotator": {"kind": "human", "sheets": sheets, "n": len(labels[pid])}}
        if not ids:
            result.records.append(
                Record(
                    pid,
                    reference,
                    hypothesis,
                    (),
                    (),
                    (),
                    0.0,
                    rho=rho,
                    provenance=provenance,
                    signature=signature,
                )
            )
            continue
        reason, detail, tiers, directions = _decide(pid, ids, labels[pid])
        if reason is not None:
            result.rejected.append({"id": pid, "reason": reason, "detail": detail})
            continue
        result.records.append(
            Record(
                id=pid,
                reference=reference,
                hypothesis=hypothesis,
                gaps=tuple(g.to_dict() for g in seg.gaps),
                tiers=tuple(tiers),
                directions=tuple(directions),
                score=score_from_tiers(tiers, directions, rho=rho),
                rho=rho,
                provenance=provenance,
                signature=signature,
            )
        )
    return result


_Label = tuple[int | None, int | None, str, int]


def _decide(
    pid: str,
    ids: Sequence[str],
    per_sheet: dict[int, dict[str, _Label]],
) -> tuple[str | None, str, list[int], list[int]]:
    for s, per_gap in per_sheet.items():
        empty = [gid for gid in ids if per_gap[gid][0] is None]
        if empty:
            return "unlabeled", f"sheet {s}: no tier for {empty}", [], []
        ranks = {gid: per_gap[gid][1] for gid in ids}
        given = [gid for gid, r in ranks.items() if r is not None]
        if given and len(given) != len(ids):
            where = per_gap[given[0]][2]
            raise InputError(
                f"{where}: pair {pid!r} ranks some gaps but not all; rank every gap or none"
            )
        if given:
            levels = sorted({0, *(r for r in ranks.values() if r is not None)})
            groups = [[gid for gid in ids if ranks[gid] == lv] for lv in levels]
            groups[0].insert(0, BASELINE)
            problems = round_contradictions(
                groups,
                {gid: per_gap[gid][0] for gid in ids},  # type: ignore[misc]
            )
            if problems:
                return "contradiction", f"sheet {s}: " + "; ".join(problems), [], []
    tiers = []
    directions = []
    n = len(per_sheet)
    for gid in ids:
        labels = [(per_gap[gid][0], per_gap[gid][3]) for per_gap in per_sheet.values()]
        decided = majority_label(labels)  # type: ignore[arg-type]
        if decided is None:
            votes = dict(Counter(t for t, _ in labels))
            return "no_majority", f"{gid}: labels {votes} from {n} sheets", [], []
        tiers.append(decided[0])
        directions.append(decided[1])
    return None, "", tiers, directions


def majority_label(labels: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    """The readers' ``(tier, direction)`` from their labels: the tier given by more than half of
    them, with the direction given by more than half of the readers of that tier (else 0, a clear
    case); ``None`` when no tier has more than half (also for no labels)."""
    if not labels:
        return None
    tier, count = Counter(t for t, _ in labels).most_common(1)[0]
    if count * 2 <= len(labels):
        return None
    d, d_count = Counter(d for t, d in labels if t == tier).most_common(1)[0]
    return int(tier), (d if d_count * 2 > count else 0)


def reread_tier(written: str, a: str, b: str) -> str:
    """The tier of a case re-read by two readers (tiers ``"T0"``, ``"T1"``, ``"T2"``): their tier
    when they agree; when they differ, the tier the case was written with if one of them gave it,
    else the reader's tier nearer to it. The rule of every blind re-read of a public suite (the
    invariance flips, the challenge files): a disagreement never moves a case further than one
    reader took it."""
    tiers = ("T0", "T1", "T2")
    if any(t not in tiers for t in (written, a, b)):
        raise InputError(f"tiers must be T0, T1 or T2, got {written!r}, {a!r}, {b!r}")
    if a == b:
        return a
    if written in (a, b):
        return written
    return min((a, b), key=lambda t: abs(tiers.index(t) - tiers.index(written)))


def write_derived(outputs: Mapping[Path, str], *, check: bool) -> int:
    """Write committed files that a script derives from committed inputs (a re-read's suite
    version, its blank sheets), or with ``check`` only say whether they are stale: prints
    ``up to date`` or ``stale: NAMES`` and returns 0 or 1 (a missing file is stale)."""
    if check:
        stale = [
            path.name
            for path, text in outputs.items()
            if not path.is_file() or path.read_text(encoding="utf-8") != text
        ]
        print("stale: " + ", ".join(stale) if stale else "up to date")
        return 1 if stale else 0
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
    return 0


def cohen_kappa(matrix: Sequence[Sequence[int]]) -> tuple[float, float]:
    """``(observed agreement, Cohen's kappa)`` of a square confusion matrix of two raters' counts
    (rows: first rater, columns: second); kappa is 1.0 when chance agreement is already 1."""
    k = len(matrix)
    n = sum(map(sum, matrix))
    if n == 0 or any(len(row) != k for row in matrix):
        raise InputError("a confusion matrix must be square and hold at least one count")
    observed = sum(matrix[i][i] for i in range(k)) / n
    rows_p = [sum(matrix[i]) / n for i in range(k)]
    cols_p = [sum(matrix[r][i] for r in range(k)) / n for i in range(k)]
    expected = sum(rows_p[i] * cols_p[i] for i in range(k))
    kappa = 1.0 if expected == 1.0 else (observed - expected) / (1.0 - expected)
    return observed, kappa


def sheet_agreement(first: str | Path, second: str | Path) -> dict[str, Any]:
    """Agreement of two readers' filled sheets over the gaps both labelled: Cohen's kappa on the
    tiers, the 3x3 confusion matrix (rows: ``first``, columns: ``second``), raw agreement, and
    agreement on the position ``tier + direction / 3``. Rows are matched by ``(pair_id, gap_id)``;
    a gap whose texts differ between the sheets is an :class:`InputError`."""
    labelled: list[dict[tuple[str, str], tuple[int, int, tuple[str, str]]]] = []
    for path in (first, second):
        rows: dict[tuple[str, str], tuple[int, int, tuple[str, str]]] = {}
        for where, row in _read_sheet(Path(path)):
            gid = row.get("gap_id", "").strip()
            if not gid:
                continue  # a pair without gaps has nothing to agree on
            tier, direction = _parse_tier(row.get("tier", ""), where, row.get("direction", ""))
            if tier is None:
                continue
            texts = (row.get("gap_reference_text", ""), row.get("gap_hypothesis_text", ""))
            rows[(row["pair_id"], gid)] = (tier, direction, texts)
        labelled.append(rows)
    a, b = labelled
    common = sorted(set(a) & set(b))
    if not common:
        raise InputError(f"{first} and {second} have no labelled gap in common")
    matrix = [[0, 0, 0] for _ in range(3)]
    same_position = 0
    for key in common:
        if a[key][2] != b[key][2]:
            raise InputError(f"gap {key} has different texts in {first} and {second}")
        matrix[a[key][0]][b[key][0]] += 1
        same_position += a[key][:2] == b[key][:2]
    n = len(common)
    observed, kappa = cohen_kappa(matrix)
    return {
        "gaps": n,
        "only_first": len(set(a) - set(b)),
        "only_second": len(set(b) - set(a)),
        "agreement": observed,
        "kappa": kappa,
        "position_agreement": same_position / n,
        "confusion": matrix,
        "disagreements": [list(key) for key in common if a[key][0] != b[key][0]],
    }
