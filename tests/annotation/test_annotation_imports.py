"""annotation/ loads neither torch nor training/, and importing it has no side effects."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_annotation_never_imports_torch_or_training():
    code = (
        "import sys\n"
        "import annotation, annotation.__main__, annotation.pipeline, annotation.dataset\n"
        "import annotation.sheets, annotation.augment, annotation.split, annotation.client\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'torch', 'transformers', "
        "'training'})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
