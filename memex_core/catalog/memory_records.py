"""Agent memory in the catalog: memories, their revisions, memory-file links, the access log.

This is where isolation is enforced. Every method takes a :class:`Scope` and
puts ``owner IN (<readable owners>)`` into its SQL itself, so a caller can
pass any id, path or collection it likes and still only ever see or change
memory it is allowed to. Writes check ``scope.can_write`` before touching a
row. Operators (``readable is None``) see everything.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from memex_core.catalog.dbapi import CatalogPart, Connection
from memex_core.catalog.rows import (
    added_since,
    delete_fragments,
    drop_unkept,
    fragment_rows,
    id_chunks,
    is_storable,
    last_seq,
)
from memex_core.domain import Fragment
from memex_core.domain.memory.records import (
    ACTIVE,
    AccessEntry,
    MemoryRecord,
    MemoryWrite,
    Revision,
    Scope,
)
from memex_core.domain.memory.validity import check_interval, read_start
from memex_core.errors import MemexError

MEMORY_ROOT = "memory"  # documents.root of memory files

_MEMORY_COLUMNS = (
    "m.id, m.owner, m.collection, m.path, m.kind, m.status, m.revision, m.private, "
    "m.created_at, m.updated_at, r.content, COALESCE(m.valid_from, m.created_at), "
    "m.valid_until, m.superseded_by"
)
_FROM_MEMORY = (
    "FROM memories m JOIN memory_revisions r ON r.memory_id = m.id AND r.revision = m.revision"
)
_REVISION_COLUMNS = (
    "memory_id, revision, content, kind, status, action, actor, created_at, reason, "
    "tool_call_id, sources, redactions"
)


class MemoryAccessDenied(MemexError):
    """A handle tried to write memory outside its scope."""


@dataclass(frozen=True)
class MemoryLinkRow:
    """One link out of a memory file, as stored."""

    source_memory: str
    source_path: str
    target: str  # as written
    target_path: str | None  # storage path it maps to (None when it cannot map)
    target_memory: str | None  # the memory at that path, when it exists and is readable


def _owner_clause(scope: Scope, column: str = "m.owner") -> tuple[str, list[Any]]:
    if scope.readable is None:
        return "1=1", []
    if not scope.readable:
        return "0=1", []
    return f"{column} IN ({','.join('?' * len(scope.readable))})", list(scope.readable)


# The SELECTs list their columns in the order of the record's fields, so a row unpacks
# into its record with only the conversions the engines differ on.


def _record(row: Sequence[Any]) -> MemoryRecord:
    fields = [*row[:6], int(row[6]), bool(row[7]), float(row[8]), float(row[9]), row[10]]
    until = None if row[12] is None else float(row[12])
    fields += [read_start(float(row[11]), until), until, row[13]]
    return MemoryRecord(*fields)


def _revision(row: Sequence[Any]) -> Revision:
    fields = [row[0], int(row[1]), *row[2:7], float(row[7]), row[8] or "", row[9]]
    fields += [tuple(json.loads(row[10] or "[]")), int(row[11] or 0)]
    return Revision(*fields)


class MemoryStore(CatalogPart):
    """Mixin of :class:`memex_core.catalog.base.SqlCatalog` for agent memory."""

    # -- reading ------------------------------------------------------------------------

    def memory(self, scope: Scope, memory_id: str) -> MemoryRecord | None:
        """The memory with this id, if ``scope`` may read it (None otherwise, so another
        user's id is indistinguishable from an unknown one)."""
        if not is_storable(memory_id):
            return None
        return self._memory_where(scope, "m.id", memory_id)

    def _memory_where(self, scope: Scope, column: str, value: str) -> MemoryRecord | None:
        owners, params = _owner_clause(scope)
        row = self._db.execute(
            f"SELECT {_MEMORY_COLUMNS} {_FROM_MEMORY} WHERE {column} = ? AND {owners}",
            (value, *params),
        ).fetchone()
        return _record(row) if row else None

    def memory_ids_with_prefix(self, scope: Scope, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` ids of memories ``scope`` may read that start with ``prefix``."""
        if not prefix or not is_storable(prefix):
            return []
        owners, params = _owner_clause(scope)
        rows = self._db.execute(
            f"SELECT m.id {_FROM_MEMORY} WHERE m.id >= ? AND m.id < ? AND {owners} "
            "ORDER BY m.id LIMIT ?",
            (prefix, prefix + "\U0010ffff", *params, limit),
        )
        return [row[0] for row in rows]

    def memory_at_path(self, scope: Scope, path: str) -> MemoryRecord | None:
        """The memory file at a storage path, if readable."""
        return self._memory_where(scope, "m.path", path)

    def memories(
        self,
        scope: Scope,
        *,
        owners: Sequence[str] = (),
        collections: Sequence[str] | None = None,
        statuses: Sequence[str] = (ACTIVE,),
        kinds: Sequence[str] = (),
        fingerprint: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MemoryRecord]:
        """Readable memories, oldest first. ``owners`` narrows (never widens) the scope;
        ``collections`` holds exact names (None: any)."""
        clause, params = _owner_clause(scope)
        clauses = [clause]
        for column, values in (
            ("m.owner", owners),
            ("m.collection", collections),
            ("m.status", statuses),
            ("m.kind", kinds),
        ):
            if values is None or (not values and column != "m.collection"):
                continue
            if not values:  # an empty collection list matches nothing
                return []
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            params.extend(values)
        if fingerprint is not None:
            clauses.append("m.fingerprint = ?")
            params.append(fingerprint)
        sql = (
            f"SELECT {_MEMORY_COLUMNS} {_FROM_MEMORY} WHERE {' AND '.join(clauses)} "
            f"ORDER BY m.created_at, {self.dialect.memory_order('m')}"
        )
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params.extend([limit, offset])
        return [_record(r) for r in self._db.execute(sql, params)]

    def memory_collections(self, scope: Scope, owners: Sequence[str] = ()) -> list[str]:
        """Distinct collection names of readable memories (any status), sorted."""
        clause, params = _owner_clause(scope)
        sql = f"SELECT DISTINCT m.collection FROM memories m WHERE {clause}"
        if owners:
            sql += f" AND m.owner IN ({','.join('?' * len(owners))})"
            params.extend(owners)
        return sorted(r[0] for r in self._db.execute(sql, params))

    def memories_by_fragment(self, scope: Scope, fragment_ids: Sequence[str]) -> dict[str, str]:
        """Fragment id -> memory id, for readable memory fragments among ``fragment_ids``."""
        if not fragment_ids:
            return {}
        clause, params = _owner_clause(scope, "f.owner")
        found: dict[str, str] = {}
        for chunk in id_chunks(fragment_ids):
            rows = self._db.execute(
                "SELECT f.id, f.conversation_id FROM fragments f "
                "JOIN memories m ON m.id = f.conversation_id "
                f"WHERE f.id IN ({','.join('?' * len(chunk))}) AND {clause} AND m.owner = f.owner",
                (*chunk, *params),
            )
            found.update({r[0]: r[1] for r in rows})
        return found

    def memory_validity(self, memory_ids: Sequence[str]) -> dict[str, tuple[float, float | None]]:
        """Memory id -> (valid_from, valid_until) of those among ``memory_ids`` that are
        memories. Times only, no text: a search reading by time drops the hits of facts
        not valid when asked (the hits themselves were scoped by the search's filters)."""
        found: dict[str, tuple[float, float | None]] = {}
        for chunk in id_chunks(memory_ids):
            rows = self._db.execute(
                "SELECT id, COALESCE(valid_from, created_at), valid_until FROM memories "
                f"WHERE id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            for memory_id, start, end in rows:
                until = None if end is None else float(end)
                found[memory_id] = (read_start(float(start), until), until)
        return found

    def memory_successors(self, memory_ids: Sequence[str]) -> dict[str, str]:
        """Memory id -> the memory that closed it (``superseded_by``), for those among
        ``memory_ids`` that were closed. Ids only: a search links the facts of one chain
        among hits already scoped by its filters."""
        found: dict[str, str] = {}
        for chunk in id_chunks(memory_ids):
            rows = self._db.execute(
                "SELECT id, superseded_by FROM memories WHERE superseded_by IS NOT NULL "
                f"AND id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            found.update({r[0]: r[1] for r in rows})
        return found

    def superseded_memories(self) -> bool:
        """Whether any memory has been closed (a search reading by time can skip its
        checks on a home where none has)."""
        row = self._db.execute(
            "SELECT 1 FROM memories WHERE valid_until IS NOT NULL LIMIT 1"
        ).fetchone()
        return row is not None

    def supersession_chain(self, scope: Scope, memory_id: str) -> list[MemoryRecord]:
        """The facts ``memory_id`` belongs to in time: those it superseded (and they theirs)
        before it and those superseding it after, oldest first, readable ones only."""
        start = self.memory(scope, memory_id)
        if start is None:
            return []
        latest, seen = start, {start.id}
        while latest.superseded_by and latest.superseded_by not in seen:
            later = self.memory(scope, latest.superseded_by)  # forward: what closed it
            if later is None:
                break
            latest = later
            seen.add(latest.id)
        owners, params = _owner_clause(scope)
        chain, seen, frontier = [latest], {latest.id}, [latest.id]
        while frontier:  # back from the latest: what it closed, and those theirs
            marks = ",".join("?" * len(frontier))
            rows = self._db.execute(
                f"SELECT {_MEMORY_COLUMNS} {_FROM_MEMORY} WHERE m.superseded_by IN ({marks}) "
                f"AND {owners}",
                (*frontier, *params),
            ).fetchall()
            found = [r for r in map(_record, rows) if r.id not in seen]
            seen.update(r.id for r in found)
            chain.extend(found)
            frontier = [r.id for r in found]
        return sorted(chain, key=lambda r: (r.holds_from, r.created_at))

    def revisions(self, scope: Scope, memory_id: str) -> list[Revision]:
        """Every revision of a readable memory, oldest first (empty if not readable)."""
        if self.memory(scope, memory_id) is None:
            return []
        rows = self._db.execute(
            f"SELECT {_REVISION_COLUMNS} FROM memory_revisions WHERE memory_id = ? "
            "ORDER BY revision",
            (memory_id,),
        )
        return [_revision(r) for r in rows]

    def memory_owners(self) -> list[str]:
        """Every owner that has memory (operators list across users with it)."""
        return sorted(r[0] for r in self._db.execute("SELECT DISTINCT owner FROM memories"))

    def memory_outlinks(self, scope: Scope, memory_id: str) -> list[MemoryLinkRow]:
        """Links written in a readable memory file; targets outside the scope show as
        unresolved (no memory id), never as someone else's memory."""
        source = self.memory(scope, memory_id)
        if source is None:
            return []
        rows = self._db.execute(
            "SELECT target, target_path, target_document FROM links "
            "WHERE source_document = ? ORDER BY id",
            (memory_id,),
        ).fetchall()
        out = []
        for target, target_path, target_document in rows:
            readable = target_document and self.memory(scope, target_document) is not None
            out.append(
                MemoryLinkRow(
                    memory_id,
                    source.path or "",
                    target,
                    target_path,
                    target_document if readable else None,
                )
            )
        return out

    def memory_backlinks(self, scope: Scope, memory_id: str) -> list[MemoryLinkRow]:
        """Links into a readable memory file from memory files the scope may read."""
        target = self.memory(scope, memory_id)
        if target is None or target.path is None:
            return []
        clause, params = _owner_clause(scope)
        rows = self._db.execute(
            "SELECT l.source_document, m.path, l.target, l.target_path FROM links l "
            "JOIN memories m ON m.id = l.source_document "
            f"WHERE l.target_path = ? AND m.status = 'active' AND {clause} ORDER BY m.path",
            (target.path, *params),
        )
        return [MemoryLinkRow(r[0], r[1], r[2], r[3], memory_id) for r in rows]

    # -- writing -------------------------------------------------------------------------

    def _check_write(self, scope: Scope, owner: str, memory_id: str) -> None:
        if not scope.can_write(owner):
            raise MemoryAccessDenied(
                f"{scope.actor.label} may not write memory owned by {owner!r}"
                + (
                    "; shared memory is read-only for agents unless MEMEX_SHARED_WRITE_MODE=rw"
                    if owner == "shared"
                    else ""
                )
            )
        row = self._db.execute("SELECT owner FROM memories WHERE id = ?", (memory_id,)).fetchone()
        if row is not None and row[0] != owner:
            raise MemoryAccessDenied(f"memory {memory_id} cannot change owner")

    def write_memory(self, scope: Scope, write: MemoryWrite) -> tuple[list[Fragment], list[str]]:
        """Store a memory's new state, its revision, fragments and links atomically, with
        the facts it closes (``write.closes``) in the same transaction.

        The memory's previous fragments are replaced (their vectors queued for
        deletion). Returns (new fragments, removed fragment ids) for the indexes.
        """
        writes = [write, *write.closes]
        for one in writes:
            self._check_memory_write(scope, one)
        new: list[Fragment] = []
        removed: list[str] = []
        with self.transaction() as db:
            for one in writes:
                added, dropped = self._write_one(db, one)
                new.extend(added)
                removed.extend(dropped)
        return new, removed

    def _check_memory_write(self, scope: Scope, write: MemoryWrite) -> None:
        record, revision = write.record, write.revision
        if revision.memory_id != record.id or revision.revision != record.revision:
            raise ValueError("the revision must describe the record's current revision")
        self._check_write(scope, record.owner, record.id)
        check_interval(record.holds_from, record.valid_until)
        if record.path is not None and not record.path.startswith(f"{record.owner}/"):
            raise MemoryAccessDenied(f"{record.path!r} is not a path of {record.owner!r}")
        for fragment in write.fragments:
            if fragment.owner != record.owner or fragment.conversation_id != record.id:
                raise ValueError("memory fragments must carry the memory's id and owner")

    def _write_one(self, db: Connection, write: MemoryWrite) -> tuple[list[Fragment], list[str]]:
        record, revision = write.record, write.revision
        db.execute(
            "INSERT INTO memories (id, owner, collection, path, kind, status, revision, "
            "private, fingerprint, created_at, updated_at, valid_from, valid_until, "
            "superseded_by) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
            "collection=excluded.collection, path=excluded.path, kind=excluded.kind, "
            "status=excluded.status, revision=excluded.revision, private=excluded.private, "
            "fingerprint=excluded.fingerprint, updated_at=excluded.updated_at, "
            "valid_from=excluded.valid_from, valid_until=excluded.valid_until, "
            "superseded_by=excluded.superseded_by",
            (
                record.id,
                record.owner,
                record.collection,
                record.path,
                record.kind,
                record.status,
                record.revision,
                int(record.private),
                write.fingerprint,
                record.created_at,
                record.updated_at,
                record.holds_from,
                record.valid_until,
                record.superseded_by,
            ),
        )
        db.execute(
            f"INSERT INTO memory_revisions ({_REVISION_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                revision.memory_id,
                revision.revision,
                revision.content,
                revision.kind,
                revision.status,
                revision.action,
                revision.actor,
                revision.created_at,
                revision.reason,
                revision.tool_call_id,
                json.dumps(list(revision.sources)),
                revision.redactions,
            ),
        )
        if write.keep_fragments:  # a closing: the same text, still searchable as it was
            return [], []
        removed = drop_unkept(db, "conversation_id", record.id, write.fragments)
        before = last_seq(db)
        self.insert_fragment_rows(db, fragment_rows(write.fragments, None))
        new = added_since(db, before, write.fragments)
        self._store_memory_file(db, record, write)
        return new, removed

    def _store_memory_file(self, db: Connection, record: MemoryRecord, write: MemoryWrite) -> None:
        """Keep the memory file's document row and links in the shared link graph."""
        db.execute("DELETE FROM links WHERE source_document = ?", (record.id,))
        if record.path is None:
            return
        if record.status != ACTIVE:
            db.execute("DELETE FROM documents WHERE id = ?", (record.id,))
            db.execute(
                "UPDATE links SET target_document = NULL WHERE target_document = ?", (record.id,)
            )
            return
        title = record.path.rsplit("/", 1)[-1].removesuffix(".md")
        db.execute(
            "INSERT INTO documents (id, source_kind, root, path, title, sha256, size, "
            "timestamp, updated_at) VALUES (?, 'memory', ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET path=excluded.path, title=excluded.title, "
            "sha256=excluded.sha256, size=excluded.size, timestamp=excluded.timestamp, "
            "updated_at=excluded.updated_at",
            (
                record.id,
                MEMORY_ROOT,
                record.path,
                title,
                write.fingerprint,
                len(record.content.encode()),
                record.updated_at,
                record.updated_at,
            ),
        )
        first_fragment = write.fragments[0].id if write.fragments else ""
        for target, target_path in write.links:
            target_id = None
            if target_path is not None:
                row = db.execute(
                    "SELECT id FROM memories WHERE path = ? AND status = 'active'", (target_path,)
                ).fetchone()
                target_id = row[0] if row else None
            db.execute(
                "INSERT INTO links (source_document, source_fragment, target, kind, "
                "target_path, target_document) VALUES (?, ?, ?, 'link', ?, ?)",
                (record.id, first_fragment, target, target_path, target_id),
            )
        # Links written before this file existed now lead somewhere.
        db.execute(
            "UPDATE links SET target_document = ? WHERE target_path = ? "
            "AND source_document IN (SELECT id FROM memories)",
            (record.id, record.path),
        )

    def purge_memories(self, scope: Scope, memory_ids: Iterable[str]) -> list[str]:
        """Hard-delete memories with every revision, fragment and link (operators only).

        Access-log entries stay, with their target replaced by ``[purged]``, so the
        audit trail survives without the content. Returns removed fragment ids.
        """
        if not scope.is_operator:
            raise MemoryAccessDenied("only an operator may purge memory")
        ids = list(dict.fromkeys(memory_ids))
        removed: list[str] = []
        with self.transaction() as db:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                fragment_ids = [
                    r[0]
                    for r in db.execute(
                        f"SELECT id FROM fragments WHERE conversation_id IN ({marks})", chunk
                    )
                ]
                delete_fragments(db, fragment_ids)
                removed.extend(fragment_ids)
                db.execute(f"DELETE FROM links WHERE source_document IN ({marks})", chunk)
                db.execute(
                    f"UPDATE links SET target_document = NULL WHERE target_document IN ({marks})",
                    chunk,
                )
                db.execute(f"DELETE FROM documents WHERE id IN ({marks})", chunk)
                db.execute(f"DELETE FROM memory_revisions WHERE memory_id IN ({marks})", chunk)
                db.execute(f"DELETE FROM memories WHERE id IN ({marks})", chunk)
                db.execute(
                    f"UPDATE access_log SET target = '[purged]', detail = '{{}}' "
                    f"WHERE target IN ({marks})",
                    chunk,
                )
        return removed

    def scrub_access_log(self, user_id: str) -> int:
        """Blank the targets (queries, paths) of a purged user's log entries."""
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE access_log SET target = '[purged]', detail = '{}' WHERE user_id = ?",
                (user_id,),
            )
        return cur.rowcount

    # -- access log -----------------------------------------------------------------------

    def log_access(
        self,
        *,
        actor_kind: str,
        actor: str,
        user_id: str | None,
        action: str,
        target: str = "",
        tool_call_id: str | None = None,
        outcome: str = "ok",
        detail: dict[str, Any] | None = None,
    ) -> int:
        cur = self._db.execute(
            "INSERT INTO access_log (at, actor_kind, actor, user_id, action, target, "
            "tool_call_id, outcome, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                time.time(),
                actor_kind,
                actor,
                user_id,
                action,
                _loggable(target),
                None if tool_call_id is None else _loggable(tool_call_id),
                outcome,
                _loggable(json.dumps(detail or {}, ensure_ascii=False, default=str)),
            ),
        )
        return int(cur.fetchone()[0])

    def access_log(
        self,
        *,
        user_id: str | None = None,
        actor: str | None = None,
        actor_kind: str | None = None,
        action: str | None = None,
        outcome: str | None = None,
        tool_call_id: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 100,
    ) -> list[AccessEntry]:
        """Newest entries first, filtered."""
        clauses: list[str] = []
        params: list[Any] = []
        for column, value in (
            ("user_id", user_id),
            ("actor", actor),
            ("actor_kind", actor_kind),
            ("action", action),
            ("outcome", outcome),
            ("tool_call_id", tool_call_id),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if since is not None:
            clauses.append("at >= ?")
            params.append(since)
        if until is not None:
            clauses.append("at <= ?")
            params.append(until)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._db.execute(
            "SELECT id, at, actor_kind, actor, user_id, action, target, tool_call_id, outcome, "
            f"detail FROM access_log {where} ORDER BY id DESC LIMIT ?",
            (*params, limit),
        )
        return [AccessEntry(*[*r[:9], json.loads(r[9] or "{}")]) for r in rows]


def _loggable(text: str) -> str:
    """``text`` as the log can store it: what a caller passed is kept, but half a surrogate
    pair (which UTF-8 cannot hold) is written as its escape, ``\\ud800``."""
    return text if is_storable(text) else text.encode("utf-8", "backslashreplace").decode()
