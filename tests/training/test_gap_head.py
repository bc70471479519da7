"""SPEC §7b end to end on a tiny DeBERTa-v3: train with the gap head, export (ONNX parity of the
per-gap logits), score with head ``gaps``: exact SPEC §5 aggregation of the predicted positions,
batch invariance, long pairs windowed gap by gap, and ``explain`` from the same pass."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from sitar.checkpoint import CheckpointConfig
from sitar.errors import CheckpointError, InputError
from sitar.gapscore import aggregate
from sitar.modeling import TorchPredictor
from sitar.scorer import Scorer
from sitar.signature import parse_signature
from sitar.targets import score_from_tiers
from training.loop import train

PAIRS = [
    ("please call the doctor tomorrow", "please call the office tomorrow"),
    ("send the report on friday", "send the report on monday"),
    ("we will meet at three", "we will uh meet at three"),
    ("do not cancel the order", "do cancel the order"),
    ("the bus leaves at noon", "the bus leaves at noon"),
    ("book a table for two", "book table for two people"),
    ("call me later", "call me"),
    ("", "hello there"),
]


@pytest.fixture(scope="module")
def gap_checkpoint(tmp_path_factory, tiny_backbone, records_file):
    from training.config import load_config
    from training.export import export_run

    out = tmp_path_factory.mktemp("gap")
    config = load_config(
        None,
        [
            f"backbone={tiny_backbone}",
            f"data=[{records_file}]",
            f"output_dir={out / 'run'}",
            "max_length=64",
            "batch_size=8",
            "eval_batch_size=16",
            "learning_rate=1e-3",
            "head_learning_rate=1e-3",
            "max_steps=4",
            "eval_every=2",
            "log_every=1",
            "length_group_size=2",
            "cpu=true",
            "precision=fp32",
            "seed=3",
            "gap_head=true",
            "pooling=mean_max",
        ],
    )
    result = train(config)
    ckpt = export_run(
        result.run_dir, out / "ckpt", parity_n=8, variants=("fp32", "int8", "int8row")
    )
    return result, ckpt


def _evals(result):
    """The evaluation records of a run's metrics.jsonl."""
    rows = [json.loads(x) for x in (result.run_dir / "metrics.jsonl").read_text().splitlines()]
    return [row["eval"] for row in rows if "eval" in row]


def test_run_logs_gap_metrics_and_export_records_the_head(gap_checkpoint):
    result, ckpt = gap_checkpoint
    evals = _evals(result)
    assert evals and all(0.0 <= e["gap_tier_accuracy"] <= 1.0 for e in evals)
    assert all(-1.0 <= e["gaps_spearman"] <= 1.0 or np.isnan(e["gaps_spearman"]) for e in evals)
    # the opt-in median decoding is reported beside the default, from the same logits
    assert all(0.0 <= e["gap_median_tier_accuracy"] <= 1.0 for e in evals)
    assert all("gaps_median_spearman" in e and "gaps_tb2_spearman" in e for e in evals)
    assert not any("gaps_median_tb2_spearman" in e for e in evals)
    config = CheckpointConfig.load(ckpt.folder)
    assert config.onnx.inputs[-1] == "gap_index" and "gap_logits" in config.onnx.outputs
    assert config.extra["markers"]["open"] == "\u27e6" and config.extra["scoring"]["head"] == "gaps"
    assert config.extra["head"]["gap_head"] is True
    assert config.loss_weights["gap"] == 1.0
    parity = json.loads((ckpt.folder / "parity.json").read_text())
    assert parity["fp32"]["passed"] and parity["fp32"]["max_abs_diff_gap_logits"] < 1e-4
    assert parity["int8"]["quantization"]["method"].endswith("quantize_static")
    assert parity["int8row"]["quantization"]["n_quantized"] > 0
    assert np.isfinite(parity["int8row"]["max_abs_diff_gap_logits"])
    assert parity["graph_rewrites"] == [{"pass": "drop_softmax_nan_guards"}]
    onnx = pytest.importorskip("onnx")
    graph = onnx.load(str(ckpt.folder / "model.onnx")).graph
    assert "IsNaN" not in {n.op_type for n in graph.node}  # the rewrite the record names ran


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_gap_head_scores_are_spec5_of_the_predicted_positions(gap_checkpoint, backend):
    _, ckpt = gap_checkpoint
    scorer = Scorer.load(ckpt.folder, backend=backend)
    assert scorer.head == "gaps"
    refs, hyps = zip(*PAIRS, strict=True)
    analyses = scorer.analyze(references=list(refs), hypotheses=list(hyps))
    result = scorer.score(references=list(refs), hypotheses=list(hyps))
    sig = parse_signature(result.signature)
    assert sig["head"] == "gaps" and sig["mark"] == "1"
    for a, raw in zip(analyses, result.raw, strict=True):
        if a.identical:
            assert raw == 0.0 and a.gaps == ()
            continue
        assert len(a.gaps) == len(a.segmentation.gaps) >= 1
        lo = score_from_tiers([g.tier for g in a.gaps], [g.direction for g in a.gaps])
        hi = aggregate(a.gaps)[2]
        assert lo <= raw < hi  # SPEC §5 exactly, plus a tie-breaker inside [lo, hi)


