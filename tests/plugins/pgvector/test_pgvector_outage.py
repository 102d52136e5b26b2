"""A PostgreSQL that stops, restarts or freezes under the pgvector store: memex says so and
carries on, as it does for a chroma server (test_chroma_outage.py).

Each test starts its own server (:class:`tests.support.postgres_server.PostgresServer`, with
pgvector) so it may stop it; the session's shared one is never touched. The store's clock
is driven by the tests, so nothing here depends on timing except the frozen-server case,
which waits for the client's own deadline (2 s).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from memex_core.api import Memex
from memex_core.domain import SearchFilters
from memex_core.errors import VectorStoreUnavailableError
from memex_core.services.doctor import plugin_findings
from memex_pgvector import connection
from memex_pgvector.connection import FIRST_RETRY_S, MAX_RETRY_S, PgvectorUnreachableError
from memex_pgvector.location import PgvectorLocation, read_settings
from memex_pgvector.store import PgvectorStore
from tests.conftest import EXAMPLES
from tests.support.memex_processes import best_ids, worker_memex, write_material
from tests.support.postgres_server import (
    REQUIRED_ENV,
    PostgresServer,
    find_postgres_bin,
    missing_reason,
)
from tests.support.vector_builders import make_fragment, unit_vectors

pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'memex[postgres]')")

QUERY = "database is locked while another process writes"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def server() -> Iterator[PostgresServer]:
    """A PostgreSQL with pgvector of this test's own, which it may stop."""
    bin_dir = find_postgres_bin(need_vector=True)
    if bin_dir is None:
        if os.environ.get(REQUIRED_ENV) == "1":
            pytest.fail(f"{REQUIRED_ENV}=1 but {missing_reason(True)}")
        pytest.skip(missing_reason(True))
    own = PostgresServer(bin_dir).start()
    try:
        yield own
    finally:
        own.destroy()


def open_store(url: str, clock: Clock, **settings: Any) -> PgvectorStore:
    return PgvectorStore(
        PgvectorLocation(url, "from the test"), read_settings(settings), clock=clock
    )


