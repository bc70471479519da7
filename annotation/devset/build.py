"""Build and validate sitar-dev-v1, SITAR's hand-labelled public dev set (controlled ordering).

The source file ``sitar_dev_v1.source.jsonl`` holds 15 hand-written references. Each has four
hand-labelled edits at recorded character spans of the reference: two T0 disfluencies (``E0a``, an
immediate word repetition or a filled pause, and ``E0b``, the other kind, later in the reference),
one T1 edit (``E1``) and one T2 edit (``E2``), each with a one-line reason. This module expands every
reference into the 11 construction profiles a-k of the SITAR paper's Appendix C (spec §8, docs/spec.md) and
writes ``sitar_dev_v1.jsonl`` (165 rows, sorted keys, stable order, byte-identical across runs),
with the spec §5 target of each row computed from the recorded edit tiers (all directions 0).

Checks, all raising :class:`~sitar.errors.RecordError` / :class:`~sitar.errors.InputError`: the
source schema; every ``ref_text`` equals the reference at its span; spans sit on token boundaries,
do not overlap and leave at least two unchanged tokens between any two edits; the T0 edits are one
repetition and one filled pause with ``E0a`` first; applying all four edits gives the recorded
``hypothesis_k``; reversing the applied edits rebuilds the reference; the token sequence of every
variant is the reference's with exactly the edited tokens replaced; all 165 pairs are unique.

Then, for information only, it runs :func:`sitar.segment` on every variant and prints whether CGD
finds exactly one gap per applied edit. The counts of the data set refer to the recorded edits,
as in the paper, never to CGD output.

This data set is for evaluation and model selection only, never for training.

Run from the repository root::

    python -m annotation.devset.build            # rebuild sitar_dev_v1.jsonl, print the CGD table
    python -m annotation.devset.build --check    # verify the committed file equals a fresh build
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import sitar
except ModuleNotFoundError as e:  # run as a script from a checkout without `pip install -e .`
    if e.name != "sitar":
        raise
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import sitar

from sitar._main import ArgumentParser, tool_main
from sitar.errors import InputError, RecordError
from sitar.signature import make_signature
from sitar.targets import normalize_score, score_from_tiers
from sitar.text import tokenize

__all__ = [
    "DATASET_ID",
    "EDIT_IDS",
    "OUTPUT",
    "PROFILES",
    "PROFILE_COUNTS",
    "ROW_SCHEMA",
    "SOURCE",
    "AppliedVariant",
    "Edit",
    "SourceReference",
    "apply_edits",
    "build_rows",
    "cgd_report",
    "dumps_rows",
    "format_cgd_report",
    "load_source",
    "main",
    "parse_source_line",
    "revert_edits",
    "signature",
]

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "sitar_dev_v1.source.jsonl"
OUTPUT = HERE / "sitar_dev_v1.jsonl"
DATASET_ID = "sitar-dev-v1"
#: Written into every output row; bump on incompatible changes of the row layout.
ROW_SCHEMA = "sitar.devset/1"
RHO = 0.5

#: The four parent edits of every reference and their planned tiers.
EDIT_IDS = ("E0a", "E0b", "E1", "E2")
EDIT_TIERS = {"E0a": 0, "E0b": 0, "E1": 1, "E2": 2}
#: Appendix C profiles: which parent edits each variant keeps. A profile with one T0 edit uses
#: E0a, the earlier of the two T0 edits in reference character order.
PROFILES: dict[str, tuple[str, ...]] = {
    "a": ("E0a",),
    "b": ("E0a", "E0b"),
    "c": ("E1",),
    "d": ("E1", "E0a"),
    "e": ("E1", "E0a", "E0b"),
    "f": ("E2",),
    "g": ("E2", "E0a"),
    "h": ("E2", "E0a", "E0b"),
    "i": ("E2", "E1"),
    "j": ("E2", "E1", "E0a"),
    "k": ("E2", "E1", "E0a", "E0b"),
}
#: The count vector (c2, c1, c0) each profile is defined by (T0, 2T0, T1, T1+T0, ...).
PROFILE_COUNTS: dict[str, tuple[int, int, int]] = {
    "a": (0, 0, 1),
    "b": (0, 0, 2),
    "c": (0, 1, 0),
    "d": (0, 1, 1),
    "e": (0, 1, 2),
    "f": (1, 0, 0),
    "g": (1, 0, 1),
    "h": (1, 0, 2),
    "i": (1, 1, 0),
    "j": (1, 1, 1),
    "k": (1, 1, 2),
}

DOMAINS = frozenset(
    {
        "customer_service",
        "work_instructions",
        "healthcare_admin",
        "finance",
        "travel",
        "announcements",
        "everyday",
    }
)
T0_KINDS = ("repetition", "filled_pause")
SEMANTIC_KINDS = ("substitution", "insertion", "deletion")
FILLERS = frozenset({"uh", "um", "er", "erm", "ah", "eh", "hmm", "mm"})
#: Unchanged reference tokens required between any two edits of one reference.
MIN_SEPARATION_TOKENS = 2
WORD_RANGE = (30, 70)
SENTENCE_RANGE = (2, 4)
_SOURCE_KEYS = frozenset({"ref_id", "domain", "reference", "hypothesis_k", "edits"})
_EDIT_KEYS = frozenset({"edit_id", "tier", "kind", "ref_span", "ref_text", "new_text", "reason"})


@dataclass(frozen=True)
class Edit:
    """One hand-labelled parent edit: replace ``reference[start:end]`` by ``new_text``."""

    edit_id: str
    tier: int
    kind: str
    start: int
    end: int
    ref_text: str
    new_text: str
    reason: str


@dataclass(frozen=True)
class SourceReference:
    """One source line: a reference, its four edits and the hypothesis with all four applied."""

    ref_id: str
    domain: str
    reference: str
    hypothesis_k: str
    edits: tuple[Edit, ...]

    def edit(self, edit_id: str) -> Edit:
        for e in self.edits:
            if e.edit_id == edit_id:
                return e
        raise InputError(f"{self.ref_id}: no edit {edit_id!r}; expected one of {EDIT_IDS}")


@dataclass(frozen=True)
class AppliedVariant:
    """A reference with a subset of its edits applied, plus where each edit landed."""

    hypothesis: str
    #: The applied edits in reference character order.
    edits: tuple[Edit, ...]
    #: Character span of each applied edit's ``new_text`` in the hypothesis, parallel to ``edits``.
    hyp_spans: tuple[tuple[int, int], ...]


def signature() -> str:
    """The spec §9 build signature stored in every row (no analyzer: counts come from the edits)."""
    return make_signature(analyzer="none", rho=RHO)


def apply_edits(reference: str, edits: Sequence[Edit]) -> AppliedVariant:
    """Apply non-overlapping edits to ``reference`` and record their spans in the result."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    cursor = 0
    length = 0
    for e in ordered:
        if e.start < cursor:
            raise InputError(
                f"edits overlap at character {e.start} ({e.edit_id}); expected disjoint spans"
            )
        kept = reference[cursor : e.start]
        pieces += [kept, e.new_text]
        length += len(kept)
        spans.append((length, length + len(e.new_text)))
        length += len(e.new_text)
        cursor = e.end
    pieces.append(reference[cursor:])
    return AppliedVariant("".join(pieces), tuple(ordered), tuple(spans))


