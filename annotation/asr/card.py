"""The data card of a recognizer-output build (``data_cards/sitar-asr-v1.md``), rendered from the
build's own files (``manifest.json``, ``summary.json``, ``sheets/manifest.json``,
``timings.jsonl``) so that every number in it is the build's."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

__all__ = ["render_card"]


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _timings(out: Path, systems: list[str]) -> dict[str, dict[str, float]]:
    """Last timing per (system, reference): audio seconds and decode seconds (wall clock)."""
    last: dict[tuple[str, str], dict[str, Any]] = {}
    path = out / "timings.jsonl"
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            last[(row["system"], row["reference_id"])] = row
    acc: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for (system, _rid), row in last.items():
        if system in systems:
            a = acc[system]
            a[0] += 1
            a[1] += row["audio_s"]
            a[2] += row["synth_s"]
            a[3] += row["decode_s"]
    return {
        s: {"n": a[0], "audio_s": a[1], "synth_s": a[2], "decode_s": a[3]} for s, a in acc.items()
    }


def render_card(out: str | Path, *, name: str = "sitar-asr-v1") -> str:
    out = Path(out)
    manifest = _load(out / "manifest.json")
    summary = _load(out / "summary.json")
    sheets = _load(out / "sheets" / "manifest.json")
    if manifest is None or summary is None:
        from sitar.errors import InputError

        raise InputError(f"{out} has no manifest.json/summary.json; run build and export first")
    cfg = manifest["config"]
    systems = cfg["systems"]
    timing = _timings(out, [s["id"] for s in systems])
    lines = [
        f"# Data card: {name} (real recognizer output on the reference pool)",
        "",
        "| | |",
        "|---|---|",
        "| Builder | `annotation/asr/` (`python -m annotation.asr build OUT`); tests "
        "`tests/annotation/test_asr.py` |",
        f"| Build version | `{cfg['build_version']}`, seed {cfg['seed']}, {cfg['folds']} LM folds |",
        f"| References | {manifest['references']} ({summary['references_decoded']} decoded so far): "
        f"every pool utterance, {cfg['fills_per_template']} fills of every template"
        + (" and the 2-8 word short commands" if cfg.get("short_commands") else "")
        + f" ({manifest['reference_words']} words) |",
        f"| Pairs | {summary['pairs']} (reference, hypothesis) pairs, schema `sitar-asr-pair-1` |",
        "| Language | English (US-English acoustic model; the pool has British spellings) |",
        "| Speech | **synthetic** (espeak-ng), not human speech |",
        "| Licence | Apache-2.0 (pool text is the project's own) |",
        "",
        "## What it is for",
        "",
        "Hypotheses that a real recognizer produced (runs of adjacent errors, real-word "
        "substitutions that sound alike, dropped function words, garbled names), to be labelled "
        "by hand through the human-sheet path (issue 12, item 2) and used for training and "
        "testing alongside the synthetic corpus. The pairs carry no labels: the sheets under "
        "`sheets/` are blank; the filled ones are committed under `annotation/asr/labels/` and "
        "described in `data_cards/sitar-asr-labels-v1.md`.",
        "",
        "## How it is made",
        "",
        "1. **References.** The pool (`annotation/sources/pool/*.jsonl`) and the templates, read "
        "with the synthetic generator's reader (`annotation.synth.generate.load_pool`, "
        "`build_references`). Each reference is rewritten into its *spoken form* "
        '(`annotation/asr/normalize.py`: `£312.40` -> "three hundred twelve pounds forty", '
        '`10:42` -> "ten forty-two", `KX-40917` -> "k x four zero nine one seven", accents '
        "stripped); the spoken form is both what is synthesized and the pairs' `reference`, so "
        "a number read aloud is not a format error. The pool text is kept as "
        "`reference_original`.",
        "2. **Domain LMs, held out by fold.** Pool items are hashed into "
        f"{cfg['folds']} folds (a template's fills share one). The trigram LM of fold *k* "
        "(absolute discounting with Katz back-off, written by `annotation/asr/arpa.py`, "
        "normalisation tested) is trained on the references of the other folds, "
        f"{cfg['variants_per_reference']} *slot-perturbed variants* of every fold-*k* "
        "reference (weekdays, months, number words, names and places swapped, negations "
        "toggled; a content word swapped when none of these occurs) and "
        f"{manifest['distractors']} template-style distractors (template fills "
        f"{cfg['fills_per_template']}-{cfg['fills_per_template'] + cfg['distractor_fills'] - 1}"
        "). A fold-*k* reference itself is never in its LM's text (sentences equal to one are "
        "dropped; tested). The dictionary is the pocketsphinx CMU dictionary restricted to the "
        "LM vocabulary. Words the dictionary lacks "
        f"({manifest['oov_reference_words']} of {manifest['reference_words']} reference words, "
        "mostly names) split LM sentences and cannot be recognized: they are always errors "
        "(no g2p).",
        "3. **Audio.** `espeak-ng -v VOICE -s RATE -p PITCH` -> WAV -> `sox -D` (dither off) -> "
        "16 kHz mono signed 16-bit raw; white Gaussian noise at the system's SNR (signal power "
        "of the whole utterance) from numpy's generator seeded by "
        '`sha256("{seed}:{system}:{reference}")`. Audio is not kept (its SHA-256 prefix is in '
        "each decode row).",
        "4. **Decoding.** pocketsphinx with the shipped US-English acoustic model, the fold's "
        "LM and dictionary, batch CMN, the front end re-initialized before every utterance "
        "(`reinit_feat`: without it pocketsphinx carries front-end and CMN state from one "
        "utterance to the next, so a hypothesis would depend on what was decoded before and a "
        "resumed build would differ from an uninterrupted one; tested), and the system's "
        "search settings.",
        "5. **Pairs, split, sheets** (`python -m annotation.asr export OUT`, also run at the end "
        "of `build`).",
        "",
        "## Systems",
        "",
        "| system | voice | rate (wpm) | pitch | SNR (dB) | beam | pbeam | wbeam | maxhmmpf | "
        "fwdflat | bestpath | lw | pairs | WER | exact |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in systems:
        row = summary["systems"].get(s["id"], {"pairs": 0, "wer": float("nan"), "exact": 0})
        snr = "clean" if s["snr_db"] is None else f"{s['snr_db']:g}"
        lines.append(
            f"| `{s['id']}` | `{s['voice']}` | {s['rate']} | {s['pitch']} | {snr} | "
            f"{s['beam']:g} | {s['pbeam']:g} | {s['wbeam']:g} | {s['maxhmmpf']} | "
            f"{'yes' if s['fwdflat'] else 'no'} | {'yes' if s['bestpath'] else 'no'} | "
            f"{s['lw']:g} | {row['pairs']} | {row['wer']:.3f} | {row['exact']:.2f} |"
        )
    lines += [
        "",
        "WER is corpus (micro) WER over SPEC §1 normalized tokens against the spoken-form "
        "reference; *exact* is the share of hypotheses equal to it. All systems use the same "
        "fold LMs; they differ in voice, rate, noise and search (several levers, because one "
        "lever alone degrades quality in steps).",
        "",
        "Tools: " + ", ".join(f"{k} `{v}`" for k, v in sorted(manifest["tools"].items())) + ".",
        "",
        "## Counts",
        "",
        f"- references: {manifest['references']}; decoded: {summary['references_decoded']}",
        f"- pairs: {summary['pairs']}; per split: "
        + ", ".join(f"{k} {v}" for k, v in summary["pairs_per_split"].items()),
        "- references per split (all references, decoded or not): "
        + ", ".join(f"{k} {v}" for k, v in summary["references_per_split"].items()),
        "- LM per fold: "
        + "; ".join(
            f"{k}: {v['sentences']} sentences, {v['vocabulary']} words, "
            f"{v['ngrams']['2']} bigrams, {v['ngrams']['3']} trigrams, "
            f"{v['held_out_references']} held-out references"
            for k, v in manifest["lm"].items()
        ),
    ]
    if timing:
        lines += [
            "",
            "Cost (wall clock on the build machine, shared with other jobs; `timings.jsonl`): "
            + "; ".join(
                f"`{s}` {t['decode_s'] / max(t['audio_s'], 1e-9):.2f} s of decoding per second "
                f"of audio ({t['n']:.0f} utterances, {t['audio_s'] / max(t['n'], 1):.1f} s each)"
                for s, t in sorted(timing.items())
            )
            + ".",
        ]
    lines += [
        "",
        "## Split",
        "",
        f"`splits.json`: train / validation / test = 75 / 10 / 15 over **pool items** (seed "
        f"{summary['split_seed']}, `annotation.synth.generate.assign_group_splits`; pool items "
        "and templates together, short commands on their own, exactly as the synthetic "
        "generator draws them, so a group has the same split here as in `sitar-synth-v1.2` and "
        "`v1.3`): every hypothesis of a reference, from every system, and every fill of a "
        "template share one split. Never split by pair. The split is independent of the LM "
        "folds.",
        "",
        "## Hand-labelling sheets",
        "",
    ]
    if sheets:
        lines += [
            f"`sheets/asr-sheet-NN.csv`: {len(sheets['sheets'])} blank sheets with "
            f"{sheets['gaps']} gap rows over {sheets['pairs']} pairs and "
            f"{sheets['references']} references (target {sheets['target_gaps']} gaps, sampling "
            f"seed {sheets['seed']}). Gaps per system: "
            + ", ".join(f"`{k}` {v}" for k, v in sheets["gaps_per_system"].items())
            + "; per split: "
            + ", ".join(f"{k} {v}" for k, v in sheets["gaps_per_split"].items())
            + ".",
            "",
            "Sampling: " + sheets["sampling"] + ". Sheets were exported in "
            f"{sheets.get('batches', 1)} batch(es) while the build was decoding "
            "(`--append-sheets`: earlier sheets are kept byte for byte and new ones take "
            "references on no sheet yet; a batch may be restricted to some splits with "
            "`--sheet-splits`); the per-split counts above are those at export time. "
            "Each sheet was written by "
            f"`{sheets['export_command']}` from its `.pairs.jsonl` (which also names the "
            "system(s) and the split of each pair).",
        ]
    else:
        lines.append("Not exported yet (`python -m annotation.asr export OUT`).")
    lines += [
        "",
        "One row per CGD gap (analyzer `lexicon`): `pair_id` (`system/reference_id`), "
        "`gap_id`, `reference`, `hypothesis`, the gap's two texts, `marked_reference` (the "
        "reference with `[[reference text => hypothesis text]]` at the gap) and "
        "`single_gap_hypothesis` (the reference with only this gap applied). Readers fill "
        "`tier` with `T0`, `T1` or `T2` for the single-gap hypothesis following SPEC §6's "
        "rubric, `direction` (`+`/`-` for a boundary case) and optionally `rank` and `note`; "
        "every gap of a pair must get a tier. `python -m annotation.asr labels OUT --labels "
        "annotation/asr/labels --records records.jsonl` imports every filled sheet at once "
        "(a gap's tier is the majority of its readers) and gives each record its split.",
        "",
        "## Rebuild",
        "",
        "```bash",
        "apt-get install espeak-ng sox",
        "pip install -e '.[asr]'",
        "python -m annotation.asr build /work/data/asr --jobs 2   # resumable; re-run to continue",
        "python -m annotation.asr verify /work/data/asr            # re-decode a few, compare",
        "```",
        "",
        "`build` is deterministic for fixed tool versions (seeded fills, folds, variants, noise; "
        "batch CMN), skips every utterance already in `decodes/*.jsonl` (each row is flushed "
        "and fsynced; a torn last line is cut off), and ends by writing `pairs.jsonl`, "
        "`splits.json`, `summary.json` and `sheets/`. `--jobs N` decodes in N processes (the "
        "rows do not depend on it: every utterance is decoded from a fresh front end). "
        "`--stop-after SECONDS` stops cleanly; `--splits validation` decodes only the "
        "references of those splits (the split `export` draws, at `--split-seed`), for an "
        "evaluation set; "
        "`export` re-writes pairs, split and sheets from the decodes so far; "
        "`python -m annotation.asr card OUT --out data_cards/sitar-asr-v1.md` renders this card.",
        "",
        "## What is and is not committed",
        "",
        "Committed: the code, the tests and this card. Not committed: audio (never kept), LMs, "
        "decodes, pairs, splits and sheets (all under the build folder, rebuilt by the command "
        "above).",
        "",
        "## Known limits",
        "",
        "- **Synthetic speech**: espeak-ng voices are formant synthesis, far cleaner and more "
        "regular than people; errors come from noise and beam pruning, not from accents, "
        "hesitations or overlapping talk. The plain `en-us` voice decodes badly and is not used.",
        "- **Domain LMs** are built from the pool itself (held out per fold, with perturbed "
        "variants of the held-out references): errors lean towards in-domain real words "
        "(swapped days, numbers, names), which is the intent, but the LM is much closer to the "
        "test text than a general-purpose recognizer's.",
        "- Dictionary words only: names and words outside the CMU dictionary are always errors.",
        '- Spoken-form references follow our normalizer (for example `£312.40` as "three '
        'hundred twelve pounds forty"); espeak-ng may read a word differently. Readers found a '
        'few bad renderings: "£3.4 million" became "three pounds four million" and "24.6p" '
        '"twenty-four.six p" (decimals inside amounts); they labelled such pairs as written.',
        "- One acoustic model (pocketsphinx US English); WERs are for this build's settings.",
    ]
    if summary["references_decoded"] < manifest["references"]:
        lines += [
            f"- **Partial build**: {summary['references_decoded']} of {manifest['references']} "
            "references are decoded (the build machine was shared); re-running the command "
            "continues where it stopped.",
        ]
    return "\n".join(lines) + "\n"
