"""Synthesize, prepare and decode every reference with every system; resumable, deterministic.

One call of :func:`run_build` (``python -m annotation.asr build OUT``):

1. reads the references (:func:`.corpus.load_references`), assigns folds, and writes
   ``OUT/references.jsonl``;
2. writes one domain trigram LM and one dictionary per fold (``OUT/lm/fold{k}.arpa`` / ``.dict``):
   the LM of fold ``k`` never contains a reference of fold ``k`` (:func:`.corpus.lm_sentences`);
3. for each fold, for each of its references (in a seeded order), for each system:
   ``espeak-ng -v VOICE -s RATE -p PITCH`` -> WAV; ``sox -D`` -> 16 kHz mono 16-bit raw (dither
   off); white noise at the system's SNR added in Python from a generator seeded by
   ``"{seed}:{system}:{reference}"``; pocketsphinx decodes it with the fold's LM and the system's
   search settings. Each result is appended to ``OUT/decodes/{system}.jsonl`` and flushed to disk
   at once (``fsync``), so a crash loses at most the utterance being decoded; a re-run skips
   every utterance already there (a torn last line is cut off first);
4. :func:`collect` then writes ``OUT/pairs.jsonl`` (see :mod:`.records`).

With ``BuildConfig.references`` (``build OUT --references FILE.jsonl``) the references decoded are
those of the file instead (:func:`.corpus.load_external_references`), e.g. new references for a
benchmark. They form one extra fold, ``k = folds``, and only its LM is written
(``OUT/lm/fold{folds}.arpa``): the same :func:`.corpus.lm_sentences` as for a pool fold, so its
text is every pool reference (all folds), the distractors and slot-perturbed variants of the new
references, never the new references themselves.

Timings go to ``OUT/timings.jsonl`` (they vary between runs; everything else does not).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.asr.arpa import build_model, write_arpa
from annotation.asr.corpus import (
    AsrReference,
    dictionary_entries,
    group_splits,
    lm_sentences,
    load_external_references,
    load_references,
)
from annotation.asr.systems import DEFAULT_SYSTEMS, SystemConfig
from sitar.errors import InputError, MissingDependencyError, SitarError

#: The splits of the grouped split (:func:`annotation.asr.corpus.group_splits`).
SPLITS = ("train", "validation", "test")

__all__ = [
    "BuildConfig",
    "pending",
    "read_decodes",
    "run_build",
    "tool_versions",
]

#: ``asr-2``: the short commands (``short/*.jsonl``) join the references and are decoded first;
#: ``--jobs`` decodes in parallel processes (the output does not depend on it).
BUILD_VERSION = "asr-2"
DEFAULT_POOL_ROOT = Path(__file__).resolve().parents[1] / "sources"


@dataclass(frozen=True)
class BuildConfig:
    """Everything besides the pool and the tools that decides the output (saved in the manifest)."""

    seed: int = 12
    folds: int = 5
    fills_per_template: int = 4
    distractor_fills: int = 10
    variants_per_reference: int = 4
    lm_order: int = 3
    #: Decode only the first ``limit`` references of the seeded order (None = all).
    limit: int | None = None
    #: Add the 2-8 word commands (``annotation/sources/short/*.jsonl``) as references.
    short_commands: bool = True
    systems: tuple[SystemConfig, ...] = field(default_factory=lambda: tuple(DEFAULT_SYSTEMS))
    #: A JSONL file of references to decode instead of the pool's (see the module doc).
    references: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["systems"] = [s.to_dict() for s in self.systems]
        d["build_version"] = BUILD_VERSION
        return d


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SitarError(
            f"the program {name!r} is not installed; install it with: apt-get install {name}"
        )
    return path


def _pocketsphinx() -> Any:
    try:
        import pocketsphinx
    except ImportError as e:
        raise MissingDependencyError("pocketsphinx", "decoding synthesized speech", "asr") from e
    return pocketsphinx


def tool_versions() -> dict[str, str]:
    """Versions of espeak-ng, sox and pocketsphinx (raises if one is missing)."""
    from importlib.metadata import version

    espeak = subprocess.run(
        [_tool("espeak-ng"), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    sox = subprocess.run(
        [_tool("sox"), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    _pocketsphinx()
    return {
        "espeak-ng": espeak,
        "sox": sox.rsplit(" ", 1)[-1],  # "sox:      SoX v14.4.2" -> "v14.4.2"
        "pocketsphinx": version("pocketsphinx"),
        "python": sys.version.split()[0],
    }


def model_paths() -> dict[str, Path]:
    ps = _pocketsphinx()
    root = Path(ps.get_model_path()) / "en-us"
    return {"hmm": root / "en-us", "dict": root / "cmudict-en-us.dict", "lm": root / "en-us.lm.bin"}


# --------------------------------------------------------------------------------------------
# Audio
# --------------------------------------------------------------------------------------------


def synthesize(text: str, system: SystemConfig, workdir: Path) -> bytes:
    """16 kHz mono signed 16-bit little-endian PCM of ``text`` spoken by the system's voice
    (clean: noise is added by :func:`add_noise`)."""
    wav = workdir / "tts.wav"
    txt = workdir / "tts.txt"
    txt.write_text(text, encoding="utf-8")
    try:
        subprocess.run(
            [_tool("espeak-ng"), "-v", system.voice, "-s", str(system.rate), "-p",
             str(system.pitch), "-f", str(txt), "-w", str(wav)],
            check=True, capture_output=True,
        )  # fmt: skip
        raw = subprocess.run(
            [_tool("sox"), "-D", str(wav), "-r", "16000", "-c", "1", "-b", "16",
             "-e", "signed-integer", "-L", "-t", "raw", "-"],
            check=True, capture_output=True,
        ).stdout  # fmt: skip
    except subprocess.CalledProcessError as e:
        err = (e.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        raise SitarError(
            f"{Path(e.cmd[0]).name} failed for system {system.id}: {err[-1] if err else e}"
        ) from e
    return raw


def add_noise(pcm: bytes, snr_db: float | None, seed: str) -> bytes:
    """``pcm`` plus white Gaussian noise at ``snr_db`` (signal power over the whole utterance),
    from a generator seeded by ``seed``; clipped to int16. None returns ``pcm`` unchanged."""
    if snr_db is None or not pcm:
        return pcm
    import numpy as np

    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    power = float(np.mean(x**2))
    if power == 0.0:
        return pcm
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big"))
    noise = rng.standard_normal(x.shape[0]) * np.sqrt(power / 10.0 ** (snr_db / 10.0))
    y = np.clip(np.rint(x + noise), -32768, 32767).astype("<i2")
    return y.tobytes()


# --------------------------------------------------------------------------------------------
# Resumable decode files
# --------------------------------------------------------------------------------------------


def read_decodes(path: Path, *, repair: bool = False) -> dict[str, dict[str, Any]]:
    """Finished decodes of one system by reference id. A torn last line (a crash mid-write) is
    ignored, and with ``repair`` cut off the file; a malformed line elsewhere is an error."""
    if not path.exists():
        return {}
    data = path.read_bytes()
    done: dict[str, dict[str, Any]] = {}
    good_end = 0
    pos = 0
    lines = data.split(b"\n")
    for k, line in enumerate(lines):
        end = pos + len(line) + 1
        last = k == len(lines) - 1
        if line.strip():
            try:
                row = json.loads(line)
                if not isinstance(row, dict) or "reference_id" not in row:
                    raise ValueError("not a decode row")
            except ValueError as e:
                if last:  # torn final line, no newline after it
                    break
                raise InputError(f"{path}: line {k + 1} is not a valid decode row ({e})") from e
            if last:  # complete JSON but no trailing newline: keep it, add the newline on repair
                done[row["reference_id"]] = row
                good_end = len(data)
                break
            done[row["reference_id"]] = row
        good_end = min(end, len(data))
        pos = end
    if repair and good_end < len(data):
        with path.open("r+b") as f:
            f.truncate(good_end)
    elif repair and data and not data.endswith(b"\n"):
        with path.open("ab") as f:
            f.write(b"\n")
    return done


def append_decode(path: Path, row: dict[str, Any]) -> None:
    """Append one decode row and force it to disk."""
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())


def pending(
    ordered: Sequence[AsrReference],
    systems: Sequence[SystemConfig],
    done: dict[str, set[str]],
) -> list[tuple[AsrReference, SystemConfig]]:
    """The (reference, system) decodes still missing, in build order."""
    return [(r, s) for r in ordered for s in systems if r.id not in done.get(s.id, set())]


# --------------------------------------------------------------------------------------------
# Build
# --------------------------------------------------------------------------------------------


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
    os.replace(tmp, path)


def order_references(refs: Sequence[AsrReference], seed: int) -> list[AsrReference]:
    """Short commands first (they are cheap to decode), then the rest; fold by fold inside each,
    references in a seeded order inside each fold."""
    out = sorted(refs, key=lambda r: r.id)
    random.Random(f"{seed}:order").shuffle(out)
    # stable: keeps the shuffled order inside a fold
    return sorted(out, key=lambda r: (not r.short, r.fold))


def prepare(
    out: Path, config: BuildConfig, pool_root: Path = DEFAULT_POOL_ROOT
) -> tuple[list[AsrReference], dict[str, Any]]:
    """References, LMs, dictionaries and the manifest (cheap; rewritten on every run)."""
    paths = model_paths()
    entries = dictionary_entries(paths["dict"])
    known = frozenset(entries)
    refs, distractors, hashes = load_references(
        pool_root,
        known=known,
        folds=config.folds,
        seed=config.seed,
        fills_per_template=config.fills_per_template,
        distractor_fills=config.distractor_fills,
        short_commands=config.short_commands,
    )
    lm_folds = list(range(config.folds))
    lm_refs = refs
    if config.references is not None:
        # The file's references are one extra fold (config.folds); the pool's, all in other
        # folds, are LM text only. Only the extra fold's LM is needed.
        external, digest = load_external_references(
            config.references, known=known, fold=config.folds, reserved_ids={r.id for r in refs}
        )
        hashes = {**hashes, f"references:{Path(config.references).name}": digest}
        lm_refs = [*refs, *external]
        refs = external
        lm_folds = [config.folds]
    ordered = order_references(refs, config.seed)
    if config.limit is not None:
        shuffled = sorted(refs, key=lambda r: r.id)
        random.Random(f"{config.seed}:limit").shuffle(shuffled)
        keep = {r.id for r in shuffled[: config.limit]}
        ordered = [r for r in ordered if r.id in keep]
    _write_lines(
        out / "references.jsonl",
        (
            json.dumps(dataclasses.asdict(r), ensure_ascii=False, sort_keys=True)
            for r in sorted(refs, key=lambda r: r.id)
        ),
    )
    lm_stats = {}
    for k in lm_folds:
        sents = lm_sentences(
            k, lm_refs, distractors, known=known, variants=config.variants_per_reference,
            seed=config.seed,
        )  # fmt: skip
        model = build_model(sents, order=config.lm_order)
        write_arpa(model, out / "lm" / f"fold{k}.arpa")
        vocab = [w for w in model.vocabulary if w not in ("<s>", "</s>")]
        _write_lines(out / "lm" / f"fold{k}.dict", (line for w in vocab for line in entries[w]))
        lm_stats[f"fold{k}"] = {
            "sentences": len(sents),
            "vocabulary": len(vocab),
            "ngrams": {
                str(n): sum(1 for g in model.logprob if len(g) == n)
                for n in range(1, config.lm_order + 1)
            },
            "held_out_references": sum(1 for r in lm_refs if r.fold == k),
        }
    oov = sum(1 for r in refs for w in r.words if w not in known)
    manifest = {
        "config": config.to_dict(),
        "pool_files_sha256": hashes,
        "tools": tool_versions(),
        "acoustic_model": "pocketsphinx en-us (shipped with the wheel)",
        "references": len(refs),
        "distractors": len(distractors),
        "reference_words": sum(len(r.words) for r in refs),
        "oov_reference_words": oov,
        "lm": lm_stats,
    }
    _write_json(out / "manifest.json", manifest)
    return ordered, manifest


def _decoder(system: SystemConfig, fold: int, out: Path) -> Any:
    ps = _pocketsphinx()
    paths = model_paths()
    return ps.Decoder(
        hmm=str(paths["hmm"]),
        lm=str(out / "lm" / f"fold{fold}.arpa"),
        dict=str(out / "lm" / f"fold{fold}.dict"),
        loglevel="FATAL",
        **system.decoder_options(),
    )


def decode_pcm(decoder: Any, pcm: bytes) -> str:
    """Decode one utterance from the decoder's initial front-end state.

    ``reinit_feat`` first: the front end keeps state from earlier utterances (even with batch
    CMN), so without it a hypothesis would depend on what the decoder decoded before (tested)."""
    decoder.reinit_feat()
    decoder.start_utt()
    decoder.process_raw(pcm, full_utt=True)
    decoder.end_utt()
    hyp = decoder.hyp()
    return hyp.hypstr if hyp is not None and hyp.hypstr else ""


class _WorkerLog:
    """A picklable log function for a worker process."""

    def __init__(self, worker: int) -> None:
        self.worker = worker

    def __call__(self, msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] worker {self.worker}: {msg}", flush=True)


def _decode_items(
    out: Path,
    seed: int,
    todo: Sequence[tuple[AsrReference, SystemConfig]],
    deadline: float | None,
    log: Callable[[str], None],
) -> list[tuple[str, str]]:
    """Synthesize and decode ``todo`` in order, appending each row as it finishes; returns the
    (system, reference) ids decoded. Stops cleanly after an utterance once ``deadline`` passed."""
    decoders: dict[str, Any] = {}
    fold = -1
    finished: list[tuple[str, str]] = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sitar-asr-") as tmp:
        workdir = Path(tmp)
        for ref, system in todo:
            if deadline is not None and time.monotonic() > deadline:
                log("stopping (time limit); run again to continue")
                break
            if ref.fold != fold:
                fold = ref.fold
                decoders = {}
            if system.id not in decoders:
                decoders[system.id] = _decoder(system, fold, out)
            t1 = time.monotonic()
            pcm = synthesize(ref.text, system, workdir)
            pcm = add_noise(pcm, system.snr_db, f"{seed}:{system.id}:{ref.id}")
            t2 = time.monotonic()
            hyp = decode_pcm(decoders[system.id], pcm)
            t3 = time.monotonic()
            append_decode(
                out / "decodes" / f"{system.id}.jsonl",
                {
                    "reference_id": ref.id,
                    "system": system.id,
                    "fold": ref.fold,
                    "hypothesis": hyp,
                    "audio_samples": len(pcm) // 2,
                    "audio_sha256": hashlib.sha256(pcm).hexdigest()[:16],
                },
            )
            timing = {
                "reference_id": ref.id,
                "system": system.id,
                "audio_s": round(len(pcm) / 32000, 3),
                "synth_s": round(t2 - t1, 3),
                "decode_s": round(t3 - t2, 3),
            }
            _append_line(out / "timings.jsonl", json.dumps(timing))
            finished.append((system.id, ref.id))
            if len(finished) % 100 == 0:
                log(f"{len(finished)}/{len(todo)} decodes, {time.monotonic() - t0:.0f} s")
    return finished


def _append_line(path: Path, line: str) -> None:
    """One ``write`` of one line with ``O_APPEND`` (whole lines even with several processes)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def run_build(
    out: str | Path,
    config: BuildConfig,
    *,
    pool_root: str | Path = DEFAULT_POOL_ROOT,
    log: Callable[[str], None] = print,
    stop_after_s: float | None = None,
    jobs: int = 1,
    splits: Sequence[str] | None = None,
    split_seed: int = 13,
) -> dict[str, int]:
    """Prepare, then decode every missing (system, reference); returns decodes per system.

    ``stop_after_s`` stops cleanly (after a finished utterance) once that many seconds passed;
    a later run continues where it stopped. ``jobs`` decodes in that many processes (the rows
    are the same; only their order in the files differs). ``splits`` decodes only the references
    whose group falls in those splits of the grouped split at ``split_seed``
    (:func:`annotation.asr.corpus.group_splits`, the split that ``export`` writes): for example
    the held-out references only, to draw an evaluation set without decoding the training ones.
    Neither changes any decode; a later run without ``splits`` decodes the rest.
    """
    if not isinstance(jobs, int) or jobs < 1:
        raise InputError(f"jobs must be an integer >= 1, got {jobs!r}")
    if splits is not None:
        unknown = sorted(set(splits) - set(SPLITS))
        if unknown or not splits:
            raise InputError(
                f"splits must be a non-empty subset of {list(SPLITS)}, got {list(splits)!r}"
            )
    out = Path(out)
    t0 = time.monotonic()
    ordered, _manifest = prepare(out, config, Path(pool_root))
    if splits is not None:
        # Over every reference of references.jsonl, as export draws it (the split depends on
        # the whole set of groups), not only the ``limit`` ones.
        listed = [
            json.loads(line)
            for line in (out / "references.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        split_of = group_splits(
            ((r["group"], bool(r.get("short"))) for r in listed), split_seed=split_seed
        )
        ordered = [r for r in ordered if split_of[r.group] in splits]
        log(f"decoding only the {len(ordered)} references of splits {sorted(set(splits))}")
    (out / "decodes").mkdir(parents=True, exist_ok=True)
    done = {
        s.id: set(read_decodes(out / "decodes" / f"{s.id}.jsonl", repair=True))
        for s in config.systems
    }
    todo = pending(ordered, config.systems, done)
    log(f"{len(ordered)} references x {len(config.systems)} systems; {len(todo)} decodes to do")
    deadline = None if stop_after_s is None else t0 + stop_after_s
    if jobs == 1 or len(todo) < 2:
        finished = _decode_items(out, config.seed, todo, deadline, log)
    else:
        # One share per process, by reference (every system of a reference in one process, so
        # each process loads one fold's decoders at a time). Every decode is independent of the
        # others (front end re-initialized per utterance), so the rows do not depend on ``jobs``;
        # only their order in the files does, and readers key them by reference.
        refs = list(dict.fromkeys(r.id for r, _ in todo))
        share = {rid: k % jobs for k, rid in enumerate(refs)}
        parts = [[(r, s) for r, s in todo if share[r.id] == w] for w in range(jobs)]
        ctx = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            futures = [
                pool.submit(_decode_items, out, config.seed, part, deadline, _WorkerLog(w))
                for w, part in enumerate(parts)
            ]
            finished = []
            for fut in futures:
                finished.extend(fut.result())
    for system_id, ref_id in finished:
        done[system_id].add(ref_id)
    return {s: len(ids) for s, ids in done.items()}


def verify(out: str | Path, *, n: int = 5, seed: int | None = None) -> list[dict[str, Any]]:
    """Re-synthesize and re-decode ``n`` finished utterances per system and compare them with the
    stored rows (audio hash and hypothesis). Returns one row per utterance with ``same``."""
    out = Path(out)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    cfg = manifest["config"]
    systems = [SystemConfig(**s) for s in cfg["systems"]]
    seed = cfg["seed"] if seed is None else seed
    refs = {}
    for line in (out / "references.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        refs[r["id"]] = AsrReference(**r)
    report = []
    with tempfile.TemporaryDirectory(prefix="sitar-asr-verify-") as tmp:
        for system in systems:
            rows = sorted(read_decodes(out / "decodes" / f"{system.id}.jsonl").values(),
                          key=lambda r: r["reference_id"])[:n]  # fmt: skip
            for row in rows:
                ref = refs[row["reference_id"]]
                pcm = add_noise(
                    synthesize(ref.text, system, Path(tmp)),
                    system.snr_db,
                    f"{seed}:{system.id}:{ref.id}",
                )
                hyp = decode_pcm(_decoder(system, ref.fold, out), pcm)
                report.append({
                    "system": system.id,
                    "reference_id": ref.id,
                    "same": hyp == row["hypothesis"]
                    and hashlib.sha256(pcm).hexdigest()[:16] == row["audio_sha256"],
                })  # fmt: skip
    return report
