"""RRF, then the best candidates re-ordered by the rerank model."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from memex_core.domain import FusedHit, RerankCatalog
from memex_rerank.explain import reasons
from memex_rerank.features import Unit, feature_rows, unit_of
from memex_rerank.model import RerankModel
from memex_rrf import DEFAULT_K, ReciprocalRankFusion

#: The signal name the rerank adds to each hit's ranks and scores (shown by --explain).
RERANK = "rerank"
#: Candidates the model re-orders (the rest follow in fused order).
DEFAULT_DEPTH = 50
#: Share of the candidates that must share their conversation with another for the model
#: to re-order them (see :func:`conversational`).
CONVERSATIONAL_SHARE = 0.5


def conversational(conversations: Iterable[str]) -> bool:
    """Whether candidates from these conversations (one per candidate) look like turns of
    conversations: at least :data:`CONVERSATIONAL_SHARE` of them share their conversation
    with another candidate. Documents, one per conversation (SciFact's abstracts, where the
    model lowered nDCG@10 from 0.723 to 0.699), do not."""
    counts = Counter(conversations)
    total = sum(counts.values())
    together = sum(n for n in counts.values() if n > 1)
    return total > 0 and together >= CONVERSATIONAL_SHARE * total


class LearnedRerank(ReciprocalRankFusion):
    """Fuses like ``rrf`` (same ``k``); hybrid search then hands it the best ``rerank_depth``
    candidates the relevance floor kept (:class:`memex_core.domain.QueryAwareRanker`)."""

    concurrent_reads = True  # the model is read-only

    def __init__(
        self, model: RerankModel, k: float = DEFAULT_K, depth: int = DEFAULT_DEPTH
    ) -> None:
        super().__init__(k)
        self.model = model
        self.rerank_depth = depth

    def rerank(
        self, query: str, hits: Sequence[FusedHit], catalog: RerankCatalog
    ) -> list[FusedHit]:
        ids = [h.id for h in hits]
        fragments = catalog.get_many(ids)
        if not conversational(f.conversation_id for f in fragments.values()):
            return list(hits)  # the model knows conversations only: documents stay as fused
        positions = catalog.fragment_positions(ids)
        at = {place: fid for fid, place in positions.items()}
        units: dict[str, Unit] = {}
        for fid, fragment in fragments.items():
            place = positions.get(fid)
            before = after = None
            if place is not None:
                conversation, position = place
                before = at.get((conversation, position - 1))
                after = at.get((conversation, position + 1))
            units[fid] = unit_of(fragment.content, fragment.role, before, after, place)
        rows = feature_rows(query, hits, units)
        scores = self.model.score(rows)
        why = reasons(self.model.weights, rows)
        order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
        # Each hit takes the fused score of the place it moves to, so that scores still
        # fall down the page (callers sort, cut and show by them) and the hits after the
        # reranked ones still score below them; the model's own score is scores["rerank"].
        places = sorted((h.score for h in hits), reverse=True)
        return [
            FusedHit(  # built, not dataclasses.replace'd: that costs ~1 ms per search
                hits[i].id,
                places[place - 1],
                {**hits[i].ranks, RERANK: place},
                {**hits[i].scores, RERANK: round(scores[i], 4)},
                why[i],
            )
            for place, i in enumerate(order, start=1)
        ]
