"""Importing the diagnostics modules stays light: plotting, WER and model libraries load lazily."""

from __future__ import annotations

import subprocess
import sys


def test_diagnostics_imports_are_lazy():
    code = (
        "import sys\n"
        "import sitar, sitar.diagnostics, sitar.comparison, sitar.report\n"
        "import sitar.commands.explain, sitar.commands.compare, sitar.commands.report\n"
        "heavy = ['matplotlib', 'jinja2', 'jiwer', 'torch', 'transformers', 'onnxruntime', 'spacy']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == ""
