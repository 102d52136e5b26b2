"""The catalog on PostgreSQL: what is the engine's own (connection, migrations, journal counter,
storage check, read-only SQL, a batch's fragments stored by ``COPY``); everything else is
:class:`memex_core.catalog.base.SqlCatalog`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg import sql as pg_sql

from memex_core.catalog.base import PRUNED_SETTING, SqlCatalog
from memex_core.catalog.dbapi import Connection, Dialect
from memex_core.catalog.faults import CatalogUnavailableError
from memex_postgres.bulk import insert_fragments
from memex_postgres.connection import (
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_POOL_SIZE,
    PostgresConnection,
)
from memex_postgres.read_only import READER_ROLE, run_query
from memex_postgres.schema import MIGRATIONS, SCHEMA_VERSION_TABLE, TABLES
from memex_postgres.urls import mask_password

#: Triggers the change journal depends on (table, trigger).
JOURNAL_TRIGGERS = (
    ("fragments", "fragments_added"),
    ("fragments", "fragments_removed"),
    ("fragment_changes", "fragment_changes_notify"),
)


class PostgresDialect(Dialect):
    """PostgreSQL's: ``->>`` on the JSON text, ``memories.seq``, psycopg's IntegrityError."""

    integrity_errors = (psycopg.IntegrityError,)

    def json_text(self, column: str, key: str) -> str:
        return f"({column}::json ->> '{key}')"

    def memory_order(self, alias: str) -> str:
        return f"{alias}.seq"

    def turn_windows(self, windows: Sequence[tuple[str, int]]) -> tuple[str, list[Any]]:
        # The portable join gives the planner no way to read only a window: it hashes the
        # whole table (or reads every row of each conversation by the index), so each
        # batch of an ingest that continues conversations cost the server time in
        # proportion to the table. LATERAL reads each conversation's window alone, and
        # the two branches (not one OR) let both be ranges of the (conversation_id,
        # position) index.
        return (
            "unnest(?::text[], ?::bigint[]) AS wanted(conversation, start) "
            "CROSS JOIN LATERAL ("
            "SELECT * FROM fragments f "
            "WHERE f.conversation_id = wanted.conversation AND f.position >= wanted.start "
            "UNION ALL SELECT * FROM fragments f "
            "WHERE f.conversation_id = wanted.conversation AND f.position IS NULL"
            ") AS fragments",
            [[c for c, _ in windows], [start for _, start in windows]],
        )


class PostgresCatalog(SqlCatalog):
    """The catalog in a PostgreSQL database, shared by every host and replica using it."""

    migrations = MIGRATIONS
    engine = "PostgreSQL"
    dialect = PostgresDialect()
    shared = True

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = DEFAULT_POOL_SIZE,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_S,
    ) -> None:
        self.url = url
        self._conn = PostgresConnection(url, pool_size=pool_size, connect_timeout=connect_timeout)
        self._db = self._conn
        #: The role read-only SQL runs as: unknown (not checked yet), a name, or None.
        self._reader: str | None = None
        self._reader_checked = False

    @property
    def location(self) -> str:
        return mask_password(self.url)

    @property
    def connection(self) -> PostgresConnection:
        """The pool (for parts of the plugin that need the database: locks, followers)."""
        return self._conn

    def transaction(self) -> Any:
        return self._conn.transaction()

    def insert_fragment_rows(self, db: Connection, rows: Sequence[Sequence[Any]]) -> None:
        """By ``COPY``, not a statement per row (see :mod:`memex_postgres.bulk`); ``db`` is
        this thread's transaction on ``self.connection``."""
        insert_fragments(self._conn, rows)

    # -- replicas (memex_postgres.locks, memex_postgres.follow) ----------------------------

    def job_lock(self, name: str, timeout: float, notify: Callable[[str], None] | None) -> Any:
        """A lock in this database for job ``name``: one holder across every host."""
        from memex_postgres.locks import DatabaseLock

        # Checked before each commit of the holder's transactions (a restart ends it).
        return DatabaseLock(self.url, name, timeout=timeout, notify=notify, commits=self._conn)

    def change_listener(self) -> Any:
        """``LISTEN memex_changes`` on a connection of its own."""
        from memex_postgres.follow import ChangeListener

        return ChangeListener(self.url)

    # -- schema ---------------------------------------------------------------------------

    def _table_exists(self, name: str) -> bool:
        row = self._db.execute("SELECT to_regclass(?) IS NOT NULL", (name,)).fetchone()
        return bool(row[0])

    def migrate(self) -> None:
        """Apply pending migrations. The transaction takes the writer lock first, so of two
        replicas starting together one migrates and the other finds nothing left to do."""
        with self.transaction():
            self._conn.execute_script(SCHEMA_VERSION_TABLE)
            version = self.schema_version()  # read under the lock: the authoritative one
            for number, script in self.migrations:
                if number <= version:
                    continue
                self._conn.execute_script(script)
                self._db.execute("INSERT INTO schema_version VALUES (?, ?)", (number, time.time()))
        self._reader_checked = False
        self._reader_role()

    def schema_sql(self) -> str:
        """The tables as ``CREATE TABLE`` statements, with their indexes and triggers."""
        statements = []
        for table in TABLES:
            columns = self._db.execute(
                "SELECT column_name, data_type, is_nullable, column_default, is_identity "
                "FROM information_schema.columns WHERE table_schema = current_schema() "
                "AND table_name = ? ORDER BY ordinal_position",
                (table,),
            ).fetchall()
            if not columns:
                continue
            lines = []
            for name, data_type, nullable, default, identity in columns:
                line = f"    {name} {data_type.upper()}"
                if identity == "YES":
                    line += " GENERATED BY DEFAULT AS IDENTITY"
                if nullable == "NO":
                    line += " NOT NULL"
                if default is not None:
                    line += f" DEFAULT {default}"
                lines.append(line)
            statements.append(f"CREATE TABLE {table} (\n" + ",\n".join(lines) + "\n)")
            statements.extend(
                r[0]
                for r in self._db.execute(
                    "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() "
                    "AND tablename = ? ORDER BY indexname",
                    (table,),
                )
            )
            statements.extend(
                r[0]
                for r in self._db.execute(
                    "SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t "
                    "WHERE t.tgrelid = to_regclass(?) AND NOT t.tgisinternal ORDER BY t.tgname",
                    (table,),
                )
            )
        return ";\n\n".join(statements) + ";\n"

    def quick_check(self) -> list[str]:
        """``["ok"]`` when the server answers and every table and journal trigger is there;
        otherwise what is wrong (the server's own storage checks are its operators')."""
        try:
            problems = [f"table {t} is missing" for t in TABLES if not self._table_exists(t)]
            for table, trigger in JOURNAL_TRIGGERS:
                row = self._db.execute(
                    "SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass(?) AND tgname = ?",
                    (table, trigger),
                ).fetchone()
                if row is None:
                    problems.append(f"trigger {trigger} on {table} is missing")
        except CatalogUnavailableError as exc:
            return [str(exc)]
        return problems or ["ok"]

    # -- change journal ---------------------------------------------------------------------

    def last_fragment_change(self) -> int:
        """The newest journal entry's number (0 when there is none), from committed rows and
        what was pruned: never an identity's last value, which counts numbers handed to
        transactions not yet committed (or rolled back)."""
        row = self._db.execute(
            "SELECT GREATEST(COALESCE((SELECT MAX(seq) FROM fragment_changes), 0), "
            "COALESCE((SELECT CAST(value AS BIGINT) FROM settings WHERE key = ?), 0))",
            (PRUNED_SETTING,),
        ).fetchone()
        return int(row[0])

    # -- read-only SQL ----------------------------------------------------------------

    def query(self, sql: str, limit: int | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """One read-only statement (see :mod:`memex_postgres.read_only`)."""
        return run_query(self.url, sql, limit, reader_role=self._reader_role())

    def _reader_role(self) -> str | None:
        """The role read-only SQL runs as, created (with SELECT on the catalog's tables) if
        the server user may; None, said once on stderr, if it may not."""
        if self._reader_checked:
            return self._reader
        self._reader_checked = True
        if self._reader_ready():
            self._reader = READER_ROLE
            return self._reader
        try:
            with self.transaction():
                self._create_reader()
        except psycopg.Error as exc:
            self._reader = None
            sys.stderr.write(
                f"memex: the PostgreSQL user of {self.location} may not create the role "
                f"{READER_ROLE} ({exc.diag.message_primary or exc}); `memex sql` still runs "
                "in a read-only transaction. To add the role's lock, have an administrator "
                f"run: CREATE ROLE {READER_ROLE} NOLOGIN; GRANT SELECT ON ALL TABLES IN "
                f"SCHEMA <schema> TO {READER_ROLE}; GRANT {READER_ROLE} TO <memex user>.\n"
            )
            return None
        self._reader = READER_ROLE
        return self._reader

    def _reader_ready(self) -> bool:
        row = self._db.execute(
            "SELECT pg_has_role(current_user, oid, 'MEMBER') "
            "AND has_table_privilege(oid, to_regclass(?), 'SELECT') "
            "FROM pg_roles WHERE rolname = ?",
            (TABLES[-1], READER_ROLE),
        ).fetchone()
        return bool(row and row[0])

    def _create_reader(self) -> None:
        role = pg_sql.Identifier(READER_ROLE)
        script = pg_sql.SQL(
            "DO $$ BEGIN "
            "IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {name}) THEN "
            "CREATE ROLE {role} NOLOGIN; END IF; "
            "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; "
            "END $$; "
            "GRANT USAGE ON SCHEMA {schema} TO {role}; "
            "GRANT SELECT ON {tables} TO {role};"
        ).format(
            name=pg_sql.Literal(READER_ROLE),
            role=role,
            schema=pg_sql.Identifier(self._current_schema()),
            tables=pg_sql.SQL(", ").join(pg_sql.Identifier(t) for t in TABLES),
        )
        self._conn.execute_script(script.as_string())
        member = self._db.execute(
            "SELECT pg_has_role(current_user, ?, 'MEMBER')", (READER_ROLE,)
        ).fetchone()
        if not (member and member[0]):
            self._conn.execute_script(
                pg_sql.SQL("GRANT {role} TO CURRENT_USER").format(role=role).as_string()
            )

    def _current_schema(self) -> str:
        row = self._db.execute("SELECT current_schema()").fetchone()
        if row is None or row[0] is None:
            raise CatalogUnavailableError(
                f"{self.location}: no schema to create the catalog in (search_path is empty). "
                "Set search_path for the memex user, or add ?options=-csearch_path%3Dpublic "
                "to the URL."
            )
        return str(row[0])

    def close(self) -> None:
        self._conn.close()
