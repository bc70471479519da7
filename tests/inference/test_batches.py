"""sitar.batches: exact-length batches in input order, and the errors a broken backend gets."""

from __future__ import annotations

import numpy as np
import pytest

from sitar.batches import ModelOutput, run_exact_length
from sitar.errors import CheckpointError, InputError

PAIRS = [
    ("turn left", "turn right"),
    ("send the report to anna by friday", "send the report to hannah by friday"),
    ("ok", "okay"),
    ("the meeting is at nine", "the meeting is at five"),
    ("turn left", "turn left now"),
]


class _Recorder:
    """A backend whose score is the input's token count plus a small per-row tag, recording
    the width of every batch it is given."""

    input_names = ("input_ids", "attention_mask")

    def __init__(self, broken: str | None = None) -> None:
        self.widths: list[tuple[int, int]] = []
        self.broken = broken

    def run_batch(self, arrays):
        ids = arrays["input_ids"]
        self.widths.append(ids.shape)
        score = arrays["attention_mask"].sum(axis=1).astype(np.float64)
        if self.broken == "count":
            score = score[:-1]
        if self.broken == "nan":
            score = score * np.nan
        return {"score": score}


@pytest.fixture
def encoder(scorer_fp32):
    return scorer_fp32.encoder


@pytest.fixture
def jobs(encoder):
    return encoder.encode([r for r, _ in PAIRS], [h for _, h in PAIRS])


@pytest.mark.parametrize("batch_size", [1, 2, 32])
def test_outputs_come_back_in_input_order_from_unpadded_batches(encoder, jobs, batch_size):
    backend = _Recorder()
    out = run_exact_length(
        jobs, encoder=encoder, predictor=backend, batch_size=batch_size, max_length=512
    )
    assert all(isinstance(o, ModelOutput) for o in out)
    assert [o.score for o in out] == [float(len(j)) for j in jobs]  # each input at its own width
    widths = {len(j) for j in jobs}
    assert {w for _, w in backend.widths} == widths  # no batch mixes two widths
    assert all(n <= batch_size for n, _ in backend.widths)
    assert all(o.gap_logits is None for o in out)  # a plain input has no gap logits


def test_no_jobs_calls_nothing(encoder):
    backend = _Recorder()
    assert (
        run_exact_length([], encoder=encoder, predictor=backend, batch_size=4, max_length=8) == []
    )
    assert backend.widths == []


def test_an_input_over_max_length_is_an_input_error_not_a_truncation(encoder, jobs):
    longest = max(len(j) for j in jobs)
    with pytest.raises(InputError, match=f"{longest} tokens exceeds max_length {longest - 1}"):
        run_exact_length(
            jobs, encoder=encoder, predictor=_Recorder(), batch_size=4, max_length=longest - 1
        )


@pytest.mark.parametrize(
    ("broken", "message"),
    [("count", "returned 0 scores for a batch of 1 pairs"), ("nan", "non-finite scores")],
)
def test_a_broken_backend_is_a_checkpoint_error(encoder, jobs, broken, message):
    with pytest.raises(CheckpointError, match=message):
        run_exact_length(
            jobs[:1],
            encoder=encoder,
            predictor=_Recorder(broken),
            batch_size=4,
            max_length=512,
            model_name="tiny",
        )
