"""The vector store contract, one copy of the cases run against every real store.

``store_kind`` is parametrized over the ``chroma`` store (embedded, in tmp_path; and on a
``chroma run`` server shared by the module, one collection per test) and the
``pgvector`` store (a fresh database on the session's PostgreSQL with pgvector, from the
``pgvector_url`` fixture). Each case states what memex needs of any vector store: exact
cosine scores, upsert/delete/ids/count/clear, the recorded embedder, persistence across
store objects, and filters with :meth:`SearchFilters.matches`'s semantics before top-k.
What only one store has (chroma's batch size, pgvector's HNSW settings and outages) is in
test_chroma_store.py and test_pgvector_store.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memex_core.domain import SearchFilters, VectorStore
from memex_core.errors import EmbedderMismatchError
from tests.support.vector_builders import (
    DIM,
    T0,
    expected_ranking,
    make_fragment,
    random_filters,
    random_fragments,
    unit_vectors,
)

STORE_KINDS = ("chroma", "chroma-server", "pgvector")


@dataclass
class StoreKind:
    """How to open one kind of store on one place, and what it says about that place."""

    name: str
    #: A new store object on the same place (``embedder_name`` as given).
    open: Callable[..., Any]
    #: Text an error about the place names (chroma's folder, pgvector's table).
    place: str
    #: Whether anything was created on the place (a collection, a table).
    created_anything: Callable[[], bool]


def _chroma(tmp_path: Path) -> StoreKind:
    pytest.importorskip(
        "chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')"
    )
    from memex_chroma.connection import ChromaLocation
    from memex_chroma.store import ChromaVectorStore

    path = tmp_path / "chroma"

    def open_store(embedder_name: str | None = None) -> ChromaVectorStore:
        return ChromaVectorStore(ChromaLocation(path=path), embedder_name=embedder_name)

    def created_anything() -> bool:
        with open_store() as probe:
            return bool(probe.client.list_collections())

    return StoreKind("chroma", open_store, str(path), created_anything)


@pytest.fixture(scope="module")
def shared_chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One ``chroma run`` for the module; each test gets its own collection on it."""
    pytest.importorskip("chromadb", reason="chromadb is not installed: pip install 'memex[chroma]'")
    from tests.support.chroma_server import find_chroma_cli, running_chroma_server

    cli = find_chroma_cli()
    if cli is None:
        pytest.skip("the `chroma` CLI is not installed (pip install 'memex[chroma]')")
    with running_chroma_server(tmp_path_factory.mktemp("chroma-server") / "data", cli) as url:
        yield url


def _chroma_server(url: str, collection: str) -> StoreKind:
    from memex_chroma.connection import ChromaLocation, parse_server_url
    from memex_chroma.store import ChromaVectorStore

    location = ChromaLocation(server=parse_server_url(url, "from the test"))

    def open_store(embedder_name: str | None = None) -> ChromaVectorStore:
        return ChromaVectorStore(location, collection_name=collection, embedder_name=embedder_name)

    def created_anything() -> bool:
        with open_store() as probe:
            return collection in {c.name for c in probe.client.list_collections()}

    return StoreKind("chroma-server", open_store, url, created_anything)


def _pgvector(url: str) -> StoreKind:
    from memex_pgvector.location import PgvectorLocation
    from memex_pgvector.store import PgvectorStore

    location = PgvectorLocation(url, "from the test")

    def open_store(embedder_name: str | None = None) -> PgvectorStore:
        return PgvectorStore(location, embedder_name=embedder_name)

    def created_anything() -> bool:
        import psycopg

        with psycopg.connect(url) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public'"
            ).fetchone()
            extension = conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'")
            return bool(row and row[0]) or bool(extension.fetchone()[0])  # type: ignore[index]

    return StoreKind("pgvector", open_store, "'memex_vectors'", created_anything)


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest, tmp_path: Path) -> StoreKind:
    if request.param == "chroma":
        return _chroma(tmp_path)
    if request.param == "chroma-server":
        url = request.getfixturevalue("shared_chroma_server")
        return _chroma_server(url, f"test_{abs(hash(request.node.nodeid)):x}")
    return _pgvector(request.getfixturevalue("pgvector_url"))


@pytest.fixture
def store(store_kind: StoreKind) -> Iterator[Any]:
    with store_kind.open() as opened:
        yield opened


def test_satisfies_the_vector_store_protocol(store: Any) -> None:
    assert isinstance(store, VectorStore)


