"""The challenge re-read's figures (``preregistration.md``): the readers' agreement, the changed
cases, and every committed evaluation's in-band share on version 1 and version 2 of the challenge
files, from the per-case scores those evaluations recorded (no model is run).

    python experiments/challenge-reread/measure.py [--out experiments/challenge-reread/results.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from annotation.challenge import load_challenge  # noqa: E402
from annotation.challenge.reread.apply import VERSIONS, nominal_tier, readings  # noqa: E402
from annotation.challenge.reread.make_sheets import HERE, READERS  # noqa: E402
from annotation.sheets import cohen_kappa  # noqa: E402
from sitar._main import ArgumentParser, tool_main  # noqa: E402
from sitar._version import __version__  # noqa: E402
from sitar.integrity import sha256_file  # noqa: E402

TIERS = ("T0", "T1", "T2")
#: evaluation-file key of each version-1 file's cases
SETS = {
    "challenge": "sitar_challenge_v1.jsonl",
    "scope_challenge": "sitar_challenge_scope_v1.jsonl",
}


def agreement(read: dict, ids: list[str]) -> dict:
    matrix = [[0, 0, 0] for _ in TIERS]
    for cid in ids:
        matrix[TIERS.index(read[cid]["A"].tier)][TIERS.index(read[cid]["B"].tier)] += 1
    observed, kappa = cohen_kappa(matrix)
    return {"cases": len(ids), "agreement": observed, "kappa": kappa, "confusion_A_rows": matrix}


def evaluations() -> list[Path]:
    found = set()
    for path in (ROOT / "experiments").glob("*/eval/**/*.json"):
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(d, dict) and isinstance(d.get("challenge"), dict):
            found.add(path)
    return sorted(found)


@tool_main("experiments/challenge-reread/measure.py")
def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path(__file__).with_name("results.json"))
    args = p.parse_args(argv)
    read = readings()
    files = {}
    for key, v1_name in SETS.items():
        v1_path = next(v1 for v1 in VERSIONS if v1.name == v1_name)
        v1 = {c.id: c for c in load_challenge(v1_path)}
        v2 = {c.id: c for c in load_challenge(VERSIONS[v1_path])}
        changed = [
            {
                "id": cid,
                "category": v1[cid].category,
                "reference": v1[cid].reference,
                "hypothesis": v1[cid].hypothesis,
                "v1": v1[cid].expected,
                "v2": v2[cid].expected,
                "A": [read[cid]["A"].tier, read[cid]["A"].reason],
                "B": [read[cid]["B"].tier, read[cid]["B"].reason],
            }
            for cid in v1
            if v1[cid].expected != v2[cid].expected
        ]
        both_differ = sum(
            read[cid]["A"].tier == read[cid]["B"].tier != nominal_tier(v1[cid].expected)
            for cid in v1
        )
        files[key] = {
            "file_v1": v1_path.name,
            "file_v2": VERSIONS[v1_path].name,
            "readers": agreement(read, list(v1)),
            "readers_agree_against_v1": both_differ,
            "changed": changed,
            "v2_tiers": {t: sum(c.expected == t for c in v2.values()) for t in TIERS},
            "v1": v1,
            "v2": v2,
        }
    rows = []
    for path in evaluations():
        d = json.loads(path.read_text(encoding="utf-8"))
        row = {"file": str(path.relative_to(ROOT)), "signature": d.get("signature", "")}
        for key, f in files.items():
            items = (d.get(key) or {}).get("items")
            if not items:
                continue
            score = {it["id"]: it["score"] for it in items}
            for version in ("v1", "v2"):
                cases = f[version]
                row[f"{key}_{version}"] = sum(
                    c.in_band(score[cid]) for cid, c in cases.items()
                ) / len(cases)
        rows.append(row)
    for f in files.values():
        del f["v1"], f["v2"]
    inputs = [HERE / "key.json", *(HERE / f"read_{r}.csv" for r in READERS)]
    inputs += [p for pair in VERSIONS.items() for p in pair]
    out = {
        "study": "challenge-reread",
        "made_by": "python experiments/challenge-reread/measure.py",
        "versions": {"sitar": __version__},
        "inputs": {str(p.relative_to(ROOT)): sha256_file(p) for p in inputs},
        "files": files,
        "evaluations": rows,
    }
    args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for key, f in files.items():
        r = f["readers"]
        print(
            f"{key}: {r['cases']} cases, readers agree {r['agreement']:.3f} (kappa {r['kappa']:.3f}),"
            f" {len(f['changed'])} changed, v2 tiers {f['v2_tiers']}"
        )
    for row in rows:
        print(
            f"{row['file']:70s} challenge {row['challenge_v1']:.3f} -> {row['challenge_v2']:.3f}"
            + (
                f"  scope {row['scope_challenge_v1']:.3f} -> {row['scope_challenge_v2']:.3f}"
                if "scope_challenge_v1" in row
                else ""
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