def revert_edits(variant: AppliedVariant) -> str:
    """Undo every edit of ``variant`` using only its hypothesis spans and the recorded ref texts."""
    text = variant.hypothesis
    # Right to left, so the spans still to revert keep their offsets.
    for e, (start, end) in reversed(list(zip(variant.edits, variant.hyp_spans, strict=True))):
        if text[start:end] != e.new_text:
            raise InputError(
                f"{e.edit_id}: hypothesis span {start}:{end} holds {text[start:end]!r}, "
                f"expected {e.new_text!r}"
            )
        text = text[:start] + e.ref_text + text[end:]
    return text


# ----------------------------------------------------------------------------- source validation


def _norms(text: str) -> list[str]:
    return [t.norm for t in tokenize(text)]


def _require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise RecordError(f"{where}: {message}")


def _parse_edit(item: Any, reference: str, where: str) -> Edit:
    _require(isinstance(item, dict), where, f"edit must be a JSON object, got {item!r}")
    missing = _EDIT_KEYS - item.keys()
    extra = item.keys() - _EDIT_KEYS
    _require(
        not missing and not extra,
        where,
        f"edit keys must be {sorted(_EDIT_KEYS)}; missing {sorted(missing)}, "
        f"unexpected {sorted(extra)}",
    )
    edit_id = item["edit_id"]
    _require(edit_id in EDIT_TIERS, where, f"edit_id must be one of {EDIT_IDS}, got {edit_id!r}")
    where = f"{where} {edit_id}"
    tier = item["tier"]
    _require(
        type(tier) is int and tier == EDIT_TIERS[edit_id],
        where,
        f"tier must be {EDIT_TIERS[edit_id]} for {edit_id}, got {tier!r}",
    )
    kinds = T0_KINDS if tier == 0 else SEMANTIC_KINDS
    _require(item["kind"] in kinds, where, f"kind must be one of {kinds}, got {item['kind']!r}")
    span = item["ref_span"]
    _require(
        isinstance(span, list) and len(span) == 2 and all(type(x) is int for x in span),
        where,
        f"ref_span must be [start, end] integers, got {span!r}",
    )
    start, end = span
    _require(
        0 <= start <= end <= len(reference),
        where,
        f"ref_span {span} lies outside the reference (length {len(reference)})",
    )
    for key in ("ref_text", "new_text", "reason"):
        _require(isinstance(item[key], str), where, f"{key} must be a string")
    _require(
        item["ref_text"] == reference[start:end],
        where,
        f"ref_text {item['ref_text']!r} differs from the reference at {span}: "
        f"{reference[start:end]!r}; fix the span or the text",
    )
    reason = item["reason"].strip()
    _require(bool(reason) and "\n" not in reason, where, "reason must be one non-empty line")
    return Edit(edit_id, tier, item["kind"], start, end, item["ref_text"], item["new_text"], reason)


