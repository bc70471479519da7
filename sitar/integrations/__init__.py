"""Integrations with other engines, each behind its own extra and imported only on demand.

* :mod:`sitar.integrations.ray`: score a Ray Dataset with an actor pool (extra ``ray``).
* :mod:`sitar.integrations.torchmetrics`: ``SitarScore``, a torchmetrics ``Metric`` that
  accumulates across batches and processes (extra ``metrics``).

The Hugging Face ``evaluate`` script is not a module of the package: it is the folder
``integrations/hf_evaluate/sitar/`` of the repository, which ``evaluate.load`` reads by path.
"""

from __future__ import annotations

__all__: list[str] = []