def test_round_trip_returns_nearest_neighbours_with_cosine_scores(store: Any) -> None:
    fragments = [make_fragment(i) for i in range(40)]
    vectors = unit_vectors(40)
    store.upsert(fragments, vectors.tolist())
    query = unit_vectors(1, seed=99)[0]

    hits = store.search(query.tolist(), 10, SearchFilters())

    expected = expected_ranking(query, vectors, fragments)[:10]
    assert [hit.id for hit in hits] == [fragment_id for fragment_id, _ in expected]
    for hit, (_, score) in zip(hits, expected, strict=True):
        assert hit.score == pytest.approx(score, abs=1e-4)
    assert all(-1.0 <= hit.score <= 1.0 for hit in hits)
    assert hits == sorted(hits, key=lambda hit: hit.score, reverse=True)


def test_a_stored_vector_finds_itself_with_score_one(store: Any) -> None:
    vectors = unit_vectors(5)
    store.upsert([make_fragment(i) for i in range(5)], vectors)
    hits = store.search(vectors[3], 1, SearchFilters())
    assert hits[0].id == "frag-0003"
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)


def test_upsert_is_idempotent_and_replaces_vectors(store: Any) -> None:
    fragments = [make_fragment(i) for i in range(10)]
    vectors = unit_vectors(10)
    store.upsert(fragments, vectors)
    store.upsert(fragments, vectors)
    assert store.count() == 10

    # Replacing fragment 0's vector with fragment 5's makes it a perfect match for it.
    store.upsert([fragments[0]], [vectors[5]])
    assert store.count() == 10
    scores = {hit.id: hit.score for hit in store.search(vectors[5], 2, SearchFilters())}
    assert scores["frag-0000"] == pytest.approx(1.0, abs=1e-4)


def test_duplicate_ids_in_one_upsert_keep_the_last_vector(store: Any) -> None:
    vectors = unit_vectors(2)
    store.upsert([make_fragment(0), make_fragment(0)], vectors)
    assert store.count() == 1
    assert store.search(vectors[1], 1, SearchFilters())[0].score == pytest.approx(1.0, abs=1e-4)


def test_upsert_rejects_mismatched_lengths(store: Any) -> None:
    with pytest.raises(ValueError, match="2 fragments but 1 vectors"):
        store.upsert([make_fragment(0), make_fragment(1)], unit_vectors(1))


def test_delete_count_and_ids(store: Any) -> None:
    fragments = [make_fragment(i) for i in range(12)]
    store.upsert(fragments, unit_vectors(12))
    assert store.ids() == {fragment.id for fragment in fragments}

    store.delete(["frag-0000", "frag-0005", "frag-0005", "not-stored"])

    assert store.count() == 10
    assert store.ids() == {fragment.id for fragment in fragments} - {"frag-0000", "frag-0005"}
    found = {hit.id for hit in store.search(unit_vectors(1, seed=3)[0], 50, SearchFilters())}
    assert "frag-0000" not in found and "frag-0005" not in found
    assert len(found) == 10


def test_stored_vectors_hands_out_the_float32_values(store: Any) -> None:
    """The optional ``stored_vectors`` (``memex export --with-vectors``): exactly the
    float32 values upserted, only for ids that hold one."""
    assert store.stored_vectors(["frag-0000"]) == {}  # nothing stored yet
    vectors = unit_vectors(5, seed=9)
    store.upsert([make_fragment(i) for i in range(5)], vectors)
    got = store.stored_vectors(["frag-0001", "frag-0004", "missing"])
    assert set(got) == {"frag-0001", "frag-0004"}
    for key, row in (("frag-0001", 1), ("frag-0004", 4)):
        # chroma's cosine index holds each vector normalised again: the last bit may differ.
        np.testing.assert_allclose(got[key], vectors[row], rtol=0, atol=1e-6)
        assert all(type(v) is float and float(np.float32(v)) == v for v in got[key])
    assert store.stored_vectors([]) == {}
    # None of the ids held (a replica listing a fact whose vector is not stored yet).
    assert store.stored_vectors(["missing", "gone"]) == {}


def test_clear_empties_the_store_and_forgets_the_dimension(store: Any) -> None:
    store.upsert([make_fragment(i) for i in range(5)], unit_vectors(5))
    store.clear()
    assert store.count() == 0
    assert store.ids() == set()
    assert store.search(unit_vectors(1)[0], 5, SearchFilters()) == []
    assert store.stored_embedding() == (None, None)

    # A different dimension is fine after a clear (that is what a rebuild does).
    store.upsert([make_fragment(1)], unit_vectors(1, dim=8))
    assert store.count() == 1
    assert store.stored_embedding() == (None, 8)