def _check_token_boundaries(reference: str, edit: Edit, where: str) -> None:
    for tok in tokenize(reference):
        for point in {edit.start, edit.end}:
            _require(
                not tok.start < point < tok.end,
                where,
                f"span boundary {point} cuts the token {tok.text!r}; spans must cover whole tokens",
            )


def _check_t0(reference: str, edit: Edit, where: str) -> None:
    _require(
        edit.start == edit.end,
        where,
        "a T0 disfluency must be an insertion (empty ref_span [p, p])",
    )
    following = [t for t in tokenize(reference) if t.start == edit.start]
    _require(bool(following), where, f"insertion point {edit.start} is not at a token start")
    _require(
        edit.new_text.endswith(" ") and not edit.new_text.startswith(" "),
        where,
        f"an inserted disfluency must end with one space (e.g. 'uh, '), got {edit.new_text!r}",
    )
    new = _norms(edit.new_text)
    if edit.kind == "repetition":
        _require(
            edit.new_text == following[0].text + " ",
            where,
            f"a repetition must insert the next word {following[0].text!r} and a space, "
            f"got {edit.new_text!r}",
        )
    else:
        _require(
            len(new) == 1 and new[0] in FILLERS,
            where,
            f"a filled pause must insert one of {sorted(FILLERS)}, got {edit.new_text!r}",
        )


