"""Reciprocal rank fusion with a lift for hubs: notes many other documents link to."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from memex_core.domain import FusedHit, LinkGraphView, SignalHit
from memex_rrf import DEFAULT_K, ReciprocalRankFusion


class HubRanker:
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
        self._rrf = ReciprocalRankFusion(k=k)
        self.k = self._rrf.k
        self.boost = boost
        self._graph: LinkGraphView | None = None

    def bind_graph(self, graph: LinkGraphView | None) -> None:
        """Read backlinks from ``graph`` from now on; ``None`` goes back to plain RRF."""
        self._graph = graph

    def fuse(
        self,
        signals: Mapping[str, Sequence[SignalHit]],
        weights: Mapping[str, float],
        limit: int,
    ) -> list[FusedHit]:
        if self._graph is None or self.boost == 0 or limit <= 0:
            return self._rrf.fuse(signals, weights, limit)
        # Fuse every candidate (each signal's list length bounds how many there are).
        everything = sum(len(hits) for hits in signals.values())
        fused = self._rrf.fuse(signals, weights, everything)
        if not fused:
            return []
        counts = self._graph.backlink_counts([hit.id for hit in fused])
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
