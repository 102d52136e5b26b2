"""What is PostgreSQL's own in the catalog: its settings and their errors, a server that is
down, stopped or restarted under a write, the change notifications, the writer lock, and the
read-only role. (What every engine does is the contract suite, tests/test_catalog_contract*.)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memex_core.api import Memex
from memex_core.catalog.faults import CatalogUnavailableError
from memex_core.config import Config
from memex_core.domain import Fragment, Provenance
from memex_core.errors import MemexError
from memex_core.plugins import PluginUnavailable, load_registry
from tests.support.postgres_server import PostgresServer, find_postgres_bin, missing_reason

psycopg = pytest.importorskip("psycopg")

from memex_postgres.catalog import PostgresCatalog  # noqa: E402
from memex_postgres.connection import WRITER_LOCK_KEY  # noqa: E402
from memex_postgres.read_only import READER_ROLE  # noqa: E402
from memex_postgres.schema import CHANGES_CHANNEL  # noqa: E402
from memex_postgres.settings import postgres_settings  # noqa: E402


def fragment(fid: str) -> Fragment:
    return Fragment(
        id=fid,
        conversation_id="c",
        role="user",
        content=f"text {fid}",
        provenance=Provenance("test", "/f", fid, "0", 1.0),
        timestamp=1.0,
    )


def add(catalog: PostgresCatalog, *ids: str, path: str = "/f") -> list[Fragment]:
    run = catalog.start_run("test")
    return catalog.add_file(
        run_id=run,
        path=path,
        sha256=",".join(ids),
        size=1,
        source_kind="test",
        fragments=[fragment(i) for i in ids],
    )


@pytest.fixture
def catalog(postgres_url: str) -> Iterator[PostgresCatalog]:
    handle = PostgresCatalog(postgres_url)
    handle.migrate()
    yield handle
    handle.close()


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A server this test may stop and start (never the session's shared one)."""
    bin_dir = find_postgres_bin()
    if bin_dir is None:
        pytest.skip(missing_reason())
    server = PostgresServer(bin_dir).start()  # its own /tmp folder, which the server user owns
    try:
        yield server
    finally:
        server.destroy()


# -- settings ------------------------------------------------------------------------------


def test_the_url_comes_from_the_table_or_the_variable() -> None:
    table = {"url": "postgresql://memex@db:5432/memex", "pool_size": 3, "connect_timeout": 2}
    assert postgres_settings(table, {}).url == "postgresql://memex@db:5432/memex"
    assert postgres_settings(table, {}).pool_size == 3
    env = {"MEMEX_CATALOG_URL": "postgres://other@db2/m2"}
    assert postgres_settings(table, env).url == "postgres://other@db2/m2"


@pytest.mark.parametrize(
    ("table", "env", "message"),
    [
        ({}, {}, r"needs its server: add \[catalog.postgres\] url"),
        ({"url": "mysql://u:pw@h/db"}, {}, "is not a PostgreSQL URL"),
        ({"url": 5}, {}, "is not a PostgreSQL URL"),
        ({}, {"MEMEX_CATALOG_URL": "postgresql://u:hunter2@h:5432"}, "names no database"),
        ({"url": "postgresql://h/db", "pool_size": 0}, {}, "pool_size = 0 must be a positive"),
        ({"url": "postgresql://h/db", "connect_timeout": "x"}, {}, "connect_timeout"),
    ],
)
def test_bad_settings_say_which_and_how_to_fix(
    table: dict[str, Any], env: dict[str, str], message: str
) -> None:
    with pytest.raises(MemexError, match=message) as caught:
        postgres_settings(table, env)
    assert "hunter2" not in str(caught.value) and "pw@" not in str(caught.value)


def test_a_missing_psycopg_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memex_core.plugins._module_missing", lambda module: module == "psycopg")
    config = Config(
        home=tmp_path,
        components={"catalog": "postgres"},
        raw={"catalog": {"postgres": {"url": "postgresql://memex@127.0.0.1:1/x"}}},
    )
    mx = Memex(registry=load_registry(), config=config)
    with pytest.raises(PluginUnavailable, match=r"pip install 'memex\[postgres\]'"):
        _ = mx.catalog


