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


# -- per selection part (issue #31: active vs random labels) ----------------------------------


def _record(i: int, tier: int, selection: str | None, split: str = "test"):
    """A one-gap record "a b c" -> "a xI c" with its gap at token 1 labelled ``tier``."""
    from sitar.records import Record
    from sitar.targets import score_from_tiers

    hyp = f"a x{i} c"
    provenance = {"source": "test"} if selection is None else {"selection": selection}
    return Record(
        id=f"r{i}",
        reference="a b c",
        hypothesis=hyp,
        gaps=(
            {
                "ref_tokens": [1, 2],
                "hyp_tokens": [1, 2],
                "ref_span": [2, 3],
                "hyp_span": [2, 2 + len(f"x{i}")],
                "ref_text": "b",
                "hyp_text": f"x{i}",
            },
        ),
        tiers=(tier,),
        directions=(0,),
        score=score_from_tiers([tier], [0]),
        split=split,
        provenance=provenance,
    )


def _analysis(record, predicted_tier: int):
    """A gap-head analysis that finds the record's gap and predicts ``predicted_tier``."""
    (gap,) = record.gaps
    span = SimpleNamespace(ref_span=tuple(gap["ref_span"]), hyp_span=tuple(gap["hyp_span"]))
    return SimpleNamespace(
        gaps=(SimpleNamespace(tier=predicted_tier, step=3 * predicted_tier),),
        segmentation=SimpleNamespace(gaps=(span,)),
    )


def test_selection_of():
    assert ec.selection_of(_record(0, 1, "active")) == "active"
    assert ec.selection_of(_record(0, 1, "random")) == "random"
    assert ec.selection_of(_record(0, 1, None)) == "earlier"
    from sitar.errors import InputError

    with pytest.raises(InputError, match="'r0'.*'bogus'"):
        ec.selection_of(_record(0, 1, "bogus"))


def test_selection_report_by_hand():
    # active: labels T0, T1, T2, predicted T0, T2, T2 (2 of 3 right); raw follows the labels
    # random: labels T2, T0, predicted T2, T0 (both right); raw reversed against the labels
    # earlier: one record, T1 predicted T0
    spec = [
        ("active", 0, 0, 0.1),
        ("active", 1, 2, 0.9),
        ("active", 2, 2, 1.5),
        ("random", 2, 2, 0.2),
        ("random", 0, 0, 1.0),
        (None, 1, 0, 0.5),
    ]
    records = [_record(i, tier, sel) for i, (sel, tier, _, _) in enumerate(spec)]
    analyses = [_analysis(r, pred) for r, (_, _, pred, _) in zip(records, spec, strict=True)]
    raw = [x for *_, x in spec]
    report = ec.selection_report(records, raw, analyses)
    assert list(report) == ["active", "random", "earlier"]
    active, random_, earlier = report["active"], report["random"], report["earlier"]
    assert active["n_records"] == 3 and active["gaps"]["n_gaps"] == 3
    assert active["gaps"]["tier_accuracy"] == pytest.approx(2 / 3)
    assert active["gaps"]["confusion_tiers"] == [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
    assert active["spearman"] == pytest.approx(1.0)
    assert random_["gaps"]["tier_accuracy"] == 1.0 and random_["spearman"] == pytest.approx(-1.0)
    assert earlier["n_records"] == 1 and earlier["gaps"]["tier_accuracy"] == 0.0
    assert earlier["gaps"]["confusion_tiers"] == [[0, 0, 0], [1, 0, 0], [0, 0, 0]]
    assert earlier["spearman"] != earlier["spearman"]  # nan: one record has no rank correlation
    # the parts add up to the whole; a part with no records is just its count; no gap head: no gaps
    only_active = ec.selection_report(records[:3], raw[:3], None)
    assert only_active["random"] == {"n_records": 0} == only_active["earlier"]
    assert "gaps" not in only_active["active"]


def test_cli_split_and_by_selection_on_tiny_records(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("jiwer")
    from sitar.records import write_records

    records = [_record(0, 2, "active"), _record(1, 0, "active"), _record(2, 1, "random")]
    records += [_record(3, 2, None), _record(4, 1, None, split="train")]
    path = tmp_path / "records.jsonl"
    write_records(path, records)
    out = tmp_path / "report.json"
    argv = ["--checkpoint", str(FIXTURE), "--no-devset", "--records", str(path)]
    assert ec.main([*argv, "--split", "test", "--by-selection", "-o", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))["records"]
    assert report["split"] == "test" and report["n"] == 4  # the train record is left out
    parts = report["by_selection"]
    assert {k: v["n_records"] for k, v in parts.items()} == {"active": 2, "random": 1, "earlier": 1}
    assert "spearman" in parts["active"]
    assert json.loads(capsys.readouterr().out)["records"]["by_selection"] == parts  # printed too
    assert ec.main([*argv, "-o", str(out)]) == 0  # without the options: every record, no parts
    plain = json.loads(out.read_text(encoding="utf-8"))["records"]
    assert plain["n"] == 5 and plain["split"] is None and "by_selection" not in plain


def test_cli_split_and_selection_errors(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    from sitar.records import write_records

    path = tmp_path / "records.jsonl"
    write_records(path, [_record(0, 1, "sideways", split="train")])
    base = ["--checkpoint", str(FIXTURE), "--no-devset"]
    assert ec.main([*base, "--records", str(path), "--split", "test"]) == 2
    assert "no records of split 'test'" in capsys.readouterr().err
    assert ec.main([*base, "--records", str(path), "--by-selection"]) == 2
    assert "provenance.selection must be 'active' or 'random'" in capsys.readouterr().err
    assert ec.main([*base, "--by-selection"]) == 2
    assert "name record files" in capsys.readouterr().err
