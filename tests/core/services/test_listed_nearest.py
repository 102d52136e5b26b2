"""The owner's nearest facts ranked from the fragments the catalog lists (issue 30's cost):
the supersession judge and the consolidator must see exactly what the vector store's own
filtered search gave them, same memories, same order, on a home of facts in chroma.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from memex_core.api import Memex
from memex_core.domain import SearchFilters
from memex_core.services.listed_vectors import ListedVectors, ranked
from memex_core.services.supersession import facts_filters
from tests.support.component_doubles import MemoryVectorStore
from tests.support.supersession_doubles import LivesInJudge, timed_memex

DAY = 86400.0
T0 = 1_700_000_000.0
USERS = ("alice", "bob", "carol", "dan")
THINGS = (
    "likes {} tea", "plays {} chess", "drives a {} car", "reads {} novels", "works at {} Labs",
    "keeps a {} cat", "studies {} history", "runs on {} days", "cooks {} soup", "owns {} boots",
)  # fmt: skip
WORDS = ("green", "black", "red", "old", "small", "Sunday", "French", "quiet", "long", "warm")
CITIES = ("Paris", "Berlin", "Rome", "Lisbon", "Oslo")


def _facts(rng: random.Random) -> list[tuple[str, str]]:
    """(user, text): each user's facts about things, and a few moves (closing the last)."""
    out = [
        (user, f"{user.capitalize()} {thing.format(word)}")
        for user in USERS
        for thing in THINGS
        for word in rng.sample(WORDS, 3)
    ]
    out += [(user, f"{user.capitalize()} moved to {city}") for user in USERS for city in CITIES]
    rng.shuffle(out)
    return out


@pytest.fixture(scope="module")
def home_of_facts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    """Four users' facts (some closed by later moves) in one collection, vectors in chroma."""
    home = tmp_path_factory.mktemp("listed") / "home"
    home.mkdir()
    mx = timed_memex(home, LivesInJudge(), vector_store="chroma")
    for n, (user, text) in enumerate(_facts(random.Random(7))):
        mx.remember(text, user=user, at=T0 + n * DAY)
    yield mx
    mx.close()


def _both_ways(mx: Memex, user: str, text: str) -> tuple[list[str], list[str]]:
    """The judge's candidates (memory ids) for ``text``, from the listed fragments and from
    the vector store's filtered search."""
    service, scope = mx.memory_service(), mx.operator("admin").scope
    indexes = mx.memory_indexes()
    listing = indexes._listing
    assert listing is not None  # a SQL catalog lists
    found = [r.id for r in service.nearest_facts(scope, f"users/{user}", "", text)]
    indexes._listing = None
    try:
        service.nearest.forget()
        before = [r.id for r in service.nearest_facts(scope, f"users/{user}", "", text)]
    finally:
        indexes._listing = listing
        service.nearest.forget()
    return found, before


def test_the_judge_sees_what_the_filtered_search_gave_it(home_of_facts: Memex) -> None:
    rng = random.Random(11)
    asked = [
        (user, f"{user.capitalize()} {rng.choice(THINGS).format(rng.choice(WORDS))}")
        for user in USERS
        for _ in range(8)
    ]
    asked += [(user, f"{user.capitalize()} now lives in Madrid") for user in USERS]
    for user, text in asked:
        found, before = _both_ways(home_of_facts, user, text)
        assert found == before, text
        assert found  # each user has current facts to offer


def test_the_nearest_hits_match_the_stores_filtered_search(home_of_facts: Memex) -> None:
    indexes = home_of_facts.memory_indexes()
    listing = indexes._listing
    for user in USERS:
        filters = facts_filters(f"users/{user}", "")
        for text in (f"{user.capitalize()} likes warm tea", f"{user.capitalize()} moved away"):
            listed = indexes.nearest(text, filters, 20)
            indexes._listing = None
            try:
                searched = indexes.nearest(text, filters, 20)
            finally:
                indexes._listing = listing
            assert listed is not None and searched is not None
            assert [i for i, _ in listed] == [i for i, _ in searched]
            assert np.allclose([s for _, s in listed], [s for _, s in searched], atol=1e-5)
    assert indexes._listed._held  # the listed path answered (chroma hands vectors out)


def test_a_store_without_stored_vectors_is_searched() -> None:
    class Plain:
        pass

    assert ListedVectors().nearest(Plain(), [1.0, 0.0], ["a"], 5) is None  # type: ignore[arg-type]


def test_vectors_are_read_once_and_another_dimension_is_left_to_the_store() -> None:
    store = MemoryVectorStore()
    reads: list[list[str]] = []
    handed = store.stored_vectors

    def counted(ids: Sequence[str]) -> dict[str, list[float]]:
        reads.append(list(ids))
        return handed(ids)

    store.stored_vectors = counted  # type: ignore[method-assign]
    store.vectors = {"a": np.array([1.0, 0.0], np.float32), "b": np.array([0.6, 0.8], np.float32)}
    listed = ListedVectors()
    listed.held_for(store, "e:2")
    assert [i for i, _ in listed.nearest(store, [0.0, 1.0], ["a", "b", "gone"], 5) or []] == [
        "b",
        "a",
    ]
    assert listed.nearest(store, [1.0, 0.0], ["a", "b"], 1) == [("a", 1.0)]
    assert reads == [["a", "b", "gone"]]  # held: only a missing id is asked for again
    listed.held_for(store, "other:2")  # another embedder: read afresh
    listed.nearest(store, [1.0, 0.0], ["a"], 1)
    assert reads[-1] == ["a"]
    assert listed.nearest(store, [1.0, 0.0, 0.0], ["a"], 1) is None  # the store says why


def test_ranking_is_cosine_best_first_stable_on_ties() -> None:
    matrix = np.array([[1, 0], [0, 2], [2, 0], [1, 1]], dtype=np.float32)
    hits = ranked(["a", "b", "c", "d"], matrix, np.array([3, 0], np.float32), 3)
    assert [i for i, _ in hits] == ["a", "c", "d"]
    assert hits[0][1] == 1.0 and abs(hits[2][1] - 0.7071) < 1e-4


def test_the_catalog_lists_what_the_filters_pass(home_of_facts: Memex) -> None:
    catalog = home_of_facts.catalog
    filters = facts_filters("users/alice", "")
    listed = catalog.fragment_ids_matching(filters, 10_000)
    every = catalog.fragment_ids_matching(SearchFilters(include_private=True), 10_000)
    fragments = catalog.get_many(every)
    assert listed == [i for i in every if filters.matches(fragments[i])]
    assert catalog.fragment_ids_matching(filters, 3) == listed[:3]


def test_what_this_process_stores_is_held_without_reading_it_back(home_of_facts: Memex) -> None:
    indexes = home_of_facts.memory_indexes()
    held = indexes._listed._held
    before = set(held)
    home_of_facts.remember("Alice keeps bees on Sundays", user="alice", at=T0 + 400 * DAY)
    new = set(held) - before
    assert new  # the new fact's fragment, held as stored
    indexer = indexes._vectors()
    assert indexer is not None
    stored = indexer.store.stored_vectors(sorted(new))  # type: ignore[attr-defined]
    for key, vector in stored.items():
        assert np.allclose(held[key], vector)
