"""How a benchmark result was made, for its JSON file: command line, commit, versions, machine."""

from __future__ import annotations

import datetime
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sitar", "numpy", "onnxruntime", "tokenizers", "rapidfuzz", "jiwer", "ray")


def _commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
        )
    except OSError:
        return None
    return out.stdout.strip() or None


def _cpu_flags() -> list[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    wanted = {"avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8"}
    return sorted(wanted & set(text.split()))


def provenance() -> dict[str, Any]:
    """The command line, git commit, UTC time, Python and package versions, and the CPU (int8
    kernels differ with AVX2 / VNNI)."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return {
        "argv": sys.argv,
        "commit": _commit(),
        "utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "versions": versions,
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "cpu_flags": _cpu_flags(),
    }
