"""Data of the public severity benchmark: new references, real decodes, items and blind sheets.

The benchmark (``benchmarks/severity/``, ``data_cards/sitar-severity-bench-v1.md``) holds real
recognizer transcripts of references that no training or evaluation text contains, each read by
two blind readers. This module builds its data; it never labels or scores anything.

* :func:`known_texts` gathers every text of the project's training and evaluation sources (the
  pool, templates, short commands, rewrites, the dev set, the A/B sets, the challenge files): every
  string of two or more words in any JSONL row, and the ``reference``, ``hypothesis`` and
  ``single_gap_hypothesis`` cells of any CSV sheet, under the given folders (the filled recognizer
  sheets of ``annotation/asr/labels`` too), and the templates as patterns (a slot
  matches any words).
* :func:`check_references` finds each new reference that equals or nearly equals one of them:
  rapidfuzz ``ratio`` >= ``threshold`` (default 90) over :func:`normalise`\\ d text (spoken form,
  lowercase words), or a full match of a template pattern.
* :func:`select_items` keeps the decodes whose SPEC §1 normalised tokens differ from the
  reference's and picks ``target`` of them, balanced by system (round robin over the systems in a
  seeded order, each system's candidates in a seeded order), at most ``per_reference`` per
  reference, and never the same normalised transcript of a reference twice (two systems often
  make the same error; a reader would label it twice).
* :func:`write_sheets` writes the readers' CSV sheets: ``item_id, reference, hypothesis, tier,
  damage, reason`` (the last three empty), two seeded orders (A and B) and each split in two
  halves. Sheets carry no system name, error count or score.

``python -m annotation.asr severity-check FILE`` runs the check; ``python -m annotation.asr
severity-items OUT --references FILE --dest DIR`` writes ``DIR/data/items.jsonl`` and the sheets
from a ``build OUT --references FILE``.

:func:`validation_items` (``python -m annotation.asr severity-val-items RECORDS... --dest DIR``)
applies the same selection and sheets to the *validation* split of hand-labelled recognizer
record files (``sitar.record/1``, from ``python -m annotation.asr labels``): a transcript-level
validation set read like the benchmark, on references that no training split holds, for choices
that must not be made on the benchmark (``data_cards/sitar-severity-val-v1.md``).
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation.asr.normalize import lm_words, spoken_form
from sitar.errors import InputError
from sitar.text import tokenize

__all__ = [
    "ITEM_SCHEMA",
    "SHEET_COLUMNS",
    "Conflict",
    "build_items",
    "check_references",
    "differs",
    "known_texts",
    "normalise",
    "select_items",
    "validation_items",
    "write_sheets",
]

ITEM_SCHEMA = "sitar-severity-item-1"
SHEET_COLUMNS = ("item_id", "reference", "hypothesis", "tier", "damage", "reason")
_SLOT_RE = re.compile(r"\{[a-z_]+\}")
_CSV_TEXT_COLUMNS = frozenset({"reference", "hypothesis", "single_gap_hypothesis"})


def normalise(text: str) -> str:
    """Lowercase words of the spoken form, one space apart (digits read as words, so "$5" and
    "five dollars" compare equal)."""
    return " ".join(lm_words(spoken_form(text)))


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _read_jsonl(path: Path) -> list[Any]:
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{lineno}: invalid JSON ({e.msg})") from e
    return rows


def known_texts(roots: Sequence[str | Path]) -> tuple[list[str], list[re.Pattern[str]], int]:
    """Normalised texts (two or more words) of every ``*.jsonl`` row and ``*.csv`` sheet under
    ``roots``, template patterns (from ``template`` fields), and the number of files read."""
    texts: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    files = 0
    for root in roots:
        root = Path(root)
        if not root.exists():
            raise InputError(f"source folder not found: {root}")
        paths = sorted([*root.rglob("*.jsonl"), *root.rglob("*.csv")]) if root.is_dir() else [root]
        for path in paths:
            files += 1
            rows: list[Any]
            if path.suffix == ".csv":  # sheets: the full texts, not the gap spans or notes
                with path.open(encoding="utf-8", newline="") as f:
                    rows = [
                        [v for k, v in r.items() if k in _CSV_TEXT_COLUMNS]
                        for r in csv.DictReader(f)
                    ]
            else:
                rows = _read_jsonl(path)
            for row in rows:
                template = row.get("template") if isinstance(row, Mapping) else None
                if isinstance(template, str) and template:
                    parts = [re.escape(normalise(p)) for p in _SLOT_RE.split(template)]
                    patterns.append(re.compile(r"\s*(?:[a-z' ]+?)\s*".join(parts)))
                for s in _strings(row):
                    if _SLOT_RE.search(s):  # a template or one of its slot spans
                        continue
                    norm = normalise(s)
                    if len(norm.split()) >= 2:
                        texts.add(norm)
    return sorted(texts), patterns, files


@dataclass(frozen=True)
class Conflict:
    """A new reference too close to a known text."""

    reference_id: str
    text: str
    known: str
    ratio: float


def check_references(
    references: Sequence[Mapping[str, str]],
    texts: Sequence[str],
    patterns: Sequence[re.Pattern[str]] = (),
    *,
    threshold: float = 90.0,
) -> list[Conflict]:
    """Every reference (``id``, ``text``) whose normalised text is within ``threshold`` rapidfuzz
    ratio of a known text, or fully matches a template pattern."""
    from rapidfuzz import fuzz, process

    out = []
    for ref in references:
        norm = normalise(ref["text"])
        best = process.extractOne(norm, texts, scorer=fuzz.ratio, score_cutoff=threshold)
        if best is not None:
            out.append(Conflict(ref["id"], ref["text"], best[0], float(best[1])))
            continue
        for p in patterns:
            if p.fullmatch(norm):
                out.append(Conflict(ref["id"], ref["text"], p.pattern, 100.0))
                break
    return out


def differs(reference: str, hypothesis: str) -> bool:
    """Whether the SPEC §1 normalised tokens of the two texts differ."""
    return [t.norm for t in tokenize(reference)] != [t.norm for t in tokenize(hypothesis)]


def _norm_tokens(text: str) -> tuple[str, ...]:
    return tuple(t.norm for t in tokenize(text))


def item_id(seed: int, system: str, reference_id: str) -> str:
    """An opaque, stable item id (names neither the system nor the reference)."""
    return "sev-" + hashlib.sha256(f"{seed}:{system}:{reference_id}".encode()).hexdigest()[:10]


def select_items(
    candidates: Sequence[Mapping[str, Any]],
    *,
    target: int,
    seed: int,
    per_reference: int = 3,
) -> list[dict[str, Any]]:
    """Pick up to ``target`` decodes (rows with ``system``, ``reference_id``, ``reference``,
    ``hypothesis``) whose transcript differs from the reference, by the rule in the module doc.
    Returns the picked rows (copies, with ``item_id``) sorted by ``item_id``."""
    if target < 1 or per_reference < 1:
        raise InputError(f"target and per_reference must be >= 1, got {target}, {per_reference}")
    by_system: dict[str, list[Mapping[str, Any]]] = {}
    for row in sorted(candidates, key=lambda r: (r["system"], r["reference_id"])):
        if differs(row["reference"], row["hypothesis"]):
            by_system.setdefault(row["system"], []).append(row)
    systems = sorted(by_system)
    rng = random.Random(f"{seed}:systems")
    rng.shuffle(systems)
    queues = {}
    for s in systems:
        rows = list(by_system[s])
        random.Random(f"{seed}:{s}").shuffle(rows)
        queues[s] = rows
    taken: dict[str, int] = {}
    seen: set[tuple[str, tuple[str, ...]]] = set()
    picked: list[dict[str, Any]] = []
    while len(picked) < target and any(queues.values()):
        for s in systems:
            if len(picked) >= target:
                break
            queue = queues[s]
            while queue:
                row = queue.pop(0)
                rid = row["reference_id"]
                key = (rid, _norm_tokens(row["hypothesis"]))
                if taken.get(rid, 0) >= per_reference or key in seen:
                    continue
                taken[rid] = taken.get(rid, 0) + 1
                seen.add(key)
                picked.append({**row, "item_id": item_id(seed, s, rid)})
                break
    return sorted(picked, key=lambda r: r["item_id"])


def _write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(SHEET_COLUMNS)
        for r in rows:
            w.writerow([r["item_id"], r["reference"], r["hypothesis"], "", "", ""])


def write_sheets(
    items: Sequence[Mapping[str, Any]], folder: str | Path, *, seed: int
) -> dict[str, int]:
    """``reader-sheet-A.csv`` and ``-B.csv`` (two seeded orders of every item) and their halves
    ``A1``/``A2``/``B1``/``B2`` under ``folder``; returns rows per file."""
    folder = Path(folder)
    counts = {}
    for name in ("A", "B"):
        order = sorted(items, key=lambda r: r["item_id"])
        random.Random(f"{seed}:sheet{name}").shuffle(order)
        half = (len(order) + 1) // 2
        for suffix, rows in (("", order), ("1", order[:half]), ("2", order[half:])):
            path = folder / f"reader-sheet-{name}{suffix}.csv"
            _write_csv(path, rows)
            counts[path.name] = len(rows)
    return counts


def _write_items(
    items: Sequence[Mapping[str, Any]],
    dest: Path,
    seed: int,
    extra: Callable[[Mapping[str, Any]], dict[str, Any]],
) -> dict[str, Any]:
    """``dest/data/items.jsonl`` (schema :data:`ITEM_SCHEMA`: id, reference id, system, reference,
    hypothesis, plus ``extra(item)``) and the sheets; returns the counts both builders report."""
    (dest / "data").mkdir(parents=True, exist_ok=True)
    with (dest / "data" / "items.jsonl").open("w", encoding="utf-8") as f:
        for it in items:
            row = {
                "schema": ITEM_SCHEMA, "item_id": it["item_id"],
                "reference_id": it["reference_id"], "system": it["system"],
                "reference": it["reference"], "hypothesis": it["hypothesis"], **extra(it),
            }  # fmt: skip
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    per_system: dict[str, int] = {}
    for it in items:
        per_system[it["system"]] = per_system.get(it["system"], 0) + 1
    return {
        "items": len(items),
        "items_per_system": dict(sorted(per_system.items())),
        "references_with_items": len({it["reference_id"] for it in items}),
        "sheets": write_sheets(items, dest / "sheets", seed=seed),
    }


def build_items(
    out: str | Path,
    dest: str | Path,
    *,
    target: int = 900,
    seed: int = 31,
    per_reference: int = 3,
) -> dict[str, Any]:
    """Items and sheets from a build folder ``out`` (``build OUT --references FILE``):
    ``dest/data/items.jsonl`` and ``dest/sheets/reader-sheet-*.csv``. Returns a summary."""
    from annotation.asr.build import read_decodes
    from annotation.asr.records import make_pair, system_wer

    out, dest = Path(out), Path(dest)
    if not (out / "manifest.json").is_file():
        raise InputError(f"{out / 'manifest.json'} not found; run `python -m annotation.asr build`")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    refs = {r["id"]: r for r in _read_jsonl(out / "references.jsonl")}
    settings = {s["id"]: s for s in manifest["config"]["systems"]}
    rows = []
    pairs = []
    for sid in settings:
        for rid, dec in sorted(read_decodes(out / "decodes" / f"{sid}.jsonl").items()):
            if rid not in refs:
                raise InputError(f"decode of unknown reference {rid!r} ({sid})")
            pairs.append(make_pair(refs[rid], dec, None))
            rows.append({
                "system": sid, "reference_id": rid, "domain": refs[rid]["domain"],
                "reference": refs[rid]["text"], "reference_written": refs[rid]["original"],
                "hypothesis": dec["hypothesis"],
            })  # fmt: skip
    items = select_items(rows, target=target, seed=seed, per_reference=per_reference)
    build = {
        "build_version": manifest["config"]["build_version"],
        "build_seed": manifest["config"]["seed"],
        "selection_seed": seed,
        "per_reference": per_reference,
        "tools": manifest["tools"],
        "acoustic_model": manifest["acoustic_model"],
        "references_sha256": {k: v for k, v in manifest["pool_files_sha256"].items()
                              if k.startswith("references:")},
    }  # fmt: skip
    written = _write_items(items, dest, seed, lambda it: {
        "domain": it["domain"], "reference_written": it["reference_written"],
        "provenance": {**build, "system_settings": settings[it["system"]]},
    })  # fmt: skip
    differing: dict[str, int] = {}
    for r in rows:
        if differs(r["reference"], r["hypothesis"]):
            differing[r["system"]] = differing.get(r["system"], 0) + 1
    return {
        **written,
        "decodes": len(rows),
        "differing_per_system": dict(sorted(differing.items())),
        "systems": system_wer(pairs),
    }


def validation_items(
    record_files: Sequence[str | Path],
    dest: str | Path,
    *,
    target: int,
    seed: int,
    per_reference: int = 2,
    split: str = "validation",
) -> dict[str, Any]:
    """Items and blind sheets from the ``split`` records of hand-labelled recognizer record files
    (``provenance.system`` and ``provenance.reference_id`` name the decode): ``dest/data/items.jsonl``
    (schema :data:`ITEM_SCHEMA`; ``provenance`` names the record and its file) and
    ``dest/sheets/reader-sheet-*.csv``, by :func:`select_items` and :func:`write_sheets`. The
    per-gap labels are not copied: the readers label whole transcripts afresh. Returns a summary."""
    import hashlib as _hashlib

    dest = Path(dest)
    rows: list[dict[str, Any]] = []
    files: dict[str, str] = {}
    for path in map(Path, record_files):
        if not path.is_file():
            raise InputError(f"{path}: no such record file")
        files[path.name] = _hashlib.sha256(path.read_bytes()).hexdigest()
        for k, rec in enumerate(_read_jsonl(path), 1):
            if not isinstance(rec, Mapping) or not isinstance(rec.get("provenance"), Mapping):
                raise InputError(f"{path}:{k}: not a sitar.record/1 row with a provenance")
            if rec.get("split") != split:
                continue
            prov = rec["provenance"]
            if not prov.get("system") or not prov.get("reference_id"):
                raise InputError(f"{path}:{k}: provenance lacks system or reference_id")
            rows.append({
                "system": str(prov["system"]), "reference_id": str(prov["reference_id"]),
                "reference": rec["reference"], "hypothesis": rec["hypothesis"],
                "record_id": rec.get("id"), "file": path.name,
            })  # fmt: skip
    if not rows:
        raise InputError(f"no {split!r} records in {[str(p) for p in record_files]}")
    items = select_items(rows, target=target, seed=seed, per_reference=per_reference)
    written = _write_items(items, dest, seed, lambda it: {
        "provenance": {
            "split": split, "record_id": it["record_id"], "file": it["file"],
            "file_sha256": files[it["file"]], "selection_seed": seed,
            "per_reference": per_reference,
        },
    })  # fmt: skip
    return {**written, "candidates": len(rows), "files": files}
