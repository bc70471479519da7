"""Subcommands of the ``sitar`` CLI. Each module exposes ``register(subparsers)``, which adds its
parser with ``set_defaults(func=run)``, and ``run(args) -> int``."""
