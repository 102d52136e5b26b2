"""The catalog's connection to PostgreSQL: a psycopg pool behind the slice of sqlite3's API
the catalog's SQL uses (:class:`memex_core.catalog.dbapi.Connection`).

- Statements outside a transaction run in autocommit on a connection borrowed from the
  pool for that statement (:mod:`memex_postgres.pool`). The pool checks a connection
  before lending it, so one broken by a server restart is replaced instead of failing
  the next statement, and connects anew at once when the server is back.
- :meth:`PostgresConnection.transaction` pins one connection to the calling thread for
  the whole transaction (``BEGIN`` ... ``COMMIT``/``ROLLBACK``); every statement the
  thread runs meanwhile, through this object, goes to it. Threads never share a
  connection, so a server calling the catalog from worker threads is safe.
- Every write transaction first takes ``pg_advisory_xact_lock(WRITER_LOCK_KEY)``: writers
  on every host commit one at a time, so the change journal's numbers are handed out in
  commit order, and a reader that has seen entry N never later finds a committed entry
  below N.
- The catalog's SQL uses ``?`` placeholders; they become psycopg's ``%s`` (and a literal
  ``%`` becomes ``%%``). No other rewriting.
- A lost or refused connection raises :class:`~memex_core.catalog.faults.CatalogUnavailableError`
  naming the server (:mod:`memex_postgres.errors`); a transaction it interrupted is rolled
  back whole by the server.
- A thread holding a job lock (:mod:`memex_postgres.locks`) registers a check that runs
  before each of its commits (:meth:`PostgresConnection.check_commits`): a lock lost to a
  server restart stops the job's next commit (rolled back) instead of letting it carry
  on without the lock on a fresh connection.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import sql as pg_sql

from memex_postgres.errors import cannot_connect, connection_lost
from memex_postgres.pool import ConnectionPool, PoolExhausted

#: The one bigint advisory lock every write transaction takes ("memexcat" in ASCII). Job
#: locks (memex_postgres.locks) use the two-int4 form, which never meets it.
WRITER_LOCK_KEY = int.from_bytes(b"memexcat", "big")

DEFAULT_POOL_SIZE = 8
DEFAULT_CONNECT_TIMEOUT_S = 10.0


@lru_cache(maxsize=4096)
def to_psycopg(sql: str) -> str:
    """The catalog's ``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


def storable(params: Sequence[Any]) -> Sequence[Any]:
    """``params`` as PostgreSQL can store them: its text cannot hold NUL, which SQLite's can;
    a NUL in a string becomes U+FFFD (the replacement character) instead of failing."""
    if any(isinstance(p, str) and "\x00" in p for p in params):
        return [p.replace("\x00", "\ufffd") if isinstance(p, str) else p for p in params]
    return params


class Result:
    """What a statement gave back, fetched whole (the connection goes back to the pool at
    once): rows, and how many rows it changed."""

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int) -> None:
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount

    def fetchone(self) -> tuple[Any, ...] | None:
        if self._next >= len(self._rows):
            return None
        row = self._rows[self._next]
        self._next += 1
        return row

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows = self._rows[self._next :]
        self._next = len(self._rows)
        return rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


def _result(cursor: psycopg.Cursor[Any]) -> Result:
    rows = cursor.fetchall() if cursor.description is not None else []
    return Result(rows, cursor.rowcount)


