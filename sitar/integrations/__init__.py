"""Integrations with other engines, each behind its own extra and imported only on demand.

* :mod:`sitar.integrations.ray`: score a Ray Dataset with an actor pool (extra ``ray``).
"""

from __future__ import annotations

__all__: list[str] = []