def test_empty_store_reads_nothing_and_creates_nothing(store_kind: StoreKind) -> None:
    with store_kind.open() as store:
        assert store.count() == 0
        assert store.ids() == set()
        assert store.search(unit_vectors(1)[0], 5, SearchFilters()) == []
        store.delete(["frag-0001"])
        store.upsert([], [])
        assert store.stored_embedding() == (None, None)
    assert not store_kind.created_anything()


def test_search_with_non_positive_limit_is_empty(store: Any) -> None:
    store.upsert([make_fragment(0)], unit_vectors(1))
    assert store.search(unit_vectors(1)[0], 0, SearchFilters()) == []


def test_records_embedder_and_dimension_and_refuses_to_mix(store_kind: StoreKind) -> None:
    with store_kind.open(embedder_name="minilm-l6") as store:
        store.upsert([make_fragment(0)], unit_vectors(1))
        assert store.stored_embedding() == ("minilm-l6", DIM)
        with pytest.raises(EmbedderMismatchError, match="memex rebuild --vectors"):
            store.upsert([make_fragment(1)], unit_vectors(1, dim=DIM + 1))
        with pytest.raises(EmbedderMismatchError, match=store_kind.place):
            store.search(unit_vectors(1, dim=DIM + 1)[0], 3, SearchFilters())
    with store_kind.open(embedder_name="other-model") as other:
        with pytest.raises(EmbedderMismatchError, match="minilm-l6"):
            other.upsert([make_fragment(2)], unit_vectors(1))
        with pytest.raises(EmbedderMismatchError):
            other.search(unit_vectors(1)[0], 3, SearchFilters())


def test_persists_across_store_objects(store_kind: StoreKind) -> None:
    fragments = [make_fragment(i) for i in range(20)]
    vectors = unit_vectors(20)
    with store_kind.open() as first:
        first.upsert(fragments, vectors)
        first.delete(["frag-0007"])
    with store_kind.open() as second:
        assert second.count() == 19
        assert second.ids() == {f.id for f in fragments} - {"frag-0007"}
        hits = second.search(vectors[4], 3, SearchFilters())
        assert hits[0].id == "frag-0004"
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)


def test_a_clear_by_another_store_object_is_seen(store_kind: StoreKind) -> None:
    """Another process rebuilding the index (clear, then vectors of another dimension)
    leaves this one's cached view stale: it must read the store again, not fail or mix."""
    with store_kind.open() as first, store_kind.open() as second:
        first.upsert([make_fragment(i) for i in range(3)], unit_vectors(3))
        assert second.count() == 3
        first.clear()
        assert second.count() == 0
        assert second.search(unit_vectors(1)[0], 3, SearchFilters()) == []
        first.upsert([make_fragment(9)], unit_vectors(1, dim=8))
        assert second.stored_embedding() == (None, 8)
        with pytest.raises(EmbedderMismatchError):
            second.search(unit_vectors(1)[0], 3, SearchFilters())
        assert [h.id for h in second.search(unit_vectors(1, dim=8)[0], 3, SearchFilters())] == [
            "frag-0009"
        ]


# -- filters ----------------------------------------------------------------------------


def test_filters_match_the_reference_semantics(store: Any) -> None:
    rng = random.Random(7)
    fragments = random_fragments(rng, 80)
    vectors = unit_vectors(80, seed=1)
    store.upsert(fragments, vectors)
    checked_empty = checked_time = 0
    for round_ in range(60):
        filters = random_filters(rng) if round_ else SearchFilters()
        query = unit_vectors(1, seed=1000 + round_)[0]
        allowed = [i for i, fragment in enumerate(fragments) if filters.matches(fragment)]
        limit = rng.choice([3, 10, 100])

        hits = store.search(query, limit, filters)

        expected = expected_ranking(query, vectors[allowed], [fragments[i] for i in allowed])
        assert [hit.id for hit in hits] == [fid for fid, _ in expected[:limit]], filters
        checked_empty += not allowed
        checked_time += filters.since is not None or filters.until is not None
    assert checked_empty and checked_time  # the random filters did exercise both cases


def test_time_filters_skip_fragments_without_timestamps(store: Any) -> None:
    store.upsert(
        [make_fragment(0, timestamp=None), make_fragment(1, timestamp=T0)], unit_vectors(2)
    )
    query = unit_vectors(1, seed=5)[0]
    assert {h.id for h in store.search(query, 5, SearchFilters())} == {"frag-0000", "frag-0001"}
    assert [h.id for h in store.search(query, 5, SearchFilters(since=0.0))] == ["frag-0001"]
    assert [h.id for h in store.search(query, 5, SearchFilters(until=T0))] == ["frag-0001"]
    assert store.search(query, 5, SearchFilters(until=T0 - 0.001)) == []


