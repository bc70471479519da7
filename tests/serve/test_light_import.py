"""The serve and ray code stays behind its extras: importing sitar, the CLI (which registers
`sitar serve` and `--engine ray`) or the packages themselves loads none of their frameworks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("starlette", "fastapi", "pydantic", "uvicorn", "prometheus_client", "ray", "pyarrow")


def test_serve_and_ray_frameworks_load_lazily():
    code = (
        "import sys, json, sitar, sitar.cli, sitar.serve, sitar.serve.config, "
        "sitar.serve.batching, sitar.integrations, sitar.integrations.ray;"
        "sitar.cli.build_parser();"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert json.loads(out) == []
