"""The probe pairs of preregistration.md and report.md (a handful of pairs, not a set).

python experiments/v33-families-extra/probe_pairs.py CHECKPOINT [CHECKPOINT ...]
"""

from __future__ import annotations

import sys

PAIRS = [
    ("Turn left at the next junction.", "Turn right at the next junction."),
    ("turn left", "turn right"),
    (
        "At the end of the road, turn left at the next junction and park behind the school.",
        "At the end of the road, turn right at the next junction and park behind the school.",
    ),
    ("The shipment arrived early.", "The shipment arrived late."),
    ("The bridge is safe to cross.", "The bridge is unsafe to cross."),
    ("Please enable the alarm tonight.", "Please disable the alarm tonight."),
    ("Lock the door.", "Unlock the door."),
    ("Sell my shares.", "Buy my shares."),
    ("The test was negative.", "The test was positive."),
    ("I need four copies by noon.", "i need for copies by noon"),
    ("Wire 300 dollars to Anna.", "Wire 3000 dollars to Anna."),
    ("Turn left at the next junction.", "Turn lift at the next junction."),
]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    from sitar import Scorer

    for checkpoint in argv:
        scorer = Scorer.load(checkpoint)
        result = scorer.score(references=[r for r, _ in PAIRS], hypotheses=[h for _, h in PAIRS])
        print(result.signature)
        for (ref, hyp), score in zip(PAIRS, result.scores, strict=True):
            print(f"{score:.3f}  {ref} => {hyp}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
