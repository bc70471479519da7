"""``sitar.integrations.torchmetrics.SitarScore`` with the real torchmetrics package: batches,
merged states, a simulated and a real (gloo, two processes) sync all give the scorer's corpus
values."""

from __future__ import annotations

import copy
import math
import os
import pickle
import socket
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")

from sitar.errors import InputError  # noqa: E402
from sitar.integrations.torchmetrics import SitarScore  # noqa: E402
from sitar.scorer import Scorer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
REFS = [
    "turn left at the bank",
    "the meeting is at five",
    "send two hundred dollars",
    "call doctor smith at noon",
    "the flight leaves from gate twelve",
]
HYPS = [
    "turn right at the bank",
    "the meeting is at nine",
    "send two hundred dollars",
    "call doctor smith at new",
    "the flight leaves from gate twenty",
]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def expected():
    return Scorer.load().score(references=REFS, hypotheses=HYPS)


def _values(out):
    return {k: float(v) for k, v in out.items()}


def test_batches_give_the_corpus_values_of_one_call(expected):
    metric = SitarScore()
    metric.update(HYPS[:2], REFS[:2])
    metric.update(HYPS[2:], REFS[2:])
    batched = _values(metric.compute())
    whole = SitarScore()
    whole.update(HYPS, REFS)
    assert batched == _values(whole.compute())
    assert batched == {"score": expected.system_score, "swer": expected.system_swer}
    assert metric.signature == expected.signature
    assert metric.compute()["score"].dtype == torch.float64


def test_a_single_pair_may_be_given_as_str(expected):
    metric = SitarScore()
    for hyp, ref in zip(HYPS, REFS, strict=True):
        metric.update(hyp, ref)
    assert float(metric.compute()["score"]) == expected.system_score


def test_merge_state_of_two_metrics(expected):
    first, second = SitarScore(), SitarScore()
    first.update(HYPS[:3], REFS[:3])
    second.update(HYPS[3:], REFS[3:])
    first.merge_state(second)
    assert _values(first.compute()) == {
        "score": expected.system_score,
        "swer": expected.system_swer,
    }


def test_a_simulated_two_process_sync(expected):
    """What torchmetrics does under DDP, with the other rank's tensors handed in by a fake
    all-gather (``dist_sync_fn`` gets each state tensor in ``add_state`` order)."""
    remote = iter([])

    def all_gather(tensor, group=None):
        return [tensor, next(remote)]

    # compute() syncs (and unsyncs after) as it does under DDP, through these two hooks.
    local = SitarScore(dist_sync_fn=all_gather, distributed_available_fn=lambda: True)
    other = SitarScore()
    local.update(HYPS[:1], REFS[:1])
    local.update(HYPS[1:2], REFS[1:2])
    other.update(HYPS[2:], REFS[2:])
    remote = iter(
        [torch.cat(other.scores), torch.cat(other.swer_numerators), torch.cat(other.swer_lengths)]
    )
    assert _values(local.compute()) == {
        "score": expected.system_score,
        "swer": expected.system_swer,
    }
    assert len(torch.cat(local.scores)) == 2  # unsynced again: back to its own pairs


def test_the_pair_head_has_no_swer(expected):
    metric = SitarScore(head="pair")
    metric.update(HYPS, REFS)
    out = metric.compute()
    assert set(out) == {"score"}
    assert "head:pair" in metric.signature
    pair = Scorer.load(head="pair").score(references=REFS, hypotheses=HYPS)
    assert float(out["score"]) == pair.system_score


def test_forward_returns_the_batch_and_accumulates(expected):
    metric = SitarScore()
    batch = metric(HYPS[:2], REFS[:2])
    alone = Scorer.load().score(references=REFS[:2], hypotheses=HYPS[:2])
    assert float(batch["score"]) == alone.system_score
    metric(HYPS[2:], REFS[2:])
    assert float(metric.compute()["score"]) == expected.system_score


