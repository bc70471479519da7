"""``sitar serve``: an HTTP scoring service over :class:`sitar.scorer.Scorer` (extra ``serve``).

:mod:`sitar.serve.config` (settings), :mod:`sitar.serve.batching` (micro-batching queue),
:mod:`sitar.serve.metrics` (Prometheus), :mod:`sitar.serve.middleware` (Host check, access log),
:mod:`sitar.serve.models` (the pydantic request and response models) and :mod:`sitar.serve.app`
(the FastAPI app). Importing this package loads none of fastapi, pydantic, starlette, uvicorn or
prometheus_client; the app and models modules import them (a missing one is a
:class:`~sitar.errors.MissingDependencyError` naming the extra).
"""

from __future__ import annotations

from sitar.serve.config import ServeConfig

__all__ = ["ServeConfig"]
