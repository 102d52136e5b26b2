"""Weighted reciprocal rank fusion over per-signal rankings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memex_core.domain import FusedHit, SignalHit

#: Smaller than the textbook 60: with deep candidate lists (``[search] candidate_depth``)
#: a large k lets fragments that are mediocre in both signals outrank one that a signal
#: ranks first (measured in docs/benchmarks.md).
DEFAULT_K = 10.0


class ReciprocalRankFusion:
    """``score(d) = sum over signals s of weight_s / (k + rank_s(d))``.

    A signal with weight 0 still reports its ranks (so a result shows what every
    signal thought) but adds nothing to the score. Each fragment id appears once:
    if a signal lists an id twice, its best rank counts. Ties are broken by the
    best individual rank, then by id, so the order is deterministic.
    """

    #: fuse() keeps no state, so concurrent searches may share it (memex_core.threads).
    concurrent_reads = True

    def __init__(self, k: float = DEFAULT_K) -> None:
        if k < 0:
            raise ValueError("RRF k must be >= 0")
        self.k = k

    def fuse(
        self,
        signals: Mapping[str, Sequence[SignalHit]],
        weights: Mapping[str, float],
        limit: int,
    ) -> list[FusedHit]:
        names = list(signals)
        ranks: dict[str, dict[str, int]] = {}
        raw: dict[str, dict[str, float]] = {}
        fused: dict[str, float] = {}
        for name in names:
            weight = float(weights.get(name, 1.0))
            for position, hit in enumerate(signals[name], start=1):
                per_id = ranks.setdefault(hit.id, {})
                if name in per_id:  # duplicate id within one signal: keep the best rank
                    continue
                per_id[name] = position
                raw.setdefault(hit.id, {})[name] = hit.score
                fused[hit.id] = fused.get(hit.id, 0.0) + weight / (self.k + position)

        def order(fragment_id: str) -> tuple[float, int, str]:
            return (-fused[fragment_id], min(ranks[fragment_id].values()), fragment_id)

        best = sorted(fused, key=order)[: max(self._depth(signals, limit), 0)]
        hits = [
            FusedHit(
                id=fragment_id,
                score=fused[fragment_id],
                ranks={name: ranks[fragment_id].get(name) for name in names},
                scores={name: raw[fragment_id].get(name) for name in names},
            )
            for fragment_id in best
        ]
        return self._rescore(hits, limit)

    def _depth(self, signals: Mapping[str, Sequence[SignalHit]], limit: int) -> int:
        """How many of the best fused hits :meth:`_rescore` is given: ``limit`` here; a
        subclass that reorders them (memex_hubs) asks for more."""
        return limit

    def _rescore(self, fused: list[FusedHit], limit: int) -> list[FusedHit]:
        """The answer, from the best :meth:`_depth` hits in fused order: those, as they are."""
        return fused
