"""Replicas sharing one catalog (table ``replicas``): each home's place in the change journal,
as it last told the catalog. Rows in, rows out; the policy (when to prune, who counts as
gone) is :mod:`memex_core.replicas`."""

from __future__ import annotations

import time

from memex_core.catalog.dbapi import CatalogPart


class ReplicaRegistry(CatalogPart):
    """The ``replicas`` table: ``name`` (host and home), ``seen`` (the journal entry its
    keyword index on disk reflects), ``updated_at`` (when it last said so)."""

    def record_replica(self, name: str, seen: int, at: float | None = None) -> None:
        self._db.execute(
            "INSERT INTO replicas (name, seen, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET seen = excluded.seen, "
            "updated_at = excluded.updated_at",
            (name, int(seen), time.time() if at is None else at),
        )

    def replica_floor(self, heard_since: float) -> int | None:
        """The lowest place among replicas heard from at or after ``heard_since`` (None when
        none was): the journal may be pruned up to there."""
        row = self._db.execute(
            "SELECT MIN(seen) FROM replicas WHERE updated_at >= ?", (heard_since,)
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def replicas(self) -> list[tuple[str, int, float]]:
        """Every replica the catalog knows: (name, seen, updated_at), most behind first."""
        rows = self._db.execute(
            "SELECT name, seen, updated_at FROM replicas ORDER BY seen, name"
        ).fetchall()
        return [(str(r[0]), int(r[1]), float(r[2])) for r in rows]

    def forget_replica(self, name: str) -> bool:
        """Drop a replica that is gone for good (so the doctor stops naming it)."""
        found = self._db.execute("DELETE FROM replicas WHERE name = ?", (name,))
        return bool(found.rowcount)
