"""Reciprocal rank fusion with a lift for hubs: notes many other documents link to."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from memex_core.domain import FusedHit, LinkGraphView, SignalHit
from memex_rrf import DEFAULT_K, ReciprocalRankFusion


class HubRanker(ReciprocalRankFusion):
    """Weighted RRF, then ``score x (1 + boost * ln(1 + backlinks))``.

    The lift is multiplicative so it scales with relevance: a hub that no signal
    ranked well cannot overtake a strong match by links alone, but among
    comparable matches the note the vault points at comes first. It is applied
    to every fused candidate before the cut to ``limit``, so a hub just below the
    cut can move into it.

    Until :meth:`bind_graph` is called (memex calls it before searching when a
    link graph exists) the ranker is exactly :class:`ReciprocalRankFusion`.
    """

    #: fuse() keeps no state (it reads the catalog's backlinks), so concurrent searches may
    #: share it (memex_core.threads).
    concurrent_reads = True

    def __init__(self, k: float = DEFAULT_K, boost: float = 0.1) -> None:
        if not boost >= 0:  # also rejects NaN
            raise ValueError("hubs boost must be >= 0")
        super().__init__(k=k)
        self.boost = boost
        self._graph: LinkGraphView | None = None

    def bind_graph(self, graph: LinkGraphView | None) -> None:
        """Read backlinks from ``graph`` from now on; ``None`` goes back to plain RRF."""
        self._graph = graph

    def _lifts(self, limit: int) -> LinkGraphView | None:
        """The graph whose backlinks lift the hits, or None when nothing is lifted."""
        return None if self.boost == 0 or limit <= 0 else self._graph

    def _depth(self, signals: Mapping[str, Sequence[SignalHit]], limit: int) -> int:
        if self._lifts(limit) is None:
            return limit
        # Every candidate (each signal's list length bounds how many there are).
        return sum(len(hits) for hits in signals.values())

    def _rescore(self, fused: list[FusedHit], limit: int) -> list[FusedHit]:
        graph = self._lifts(limit)
        if graph is None or not fused:
            return fused[: max(limit, 0)]
        counts = graph.backlink_counts([hit.id for hit in fused])
        lifted = [
            replace(hit, score=hit.score * self._lift(counts.get(hit.id, 0))) for hit in fused
        ]
        # sort is stable and `fused` is in RRF order (score, best rank, id), so equal
        # lifted scores keep that deterministic order, and with no backlinks at all
        # the result is RRF's, hit for hit.
        lifted.sort(key=lambda hit: -hit.score)
        return lifted[:limit]

    def _lift(self, backlinks: int) -> float:
        return 1.0 + self.boost * math.log1p(max(int(backlinks), 0))
