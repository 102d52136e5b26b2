"""The SQL escape hatch cannot write, attach, change pragmas, load extensions, change role or
run two statements: every attack is refused with memex's own error and the catalog, and the
home's files, stay exactly as they were. Every case runs on both catalogs (SQLite, and
PostgreSQL when its server binaries are here), plus attacks that only PostgreSQL knows.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from memex_core.api import Memex
from memex_core.cli import cli
from memex_core.errors import MemexError, ReadOnlyQueryError
from tests.support.catalog_fixtures import ENGINES, home_memex, use_catalog
from tests.support.component_doubles import fast_memex
from tests.support.hostile_builders import examples, tally, write_tallies

FAMILY = "sql"

#: Statements that must be refused; ``{out}`` is a path a write would create.
ATTACKS = [
    "INSERT INTO fragments (id) VALUES ('x')",
    "UPDATE fragments SET content = 'pwned'",
    "DELETE FROM fragments",
    "REPLACE INTO settings VALUES ('k', 'v')",
    "DROP TABLE fragments",
    "DROP INDEX IF EXISTS fragments_conversation",
    "ALTER TABLE fragments ADD COLUMN pwned TEXT",
    "ALTER TABLE fragments RENAME TO gone",
    "CREATE TABLE pwned (x)",
    "CREATE TEMP TABLE pwned (x)",
    "CREATE TEMP VIEW v AS SELECT 1",
    "CREATE INDEX pwned ON fragments(role)",
    "CREATE TRIGGER t AFTER INSERT ON fragments BEGIN DELETE FROM fragments; END",
    "CREATE VIRTUAL TABLE v USING fts5(x)",
    "ATTACH DATABASE '{out}' AS evil",
    "ATTACH '{out}' AS evil",
    "DETACH DATABASE main",
    "VACUUM",
    "VACUUM INTO '{out}'",
    "VACUUM main INTO '{out}'",
    "REINDEX fragments",
    "ANALYZE",
    "PRAGMA journal_mode=DELETE",
    "PRAGMA query_only=0",
    "PRAGMA writable_schema=1",
    "PRAGMA user_version=99",
    "PRAGMA foreign_keys=OFF",
    "PRAGMA table_info(fragments)",
    "SELECT * FROM pragma_table_info('fragments')",
    "BEGIN",
    "BEGIN IMMEDIATE",
    "COMMIT",
    "SAVEPOINT s",
    "RELEASE s",
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT load_extension('libc.so.6', 'system')",
    "SELECT fts3_tokenizer('simple')",
    "SELECT 1; DELETE FROM fragments",
    "SELECT 1; ATTACH '{out}' AS evil",
    "SELECT 1;\nDROP TABLE fragments;",
    "WITH gone AS (SELECT 1) DELETE FROM fragments",
    "WITH x AS (SELECT 1) INSERT INTO settings SELECT 'k', 'v' FROM x",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
    "UPDATE fragments SET role = 'x'",
    "INSERT INTO fragments SELECT * FROM fragments",
    "UPDATE fragments SET content = (SELECT 'x') WHERE id IN (SELECT id FROM fragments)",
    "DELETE FROM fragments RETURNING id",
    "INSERT OR REPLACE INTO settings VALUES ('k', 'v') RETURNING *",
]


#: What only PostgreSQL could be asked: role changes, server files, COPY, procedural code,
#: locks and sleeps that outlive the query, sequences, session state.
POSTGRES_ATTACKS = [
    "SET ROLE memex",
    "RESET ROLE",
    "SET SESSION AUTHORIZATION memex",
    "SET default_transaction_read_only = off",
    "SELECT set_config('role', 'memex', false)",
    "SELECT set_config('role', 'memex', true), count(*) FROM fragments",
    "SELECT pg_catalog.set_config('transaction_read_only', 'off', true)",
    "SELECT \"set_config\"('role', 'memex', true)",
    "SELECT x FROM (SELECT set_config('role', 'memex', true) AS x) AS s",
    "WITH r AS (SELECT set_config('role', 'memex', true)) SELECT * FROM r",
    "VALUES (set_config('session_authorization', 'memex', false))",
    "SELECT pg_advisory_lock(1)",
    "SELECT pg_try_advisory_lock(7)",
    "SELECT pg_sleep(30)",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_ls_dir('.')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT lo_export(1, '{out}')",
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
    "SELECT pg_notify('memex_changes', '999')",
    "SELECT nextval('fragments_seq_seq')",
    "SELECT setval('fragment_changes_seq_seq', 1)",
    "SELECT * FROM pg_authid",
    "TABLE pg_authid",
    "SELECT * INTO evil FROM fragments",
    "SELECT * FROM fragments FOR UPDATE",
    "WITH gone AS (DELETE FROM fragments RETURNING id) SELECT count(*) FROM gone",
    "WITH t AS (UPDATE settings SET value = 'x' RETURNING key) SELECT * FROM t",
    "COPY fragments TO '{out}'",
    "COPY fragments TO PROGRAM 'touch {out}'",
    "COPY (SELECT 1) TO STDOUT",
    "DO $$ BEGIN DELETE FROM fragments; END $$",
    "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    "PREPARE p AS DELETE FROM fragments",
    "EXPLAIN ANALYZE DELETE FROM fragments",
    "TRUNCATE fragments",
    "GRANT ALL ON fragments TO PUBLIC",
    "ALTER ROLE memex_reader SUPERUSER",
    "LISTEN memex_changes",
    "NOTIFY memex_changes",
    "CALL nothing()",
    "/* comment */ DELETE FROM fragments",
    "-- a comment\nDELETE FROM fragments",
    "(SELECT 1); DELETE FROM fragments",
    "SELECT 1 /* ; */ ; DELETE FROM fragments",
]


@pytest.fixture(autouse=True, scope="module")
def _write_tallies() -> Iterator[None]:
    yield
    write_tallies()


@pytest.fixture(scope="module", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def catalog_url(engine: str, request: pytest.FixtureRequest) -> str | None:
    """None for SQLite (the file in the home); a database of its own on PostgreSQL."""
    if engine == "sqlite":
        return None
    server = request.getfixturevalue("postgres_server")
    return str(server.create_database("hostile_sql"))


@pytest.fixture(scope="module")
def home(
    engine: str, catalog_url: str | None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    home = tmp_path_factory.mktemp(f"sql-home-{engine}")
    use_catalog(home, engine, catalog_url or "")
    mx = home_memex(home)
    fixtures = Path(__file__).parents[1] / "fixtures"
    mx.ingest(fixtures / "chatgpt" / "conversations.json", embed=False)
    mx.close()
    yield home


def database_digest(url: str) -> dict[str, str]:
    """Every table's rows, and the schema (columns, triggers, roles), by digest."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() ORDER BY 1"
            )
        ]
        digest = {
            f"table:{t}": str(
                conn.execute(
                    f"SELECT md5(COALESCE(string_agg(t::text, '|' ORDER BY t::text), '')) "
                    f'FROM "{t}" AS t'
                ).fetchone()
            )
            for t in tables
        }
        for name, sql in {
            "columns": "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY 1, 2",
            "triggers": "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1",
            "functions": "SELECT proname FROM pg_proc p JOIN pg_namespace n "
            "ON n.oid = p.pronamespace WHERE n.nspname = current_schema() ORDER BY 1",
            "roles": "SELECT rolname, rolsuper, rolcanlogin FROM pg_roles ORDER BY 1",
            "sequences": "SELECT sequencename, last_value FROM pg_sequences ORDER BY 1",
            "locks": "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'",
        }.items():
            digest[name] = str(conn.execute(sql).fetchall())
        return digest