def test_clone_and_reset():
    metric = SitarScore()
    metric.update(HYPS, REFS)
    twin = metric.clone()  # a deep copy: the metric keeps options, not the ONNX session
    assert _values(twin.compute()) == _values(metric.compute())
    thawed = pickle.loads(pickle.dumps(metric))  # as DDP spawn and Lightning checkpoints do
    assert _values(thawed.compute()) == _values(metric.compute())
    metric.reset()
    with pytest.warns(UserWarning, match="before the ``update``"):
        out = metric.compute()
    assert math.isnan(float(out["score"])) and math.isnan(float(out["swer"]))
    assert copy.deepcopy(metric).signature == metric.signature


def test_options_and_metric_keywords_are_split_and_checked():
    assert SitarScore(compute_on_cpu=True, normalize="sitar").compute_on_cpu is True
    with pytest.raises(InputError, match="normalize must be one of"):
        SitarScore(normalize="nfc")
    with pytest.raises(ValueError, match="Unexpected keyword arguments"):
        SitarScore(heads="pair")
    with pytest.raises(InputError, match="batch_size must be a positive integer"):
        SitarScore(batch_size=0)


@pytest.mark.parametrize(
    ("preds", "target", "message"),
    [
        (["a", "b"], ["a"], "2 predictions and 1 references"),
        ([1], ["a"], r"predictions\[0\] must be a str"),
        (["a"], None, "references must be a list"),
    ],
)
def test_bad_batches_are_input_errors(preds, target, message):
    with pytest.raises(InputError, match=message):
        SitarScore().update(preds, target)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank(rank: int, port: int, queue) -> None:
    import torch.distributed as dist

    os.environ["HF_HUB_OFFLINE"] = "1"
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    try:
        metric = SitarScore()
        # Rank 0 gets two batches, rank 1 one: uneven shards, as a DistributedSampler's last.
        if rank == 0:
            metric.update(HYPS[:1], REFS[:1])
            metric.update(HYPS[1:3], REFS[1:3])
        else:
            metric.update(HYPS[3:], REFS[3:])
        queue.put((rank, _values(metric.compute())))
    finally:
        dist.destroy_process_group()


@pytest.mark.slow  # two fresh interpreters each load torch and the model: ~40 s on 2 cores
def test_a_real_two_process_gloo_sync(expected):
    mp = torch.multiprocessing.get_context("spawn")
    queue = mp.Queue()
    port = _free_port()
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + env_path if env_path else "")
    try:
        procs = [mp.Process(target=_rank, args=(r, port, queue)) for r in range(2)]
        for p in procs:
            p.start()
        results = dict(queue.get(timeout=120) for _ in procs)
        for p in procs:
            p.join(timeout=60)
    finally:
        os.environ["PYTHONPATH"] = env_path
    want = {"score": expected.system_score, "swer": expected.system_swer}
    assert results == {0: want, 1: want}, (results, sys.version)


# -- several references per prediction --------------------------------------------------------------

CANDIDATES = [[r, h] if i % 2 else [r] for i, (r, h) in enumerate(zip(REFS, HYPS, strict=True))]


def test_lists_of_references_accumulate_over_batches_and_merges():
    from sitar.multiref import score_multi

    multi = score_multi(Scorer.load(), references=CANDIDATES, hypotheses=HYPS)
    assert multi.chosen == (0, 1, 0, 1, 0)
    want = {"score": multi.result.system_score, "swer": multi.result.system_swer}
    batched = SitarScore()
    batched.update(HYPS[:2], CANDIDATES[:2])
    batched.update(HYPS[2:], CANDIDATES[2:])
    assert _values(batched.compute()) == want
    first, second = SitarScore(), SitarScore()
    first.update(HYPS[:3], CANDIDATES[:3])
    second.update(HYPS[3:], CANDIDATES[3:])
    first.merge_state(second)
    assert _values(first.compute()) == want
    single = SitarScore()  # one pair at a time: a str and its candidate list
    for hyp, refs in zip(HYPS, CANDIDATES, strict=True):
        single.update(hyp, refs)
    assert _values(single.compute()) == want


def test_a_bad_candidate_list_is_an_input_error():
    with pytest.raises(InputError, match=r"references\[1\] is empty"):
        SitarScore().update(HYPS[:2], [["a"], []])
    with pytest.raises(InputError, match="2 references and 1 hypotheses"):
        SitarScore().update(HYPS[:1], [["a"], ["b"]])
