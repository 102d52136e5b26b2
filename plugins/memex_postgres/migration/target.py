"""The PostgreSQL database ``memex migrate`` copies into, and the progress it keeps there.

Progress lives in the target, in table ``migration_progress`` (name -> JSON), and
each batch of rows is committed in the same transaction as the progress entry that
counts it: a run killed at any point leaves either both or neither, so a rerun
continues exactly after the last committed row and never writes one twice.

psycopg is imported here only, when the command runs (never at ``memex --help``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from memex_core.crashpoints import crash_point
from memex_core.errors import MemexError
from memex_postgres.migration.values import Kind
from memex_postgres.urls import where

PROGRESS_TABLE = "migration_progress"
#: Session advisory lock that keeps two ``memex migrate`` runs out of one database.
MIGRATE_LOCK_KEY = 0x6D656D6578_6D6967  # "memex" "mig"
#: Rows a verification read pulls from the server at a time.
_FETCH = 2000


def missing_driver() -> MemexError:
    return MemexError(
        "memex migrate needs the PostgreSQL driver: pip install 'memex[postgres]' (psycopg 3 "
        "and psycopg-pool)."
    )


class PostgresTarget:
    """One connection (autocommit outside explicit transactions) to the target database."""

    def __init__(self, url: str, writer_lock_key: int | None = None) -> None:
        try:
            import psycopg
        except ImportError as exc:
            raise missing_driver() from exc
        self.url = url
        self.where = where(url)
        self.writer_lock_key = writer_lock_key
        try:
            self._conn = psycopg.connect(
                url, autocommit=True, connect_timeout=10, application_name="memex migrate"
            )
        except psycopg.Error as exc:
            raise MemexError(
                f"Cannot connect to PostgreSQL at {self.where}: {_first_line(exc)}. Check that "
                "the server runs, that the URL's user, host, port and database are right, and "
                "that the database exists (createdb <name>)."
            ) from exc
        encoding = self._value("SHOW server_encoding")
        if encoding != "UTF8":
            raise MemexError(
                f"{self.where} stores text as {encoding}; memex needs UTF8. Create the database "
                "with: CREATE DATABASE <name> ENCODING 'UTF8' TEMPLATE template0"
            )

    @property
    def connection(self) -> Any:
        return self._conn

    # -- plain reads -------------------------------------------------------------------

    def _value(self, query: Any, params: Sequence[Any] = ()) -> Any:
        row = self._execute(query, params).fetchone()
        return row[0] if row else None

    def _execute(self, query: Any, params: Sequence[Any] = ()) -> Any:
        import psycopg

        try:
            return self._conn.execute(query, params)
        except psycopg.OperationalError as exc:
            raise self._lost(exc) from exc
        except psycopg.Error as exc:
            raise MemexError(f"{self.where}: {_first_line(exc)}") from exc

    def _lost(self, exc: Exception) -> MemexError:
        return MemexError(
            f"Lost the connection to PostgreSQL at {self.where} ({_first_line(exc)}). Rows "
            "committed so far are kept: run memex migrate again to continue where it stopped."
        )

    def lock(self) -> None:
        """Hold, for this session, the lock that keeps other ``memex migrate`` runs out."""
        if not self._value("SELECT pg_try_advisory_lock(%s)", (MIGRATE_LOCK_KEY,)):
            raise MemexError(
                f"Another memex migrate is copying into {self.where} right now. Wait for it to "
                "finish (or stop it), then run this one again."
            )

    def columns(self) -> dict[str, dict[str, str]]:
        """Every table of the current schema: column name -> data type."""
        found: dict[str, dict[str, str]] = {}
        for table, column, data_type in self._execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        ):
            found.setdefault(table, {})[column] = data_type
        return found

    def identity_columns(self) -> list[tuple[str, str]]:
        return [
            (r[0], r[1])
            for r in self._execute(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND is_identity = 'YES' "
                "ORDER BY table_name"
            )
        ]

    def tables_with_triggers(self) -> set[str]:
        """Tables with triggers of their own (not the ones foreign keys use)."""
        return {
            r[0]
            for r in self._execute(
                "SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace"
            )
        }

    def schema_version(self) -> int | None:
        """The catalog schema's version, or None where no memex schema was ever created."""
        if not self._value("SELECT to_regclass('schema_version') IS NOT NULL"):
            return None
        return int(self._value("SELECT COALESCE(MAX(version), 0) FROM schema_version"))

    def count(self, table: str) -> int:
        from psycopg import sql

        return int(self._value(sql.SQL("SELECT COUNT(*) FROM {}").format(sql.Identifier(table))))

    def max_value(self, table: str, column: str) -> int:
        from psycopg import sql

        query = sql.SQL("SELECT COALESCE(MAX({}), 0) FROM {}").format(
            sql.Identifier(column), sql.Identifier(table)
        )
        return int(self._value(query))

    # -- progress ------------------------------------------------------------------------

    def progress(self) -> dict[str, Any] | None:
        """What earlier runs recorded (name -> value), or None: no run ever started here."""
        if not self._value(f"SELECT to_regclass('{PROGRESS_TABLE}') IS NOT NULL"):
            return None
        return {
            name: json.loads(value)
            for name, value in self._execute(f"SELECT name, value FROM {PROGRESS_TABLE}")
        }

    def start_progress(self, source: dict[str, Any]) -> None:
        with self._transaction():
            self._execute(
                f"CREATE TABLE IF NOT EXISTS {PROGRESS_TABLE} "
                "(name TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            self._set("source", source)

    def set_progress(self, name: str, value: Any) -> None:
        with self._transaction():
            self._set(name, value)

    def _set(self, name: str, value: Any) -> None:
        self._execute(
            f"INSERT INTO {PROGRESS_TABLE} (name, value) VALUES (%s, %s) "
            "ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
            (name, json.dumps(value)),
        )

    # -- writing ---------------------------------------------------------------------------

    def _transaction(self, write: bool = True) -> _Transaction:
        return _Transaction(self, write)

    def migrate_schema(self, create: Callable[[str], None]) -> None:
        """Run the catalog's schema migrations (``create`` is the postgres component's)."""
        import psycopg

        try:
            create(self.url)
        except psycopg.OperationalError as exc:
            raise self._lost(exc) from exc
        except psycopg.Error as exc:
            raise MemexError(
                f"Creating the memex schema in {self.where} failed: {_first_line(exc)}. The user "
                "in the URL needs the right to create tables in the database (its owner has it)."
            ) from exc

    def write_batch(
        self,
        table: str,
        columns: Sequence[str],
        rows: Iterable[Sequence[Any]],
        progress: tuple[str, Any],
        triggers: bool,
    ) -> None:
        """Insert ``rows`` and record ``progress`` in one transaction.

        The table's own triggers are off inside it (and back on before it commits):
        copied fragments must not log themselves again in the change journal, which is
        copied as it is. Taking the catalog writer's lock first keeps the copy in line
        with any memex writing to this database (there should be none yet)."""
        import psycopg
        from psycopg import sql

        name = sql.Identifier(table)
        try:
            with self._transaction(), self._conn.cursor() as cur:
                if triggers:
                    cur.execute(sql.SQL("ALTER TABLE {} DISABLE TRIGGER USER").format(name))
                statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
                    name, sql.SQL(", ").join(sql.Identifier(c) for c in columns)
                )
                with cur.copy(statement) as copy:
                    for row in rows:
                        copy.write_row(row)
                crash_point("migrate.batch_written")
                if triggers:
                    cur.execute(sql.SQL("ALTER TABLE {} ENABLE TRIGGER USER").format(name))
                self._set(*progress)
        except psycopg.errors.UniqueViolation as exc:
            raise MemexError(
                f"{self.where}: table {table} already holds a row this copy was about to write "
                f"({_first_line(exc)}); something else writes to this database. Stop it, then "
                "run memex migrate again (it checks what is there before going on)."
            ) from exc
        except psycopg.errors.InsufficientPrivilege as exc:
            raise MemexError(
                f"{self.where}: {_first_line(exc)}. Run memex migrate as the user that owns the "
                "memex tables (the one that created them)."
            ) from exc
        except psycopg.OperationalError as exc:
            raise self._lost(exc) from exc
        except psycopg.Error as exc:
            raise MemexError(
                f"{self.where}: copying into {table} failed: {_first_line(exc)}"
            ) from exc
        crash_point("migrate.batch_committed")

    def move_sequences(self, floors: dict[tuple[str, str], int]) -> None:
        """Set each identity column's next value past ``floor`` (the highest number the
        source ever handed out), so new rows never reuse a copied one."""
        with self._transaction():
            for (table, column), floor in sorted(floors.items()):
                sequence = self._value("SELECT pg_get_serial_sequence(%s, %s)", (table, column))
                if sequence is None:
                    continue
                if floor > 0:
                    self._execute("SELECT setval(%s, %s, true)", (sequence, floor))
                else:
                    self._execute("SELECT setval(%s, 1, false)", (sequence,))

    # -- reading for checksums ------------------------------------------------------------

    def rows(
        self,
        table: str,
        columns: Sequence[str],
        key: Sequence[str],
        key_kinds: Sequence[Kind],
        upto: Sequence[Any] | None = None,
    ) -> Iterator[tuple[Any, ...]]:
        """Rows of ``table`` in the source's key order: text compared byte by byte
        (``COLLATE "C"``, as SQLite does), whatever the database's collation."""
        from psycopg import sql

        keys = sql.SQL(", ").join(
            sql.SQL('{} COLLATE "C"').format(sql.Identifier(k))
            if kind == "text"
            else sql.Identifier(k)
            for k, kind in zip(key, key_kinds, strict=True)
        )
        query = sql.SQL("SELECT {} FROM {}").format(
            sql.SQL(", ").join(sql.Identifier(c) for c in columns), sql.Identifier(table)
        )
        params: list[Any] = []
        if upto is not None:
            marks = sql.SQL(", ").join(sql.Placeholder() for _ in key)
            query += sql.SQL(" WHERE ({}) <= ({})").format(keys, marks)
            params.extend(upto)
        query += sql.SQL(" ORDER BY {}").format(keys)
        import psycopg

        try:
            with self._transaction(write=False), self._conn.cursor(name=f"verify_{table}") as cur:
                cur.itersize = _FETCH
                cur.execute(query, params)
                yield from cur
        except psycopg.OperationalError as exc:
            raise self._lost(exc) from exc

    def close(self) -> None:
        self._conn.close()


class _Transaction:
    """A transaction on the target's connection; one that writes takes the catalog
    writer's lock first (when the postgres component names one), as every writer does."""

    def __init__(self, target: PostgresTarget, write: bool) -> None:
        self.target = target
        self.write = write
        self._inner: Any = None

    def __enter__(self) -> None:
        self._inner = self.target.connection.transaction()
        self._inner.__enter__()
        if self.write and self.target.writer_lock_key is not None:
            self.target.connection.execute(
                "SELECT pg_advisory_xact_lock(%s)", (self.target.writer_lock_key,)
            )

    def __exit__(self, *exc: Any) -> bool:
        return bool(self._inner.__exit__(*exc))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
