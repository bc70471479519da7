"""The rewording records of sitar-synth-v1.5's training split that no candidate has trained on:
profiles ``reword``, ``sentence_rewrite``, ``quantifier``, ``reword_flip`` and ``rewrite_flip``,
minus every record whose id is in one of the EXCLUDE files (the 20k sample of v13-v33 and v33's
extra file); preregistration.md says why.

    python experiments/v34-reword-extra/select_records.py CORPUS.jsonl OUT.jsonl EXCLUDE.jsonl...
"""

from __future__ import annotations

import collections
import json
import sys

PROFILES = ("reword", "sentence_rewrite", "quantifier", "reword_flip", "rewrite_flip")


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    corpus, out, *exclude = argv
    used: set[str] = set()
    for path in exclude:
        with open(path, encoding="utf-8") as f:
            used.update(json.loads(line)["id"] for line in f)
    kept: collections.Counter[str] = collections.Counter()
    with open(corpus, encoding="utf-8") as src, open(out, "w", encoding="utf-8") as dst:
        for line in src:
            record = json.loads(line)
            profile = record["provenance"].get("profile")
            if record["id"] in used or profile not in PROFILES:
                continue
            dst.write(line)
            kept[profile] += 1
    print(dict(sorted(kept.items())), "total", sum(kept.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
