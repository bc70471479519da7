"""``sitar serve``: an HTTP scoring service over :class:`sitar.scorer.Scorer` (extra ``serve``).

:mod:`sitar.serve.config` (settings), :mod:`sitar.serve.batching` (micro-batching queue),
:mod:`sitar.serve.metrics` (Prometheus) and :mod:`sitar.serve.app` (the Starlette app). Importing
this package loads none of starlette, uvicorn or prometheus_client; the app module imports them
when an app is created.
"""

from __future__ import annotations

from sitar.serve.config import ServeConfig

__all__ = ["ServeConfig"]
