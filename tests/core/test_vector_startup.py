"""Memex's use of a vector store's optional ``prepare`` and ``settle``.

A fresh process's first semantic search lets the store load its index on another
thread while the query is embedded; bulk writes (ingest, backfill, rebuild) end with
``settle``. Both are optional and only about speed: a failing ``prepare`` must not
change what a search returns.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from memex_core.api import Memex
from memex_core.config import Config, load_config
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry
from tests.support.component_doubles import HashingEmbedder, MemoryVectorStore
from tests.support.export_builders import app_turn, write_chatgpt_export


class RecordingStore(MemoryVectorStore):
    def __init__(self, *, failing: bool = False) -> None:
        super().__init__()
        self.failing = failing
        self.prepared_on: list[str] = []
        self.settled = 0

    def prepare(self) -> None:
        self.prepared_on.append(threading.current_thread().name)
        if self.failing:
            raise RuntimeError("index files unreadable")

    def settle(self) -> int:
        self.settled += 1
        return 0


class RecordingPlugin:
    def __init__(self, store: RecordingStore) -> None:
        self.store = store

    @hookimpl
    def register_embedders(self, register: Any) -> None:
        register("hashing", lambda context: HashingEmbedder())

    @hookimpl
    def register_vector_stores(self, register: Any) -> None:
        register("recording", lambda context: self.store)


def memex_with(home: Path, store: RecordingStore) -> Memex:
    registry = load_registry()
    registry.register_plugin(RecordingPlugin(store), name="recording")
    components = {**load_config(home).components, "embedder": "hashing"}
    components["vector_store"] = "recording"
    return Memex(registry=registry, config=Config(home=home, components=components, raw={}))


def kettle_fragments() -> list[Any]:
    return app_turn("The kettle whistles at noon")


def test_a_fresh_hybrid_search_prepares_the_store_on_another_thread(memex_home: Path) -> None:
    store = RecordingStore()
    with memex_with(memex_home, store) as writer:
        writer.add_fragments(kettle_fragments(), origin="app:test")
    with memex_with(memex_home, store) as reader:
        hits = reader.search("kettle", "hybrid")
        reader.search("kettle", "hybrid")  # open now: no second prepare
    assert [hit.fragment.content for hit in hits] == ["The kettle whistles at noon"]
    assert hits[0].ranks["semantic"] == 1
    assert len(store.prepared_on) == 1
    assert store.prepared_on[0] != threading.current_thread().name


def test_keyword_search_never_prepares_the_vector_store(memex_home: Path) -> None:
    store = RecordingStore()
    with memex_with(memex_home, store) as mx:
        mx.add_fragments(kettle_fragments(), origin="app:test", embed=False)
        mx.search("kettle", "keyword")
    assert store.prepared_on == []


def test_a_failing_prepare_changes_nothing_the_search_returns(memex_home: Path) -> None:
    store = RecordingStore(failing=True)
    with memex_with(memex_home, store) as writer:
        writer.add_fragments(kettle_fragments(), origin="app:test")
    with memex_with(memex_home, store) as reader:
        hits = reader.search("kettle", "semantic")
    assert store.prepared_on  # it was tried
    assert [hit.fragment.content for hit in hits] == ["The kettle whistles at noon"]


def test_bulk_writes_settle_the_store_and_single_batches_do_not(
    memex_home: Path, tmp_path: Path
) -> None:
    store = RecordingStore()
    with memex_with(memex_home, store) as mx:
        mx.add_fragments(kettle_fragments(), origin="app:test", embed=False)
        assert store.settled == 0  # an app's small batch: settling could cost more than it saves
        mx.backfill()
        assert store.settled == 1
        mx.ingest(write_chatgpt_export(tmp_path / "conversations.json"))
        assert store.settled == 2
        mx.rebuild(vectors=True)
        assert store.settled == 3
