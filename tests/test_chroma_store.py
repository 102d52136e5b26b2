"""The chroma vector store against a real embedded chroma (PersistentClient in tmp_path)."""

from __future__ import annotations

import random
import socket
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from memex_core.domain import Fragment, PluginContext, Provenance, SearchFilters, VectorStore
from memex_core.errors import EmbedderMismatchError

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

from memex_chroma.connection import ChromaConfigError, ChromaLocation
from memex_chroma.store import DEFAULT_EF_SEARCH, ChromaVectorStore

DIM = 16


def make_fragment(
    index: int,
    *,
    source_kind: str = "chatgpt",
    conversation_id: str = "conv-1",
    role: str = "user",
    timestamp: float | None = 1_700_000_000.0,
) -> Fragment:
    return Fragment(
        id=f"frag-{index:04d}",
        conversation_id=conversation_id,
        role=role,
        content=f"text {index}",
        provenance=Provenance(
            source_kind=source_kind,
            source_path="export.json",
            source_id=f"msg-{index}",
            locator=f"{conversation_id}/msg-{index}",
            timestamp=timestamp,
        ),
        timestamp=timestamp,
    )


def unit_vectors(count: int, dim: int = DIM, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(count, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def open_store(path: Path, embedder_name: str | None = None) -> ChromaVectorStore:
    return ChromaVectorStore(ChromaLocation(path=path), embedder_name=embedder_name)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ChromaVectorStore]:
    with open_store(tmp_path / "chroma") as opened:
        yield opened


def expected_ranking(
    query: np.ndarray, vectors: np.ndarray, fragments: Sequence[Fragment]
) -> list[tuple[str, float]]:
    scores = vectors @ query
    order = np.argsort(-scores, kind="stable")
    return [(fragments[i].id, float(scores[i])) for i in order]


def test_satisfies_the_vector_store_protocol(store: ChromaVectorStore) -> None:
    assert isinstance(store, VectorStore)


def test_round_trip_returns_nearest_neighbours_with_cosine_scores(
    store: ChromaVectorStore,
) -> None:
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


def test_a_stored_vector_finds_itself_with_score_one(store: ChromaVectorStore) -> None:
    vectors = unit_vectors(5)
    store.upsert([make_fragment(i) for i in range(5)], vectors)
    hits = store.search(vectors[3], 1, SearchFilters())
    assert hits[0].id == "frag-0003"
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)


def test_upsert_is_idempotent_and_replaces_vectors(store: ChromaVectorStore) -> None:
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


def test_duplicate_ids_in_one_upsert_keep_the_last_vector(store: ChromaVectorStore) -> None:
    vectors = unit_vectors(2)
    store.upsert([make_fragment(0), make_fragment(0)], vectors)
    assert store.count() == 1
    assert store.search(vectors[1], 1, SearchFilters())[0].score == pytest.approx(1.0, abs=1e-4)


def test_upsert_rejects_mismatched_lengths(store: ChromaVectorStore) -> None:
    with pytest.raises(ValueError, match="2 fragments but 1 vectors"):
        store.upsert([make_fragment(0), make_fragment(1)], unit_vectors(1))


def test_delete_count_and_ids(store: ChromaVectorStore) -> None:
    fragments = [make_fragment(i) for i in range(12)]
    store.upsert(fragments, unit_vectors(12))
    assert store.ids() == {fragment.id for fragment in fragments}

    store.delete(["frag-0000", "frag-0005", "frag-0005", "not-stored"])

    assert store.count() == 10
    assert store.ids() == {fragment.id for fragment in fragments} - {"frag-0000", "frag-0005"}
    found = {hit.id for hit in store.search(unit_vectors(1, seed=3)[0], 50, SearchFilters())}
    assert "frag-0000" not in found and "frag-0005" not in found
    assert len(found) == 10


def test_clear_empties_the_store_and_forgets_the_dimension(store: ChromaVectorStore) -> None:
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


def test_empty_store_reads_nothing_and_creates_nothing(tmp_path: Path) -> None:
    with open_store(tmp_path / "chroma") as store:
        assert store.count() == 0
        assert store.ids() == set()
        assert store.search(unit_vectors(1)[0], 5, SearchFilters()) == []
        store.delete(["frag-0001"])
        store.upsert([], [])
        assert store.stored_embedding() == (None, None)
        assert store.client.list_collections() == []


def test_search_with_non_positive_limit_is_empty(store: ChromaVectorStore) -> None:
    store.upsert([make_fragment(0)], unit_vectors(1))
    assert store.search(unit_vectors(1)[0], 0, SearchFilters()) == []