def test_an_unreachable_server_is_told_by_name_without_the_password() -> None:
    url = "postgresql://memex:hunter2@127.0.0.1:1/memex"  # nothing listens on port 1
    started = time.monotonic()
    with pytest.raises(CatalogUnavailableError) as caught:
        PostgresCatalog(url, connect_timeout=2)
    message = str(caught.value)
    assert "127.0.0.1:1/memex" in message and "hunter2" not in message
    assert "MEMEX_CATALOG_URL" in message and "running" in message
    assert time.monotonic() - started < 10


def test_a_missing_database_is_told_by_name(postgres_server: PostgresServer) -> None:
    with pytest.raises(CatalogUnavailableError, match="does not exist"):
        PostgresCatalog(postgres_server.url("no_such_database"), connect_timeout=2)


# -- a server that goes away --------------------------------------------------------------


def test_a_write_cut_by_a_stop_fails_whole_and_works_once_the_server_is_back(
    own_server: PostgresServer,
) -> None:
    url = own_server.create_database("faults").replace("memex@", "memex:hunter2@")
    catalog = PostgresCatalog(url, connect_timeout=3)
    try:
        catalog.migrate()
        add(catalog, "kept")
        with pytest.raises(CatalogUnavailableError) as caught, catalog.transaction() as db:
            db.execute("DELETE FROM fragments WHERE id = ?", ("kept",))
            own_server.stop("fast")  # terminates our session mid-transaction
            db.execute("DELETE FROM fragments")
        message = str(caught.value)
        assert f"127.0.0.1:{own_server.port}/faults" in message and "hunter2" not in message
        assert "rolled back" in message and "run the command again" in message

        with pytest.raises(CatalogUnavailableError, match=r"Cannot connect|Lost the connection"):
            catalog.count_fragments()  # down: a clean error, not a hang
        own_server.start()
        assert catalog.all_ids() == {"kept"}  # nothing half-done; a fresh connection serves
        assert add(catalog, "new")  # and writes go on
        last, ids = catalog.fragment_changes_since(1)
        assert ids == ["new"] and last > 1  # a rolled-back write may leave a gap, no entry
    finally:
        catalog.close()


def test_an_idle_pool_survives_a_restart(own_server: PostgresServer) -> None:
    catalog = PostgresCatalog(own_server.create_database("restart"), connect_timeout=3)
    try:
        catalog.migrate()
        add(catalog, "a")
        own_server.restart("immediate")  # a crash, as far as the database is concerned
        assert catalog.count_fragments() == 1  # the broken connection was replaced
        assert add(catalog, "b")
    finally:
        catalog.close()


# -- change notifications and the writer lock ---------------------------------------------


def test_a_commit_notifies_once_with_the_newest_entry(
    catalog: PostgresCatalog, postgres_url: str
) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANGES_CHANNEL}")
        add(catalog, "a", "b", "c")
        catalog.set_setting("unrelated", "x")  # no journal entry: no notification
        with catalog.transaction() as db:
            db.execute("DELETE FROM fragments WHERE id = ?", ("a",))
        with pytest.raises(RuntimeError), catalog.transaction() as db:
            db.execute("DELETE FROM fragments")
            raise RuntimeError("rolled back: never announced")
        got = [n.payload for n in listener.notifies(timeout=1.0, stop_after=10)]
    assert got == ["3", "4"]


def test_writers_commit_one_at_a_time(catalog: PostgresCatalog, postgres_url: str) -> None:
    """A transaction waits for another's writer lock, so journal numbers follow commit order."""
    other = PostgresCatalog(postgres_url)
    entered, release = threading.Event(), threading.Event()
    order: list[str] = []

    def slow_writer() -> None:
        with catalog.transaction() as db:
            entered.set()
            release.wait(5)
            db.execute("DELETE FROM settings WHERE key = 'none'")
            order.append("first")

    thread = threading.Thread(target=slow_writer)
    thread.start()
    try:
        assert entered.wait(5)
        with psycopg.connect(postgres_url, autocommit=True) as probe:
            held = probe.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND objid = (%s::bigint & 4294967295)::oid",
                (WRITER_LOCK_KEY,),
            ).fetchone()
        assert held == (1,)

        def second_writer() -> None:
            add(other, "x")
            order.append("second")

        waiter = threading.Thread(target=second_writer)
        waiter.start()
        # Until the second writer waits on the advisory lock, 'order == []' proves nothing.
        waiting = (0,)
        deadline = time.monotonic() + 10
        with psycopg.connect(postgres_url, autocommit=True) as probe:
            while waiting != (1,) and time.monotonic() < deadline:
                waiting = probe.execute(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                    "AND objid = (%s::bigint & 4294967295)::oid",
                    (WRITER_LOCK_KEY,),
                ).fetchone()
                time.sleep(0.02)
        assert waiting == (1,)
        assert order == []  # the second writer waits for the first
        release.set()
        waiter.join(10)
        thread.join(10)
        assert order == ["first", "second"]
    finally:
        release.set()
        thread.join(10)
        other.close()


