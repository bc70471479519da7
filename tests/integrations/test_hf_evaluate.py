"""The Hugging Face ``evaluate`` script (``integrations/hf_evaluate/sitar/``) with the real
``evaluate`` package, fully offline, in fresh interpreters; and the issue #32 target: a short
evaluation script on ``evaluate.load`` and a torchmetrics loop give the corpus score that
``sitar score`` prints."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("evaluate")
pytest.importorskip("torchmetrics")

from sitar.cli import main
from sitar.scorer import Scorer

ROOT = Path(__file__).resolve().parents[2]
METRIC = ROOT / "integrations" / "hf_evaluate" / "sitar"
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

# The target of issue #32: an evaluation script of about 20 lines, as a user writes it.
EVALUATION_SCRIPT = """
import json, sys

import evaluate
from sitar.integrations.torchmetrics import SitarScore

metric_path, ref_file, hyp_file = sys.argv[1:]
references = open(ref_file, encoding="utf-8").read().splitlines()
predictions = open(hyp_file, encoding="utf-8").read().splitlines()

sitar_metric = evaluate.load(metric_path)
for i in range(0, len(predictions), 2):  # batches, as an evaluation loop adds them
    sitar_metric.add_batch(predictions=predictions[i : i + 2], references=references[i : i + 2])
hf = sitar_metric.compute()

tm = SitarScore()
for i in range(0, len(predictions), 2):
    tm.update(predictions[i : i + 2], references[i : i + 2])
out = {k: float(v) for k, v in tm.compute().items()}

print(json.dumps({"evaluate": hf, "torchmetrics": out}))
"""


def _run(script: str, args: list[str], tmp_path: Path) -> dict:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path / "home"),
        "HF_HOME": str(tmp_path / "hf"),  # evaluate's module copies and arrow caches
        "HF_DATASETS_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
    }
    proc = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_evaluate_and_torchmetrics_match_sitar_score(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ref_file, hyp_file = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref_file.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    hyp_file.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    assert main(["score", "--ref-file", str(ref_file), "--hyp-file", str(hyp_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    system = next(line for line in lines if line.startswith("#system\t")).split("\t")
    swer = next(line for line in lines if line.startswith("#swer\t")).split("\t")
    signature = next(line for line in lines if line.startswith("#signature\t")).split("\t")[1]
    assert system[3] == f"n={len(REFS)}"

    out = _run(EVALUATION_SCRIPT, [str(METRIC), str(ref_file), str(hyp_file)], tmp_path)
    hf, tm = out["evaluate"], out["torchmetrics"]
    # the CLI prints 6 decimals; the same float gives the same text
    assert f"{hf['score']:.6f}" == system[1] and f"{hf['swer']:.6f}" == swer[1]
    assert hf["signature"] == signature
    # and the three agree to the last bit with the in-process scorer
    expected = Scorer.load().score(references=REFS, hypotheses=HYPS)
    assert hf["score"] == tm["score"] == expected.system_score
    assert hf["swer"] == tm["swer"] == expected.system_swer
    assert hf["scores"] == list(expected.scores) and hf["swers"] == list(expected.swer)
    assert hf["scores"][2] == 0.0 < hf["scores"][0]  # predictions are the hypotheses


CHECKS_SCRIPT = textwrap.dedent(
    """
    import json, sys

    import evaluate
    import sitar

    metric = evaluate.load(sys.argv[1])
    out = {"name": metric.name}
    out["features"] = [{k: str(v) for k, v in f.items()} for f in metric.features]
    pairs = {"predictions": ["turn right at the bank"], "references": ["turn left at the bank"]}
    out["pair_head"] = metric.compute(**pairs, head="pair", batch_size=4)
    for options in ({"normalize": "nfc"}, {"heads": "pair"}):
        try:
            metric.compute(**pairs, **options)
            out[str(options)] = "no error"
        except sitar.InputError as e:
            out[str(options)] = str(e)
    out["empty"] = metric.compute(predictions=[], references=[])
    print(json.dumps(out))
    """
)


def test_the_evaluate_script_takes_options_and_reports_bad_ones(tmp_path):
    out = _run(CHECKS_SCRIPT, [str(METRIC)], tmp_path)
    assert out["name"] == "sitar"
    # candidate lists first (evaluate takes the first form an example fits), then one string
    assert out["features"] == [
        {"predictions": "Value('string')", "references": "List(Value('string'))"},
        {"predictions": "Value('string')", "references": "Value('string')"},
    ]
    assert "head:pair" in out["pair_head"]["signature"] and "swer" not in out["pair_head"]
    assert out["pair_head"]["scores"][0] > 0.0
    assert out["{'normalize': 'nfc'}"].startswith("normalize must be one of")
    assert out["{'heads': 'pair'}"].startswith("unknown scorer option(s) ['heads']")
    # zero pairs: sitar.metric's own values (nan corpus values), not an error
    assert out["empty"]["scores"] == [] and math.isnan(out["empty"]["score"])


# Several references per utterance: the same short script, with candidate lists.
SECOND_REFS = [
    "turn right at the bank",
    "the meeting is at nine",
    "send two hundred dollars",
    "call doctor smith at new",
    "the flight leaves from gate thirteen",
]
MULTI_SCRIPT = """
import json, sys

