"""Choose swer's T1 weight and extent measure on the validation A/B set (model selection only).

    python experiments/swer-params/choose.py [--set annotation/ab/sitar_ab_val_v1.jsonl] \
        [--checkpoint CKPT] [--json OUT]

Scores both transcripts of every item once with the gap head (``Scorer.analyze``), then computes
``swer`` for every (t1_weight, extent) on the grid from the same per-gap tiers and reports each
one's agreement with the judge (items judged ``same`` left out, metric ties count half: the
definition of ``training.evaluate_ab.agreement``). The choice: the highest agreement; ties go to the
smaller T1 weight, then to ``words`` (the simpler measure). The training split has no
transcript-level judgements, so the validation A/B set, built for model selection, is where this
choice is made; the public A/B test set and the severity benchmark are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script from a clone: the training package beside sitar
    sys.path.insert(0, str(ROOT))

from sitar import Scorer  # noqa: E402
from sitar.swer import EXTENTS, SwerParams, pair_swer, pair_value  # noqa: E402
from training.evaluate_ab import SWER_T1_GRID as GRID  # noqa: E402
from training.evaluate_ab import agreement, swer_choice_key  # noqa: E402


def _norms(text: str) -> list[str]:
    from sitar.text import tokenize

    return [t.norm for t in tokenize(text)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default=str(ROOT / "annotation/ab/sitar_ab_val_v1.jsonl"))
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--write",
        action="store_true",
        help="record the choice in the checkpoint (scoring.swer of sitar_config.json) and re-sign it",
    )
    args = ap.parse_args(argv)
    items = [json.loads(x) for x in Path(args.set).read_text(encoding="utf-8").splitlines() if x]
    scorer = Scorer.load(args.checkpoint) if args.checkpoint else Scorer.load()
    refs = [it["reference"] for it in items]
    analyses = scorer.analyze(
        references=refs + refs, hypotheses=[it["a"] for it in items] + [it["b"] for it in items]
    )
    rows = []
    for extent in EXTENTS:
        for w in GRID:
            p = SwerParams(t1_weight=w, extent=extent)
            vals = []
            for an in analyses:
                if an.identical or an.segmentation is None or an.gaps is None:
                    vals.append(0.0)
                    continue
                tiers = [g.tier for g in an.gaps]
                vals.append(pair_value(*pair_swer(an.segmentation, tiers, p)))
            n = len(items)
            ag = agreement(items, vals[:n], vals[n:])
            rows.append({"t1_weight": w, "extent": extent, **ag})
            print(f"{extent:6s} t1={w:<5g} agreement {ag['agreement']:.4f} (n {ag['items']})")
    n = len(items)
    reference_rows = {"sitar_score": [a.raw for a in analyses]}
    import jiwer

    for name, fn in (("wer", jiwer.wer), ("cer", jiwer.cer)):
        reference_rows[name] = [
            fn(" ".join(_norms(r)), " ".join(_norms(h))) if _norms(r) else float(bool(_norms(h)))
            for r, h in zip(
                refs + refs, [it["a"] for it in items] + [it["b"] for it in items], strict=True
            )
        ]
    peers = {}
    for name, vals in reference_rows.items():
        ag = agreement(items, vals[:n], vals[n:])
        peers[name] = ag
        print(f"peer {name:11s} agreement {ag['agreement']:.4f}")
    best = max(rows, key=lambda r: swer_choice_key(r["agreement"], r["t1_weight"], r["extent"]))
    print(f"chosen: t1_weight={best['t1_weight']:g} extent={best['extent']}")
    if args.json:
        out = {
            "set": str(Path(args.set).relative_to(ROOT))
            if Path(args.set).is_absolute()
            else args.set,
            "signature": scorer.signature,
            "grid": rows,
            "peers": peers,
            "chosen": {"t1_weight": best["t1_weight"], "extent": best["extent"]},
        }
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    if args.write:
        _record(args.checkpoint, {"t1_weight": best["t1_weight"], "extent": best["extent"]})
    return 0


def _record(checkpoint: str | None, chosen: object, key: str = "swer") -> None:
    """Write ``chosen`` as the checkpoint's ``scoring.<key>`` (``swer``: what :class:`sitar.Scorer`
    reports ``swer`` with for it; ``experiments/decode-tier`` records ``decode``) and sign the
    checkpoint again (its digests cover the config)."""
    from sitar.checkpoint import CONFIG_FILE, write_integrity

    if checkpoint is None:
        raise SystemExit("--write needs --checkpoint (the packaged checkpoint is not rewritten)")
    path = Path(checkpoint) / CONFIG_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data.setdefault("scoring", {})[key] = chosen
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    write_integrity(checkpoint)
    print(f"recorded scoring.{key} {chosen} in {path} and signed it again")


if __name__ == "__main__":
    raise SystemExit(main())
