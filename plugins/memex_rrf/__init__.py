"""The ``rrf`` ranker: weighted reciprocal rank fusion.

Each signal contributes ``weight / (k + rank)`` for every fragment it ranked;
fragments are ordered by the sum. ``k`` damps the advantage of the very top ranks
(default 10, tuned with ``[search] candidate_depth``; Cormack et al. 2009 used 60).
Configure in ``config.toml``::

    [ranker.rrf]
    k = 10
"""

from __future__ import annotations

from typing import Any

from memex_core.hookspecs import hookimpl
from memex_rrf.fusion import DEFAULT_K, ReciprocalRankFusion

__all__ = ["DEFAULT_K", "ReciprocalRankFusion"]


@hookimpl
def register_rankers(register: Any) -> None:
    register(
        "rrf",
        lambda context: ReciprocalRankFusion(k=float(context.settings.get("k", DEFAULT_K))),
        description="Weighted reciprocal rank fusion (k=10 by default).",
    )
