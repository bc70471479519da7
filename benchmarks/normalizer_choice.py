"""Choose the normaliser library by measurement (issue #28; results in experiments/normaliser-choice/).

Each candidate maps a string to the token sequence CGD would compare (SPEC §1 normalized tokens of
the candidate's output). Measured on the public invariance suite (benchmarks/invariance/):

- format: written-vs-spoken pairs that should compare equal (share of pairs with equal tokens);
- flips: value and contrast changes that must stay different (share still different);
- traps: pairs whose meaning differs and that a normaliser must not merge (share still
  different): signs, currencies, percent, bracketed and filler words, a noun "cause";
- time per string (mean over the format pairs' strings, best of three warm passes).

Candidates: ``none`` (SPEC §1 only: case and punctuation), ``text2num`` (``alpha2digit``),
``whisper`` (``whisper_normalizer.english.EnglishTextNormalizer`` as published), ``nemo``
(``nemo_text_processing`` inverse normaliser, when installed), and ``sitar`` (sitar.normalize:
whisper-normalizer's parts with SITAR's overrules). A missing package is reported, not fatal.

``--cost`` also measures, in one run, the time ``sitar.normalize.normalize_pair`` takes against
``Scorer.score`` with the default checkpoint on all the suite's pairs (issue #28: normalisation
should cost at most 5 % of scoring).

    python -m benchmarks normalizer-choice [--json out.json] [--cost]
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from benchmarks.invariance import load_suite
from sitar._main import ArgumentParser, tool_main
from sitar.text import tokenize

ROOT = Path(__file__).resolve().parents[1]

# Pairs that mean different things: a normaliser that makes them equal changes meaning.
TRAPS = [
    ("Water freezes below -2 degrees.", "water freezes below 2 degrees"),
    ("The balance is minus fifty dollars.", "the balance is fifty dollars"),
    ("It costs $5.", "it costs five euros"),
    ("It costs £5.", "it costs five"),
    ("Prices fell 5%.", "prices fell five"),
    ("It is (not) ready.", "it is ready"),
    ("Uh, I want the red one.", "i want the red one"),
    ("Um, send it now.", "send it now"),
    ("What is the cause of it?", "what is the because of it"),
    ("Ship 300 crates.", "ship three thousand crates"),
    ("Wire three hundred dollars.", "wire three thousand dollars"),
    ("The pin is 1.5.", "the pin is 15"),
    ("I want one.", "i want 1 1"),
    ("Call at 3:30.", "call at 330"),
    ("Room 5-10.", "room minus 10"),
]

ISSUE_CASES = [
    ("The clinic is closed on weekends.", "the clinic is closed on week ends"),
    ("Meet me at Gate 7C.", "meet me at gate seven c"),
    ("Water freezes below -2 degrees here.", "water freezes below minus two degrees here"),
    ("The deposit is 2,500 dollars.", "the deposit is twenty five hundred dollars"),
    (
        "Ship 350 crates to the Denver depot.",
        "ship three hundred and fifty crates to the denver depot",
    ),
]


def _norms(text: str) -> tuple[str, ...]:
    return tuple(t.norm for t in tokenize(text))


def _candidates() -> dict[str, tuple[str, Callable[[str, str], tuple[tuple[str, ...], ...]]]]:
    """name -> (package==version or why missing, pair -> (ref tokens, hyp tokens))."""
    out: dict[str, tuple[str, Callable[[str, str], tuple[tuple[str, ...], ...]]]] = {}
    out["none"] = ("sitar tokenizer", lambda r, h: (_norms(r), _norms(h)))
    try:
        from text_to_num import alpha2digit

        out["text2num"] = (
            f"text2num=={version('text2num')}",
            lambda r, h: (_norms(alpha2digit(r, "en")), _norms(alpha2digit(h, "en"))),
        )
    except ImportError:
        out["text2num"] = ("not installed", _missing)
    try:
        from whisper_normalizer.english import EnglishTextNormalizer

        whisper = EnglishTextNormalizer()
        out["whisper"] = (
            f"whisper-normalizer=={version('whisper-normalizer')}",
            lambda r, h: (_norms(whisper(r)), _norms(whisper(h))),
        )
    except ImportError:
        out["whisper"] = ("not installed", _missing)
    try:
        from nemo_text_processing.inverse_text_normalization.inverse_normalize import (
            InverseNormalizer,
        )

        itn = InverseNormalizer(lang="en")
        out["nemo"] = (
            f"nemo-text-processing=={version('nemo-text-processing')}",
            lambda r, h: (
                _norms(itn.inverse_normalize(r, verbose=False)),
                _norms(itn.inverse_normalize(h, verbose=False)),
            ),
        )
    except ImportError:
        out["nemo"] = ("not installed", _missing)
    try:
        from sitar.normalize import normalize_pair, normalizer_id

        def sitar_pair(r: str, h: str) -> tuple[tuple[str, ...], ...]:
            pair = normalize_pair(r, h)
            return (_norms(pair.reference.text), _norms(pair.hypothesis.text))

        out["sitar"] = (normalizer_id(), sitar_pair)
    except (ImportError, PackageNotFoundError):
        out["sitar"] = ("not installed", _missing)
    return out


def _missing(reference: str, hypothesis: str) -> tuple[tuple[str, ...], ...]:
    raise ImportError


def _timed(pair: Callable[[str, str], object], pairs: list[tuple[str, str]]) -> float:
    start = time.perf_counter()
    for reference, hypothesis in pairs:
        pair(reference, hypothesis)
    return time.perf_counter() - start


def measure() -> list[dict[str, object]]:
    formats = [(i.reference, i.hypothesis) for i in load_suite("format")]
    flips = [(i.reference, i.hypothesis) for i in load_suite("flips")]
    rows = []
    for name, (package, pair) in _candidates().items():
        row: dict[str, object] = {"candidate": name, "package": package}
        if package == "not installed":
            rows.append(row)
            continue
        same = [a == b for a, b in (pair(r, h) for r, h in formats)]  # also loads the library
        elapsed = min(_timed(pair, formats) for _ in range(3))
        row["issue_cases_equal"] = sum(a == b for a, b in (pair(r, h) for r, h in ISSUE_CASES))
        row["format_equal"] = sum(same)
        row["format_total"] = len(formats)
        row["flips_kept"] = sum(a != b for a, b in (pair(r, h) for r, h in flips))
        row["flips_total"] = len(flips)
        row["traps_kept"] = sum(a != b for a, b in (pair(r, h) for r, h in TRAPS))
        row["traps_total"] = len(TRAPS)
        row["us_per_string"] = round(elapsed / (2 * len(formats)) * 1e6, 1)
        rows.append(row)
    return rows


def cost() -> dict[str, float]:
    """Seconds to score the suite's pairs and to normalise them, timed in one run (best of two)."""
    from sitar import Scorer
    from sitar.normalize import normalize_pair

    items = load_suite("format") + load_suite("flips")
    references = [i.reference for i in items]
    hypotheses = [i.hypothesis for i in items]
    scorer = Scorer.load()
    scorer.score(references=references[:16], hypotheses=hypotheses[:16])  # warm the session
    score_s = normalize_s = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        scorer.score(references=references, hypotheses=hypotheses)
        score_s = min(score_s, time.perf_counter() - start)
        start = time.perf_counter()
        for reference, hypothesis in zip(references, hypotheses, strict=True):
            normalize_pair(reference, hypothesis)
        normalize_s = min(normalize_s, time.perf_counter() - start)
    return {
        "pairs": len(items),
        "score_s": round(score_s, 3),
        "normalize_pair_s": round(normalize_s, 3),
        "share_percent": round(100 * normalize_s / score_s, 2),
    }


@tool_main("python -m benchmarks normalizer-choice")
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m benchmarks normalizer-choice", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--cost", action="store_true", help="also time normalize_pair vs score")
    args = parser.parse_args(argv)
    rows = measure()
    print(
        "| candidate | package | issue cases equal | format pairs equal | flips kept | traps kept | µs/string |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        if "format_equal" not in row:
            print(f"| {row['candidate']} | {row['package']} | | | | | |")
            continue
        print(
            f"| {row['candidate']} | {row['package']} | {row['issue_cases_equal']}/{len(ISSUE_CASES)} "
            f"| {row['format_equal']}/{row['format_total']} | {row['flips_kept']}/{row['flips_total']} "
            f"| {row['traps_kept']}/{row['traps_total']} | {row['us_per_string']} |"
        )
    out: dict[str, object] = {"candidates": rows}
    if args.cost:
        out["cost"] = cost()
        print(f"cost: {out['cost']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
