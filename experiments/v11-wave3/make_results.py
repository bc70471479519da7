"""Write an entry's results.json from the evaluation outputs, with v11's ship rule as gates.

    python experiments/v11-wave3/make_results.py --id v11-wave3 --eval cand11.json \
        --severity severity_cand11.json --v5-eval v5b.json --v5-severity severity_v5.json \
        --selection selection.json --out experiments/v11-wave3/results.json

``--eval`` / ``--v5-eval``: ``evaluate.py`` outputs; ``--severity`` / ``--v5-severity``:
``python -m benchmarks severity --json`` outputs; ``--selection``: a JSON object with the entry's
``config`` and ``selection`` fields (and optionally ``sources``, ``unknown``). The gates are the
ship rule of ``preregistration.md`` (baselines read from the same severity run; "no regression"
against v5 measured in the same session). ``--speed``: a ``python -m benchmarks speed --json``
output, for a candidate whose pre-registration gates the speed target (>= 0.5x the
BERTScore-style baseline); it adds the ``speed`` set and that gate.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import operator
from pathlib import Path
from typing import Any

BASELINES = ("wer", "cer", "chrf", "bertscore", "semdist")


def dev(d: dict) -> dict[str, float]:
    s = d["recognizer_test"]["devset"]["sitar"]
    return {
        "pairwise_pct": round(100 * s["pairwise_agreement"], 1),
        "mean_spearman": round(s["mean_spearman"], 3),
        "within_tier_pct": round(100 * s["within_tier_agreement"], 1),
        "t0_only_median": round(s["t0_only_median"], 3),
        "t2_over_t1_pct": round(100 * s["t2_over_t1_share"], 1),
    }


def rec(d: dict) -> dict[str, Any]:
    r = d["recognizer_test"]["records"]
    out: dict[str, Any] = {
        "tier_accuracy_pct": round(100 * r["gaps"]["tier_accuracy"], 1),
        "spearman": round(r["spearman"], 3),
        "agreement_pct": round(100 * r["agreement"]["sitar"]["all"], 1),
        "tier_confusion": r["gaps"]["confusion_tiers"],
        "gaps": r["gaps"]["n_gaps"],
    }
    for k, x in r.get("by_selection", {}).items():
        out[f"tier_accuracy_{k}_pct"] = round(100 * x["gaps"]["tier_accuracy"], 1)
    return out


def sev(j: dict) -> dict[str, float]:
    m = j["report"]["metrics"]
    out = {
        f"{name}_{k}": round(m[name][k], 3)
        for name in ("sitar", "swer", *BASELINES)
        for k in ("auc_t2", "auc_t1plus", "spearman_damage", "spearman_damage_in_t2",
                  "system_kendall_tau")
    }  # fmt: skip
    out["sitar_reader_t0_in_t2_band"] = round(m["sitar"]["reader_t0_in_t2_band"], 3)
    out["sitar_reader_t1_in_t2_band"] = round(m["sitar"]["reader_t1_in_t2_band"], 3)
    return out


def ab(j: dict) -> dict[str, float]:
    a = j["ab"]
    key = {"all": "all", "<=1": "le1", "2": "2", ">=3": "ge3"}
    return {f"{n}_{key[k]}": round(a[n][k], 3) for n in a if n != "n" for k in a[n]}


def inv(d: dict) -> dict[str, float]:
    i, dv = d["invariance"], d["invariance"]["dev"]
    out = {
        "format_pairs_t0_pct": round(100 * i["format_t0"], 1),
        "flips_in_band_pct": round(100 * i["flips_in_band"], 1),
    }
    if "suite_version" in i:  # version 2 on (benchmarks/invariance/reread/): slips reported
        out["suite_version"] = i["suite_version"]
        out["slips_t0_pct"] = round(100 * i["slips_t0"], 1)
        out["slips_t2_pct"] = round(100 * i["slips_t2"], 1)
    for form in ("written", "stripped", "mixed"):
        for m in ("pairwise", "spearman", "moved_share", "max_move"):
            out[f"dev_{form}_{m}"] = round(dv[form][m], 4)
    for form in ("stripped", "mixed"):
        for m in ("pairwise", "spearman"):
            out[f"dev_{form}_{m}_drop"] = round(dv["written"][m] - dv[form][m], 4)
    return out


def challenge(d: dict, key: str) -> float:
    return round(100 * d[key]["per_category"]["overall"]["in_band"], 1)


def results(c: dict, cs: dict, v: dict, vs: dict) -> tuple[dict, list[dict]]:
    pe = c["paper_example"]
    out: dict[str, Any] = {
        "paper_example": {
            "ordered_pairs_written": pe["written"],
            "ordered_pairs_stripped": pe["stripped"],
            "ordered_pairs_mixed": pe["mixed"],
            "of": 55,
        },
        "public_dev": dev(c),
        "recognizer_test": rec(c),
        "recognizer_validation": {
            "tier_accuracy_pct": round(
                100 * c["recognizer_validation"]["records"]["gaps"]["tier_accuracy"], 1
            ),
            "spearman": round(c["recognizer_validation"]["records"]["spearman"], 3),
        },
        "severity": sev(cs),
        "public_ab": ab(cs),
        "invariance": inv(c),
        "challenge": {"in_band_pct": challenge(c, "challenge")},
        "scope_challenge": {"in_band_pct": challenge(c, "scope_challenge")},
    }
    flat: dict[str, Any] = {}
    base = {
        "paper_example": {f"ordered_pairs_{k}": x for k, x in v["paper_example"].items()},
        "public_dev": dev(v),
        "recognizer_test": rec(v),
        "severity": sev(vs),
        "public_ab": ab(vs),
        "invariance": inv(v),
    }
    for k, section in base.items():
        for kk, x in section.items():
            flat[f"{k}.{kk}"] = x
    flat["challenge_in_band_pct"] = challenge(v, "challenge")
    flat["scope_challenge_in_band_pct"] = challenge(v, "scope_challenge")
    out["v5_same_run"] = flat

    s, a, vd = out["severity"], out["public_ab"], dev(v)

    def top(metric: str) -> float:
        return max(s[f"{b}_{metric}"] for b in BASELINES)

    def gate(set_: str, metric: str, op: str, threshold: float) -> dict:
        return {"set": set_, "metric": metric, "op": op, "threshold": threshold}

    gates = [
        gate("severity", "sitar_auc_t2", ">=", 0.88),
        gate("severity", "sitar_auc_t2", ">=", round(top("auc_t2") + 0.06, 3)),
        gate("severity", "swer_auc_t1plus", ">=", top("auc_t1plus")),
        gate("severity", "sitar_reader_t1_in_t2_band", "<=", 0.25),
        gate("severity", "sitar_reader_t0_in_t2_band", "<=", 0.10),
        gate("severity", "swer_spearman_damage", ">=", round(top("spearman_damage") + 0.02, 3)),
        gate("severity", "swer_spearman_damage_in_t2", ">=", top("spearman_damage_in_t2")),
        gate("public_ab", "swer_all", ">=", max(a[f"{b}_all"] for b in BASELINES)),
        gate("public_ab", "sitar_le1", ">=", round(max(a[f"{b}_le1"] for b in BASELINES) + 0.05, 3)),
        gate("recognizer_test", "tier_accuracy_pct", ">=", 80),
        gate("invariance", "format_pairs_t0_pct", ">=", 98),
        gate("invariance", "flips_in_band_pct", ">=", 95),
        *(gate("invariance", f"dev_{f}_{m}_drop", "<=", 0.01)
          for f in ("stripped", "mixed") for m in ("pairwise", "spearman")),
        gate("invariance", "dev_stripped_moved_share", "<=", 0.02),
        gate("invariance", "dev_stripped_max_move", "<=", 0.15),
        *(gate("paper_example", f"ordered_pairs_{f}", ">=", 55)
          for f in ("written", "stripped", "mixed")),
        gate("challenge", "in_band_pct", ">=", 90),
        gate("public_dev", "pairwise_pct", ">=", round(vd["pairwise_pct"] - 0.5, 1)),
        gate("public_dev", "mean_spearman", ">=", round(vd["mean_spearman"] - 0.005, 3)),
        gate("public_dev", "within_tier_pct", ">=", round(vd["within_tier_pct"] - 0.5, 1)),
        gate("recognizer_test", "spearman", ">=", round(rec(v)["spearman"] - 0.005, 3)),
        gate("public_ab", "sitar_all", ">=", round(ab(vs)["sitar_all"] - 0.005, 3)),
    ]  # fmt: skip
    return out, gates


def main() -> int:
    p = argparse.ArgumentParser()
    for name in ("--id", "--eval", "--severity", "--v5-eval", "--v5-severity", "--selection",
                 "--out"):  # fmt: skip
        p.add_argument(name, required=True)
    p.add_argument("--date", default="2026-12-03")
    p.add_argument("--speed", help="benchmarks speed --json output (gates the speed target)")
    args = p.parse_args()

    def load(path: str) -> Any:
        return json.loads(Path(path).read_text(encoding="utf-8"))

    res, gates = results(
        load(args.eval), load(args.severity), load(args.v5_eval), load(args.v5_severity)
    )
    meta = load(args.selection)
    sources = list(meta.get("sources", []))
    if args.speed:
        sp = load(args.speed)
        res["speed"] = {
            k: round(sp[k], 3) for k in ("ratio_sitar_vs_bertscore", "cpu_ratio_sitar_vs_bertscore")
        }
        gates.append(
            {"set": "speed", "metric": "ratio_sitar_vs_bertscore", "op": ">=", "threshold": 0.5}
        )
        sources.append(args.speed)
    c, cs, v = load(args.eval), load(args.severity), load(args.v5_eval)
    signatures = {
        "candidate": c["signature"],
        "candidate_severity": cs["signature"],
        "v5": v["signature"],
        "normalizer": c["signature"].rpartition("|norm:")[2] or None,
        "versions": {name: md.version(name) for name in ("sitar", "onnxruntime", "torch")},
    }
    doc = {
        "schema": "sitar.experiment/1",
        "id": args.id,
        "date": args.date,
        "baseline": "sitar-minilm-gap-v5",
        "checkpoint": None,
        "sources": sources,
        "config": meta["config"],
        "selection": meta["selection"],
        "evaluation": meta.get("evaluation", "int8row graph, tie-breaker 3, the checkpoint's "
                                             "defaults; v5 in the same code and session"),
        "results": res,
        "gates": gates,
        "unknown": meta.get("unknown", []),
        "signatures": signatures,
    }  # fmt: skip
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    ops = {">=": operator.ge, "<=": operator.le}
    for g in gates:
        value = res[g["set"]][g["metric"]]
        ok = ops[g["op"]](value, g["threshold"])
        print("PASS" if ok else "FAIL", g["set"], g["metric"], value, g["op"], g["threshold"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
