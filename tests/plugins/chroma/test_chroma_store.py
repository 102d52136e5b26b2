"""What only the chroma vector store has, against a real embedded chroma (in tmp_path).

The contract every vector store keeps (scores, upsert/delete/clear, the recorded embedder,
filters) runs against chroma and pgvector alike in test_vector_store_contract.py.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.domain import PluginContext, SearchFilters

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

from memex_chroma.connection import ChromaConfigError, ChromaLocation
from memex_chroma.store import DEFAULT_EF_SEARCH, ChromaVectorStore

# Other modules import these helpers from here (they live in tests/support/vector_builders.py).
from tests.support.vector_builders import T0, expected_ranking, make_fragment, unit_vectors

__all__ = ["T0", "expected_ranking", "make_fragment", "unit_vectors"]


def open_store(path: Path, embedder_name: str | None = None) -> ChromaVectorStore:
    return ChromaVectorStore(ChromaLocation(path=path), embedder_name=embedder_name)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ChromaVectorStore]:
    with open_store(tmp_path / "chroma") as opened:
        yield opened


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
