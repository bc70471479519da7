"""The weight average of two fine-tuned checkpoints of one lineage (a "model soup").

    python experiments/v36-soup/average.py A.safetensors B.safetensors OUT.safetensors \
        [--alpha 0.5] [--json OUT.json]

Every floating-point tensor becomes ``alpha * A + (1 - alpha) * B``; every other tensor (integer
buffers such as position ids) must be equal in both and is copied. The two files must hold the
same names and shapes. ``--json`` records the inputs' and the output's sha256 and alpha.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("out")
    p.add_argument("--alpha", type=float, default=0.5)
    p.add_argument("--json")
    args = p.parse_args(argv)
    if not 0.0 <= args.alpha <= 1.0:
        p.error(f"--alpha must be in [0, 1], got {args.alpha}")

    from safetensors.torch import load_file, save_file

    a, b = load_file(args.a), load_file(args.b)
    if sorted(a) != sorted(b):
        raise SystemExit(f"the files hold different tensors: {sorted(set(a) ^ set(b))[:5]}")
    out = {}
    averaged = copied = 0
    for name, x in a.items():
        y = b[name]
        if x.shape != y.shape or x.dtype != y.dtype:
            raise SystemExit(f"{name}: {x.shape} {x.dtype} against {y.shape} {y.dtype}")
        if x.is_floating_point():
            out[name] = (args.alpha * x.double() + (1.0 - args.alpha) * y.double()).to(x.dtype)
            averaged += 1
        elif bool((x == y).all()):
            out[name] = x.clone()
            copied += 1
        else:
            raise SystemExit(f"{name}: a non-float tensor differs between the files")
    save_file({k: v.contiguous() for k, v in out.items()}, args.out)
    record = {
        "alpha": args.alpha,
        "a": {"path": args.a, "sha256": sha256(Path(args.a))},
        "b": {"path": args.b, "sha256": sha256(Path(args.b))},
        "out": {"path": args.out, "sha256": sha256(Path(args.out))},
        "tensors": {"averaged": averaged, "copied": copied},
    }
    print(json.dumps(record, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