def test_onnx_and_torch_agree(gap_checkpoint):
    _, ckpt = gap_checkpoint
    refs, hyps = zip(*PAIRS, strict=True)
    # fp32 graph against the torch weights (the int8 graph drifts by design)
    a = Scorer.load(ckpt.folder, variant="fp32").score(references=list(refs), hypotheses=list(hyps))
    b = Scorer.load(ckpt.folder, backend="torch").score(
        references=list(refs), hypotheses=list(hyps)
    )
    assert np.max(np.abs(np.subtract(a.raw, b.raw))) < 1e-4


@pytest.mark.parametrize("variant", ["fp32", "int8", "int8row"])
def test_scores_do_not_depend_on_the_batch(gap_checkpoint, variant):
    """fp32, the statically quantized int8 graph (fixed activation scales) and the row-wise int8
    graph (one activation scale per token row, computed from that row alone)."""
    _, ckpt = gap_checkpoint
    scorer = Scorer.load(ckpt.folder, variant=variant)
    rng = random.Random(5)
    words = "please call the doctor send report on friday monday we will meet at three not".split()
    refs, hyps = [], []
    for _ in range(40):
        r = [rng.choice(words) for _ in range(rng.randint(2, 14))]
        h = list(r)
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(h))
            op = rng.random()
            if op < 0.4:
                h[k] = rng.choice(words)
            elif op < 0.7:
                del h[k]
            else:
                h.insert(k, rng.choice(words))
            if not h:
                h = ["uh"]
        refs.append(" ".join(r))
        hyps.append(" ".join(h))
    base = np.array(scorer.score(references=refs, hypotheses=hyps, batch_size=1).raw)
    for batch_size in (3, 8, 32, 128):
        got = np.array(scorer.score(references=refs, hypotheses=hyps, batch_size=batch_size).raw)
        assert np.max(np.abs(got - base)) <= 1e-6, batch_size
    order = list(range(len(refs)))
    rng.shuffle(order)
    shuffled = scorer.score(
        references=[refs[i] for i in order], hypotheses=[hyps[i] for i in order], batch_size=16
    ).raw
    assert np.max(np.abs(np.array(shuffled) - base[order])) <= 1e-6


def test_long_pairs_classify_every_gap_in_one_window(gap_checkpoint):
    _, ckpt = gap_checkpoint
    scorer = Scorer.load(ckpt.folder)
    sentence = "please send the report to the client on friday and call the doctor . "
    ref = sentence * 6
    hyp = ref.replace("friday", "monday", 2).replace("doctor", "bank", 1)
    result = scorer.score(references=[ref], hypotheses=[hyp])
    assert result.windowed == (True,) and result.n_windows[0] >= 2
    (a,) = scorer.analyze(references=[ref], hypotheses=[hyp])
    assert len(a.gaps) == len(a.segmentation.gaps) == 3
    lo, hi = aggregate(a.gaps)[1:]
    assert lo <= result.raw[0] < hi


def test_explain_comes_from_the_same_pass(gap_checkpoint):
    _, ckpt = gap_checkpoint
    scorer = Scorer.load(ckpt.folder)
    r, h = "do not cancel the order on friday", "do cancel the order on monday"
    exp = scorer.explain(r, h)
    (a,) = scorer.analyze(references=[r], hypotheses=[h])
    assert exp.method == "gaps" and exp.n_model_inputs == 1
    assert [(g.tier, g.direction) for g in exp.gaps] == [(p.tier, p.direction) for p in a.gaps]
    assert exp.score == pytest.approx(a.raw / (7 / 3))
    cross = scorer.explain(r, h, method="rescore")
    assert cross.method == "rescore" and cross.n_model_inputs == 1 + len(cross.gaps)


