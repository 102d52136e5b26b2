"""What only the pgvector store has: where its database comes from, its settings, its table
and HNSW index, the exact re-ask under a selective filter, a server without pgvector.

The vector store contract itself (shared with chroma) is test_vector_store_contract.py;
outages are test_pgvector_outage.py. Databases come from the ``pgvector_url`` fixture
(tests/support/postgres_fixtures.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memex_core.domain import PluginContext, SearchFilters
from memex_pgvector.location import (
    CATALOG_URL_ENV,
    DEFAULT_EF_SEARCH,
    PgvectorConfigError,
    PgvectorLocation,
    read_settings,
    redact,
    resolve_location,
)
from tests.support.vector_builders import expected_ranking, make_fragment, unit_vectors

pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'memex[postgres]')")

from memex_pgvector.store import META_TABLE, PgvectorStore

URL = "postgresql://memex@db.example:5432/memex"


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)
    return home


# -- where the vectors live --------------------------------------------------------------


def test_the_url_setting_wins(tmp_path: Path) -> None:
    home = write_config(
        tmp_path, f'[catalog]\nuse = "postgres"\n[catalog.postgres]\nurl = "{URL}"\n'
    )
    other = "postgresql://vectors@elsewhere/v"
    location = resolve_location(home, {"url": other}, {CATALOG_URL_ENV: URL})
    assert (location.url, location.origin) == (other, "from [vector.pgvector] url in config.toml")


def test_defaults_to_the_catalog_url_from_the_environment(tmp_path: Path) -> None:
    location = resolve_location(tmp_path, {}, {CATALOG_URL_ENV: URL})
    assert location.url == URL
    assert CATALOG_URL_ENV in location.origin


def test_defaults_to_the_catalog_url_in_config(tmp_path: Path) -> None:
    home = write_config(
        tmp_path, f'[catalog]\nuse = "postgres"\n[catalog.postgres]\nurl = "{URL}"\n'
    )
    location = resolve_location(home, {}, {})
    assert location.url == URL
    assert "[catalog.postgres] url" in location.origin


@pytest.mark.parametrize(
    ("config", "environ"),
    [
        ("", {}),  # nothing set
        ('[catalog]\nuse = "sqlite"\n', {CATALOG_URL_ENV: URL}),  # the catalog is not postgres
        (f'[catalog.postgres]\nurl = "{URL}"\n', {}),  # a URL, but `use` does not pick it
        ("", {CATALOG_URL_ENV: "/var/lib/memex/catalog.sqlite"}),
    ],
)
def test_without_a_url_the_error_names_both_settings(
    tmp_path: Path, config: str, environ: dict[str, str]
) -> None:
    home = write_config(tmp_path, config)
    with pytest.raises(PgvectorConfigError) as caught:
        resolve_location(home, {}, environ)
    message = str(caught.value)
    for named in ("[vector.pgvector] url", CATALOG_URL_ENV, "[catalog.postgres] url"):
        assert named in message
    assert str(home / "config.toml") in message


@pytest.mark.parametrize("bad", ["http://db:5432/x", "db.example", "", 5432])
def test_a_url_that_is_not_postgresql_is_refused(tmp_path: Path, bad: object) -> None:
    with pytest.raises(PgvectorConfigError, match=r"\[vector.pgvector\] url|postgresql://"):
        resolve_location(tmp_path, {"url": bad}, {})


def test_passwords_never_appear_in_messages(tmp_path: Path) -> None:
    secret_url = "postgresql://memex:hunter2@db.example:5432/memex"
    assert redact(secret_url) == "postgresql://memex:***@db.example:5432/memex"
    location = resolve_location(tmp_path, {"url": secret_url}, {})
    assert "hunter2" not in location.describe()
    with pytest.raises(PgvectorConfigError) as caught:
        resolve_location(tmp_path, {"url": "mysql://memex:hunter2@db/x"}, {})
    assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("table", "Memex-Vectors"),
        ("table", "x; DROP TABLE fragments"),
        ("ef_search", 0),
        ("ef_search", 1001),
        ("ef_search", True),
        ("m", "16"),
        ("timeout", 0),
        ("connect_timeout", "fast"),
    ],
)
def test_bad_settings_are_refused_with_the_fix(key: str, value: object) -> None:
    with pytest.raises(PgvectorConfigError, match=rf"\[vector.pgvector\] {key}.*default"):
        read_settings({key: value})


def test_settings_defaults() -> None:
    settings = read_settings({})
    assert (settings.table, settings.ef_search) == ("memex_vectors", DEFAULT_EF_SEARCH)


def test_registered_as_the_pgvector_vector_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memex_core.plugins import load_registry

    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "pgvector")  # through the entry point, alone
    registry = load_registry()
    registration = registry.get("vector_store", "pgvector")
    assert registration.available
    assert registration.requires == ("psycopg", "pgvector")
    assert registration.extra == "postgres"
    # A server that does not exist: building the store must not connect.
    context = PluginContext(home=tmp_path, settings={"url": "postgresql://x@127.0.0.1:1/none"})
    store = registry.build("vector_store", "pgvector", context)
    assert isinstance(store, PgvectorStore)
    assert store._conn is None


# -- against a real PostgreSQL with pgvector ----------------------------------------------


def open_store(url: str, **settings: Any) -> PgvectorStore:
    return PgvectorStore(PgvectorLocation(url, "from the test"), read_settings(settings))


@pytest.fixture
def store(pgvector_url: str) -> Iterator[PgvectorStore]:
    with open_store(pgvector_url) as opened:
        yield opened


def sql(url: str, query: str, *params: Any) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, params or None).fetchall()


def test_the_table_has_a_cosine_hnsw_index_and_records_what_built_it(pgvector_url: str) -> None:
    with open_store(pgvector_url, table="team_vectors", m=8, ef_construction=32) as store:
        store.embedder_name = "minilm"
        store.upsert([make_fragment(0)], unit_vectors(1))
        indexes = dict(
            sql(
                pgvector_url,
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s",
                "team_vectors",
            )
        )
    hnsw = indexes["team_vectors_hnsw"]
    assert "USING hnsw (embedding vector_cosine_ops)" in hnsw
    assert "m='8'" in hnsw and "ef_construction='32'" in hnsw
    assert {"team_vectors_scope", "team_vectors_conversation", "team_vectors_time"} <= set(indexes)
    recorded = sql(pgvector_url, f"SELECT name, dimension, embedder, m FROM {META_TABLE}")
    assert recorded == [("team_vectors", 16, "minilm", 8)]


def test_two_tables_are_two_indexes(pgvector_url: str) -> None:
    with open_store(pgvector_url) as first, open_store(pgvector_url, table="other") as second:
        first.upsert([make_fragment(0)], unit_vectors(1))
        second.upsert([make_fragment(1), make_fragment(2)], unit_vectors(2, dim=8))
        assert (first.count(), second.count()) == (1, 2)
        assert (first.stored_embedding(), second.stored_embedding()) == ((None, 16), (None, 8))
        second.clear()
        assert (first.count(), second.count()) == (1, 0)


def test_each_connection_searches_with_the_configured_breadth(pgvector_url: str) -> None:
    with open_store(pgvector_url, ef_search=77) as store:
        store.prepare()
        assert store._conn is not None
        assert store._conn.execute("SHOW hnsw.ef_search").fetchone() == ("77",)


def explain(store: PgvectorStore, vector: np.ndarray, filters: SearchFilters) -> str:
    from memex_pgvector.filters import where_clause

    where, params = where_clause(filters)
    assert store._conn is not None
    rows = store._conn.execute(
        f"EXPLAIN SELECT id, embedding <=> %b AS distance FROM {store.table} "
        f"WHERE {where} ORDER BY distance LIMIT 10",
        [vector, *params],
    ).fetchall()
    return "\n".join(row[0] for row in rows)


def test_the_hnsw_index_answers_and_a_filter_it_misses_is_asked_exactly(
    pgvector_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 3,000 vectors the planner takes the HNSW index (after settle's ANALYZE); with
    ef_search 10 and a filter that 3 vectors far from the query pass, the index returns
    none of them, and the store re-asks without it: all 3 come back, best first."""
    count = 3000
    vectors = unit_vectors(count, seed=5)
    rare = {11, 1500, 2999}
    fragments = [
        make_fragment(i, conversation_id="rare" if i in rare else "common") for i in range(count)
    ]
    with open_store(pgvector_url, ef_search=10) as store:
        store.upsert(fragments, vectors)
        store.settle()
        query = -vectors[sorted(rare)].mean(axis=0)
        query /= np.linalg.norm(query)
        assert "Index Scan using memex_vectors_hnsw" in explain(store, query, SearchFilters())

        statements: list[str] = []
        conn = store._conn
        assert conn is not None
        real_execute = conn.execute

        def spy(query_text: Any, *args: Any, **kwargs: Any) -> Any:
            statements.append(str(query_text))
            return real_execute(query_text, *args, **kwargs)

        monkeypatch.setattr(conn, "execute", spy)
        filters = SearchFilters(conversation_ids=("rare",), roles=("user",))
        hits = store.search(query, 10, filters)

    allowed = sorted(rare)
    expected = expected_ranking(query, vectors[allowed], [fragments[i] for i in allowed])
    assert [h.id for h in hits] == [fid for fid, _ in expected]
    assert any("enable_indexscan = off" in s for s in statements)  # the exact re-ask ran


