"""SITAR's offline annotation pipeline (spec §6, docs/spec.md): builds supervision records from ASR pairs.

Not installed with ``sitar``; run it from a checkout as ``python -m annotation`` with the
``sitar[annotate]`` extra (httpx, tqdm, scikit-learn). It imports the sitar core only -- never
torch and never ``training/`` -- and hands its results to ``training/`` as versioned record
files (:mod:`sitar.records`). See ``annotation/README.md``.

Modules: :mod:`~annotation.client` (OpenAI-compatible client), :mod:`~annotation.journal`
(SQLite journal), :mod:`~annotation.protocol` (the §6 decision rules), :mod:`~annotation.pipeline`
(resumable runs), :mod:`~annotation.sheets` (human labels), :mod:`~annotation.split` and
:mod:`~annotation.augment` (dataset construction), :mod:`~annotation.dataset` (outputs).
Submodules are imported on demand, so ``import annotation`` has no side effects.
"""

from __future__ import annotations

__all__: list[str] = []
