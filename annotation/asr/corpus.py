"""References to decode, their folds, and the held-out training text of each fold's domain LM.

* :func:`load_references` reads the pool with the synthetic generator's reader
  (:func:`annotation.synth.generate.load_pool` / ``build_references``: every pool utterance and
  ``fills_per_template`` fills of every template) and gives each reference its spoken form
  (:mod:`.normalize`) and a fold. Folds are drawn per pool item (a template's fills share one), so
  no fold's LM has seen a sibling fill of a reference it decodes.
* :func:`perturb` makes *slot-perturbed variants* of a reference: weekdays, months, number words,
  names and places swapped, negations toggled ("can" <-> "can't"), or, when a reference has none
  of these, one content word replaced by another corpus word. A variant never equals a held-out
  reference.
* :func:`load_external_references` reads references from a JSONL file outside the pool (``id``,
  ``domain``, ``text``), for a benchmark decoded on references never used in training: they form
  one extra fold, held out from an LM trained on the whole pool (``build --references FILE``).
* :func:`lm_sentences` is the training text of fold ``k``: the references of the other folds,
  slot-perturbed variants of fold ``k``'s references, and template-style *distractors* (further
  fills of every template, with slot values the references do not use). The references of fold
  ``k`` themselves are never in it (checked). Words the dictionary lacks split a sentence
  (n-grams never span them); such words cannot be recognized and count as errors.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from annotation.asr.normalize import lm_words, spoken_form
from annotation.synth import lexicon
from annotation.synth.numbers import NUMBER_WORDS
from annotation.synth.slots import _FIRST, _LAST  # the generator's name lists
from sitar.errors import InputError

__all__ = [
    "SPLIT_FRACTIONS",
    "AsrReference",
    "fold_of",
    "group_splits",
    "lm_sentences",
    "load_external_references",
    "load_references",
    "perturb",
]

#: train / validation / test shares of the grouped split (:func:`group_splits`).
SPLIT_FRACTIONS = (0.75, 0.10, 0.15)

_WEEKDAYS = tuple(w.lower() for w in lexicon.WEEKDAYS)
_MONTHS = tuple(m.lower() for m in lexicon.MONTHS)
_NUMBERS = tuple(sorted(w for w in NUMBER_WORDS if " " not in w))
_NAMES = tuple(sorted({n.lower() for n in (*_FIRST, *_LAST, *lexicon.ENTITY_PLACES)}))
_NEGATION_PAIRS = (
    ("can", "can't"), ("will", "won't"), ("do", "don't"), ("does", "doesn't"), ("did", "didn't"),
    ("is", "isn't"), ("are", "aren't"), ("was", "wasn't"), ("were", "weren't"),
    ("could", "couldn't"), ("should", "shouldn't"), ("would", "wouldn't"), ("have", "haven't"),
    ("has", "hasn't"), ("need", "don't need"), ("always", "never"), ("before", "after"),
)  # fmt: skip
_NEGATE = {a: b for a, b in _NEGATION_PAIRS} | {b: a for a, b in _NEGATION_PAIRS if " " not in b}
_STOP = frozenset(lexicon.FUNCTION_WORDS) if hasattr(lexicon, "FUNCTION_WORDS") else frozenset()


@dataclass(frozen=True)
class AsrReference:
    """One reference to synthesize and decode."""

    id: str
    group: str  # pool item or template id (folds and splits are drawn per group)
    domain: str
    original: str  # pool text as written
    text: str  # spoken form: what is synthesized and what the pairs use as reference
    fold: int
    #: A 2-8 word command from ``short/*.jsonl`` (decoded first: cheap).
    short: bool = False

    @property
    def words(self) -> list[str]:
        return lm_words(self.text)


def fold_of(group: str, *, folds: int, seed: int) -> int:
    """Fold of a pool item: a hash of the seed and the id (stable under pool additions)."""
    digest = hashlib.sha256(f"{seed}:fold:{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % folds


def group_splits(groups: Iterable[tuple[str, bool]], *, split_seed: int) -> dict[str, str]:
    """The split of every group (pool item or template id, or short command id): ``groups`` are
    ``(group, short)`` pairs. Pool groups and short commands are drawn separately, each like the
    synthetic generator's (:func:`annotation.synth.generate.assign_group_splits`, 75 / 10 / 15),
    so a group lands in the same split here as in the synthetic corpora at the same seed. It
    depends only on the set of groups and the seed: :func:`annotation.asr.export.collect` and
    ``build --splits`` agree."""
    from annotation.synth.generate import assign_group_splits

    groups = list(groups)
    pool = {g for g, short in groups if not short}
    short_groups = {g for g, short in groups if short}
    split_of = assign_group_splits(pool, fractions=SPLIT_FRACTIONS, seed=split_seed)
    if short_groups:
        split_of.update(
            assign_group_splits(short_groups, fractions=SPLIT_FRACTIONS, seed=split_seed)
        )
    return dict(sorted(split_of.items()))


def load_references(
    pool_root: str | Path,
    *,
    known: Container[str],
    folds: int,
    seed: int,
    fills_per_template: int = 4,
    distractor_fills: int = 0,
    short_commands: bool = False,
) -> tuple[list[AsrReference], list[AsrReference], dict[str, str]]:
    """References (pool utterances and the first ``fills_per_template`` fills of each template,
    plus the 2-8 word commands of ``short/*.jsonl`` with ``short_commands``), distractors (the
    next ``distractor_fills`` fills of each template) and the pool file hashes."""
    from annotation.synth.generate import GenerationConfig, load_pool
    from annotation.synth.pool import build_references, common_words, load_short_commands

    if folds < 2:
        raise InputError(
            f"folds must be >= 2 (each fold is decoded with the others' LM), got {folds}"
        )
    items, hashes, skipped = load_pool(pool_root, strict=True)
    del skipped  # strict: a bad line raised
    total_fills = fills_per_template + distractor_fills
    # The generator's fills are seeded by "{seed}:{item}:fill{f}", so fills 0..F-1 are the same
    # whatever the total: the distractors are simply the later fills.
    refs, _notes = build_references(
        items, GenerationConfig(fills_per_template=total_fills), common_words(items)
    )

    def reference(rid: str, group: str, domain: str, text: str, short: bool) -> AsrReference:
        return AsrReference(
            id=rid,
            group=group,
            domain=domain,
            original=text,
            text=spoken_form(text, known),
            fold=fold_of(group, folds=folds, seed=seed),
            short=short,
        )

    test: list[AsrReference] = []
    distractors: list[AsrReference] = []
    for r in refs:
        fill = int(r.id.rsplit(".f", 1)[1]) if ".f" in r.id and r.id.startswith("tpl-") else -1
        a = reference(r.id, r.group, r.domain, r.text, False)
        (distractors if fill >= fills_per_template else test).append(a)
    if short_commands:
        commands, command_hashes = load_short_commands(pool_root)
        hashes = {**hashes, **command_hashes}
        test += [reference(it.id, it.id, it.domain, it.text, True) for it in commands]
    return test, distractors, hashes


_EXTERNAL_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def load_external_references(
    path: str | Path, *, known: Container[str], fold: int, reserved_ids: Container[str] = ()
) -> tuple[list[AsrReference], str]:
    """References of a JSONL file (one ``{"id", "domain", "text"}`` object a line; other fields are
    ignored), all in fold ``fold`` and each its own group, and the file's SHA-256.

    A missing file, a malformed line, an empty text, a repeated id or an id in ``reserved_ids``
    (the pool's) is an :class:`InputError` naming the line."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as e:
        raise InputError(f"references file not found: {path}") from e
    out: list[AsrReference] = []
    seen: set[str] = set()
    for lineno, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{where}: invalid JSON ({e.msg})") from e
        if not isinstance(row, dict):
            raise InputError(f"{where}: expected an object with id, domain, text")
        rid, domain, text = row.get("id"), row.get("domain", ""), row.get("text")
        if not isinstance(rid, str) or not _EXTERNAL_ID_RE.match(rid):
            raise InputError(
                f"{where}: id must be 1-64 letters, digits, '.', '_' or '-', got {rid!r}"
            )
        if not isinstance(domain, str):
            raise InputError(f"{where}: domain must be a string, got {domain!r}")
        if not isinstance(text, str) or not lm_words(text):
            raise InputError(f"{where}: text must be a string with at least one word, got {text!r}")
        if rid in seen or rid in reserved_ids:
            raise InputError(f"{where}: id {rid!r} is repeated or is a pool id")
        seen.add(rid)
        out.append(
            AsrReference(
                id=rid, group=rid, domain=domain, original=text,
                text=spoken_form(text, known), fold=fold,
            )
        )  # fmt: skip
    if not out:
        raise InputError(f"{path}: no references")
    return out, hashlib.sha256(data).hexdigest()


def perturb(words: Sequence[str], rng: random.Random, vocabulary: Sequence[str]) -> list[str]:
    """One slot-perturbed variant of ``words`` (1-2 slot changes; see the module doc)."""
    words = list(words)
    slots = [
        i
        for i, w in enumerate(words)
        if w in _WEEKDAYS or w in _MONTHS or w in _NUMBERS or w in _NAMES or w in _NEGATE
    ]
    if not slots:
        content = [i for i, w in enumerate(words) if w not in _STOP and len(w) > 3]
        if not content or not vocabulary:
            return words
        i = rng.choice(content)
        words[i] = rng.choice(vocabulary)
        return words
    for i in sorted(rng.sample(slots, min(len(slots), rng.choice((1, 1, 2)))), reverse=True):
        w = words[i]
        for table in (_WEEKDAYS, _MONTHS, _NUMBERS, _NAMES):
            if w in table:
                words[i] = rng.choice([x for x in table if x != w])
                break
        else:
            words[i : i + 1] = _NEGATE[w].split()
    return words


def _split_oov(words: Sequence[str], known: Container[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for w in words:
        if w in known:
            out[-1].append(w)
        elif out[-1]:
            out.append([])
    return [s for s in out if s]


def lm_sentences(
    fold: int,
    references: Sequence[AsrReference],
    distractors: Sequence[AsrReference],
    *,
    known: Container[str],
    variants: int,
    seed: int,
) -> list[list[str]]:
    """Training sentences of fold ``fold``'s LM (deterministic order; see the module doc)."""
    held_out = {tuple(r.words) for r in references if r.fold == fold}
    vocabulary = sorted({w for r in references for w in r.words if w in known and len(w) > 3})
    text: list[list[str]] = []
    for r in references:
        if r.fold != fold:
            text.append(r.words)
            continue
        for v in range(variants):
            rng = random.Random(f"{seed}:{r.id}:variant{v}")
            var = perturb(r.words, rng, vocabulary)
            if tuple(var) not in held_out:
                text.append(var)
    text.extend(d.words for d in distractors if tuple(d.words) not in held_out)
    out: list[list[str]] = []
    for words in text:
        # A segment that happens to equal a held-out reference (a short reference inside a
        # longer one) is dropped: the LM must never contain a sentence it is tested on.
        out.extend(s for s in _split_oov(words, known) if tuple(s) not in held_out)
    return out


def dictionary_entries(path: str | Path) -> Mapping[str, list[str]]:
    """``word -> [pronunciation lines]`` of a CMU-style dictionary (alternates ``word(2)`` kept)."""
    entries: dict[str, list[str]] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        head = line.split(maxsplit=1)[0]
        entries.setdefault(head.split("(", 1)[0], []).append(line)
    return entries