import evaluate
from sitar.integrations.torchmetrics import SitarScore

metric_path, hyp_file, *ref_files = sys.argv[1:]
predictions = open(hyp_file, encoding="utf-8").read().splitlines()
columns = [open(f, encoding="utf-8").read().splitlines() for f in ref_files]
references = [list(refs) for refs in zip(*columns)]  # candidates per prediction

sitar_metric = evaluate.load(metric_path)
for i in range(0, len(predictions), 2):
    sitar_metric.add_batch(predictions=predictions[i : i + 2], references=references[i : i + 2])
hf = sitar_metric.compute()

tm = SitarScore()
for i in range(0, len(predictions), 2):
    tm.update(predictions[i : i + 2], references[i : i + 2])
out = {k: float(v) for k, v in tm.compute().items()}

print(json.dumps({"evaluate": hf, "torchmetrics": out}))
"""


def test_several_references_match_sitar_score(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    files = {}
    for name, lines in (("hyp", HYPS), ("r1", REFS), ("r2", SECOND_REFS)):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    hyp, r1, r2 = (str(files[k]) for k in ("hyp", "r1", "r2"))
    assert main(["score", "--ref-file", r1, "--ref-file", r2, "--hyp-file", hyp]) == 0
    lines = capsys.readouterr().out.splitlines()
    system = next(line for line in lines if line.startswith("#system\t")).split("\t")
    swer = next(line for line in lines if line.startswith("#swer\t")).split("\t")
    chosen = [int(line.split("\t")[-1]) - 1 for line in lines[2:-2]]
    # the second reference where it is the hypothesis, the first on a tie (u3), and for u5 the
    # one the model finds closer ('gate thirteen' for 'gate twenty')
    assert chosen == [1, 1, 0, 1, 1]

    out = _run(MULTI_SCRIPT, [str(METRIC), hyp, r1, r2], tmp_path)
    hf, tm = out["evaluate"], out["torchmetrics"]
    assert f"{hf['score']:.6f}" == system[1] and f"{hf['swer']:.6f}" == swer[1]
    assert hf["chosen_reference"] == chosen
    assert hf["score"] == tm["score"] and hf["swer"] == tm["swer"]
    # the chosen pairs, scored alone, give the very same floats
    picked = [(REFS, SECOND_REFS)[j][i] for i, j in enumerate(chosen)]
    expected = Scorer.load().score(references=picked, hypotheses=HYPS)
    assert hf["score"] == expected.system_score and hf["swer"] == expected.system_swer