def test_records_embedder_and_dimension_and_refuses_to_mix(tmp_path: Path) -> None:
    path = tmp_path / "chroma"
    with open_store(path, embedder_name="minilm-l6") as store:
        store.upsert([make_fragment(0)], unit_vectors(1))
        assert store.stored_embedding() == ("minilm-l6", DIM)
        with pytest.raises(EmbedderMismatchError, match="memex rebuild --vectors"):
            store.upsert([make_fragment(1)], unit_vectors(1, dim=DIM + 1))
        with pytest.raises(EmbedderMismatchError, match=str(path)):
            store.search(unit_vectors(1, dim=DIM + 1)[0], 3, SearchFilters())
    with open_store(path, embedder_name="other-model") as other:
        with pytest.raises(EmbedderMismatchError, match="minilm-l6"):
            other.upsert([make_fragment(2)], unit_vectors(1))
        with pytest.raises(EmbedderMismatchError):
            other.search(unit_vectors(1)[0], 3, SearchFilters())


def test_persists_across_store_objects(tmp_path: Path) -> None:
    path = tmp_path / "chroma"
    fragments = [make_fragment(i) for i in range(20)]
    vectors = unit_vectors(20)
    with open_store(path) as first:
        first.upsert(fragments, vectors)
        first.delete(["frag-0007"])
    # close() stopped chroma's in-process system, so this reads the files afresh.
    with open_store(path) as second:
        assert second.count() == 19
        assert second.ids() == {f.id for f in fragments} - {"frag-0007"}
        hits = second.search(vectors[4], 3, SearchFilters())
        assert hits[0].id == "frag-0004"
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)


def test_upserts_and_deletes_in_batches_within_the_server_limit(
    store: ChromaVectorStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chromadb.api.models.Collection import Collection

    monkeypatch.setattr(store.client, "get_max_batch_size", lambda: 7)
    calls: list[tuple[str, int]] = []
    real_upsert, real_delete = Collection.upsert, Collection.delete

    def spy_upsert(self: Collection, *args: object, **kwargs: object) -> None:
        calls.append(("upsert", len(kwargs["ids"])))  # type: ignore[arg-type]
        real_upsert(self, *args, **kwargs)  # type: ignore[arg-type]

    def spy_delete(self: Collection, *args: object, **kwargs: object) -> None:
        calls.append(("delete", len(kwargs["ids"])))  # type: ignore[arg-type]
        real_delete(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Collection, "upsert", spy_upsert)
    monkeypatch.setattr(Collection, "delete", spy_delete)
    fragments = [make_fragment(i) for i in range(50)]

    store.upsert(fragments, unit_vectors(50))
    assert [size for kind, size in calls if kind == "upsert"] == [7] * 7 + [1]
    assert store.count() == 50
    assert store.ids() == {fragment.id for fragment in fragments}  # paged by 7 as well

    store.delete([fragment.id for fragment in fragments[:20]])
    assert [size for kind, size in calls if kind == "delete"] == [7, 7, 6]
    assert store.count() == 30


def test_max_batch_size_comes_from_chroma(store: ChromaVectorStore) -> None:
    assert store.max_batch_size() == store.client.get_max_batch_size() > 0


# -- filters ----------------------------------------------------------------------------

KINDS = ("chatgpt", "claude_ai", "codex")
CONVERSATIONS = ("c1", "c2", "c3", "c4")
ROLES = ("user", "assistant", "system")
T0 = 1_700_000_000.0


def random_fragments(rng: random.Random, count: int) -> list[Fragment]:
    fragments = []
    for i in range(count):
        # A quarter have no timestamp; some share one exactly, to probe inclusive bounds.
        timestamp = None if rng.random() < 0.25 else T0 + rng.choice([0, 1, 2, 3]) * 3600.5
        fragments.append(
            make_fragment(
                i,
                source_kind=rng.choice(KINDS),
                conversation_id=rng.choice(CONVERSATIONS),
                role=rng.choice(ROLES),
                timestamp=timestamp,
            )
        )
    return fragments


def random_filters(rng: random.Random) -> SearchFilters:
    def some(values: tuple[str, ...]) -> tuple[str, ...]:
        if rng.random() < 0.5:
            return ()
        return tuple(rng.sample(values, rng.randint(1, len(values) - 1)))

    def bound() -> float | None:
        return None if rng.random() < 0.5 else T0 + rng.choice([-1, 0, 1, 2, 3, 4]) * 3600.5

    return SearchFilters(
        source_kinds=some(KINDS),
        conversation_ids=some(CONVERSATIONS)
        + (("no-such-conversation",) if rng.random() < 0.1 else ()),
        roles=some(ROLES),
        since=bound(),
        until=bound(),
    )


def test_filters_match_the_reference_semantics(store: ChromaVectorStore) -> None:
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


def test_time_filters_skip_fragments_without_timestamps(store: ChromaVectorStore) -> None:
    store.upsert(
        [make_fragment(0, timestamp=None), make_fragment(1, timestamp=T0)], unit_vectors(2)
    )
    query = unit_vectors(1, seed=5)[0]
    assert {h.id for h in store.search(query, 5, SearchFilters())} == {"frag-0000", "frag-0001"}
    assert [h.id for h in store.search(query, 5, SearchFilters(since=0.0))] == ["frag-0001"]
    assert [h.id for h in store.search(query, 5, SearchFilters(until=T0))] == ["frag-0001"]
    assert store.search(query, 5, SearchFilters(until=T0 - 0.001)) == []


def test_a_fragment_that_loses_its_timestamp_leaves_time_filters(store: ChromaVectorStore) -> None:
    # chroma merges metadata on upsert; a stale timestamp must not survive.
    vector = unit_vectors(1)
    store.upsert([make_fragment(0, timestamp=T0)], vector)
    store.upsert([make_fragment(0, timestamp=None)], vector)
    assert store.search(vector[0], 5, SearchFilters(since=0.0)) == []
    store.upsert([make_fragment(0, timestamp=T0 + 5)], vector)
    assert store.search(vector[0], 5, SearchFilters(since=T0 + 1))[0].id == "frag-0000"


def test_integer_time_bounds_and_sub_second_timestamps(store: ChromaVectorStore) -> None:
    store.upsert([make_fragment(0, timestamp=T0 + 0.25)], unit_vectors(1))
    query = unit_vectors(1)[0]
    assert store.search(query, 1, SearchFilters(since=int(T0), until=int(T0) + 1))
    assert store.search(query, 1, SearchFilters(since=T0 + 0.25, until=T0 + 0.25))
    assert store.search(query, 1, SearchFilters(since=T0 + 0.251)) == []


# -- no embedding model, no network -------------------------------------------------------


def test_never_embeds_downloads_or_connects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chromadb.api.types import DefaultEmbeddingFunction
    from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("chroma tried to use its own embedding model")

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"chroma tried to open a connection: {args}")

    monkeypatch.setattr(DefaultEmbeddingFunction, "__call__", forbidden)
    monkeypatch.setattr(ONNXMiniLM_L6_V2, "__init__", forbidden)
    monkeypatch.setattr(ONNXMiniLM_L6_V2, "_download_model_if_not_exists", forbidden)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", no_network)
    model_cache = Path(ONNXMiniLM_L6_V2.DOWNLOAD_PATH)
    cached_before = model_cache.exists()

    with open_store(tmp_path / "chroma", embedder_name="test") as store:
        fragments = [make_fragment(i) for i in range(10)]
        store.upsert(fragments, unit_vectors(10))
        store.search(unit_vectors(1)[0], 3, SearchFilters(roles=("user",)))
        store.delete(["frag-0001"])
        assert store.count() == 9
        store.clear()
    with open_store(tmp_path / "chroma") as reopened:
        reopened.upsert(fragments, unit_vectors(10))
        assert reopened.count() == 10

    assert model_cache.exists() == cached_before


