"""training.evaluate_checkpoint: dev-set protocol numbers on known scores, and a fixture run."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from training import evaluate_checkpoint as ec

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "tiny_onnx"


def _rows():
    # One reference, four variants: T0, T1, T2, T2+T1.
    vectors = {"a": (0, 0, 1), "c": (0, 1, 0), "f": (1, 0, 0), "i": (1, 1, 0)}
    return [
        {
            "ref_id": "r1",
            "profile": p,
            "reference": "x",
            "hypothesis": p,
            "counts": {"c2": v[0], "c1": v[1], "c0": v[2]},
        }
        for p, v in vectors.items()
    ]


def test_system_metrics_by_hand():
    rows = _rows()
    # Order a < c < f < i; scores 0, .5, .9, .4: pairs (c, i) and (f, i) are wrong -> 4 of 6.
    m = ec.system_metrics(rows, [0.0, 0.5, 0.9, 0.4])
    assert m["pairwise_agreement"] == pytest.approx(4 / 6)
    assert m["n_pairs"] == 6
    assert m["t0_only_median"] == 0.0  # only profile a is T0-only here
    assert m["t2_over_t1_share"] == 0.5
    # The only pair inside one tier is (f, i), both T2: wrong.
    assert m["within_tier_agreement"] == 0.0 and m["n_within_tier_pairs"] == 1


def test_t2_over_t1_share_by_hand():
    rows = _rows()
    # T2 variants f, i vs the T1 variant c: f (0.9) > c (0.5), i (0.4) < c -> 1 of 2.
    assert ec.t2_over_t1_share(rows, [0.0, 0.5, 0.9, 0.4]) == 0.5
    assert ec.t2_over_t1_share(rows, [0.0, 0.5, 0.9, 0.95]) == 1.0


class _ExactScorer:
    """Scores each dev pair with its own SPEC §5 target: the protocol must then be perfect."""

    signature = "test"

    def __init__(self, rows):
        self.by_hyp = {(r["reference"], r["hypothesis"]): r["normalized"] for r in rows}

    def score(self, *, references, hypotheses, batch_size=32):
        return SimpleNamespace(
            scores=[self.by_hyp[(r, h)] for r, h in zip(references, hypotheses, strict=True)]
        )


def test_devset_report_with_exact_targets():
    pytest.importorskip("jiwer")
    rows = [json.loads(line) for line in ec.DEFAULT_DEVSET.read_text(encoding="utf-8").splitlines()]
    report = ec.devset_report(_ExactScorer(rows), ec.DEFAULT_DEVSET)
    assert report["n_pairs"] == 165
    assert report["sitar"]["pairwise_agreement"] == 1.0
    assert report["sitar"]["mean_spearman"] == pytest.approx(1.0)
    assert report["sitar"]["t2_over_t1_share"] == 1.0
    assert report["sitar"]["t0_only_median"] < 0.1
    # 15 references x (1 T0 + 3 T1 + 15 T2 pairs) inside one tier.
    assert report["sitar"]["within_tier_agreement"] == 1.0
    assert report["sitar"]["n_within_tier_pairs"] == 15 * 19
    # WER does not know severity: it cannot order these variants perfectly.
    assert report["wer"]["pairwise_agreement"] < 0.9
    assert set(report["wer"]) == set(report["sitar"])
    assert "semdist" not in report and "baseline_encoder" not in report


def test_devset_report_with_baselines(tiny_backbone):
    pytest.importorskip("jiwer")
    rows = [json.loads(line) for line in ec.DEFAULT_DEVSET.read_text(encoding="utf-8").splitlines()]
    report = ec.devset_report(
        _ExactScorer(rows),
        ec.DEFAULT_DEVSET,
        baselines=("semdist", "bertscore"),
        baseline_encoder=str(tiny_backbone),
    )
    assert report["baseline_encoder"] == str(tiny_backbone)
    for name in ("semdist", "bertscore"):
        assert set(report[name]) == set(report["wer"])
        assert 0.0 <= report[name]["pairwise_agreement"] <= 1.0
        assert report[name]["n_pairs"] == report["wer"]["n_pairs"]
    assert report["sitar"]["pairwise_agreement"] == 1.0


def test_cli_on_the_tiny_fixture(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("jiwer")
    out = tmp_path / "report.json"
    assert ec.main(["--checkpoint", str(FIXTURE), "-o", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert "ckpt:sitar-tiny-test" in report["signature"]
    assert report["devset"]["n_pairs"] == 165
    assert 0.0 <= report["devset"]["sitar"]["pairwise_agreement"] <= 1.0


def test_cli_with_baselines(tmp_path, tiny_backbone):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("jiwer")
    out = tmp_path / "report.json"
    argv = ["--checkpoint", str(FIXTURE), "--baselines", "semdist,bertscore"]
    argv += ["--baseline-encoder", str(tiny_backbone), "-o", str(out)]
    assert ec.main(argv) == 0
    devset = json.loads(out.read_text(encoding="utf-8"))["devset"]
    assert devset["baseline_encoder"] == str(tiny_backbone)
    for name in ("sitar", "wer", "semdist", "bertscore"):
        assert set(devset[name]) == {
            "pairwise_agreement",
            "mean_spearman",
            "n_references",
            "n_pairs",
            "within_tier_agreement",
            "n_within_tier_pairs",
            "t0_only_median",
            "t2_over_t1_share",
            "ci95",
            "per_reference",
        }
        intervals, rows = devset[name]["ci95"], devset[name]["per_reference"]
        assert len(rows) == devset[name]["n_references"]
        lo, hi = intervals["pairwise_agreement"]
        assert lo <= devset[name]["pairwise_agreement"] <= hi


def test_cli_unknown_baseline_exit_code(capsys):
    assert ec.main(["--checkpoint", str(FIXTURE), "--baselines", "semdist,rouge"]) == 2
    assert "unknown baseline 'rouge'" in capsys.readouterr().err
    assert ec.main(["--checkpoint", str(FIXTURE), "--no-devset", "--baselines", "semdist"]) == 2
    assert "dev set" in capsys.readouterr().err


def test_cli_bad_devset_exit_code(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    assert ec.main(["--checkpoint", str(FIXTURE), "--devset", str(tmp_path / "missing.jsonl")]) == 2
    assert "dev set not found" in capsys.readouterr().err


def test_pairwise_agreement_by_hand():
    from training.evaluate_checkpoint import pairwise_agreement

    keys = ["r1", "r1", "r1", "r2"]
    targets = [0.0, 1.0, 2.0, 1.0]
    values = [0.1, 0.5, 0.5, 0.9]
    out = pairwise_agreement(keys, targets, values)
    # within r1: (0,1) agree, (0,2) agree, (1,2) tie -> half: 2.5 / 3
    assert out["within"] == pytest.approx(2.5 / 3) and out["within_pairs"] == 3
    # all pairs with different targets: the three above plus (0,3) agree, (2,3) disagree;
    # (1,3) has equal targets and is left out: 3.5 / 5
    assert out["all"] == pytest.approx(3.5 / 5) and out["all_pairs"] == 5
