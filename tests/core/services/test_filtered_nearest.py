"""A filtered semantic search from a store's unfiltered ``nearest``, judged against the catalog.

SearchService asks a store that offers ``nearest`` (chroma) for a wider unfiltered answer
and keeps what passes the filters as the catalog holds the fragments; it must find
exactly what the store's own filtered ``search`` finds, fall back to it when the filter
is selective, and skip vectors whose fragments the catalog no longer holds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from memex_core.domain import Fragment, SearchFilters, SignalHit
from memex_core.services.search import OVERFETCH, OVERFETCH_SLACK, SearchService
from tests.support.component_doubles import HashingEmbedder, MemoryVectorStore
from tests.support.scope_builders import random_filters, random_fragments
from tests.support.vector_builders import unit_vectors


class NearestStore(MemoryVectorStore):
    """The in-memory store with ``nearest``, counting its filtered searches."""

    def __init__(self) -> None:
        super().__init__()
        self.searches = 0
        self.nearest_calls: list[int] = []

    def nearest(self, vector: Sequence[float], limit: int) -> list[SignalHit]:
        self.nearest_calls.append(limit)
        return super().search(vector, limit, SearchFilters(include_private=True))

    def search(
        self, vector: Sequence[float], limit: int, filters: SearchFilters
    ) -> list[SignalHit]:
        self.searches += 1
        return super().search(vector, limit, filters)


class Catalog:
    def __init__(self, fragments: Sequence[Fragment]) -> None:
        self.fragments = {f.id: f for f in fragments}

    def get_many(self, ids: Sequence[str]) -> dict[str, Fragment]:
        return {i: self.fragments[i] for i in ids if i in self.fragments}


def service(
    fragments: Sequence[Fragment], vectors: np.ndarray
) -> tuple[SearchService, NearestStore]:
    store = NearestStore()
    store.upsert(fragments, vectors)
    return SearchService(Catalog(fragments), None, store, HashingEmbedder(), ranker=None), store  # type: ignore[arg-type]


def test_the_same_hits_as_the_stores_filtered_search() -> None:
    rng = random.Random(7)
    fragments = random_fragments(rng, 150)
    vectors = unit_vectors(len(fragments), seed=3)
    svc, store = service(fragments, vectors)
    reference = MemoryVectorStore()
    reference.upsert(fragments, vectors)
    queries = unit_vectors(60, seed=4)
    fell_back = 0
    for n, query in enumerate(queries):
        filters = random_filters(rng)
        limit = rng.choice([1, 5, 10, 40])
        before = store.searches
        found = svc.semantic_hits("q", limit, filters, None, query)
        fell_back += store.searches > before
        expected = reference.search(query, limit, filters)
        assert [(h.id, h.score) for h in found] == [(h.id, h.score) for h in expected], n
    assert 0 < fell_back < len(queries)  # both paths ran


def test_a_filter_most_vectors_pass_never_asks_the_store_to_filter() -> None:
    fragments = random_fragments(random.Random(1), 200)
    fragments = [f if n % 20 else replace(f, owner="users/zed") for n, f in enumerate(fragments)]
    svc, store = service(fragments, unit_vectors(len(fragments), seed=5))
    owners = tuple({f.owner for f in fragments} - {"users/zed"})
    filters = SearchFilters(owners=owners, include_private=True)
    for query in unit_vectors(20, seed=6):
        assert len(svc.semantic_hits("q", 10, filters, None, query)) == 10
    assert store.searches == 0
    assert set(store.nearest_calls) == {10 * OVERFETCH + OVERFETCH_SLACK}
    # Without a restriction the store's own search answers (its private handling is fast).
    # named_only=(): what the reader passes for a home that holds no code (nothing to hide).
    no_code = SearchFilters(named_only=())
    svc.semantic_hits("q", 10, no_code, None, unit_vectors(1, seed=8)[0])
    assert store.searches == 1


def test_a_vector_the_catalog_no_longer_holds_is_skipped() -> None:
    fragments = random_fragments(random.Random(2), 60)
    fragments = [replace(f, owner="", private=False) for f in fragments]
    vectors = unit_vectors(len(fragments), seed=9)
    svc, store = service(fragments, vectors)
    gone = fragments[0]
    del svc.catalog.fragments[gone.id]  # type: ignore[attr-defined]
    hits = svc.semantic_hits("q", 5, SearchFilters(owners=("",)), None, vectors[0])
    assert gone.id not in [h.id for h in hits] and len(hits) == 5
    assert store.searches == 0


@pytest.mark.parametrize("limit", [3, 10])
def test_a_small_store_answers_from_what_it_has(limit: int) -> None:
    fragments = random_fragments(random.Random(3), 8)
    svc, store = service(fragments, unit_vectors(len(fragments), seed=10))
    filters = SearchFilters(owners=tuple({f.owner for f in fragments}), include_private=True)
    found = svc.semantic_hits("q", limit, filters, None, unit_vectors(1, seed=11)[0])
    assert len(found) == min(limit, len(fragments))
    assert store.searches == 0  # every vector was looked at: the answer is exact