def _check_layout(ref: SourceReference, where: str) -> None:
    e0a, e0b = ref.edit("E0a"), ref.edit("E0b")
    _require(
        e0a.start < e0b.start,
        where,
        "E0a must be the earlier T0 edit in reference character order (profiles with one T0 use it)",
    )
    _require(
        {e0a.kind, e0b.kind} == set(T0_KINDS),
        where,
        f"the two T0 edits must be one repetition and one filled pause, got {e0a.kind}, {e0b.kind}",
    )
    tokens = tokenize(ref.reference)
    ordered = sorted(ref.edits, key=lambda e: (e.start, e.end))
    for left, right in itertools.pairwise(ordered):
        between = sum(1 for t in tokens if t.start >= left.end and t.end <= right.start)
        _require(
            left.end <= right.start and between >= MIN_SEPARATION_TOKENS,
            where,
            f"{left.edit_id} and {right.edit_id} must be separated by at least "
            f"{MIN_SEPARATION_TOKENS} unchanged words, found {between}",
        )


def parse_source_line(data: Any, *, where: str = "source") -> SourceReference:
    """Validate one source object and return it; every problem raises :class:`RecordError`."""
    _require(isinstance(data, dict), where, f"expected a JSON object, got {type(data).__name__}")
    missing = _SOURCE_KEYS - data.keys()
    extra = data.keys() - _SOURCE_KEYS
    _require(
        not missing and not extra,
        where,
        f"keys must be {sorted(_SOURCE_KEYS)}; missing {sorted(missing)}, "
        f"unexpected {sorted(extra)}",
    )
    ref_id, domain, reference = data["ref_id"], data["domain"], data["reference"]
    _require(isinstance(ref_id, str) and bool(ref_id), where, "ref_id must be a non-empty string")
    where = f"{where} ({ref_id})"
    _require(domain in DOMAINS, where, f"domain must be one of {sorted(DOMAINS)}, got {domain!r}")
    _require(isinstance(reference, str) and bool(reference), where, "reference must be text")
    _require(isinstance(data["hypothesis_k"], str), where, "hypothesis_k must be a string")
    n_words = len(tokenize(reference))
    _require(
        WORD_RANGE[0] <= n_words <= WORD_RANGE[1],
        where,
        f"reference must have {WORD_RANGE[0]}-{WORD_RANGE[1]} words, got {n_words}",
    )
    n_sentences = sum(reference.count(p) for p in ".?!")
    _require(
        SENTENCE_RANGE[0] <= n_sentences <= SENTENCE_RANGE[1],
        where,
        f"reference must have {SENTENCE_RANGE[0]}-{SENTENCE_RANGE[1]} sentences, got {n_sentences}",
    )
    items = data["edits"]
    _require(isinstance(items, list), where, "edits must be a list")
    edits = tuple(_parse_edit(item, reference, where) for item in items)
    ids = sorted(e.edit_id for e in edits)
    _require(ids == sorted(EDIT_IDS), where, f"edits must be exactly {EDIT_IDS}, got {ids}")
    for e in edits:
        _check_token_boundaries(reference, e, f"{where} {e.edit_id}")
        if e.tier == 0:
            _check_t0(reference, e, f"{where} {e.edit_id}")
        else:
            _require(
                _norms(e.new_text) != _norms(e.ref_text),
                f"{where} {e.edit_id}",
                "a T1/T2 edit must change the words, not only case or punctuation",
            )
    ref = SourceReference(ref_id, domain, reference, data["hypothesis_k"], edits)
    _check_layout(ref, where)
    full = apply_edits(reference, edits).hypothesis
    _require(
        full == ref.hypothesis_k,
        where,
        f"applying all four edits gives {full!r}, but hypothesis_k is {ref.hypothesis_k!r}",
    )
    return ref


