"""Convex combination of normalised signal scores (an alternative to rank fusion)."""

from __future__ import annotations

from memex_rrf.fusion import Listing, ScoreFusion, Signals, Weights


class ConvexFusion(ScoreFusion):
    """``score(d) = sum over signals s of weight_s * score_s(d) / max score_s``.

    Each signal's raw scores (BM25, cosine) are divided by the best score that signal
    listed for this query, so its best hit counts 1 whatever the scale. A fragment a
    signal did not list counts that signal's lowest listed share when the signal's list
    was cut off (as long as the longest list: it may have scored the fragment just
    below), and 0 when the signal listed fewer (it ran out of matches). Unlike rank
    fusion this keeps how far apart the hits are, which on documents (BEIR SciFact)
    ranks better (docs/benchmarks.md, section 3).

    Each fragment id appears once per signal (its best score counts); ties are broken
    by the best individual rank, then by id, as in :class:`ReciprocalRankFusion`.
    """

    def _fused(self, signals: Signals, weights: Weights, listing: Listing) -> dict[str, float]:
        ranks, raw = listing
        longest = max((len(hits) for hits in signals.values()), default=0)
        shares: dict[str, dict[str, float]] = {}
        floors: dict[str, float] = {}
        for name, hits in signals.items():
            if not hits:
                continue
            top = max(hit.score for hit in hits)
            shares[name] = {
                fragment_id: by_signal[name] / top if top > 0 else 0.0
                for fragment_id, by_signal in raw.items()
                if name in by_signal
            }
            floors[name] = min(shares[name].values()) if len(hits) >= longest else 0.0
        return {
            fragment_id: sum(
                float(weights.get(name, 1.0)) * shares[name].get(fragment_id, floors[name])
                for name in shares
            )
            for fragment_id in ranks
        }
