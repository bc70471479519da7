"""``import sitar`` and ONNX scoring must work where torch and transformers cannot be imported.

Runs in a fresh interpreter with a meta-path finder that refuses torch and transformers, so the
test also holds on machines that have torch installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests" / "fixtures" / "tiny_onnx"

SCRIPT = textwrap.dedent(
    """
    import importlib.abc
    import json
    import sys

    BLOCKED = ("torch", "transformers")

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is blocked in this test")
            return None

    sys.meta_path.insert(0, Blocker())

    import sitar
    import sitar.cli
    import sitar.scorer
    from sitar.scorer import Scorer

    scorer = Scorer.load(sys.argv[1], variant="fp32")
    result = scorer.score(references=["the cat sat on the mat"], hypotheses=["the dog sat on the mat"])
    try:
        Scorer.load(sys.argv[1], backend="torch")
        torch_error = None
    except sitar.MissingDependencyError as e:
        torch_error = str(e)
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    print(json.dumps({"scores": result.scores, "loaded": loaded, "torch_error": torch_error}))
    """
)


def test_import_and_onnx_scoring_without_torch():
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(TINY)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["loaded"] == []
    assert abs(out["scores"][0] - 0.6312291281563894) < 1e-5
    assert "the torch backend" in out["torch_error"]
    assert "pip install '.[torch]'" in out["torch_error"]