def test_a_fragment_that_loses_its_timestamp_leaves_time_filters(store: Any) -> None:
    vector = unit_vectors(1)
    store.upsert([make_fragment(0, timestamp=T0)], vector)
    store.upsert([make_fragment(0, timestamp=None)], vector)
    assert store.search(vector[0], 5, SearchFilters(since=0.0)) == []
    store.upsert([make_fragment(0, timestamp=T0 + 5)], vector)
    assert store.search(vector[0], 5, SearchFilters(since=T0 + 1))[0].id == "frag-0000"


def test_integer_time_bounds_and_sub_second_timestamps(store: Any) -> None:
    store.upsert([make_fragment(0, timestamp=T0 + 0.25)], unit_vectors(1))
    query = unit_vectors(1)[0]
    assert store.search(query, 1, SearchFilters(since=int(T0), until=int(T0) + 1))
    assert store.search(query, 1, SearchFilters(since=T0 + 0.25, until=T0 + 0.25))
    assert store.search(query, 1, SearchFilters(since=T0 + 0.251)) == []


def test_private_vectors_only_with_include_private(store: Any) -> None:
    fragments = [make_fragment(0), replace(make_fragment(1), private=True)]
    vectors = unit_vectors(2)
    store.upsert(fragments, vectors)
    assert [h.id for h in store.search(vectors[1], 5, SearchFilters())] == ["frag-0000"]
    both = store.search(vectors[1], 5, SearchFilters(include_private=True))
    assert [h.id for h in both] == ["frag-0001", "frag-0000"]
    # A fragment that stops being private is found again.
    store.upsert([make_fragment(1)], vectors[1:])
    assert store.search(vectors[1], 1, SearchFilters())[0].id == "frag-0001"


def test_an_owner_filter_most_vectors_pass_gives_the_filtered_answer(store: Any) -> None:
    """A search whose filter most vectors pass (an agent reading the corpus of a home that
    also holds other users' memory) and a selective one both give exactly the filtered
    ranking, private vectors included in the check; ``""`` is the operator's corpus."""
    rng = random.Random(11)
    count = 400  # more than any over-fetch here, so both paths run
    fragments = []
    for i, fragment in enumerate(random_fragments(rng, count)):
        owner = "users/bob" if i % 10 == 0 else ("users/alice" if i % 10 == 1 else "")
        fragments.append(
            replace(
                fragment,
                owner=owner,
                collection="notes" if owner else "",
                private=bool(owner) and i % 20 == 0,
            )
        )
    vectors = unit_vectors(count, seed=3)
    store.upsert(fragments, vectors)
    cases = [
        SearchFilters(owners=("", "users/alice")),  # most pass
        SearchFilters(owners=("", "users/alice"), include_private=True),
        SearchFilters(owners=("users/bob",)),  # selective
        SearchFilters(owners=("users/bob",), include_private=True),
        SearchFilters(owners=("users/alice",), collections=("notes",), include_private=True),
        SearchFilters(owners=("",), roles=("user", "assistant"), since=T0),
    ]
    for round_, filters in enumerate(cases * 4):
        query = unit_vectors(1, seed=500 + round_)[0]
        allowed = [i for i, f in enumerate(fragments) if filters.matches(f)]
        assert allowed
        limit = (3, 10, 25)[round_ % 3]
        hits = store.search(query, limit, filters)
        expected = expected_ranking(query, vectors[allowed], [fragments[i] for i in allowed])
        assert [h.id for h in hits] == [fid for fid, _ in expected[:limit]], filters


def test_a_selective_filter_over_many_vectors_finds_every_match(store: Any) -> None:
    """2,000 vectors, a filter only 6 of them pass, the query far from all 6: an index
    that filters after its approximate search would see none of them; the store must
    still return all 6, best first."""
    count = 2000
    vectors = unit_vectors(count, seed=21)
    rare = set(range(7, count, count // 6))
    fragments = [
        make_fragment(i, conversation_id="rare" if i in rare else "common") for i in range(count)
    ]
    store.upsert(fragments, vectors)
    filters = SearchFilters(conversation_ids=("rare",))
    allowed = sorted(rare)
    # The query is the vector most opposed to the rare ones: their neighbours are others.
    query = -vectors[allowed].mean(axis=0)
    query /= np.linalg.norm(query)

    hits = store.search(query, 10, filters)

    expected = expected_ranking(query, vectors[allowed], [fragments[i] for i in allowed])
    assert [h.id for h in hits] == [fid for fid, _ in expected]
    assert len(hits) == len(rare)
