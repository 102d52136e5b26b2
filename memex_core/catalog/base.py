"""The catalog, whatever the engine: the record of truth for fragments, conversations,
documents, memory, agent keys and ingest runs.

Indexes (keyword, vector) are derived from it and can always be rebuilt from it. Each
file's fragments are committed in one transaction, so a crash leaves all of a file or
none of it. The SQL here is written once for every engine (``?`` placeholders,
``INSERT ... ON CONFLICT``, ``RETURNING``); what truly differs is supplied by the
engine's subclass: its connection, its :class:`~memex_core.catalog.dbapi.Dialect`, its
transactions, its schema migrations, its change-journal counter and its read-only SQL
(:class:`memex_core.catalog.sqlite.SqliteCatalog`, and ``memex_postgres``'s catalog).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Unpack

from memex_core.catalog.agent_keys import AgentKeyStore
from memex_core.catalog.dbapi import Connection
from memex_core.catalog.documents import DocumentStore
from memex_core.catalog.graph import LinkGraph
from memex_core.catalog.health import HealthQueries
from memex_core.catalog.memory_records import MemoryStore
from memex_core.catalog.replicas import ReplicaRegistry
from memex_core.catalog.rows import (
    FRAGMENT_COLUMNS,
    INSERT_FRAGMENT,
    added_since,
    continued_positions,
    drop_unkept,
    fragment_rows,
    is_storable,
    last_seq,
    row_to_fragment,
    upsert_conversations,
)
from memex_core.catalog.sessions import SessionFolders, upsert_session_folders
from memex_core.crashpoints import crash_point
from memex_core.domain import Fragment
from memex_core.domain.file_versions import StoredFile
from memex_core.domain.filters import NAMED_ONLY_SOURCES, FilterFields
from memex_core.errors import MemexError

#: settings key: the newest change-journal entry pruned so far (journal numbers never go
#: back below it, even when every entry was pruned).
PRUNED_SETTING = "fragment_changes_pruned"


class SqlCatalog(
    DocumentStore,
    LinkGraph,
    MemoryStore,
    HealthQueries,
    AgentKeyStore,
    ReplicaRegistry,
    SessionFolders,
):
    """Typed access to the catalog. Writers hold the home's write lock (and, on a shared
    database, whatever the engine's transactions take).

    Folder documents and the link graph live in :mod:`memex_core.catalog.documents`
    and :mod:`memex_core.catalog.graph`, agent memory in :mod:`memex_core.catalog.memory_records`,
    agent API keys in :mod:`memex_core.catalog.agent_keys`, the folders sessions ran in
    in :mod:`memex_core.catalog.sessions`; this module holds fragments, runs, files, the
    change journal and settings.
    """

    #: The engine's schema: (version, script) in order; the same numbers on every engine.
    migrations: Sequence[tuple[int, str]] = ()
    #: The engine's name, for messages ("SQLite", "PostgreSQL").
    engine = "SQL"
    #: Whether several homes (hosts, replicas) may use this catalog at once. Then a home's
    #: write lock does not exclude other writers, each home keeps its own place in the
    #: change journal (:mod:`memex_core.replicas`) and jobs lock in the database
    #: (:meth:`job_lock`).
    shared = False

    # -- what each engine supplies ---------------------------------------------------------

    @property
    def location(self) -> str:
        """Where the catalog lives, for messages: a path, or a URL without its password."""
        raise NotImplementedError

    def transaction(self) -> AbstractContextManager[Connection]:
        raise NotImplementedError

    def _table_exists(self, name: str) -> bool:
        raise NotImplementedError

    def migrate(self) -> None:
        """Apply pending migrations (caller holds the write lock)."""
        raise NotImplementedError

    def schema_sql(self) -> str:
        """The schema as DDL, for ``memex sql --schema``."""
        raise NotImplementedError

    def quick_check(self) -> list[str]:
        """``["ok"]``, or the problems the engine finds with the catalog's storage."""
        raise NotImplementedError

    def last_fragment_change(self) -> int:
        """The sequence number of the newest journal entry (0 when there is none)."""
        raise NotImplementedError

    def query(self, sql: str, limit: int | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """One read-only statement; writes, DDL and escapes raise
        :class:`~memex_core.errors.ReadOnlyQueryError`."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def insert_fragment_rows(self, db: Connection, rows: Sequence[Sequence[Any]]) -> None:
        """One ``INSERT_FRAGMENT`` per row: SQLite runs each in-process for next to nothing.
        An engine that pays a round trip and a trigger call per statement overrides this
        with one statement per batch that stores the same rows."""
        db.executemany(INSERT_FRAGMENT, rows)

    def job_lock(self, name: str, timeout: float, notify: Callable[[str], None] | None) -> Any:
        """On a shared catalog: a lock held by one process across every host for job
        ``name`` (WriteLock's interface); None where the home's write lock is enough."""
        return None

    def change_listener(self) -> Any:
        """Something whose ``wait(timeout)`` returns when the catalog journals a change, for
        followers (see ``memex_server.follower``); None where only polling works."""
        return None

    # -- schema ---------------------------------------------------------------------------

    @property
    def latest_version(self) -> int:
        """The schema version this memex writes."""
        return self.migrations[-1][0]

    def schema_version(self) -> int:
        if not self._table_exists("schema_version"):
            return 0
        row = self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    def needs_migration(self) -> bool:
        version = self.schema_version()
        if version > self.latest_version:
            raise MemexError(
                f"{self.location} was written by a newer memex (schema {version}, this one "
                f"knows {self.latest_version}). Upgrade memex: pip install -U memex"
            )
        return version < self.latest_version

    # -- ingest -----------------------------------------------------------------

    def start_run(self, command: str) -> int:
        cur = self._db.execute(
            "INSERT INTO ingest_runs (started_at, status, command) VALUES (?, 'running', ?) "
            "RETURNING id",
            (time.time(), command),
        )
        return int(cur.fetchone()[0])

    def finish_run(self, run_id: int, status: str, counts: dict[str, int]) -> None:
        self._db.execute(
            "UPDATE ingest_runs SET finished_at=?, status=?, files_new=?, files_unchanged=?, "
            "files_failed=?, fragments_added=? WHERE id=?",
            (
                time.time(),
                status,
                counts.get("new", 0),
                counts.get("unchanged", 0),
                counts.get("failed", 0),
                counts.get("fragments_added", 0),
                run_id,
            ),
        )

    def file_ingested(self, path: str, sha256: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM ingested_files WHERE path=? AND sha256=?", (path, sha256)
        ).fetchone()
        return row is not None

    def file_unchanged_since(self, path: str, size: int, mtime_ns: int) -> bool:
        """Whether ``path`` was ingested with this exact size and modification time."""
        row = self._db.execute(
            "SELECT 1 FROM ingested_files WHERE path=? AND size=? AND mtime_ns=?",
            (path, size, mtime_ns),
        ).fetchone()
        return row is not None

    def add_file(self, **file: Unpack[StoredFile]) -> list[Fragment]:
        """Store one file's fragments atomically; returns those that were new."""
        new, _removed = self.replace_file(**file, replace=False)
        return new

    def replace_file(
        self,
        *,
        run_id: int,
        path: str,
        sha256: str,
        size: int,
        source_kind: str,
        fragments: Sequence[Fragment],
        mtime_ns: int | None = None,
        replace: bool = True,
    ) -> tuple[list[Fragment], list[str]]:
        """Store one file's fragments atomically; with ``replace``, drop the ones an earlier
        version of the same file yielded that this one does not.

        Returns the new fragments and the ids removed (for the indexes to forget).
        """
        now = time.time()
        removed: list[str] = []
        with self.transaction() as db:
            before = last_seq(db)
            first = continued_positions(db, fragments)
            self.insert_fragment_rows(db, fragment_rows(fragments, run_id, first))
            if replace:
                removed = drop_unkept(db, "source_path", path, fragments)
            upsert_conversations(db, fragments)
            upsert_session_folders(db, fragments)
            db.execute(
                "INSERT INTO ingested_files "
                "(path, sha256, size, source_kind, fragments, run_id, ingested_at, mtime_ns) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path, sha256) DO UPDATE SET "
                "size=excluded.size, source_kind=excluded.source_kind, "
                "fragments=excluded.fragments, run_id=excluded.run_id, "
                "ingested_at=excluded.ingested_at, mtime_ns=excluded.mtime_ns",
                (path, sha256, size, source_kind, len(fragments), run_id, now, mtime_ns),
            )
            new = added_since(db, before, fragments)
            crash_point("catalog.file_txn")
        crash_point("catalog.file_committed")
        return new, removed

    def pending_vector_deletes(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT id FROM pending_vector_deletes")]

    def clear_pending_vector_deletes(self, ids: Sequence[str]) -> None:
        with self.transaction() as db:
            db.executemany("DELETE FROM pending_vector_deletes WHERE id=?", [(i,) for i in ids])

    # -- fragments ----------------------------------------------------------------

    def get_many(self, ids: Sequence[str]) -> dict[str, Fragment]:
        found: dict[str, Fragment] = {}
        ids = [i for i in dict.fromkeys(ids) if is_storable(i)]
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._db.execute(
                f"SELECT {FRAGMENT_COLUMNS} FROM fragments WHERE id IN ({marks})", chunk
            ):
                found[row[0]] = row_to_fragment(row)
        return found

    def filter_fields(self, ids: Sequence[str]) -> dict[str, FilterFields]:
        """What search filters read of each of these fragments (missing ids left out):
        :meth:`get_many` without the text and metadata, for judging many candidates
        against a filter (a hybrid search's vector hits: about a third of the cost)."""
        found: dict[str, FilterFields] = {}
        ids = [i for i in dict.fromkeys(ids) if is_storable(i)]
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for fid, kind, conv, role, owner, collection, private, ts in self._db.execute(
                "SELECT id, source_kind, conversation_id, role, owner, collection, private, "
                f"timestamp FROM fragments WHERE id IN ({marks})",
                chunk,
            ):
                found[fid] = FilterFields(kind, conv, role, owner, collection, bool(private), ts)
        return found

    def fragment_ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` fragment ids that start with ``prefix``, in order (a range scan of
        the primary key, so it costs the same in a home of any size)."""
        if not prefix or not is_storable(prefix):
            return []
        rows = self._db.execute(
            "SELECT id FROM fragments WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
            (prefix, prefix + "\U0010ffff", limit),
        )
        return [row[0] for row in rows]

    def iter_fragments(self, batch_size: int = 2000, after_seq: int = 0) -> Iterator[Fragment]:
        """Every fragment in insertion order, streamed in batches."""
        last = after_seq
        while True:
            rows = self._db.execute(
                f"SELECT seq, {FRAGMENT_COLUMNS} FROM fragments WHERE seq > ? ORDER BY seq LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            for row in rows:
                yield row_to_fragment(row[1:])
            last = rows[-1][0]

    def iter_unembedded(self, embedder: str, batch_size: int = 256) -> Iterator[list[Fragment]]:
        """Batches of fragments whose vector was not built by ``embedder``."""
        last = 0
        while True:
            rows = self._db.execute(
                f"SELECT seq, {FRAGMENT_COLUMNS} FROM fragments "
                "WHERE seq > ? AND (embedded_by IS NULL OR embedded_by != ?) "
                "ORDER BY seq LIMIT ?",
                (last, embedder, batch_size),
            ).fetchall()
            if not rows:
                return
            yield [row_to_fragment(row[1:]) for row in rows]
            last = rows[-1][0]

    def all_ids(self) -> set[str]:
        return {r[0] for r in self._db.execute("SELECT id FROM fragments")}

    def mark_embedded(self, ids: Iterable[str], embedder: str) -> None:
        with self.transaction() as db:
            db.executemany(
                "UPDATE fragments SET embedded_by=? WHERE id=?", [(embedder, i) for i in ids]
            )

    def clear_embedded(self) -> None:
        self._db.execute("UPDATE fragments SET embedded_by=NULL")

    # -- the newest fragments (live views) ----------------------------------------------

    def newest_fragment_seq(self) -> int:
        """The newest fragment's number (0 when empty): a live view from here shows what
        comes next."""
        return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM fragments").fetchone()[0])

    def fragments_after(self, seq: int, limit: int) -> list[tuple[int, str, str]]:
        """(number, id, owner) of up to ``limit`` fragments stored after ``seq``, in order."""
        rows = self._db.execute(
            "SELECT seq, id, owner FROM fragments WHERE seq > ? ORDER BY seq LIMIT ?",
            (seq, limit),
        )
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    def newest_fragments(self, owners: Sequence[str] | None, limit: int) -> list[tuple[str, str]]:
        """(id, owner) of the ``limit`` newest fragments, of ``owners`` only if given."""
        if owners is not None and not owners:
            return []
        where, params = "", []
        if owners is not None:
            where = f"WHERE owner IN ({','.join('?' * len(owners))}) "
            params = list(owners)
        rows = self._db.execute(
            f"SELECT id, owner FROM fragments {where}ORDER BY seq DESC LIMIT ?", (*params, limit)
        )
        return [(str(r[0]), str(r[1])) for r in rows]

    def notes_in_folder(self, folders: Sequence[str], sep: str) -> list[str]:
        """Conversation ids of the corpus' notes (role ``note``, not private, not code: a
        repository's files are searched only when named) whose source file is one of
        ``folders`` or under it (``sep``-separated), sorted. "Under" is a range of paths
        (``folder/`` up to ``folder0``, the character after the separator), so the index on
        ``source_path`` answers it."""
        clauses: list[str] = []
        params: list[Any] = list(NAMED_ONLY_SOURCES)
        for folder in folders:
            clauses.append("source_path = ? OR (source_path >= ? AND source_path < ?)")
            params.extend([folder, folder + sep, folder + chr(ord(sep) + 1)])
        if not clauses:
            return []
        rows = self._db.execute(
            "SELECT DISTINCT conversation_id FROM fragments "
            "WHERE role = 'note' AND owner = '' AND private = 0 "
            f"AND source_kind NOT IN ({','.join('?' * len(NAMED_ONLY_SOURCES))}) "
            f"AND ({' OR '.join(clauses)}) "
            "ORDER BY conversation_id",
            params,
        )
        return [str(r[0]) for r in rows]

    # -- change journal (what the keyword index replays) ------------------------------

    def fragment_changes_since(self, seq: int, limit: int | None = None) -> tuple[int, list[str]]:
        """Ids of fragments added or removed after journal entry ``seq`` (each once) and
        the newest entry's number. Whether an id was added or removed is for the reader
        to see in the catalog now: only the end state matters. With ``limit``, only the
        oldest ``limit`` entries, and the number of the last of them (a follower replays a
        long journal a bounded chunk at a time)."""
        if limit is None:
            rows = self._db.execute(
                "SELECT seq, id FROM fragment_changes WHERE seq > ? ORDER BY seq", (seq,)
            ).fetchall()
        else:
            rows = self._db.execute(
                "SELECT seq, id FROM fragment_changes WHERE seq > ? ORDER BY seq LIMIT ?",
                (seq, limit),
            ).fetchall()
        if not rows:
            return max(seq, self.last_fragment_change()), []
        return int(rows[-1][0]), list(dict.fromkeys(r[1] for r in rows))

    def prune_fragment_changes(self, upto: int) -> None:
        """Forget journal entries up to ``upto`` (every index has replayed them)."""
        with self.transaction() as db:
            db.execute("DELETE FROM fragment_changes WHERE seq <= ?", (upto,))
            db.execute(
                "INSERT INTO settings VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = "
                "CASE WHEN CAST(settings.value AS BIGINT) >= CAST(excluded.value AS BIGINT) "
                "THEN settings.value ELSE excluded.value END",
                (PRUNED_SETTING, str(upto)),
            )

    # -- counts and settings --------------------------------------------------------

    def count_fragments(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM fragments").fetchone()[0])

    def fragment_owners(self) -> list[str]:
        """Every distinct fragment owner (``""``: the corpus), sorted: one index seek per
        owner through ``fragments_scope``, so it costs the same in a home of any size."""
        rows = self._db.execute(
            "WITH RECURSIVE o(owner) AS (SELECT MIN(owner) FROM fragments UNION ALL "
            "SELECT (SELECT MIN(owner) FROM fragments WHERE owner > o.owner) FROM o "
            "WHERE o.owner IS NOT NULL) SELECT owner FROM o WHERE owner IS NOT NULL"
        )
        return [row[0] for row in rows]

    def count_embedded(self, embedder: str | None = None) -> int:
        if embedder is None:
            sql = "SELECT COUNT(*) FROM fragments WHERE embedded_by IS NOT NULL"
            return int(self._db.execute(sql).fetchone()[0])
        sql = "SELECT COUNT(*) FROM fragments WHERE embedded_by = ?"
        return int(self._db.execute(sql, (embedder,)).fetchone()[0])

    def group_counts(self, column: str) -> dict[str, int]:
        if column not in ("source_kind", "role"):
            raise ValueError(column)
        rows = self._db.execute(
            f"SELECT {column}, COUNT(*) FROM fragments GROUP BY {column} ORDER BY 2 DESC"
        )
        return {r[0]: int(r[1]) for r in rows}

    def count_conversations(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0])

    def time_span(self) -> tuple[float | None, float | None]:
        row = self._db.execute("SELECT MIN(timestamp), MAX(timestamp) FROM fragments").fetchone()
        return row[0], row[1]

    def ingested_files(self) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT path, sha256, size, source_kind, fragments, ingested_at "
            "FROM ingested_files ORDER BY ingested_at"
        )
        keys = ("path", "sha256", "size", "source_kind", "fragments", "ingested_at")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def get_setting(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_setting(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO settings VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    def delete_setting(self, key: str) -> None:
        self._db.execute("DELETE FROM settings WHERE key=?", (key,))