def fingerprint(home: Path) -> dict[str, str]:
    """Every file of the home (the catalog, its WAL, the indexes) by content digest, and on
    PostgreSQL every table, column, trigger, role and sequence of the catalog's database."""
    found = {
        str(path.relative_to(home)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(home.rglob("*"))
        if path.is_file() and not path.name.endswith("-shm")  # SQLite's shared-memory index
    }
    config = home / "config.toml"
    if config.exists() and "postgres" in config.read_text(encoding="utf-8"):
        url = config.read_text(encoding="utf-8").split('url = "', 1)[1].split('"', 1)[0]
        found.update(database_digest(url))
    return found


@pytest.fixture(scope="module")
def mx(home: Path) -> Iterator[Memex]:
    memex = home_memex(home)
    memex.query("SELECT 1")  # open the catalog (migrations, WAL) before the fingerprint
    yield memex
    memex.close()


@pytest.mark.parametrize("statement", ATTACKS + POSTGRES_ATTACKS)
def test_attack_is_refused_and_changes_nothing(
    mx: Memex, home: Path, tmp_path: Path, statement: str
) -> None:
    tally(FAMILY)
    out = tmp_path / "stolen.sqlite"
    tmp_path.chmod(0o777)  # a server running as another user could write here
    before = fingerprint(home)
    count = mx.query("SELECT COUNT(*) FROM fragments")[1]
    with pytest.raises(MemexError) as caught:
        mx.query(statement.format(out=out))
    assert "Traceback" not in str(caught.value)
    assert fingerprint(home) == before
    assert mx.query("SELECT COUNT(*) FROM fragments")[1] == count
    assert not out.exists()


@pytest.mark.parametrize(
    "statement",
    [
        "DELETE FROM fragments",
        "ATTACH '{out}' AS evil",
        "PRAGMA query_only=0",
        "VACUUM INTO '{out}'",
        "SELECT load_extension('x')",
        "SELECT 1; SELECT 2",
    ],
)
def test_refusals_say_so(mx: Memex, tmp_path: Path, statement: str) -> None:
    tally(FAMILY)
    with pytest.raises(ReadOnlyQueryError, match="only reads the catalog"):
        mx.query(statement.format(out=tmp_path / "x.sqlite"))


@pytest.mark.parametrize(
    "statement",
    [
        "SET ROLE memex",
        "SELECT set_config('role', 'memex', true)",
        "WITH x AS (DELETE FROM fragments RETURNING 1) SELECT * FROM x",
        "SELECT * FROM pg_authid",
    ],
)
def test_postgres_refusals_say_so(mx: Memex, engine: str, statement: str) -> None:
    """Role changes, writes hidden in a query and tables outside the catalog, refused as such
    (SQLite has no roles: there these are plain SQL errors, covered above)."""
    if engine != "postgres":
        pytest.skip("PostgreSQL's own statements")
    tally(FAMILY)
    with pytest.raises(ReadOnlyQueryError, match="only reads the catalog"):
        mx.query(statement)


def test_reading_still_works(mx: Memex) -> None:
    tally(FAMILY, 3)
    columns, rows = mx.query("SELECT role, COUNT(*) AS n FROM fragments GROUP BY role")
    assert columns == ["role", "n"] and rows
    recursive = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) "
    assert mx.query(recursive + "SELECT SUM(n) FROM r")[1] == [(15,)]
    tables = (
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'fragments'"
        if mx.catalog.engine == "SQLite"
        else "SELECT table_name FROM information_schema.tables WHERE table_name = 'fragments'"
    )
    assert mx.query(tables)[1] == [("fragments",)]


