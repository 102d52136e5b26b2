"""The chroma store's reads without the chromadb package (:mod:`memex_chroma.reader`).

A store's reads open a :class:`FolderReader` (chroma's Rust engine, called as chromadb's
own embedded client calls it), and its writes chromadb's ``PersistentClient``. Both must
answer every search alike, hit for hit and score for score: the same store searches the
same folder through each, with and without filters, on a folder whose index files hold
part of the vectors and whose log holds the rest, and on a small one all in the log.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memex_core.domain import Fragment, SearchFilters

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

from memex_chroma import reader as reader_module
from memex_chroma.connection import ChromaLocation
from memex_chroma.reader import CollectionMissing, FolderReader, is_missing
from memex_chroma.store import ChromaVectorStore
from tests.support.vector_builders import (
    make_fragment,
    random_filters,
    random_fragments,
    unit_vectors,
)

BATCH = 256  # memex's backfill batch: 1,300 records sync at 1,024 and leave 276 in the log
QUERIES = 12


def open_store(path: Path) -> ChromaVectorStore:
    return ChromaVectorStore(ChromaLocation(path=path), embedder_name="test")


def scoped(fragments: list[Fragment], rng: random.Random) -> list[Fragment]:
    """Some private, some of other owners and collections: what agent memory stores."""
    return [
        dataclasses.replace(
            fragment,
            private=rng.random() < 0.1,
            owner=rng.choice(("", "users/alice", "users/bob")),
            collection=rng.choice(("", "work")),
        )
        for fragment in fragments
    ]


def fill(folder: Path, count: int) -> np.ndarray:
    rng = random.Random(count)
    fragments = scoped(random_fragments(rng, count), rng)
    vectors = unit_vectors(count, seed=count)
    with open_store(folder) as store:
        for start in range(0, count, BATCH):
            store.upsert(fragments[start : start + BATCH], vectors[start : start + BATCH])
    return vectors


@pytest.fixture(scope="module", params=[200, 1_300], ids=["all-in-log", "index-and-log"])
def folder(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("reader") / "chroma"
    vectors = fill(path, request.param)
    np.save(path.parent / "vectors.npy", vectors)
    return path


def queries(folder: Path) -> np.ndarray:
    """Random directions and stored vectors themselves (exact matches, distance 0)."""
    stored = np.load(folder.parent / "vectors.npy")
    return np.vstack([unit_vectors(QUERIES, seed=99), stored[: QUERIES // 2]])


def every_search(store: ChromaVectorStore, folder: Path) -> list[list[tuple[str, float]]]:
    rng = random.Random(7)
    filters = [SearchFilters(), SearchFilters(include_private=True, named_only=())]
    filters += [random_filters(rng) for _ in range(6)]
    filters += [SearchFilters(owners=("users/alice",)), SearchFilters(collections=("work",))]
    return [
        [(hit.id, hit.score) for hit in store.search(query, limit, each)]
        for query in queries(folder)
        for each in filters
        for limit in (1, 10, 50)
    ]


@pytest.fixture
def store(folder: Path) -> Iterator[ChromaVectorStore]:
    with open_store(folder) as opened:
        yield opened


def test_reads_answer_as_chromadb_does_hit_for_hit(store: ChromaVectorStore, folder: Path) -> None:
    through_reader = every_search(store, folder)
    assert isinstance(store._client, FolderReader)  # the reads opened the reader

    assert not getattr(store.client, "reads_only", False)  # chromadb's PersistentClient now
    through_chromadb = every_search(store, folder)

    assert through_reader == through_chromadb
    assert sum(map(len, through_reader)) > 0
    exact = store.search(
        np.load(folder.parent / "vectors.npy")[3],
        1,
        SearchFilters(include_private=True, named_only=()),
    )
    assert exact and exact[0].id == "frag-0003" and exact[0].score == pytest.approx(1.0)


def test_counts_ids_and_recorded_embedder_read_alike(store: ChromaVectorStore) -> None:
    read = (store.count(), store.ids(), store.stored_embedding())
    assert isinstance(store._client, FolderReader)
    store.client  # noqa: B018  # switches to chromadb's client
    assert (store.count(), store.ids(), store.stored_embedding()) == read
    assert read[2] == ("test", 16)


def test_a_write_after_reads_goes_through_chromadb_and_is_read_back(tmp_path: Path) -> None:
    folder = tmp_path / "chroma"
    fill(folder, 40)
    with open_store(folder) as store:
        probe = unit_vectors(1, seed=1234)[0]
        assert store.search(probe, 1, SearchFilters())[0].score < 0.99
        assert isinstance(store._client, FolderReader)

        store.upsert([make_fragment(9999)], probe.reshape(1, -1))
        assert not getattr(store._client, "reads_only", False)
        assert store.search(probe, 1, SearchFilters())[0].id == "frag-9999"
        assert store.count() == 41


WRITER = """
import sys
import numpy as np
from memex_chroma.connection import ChromaLocation
from memex_chroma.store import ChromaVectorStore
from tests.support.vector_builders import make_fragment
from pathlib import Path
with ChromaVectorStore(ChromaLocation(path=Path(sys.argv[1])), embedder_name="test") as store:
    store.upsert([make_fragment(7777)], np.load(sys.argv[2]))
"""


def test_a_reader_reopens_after_another_process_writes(tmp_path: Path) -> None:
    folder = tmp_path / "chroma"
    fill(folder, 40)
    probe = unit_vectors(1, seed=4321)
    np.save(tmp_path / "probe.npy", probe)
    with open_store(folder) as store:
        assert store.search(probe[0], 1, SearchFilters())[0].id != "frag-7777"
        done = subprocess.run(
            [sys.executable, "-c", WRITER, str(folder), str(tmp_path / "probe.npy")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert store.search(probe[0], 1, SearchFilters())[0].id == "frag-7777"
        assert isinstance(store._client, FolderReader)  # reopened as a reader


def test_a_folder_without_the_collection_reads_as_empty(tmp_path: Path) -> None:
    with open_store(tmp_path / "chroma") as store:
        assert store.search(unit_vectors(1)[0], 5, SearchFilters()) == []
        assert store.count() == 0 and store.ids() == set()
        assert isinstance(store._client, FolderReader)
        with pytest.raises(CollectionMissing) as missing:
            store._chroma.get_collection("memex_fragments")
        assert is_missing(missing.value)


def test_chromadb_not_found_counts_as_missing(tmp_path: Path) -> None:
    from chromadb.errors import NotFoundError

    assert is_missing(NotFoundError("gone")) and not is_missing(ValueError("other"))


def test_another_chromadb_major_version_is_read_through_chromadb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "chroma"
    fill(folder, 20)
    monkeypatch.setattr(reader_module, "_chromadb_major", lambda: "2")
    with open_store(folder) as store:
        assert len(store.search(unit_vectors(1)[0], 5, SearchFilters())) == 5
        assert store._client is not None and not isinstance(store._client, FolderReader)
