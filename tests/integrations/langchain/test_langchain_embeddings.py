"""A LangChain ``Embeddings`` as memex's embedder: registered from code, ingest, search."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings

from memex_core.api import Memex
from memex_core.config import Config
from memex_core.domain import Embedder
from memex_core.errors import EmbedderMismatchError, MemexError
from memex_core.plugins import PluginRegistry, load_registry
from memex_langchain import (
    LangChainEmbedder,
    MemexRetriever,
    register_embeddings,
    with_embedder,
)
from tests.conftest import EXAMPLES
from tests.support.component_doubles import DoublesPlugin

EXPORT = EXAMPLES / "chatgpt-conversations.json"


def registry_with(embeddings: Embeddings, name: str, home: Path) -> PluginRegistry:
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")  # the in-memory vector store
    register_embeddings(registry, embeddings, name=name)
    return registry


def open_memex(home: Path, registry: PluginRegistry, name: str) -> Memex:
    config = with_embedder(home, name)
    config = Config(
        home=config.home,
        components={**config.components, "vector_store": "memory"},
        raw=config.raw,
    )
    return Memex(home, registry=registry, config=config)


@pytest.fixture
def fake_mx(memex_home: Path) -> Iterator[Memex]:
    registry = registry_with(DeterministicFakeEmbedding(size=32), "fake-32", memex_home)
    mx = open_memex(memex_home, registry, "fake-32")
    yield mx
    mx.close()


def test_the_adapter_honours_memex_embedder_contract() -> None:
    embedder = LangChainEmbedder(DeterministicFakeEmbedding(size=16), "fake-16")
    assert isinstance(embedder, Embedder)
    assert embedder.dimension == 16
    vectors = embedder.embed_documents(["alpha", "beta", "alpha"])
    assert len(vectors) == 3 and all(len(v) == 16 for v in vectors)
    assert all(math.isclose(math.hypot(*v), 1.0) for v in vectors)  # L2-normalised
    assert vectors[0] == vectors[2] != vectors[1]
    assert embedder.embed_query("alpha") == pytest.approx(vectors[0])
    assert all(type(x) is float for x in vectors[0])  # plain floats, not numpy scalars
    assert embedder.embed_documents([]) == []


class NoSizeEmbeddings(Embeddings):
    """An embeddings model that does not state its dimension (most do not)."""

    def __init__(self) -> None:
        self.calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [[float(len(t)), 1.0, 0.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return [float(len(text)), 1.0, 0.0]


def test_a_dimension_not_stated_is_probed_once() -> None:
    model = NoSizeEmbeddings()
    embedder = LangChainEmbedder(model, "no-size")
    assert model.calls == 0  # nothing runs until the dimension is needed
    assert embedder.dimension == 3
    assert embedder.dimension == 3
    assert model.calls == 1
    assert LangChainEmbedder(NoSizeEmbeddings(), "given", dimension=3).dimension == 3


def test_a_model_that_breaks_its_promises_is_reported() -> None:
    wrong_size = LangChainEmbedder(NoSizeEmbeddings(), "wrong", dimension=8)
    with pytest.raises(MemexError, match="3-dimensional vector, expected 8"):
        wrong_size.embed_query("x")

    class Dropping(NoSizeEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return super().embed_documents(texts)[:-1]

    with pytest.raises(MemexError, match="1 vectors for 2 texts"):
        LangChainEmbedder(Dropping(), "dropping").embed_documents(["a", "b"])
    with pytest.raises(MemexError, match="needs a name"):
        LangChainEmbedder(NoSizeEmbeddings(), "")


def test_registered_embeddings_are_listed_as_an_embedder(memex_home: Path) -> None:
    registry = registry_with(DeterministicFakeEmbedding(size=8), "fake-8", memex_home)
    registration = registry.get("embedder", "fake-8")
    assert registration.available
    assert "DeterministicFakeEmbedding" in registration.description
    with pytest.raises(MemexError, match="already registered"):
        register_embeddings(registry, DeterministicFakeEmbedding(size=8), name="fake-8")


def test_ingest_embeds_with_the_langchain_model_and_semantic_search_finds(
    fake_mx: Memex,
) -> None:
    report = fake_mx.ingest(EXPORT)
    assert report.fragments_added > 3
    assert report.embedded == report.fragments_added
    stats = fake_mx.stats()
    assert (stats.embedder, stats.dimension) == ("fake-32", 32)
    assert stats.embedded == stats.fragments
    # The fake model maps equal texts to equal vectors and others to unrelated ones, so
    # searching a fragment's exact text must find that fragment first, with cosine ~1.
    target = next(iter(fake_mx.catalog.iter_fragments()))
    found = fake_mx.search(target.searchable_text, mode="semantic", limit=3, time_phrases=False)
    assert found[0].id == target.id
    assert found[0].scores["semantic"] == pytest.approx(1.0, abs=1e-5)


def test_the_retriever_searches_with_the_langchain_model(fake_mx: Memex) -> None:
    fake_mx.ingest(EXPORT)
    target = next(iter(fake_mx.catalog.iter_fragments()))
    docs = MemexRetriever(memex=fake_mx, mode="semantic", k=2, time_phrases=False).invoke(
        target.searchable_text
    )
    assert docs[0].id == target.id
    assert docs[0].metadata["semantic_rank"] == 1
    assert docs[0].metadata["semantic_score"] == pytest.approx(1.0, abs=1e-5)


def test_vectors_of_another_model_are_refused_until_rebuilt(
    fake_mx: Memex, memex_home: Path
) -> None:
    fake_mx.ingest(EXPORT)
    fake_mx.close()
    registry = registry_with(DeterministicFakeEmbedding(size=16), "fake-16", memex_home)
    other = open_memex(memex_home, registry, "fake-16")
    try:
        with pytest.raises(EmbedderMismatchError, match="fake-32"):
            other.search("anything", mode="semantic")
        other.rebuild(keyword=False, vectors=True)
        assert other.stats().embedder == "fake-16"
        # floor off: this test is about the model mismatch, and a fake embedder's calibrated
        # relevance floor says nothing about "anything"
        assert len(other.search("anything", mode="semantic", limit=2, floor="off")) == 2
    finally:
        other.close()