def test_a_home_path_with_uri_characters_is_still_read_only(tmp_path: Path, engine: str) -> None:
    if engine != "sqlite":
        pytest.skip("a path in a file: URI is SQLite's alone")
    tally(FAMILY)
    home = tmp_path / "odd?mode=rwc#x"
    mx = fast_memex(home)
    try:
        mx.ingest(
            Path(__file__).parents[1] / "fixtures" / "chatgpt" / "conversations.json", embed=False
        )
        with pytest.raises(ReadOnlyQueryError):
            mx.query("DELETE FROM fragments")
        assert mx.query("SELECT COUNT(*) FROM fragments")[1][0][0] > 0
    finally:
        mx.close()


def test_cli_refuses_without_a_traceback(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tally(FAMILY, 2)
    monkeypatch.setattr("memex_core.cli.opening.Memex", lambda home=None: home_memex(Path(home)))
    before = fingerprint(home)
    runner = CliRunner()
    for statement in ("DROP TABLE fragments", f"VACUUM INTO '{tmp_path / 'x.sqlite'}'"):
        result = runner.invoke(cli, ["--home", str(home), "query", statement])
        assert result.exit_code != 0
        assert "Traceback" not in result.output and "only reads the catalog" in result.output
    assert fingerprint(home) == before


_keywords = st.sampled_from(
    [
        "SELECT",
        "INSERT",
        "UPDATE",
        "DELETE",
        "DROP",
        "ATTACH",
        "DETACH",
        "PRAGMA",
        "VACUUM",
        "INTO",
        "WITH",
        "RECURSIVE",
        "AS",
        "CREATE",
        "TEMP",
        "TABLE",
        "TRIGGER",
        "BEGIN",
        "COMMIT",
        ";",
        "(",
        ")",
        ",",
        "*",
        "=",
        "'x'",
        "fragments",
        "settings",
        "main",
        "load_extension",
        "fts3_tokenizer",
        "VALUES",
        "SET",
        "FROM",
        "WHERE",
        "RETURNING",
        "REPLACE",
        "ALTER",
    ]
)


@examples(150)
@given(words=st.lists(_keywords, min_size=1, max_size=12), tail=st.text(max_size=10))
def test_random_statements_never_write(mx: Memex, home: Path, words: list[str], tail: str) -> None:
    """Keyword soup: whatever parses, the catalog is unchanged and errors are memex's."""
    tally(FAMILY)
    before = fingerprint(home)
    with contextlib.suppress(MemexError):
        mx.query(" ".join(words) + tail)
    assert fingerprint(home) == before