# -- plugin registration ------------------------------------------------------------------


def test_registered_as_the_chroma_vector_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memex_core.plugins import load_registry

    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "chroma")  # through the entry point, alone
    registry = load_registry()
    registration = registry.get("vector_store", "chroma")
    assert registration.available
    assert registration.requires == ("chromadb",)
    assert registration.extra == "chroma"

    store = registry.build("vector_store", "chroma", PluginContext(home=tmp_path))
    try:
        assert isinstance(store, ChromaVectorStore)
        assert store.location.path == tmp_path / "index" / "chroma"
        assert store._client is None  # nothing connects until the store is used
        store.upsert([make_fragment(0)], unit_vectors(1))
        assert (tmp_path / "index" / "chroma").is_dir()
    finally:
        store.close()


def test_new_collections_use_cosine_and_a_wide_hnsw_search(tmp_path: Path) -> None:
    with open_store(tmp_path / "default") as store:
        store.upsert([make_fragment(0)], unit_vectors(1))
        hnsw = store.client.get_collection(store.collection_name).configuration_json["hnsw"]
        assert (hnsw["space"], hnsw["ef_search"]) == ("cosine", DEFAULT_EF_SEARCH)

    settings = {"ef_search": 64, "collection": "other_name"}
    context = PluginContext(home=tmp_path, settings=settings)
    with ChromaVectorStore.from_context(context) as tuned:
        tuned.upsert([make_fragment(0)], unit_vectors(1))
        hnsw = tuned.client.get_collection("other_name").configuration_json["hnsw"]
        assert hnsw["ef_search"] == 64


@pytest.mark.parametrize("value", [0, -5, "wide", 2.5, True])
def test_rejects_a_bad_ef_search_setting(tmp_path: Path, value: object) -> None:
    context = PluginContext(home=tmp_path, settings={"ef_search": value})
    with pytest.raises(ChromaConfigError, match=r"\[vector.chroma\] ef_search"):
        ChromaVectorStore.from_context(context)


def test_an_owner_filter_most_vectors_pass_gives_the_filtered_answer(
    store: ChromaVectorStore,
) -> None:
    """A search whose filter most vectors pass (an agent reading the corpus of a home that
    also holds other users' memory) is answered from a wider unfiltered query filtered by
    the store; a selective one falls back to chroma's filter. Both give exactly the
    filtered ranking, private vectors included in the check."""
    from dataclasses import replace

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
        SearchFilters(owners=("", "users/alice")),  # most pass: over-fetch
        SearchFilters(owners=("", "users/alice"), include_private=True),
        SearchFilters(owners=("users/bob",)),  # selective: chroma filters
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
