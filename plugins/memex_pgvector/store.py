"""The ``pgvector`` vector store: memex's embeddings in a PostgreSQL table.

One table per index (``[vector.pgvector] table``, default ``memex_vectors``): the fragment
id, its ``vector(dim)`` embedding and one column per search filter, with an HNSW index
for cosine distance (``vector_cosine_ops``). Table ``memex_vector_indexes`` records, per
table, the dimension and embedder that built it, as the chroma store records them in its
collection's metadata. The table is created by the first upsert (its dimension is the
first vector's) and dropped by :meth:`PgvectorStore.clear`; nothing is created by reads.
A table made by a bulk write gets its HNSW index in :meth:`PgvectorStore.settle`, built
once after the load (see :data:`BUILD_TIMEOUT_S`); a small first write makes it at once.

Searches ask the HNSW index with the filter in the same statement. pgvector 0.6 filters
what the index returns (at most ``hnsw.ef_search`` rows), so a selective filter can leave
fewer than ``limit`` hits although more vectors pass: the store then asks again without
the HNSW index (an exact scan of the rows that pass, through the filter columns' B-tree
indexes), so a filtered search is never short of hits that exist.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from memex_core.closing import ClosesOnExit
from memex_core.domain import Fragment, PluginContext, SearchFilters, SignalHit
from memex_core.errors import EmbedderMismatchError
from memex_core.vector_rows import query_vector, upsert_rows
from memex_pgvector.connection import ServerHealth, connect, describe_failure
from memex_pgvector.filters import COLUMN_TYPES, COLUMNS, row_values, where_clause
from memex_pgvector.location import (
    MAX_EF_SEARCH,
    PgvectorConfigError,
    PgvectorLocation,
    StoreSettings,
    read_settings,
    resolve_location,
)
from memex_pgvector.watchdog import Watchdog

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")

#: The table recording what built each vector table.
META_TABLE = "memex_vector_indexes"
#: Rows per INSERT statement (and per transaction) of an upsert, and per DELETE. Each row
#: of an INSERT is also an HNSW insertion (measured 257 rows/s at 100,000 384-d vectors on
#: a loaded 2-core machine), so 1,000 rows overran the 10 s statement timeout; 256 rows (the
#: batch ``memex backfill`` embeds) stay within it with room for a machine 2-3x slower.
BATCH = 256
#: Building the HNSW index of 100,000 384-d vectors took 87 s here (after loading them in
#: 3 s), where inserting them one by one into the index ran at ~250 vectors/s (400 s): so
#: a table made by a bulk write (a first upsert of at least BATCH rows: a backfill or
#: ``memex rebuild --vectors``) gets its HNSW index from ``settle`` after the load.
BUILD_TIMEOUT_S = 4 * 3600.0
#: Memory for that build, taken only while building, as needed. With PostgreSQL's default
#: 64 MB the graph of 384-d vectors stopped fitting after 28,370 of them (pgvector's notice)
#: and building 100,000 took 419 s instead of 87 s (another moment of a shared machine).
BUILD_MEMORY = "1GB"
#: Extra seconds the client waits beyond the server's statement_timeout before it cuts the
#: connection itself, so a live but slow server reports its own timeout first.
WATCHDOG_SLACK_S = 1.0


@dataclass(frozen=True)
class _Meta:
    dimension: int
    embedder: str | None


def _batches(count: int, size: int) -> Iterator[slice]:
    for start in range(0, count, size):
        yield slice(start, start + size)


def _close_quietly(conn: psycopg.Connection[Any] | None) -> None:
    if conn is not None:
        # A broken connection may fail to close; it is gone either way.
        with contextlib.suppress(Exception):
            conn.close()


def _float32_list(value: Any) -> list[float]:
    """A stored ``vector`` column as Python floats (pgvector's ``Vector``, or an array)."""
    array = value.to_numpy() if hasattr(value, "to_numpy") else value
    return list(np.asarray(array, dtype=np.float32).tolist())


class PgvectorStore(ClosesOnExit):
    """A :class:`memex_core.domain.VectorStore` backed by one PostgreSQL table.

    ``embedder_name``, when known, is recorded with the dimension when the table is made,
    and a store refuses to mix vectors of another embedder or dimension into it.

    A call that cannot reach the database raises
    :class:`~memex_pgvector.connection.PgvectorUnreachableError` (a
    ``VectorStoreUnavailableError``: searches answer with keyword results, ingest leaves
    vectors pending for ``memex backfill``), and calls in the next few seconds fail at
    once. A connection broken by a server restart is replaced once, silently.
    """

    def __init__(
        self,
        location: PgvectorLocation,
        settings: StoreSettings | None = None,
        *,
        embedder_name: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.location = location
        self.settings = settings or StoreSettings()
        self.table = self.settings.table
        self.embedder_name = embedder_name
        self.health = ServerHealth(location, clock=clock)
        self._conn: psycopg.Connection[Any] | None = None
        self._vector_registered = False
        self._meta: _Meta | None = None  # cached once found; a missing table is asked again
        self._wrote = False  # since the last settle()
        self._watchdog = Watchdog()
        self._lock = threading.RLock()
        # The store may be dropped without close() (Memex.close leaves its vector store):
        # the finalizer closes what ``_resources`` holds (the connection, the watchdog).
        self._resources: list[Any] = [None, self._watchdog]
        weakref.finalize(self, PgvectorStore._release, self._resources)

    @classmethod
    def from_context(cls, context: PluginContext) -> PgvectorStore:
        """Build from ``[vector.pgvector]`` (the URL defaults to the catalog's database)."""
        return cls(
            resolve_location(context.home, context.settings),
            read_settings(context.settings),
        )

    # -- connection -------------------------------------------------------------------

    @staticmethod
    def _release(resources: list[Any]) -> None:
        _close_quietly(resources[0])
        resources[1].close()

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = connect(self.location, self.settings.timeouts)
            self._resources[0] = self._conn
            self._vector_registered = False
            self._set_ef_search(self._conn, self.settings.ef_search, local=False)
        return self._conn

    def _discard(self) -> None:
        _close_quietly(self._conn)
        self._conn = None
        self._resources[0] = None
        self._vector_registered = False

    def _run(self, work: Callable[[psycopg.Connection[Any]], T], seconds: float | None = None) -> T:
        """Run ``work`` on the connection, bounded by the request timeout (or ``seconds``:
        ``work`` then raises the server's statement timeout to match).

        A connection that broke while idle (the server restarted since) is replaced and
        ``work`` runs once more: every operation of this store is idempotent. Any other
        connection failure is reported as the server not answering.
        """
        import psycopg

        with self._lock:  # one call at a time: prepare() runs on a background thread
            self.health.check()
            deadline = (seconds or self.settings.timeouts.request) + WATCHDOG_SLACK_S
            for attempt in (0, 1):
                reused = self._conn is not None and not self._conn.closed
                try:
                    conn = self._connection()
                    with self._watchdog.guard(conn.pgconn.socket, deadline):
                        result = work(conn)
                except psycopg.OperationalError as exc:
                    broken = self._conn is None or self._conn.broken
                    self._discard()
                    if attempt == 0 and reused and broken and not self._watchdog.fired:
                        continue
                    problem = describe_failure(exc)
                    if self._watchdog.fired:
                        problem = f"no answer within {deadline:g} s"
                    raise self.health.failure(problem) from exc
                except psycopg.InterfaceError as exc:  # a connection closed under us
                    self._discard()
                    raise self.health.failure(describe_failure(exc)) from exc
                self.health.succeeded()
                return result
            raise AssertionError("unreachable")  # the loop returns or raises

    def close(self) -> None:
        """Close the connection (a later call opens a new one)."""
        self._discard()
        self._watchdog.close()

    # -- schema -----------------------------------------------------------------------

    def _set_ef_search(self, conn: psycopg.Connection[Any], value: int, *, local: bool) -> None:
        # A custom setting can be set before the vector library is loaded in this backend.
        conn.execute(
            "SELECT set_config('hnsw.ef_search', %s, %s)", (str(min(value, MAX_EF_SEARCH)), local)
        )

    def _register_vector(self, conn: psycopg.Connection[Any]) -> bool:
        """Teach this connection the ``vector`` type; False when the extension is absent."""
        if self._vector_registered:
            return True
        from pgvector.psycopg.vector import register_vector_info
        from psycopg.types import TypeInfo

        info = TypeInfo.fetch(conn, "vector")
        if info is None:
            return False
        register_vector_info(conn, info)
        self._vector_registered = True
        return True

    def _read_meta(self, conn: psycopg.Connection[Any]) -> _Meta | None:
        """What built the table, or None when there is no table (asked each time then)."""
        if self._meta is not None:
            if not self._vector_registered:  # a new connection (after a reconnect)
                self._register_vector(conn)
            return self._meta
        found = conn.execute(
            "SELECT to_regclass(%s) IS NOT NULL AND to_regclass(%s) IS NOT NULL",
            (META_TABLE, self.table),
        ).fetchone()
        if not (found and found[0]):
            return None
        row = conn.execute(
            f"SELECT dimension, embedder FROM {META_TABLE} WHERE name = %s",
            (self.table,),
        ).fetchone()
        if row is None or not self._register_vector(conn):
            return None
        self._meta = _Meta(int(row[0]), row[1])
        return self._meta

    def _check_compatible(self, meta: _Meta, dimension: int) -> None:
        embedder_differs = bool(
            self.embedder_name and meta.embedder and meta.embedder != self.embedder_name
        )
        if meta.dimension != dimension or embedder_differs:
            raise EmbedderMismatchError(
                f"The pgvector table {self.table!r} in the {self.location.describe()} holds "
                f"{meta.dimension}-dimensional vectors from embedder {meta.embedder or 'unknown'}"
                f", but got {dimension}-dimensional vectors from embedder "
                f"{self.embedder_name or 'unknown'}. Run `memex rebuild --vectors` to re-embed "
                "everything with the current embedder."
            )

    def _lock_meta(self, conn: psycopg.Connection[Any]) -> None:
        """Serialise creating and dropping vector tables among processes (held to commit).

        A lock on the record table, not an advisory lock: taking a table lock makes
        PostgreSQL read the catalog changes other sessions committed meanwhile, so a table
        another process just made is seen (after an advisory lock it was not: measured,
        ``CREATE TABLE`` then failed with "already exists"). Readers are not blocked.
        """
        import psycopg

        try:
            with conn.transaction():  # a savepoint: losing the race to create it is fine
                conn.execute(
                    f"CREATE TABLE IF NOT EXISTS {META_TABLE} ("
                    "name TEXT PRIMARY KEY, dimension INTEGER NOT NULL, embedder TEXT, "
                    "m INTEGER, ef_construction INTEGER, "
                    "created_at TIMESTAMPTZ NOT NULL DEFAULT now())"
                )
        except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
            pass
        conn.execute(f"LOCK TABLE {META_TABLE} IN SHARE ROW EXCLUSIVE MODE")

    def _ensure_table(
        self, conn: psycopg.Connection[Any], dimension: int, *, bulk: bool = False
    ) -> _Meta:
        """The table's record, creating extension, table and indexes if needed (in the
        caller's transaction); a table made by a ``bulk`` write waits for its HNSW index
        until :meth:`settle`."""
        import psycopg

        meta = self._read_meta(conn)
        if meta is None:
            self._lock_meta(conn)
            meta = self._read_meta(conn)  # another process may have made it meanwhile
        if meta is None:
            try:
                self._create(conn, dimension, hnsw=not bulk)
            except (psycopg.errors.UndefinedFile, psycopg.errors.FeatureNotSupported) as exc:
                raise PgvectorConfigError(
                    f"The {self.location.describe()} has no pgvector extension "
                    f"({describe_failure(exc)}). Install it on the server (Debian: "
                    "apt-get install postgresql-NN-pgvector), or use the default vector "
                    'store: [vector] use = "chroma".'
                ) from exc
            except psycopg.errors.InsufficientPrivilege as exc:
                raise PgvectorConfigError(
                    f"The pgvector store may not create its table in the "
                    f"{self.location.describe()} ({describe_failure(exc)}). Have the database's "
                    "owner run `CREATE EXTENSION IF NOT EXISTS vector;` in it and grant this "
                    "user CREATE on its schema, or set [vector.pgvector] url to a database "
                    "this user owns."
                ) from exc
            meta = _Meta(dimension, self.embedder_name)
            self._meta = meta
        self._check_compatible(meta, dimension)
        return meta

    def _create(self, conn: psycopg.Connection[Any], dimension: int, *, hnsw: bool) -> None:
        table = self.table
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        self._vector_registered = False
        self._register_vector(conn)
        # A table without a record is a leftover (its record was deleted by hand): rebuilt.
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(
            f"CREATE TABLE {table} ("
            f"id TEXT PRIMARY KEY, embedding vector({int(dimension)}) NOT NULL, "
            "source_kind TEXT, conversation_id TEXT, role TEXT, timestamp DOUBLE PRECISION, "
            "owner TEXT NOT NULL DEFAULT '', collection TEXT NOT NULL DEFAULT '', "
            "private BOOLEAN NOT NULL DEFAULT FALSE)"
        )
        if hnsw:
            conn.execute(self._hnsw_sql())
        # B-trees for the selective filters, so an exact filtered search reads only the
        # rows that pass (an agent's memory, one conversation, a time range).
        conn.execute(f"CREATE INDEX {table}_scope ON {table} (owner, collection)")
        conn.execute(f"CREATE INDEX {table}_conversation ON {table} (conversation_id)")
        conn.execute(f"CREATE INDEX {table}_time ON {table} (timestamp)")
        conn.execute(
            f"INSERT INTO {META_TABLE} (name, dimension, embedder, m, ef_construction) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (name) DO UPDATE SET "
            "dimension = EXCLUDED.dimension, embedder = EXCLUDED.embedder, m = EXCLUDED.m, "
            "ef_construction = EXCLUDED.ef_construction, created_at = now()",
            (table, dimension, self.embedder_name, self.settings.m, self.settings.ef_construction),
        )

    def _hnsw_sql(self) -> str:
        table, s = self.table, self.settings
        return (
            f"CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} "
            f"USING hnsw (embedding vector_cosine_ops) "
            f"WITH (m = {int(s.m)}, ef_construction = {int(s.ef_construction)})"
        )

    def _forget_table(self) -> None:
        self._meta = None

    def stored_embedding(self) -> tuple[str | None, int | None]:
        """``(embedder name, dimension)`` recorded for the table, ``(None, None)`` if none."""
        self._forget_table()  # another process may have rebuilt it
        meta = self._run(self._read_meta)
        return (meta.embedder, meta.dimension) if meta is not None else (None, None)

    # -- VectorStore --------------------------------------------------------------------

    def upsert(
        self, fragments: Sequence[Fragment], vectors: Sequence[Sequence[float]] | np.ndarray
    ) -> None:
        """Add or replace the vectors (and filter columns) of ``fragments``.

        ``vectors`` may also be a numpy matrix (one row per fragment). Each batch of
        :data:`BATCH` rows is one transaction.
        """
        if not fragments and len(vectors) == 0:
            return
        fragments, matrix = upsert_rows(fragments, vectors)  # the last vector for an id wins
        dimension = int(matrix.shape[1])
        bulk = len(fragments) >= BATCH
        for part in _batches(len(fragments), BATCH):
            self._upsert_batch(fragments[part], matrix[part], dimension, bulk=bulk)

    def _upsert_batch(
        self, fragments: Sequence[Fragment], matrix: np.ndarray, dimension: int, *, bulk: bool
    ) -> None:
        columns = list(zip(*(row_values(fragment) for fragment in fragments), strict=True))
        params: list[Any] = [[f.id for f in fragments], list(matrix), *map(list, columns)]
        names = ", ".join(COLUMNS)
        arrays = ", ".join(f"%s::{kind}[]" for kind in COLUMN_TYPES)
        updates = ", ".join(f"{column} = EXCLUDED.{column}" for column in COLUMNS)
        sql = (
            f"INSERT INTO {self.table} (id, embedding, {names}) "
            f"SELECT * FROM unnest(%s::text[], %b::vector[], {arrays}) "
            f"ON CONFLICT (id) DO UPDATE SET embedding = EXCLUDED.embedding, {updates}"
        )

        def work(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                self._ensure_table(conn, dimension, bulk=bulk)
                conn.execute(sql, params)

        self._retrying_dropped_table(work)
        self._wrote = True

    def _retrying_dropped_table(
        self, work: Callable[[psycopg.Connection[Any]], T], seconds: float | None = None
    ) -> T:
        """Run ``work``; when the cached table was dropped or rebuilt by another process
        (a ``clear``), read its record again and retry once."""
        import psycopg

        try:
            return self._run(work, seconds)
        except (psycopg.errors.UndefinedTable, psycopg.errors.DataException):
            if self._meta is None:
                raise
            self._forget_table()
            return self._run(work, seconds)

    def delete(self, ids: Iterable[str]) -> None:
        """Remove vectors by fragment id; unknown ids are ignored."""
        unique = list(dict.fromkeys(ids))
        if not unique:
            return

        def work(conn: psycopg.Connection[Any]) -> None:
            if self._read_meta(conn) is None:
                return
            for part in _batches(len(unique), BATCH):
                conn.execute(
                    f"DELETE FROM {self.table} WHERE id = ANY(%s::text[])",
                    (unique[part],),
                )

        self._retrying_dropped_table(work)
        self._wrote = True

    def search(
        self, vector: Sequence[float] | np.ndarray, limit: int, filters: SearchFilters
    ) -> list[SignalHit]:
        """Best ``limit`` fragments passing ``filters`` by cosine similarity, best first: the
        filters go into the SQL, and the HNSW index is passed over when it returns too few."""
        if limit <= 0:
            return []
        query = query_vector(vector)
        where, params = where_clause(filters)
        sql = (
            f"SELECT id, embedding <=> %b AS distance FROM {self.table} "
            f"WHERE {where} ORDER BY distance LIMIT %s"
        )
        args = [query, *params, limit]
        ef_search = self.settings.ef_search

        def work(conn: psycopg.Connection[Any]) -> list[tuple[str, float]]:
            meta = self._read_meta(conn)
            if meta is None:
                return []
            self._check_compatible(meta, int(query.shape[0]))
            if limit <= ef_search:
                rows = conn.execute(sql, args).fetchall()
            else:  # the index returns at most ef_search rows: widen it for this query
                with conn.transaction():
                    self._set_ef_search(conn, limit, local=True)
                    rows = conn.execute(sql, args).fetchall()
            if len(rows) < limit:
                # Fewer than asked: the filter may have dropped most of what the index
                # returned. Ask exactly, without the HNSW index (see the module docstring).
                with conn.transaction():
                    conn.execute("SET LOCAL enable_indexscan = off")
                    rows = conn.execute(sql, args).fetchall()
            return rows

        rows = self._retrying_dropped_table(work)
        # Cosine distance is 1 - cosine similarity. Clamp the float32 rounding that can
        # push a perfect match just past 1; a zero vector has no direction (NaN): 0.
        hits = [
            SignalHit(
                id=hit_id,
                score=0.0 if math.isnan(distance) else min(1.0, max(-1.0, 1.0 - distance)),
            )
            for hit_id, distance in rows
        ]
        hits.sort(key=lambda hit: hit.score, reverse=True)  # stable: keeps the index's ties
        return hits

    def prepare(self) -> None:
        """Connect and read the table's record, so the first search does not pay for it."""
        self._run(self._read_meta)

    def unindexed_rows(self) -> int | None:
        """How many vectors the table holds while it has no HNSW index yet (a bulk write
        stopped before its settle), or None when it has one or there is no table."""

        def work(conn: psycopg.Connection[Any]) -> int | None:
            if self._read_meta(conn) is None:
                return None
            found = conn.execute("SELECT to_regclass(%s)", (f"{self.table}_hnsw",)).fetchone()
            if found and found[0] is not None:
                return None
            row = conn.execute(f"SELECT count(*) FROM {self.table}").fetchone()
            return int(row[0]) if row else 0

        return self._retrying_dropped_table(work)

    def settle(self) -> int:
        """After a bulk write: build the HNSW index if the table has none yet (made by a
        bulk write, maybe one that was cut off; searches meanwhile scan exactly), then
        refresh the planner's statistics (``ANALYZE``), so it picks between the HNSW index
        and the filter indexes on what the table now holds. Re-writes no record: returns 0.

        The build blocks other writers to the table (not readers) while it runs; their
        writes wait, or time out and leave their vectors pending for the next backfill.
        """

        def missing_index(conn: psycopg.Connection[Any]) -> bool:
            if self._read_meta(conn) is None:
                return False
            found = conn.execute("SELECT to_regclass(%s)", (f"{self.table}_hnsw",)).fetchone()
            return not (found and found[0] is not None)

        def build_and_analyze(conn: psycopg.Connection[Any]) -> None:
            if self._read_meta(conn) is None:
                return
            with conn.transaction():
                conn.execute(
                    "SELECT set_config('statement_timeout', %s, true), "
                    "set_config('maintenance_work_mem', %s, true)",
                    (f"{int(BUILD_TIMEOUT_S * 1000)}ms", BUILD_MEMORY),
                )
                if build:
                    conn.execute(self._hnsw_sql())
                conn.execute(f"ANALYZE {self.table}")

        build = self._run(missing_index)
        if build or self._wrote:
            self._retrying_dropped_table(build_and_analyze, seconds=BUILD_TIMEOUT_S)
        self._wrote = False
        return 0

    def count(self) -> int:
        def work(conn: psycopg.Connection[Any]) -> int:
            if self._read_meta(conn) is None:
                return 0
            row = conn.execute(f"SELECT count(*) FROM {self.table}").fetchone()
            return int(row[0]) if row else 0

        return self._retrying_dropped_table(work)

    def ids(self) -> set[str]:
        """Every fragment id with a stored vector (for consistency checks with the catalog)."""

        def work(conn: psycopg.Connection[Any]) -> set[str]:
            if self._read_meta(conn) is None:
                return set()
            return {row[0] for row in conn.execute(f"SELECT id FROM {self.table}")}

        return self._retrying_dropped_table(work)

    def stored_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """Those of ``ids`` with a vector, as their stored float32 values (``memex export
        --with-vectors``)."""

        def work(conn: psycopg.Connection[Any]) -> dict[str, list[float]]:
            if not ids or self._read_meta(conn) is None:
                return {}
            rows = conn.execute(
                f"SELECT id, embedding FROM {self.table} WHERE id = ANY(%s)", (list(ids),)
            )
            return {row[0]: _float32_list(row[1]) for row in rows}

        return self._retrying_dropped_table(work)

    def clear(self) -> None:
        """Drop the table and its record; the next upsert starts afresh (any dimension)."""

        def work(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                recorded = conn.execute("SELECT to_regclass(%s)", (META_TABLE,)).fetchone()
                if recorded and recorded[0] is not None:  # else nothing was ever made here
                    self._lock_meta(conn)
                    conn.execute(f"DELETE FROM {META_TABLE} WHERE name = %s", (self.table,))
                conn.execute(f"DROP TABLE IF EXISTS {self.table}")

        self._forget_table()
        self._run(work)
        self._wrote = False