def hnsw_exists(url: str, table: str = "memex_vectors") -> bool:
    return sql(url, "SELECT to_regclass(%s) IS NOT NULL", f"{table}_hnsw") == [(True,)]


def test_a_bulk_first_write_builds_the_hnsw_index_after_the_load(pgvector_url: str) -> None:
    """A table made by a bulk write (a backfill, a rebuild) gets its HNSW index from
    settle, built once over everything (faster than inserting into it row by row); until
    then searches scan exactly, so they are right all along. A bulk write cut off before
    its settle leaves the index to the next settle, even one with nothing to write."""
    count = 600
    vectors = unit_vectors(count, seed=2)
    fragments = [make_fragment(i) for i in range(count)]
    with open_store(pgvector_url) as store:
        store.upsert(fragments, vectors)
        assert not hnsw_exists(pgvector_url)
        query = unit_vectors(1, seed=77)[0]
        expected = [fid for fid, _ in expected_ranking(query, vectors, fragments)[:10]]
        assert [h.id for h in store.search(query, 10, SearchFilters())] == expected
    with open_store(pgvector_url) as later:  # another process, nothing written
        assert later.settle() == 0
        assert hnsw_exists(pgvector_url)
        assert [h.id for h in later.search(query, 10, SearchFilters())] == expected
        assert "Index Scan using memex_vectors_hnsw" in explain(later, query, SearchFilters())


