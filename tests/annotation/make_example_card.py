"""Regenerate ``data_cards/annotation-fixture.md``: the data card of the test-fixture run.

Runs the pipeline on ``many_pairs(30)`` against the fake server (no network) and builds the
dataset with the default seed. Usage, from the repository root (``annotation`` and this folder's
helpers must be importable)::

    PYTHONPATH=.:tests/annotation python tests/annotation/make_example_card.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from annotation_helpers import make_config, many_pairs
from fake_llm import FakeLLM

from annotation.dataset import build_dataset
from annotation.pipeline import run_pairs, start_run

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    with FakeLLM() as server, tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        config = make_config(server, reviewers=4)
        config.annotator.model = "fake-annotator (tests/annotation/fake_llm.py)"
        start_run(run, many_pairs(30), config, source="tests/annotation many_pairs(30)")
        run_pairs(run)
        stats = build_dataset(
            run,
            Path(tmp) / "dataset",
            card_path=ROOT / "data_cards" / "annotation-fixture.md",
            name="annotation-fixture",
        )
    print(f"wrote {stats['card']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