class PostgresConnection:
    """A pool of autocommit connections to one database, with per-thread transactions."""

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = DEFAULT_POOL_SIZE,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_S,
        application_name: str = "memex",
    ) -> None:
        self.url = url
        self.connect_timeout = connect_timeout
        self._kwargs: dict[str, Any] = {
            "autocommit": True,
            "connect_timeout": max(1, round(connect_timeout)),
            "application_name": application_name,
        }
        self._pool = ConnectionPool(self._connect, max_size=pool_size, timeout=connect_timeout)
        self._pool.put_idle(self._connect())  # the first connection says at once if it fails
        self._local = threading.local()

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(self.url, **self._kwargs)
        except psycopg.Error as exc:
            raise cannot_connect(self.url, str(exc)) from exc

    # -- the statements ---------------------------------------------------------------

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Result:
        return self.execute_native(to_psycopg(sql), storable(parameters))

    def execute_native(self, query: str, parameters: Sequence[Any] = ()) -> Result:
        """A statement in psycopg's own placeholders: ``%s``, or ``%b`` for a value sent in
        binary (a list of 10,000 ids travels as a binary array for a fifth of the CPU)."""
        with self._connection() as (conn, writing):
            try:
                # psycopg prepares a statement run 5 times (a search's saves 0.1-0.4 ms);
                # the server may then keep one generic plan for it, which is only made
                # again when the table's statistics change: an ingest analyzes the
                # fragments it doubled (memex_postgres.bulk) so that no plan made while
                # the table was nearly empty outlives the batch that filled it.
                cursor = conn.execute(query, parameters, prepare=None)
                return _result(cursor)
            except psycopg.OperationalError as exc:
                self._raise_if_lost(conn, exc, writing)
                raise

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Result:
        rows = [storable(p) for p in parameters]
        if not rows:
            return Result([], 0)
        with self._connection() as (conn, writing):
            try:
                with conn.cursor() as cursor:
                    cursor.executemany(to_psycopg(sql), rows)
                    return Result([], cursor.rowcount)
            except psycopg.OperationalError as exc:
                self._raise_if_lost(conn, exc, writing)
                raise

    def copy_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """``COPY table (columns) FROM STDIN`` of ``rows`` (values as ``execute`` takes them,
        NUL already replaced): the fastest way in for a batch, for client and server alike."""
        statement = pg_sql.SQL("COPY {} ({}) FROM STDIN").format(
            pg_sql.Identifier(table), pg_sql.SQL(", ").join(map(pg_sql.Identifier, columns))
        )
        with self._connection() as (conn, writing):
            try:
                with conn.cursor() as cursor, cursor.copy(statement) as copy:
                    for row in rows:
                        copy.write_row(row)
            except psycopg.OperationalError as exc:
                self._raise_if_lost(conn, exc, writing)
                raise

    def execute_script(self, script: str) -> None:
        """DDL as written (several statements, no placeholders): migrations."""
        with self._connection() as (conn, writing):
            try:
                conn.execute(script.encode())
            except psycopg.OperationalError as exc:
                self._raise_if_lost(conn, exc, writing)
                raise

    # -- connections and transactions ---------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[tuple[psycopg.Connection[Any], bool]]:
        """The thread's transaction connection if it is in one, else one from the pool."""
        pinned = getattr(self._local, "conn", None)
        if pinned is not None:
            yield pinned, True
            return
        conn = self._borrow()
        try:
            yield conn, False
        finally:
            self._pool.putconn(conn)

    def _borrow(self) -> psycopg.Connection[Any]:
        try:
            return self._pool.getconn()
        except PoolExhausted as exc:
            raise cannot_connect(self.url, str(exc)) from exc

    def check_commits(self, key: object, check: Callable[[], None] | None) -> None:
        """Run ``check`` before every commit of the calling thread's transactions (its
        exception rolls the transaction back), until called again with ``None`` for the
        same ``key``. Per thread: a job lock guards the job's own writes, not those of
        other threads (a server's searches logging access)."""
        checks: dict[object, Callable[[], None]] | None = getattr(self._local, "checks", None)
        if checks is None:
            checks = self._local.checks = {}
        if check is None:
            checks.pop(key, None)
        else:
            checks[key] = check

    def _run_commit_checks(self) -> None:
        for check in list(getattr(self._local, "checks", {}).values()):
            check()

    @property
    def in_transaction(self) -> bool:
        """Whether the calling thread is inside :meth:`transaction`."""
        return getattr(self._local, "conn", None) is not None

    @contextmanager
    def transaction(self) -> Iterator[PostgresConnection]:
        """A write transaction on one connection pinned to this thread, under the writer lock."""
        if self.in_transaction:
            raise RuntimeError("a catalog transaction is already open in this thread")
        conn = self._borrow()
        self._local.conn = conn
        try:
            try:
                conn.execute("BEGIN")
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK_KEY,))
            except psycopg.OperationalError as exc:
                self._raise_if_lost(conn, exc, True)
                raise
            try:
                yield self
                self._run_commit_checks()
            except BaseException:
                self._rollback(conn)
                raise
            try:
                conn.execute("COMMIT")
            except psycopg.OperationalError as exc:
                self._raise_if_lost(conn, exc, True)
                raise
            except BaseException:
                self._rollback(conn)
                raise
        finally:
            self._local.conn = None
            self._pool.putconn(conn)

    @staticmethod
    def _rollback(conn: psycopg.Connection[Any]) -> None:
        if conn.broken or conn.closed:
            return  # the server rolled it back when the connection went
        with contextlib.suppress(psycopg.Error):  # the error that matters is already raised
            conn.execute("ROLLBACK")

    def _raise_if_lost(
        self, conn: psycopg.Connection[Any], exc: psycopg.OperationalError, writing: bool
    ) -> None:
        """A failure of the connection itself, told in words (other operational errors,
        a deadlock say, go on as they are)."""
        if conn.broken or conn.closed:
            raise connection_lost(self.url, str(exc), writing=writing) from exc

    def close(self) -> None:
        self._pool.close()