@pytest.fixture
def counted_connects(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every connection attempt the store makes."""
    attempts: list[str] = []
    real = connection.connect

    def counting(location: PgvectorLocation, timeouts: Any) -> Any:
        attempts.append(location.url)
        return real(location, timeouts)

    monkeypatch.setattr("memex_pgvector.store.connect", counting)
    return attempts


def test_a_stopped_server_fails_fast_backs_off_and_is_used_again(
    server: PostgresServer, counted_connects: list[str]
) -> None:
    clock = Clock()
    url = server.create_database("vectors")
    vectors = unit_vectors(10)
    with open_store(url, clock) as store:
        store.upsert([make_fragment(i) for i in range(10)], vectors)
        server.stop()

        with pytest.raises(PgvectorUnreachableError) as down:
            store.search(vectors[0], 3, SearchFilters())
        message = str(down.value)
        assert isinstance(down.value, VectorStoreUnavailableError)
        assert server.url("vectors") in message and "is not answering" in message
        assert '[vector] use = "chroma"' in message  # says what else to do
        tries = len(counted_connects)

        with pytest.raises(PgvectorUnreachableError, match=r"next try in 1\.0 s"):
            store.count()
        assert len(counted_connects) == tries  # not asked inside the retry delay

        clock.advance(FIRST_RETRY_S)
        with pytest.raises(PgvectorUnreachableError):
            store.count()  # asked again, still down: next retry in 2 s
        assert len(counted_connects) == tries + 1
        with pytest.raises(PgvectorUnreachableError, match=r"next try in 2\.0 s"):
            store.count()

        server.start()
        clock.advance(MAX_RETRY_S)
        assert store.search(vectors[0], 1, SearchFilters())[0].id == "frag-0000"
        assert not store.health.down


def test_a_restart_between_calls_is_not_an_outage(server: PostgresServer) -> None:
    """The store's connection dies with the server; the next call opens a new one and
    answers, without reporting anything (every store operation can be run twice)."""
    url = server.create_database("vectors")
    vectors = unit_vectors(10)
    with open_store(url, Clock()) as store:
        store.upsert([make_fragment(i) for i in range(10)], vectors)
        old_backend = store._conn.info.backend_pid if store._conn else None
        server.restart(mode="immediate")
        assert store.search(vectors[3], 1, SearchFilters())[0].id == "frag-0003"
        store.upsert([make_fragment(10)], unit_vectors(1, seed=9))
        assert store.count() == 11
        assert store._conn is not None and store._conn.info.backend_pid != old_backend
        assert not store.health.down


def test_a_frozen_server_is_cut_off_by_the_clients_deadline(server: PostgresServer) -> None:
    """A backend that stops answering (SIGSTOP: the socket stays open, nothing comes back)
    would hang libpq for ever; the store's watchdog ends the call after ``timeout`` plus
    1 s and reports the server as not answering."""
    url = server.create_database("vectors")
    clock = Clock()
    vectors = unit_vectors(5)
    with open_store(url, clock, timeout=1) as store:
        store.upsert([make_fragment(i) for i in range(5)], vectors)
        assert store._conn is not None
        backend = store._conn.info.backend_pid
        os.kill(backend, signal.SIGSTOP)
        try:
            with pytest.raises(PgvectorUnreachableError, match=r"no answer within 2 s"):
                store.search(vectors[0], 3, SearchFilters())
        finally:
            os.kill(backend, signal.SIGCONT)
        clock.advance(MAX_RETRY_S)
        assert store.search(vectors[0], 1, SearchFilters())[0].id == "frag-0000"


# -- memex on a pgvector home --------------------------------------------------------------


def write_config(home: Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[embedder]\nuse = "hashing"\n[vector]\nuse = "pgvector"\n'
        f'[vector.pgvector]\nurl = "{url}"\n'
    )


def pgvector_store(mx: Memex) -> PgvectorStore:
    return cast(PgvectorStore, mx.vector_store)


def test_searches_fall_back_and_an_ingest_leaves_vectors_pending_while_down(
    server: PostgresServer, memex_home: Path, tmp_path: Path
) -> None:
    url = server.create_database("memex")
    write_config(memex_home, url)
    source = write_material(tmp_path / "material", "delta", 10)
    with worker_memex(memex_home) as mx:
        assert mx.ingest(EXAMPLES).embedded > 30
        found = mx.search(QUERY, limit=5)
        assert found.fallback is None and any(r.ranks["semantic"] is not None for r in found)
        server.stop()

        for mode in ("hybrid", "semantic"):
            fell_back = mx.search(QUERY, mode=mode, limit=5)
            assert fell_back.fallback is not None, mode
            assert fell_back.fallback.startswith("semantic search failed")
            assert server.url("memex") in fell_back.fallback
            assert len(fell_back) and all(r.ranks["semantic"] is None for r in fell_back)
        assert mx.search(QUERY, mode="keyword", limit=5).fallback is None

        report = mx.ingest(source)
        assert not report.failed and report.fragments_added == 40 and report.embedded == 0
        reason = report.embedding_skipped_reason
        assert reason is not None and "40 fragment(s) wait for vectors" in reason

    server.start()
    with worker_memex(memex_home) as mx:
        assert mx.backfill() == 40
        new = [f for f in mx.catalog.iter_fragments() if f.conversation_id.startswith("delta")]
        for fragment in new[::7]:
            assert fragment.id in best_ids(mx, fragment.searchable_text)
        checked = mx.doctor()
        assert checked.healthy, [f.to_dict() for f in checked.findings]
        assert plugin_findings(mx.registry.doctor_checks(), mx.home) == []
        assert pgvector_store(mx).count() == mx.catalog.count_fragments()


def test_a_server_stopped_in_the_middle_of_a_backfill_loses_and_doubles_nothing(
    server: PostgresServer, memex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches of 8 vectors, the server stopped (immediately: a crash) after the third: the
    backfill stops with a clean error, what was committed stays, and the next backfill
    stores exactly the rest; the doctor finds the catalog and vectors in agreement."""
    url = server.create_database("memex")
    write_config(memex_home, url)
    with worker_memex(memex_home) as mx:
        assert mx.ingest(EXAMPLES, embed=False).fragments_added > 30
        total = mx.catalog.count_fragments()

    monkeypatch.setattr("memex_pgvector.store.BATCH", 8)
    real_batch = PgvectorStore._upsert_batch
    batches = 0

    def stopping_after_three(self: PgvectorStore, *args: Any, **kwargs: Any) -> None:
        nonlocal batches
        batches += 1
        if batches == 4:
            server.stop(mode="immediate")
        real_batch(self, *args, **kwargs)

    monkeypatch.setattr(PgvectorStore, "_upsert_batch", stopping_after_three)
    with worker_memex(memex_home) as mx, pytest.raises(PgvectorUnreachableError):
        mx.backfill()
    server.start()
    monkeypatch.setattr(PgvectorStore, "_upsert_batch", real_batch)
    with worker_memex(memex_home) as mx:
        stored_before = pgvector_store(mx).count()
        assert stored_before >= 24  # three batches were committed before the crash
        # The bulk write never reached its settle: no HNSW index yet, and the doctor says so.
        notes = {f.code: f for f in plugin_findings(mx.registry.doctor_checks(), mx.home)}
        assert "memex backfill" in notes["vectors.pgvector_index"].fix
        mx.backfill()
        assert pgvector_store(mx).count() == total
        assert mx.indexer().pending() == 0
        checked = mx.doctor()
        assert checked.healthy, [f.to_dict() for f in checked.findings]
        assert plugin_findings(mx.registry.doctor_checks(), mx.home) == []
