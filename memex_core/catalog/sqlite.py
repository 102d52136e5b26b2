"""The SQLite catalog: the record of truth for fragments, conversations and ingest runs.

Indexes (keyword, vector) are derived from it and can always be rebuilt from it.
WAL mode lets readers work while one writer (serialised by :class:`WriteLock`)
commits. Each file's fragments are committed in one transaction, so a crash
leaves all of a file or none of it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from memex_core.catalog.agent_keys import AgentKeyStore
from memex_core.catalog.documents import DocumentStore
from memex_core.catalog.faults import from_os_error, from_sqlite_error
from memex_core.catalog.graph import LinkGraph
from memex_core.catalog.health import HealthQueries
from memex_core.catalog.memory import MemoryStore
from memex_core.catalog.read_only import connect_read_only, run_query
from memex_core.catalog.rows import (
    FRAGMENT_COLUMNS,
    INSERT_FRAGMENT,
    continued_positions,
    delete_fragments,
    fragment_rows,
    is_storable,
    row_to_fragment,
    upsert_conversations,
)
from memex_core.catalog.schema import LATEST_VERSION, MIGRATIONS
from memex_core.crashpoints import crash_point
from memex_core.domain import Fragment
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
            translated = from_sqlite_error(exc, self.database_path)
            if translated is None:
                raise
            raise translated from exc

    def executemany(self, *args: Any) -> sqlite3.Cursor:
        try:
            return super().executemany(*args)
        except sqlite3.OperationalError as exc:
            translated = from_sqlite_error(exc, self.database_path)
            if translated is None:
                raise
            raise translated from exc


class Catalog(DocumentStore, LinkGraph, MemoryStore, HealthQueries, AgentKeyStore):
    """Typed access to ``catalog.sqlite``. Writers must hold the home's WriteLock.

    Folder documents and the link graph live in :mod:`memex_core.catalog.documents`
    and :mod:`memex_core.catalog.graph`, agent memory in :mod:`memex_core.catalog.memory`,
    agent API keys in :mod:`memex_core.catalog.agent_keys`; this module holds fragments,
    runs and files.
    """

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
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=10000")
            self._db.execute("PRAGMA foreign_keys=ON")
        except MemexError:
            raise
        except sqlite3.DatabaseError as exc:
            raise MemexError(
                f"{path}: cannot open the catalog ({exc}). If the file is damaged, move it "
                "away and re-ingest your sources."
            ) from exc

    # -- schema ---------------------------------------------------------------

    def schema_version(self) -> int:
        exists = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'"
        ).fetchone()
        if not exists:
            return 0
        row = self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    def needs_migration(self) -> bool:
        version = self.schema_version()
        if version > LATEST_VERSION:
            raise MemexError(
                f"{self.path} was written by a newer memex (schema {version}, this one knows "
                f"{LATEST_VERSION}). Upgrade memex: pip install -U memex"
            )
        return version < LATEST_VERSION

    def migrate(self) -> None:
        """Apply pending migrations (caller holds the write lock)."""
        version = self.schema_version()
        with self.transaction():
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
            )
            for number, sql in MIGRATIONS:
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

    def transaction(self) -> Catalog._Transaction:
        return Catalog._Transaction(self._db)

    # -- ingest -----------------------------------------------------------------

    def start_run(self, command: str) -> int:
        cur = self._db.execute(
            "INSERT INTO ingest_runs (started_at, status, command) VALUES (?, 'running', ?)",
            (time.time(), command),
        )
        return int(cur.lastrowid or 0)

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

    def add_file(
        self,
        *,
        run_id: int,
        path: str,
        sha256: str,
        size: int,
        source_kind: str,
        fragments: Sequence[Fragment],
        mtime_ns: int | None = None,
    ) -> list[Fragment]:
        """Store one file's fragments atomically; returns those that were new."""
        new, _removed = self.replace_file(
            run_id=run_id,
            path=path,
            sha256=sha256,
            size=size,
            source_kind=source_kind,
            fragments=fragments,
            mtime_ns=mtime_ns,
            replace=False,
        )
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
            before = db.execute("SELECT COALESCE(MAX(seq), 0) FROM fragments").fetchone()[0]
            first = continued_positions(db, fragments)
            db.executemany(INSERT_FRAGMENT, fragment_rows(fragments, run_id, first))
            if replace:
                keep = {f.id for f in fragments}
                previous = [
                    r[0]
                    for r in db.execute("SELECT id FROM fragments WHERE source_path=?", (path,))
                ]
                removed = [i for i in previous if i not in keep]
                delete_fragments(db, removed)
            upsert_conversations(db, fragments)
            db.execute(
                "INSERT OR REPLACE INTO ingested_files "
                "(path, sha256, size, source_kind, fragments, run_id, ingested_at, mtime_ns) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (path, sha256, size, source_kind, len(fragments), run_id, now, mtime_ns),
            )
            new_ids = {
                r[0] for r in db.execute("SELECT id FROM fragments WHERE seq > ?", (before,))
            }
            crash_point("catalog.file_txn")
        crash_point("catalog.file_committed")
        return [f for f in fragments if f.id in new_ids], removed

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

    # -- change journal (what the keyword index replays) ------------------------------

    def last_fragment_change(self) -> int:
        """The sequence number of the newest journal entry (0 when there is none)."""
        row = self._db.execute("SELECT seq FROM sqlite_sequence WHERE name='fragment_changes'")
        found = row.fetchone()
        return int(found[0]) if found else 0

    def fragment_changes_since(self, seq: int) -> tuple[int, list[str]]:
        """Ids of fragments added or removed after journal entry ``seq`` (each once) and
        the newest entry's number. Whether an id was added or removed is for the reader
        to see in the catalog now: only the end state matters."""
        rows = self._db.execute(
            "SELECT seq, id FROM fragment_changes WHERE seq > ? ORDER BY seq", (seq,)
        ).fetchall()
        if not rows:
            return max(seq, self.last_fragment_change()), []
        return int(rows[-1][0]), list(dict.fromkeys(r[1] for r in rows))

    def prune_fragment_changes(self, upto: int) -> None:
        """Forget journal entries up to ``upto`` (every index has replayed them)."""
        with self.transaction() as db:
            db.execute("DELETE FROM fragment_changes WHERE seq <= ?", (upto,))
            db.execute(
                "INSERT INTO settings VALUES ('fragment_changes_pruned', ?) ON CONFLICT(key) "
                "DO UPDATE SET value = "
                "MAX(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))",
                (str(upto),),
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
        self._db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))

    def delete_setting(self, key: str) -> None:
        self._db.execute("DELETE FROM settings WHERE key=?", (key,))

    # -- read-only SQL ----------------------------------------------------------------

    def read_only(self) -> sqlite3.Connection:
        """A separate connection that can only read (see :mod:`memex_core.catalog.read_only`)."""
        return connect_read_only(self.path)

    def query(self, sql: str, limit: int | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """One read-only statement; writes, ATTACH, PRAGMA... raise :class:`ReadOnlyQueryError`."""
        return run_query(self.path, sql, limit)

    def close(self) -> None:
        self._db.close()
