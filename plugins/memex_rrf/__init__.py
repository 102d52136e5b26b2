"""The ``rrf`` ranker (weighted reciprocal rank fusion) and the ``convex`` ranker.

Each signal contributes ``weight / (k + rank)`` for every fragment it ranked;
fragments are ordered by the sum. ``k`` damps the advantage of the very top ranks
(default 10, tuned with ``[search] candidate_depth``; Cormack et al. 2009 used 60).
Configure in ``config.toml``::

    [ranker.rrf]
    k = 10

``convex`` adds each signal's score divided by its best score for the query, weighted
(``memex_rrf.convex``); choose it with ``[ranker] use = "convex"``. On BEIR SciFact it
ranks documents better than ``rrf``, on LoCoMo conversation turns slightly worse
(docs/benchmarks.md, section 3), so ``rrf`` stays the default.
"""

from __future__ import annotations

from typing import Any

from memex_core.hookspecs import hookimpl
from memex_rrf.convex import ConvexFusion
from memex_rrf.fusion import DEFAULT_K, ReciprocalRankFusion

__all__ = ["DEFAULT_K", "ConvexFusion", "ReciprocalRankFusion"]


@hookimpl
def register_rankers(register: Any) -> None:
    register(
        "rrf",
        lambda context: ReciprocalRankFusion(k=float(context.settings.get("k", DEFAULT_K))),
        description="Weighted reciprocal rank fusion (k=10 by default).",
    )
    register(
        "convex",
        lambda context: ConvexFusion(),
        description="Weighted sum of each signal's score over its best score for the query.",
    )