def test_report_tiers_from_the_same_pass_or_rescored(gap_checkpoint):
    pytest.importorskip("matplotlib")
    from sitar.diagnostics import GAP_HEAD_RULE, TIER_RULE
    from sitar.report import build_report

    _, ckpt = gap_checkpoint
    scorer = Scorer.load(ckpt.folder)
    refs = {"u1": "do not cancel the order on friday", "u2": "call the doctor"}
    systems = {"A": {"u1": "do cancel the order on monday", "u2": "call the office"}}
    metas = {}
    for method in ("auto", "rescore"):
        page = build_report(
            scorer, references=refs, systems=systems, n_bootstrap=10, wer=False, method=method
        )
        data = json.loads(
            re.search(
                r"<script type='application/json' id='sitar-data'>(.*?)</script>", page, re.S
            ).group(1)
        )
        metas[method] = data["meta"], page
    assert metas["auto"][0]["explain_method"] == "gaps"
    assert metas["auto"][0]["tier_rule"] == GAP_HEAD_RULE
    assert "gap head of the scoring pass" in metas["auto"][1]
    assert metas["rescore"][0]["explain_method"] == "rescore"
    assert metas["rescore"][0]["tier_rule"] == TIER_RULE
    assert "single-gap score" in metas["rescore"][1]


def test_head_choice_and_errors(gap_checkpoint, tmp_path):
    _, ckpt = gap_checkpoint
    pair = Scorer.load(ckpt.folder, head="pair")
    assert parse_signature(pair.signature)["head"] == "pair"
    result = pair.score(references=["call the doctor"], hypotheses=["call the office"])
    assert 0.0 <= result.scores[0] <= 1.0
    with pytest.raises(InputError, match="head must be one of"):
        Scorer.load(ckpt.folder, head="best")
    with pytest.raises(CheckpointError, match="gap-marked input"):
        TorchPredictor(ckpt.folder, device="cpu").predict_raw(["a"], ["b"])
    # A config whose marker ids disagree with the tokenizer is refused.
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(ckpt.folder, bad)
    data = json.loads((bad / "sitar_config.json").read_text())
    data["markers"]["open_id"] = 3
    data.pop("integrity", None)  # an edited config without digests is unverified
    (bad / "sitar_config.json").write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="allow_unverified"):
        Scorer.load(bad)
    with pytest.warns(UserWarning, match="unverified"):
        with pytest.raises(CheckpointError, match="different exports"):
            Scorer.load(bad, allow_unverified=True)


def test_records_report_gives_per_gap_accuracy(gap_checkpoint, records_file):
    from training.evaluate_checkpoint import records_report

    _, ckpt = gap_checkpoint
    report = records_report(Scorer.load(ckpt.folder), [records_file])
    gaps = report["gaps"]
    assert gaps["n_gaps"] > 0
    assert sum(map(sum, gaps["confusion_tiers"])) == gaps["n_gaps"]
    assert 0.0 <= gaps["position_accuracy"] <= gaps["tier_accuracy"] <= 1.0


def test_torch_weights_recovered_from_the_onnx_graph(gap_checkpoint, tmp_path):
    """``training.recover``: a checkpoint without torch weights becomes fine-tunable again, with the
    very weights that were exported (DeBERTa-v3: relative attention, gap head, markers)."""
    import shutil

    from safetensors.torch import load_file

    from sitar.modeling import load_regressor
    from training.recover import graph_state_dict, recover

    _, config = gap_checkpoint
    ckpt = tmp_path / "shipped"  # as shipped: the graphs, no torch weights
    shutil.copytree(config.folder, ckpt, ignore=shutil.ignore_patterns("torch"))
    report = recover(ckpt, tmp_path / "recovered", log=lambda _: None)
    assert report["max_abs_diff"] <= 1e-4 and report["pairs"] >= 6
    original = load_file(str(config.folder / "torch" / "model.safetensors"))
    recovered = load_file(str(tmp_path / "recovered" / "torch" / "model.safetensors"))
    from_graph = graph_state_dict(CheckpointConfig.load(ckpt).onnx_path("fp32"))
    assert set(from_graph) <= set(original)
    for name, value in from_graph.items():
        np.testing.assert_array_equal(value, original[name].numpy(), err_msg=name)
    for name, tensor in original.items():  # buffers not in the graph come from the fresh model
        np.testing.assert_allclose(recovered[name].numpy(), tensor.numpy(), atol=0, err_msg=name)
    model = load_regressor(tmp_path / "recovered")
    assert model.head_config.gap_head
    with pytest.raises(CheckpointError, match="exists"):
        recover(ckpt, tmp_path / "recovered", log=lambda _: None)


