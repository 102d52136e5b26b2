"""Remembering a fact embeds its text once when the embedder embeds queries and documents
alike (``symmetric``): the vector the supersession judge's candidate search computed is
the one the fact's fragment is indexed with. Otherwise the text is embedded both ways."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memex_core.api import Memex
from memex_core.config import Config, load_config
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry
from tests.support.component_doubles import DoublesPlugin, HashingEmbedder
from tests.support.supersession_doubles import JudgePlugin, LivesInJudge


class CountingEmbedder(HashingEmbedder):
    """The hashing double, counting every text it embeds (queries and documents)."""

    def __init__(self, symmetric: bool) -> None:
        self.symmetric = symmetric
        self.texts: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.texts.append(text)
        return super().embed_documents([text])[0]


class CountingPlugin:
    def __init__(self, embedder: CountingEmbedder) -> None:
        self.embedder = embedder

    @hookimpl
    def register_embedders(self, register: Any) -> None:
        register("counting", lambda context: self.embedder)


def _memex(home: Path, embedder: CountingEmbedder) -> Memex:
    """The embedding doubles with the counting embedder, and a supersession judge (so that
    each fact's candidates are searched for first, as with the default ``rules``)."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    registry.register_plugin(CountingPlugin(embedder), name="counting")
    registry.register_plugin(JudgePlugin(LivesInJudge()), name="judge-double")
    chosen = {
        **load_config(home).components,
        "embedder": "counting",
        "vector_store": "memory",
        "supersession_judge": "test-lives",
    }
    return Memex(registry=registry, config=Config(home=home, components=chosen, raw={}))


@pytest.fixture(params=[True, False], ids=["symmetric", "asymmetric"])
def counted(memex_home: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Memex, Any]]:
    embedder = CountingEmbedder(symmetric=request.param)
    mx = _memex(memex_home, embedder)
    mx.remember("The bench warms up", user="alice")  # loads the indexes
    embedder.texts.clear()
    yield mx, embedder
    mx.close()


def test_a_remembered_fact_is_embedded_once_with_a_symmetric_embedder(
    counted: tuple[Memex, CountingEmbedder],
) -> None:
    mx, embedder = counted
    fact = "Alice keeps her bicycle in the shed"
    mx.remember(fact, user="alice")
    assert embedder.texts.count(fact) == (1 if embedder.symmetric else 2)
    hits = mx.recall("bicycle shed", user="alice", mode="semantic")
    assert [h.text for h in hits][:1] == [fact]


def test_each_fact_is_indexed_with_its_own_texts_vector(
    counted: tuple[Memex, CountingEmbedder], memex_home: Path
) -> None:
    mx, embedder = counted
    facts = ["Bob plays the cello", "Bob grows tomatoes", "Bob drives a red van"]
    for fact in facts:
        mx.remember(fact, user="bob")
    assert [embedder.texts.count(f) for f in facts] == [1 if embedder.symmetric else 2] * 3
    store = DoublesPlugin(memex_home).store  # the home's in-memory vector store
    stored = {f.content: store.vectors[i] for i, f in store.fragments.items()}
    for fact in facts:
        expected = HashingEmbedder().embed_documents([fact])[0]
        assert np.allclose(stored[fact], expected)
        hits = mx.recall(fact, user="bob", mode="semantic")
        assert hits[0].text == fact