def test_a_small_first_write_makes_the_hnsw_index_at_once(
    store: PgvectorStore, pgvector_url: str
) -> None:
    store.upsert([make_fragment(0)], unit_vectors(1))  # a memory write: no settle follows
    assert hnsw_exists(pgvector_url)


def test_a_limit_above_ef_search_still_gets_limit_hits(pgvector_url: str) -> None:
    count = 600
    vectors = unit_vectors(count, seed=8)
    fragments = [make_fragment(i) for i in range(count)]
    with open_store(pgvector_url, ef_search=20) as store:
        store.upsert(fragments, vectors)
        store.settle()
        hits = store.search(vectors[0], 150, SearchFilters())
    assert len(hits) == 150
    assert hits[0].id == "frag-0000"
    assert len({h.id for h in hits}) == 150


def test_settle_refreshes_statistics_only_after_writes(store: PgvectorStore) -> None:
    assert store.settle() == 0  # nothing written: nothing to do (and no table needed)
    store.upsert([make_fragment(i) for i in range(5)], unit_vectors(5))
    assert store.settle() == 0
    assert store._conn is not None
    analyzed = store._conn.execute(
        "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'memex_vectors'"
    ).fetchone()
    assert analyzed == (True,)


def test_two_processes_creating_the_table_at_once_both_succeed(pgvector_url: str) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def writer(offset: int) -> None:
        try:
            with open_store(pgvector_url) as store:
                start.wait()
                store.upsert(
                    [make_fragment(offset + i) for i in range(20)], unit_vectors(20, seed=offset)
                )
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n * 100,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    with open_store(pgvector_url) as store:
        assert store.count() == 80


def test_vectors_round_trip_bit_for_bit(store: PgvectorStore, pgvector_url: str) -> None:
    """float32 in, float32 stored (pgvector's own type): no precision lost on the way."""
    vectors = unit_vectors(3, dim=384, seed=4)
    store.upsert([make_fragment(i) for i in range(3)], vectors)
    rows = sql(pgvector_url, "SELECT id, embedding::text FROM memex_vectors ORDER BY id")
    stored = np.array([[float(x) for x in text.strip("[]").split(",")] for _, text in rows])
    assert np.array_equal(stored.astype(np.float32), vectors)


# -- a PostgreSQL without the extension ----------------------------------------------------


def test_a_server_without_pgvector_reads_empty_and_says_how_to_install_it(
    postgres_server: Any,
) -> None:
    from tests.support.postgres_server import find_postgres_bin

    bin_dir = find_postgres_bin()
    share = Path("/usr/share/postgresql") / bin_dir.parent.name if bin_dir else None
    if share is None or (share / "extension" / "vector.control").exists():
        pytest.skip("the plain PostgreSQL here has pgvector installed")
    url = postgres_server.create_database()
    with open_store(url) as store:
        assert store.count() == 0
        assert store.search(unit_vectors(1)[0], 5, SearchFilters()) == []
        with pytest.raises(PgvectorConfigError, match="postgresql-NN-pgvector"):
            store.upsert([make_fragment(0)], unit_vectors(1))
        assert store.count() == 0  # nothing half-made
