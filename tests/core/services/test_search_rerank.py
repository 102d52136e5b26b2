"""Hybrid search and a ranker that reranks (``QueryAwareRanker``, issue 33): it is handed the
query and the best ``rerank_depth`` candidates the floor kept, its order is the answer's,
and the signal it adds shows with each result; a plain ranker's results are unchanged."""

from __future__ import annotations

from collections.abc import Sequence

from memex_core.domain import (
    KEYWORD,
    SEMANTIC,
    Fragment,
    FusedHit,
    RerankCatalog,
    SearchFilters,
    SignalHit,
)
from memex_core.services.search import SearchService
from memex_rrf import ReciprocalRankFusion
from tests.support.catalog_builders import fragment
from tests.support.component_doubles import HashingEmbedder, MemoryVectorStore

TEXTS = {
    "a": "apple pie recipe",
    "b": "apple tart",
    "c": "banana bread",
    "d": "apple crumble with apple",
}


class Catalog:
    def __init__(self, fragments: Sequence[Fragment]) -> None:
        self.fragments = {f.id: f for f in fragments}

    def get_many(self, ids: Sequence[str]) -> dict[str, Fragment]:
        return {i: self.fragments[i] for i in ids if i in self.fragments}

    def fragment_positions(self, ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        return {}


class Keyword:
    """Hits for every text that holds a query word, by how many it holds."""

    def search(self, query: str, limit: int, filters: object) -> list[SignalHit]:
        words = set(query.split())
        scored = [(sum(w in words for w in t.split()), i) for i, t in TEXTS.items()]
        return [SignalHit(i, float(s)) for s, i in sorted(scored, reverse=True) if s][:limit]


class Reversing(ReciprocalRankFusion):
    """Fuses like rrf, then reverses what it is handed and records it."""

    rerank_depth = 3

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, list[str]]] = []

    def rerank(
        self, query: str, hits: Sequence[FusedHit], catalog: RerankCatalog
    ) -> list[FusedHit]:
        assert isinstance(catalog, RerankCatalog)
        self.calls.append((query, [h.id for h in hits]))
        return [
            FusedHit(h.id, h.score, {**h.ranks, "reversed": n}, {**h.scores, "reversed": -n})
            for n, h in enumerate(reversed(list(hits)), start=1)
        ]


def service(ranker: object) -> SearchService:
    fragments = [fragment(i, "conv", None) for i in TEXTS]
    fragments = [
        Fragment(f.id, f.conversation_id, f.role, TEXTS[f.id], f.provenance) for f in fragments
    ]
    store = MemoryVectorStore()
    embedder = HashingEmbedder()
    store.upsert(fragments, embedder.embed_documents([f.content for f in fragments]).tolist())
    return SearchService(Catalog(fragments), Keyword(), store, embedder, ranker)  # type: ignore[arg-type]


def ids(found: object) -> list[str]:
    return [r.fragment.id for r in found.results]  # type: ignore[attr-defined]


def test_the_rerank_orders_the_best_candidates_and_names_its_signal() -> None:
    plain = service(ReciprocalRankFusion()).hybrid("apple pie", 10, filters(), floor=None)
    ranker = Reversing()
    found = service(ranker).hybrid("apple pie", 10, filters(), floor=None)
    fused = ids(plain)
    assert ranker.calls == [("apple pie", fused[:3])]
    assert ids(found) == fused[:3][::-1] + fused[3:]
    first = found.results[0]
    assert first.ranks["reversed"] == 1 and first.scores["reversed"] == -1
    assert set(first.ranks) == {KEYWORD, SEMANTIC, "reversed"}
    assert set(found.results[-1].ranks) == {KEYWORD, SEMANTIC}  # past the depth: as fused


def test_the_rerank_sees_candidates_beyond_the_limit() -> None:
    ranker = Reversing()
    found = service(ranker).hybrid("apple pie", 1, filters(), floor=None)
    assert len(ranker.calls[0][1]) == 3  # the ranker was asked for rerank_depth, not 1
    assert len(found.results) == 1


def test_a_plain_rankers_results_name_only_the_signals() -> None:
    found = service(ReciprocalRankFusion()).hybrid("apple pie", 10, filters(), floor=None)
    assert all(set(r.ranks) == {KEYWORD, SEMANTIC} for r in found.results)


def filters() -> SearchFilters:
    return SearchFilters()
