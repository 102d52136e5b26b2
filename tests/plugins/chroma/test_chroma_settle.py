"""The chroma store's start-up work: ``settle`` after bulk writes and ``prepare`` before a search.

Against a real embedded chroma. The first test pins the chroma behaviour that makes
``settle`` worth having (its index files lag its log below ``sync_threshold``), so an
upgrade that syncs by itself is noticed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memex_core.domain import SearchFilters

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

from memex_chroma.connection import ChromaLocation
from memex_chroma.log_tail import unsynced_records
from memex_chroma.store import ChromaVectorStore
from tests.support.vector_builders import make_fragment, unit_vectors

#: chroma's default sync_threshold is 1,000, checked after each applied batch: 1,300
#: records written in memex's backfill batches of 256 sync at 1,024 and leave 276 in the log.
COUNT = 1_300
BATCH = 256


def open_store(path: Path) -> ChromaVectorStore:
    return ChromaVectorStore(ChromaLocation(path=path), embedder_name="test")


def behind(store: ChromaVectorStore) -> int | None:
    collection = store._existing_collection()
    assert collection is not None and store.location.path is not None
    return unsynced_records(store.location.path, str(collection.id))


def snapshot(store: ChromaVectorStore, queries: np.ndarray) -> list[list[tuple[str, float]]]:
    return [
        [(hit.id, round(hit.score, 6)) for hit in store.search(query, 10, SearchFilters())]
        for query in queries
    ]


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    folder = tmp_path / "chroma"
    with open_store(folder) as store:
        fragments = [make_fragment(i, role="user" if i % 2 else "assistant") for i in range(COUNT)]
        vectors = unit_vectors(COUNT)
        for start in range(0, COUNT, BATCH):
            store.upsert(fragments[start : start + BATCH], vectors[start : start + BATCH])
    return folder


def test_chroma_leaves_records_past_its_sync_threshold_in_the_log(filled: Path) -> None:
    with open_store(filled) as store:
        assert behind(store) == COUNT - 4 * BATCH


def test_settle_syncs_the_index_files_and_changes_nothing_searchable(filled: Path) -> None:
    queries = unit_vectors(5, seed=7)
    with open_store(filled) as store:
        before = snapshot(store, queries)
        roles = store.client.get_collection("memex_fragments", embedding_function=None).get(
            ids=["frag-0001", "frag-0002"], include=["metadatas"]
        )["metadatas"]
        store._wrote = True  # as after an ingest in this process
        rewritten = store.settle()
        assert rewritten == 1_000 - (COUNT - 4 * BATCH)
        assert behind(store) == 0
        assert store.count() == COUNT
    with open_store(filled) as reopened:
        assert snapshot(reopened, queries) == before
        again = reopened.client.get_collection("memex_fragments", embedding_function=None).get(
            ids=["frag-0001", "frag-0002"], include=["metadatas"]
        )["metadatas"]
        assert again == roles
        filtered = reopened.search(queries[0], 50, SearchFilters(roles=("user",)))
        assert filtered and all(int(hit.id[-4:]) % 2 for hit in filtered)


def test_settle_does_nothing_without_a_write_in_this_process(filled: Path) -> None:
    with open_store(filled) as store:
        assert store.settle() == 0
        assert behind(store) == COUNT - 4 * BATCH


def test_settle_after_a_write_is_done_once(filled: Path) -> None:
    with open_store(filled) as store:
        store.upsert([make_fragment(COUNT)], unit_vectors(1, seed=3))
        assert store.settle() > 0
        assert store.settle() == 0  # nothing written since


def test_settle_leaves_a_small_collection_alone(tmp_path: Path) -> None:
    with open_store(tmp_path / "chroma") as store:
        store.upsert([make_fragment(i) for i in range(50)], unit_vectors(50))
        assert store.settle() == 0
        assert behind(store) == 50
        assert store.count() == 50


def test_prepare_loads_the_index_and_search_answers_the_same(filled: Path) -> None:
    queries = unit_vectors(3, seed=11)
    with open_store(filled) as store:
        expected = snapshot(store, queries)
    with open_store(filled) as store:
        store.prepare()
        assert snapshot(store, queries) == expected


def test_prepare_on_a_missing_collection_does_nothing(tmp_path: Path) -> None:
    with open_store(tmp_path / "chroma") as store:
        store.prepare()
        assert store.count() == 0
