"""The SQL escape hatch cannot write, attach, change pragmas, load extensions or run two
statements: every attack is refused with memex's own error and the catalog's bytes,
and the home's files, stay exactly as they were.
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
from tests.component_doubles import fast_memex
from tests.hostile_builders import examples, tally, write_tallies

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


@pytest.fixture(autouse=True, scope="module")
def _write_tallies() -> Iterator[None]:
    yield
    write_tallies()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("sql-home")
    mx = fast_memex(home)
    mx.ingest(Path(__file__).parent / "fixtures" / "chatgpt" / "conversations.json", embed=False)
    mx.close()
    yield home


def fingerprint(home: Path) -> dict[str, str]:
    """Every file of the home (the catalog, its WAL, the indexes) by content digest."""
    return {
        str(path.relative_to(home)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(home.rglob("*"))
        if path.is_file() and not path.name.endswith("-shm")  # SQLite's shared-memory index
    }


@pytest.fixture(scope="module")
def mx(home: Path) -> Iterator[Memex]:
    memex = fast_memex(home)
    memex.query("SELECT 1")  # open the catalog (migrations, WAL) before the fingerprint
    yield memex
    memex.close()


@pytest.mark.parametrize("statement", ATTACKS)
def test_attack_is_refused_and_changes_nothing(
    mx: Memex, home: Path, tmp_path: Path, statement: str
) -> None:
    tally(FAMILY)
    out = tmp_path / "stolen.sqlite"
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


def test_reading_still_works(mx: Memex) -> None:
    tally(FAMILY, 3)
    columns, rows = mx.query("SELECT role, COUNT(*) AS n FROM fragments GROUP BY role")
    assert columns == ["role", "n"] and rows
    recursive = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) "
    assert mx.query(recursive + "SELECT SUM(n) FROM r")[1] == [(15,)]
    assert mx.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'fragments'")[
        1
    ] == [("fragments",)]


def test_a_home_path_with_uri_characters_is_still_read_only(tmp_path: Path) -> None:
    tally(FAMILY)
    home = tmp_path / "odd?mode=rwc#x"
    mx = fast_memex(home)
    try:
        mx.ingest(
            Path(__file__).parent / "fixtures" / "chatgpt" / "conversations.json", embed=False
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
    monkeypatch.setattr("memex_core.cli.context.Memex", lambda home=None: fast_memex(Path(home)))
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
