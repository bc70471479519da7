"""The direction, contrast and value records of sitar-synth-v1.5's training split that the 20k
sample of v13-v32 does not hold, without the records of the sound-alike operators (their planned
tiers mostly do not hold under rubric asr-v2; preregistration.md).

    python experiments/v33-families-extra/select_records.py SAMPLE.jsonl CORPUS.jsonl OUT.jsonl
"""

from __future__ import annotations

import json
import sys

PROFILES = ("direction", "contrast", "value")
SOUNDALIKE = frozenset(
    {"contrast_neighbour", "contrast_homophone", "direction_neighbour", "direction_homophone"}
)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    sample, corpus, out = argv
    with open(sample, encoding="utf-8") as f:
        used = {json.loads(line)["id"] for line in f}
    counts = {"kept": 0, "soundalike": 0}
    with open(corpus, encoding="utf-8") as src, open(out, "w", encoding="utf-8") as dst:
        for line in src:
            record = json.loads(line)
            provenance = record["provenance"]
            if record["id"] in used or provenance.get("profile") not in PROFILES:
                continue
            if any(edit["op"] in SOUNDALIKE for edit in provenance["edits"]):
                counts["soundalike"] += 1
                continue
            dst.write(line)
            counts["kept"] += 1
    print(counts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