def test_add_and_drop_variants_of_an_exported_checkpoint(gap_checkpoint, records_file, tmp_path):
    """``--add-variant int8row --make-default`` rebuilds the row-wise graph from fp32;
    ``--drop-variant fp32`` then ships one graph: the file goes, the config and digests follow,
    parity.json records what was dropped, and scores of the remaining graph do not change."""
    import hashlib
    import shutil

    from sitar.integrity import checkpoint_id
    from training.export import main as export_main

    _, ckpt = gap_checkpoint
    folder = tmp_path / "ckpt"
    shutil.copytree(ckpt.folder, folder)
    args = ["--checkpoint", str(folder)]
    add = ["--add-variant", "int8row", "--records", str(records_file), "--records-n", "8"]
    assert export_main([*add, *args, "--make-default"]) == 0
    assert CheckpointConfig.load(folder).onnx.default == "int8row"
    refs, hyps = zip(*PAIRS, strict=True)
    before = Scorer.load(folder).score(references=list(refs), hypotheses=list(hyps))
    before_id = checkpoint_id(CheckpointConfig.load(folder))
    fp32_sha = hashlib.sha256((folder / "model.onnx").read_bytes()).hexdigest()

    # dropping the default needs a new default; nothing is touched when refused
    assert export_main(["--drop-variant", "int8row", *args, "--reason", "test"]) == 2
    assert (folder / "model.int8row.onnx").is_file()
    with pytest.raises(SystemExit):  # a reason is required
        export_main(["--drop-variant", "fp32", *args])
    assert export_main(["--drop-variant", "fp32", *args, "--reason", "one graph per wheel"]) == 0
    assert not (folder / "model.onnx").exists()
    config = CheckpointConfig.load(folder)  # integrity verifies
    assert config.onnx.available == ("int8", "int8row") and config.onnx.default == "int8row"
    (dropped,) = json.loads((folder / "parity.json").read_text())["dropped_variants"]
    assert dropped["sha256"] == fp32_sha and dropped["reason"] == "one graph per wheel"
    assert dropped["previous_default"] == "int8row" and dropped["new_default"] == "int8row"
    assert checkpoint_id(config) != before_id  # the digest names the changed folder
    after = Scorer.load(folder).score(references=list(refs), hypotheses=list(hyps))
    assert after.raw == before.raw and parse_signature(after.signature)["onnx"] == "int8row"
    with pytest.raises(CheckpointError, match="no fp32 ONNX file"):
        Scorer.load(folder, variant="fp32")
    from training.recover import recover

    with pytest.raises(
        CheckpointError,
        match=rf"{fp32_sha}\) was dropped from the folder: one graph per wheel\. Recover",
    ):
        recover(folder, tmp_path / "recovered", log=lambda _: None)
    assert export_main(["--drop-variant", "fp32", *args, "--reason", "again"]) == 2
    assert export_main(["--drop-variant", "int8", *args, "--reason", "r"]) == 0
    # the last graph cannot go
    assert export_main(["--drop-variant", "int8row", *args, "--reason", "r"]) == 2


