"""``sitar checkpoint verify|sign``: check or record a checkpoint folder's SHA-256 digests.

``verify FOLDER...`` loads each folder as :meth:`sitar.checkpoint.CheckpointConfig.load` does
(config checks, symbolic links, every recorded digest; see :mod:`sitar.integrity`) and prints
``FOLDER: <name>@<short digest>``, the signature's ``ckpt`` field (``-unverified`` when the folder
records no digests). ``sign FOLDER...`` computes the digests of each folder and records them in its
``sitar_config.json`` (after an intended change; ``python -m training.export`` does it for every
export). A failure is a :class:`~sitar.errors.CheckpointError`: exit code 2, one line on stderr.

This command replaces ``python -m sitar.integrity write|verify``, which still works (with a
deprecation notice) through :mod:`sitar.integrity.__main__`. Living here, above both
:mod:`sitar.checkpoint` and :mod:`sitar.integrity`, it keeps the import graph acyclic:
``checkpoint`` imports ``integrity``, never the reverse.
"""

from __future__ import annotations

import argparse

from sitar.checkpoint import CheckpointConfig, write_integrity
from sitar.integrity import SHORT_DIGEST_LEN, checkpoint_id

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "checkpoint",
        help="verify or sign (record the digests of) a checkpoint folder",
        description="Check a checkpoint folder against its recorded SHA-256 digests, or record "
        "them after an intended change.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    verify = actions.add_parser(
        "verify",
        help="load each folder and check its digests; print <name>@<digest>",
        description="Load each checkpoint folder, check it against its recorded digests and "
        "print FOLDER: <name>@<short digest> (the signature's ckpt field).",
    )
    verify.add_argument("folder", nargs="+", help="checkpoint folder (holds sitar_config.json)")
    sign = actions.add_parser(
        "sign",
        help="record the SHA-256 digests of each folder in its sitar_config.json",
        description="Compute the SHA-256 digests of each checkpoint folder (files and "
        "score-changing config values) and record them in its sitar_config.json.",
    )
    sign.add_argument("folder", nargs="+", help="checkpoint folder (holds sitar_config.json)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for folder in args.folder:
        if args.action == "sign":
            section = write_integrity(folder)
            print(f"{folder}: digest {section['digest'][:SHORT_DIGEST_LEN]} recorded", flush=True)
        else:
            config = CheckpointConfig.load(folder)
            print(f"{folder}: {checkpoint_id(config)}", flush=True)
    return 0
