"""Fusion of per-signal rankings: the shared frame (ScoreFusion) and weighted reciprocal
rank fusion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memex_core.domain import FusedHit, SignalHit

#: Smaller than the textbook 60: with deep candidate lists (``[search] candidate_depth``)
#: a large k lets fragments that are mediocre in both signals outrank one that a signal
#: ranks first (measured in docs/benchmarks.md).
DEFAULT_K = 10.0


Signals = Mapping[str, Sequence[SignalHit]]
Weights = Mapping[str, float]
#: Per listed fragment id: its rank, and its raw score, in each signal that listed it.
Listing = tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]


class ScoreFusion:
    """Fusion by a score per fragment: subclasses say how a fragment's ranks and raw
    scores in each signal make its fused score (:meth:`_fused`).

    Each fragment id appears once: if a signal lists an id twice, its best rank counts.
    Ties are broken by the best individual rank, then by id, so the order is
    deterministic.
    """

    #: fuse() keeps no state, so concurrent searches may share it (memex_core.threads).
    concurrent_reads = True

    def fuse(
        self,
        signals: Mapping[str, Sequence[SignalHit]],
        weights: Mapping[str, float],
        limit: int,
    ) -> list[FusedHit]:
        ranks, raw = listing = listed(signals)
        fused = self._fused(signals, weights, listing)
        hits = best_first(fused, ranks, raw, list(signals), self._depth(signals, limit))
        return self._rescore(hits, limit)

    def _fused(self, signals: Signals, weights: Weights, listing: Listing) -> dict[str, float]:
        """The fused score of each listed fragment (every id in ``listing``'s ranks)."""
        raise NotImplementedError

    def _depth(self, signals: Mapping[str, Sequence[SignalHit]], limit: int) -> int:
        """How many of the best fused hits :meth:`_rescore` is given: ``limit`` here; a
        subclass that reorders them (memex_hubs) asks for more."""
        return limit

    def _rescore(self, fused: list[FusedHit], limit: int) -> list[FusedHit]:
        """The answer, from the best :meth:`_depth` hits in fused order: those, as they are."""
        return fused


class ReciprocalRankFusion(ScoreFusion):
    """``score(d) = sum over signals s of weight_s / (k + rank_s(d))``.

    A signal with weight 0 still reports its ranks (so a result shows what every
    signal thought) but adds nothing to the score. Each fragment id appears once:
    if a signal lists an id twice, its best rank counts. Ties are broken by the
    best individual rank, then by id, so the order is deterministic.
    """

    def __init__(self, k: float = DEFAULT_K) -> None:
        if k < 0:
            raise ValueError("RRF k must be >= 0")
        self.k = k

    def _fused(self, signals: Signals, weights: Weights, listing: Listing) -> dict[str, float]:
        ranks = listing[0]
        return {
            fragment_id: sum(
                float(weights.get(name, 1.0)) / (self.k + position)
                for name, position in per_signal.items()
            )
            for fragment_id, per_signal in ranks.items()
        }


def listed(signals: Signals) -> Listing:
    """Each listed fragment's rank and raw score per signal that listed it (if a signal
    lists an id twice, its best rank and that hit's score count)."""
    ranks: dict[str, dict[str, int]] = {}
    raw: dict[str, dict[str, float]] = {}
    for name, hits in signals.items():
        for position, hit in enumerate(hits, start=1):
            per_id = ranks.setdefault(hit.id, {})
            if name not in per_id:
                per_id[name] = position
                raw.setdefault(hit.id, {})[name] = hit.score
    return ranks, raw


def best_first(
    fused: Mapping[str, float],
    ranks: Mapping[str, Mapping[str, int]],
    raw: Mapping[str, Mapping[str, float]],
    names: Sequence[str],
    limit: int,
) -> list[FusedHit]:
    """The best ``limit`` fused scores as hits; ties broken by the best individual rank,
    then by id, so the order is deterministic."""

    def order(fragment_id: str) -> tuple[float, int, str]:
        return (-fused[fragment_id], min(ranks[fragment_id].values()), fragment_id)

    return [
        FusedHit(
            id=fragment_id,
            score=fused[fragment_id],
            ranks={name: ranks[fragment_id].get(name) for name in names},
            scores={name: raw[fragment_id].get(name) for name in names},
        )
        for fragment_id in sorted(fused, key=order)[: max(limit, 0)]
    ]
