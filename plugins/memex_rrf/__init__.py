"""The ``rrf`` ranker: weighted reciprocal rank fusion.

Each signal contributes ``weight / (k + rank)`` for every fragment it ranked;
fragments are ordered by the sum. ``k`` (default 60, as in Cormack et al. 2009)
damps the advantage of the very top ranks. Configure in ``config.toml``::

    [ranker.rrf]
    k = 60
"""

from __future__ import annotations

from typing import Any

from memex_core.hookspecs import hookimpl
from memex_rrf.fusion import ReciprocalRankFusion

__all__ = ["ReciprocalRankFusion"]


@hookimpl
def register_rankers(register: Any) -> None:
    register(
        "rrf",
        lambda context: ReciprocalRankFusion(k=float(context.settings.get("k", 60))),
        description="Weighted reciprocal rank fusion (k=60 by default).",
    )
