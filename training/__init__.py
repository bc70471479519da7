"""SITAR training (not installed with the package; extra ``sitar[train]``).

Importable functions plus ``python -m training``: :func:`training.loop.train` runs one explicit
``accelerate`` loop over versioned record files (``sitar.record/1``), :mod:`training.evaluate` holds
the spec §8 (docs/spec.md) metrics as pure functions, and ``python -m training.export`` turns a run into a SITAR
checkpoint folder. This package imports ``sitar`` and ``sitar.modeling``; it never imports
``annotation/``, with which it exchanges data only through record files.
"""

from __future__ import annotations

__all__: list[str] = []