def test_torch_weights_recovered_from_the_int8row_graph(gap_checkpoint, records_file, tmp_path):
    """``--from int8row``: a folder that ships only its row-wise int8 graph (as the default does)
    is fine-tunable again. Weights the graph keeps in fp32 come back exactly, quantized ones within
    a quantization step (undoing the smoothing: without it they would be off by its factors), and
    the rebuilt model reproduces the graph within the recorded int8row-vs-fp32 drift."""
    import shutil

    from safetensors.torch import load_file

    from sitar.modeling import load_regressor
    from training.export import main as export_main
    from training.recover import main as recover_main
    from training.recover import recover

    _, ckpt = gap_checkpoint
    folder = tmp_path / "shipped"
    shutil.copytree(ckpt.folder, folder, ignore=shutil.ignore_patterns("torch"))
    args = ["--checkpoint", str(folder)]
    add = ["--add-variant", "int8row", "--records", str(records_file), "--records-n", "8"]
    assert export_main([*add, *args, "--make-default"]) == 0
    assert export_main(["--drop-variant", "fp32", *args, "--reason", "int8row only"]) == 0
    with pytest.raises(CheckpointError, match=r"or from its int8row graph \(--from int8row"):
        recover(folder, tmp_path / "exact", log=lambda _: None)
    with pytest.raises(InputError, match="source must be one of"):
        recover(folder, tmp_path / "int8", source="int8", log=lambda _: None)
    # a tolerance the activation quantization cannot meet: refused, nothing written
    with pytest.raises(CheckpointError, match="do not reproduce"):
        recover(folder, tmp_path / "strict", source="int8row", atol=0.0, log=lambda _: None)
    assert not (tmp_path / "strict").exists()
    # no recorded int8row drift to check against: an explicit tolerance is required
    bare = tmp_path / "bare"
    shutil.copytree(folder, bare)
    parity = json.loads((bare / "parity.json").read_text())
    del parity["int8row"]
    (bare / "parity.json").write_text(json.dumps(parity))
    with pytest.raises(CheckpointError, match="pass --atol"):
        recover(bare, tmp_path / "bare-out", source="int8row", log=lambda _: None)
    assert recover(bare, tmp_path / "bare-out", source="int8row", atol=1.0, log=lambda _: None)

    out = tmp_path / "recovered"
    assert recover_main([*args, "--out", str(out), "--from", "int8row"]) == 0
    report = json.loads((out / "torch" / "recovered.json").read_text())
    assert report["source"] == "int8row" and report["from"].endswith("model.int8row.onnx")
    recorded = json.loads((folder / "parity.json").read_text())["int8row"]
    assert report["diffs"]["score"] <= recorded["max_abs_diff_score"]
    assert report["diffs"]["gap_logits"] <= recorded["max_abs_diff_gap_logits"]

    original = load_file(str(ckpt.folder / "torch" / "model.safetensors"))
    recovered = load_file(str(out / "torch" / "model.safetensors"))
    assert set(recovered) == set(original)
    exact, approximate = [], []
    for name, tensor in original.items():
        want, got = tensor.numpy(), recovered[name].numpy()
        if np.array_equal(want, got):
            exact.append(name)
            continue
        approximate.append(name)
        assert name.endswith(".weight") and want.ndim == 2, name  # only linear weights change
        # 7-bit columns: within half a step of the smoothed column's range, smoothing undone
        assert np.max(np.abs(got - want)) <= np.max(np.abs(want)) / 63, name
    assert approximate and any(n.endswith("output.dense.weight") for n in exact)
    model = load_regressor(out)
    assert model.head_config.gap_head
    refs, hyps = zip(*PAIRS, strict=True)
    shipped = Scorer.load(folder).score(references=list(refs), hypotheses=list(hyps))
    torch_scores = Scorer.load(out, backend="torch").score(
        references=list(refs), hypotheses=list(hyps)
    )
    assert np.max(np.abs(np.subtract(shipped.scores, torch_scores.scores))) <= 0.05


def test_torch_backend_signature_names_the_weights_file(gap_checkpoint, tmp_path):
    """The checkpoint id digests the graphs and the tokenizer, not ``torch/``: with the torch
    backend the signature also carries the weights file's digest, so other weights in the same
    folder (a recovered or edited ``torch/``) never share a signature."""
    import hashlib
    import shutil

    from safetensors import safe_open
    from safetensors.torch import load_file, save_file

    _, ckpt = gap_checkpoint
    folder = tmp_path / "ckpt"
    shutil.copytree(ckpt.folder, folder)
    weights = folder / "torch" / "model.safetensors"
    before = parse_signature(Scorer.load(folder, backend="torch", device="cpu").signature)
    assert before["backend"] == "torch"
    assert before["weights"] == hashlib.sha256(weights.read_bytes()).hexdigest()[:8]
    assert "weights" not in parse_signature(Scorer.load(folder).signature)  # ONNX: the graph
    with safe_open(str(weights), framework="pt") as fh:
        metadata = fh.metadata()
    state = load_file(str(weights))
    name = next(n for n in state if n.endswith(".weight"))
    state[name] = state[name] + 1e-3
    save_file(state, str(weights), metadata=metadata)
    after = parse_signature(Scorer.load(folder, backend="torch", device="cpu").signature)
    assert after["ckpt"] == before["ckpt"] and after["weights"] != before["weights"]


