"""What ``memex doctor`` asks the catalog: its own integrity, embedding marks, memory rows.

Read-only except for the few repairs that stay inside the catalog: taking back
an embedding mark whose vector is gone, retiring the fragments of a deleted
memory (its text stays in the revisions), copying a memory's scope onto its
fragments, and closing the record of an ingest run that was killed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memex_core.catalog.dbapi import CatalogPart
from memex_core.catalog.rows import delete_fragments
from memex_core.domain.memory.records import ACTIVE, MEMORY_SOURCE

#: Status given to runs that were still "running" when their process died.
INTERRUPTED = "interrupted"


@dataclass
class MemoryDrift:
    """Disagreements between the memory tables and the fragments that make memory searchable."""

    missing_revision: list[str] = field(default_factory=list)  # memory ids
    inactive_fragments: list[str] = field(default_factory=list)  # fragment ids
    orphan_fragments: list[str] = field(default_factory=list)  # fragment ids
    scope_mismatch: list[str] = field(default_factory=list)  # fragment ids
    active_without_fragments: list[str] = field(default_factory=list)  # memory ids


#: Each :class:`MemoryDrift` field and the query (with its parameters) that lists its ids.
_DRIFT_QUERIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "missing_revision": (
        "SELECT m.id FROM memories m WHERE NOT EXISTS (SELECT 1 FROM memory_revisions r "
        "WHERE r.memory_id = m.id AND r.revision = m.revision) ORDER BY m.id",
        (),
    ),
    "inactive_fragments": (
        "SELECT f.id FROM fragments f JOIN memories m ON m.id = f.conversation_id "
        "WHERE m.status != ? ORDER BY f.seq",
        (ACTIVE,),
    ),
    "orphan_fragments": (
        "SELECT f.id FROM fragments f WHERE f.source_kind = ? AND NOT EXISTS "
        "(SELECT 1 FROM memories m WHERE m.id = f.conversation_id) ORDER BY f.seq",
        (MEMORY_SOURCE,),
    ),
    "scope_mismatch": (
        "SELECT f.id FROM fragments f JOIN memories m ON m.id = f.conversation_id "
        "WHERE f.owner != m.owner OR f.collection != m.collection "
        "OR f.private != m.private ORDER BY f.seq",
        (),
    ),
    "active_without_fragments": (
        "SELECT m.id FROM memories m JOIN memory_revisions r "
        "ON r.memory_id = m.id AND r.revision = m.revision "
        "WHERE m.status = ? AND r.content != '' AND NOT EXISTS "
        "(SELECT 1 FROM fragments f WHERE f.conversation_id = m.id) ORDER BY m.id",
        (ACTIVE,),
    ),
}


def _chunks(ids: Sequence[str], size: int = 500) -> list[list[str]]:
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]


class HealthQueries(CatalogPart):
    """Mixed into :class:`~memex_core.catalog.base.SqlCatalog`; uses its connection.

    How the engine checks its own storage is each catalog's ``quick_check``."""

    # -- embedding marks ---------------------------------------------------------------

    def embedded_ids(self) -> dict[str, str]:
        """Fragment id -> the embedder its vector was built by, for every marked fragment."""
        rows = self._db.execute(
            "SELECT id, embedded_by FROM fragments WHERE embedded_by IS NOT NULL"
        )
        return {r[0]: r[1] for r in rows}

    def unembedded_among(self, ids: Sequence[str], embedder: str) -> list[str]:
        """Those of ``ids`` the catalog holds whose vector was not built by ``embedder``,
        in the order given (``memex ask`` embeds the code its question reaches first)."""
        missing: set[str] = set()
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT id FROM fragments WHERE id IN ({marks}) "
                "AND (embedded_by IS NULL OR embedded_by != ?)",
                (*chunk, embedder),
            )
            missing.update(r[0] for r in rows)
        return [i for i in dict.fromkeys(ids) if i in missing]

    def embedding_marks(self, conversation_ids: Sequence[str]) -> list[tuple[str, str | None]]:
        """(fragment id, the embedder its vector was built by or None) for every fragment of
        these conversations or documents, ids only: what ``ask`` counts a repository's
        vector coverage from at every question, without reading the fragments' text."""
        marks: list[tuple[str, str | None]] = []
        for chunk in _chunks(conversation_ids):
            holes = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT id, embedded_by FROM fragments WHERE conversation_id IN ({holes})",
                chunk,
            )
            marks.extend((r[0], r[1]) for r in rows)
        return marks

    def unmark_embedded(self, ids: Sequence[str]) -> None:
        """Forget that these fragments have vectors, so the next backfill embeds them."""
        with self.transaction() as db:
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                db.execute(f"UPDATE fragments SET embedded_by=NULL WHERE id IN ({marks})", chunk)

    # -- ingest runs ----------------------------------------------------------------------

    def interrupted_runs(self) -> list[tuple[int, float, str]]:
        """(id, started_at, command) of runs recorded as running. Call with the write lock
        held: then no run is really under way."""
        rows = self._db.execute(
            "SELECT id, started_at, COALESCE(command, '') FROM ingest_runs "
            "WHERE status='running' ORDER BY id"
        )
        return [(int(r[0]), float(r[1]), str(r[2])) for r in rows]

    def close_interrupted_runs(self, run_ids: Sequence[int] | None = None) -> None:
        """Record runs (all those still "running" by default) as interrupted. Call with
        the write lock held."""
        with self.transaction() as db:
            if run_ids is None:
                db.execute("UPDATE ingest_runs SET status=? WHERE status='running'", (INTERRUPTED,))
                return
            db.executemany(
                "UPDATE ingest_runs SET status=? WHERE id=? AND status='running'",
                [(INTERRUPTED, run_id) for run_id in run_ids],
            )

    # -- memory ---------------------------------------------------------------------------

    def count_memories(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM memories").fetchone()[0])

    def row_counts(self, tables: Sequence[str]) -> dict[str, int]:
        """Rows in each of ``tables`` (names from the schema, never from a caller's input)."""
        return {
            name: int(self._db.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0])
            for name in tables
        }

    def erase_freed(self) -> bool | None:
        """Leave no copy of deleted rows in the catalog's own files (after a purge).

        An engine whose files keep the bytes of deleted rows until they are reused
        overrides this (SQLite rewrites its file and empties its write-ahead log, and
        answers whether it could); a database server's files, logs and backups are its
        administrator's to manage (None: nothing done here)."""
        return None

    def memory_drift(self) -> MemoryDrift:
        db = self._db
        return MemoryDrift(
            **{
                name: [r[0] for r in db.execute(sql, params)]
                for name, (sql, params) in _DRIFT_QUERIES.items()
            }
        )

    def retire_fragments(self, ids: Sequence[str]) -> None:
        """Delete fragments (their vectors are queued for deletion, their links go)."""
        with self.transaction() as db:
            delete_fragments(db, list(ids))

    def copy_memory_scope(self, ids: Sequence[str]) -> None:
        """Give these memory fragments their memory's owner, collection and privacy."""
        with self.transaction() as db:
            for chunk in _chunks(ids):
                marks = ",".join("?" * len(chunk))
                db.execute(
                    "UPDATE fragments SET "
                    "owner = (SELECT m.owner FROM memories m WHERE m.id = conversation_id), "
                    "collection = (SELECT m.collection FROM memories m "
                    "WHERE m.id = conversation_id), "
                    "private = (SELECT m.private FROM memories m WHERE m.id = conversation_id) "
                    f"WHERE id IN ({marks}) "
                    "AND conversation_id IN (SELECT id FROM memories)",
                    chunk,
                )