def load_source(path: str | Path = SOURCE) -> list[SourceReference]:
    """Read and validate the source file; ref ids and references must be unique."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise InputError(f"cannot read the dev-set source {path}: {e}") from e
    refs: list[SourceReference] = []
    for number, line in enumerate(lines, start=1):
        where = f"{path.name}:{number}"
        if not line.strip():
            raise RecordError(f"{where}: empty line; the source holds one JSON object per line")
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError(f"{where}: invalid JSON ({e})") from e
        refs.append(parse_source_line(data, where=where))
    if not refs:
        raise RecordError(f"{path}: no references found")
    for field in ("ref_id", "reference"):
        values = [getattr(r, field) for r in refs]
        dupes = sorted({v for v in values if values.count(v) > 1})
        if dupes:
            raise RecordError(f"{path}: duplicate {field} values {dupes}")
    return refs


# ----------------------------------------------------------------------------- expansion


def _check_variant(ref: SourceReference, profile: str, variant: AppliedVariant) -> None:
    where = f"{ref.ref_id}-{profile}"
    if revert_edits(variant) != ref.reference:
        raise InputError(f"{where}: reverting the applied edits does not rebuild the reference")
    # Token level: the hypothesis must be the reference's tokens with exactly the edited tokens
    # replaced (catches splices that fuse or split words at an edit boundary).
    expected: list[str] = []
    cursor = 0
    for e in variant.edits:
        expected += _norms(ref.reference[cursor : e.start]) + _norms(e.new_text)
        cursor = e.end
    expected += _norms(ref.reference[cursor:])
    if _norms(variant.hypothesis) != expected:
        raise InputError(f"{where}: the edits fuse or split tokens at a boundary: {variant!r}")


def build_rows(refs: Sequence[SourceReference], *, signature_text: str | None = None) -> list[dict]:
    """Expand every reference into its 11 profile rows, in source order then profile order."""
    sig = signature() if signature_text is None else signature_text
    rows: list[dict[str, Any]] = []
    for ref in refs:
        for profile, edit_ids in PROFILES.items():
            variant = apply_edits(ref.reference, [ref.edit(i) for i in edit_ids])
            _check_variant(ref, profile, variant)
            tiers = [e.tier for e in variant.edits]
            directions = [0] * len(tiers)
            counts = {f"c{k}": tiers.count(k) for k in (2, 1, 0)}
            if (counts["c2"], counts["c1"], counts["c0"]) != PROFILE_COUNTS[profile]:
                raise InputError(
                    f"{ref.ref_id}-{profile}: count vector {counts} does not match the profile "
                    f"definition {PROFILE_COUNTS[profile]}"
                )
            score = score_from_tiers(tiers, directions, rho=RHO)
            rows.append(
                {
                    "schema": ROW_SCHEMA,
                    "dataset": DATASET_ID,
                    "id": f"{ref.ref_id}-{profile}",
                    "ref_id": ref.ref_id,
                    "domain": ref.domain,
                    "profile": profile,
                    "reference": ref.reference,
                    "hypothesis": variant.hypothesis,
                    "edits": [e.edit_id for e in variant.edits],
                    "hyp_spans": [list(s) for s in variant.hyp_spans],
                    "tiers": tiers,
                    "directions": directions,
                    "counts": counts,
                    "score": score,
                    "normalized": normalize_score(score),
                    "signature": sig,
                }
            )
        if rows[-1]["hypothesis"] != ref.hypothesis_k:
            raise InputError(f"{ref.ref_id}: variant k does not reproduce hypothesis_k")
    _check_unique(rows)
    return rows


def _check_unique(rows: Sequence[Mapping[str, Any]]) -> None:
    pairs = [(r["reference"], r["hypothesis"]) for r in rows]
    if len(set(pairs)) != len(pairs):
        dupes = sorted(
            {r["id"] for r in rows if pairs.count((r["reference"], r["hypothesis"])) > 1}
        )
        raise InputError(f"reference-hypothesis pairs are not unique: {dupes}")
    same = [r["id"] for r in rows if r["reference"] == r["hypothesis"]]
    if same:
        raise InputError(f"variants equal to their reference: {same}")
    hyps = [r["hypothesis"] for r in rows]
    clash = [r["id"] for r in rows if r["profile"] == "k" and hyps.count(r["hypothesis"]) > 1]
    if clash:
        raise InputError(f"the all-edits variant is not unique for {clash}")


def dumps_rows(rows: Sequence[Mapping[str, Any]]) -> str:
    """Header-less JSONL: one object per line, sorted keys, UTF-8 text, trailing newline."""
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows)


# ----------------------------------------------------------------------------- CGD report


def cgd_report(rows: Sequence[Mapping[str, Any]], *, analyzer: Any = None) -> list[dict[str, Any]]:
    """For each row: gaps found by :func:`sitar.segment` versus recorded edits (informative).

    ``analyzer`` is passed to :func:`sitar.segment` (``None``: the package default).
    """
    report = []
    for r in rows:
        seg = sitar.segment(r["reference"], r["hypothesis"], analyzer=analyzer)
        report.append(
            {
                "id": r["id"],
                "ref_id": r["ref_id"],
                "profile": r["profile"],
                "n_edits": len(r["edits"]),
                "n_gaps": len(seg.gaps),
                "match": len(seg.gaps) == len(r["edits"]),
                "analyzer": seg.analyzer,
            }
        )
    return report


def format_cgd_report(report: Sequence[Mapping[str, Any]]) -> str:
    """A ref x profile table of ``gaps/edits`` cells (``*`` marks a mismatch) and a summary."""
    profiles = list(PROFILES)
    by_ref: dict[str, dict[str, Mapping[str, Any]]] = {}
    for item in report:
        by_ref.setdefault(item["ref_id"], {})[item["profile"]] = item
    analyzers = sorted({item["analyzer"] for item in report})
    lines = [
        f"CGD check (sitar.segment, analyzer {', '.join(analyzers)}): cell = gaps/edits, "
        "* = CGD does not find exactly one gap per applied edit",
        "ref_id  " + " ".join(f"{p:>5}" for p in profiles),
    ]
    for ref_id, cells in by_ref.items():
        row = []
        for p in profiles:
            c = cells.get(p)
            row.append(
                f"{'':>5}"
                if c is None
                else f"{('' if c['match'] else '*') + str(c['n_gaps']) + '/' + str(c['n_edits']):>5}"
            )
        lines.append(f"{ref_id:<7} " + " ".join(row))
    matched = sum(1 for item in report if item["match"])
    lines.append(f"exact one-gap-per-edit: {matched}/{len(report)} variants")
    for p in profiles:
        items = [i for i in report if i["profile"] == p]
        if items:
            lines.append(f"  profile {p}: {sum(i['match'] for i in items)}/{len(items)}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- CLI


@tool_main("python -m annotation.devset.build")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m annotation.devset.build",
        description="Build and validate the sitar-dev-v1 controlled dev set (evaluation only).",
    )
    parser.add_argument("--source", type=Path, default=SOURCE, help="hand-written source JSONL")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="expanded 165-row JSONL")
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if the output file differs from a fresh build",
    )
    parser.add_argument("--no-cgd", action="store_true", help="skip the informative CGD table")
    args = parser.parse_args(argv)
    try:
        refs = load_source(args.source)
        rows = build_rows(refs)
        text = dumps_rows(rows)
        if args.check:
            try:
                current = args.output.read_bytes()
            except OSError as e:
                raise InputError(f"cannot read {args.output}: {e}; build it first") from e
            if current != text.encode("utf-8"):
                print(f"{args.output} differs from a fresh build; rerun without --check")
                return 1
            print(f"{args.output}: up to date ({len(rows)} rows)")
        else:
            with open(args.output, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            print(f"wrote {len(rows)} rows from {len(refs)} references to {args.output}")
        if not args.no_cgd:
            try:
                print(format_cgd_report(cgd_report(rows)))
            except ImportError as e:
                # The table is informative only; the data set never depends on CGD output.
                print(f"CGD table skipped: sitar.segment is not usable here ({e})")
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
