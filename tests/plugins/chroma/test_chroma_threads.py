"""The chroma store under threads: searches share the folder's client, writes hold it alone."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memex_core.domain import SearchFilters

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

from memex_chroma.connection import ChromaLocation
from memex_chroma.store import ChromaVectorStore
from tests.support.vector_builders import make_fragment, unit_vectors

WAIT = 10.0


def _filled(path: Path, count: int) -> tuple[ChromaVectorStore, list[Any], np.ndarray]:
    store = ChromaVectorStore(ChromaLocation(path=path))
    fragments = [make_fragment(n) for n in range(count)]
    vectors = unit_vectors(count, seed=1)
    store.upsert(fragments, vectors)
    return store, fragments, vectors


def test_two_searches_are_inside_chroma_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, fragments, vectors = _filled(tmp_path / "chroma", 50)
    store.search(vectors[0], 1, SearchFilters())  # opens the client
    from chromadb.api.models.Collection import Collection

    both_inside = threading.Barrier(2, timeout=WAIT)
    real_query = Collection.query

    def query(self: Collection, *args: Any, **kwargs: Any) -> Any:
        both_inside.wait()  # breaks (BrokenBarrierError) unless both threads are in at once
        return real_query(self, *args, **kwargs)

    monkeypatch.setattr(Collection, "query", query)
    found: list[str] = []
    failures: list[BaseException] = []

    def search(n: int) -> None:
        try:
            found.append(store.search(vectors[n], 1, SearchFilters())[0].id)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=search, args=(n,)) for n in (3, 7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert not failures, failures[0]
    assert sorted(found) == [fragments[3].id, fragments[7].id]
    store.close()


def test_searches_during_writes_find_exact_matches_and_never_private_ones(
    tmp_path: Path,
) -> None:
    store, fragments, vectors = _filled(tmp_path / "chroma", 120)
    writer_store = ChromaVectorStore(
        ChromaLocation(path=tmp_path / "chroma")
    )  # another store on the folder, as Memex has
    corpus_only = SearchFilters(owners=("",))
    stop = threading.Event()
    failures: list[BaseException] = []
    searched = [0]
    memory_vectors = unit_vectors(40, seed=2)

    def write() -> None:
        try:
            for round_ in range(12):
                memory = [
                    replace(make_fragment(1000 + round_ * 40 + n), owner="users/u", private=n < 5)
                    for n in range(40)
                ]
                writer_store.upsert(memory, memory_vectors)
                writer_store.delete([f.id for f in memory])
        except BaseException as exc:
            failures.append(exc)
        finally:
            stop.set()

    def read(offset: int) -> None:
        try:
            n = offset
            while not stop.is_set():
                hits = store.search(vectors[n % len(fragments)], 3, corpus_only)
                assert hits[0].id == fragments[n % len(fragments)].id, hits
                assert hits[0].score == pytest.approx(1.0, abs=1e-5)
                everyone = store.search(memory_vectors[n % 40], 5, SearchFilters())
                private = [h for h in everyone if int(h.id.split("-")[1]) >= 1000]
                # Memory vectors of a round are found or not; the private five never are.
                assert all((int(h.id.split("-")[1]) - 1000) % 40 >= 5 for h in private), private
                n += 7
                searched[0] += 1
        except BaseException as exc:
            failures.append(exc)
            stop.set()

    threads = [threading.Thread(target=write)]
    threads += [threading.Thread(target=read, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures, failures[0]
    assert searched[0] > 0
    assert store.count() == len(fragments)
    writer_store.close()
    store.close()


def test_readers_let_a_waiting_writer_elsewhere_in(tmp_path: Path) -> None:
    """A process waiting to write holds the intent file: readers stop joining their shared
    hold (so it ends and the writer gets the folder), and start again once it is gone."""
    import fcntl
    import os

    from memex_chroma.access import INTENT_NAME, FolderAccess

    store, _, vectors = _filled(tmp_path / "chroma", 20)
    store.search(vectors[0], 1, SearchFilters())
    access = FolderAccess.attach(tmp_path / "chroma")
    try:
        assert not access._writer_waiting()
        # Another open file description, as another process's would be: flocks conflict.
        other = os.open(tmp_path / "chroma" / INTENT_NAME, os.O_RDWR)
        try:
            fcntl.flock(other, fcntl.LOCK_EX)
            assert access._writer_waiting()
            fcntl.flock(other, fcntl.LOCK_UN)
            assert not access._writer_waiting()
        finally:
            os.close(other)
    finally:
        access.detach()
    store.close()


def test_a_writer_in_another_process_gets_in_while_threads_search(tmp_path: Path) -> None:
    import subprocess
    import sys

    store, _, vectors = _filled(tmp_path / "chroma", 60)
    store.search(vectors[0], 1, SearchFilters())
    stop = threading.Event()
    failures: list[BaseException] = []

    def read(offset: int) -> None:
        try:
            n = offset
            while not stop.is_set():
                store.search(vectors[n % 60], 3, SearchFilters())
                n += 1
        except BaseException as exc:
            failures.append(exc)

    readers = [threading.Thread(target=read, args=(n,)) for n in range(3)]
    for thread in readers:
        thread.start()
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from memex_chroma.connection import ChromaLocation\n"
        "from memex_chroma.store import ChromaVectorStore\n"
        "from tests.support.vector_builders import make_fragment, unit_vectors\n"
        "store = ChromaVectorStore(ChromaLocation(path=Path(sys.argv[1])))\n"
        "began = time.monotonic()\n"
        "store.upsert([make_fragment(999)], unit_vectors(1, seed=99))\n"
        "print(time.monotonic() - began)\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / "chroma")],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).resolve().parents[3],
        )
    finally:
        stop.set()
        for thread in readers:
            thread.join(WAIT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not failures, failures[0]
    # The readers reopened after the write: the new vector is found.
    assert store.search(unit_vectors(1, seed=99)[0], 1, SearchFilters())[0].id == "frag-0999"
    store.close()


def test_a_reader_reopening_its_client_never_deadlocks_with_a_waiting_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hang a CI run died of. A reader holds the folder shared and finds another process
    wrote (new token), so it must reopen, exclusively; meanwhile a writer elsewhere holds the
    intent file and waits for the shared holds to end. The reader lets its hold go before it
    waits for the intent file, so the writer goes first and then the reader."""
    import fcntl
    import os

    from memex_chroma.access import INTENT_NAME, LOCK_NAME, FolderAccess

    folder = tmp_path / "chroma"
    store, _, vectors = _filled(folder, 20)
    store.search(vectors[0], 1, SearchFilters())
    # Another open file description of each file, as another process's would be.
    lock = os.open(folder / LOCK_NAME, os.O_RDWR)
    intent = os.open(folder / INTENT_NAME, os.O_RDWR)
    os.pwrite(lock, b"0" * 32, 0)  # "another process wrote": the reader must reopen
    writer_in = threading.Event()

    def writer() -> None:
        fcntl.flock(intent, fcntl.LOCK_EX)  # announced ...
        writer_holds_intent.set()
        fcntl.flock(lock, fcntl.LOCK_EX)  # ... and waiting for the shared holds to end
        writer_in.set()
        fcntl.flock(lock, fcntl.LOCK_UN)
        fcntl.flock(intent, fcntl.LOCK_UN)

    writer_holds_intent = threading.Event()
    real = FolderAccess._flock_exclusive

    def writer_arrives_first(access: FolderAccess) -> None:
        if not writer_holds_intent.is_set():  # the reader is about to upgrade: the writer comes
            threading.Thread(target=writer, daemon=True).start()
            assert writer_holds_intent.wait(WAIT)
        real(access)

    monkeypatch.setattr(FolderAccess, "_flock_exclusive", writer_arrives_first)
    reader = threading.Thread(target=store.search, args=(vectors[3], 1, SearchFilters()))
    reader.start()
    reader.join(WAIT)
    stuck = reader.is_alive()
    if stuck:  # let both go (the writer's intent hold ends with its file) before failing
        os.close(intent)
        reader.join(WAIT)
    else:
        os.close(intent)
    os.close(lock)
    assert not stuck, "the reader and the writer waited for each other"
    assert writer_in.is_set()
    assert store.search(vectors[3], 1, SearchFilters())[0].id == "frag-0003"
    store.close()
