"""``python -m sitar.integrity write|verify FOLDER...``: deprecated; use ``sitar checkpoint``.

``write`` is now ``sitar checkpoint sign`` and ``verify`` is ``sitar checkpoint verify``
(:mod:`sitar.commands.checkpoint`); this entry point prints a deprecation notice on stderr and runs
that command, with the same output and exit codes (2 on a checkpoint error). It lives in the
package's ``__main__`` so that :mod:`sitar.integrity` itself never imports the command (which
imports :mod:`sitar.checkpoint`, which imports :mod:`sitar.integrity`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from sitar._main import ArgumentParser, tool_main

#: The old action names and the ``sitar checkpoint`` actions they became.
ACTIONS = {"write": "sign", "verify": "verify"}


@tool_main("python -m sitar.integrity")
def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m sitar.integrity",
        description="Deprecated: use `sitar checkpoint sign|verify FOLDER...`.",
    )
    parser.add_argument("action", choices=tuple(ACTIONS))
    parser.add_argument("folder", nargs="+")
    args = parser.parse_args(argv)
    action = ACTIONS[args.action]
    from argparse import Namespace

    from sitar.commands.checkpoint import run

    # The command's own code, so that an error is this tool's one line (its prefix, exit 2).
    code = run(Namespace(action=action, folder=args.folder))
    print(
        f"python -m sitar.integrity {args.action} is deprecated; use `sitar checkpoint {action} "
        "FOLDER...` (same output)",
        file=sys.stderr,
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