def test_one_thread_cannot_nest_transactions(catalog: PostgresCatalog) -> None:
    with catalog.transaction(), pytest.raises(RuntimeError, match="already open"):
        catalog.transaction().__enter__()


def test_threads_write_at_once_without_mixing_their_transactions(
    catalog: PostgresCatalog,
) -> None:
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(5):
                add(catalog, f"t{n}-{i}", path=f"/t{n}-{i}")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert catalog.count_fragments() == 20
    last, ids = catalog.fragment_changes_since(0)
    assert last == 20 and len(ids) == 20


# -- the read-only role ---------------------------------------------------------------------


def test_read_only_sql_runs_as_the_reader_role(catalog: PostgresCatalog) -> None:
    assert catalog.query("SELECT current_user")[1] == [(READER_ROLE,)]
    assert catalog.query("SELECT count(*) FROM agent_keys")[1] == [(0,)]


def test_text_with_nul_is_stored_with_a_replacement_character(catalog: PostgresCatalog) -> None:
    run = catalog.start_run("t")
    odd = Fragment(
        id="nul",
        conversation_id="c",
        role="user",
        content="before\x00after",
        provenance=Provenance("test", "/n", "nul", "0", 1.0),
        timestamp=1.0,
    )
    catalog.add_file(run_id=run, path="/n", sha256="1", size=1, source_kind="test", fragments=[odd])
    assert catalog.get_many(["nul"])["nul"].content == "before\ufffdafter"


def test_a_user_that_may_not_create_roles_is_told_once_and_still_only_reads(
    postgres_server: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reader role is the one lock that needs a right the URL's user may lack."""
    user = f"plain_{time.monotonic_ns()}"
    postgres_server.execute(f'CREATE ROLE "{user}" LOGIN')
    postgres_server.execute(f'CREATE DATABASE "{user}" OWNER "{user}"')
    try:
        catalog = PostgresCatalog(postgres_server.url(user).replace("memex@", f"{user}@"))
        try:
            catalog.migrate()
            add(catalog, "a")
            assert catalog.query("SELECT current_user")[1] == [(user,)]
            catalog.query("SELECT 1")
            told = capsys.readouterr().err
            assert told.count(f"may not create the role {READER_ROLE}") == 1
            with pytest.raises(MemexError, match="only reads the catalog"):
                catalog.query("WITH x AS (DELETE FROM fragments RETURNING 1) SELECT * FROM x")
            assert catalog.count_fragments() == 1
        finally:
            catalog.close()
    finally:
        postgres_server.drop_database(user)
        postgres_server.execute(f'DROP ROLE IF EXISTS "{user}"')


def test_a_missing_table_or_trigger_is_damage_the_doctor_sees(
    catalog: PostgresCatalog, postgres_url: str, tmp_path: Path
) -> None:
    assert catalog.quick_check() == ["ok"]
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER fragments_added ON fragments")
    assert catalog.quick_check() == ["trigger fragments_added on fragments is missing"]
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[catalog]\nuse = "postgres"\n[catalog.postgres]\nurl = "{postgres_url}"\n',
        encoding="utf-8",
    )
    from tests.support.catalog_fixtures import home_memex

    mx = home_memex(home)
    try:
        report = mx.doctor()
        damaged = [f for f in report.final.findings if f.code == "catalog.damaged"]
        assert damaged and "PostgreSQL" in damaged[0].summary and not report.healthy
    finally:
        mx.close()