def test_validation_reports_both_tie_breakers(gap_checkpoint):
    result, _ = gap_checkpoint
    evals = _evals(result)
    for e in evals:  # gaps_*: tie-breaker 3, the scorer's default; gaps_tb2_*: the pair head
        assert {"gaps_spearman", "gaps_tb2_spearman", "gaps_mae", "gaps_tb2_mae"} <= set(e)
        assert e["gaps_interval_hit_rate"] == e["gaps_tb2_interval_hit_rate"]  # same intervals


def test_record_gap_extent_is_what_the_scorer_reads(records_file):
    """Training's validation score uses the extent that tie-breaker 3 reads at scoring time: the
    share of tokens inside the record's gaps, which are the pair's CGD gaps in our corpora."""
    import dataclasses

    from sitar import segment
    from sitar.gapscore import gap_extent
    from sitar.records import read_records
    from training.data import record_gap_extent

    record = next(r for r in read_records(records_file) if r.gaps)
    for ref, hyp in PAIRS:
        seg = segment(ref, hyp)
        if not seg.gaps:
            continue
        r = dataclasses.replace(
            record,
            reference=ref,
            hypothesis=hyp,
            gaps=seg.to_dict()["gaps"],
            tiers=[1] * len(seg.gaps),
            directions=[0] * len(seg.gaps),
        )
        expected = gap_extent(
            [g.ref_tokens for g in seg.gaps],
            [g.hyp_tokens for g in seg.gaps],
            len(seg.ref_tokens),
            len(seg.hyp_tokens),
        )
        assert record_gap_extent(r) == expected and 0.0 < expected <= 1.0
    broken = dataclasses.replace(record, gaps=[{"ref_span": [0, 1], "hyp_span": [0, 0]}])
    with pytest.raises(InputError, match="token intervals"):
        record_gap_extent(broken)


def test_compare_tie_breakers_reproduces_the_scorer(gap_checkpoint, records_file, tmp_path):
    """``training.compare_tie_breakers``' rules v2 and v3 give exactly the scorer's scores under
    ``tie_breaker=2`` / ``3``: the A/B agreement and the records' Spearman it reports are the
    evaluation tools' own numbers, and every rule stays inside the SPEC §5 interval."""
    from scipy.stats import spearmanr

    from sitar.records import read_records
    from training.compare_tie_breakers import RULES, main, pair_features, rule_score
    from training.evaluate_ab import agreement

    _, ckpt = gap_checkpoint
    folder = str(ckpt.folder)
    refs, hyps = zip(*PAIRS, strict=True)
    feats = pair_features(folder, refs, hyps)
    for version in (2, 3):
        raw = Scorer.load(folder, tie_breaker=version).score(references=refs, hypotheses=hyps).raw
        assert [rule_score(f, f"v{version}") for f in feats] == pytest.approx(raw, abs=1e-12)
    for f in feats:
        for rule in RULES:
            assert f["lo"] <= rule_score(f, rule) <= f["hi"]
    items = [
        {"schema": "sitar-ab-1", "id": f"ab-{k}", "reference": r, "a": h,
         "b": r.replace("the", "a", 1) + " please", "judgement": j}
        for k, ((r, h), j) in enumerate(zip(PAIRS[:6], "ABABAB", strict=True))
    ]  # fmt: skip
    ab = tmp_path / "ab.jsonl"
    ab.write_text("".join(json.dumps(it) + "\n" for it in items), encoding="utf-8")
    out = tmp_path / "report.json"
    assert main(["--checkpoint", folder, "--ab", str(ab), "--records", str(records_file),
                 "--json", str(out)]) == 0  # fmt: skip
    report = json.loads(out.read_text(encoding="utf-8"))
    for version in (2, 3):
        scorer = Scorer.load(folder, tie_breaker=version)
        rs = [it["reference"] for it in items]
        va = scorer.score(references=rs, hypotheses=[it["a"] for it in items]).raw
        vb = scorer.score(references=rs, hypotheses=[it["b"] for it in items]).raw
        expected = agreement(items, va, vb)["agreement"]
        assert report["sets"][str(ab)][f"v{version}"] == pytest.approx(expected)
        records = list(read_records(records_file))
        raw = scorer.score(
            references=[r.reference for r in records], hypotheses=[r.hypothesis for r in records]
        ).raw
        rho = spearmanr(raw, [r.score for r in records])[0]
        assert report["sets"][str(records_file)][f"v{version}"] == pytest.approx(rho)
