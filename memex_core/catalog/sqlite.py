"""The SQLite catalog: the embedded default, one file (``catalog.sqlite``) in the home.

WAL mode lets readers work while one writer (serialised by :class:`WriteLock`)
commits. Everything engine-neutral is :class:`~memex_core.catalog.base.SqlCatalog`;
this module holds what is SQLite's own: the connection, ``BEGIN IMMEDIATE``, the
migration runner, the journal counter (``sqlite_sequence``), ``PRAGMA quick_check``
and the read-only SQL connection.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any, NoReturn

from memex_core.catalog.base import SqlCatalog
from memex_core.catalog.dbapi import Dialect
from memex_core.catalog.faults import from_os_error, from_sqlite_error
from memex_core.catalog.read_only import connect_read_only, run_query
from memex_core.catalog.schema import MIGRATIONS
from memex_core.errors import MemexError


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (semicolons in comments are fine)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements


class _Connection(sqlite3.Connection):
    """A connection whose storage failures (disk full, read-only home) say what to do.

    The errors raised are still ``sqlite3.OperationalError`` subclasses.
    """

    database_path: Path

    def execute(self, *args: Any) -> sqlite3.Cursor:
        try:
            return super().execute(*args)
        except sqlite3.OperationalError as exc:
            self._raise_translated(exc)

    def executemany(self, *args: Any) -> sqlite3.Cursor:
        try:
            return super().executemany(*args)
        except sqlite3.OperationalError as exc:
            self._raise_translated(exc)

    def _raise_translated(self, exc: sqlite3.OperationalError) -> NoReturn:
        """Raise the storage error ``exc`` means, or ``exc`` itself when it means none."""
        translated = from_sqlite_error(exc, self.database_path)
        if translated is None:
            raise exc
        raise translated from exc


class SqliteDialect(Dialect):
    """SQLite's: ``json_extract``, the implicit ``rowid``, ``sqlite3.IntegrityError``."""

    integrity_errors = (sqlite3.IntegrityError,)


class SqliteCatalog(SqlCatalog):
    """Typed access to ``catalog.sqlite``. Writers must hold the home's WriteLock."""

    migrations = MIGRATIONS
    engine = "SQLite"
    dialect = SqliteDialect()
    #: Concurrent searches may read through the one connection (and append their access-log
    #: lines) when the sqlite3 module serialises its use (threadsafety 3, the usual
    #: build); writes run alone all the same (memex_core.threads).
    concurrent_reads = sqlite3.threadsafety == 3

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            translated = from_os_error(exc, path.parent)
            if translated is None:
                raise
            raise translated from exc
        try:
            db = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, factory=_Connection
            )
            db.database_path = path
            self._db = db
            self._sqlite = db
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=10000")
            db.execute("PRAGMA foreign_keys=ON")
        except MemexError:
            raise
        except sqlite3.DatabaseError as exc:
            raise MemexError(
                f"{path}: cannot open the catalog ({exc}). If the file is damaged, move it "
                "away and re-ingest your sources."
            ) from exc

    @property
    def location(self) -> str:
        return str(self.path)

    # -- schema ---------------------------------------------------------------

    def _table_exists(self, name: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)
        ).fetchone()
        return row is not None

    def migrate(self) -> None:
        """Apply pending migrations (caller holds the write lock). The version is read
        inside the write transaction, so a second migrator finds nothing left to do."""
        with self.transaction():
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
            )
            version = self.schema_version()
            for number, sql in self.migrations:
                if number <= version:
                    continue
                for statement in _statements(sql):
                    self._db.execute(statement)
                self._db.execute("INSERT INTO schema_version VALUES (?, ?)", (number, time.time()))

    def schema_sql(self) -> str:
        rows = self._db.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "ORDER BY type DESC, name"
        ).fetchall()
        return ";\n\n".join(r[0] for r in rows) + ";\n"

    def quick_check(self) -> list[str]:
        """SQLite's ``PRAGMA quick_check``: ``["ok"]`` or the problems it found."""
        try:
            return [str(r[0]) for r in self._db.execute("PRAGMA quick_check")]
        except sqlite3.DatabaseError as exc:
            return [str(exc)]

    # -- transactions -----------------------------------------------------------

    class _Transaction:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
            if exc_type is None:
                self.db.execute("COMMIT")
            elif self.db.in_transaction:
                # SQLite rolls back by itself after some failures (a full disk); a second
                # ROLLBACK would fail and hide the error that matters.
                self.db.execute("ROLLBACK")

    def transaction(self) -> SqliteCatalog._Transaction:
        return SqliteCatalog._Transaction(self._sqlite)

    def erase_freed(self) -> bool:
        """Rewrite ``catalog.sqlite`` (``VACUUM``) so that no free page or free space in a
        page keeps the bytes of a deleted row (a purge's, or an earlier revision's), then
        empty the write-ahead log (``wal_checkpoint(TRUNCATE)``), whose frames hold earlier
        images of the pages. Rowids are kept (every memex table is copied whole). Takes
        time in proportion to the catalog's size; a purge calls it, holding the write lock.
        Answers whether the log was emptied: a reader still inside a read transaction when
        the busy timeout (10 s) runs out keeps it, until a later checkpoint."""
        self._db.execute("VACUUM")
        busy, _, _ = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return not busy

    # -- change journal ---------------------------------------------------------------

    def last_fragment_change(self) -> int:
        """The sequence number of the newest journal entry (0 when there is none): the
        AUTOINCREMENT counter, which pruning never lowers."""
        row = self._db.execute("SELECT seq FROM sqlite_sequence WHERE name='fragment_changes'")
        found = row.fetchone()
        return int(found[0]) if found else 0

    # -- read-only SQL ----------------------------------------------------------------

    def read_only(self) -> sqlite3.Connection:
        """A separate connection that can only read (see :mod:`memex_core.catalog.read_only`)."""
        return connect_read_only(self.path)

    def query(self, sql: str, limit: int | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """One read-only statement; writes, ATTACH, PRAGMA... raise :class:`ReadOnlyQueryError`."""
        return run_query(self.path, sql, limit)

    def close(self) -> None:
        self._sqlite.close()


#: The name every existing import uses.
Catalog = SqliteCatalog
