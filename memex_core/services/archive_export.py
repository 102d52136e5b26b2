"""``memex export``: a home (or the part of it a filter names) written as one archive.

Rows are read a batch at a time in a stable order (a row number or the key, continued
from the last row read, never an OFFSET) and written to the zip as they come, each
member hashed on the way: memory use stays the same whatever the size of the home.
The format is :mod:`memex_core.services.archive_format`.
"""

from __future__ import annotations

import json
import os
import time
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol

from memex_core.catalog.dbapi import Connection, Dialect
from memex_core.domain.memory.namespaces import SEPARATOR
from memex_core.domain.memory.records import MEMORY_SOURCE, user_owner
from memex_core.services.archive_format import (
    BATCH,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    MEMBERS,
    READ_SETTINGS,
    VECTORS,
    ArchiveError,
    Filters,
    Member,
    MemberDigest,
    line,
    value,
)
from memex_core.services.archive_vectors import IDENTITY_KEY, VectorSource, identity, vector_line
from memex_core.services.index_text import VECTOR_CONTEXT_SETTING
from memex_core.services.indexing import EMBEDDER_BUILD_SETTING, EMBEDDER_SETTING
from memex_core.services.ports import NoProgress, Progress

#: Every member written with this date, so the same content makes the same zip entries.
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class ArchiveCatalog(Protocol):
    """What export and import use of the catalog."""

    dialect: Dialect

    def transaction(self) -> AbstractContextManager[Connection]: ...

    def query(
        self, sql: str, limit: int | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]: ...


def table_columns(catalog: ArchiveCatalog, table: str) -> list[str]:
    """The columns ``table`` has in this home's catalog, in its order."""
    columns, _rows = catalog.query(f"SELECT * FROM {table} LIMIT 0")
    return list(columns)


def order_columns(member: Member, dialect: Dialect) -> list[str]:
    """What ``member``'s rows are read in order of (and continued from)."""
    if member.order == "@memory_order":
        return [dialect.memory_order(member.table)]
    return [member.order] if member.order else list(member.key)


@dataclass
class ExportReport:
    """What ``memex export`` wrote."""

    target: str
    members: dict[str, int] = field(default_factory=dict)  # member -> rows
    bytes: int = 0
    seconds: float = 0.0
    filters: dict[str, Any] = field(default_factory=dict)
    with_log: bool = True
    with_vectors: bool = False

    @property
    def fragments(self) -> int:
        return self.members.get("fragments.jsonl", 0)

    @property
    def fragments_per_s(self) -> float:
        return self.fragments / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "members": dict(self.members),
            "fragments": self.fragments,
            "bytes": self.bytes,
            "seconds": round(self.seconds, 3),
            "fragments_per_s": round(self.fragments_per_s, 1),
            "filters": dict(self.filters),
            "with_log": self.with_log,
            "with_vectors": self.with_vectors,
        }


def _scope_where(filters: Filters, moment: str) -> tuple[list[str], list[Any]]:
    """The user, collection and time span of ``filters`` over a table with ``owner`` and
    ``collection`` columns, its time in column ``moment``."""
    where: list[str] = []
    params: list[Any] = []
    if filters.user is not None:
        where.append("owner = ?")
        params.append(user_owner(filters.user))
    if filters.collection:
        where.append("(collection = ? OR substr(collection, 1, ?) = ?)")
        prefix = filters.collection + SEPARATOR
        params.extend([filters.collection, len(prefix), prefix])
    if filters.since is not None:
        where.append(f"{moment} >= ?")
        params.append(filters.since)
    if filters.until is not None:
        where.append(f"{moment} <= ?")
        params.append(filters.until)
    return where, params


def _fragment_where(filters: Filters) -> tuple[list[str], list[Any]]:
    where, params = _scope_where(filters, "timestamp")
    if filters.source is not None:
        where.append("source_kind = ?")
        params.append(filters.source)
    return where, params


def _memory_where(filters: Filters) -> tuple[list[str], list[Any]]:
    if filters.source is not None and filters.source != MEMORY_SOURCE:
        return ["1 = 0"], []
    return _scope_where(filters, "updated_at")


def _joined(where: list[str]) -> str:
    return " AND ".join(where) if where else "1 = 1"


def member_where(member: Member, filters: Filters) -> tuple[str, list[Any]]:
    """The rows of ``member`` an archive with ``filters`` holds: a WHERE clause and its
    parameters. Conversations, documents, links and session folders follow the fragments
    they belong to; revisions follow their memory; the access log follows the user and
    the time span (a collection or source filter leaves it out: it is kept per user)."""
    table = member.table
    if table == "settings":
        return f"key IN ({', '.join('?' * len(READ_SETTINGS))})", list(READ_SETTINGS)
    if not filters.any:
        return "1 = 1", []
    fragments, params = _fragment_where(filters)
    chosen = f"SELECT conversation_id FROM fragments WHERE {_joined(fragments)}"
    if table == "fragments":
        return _joined(fragments), params
    if table in ("conversations", "documents"):
        return f"id IN ({chosen})", params
    if table == "links":
        return f"source_document IN ({chosen})", params
    if table == "session_projects":
        return f"conversation_id IN ({chosen})", params
    memories, params = _memory_where(filters)
    if table == "memories":
        return _joined(memories), params
    if table == "memory_revisions":
        return f"memory_id IN (SELECT id FROM memories WHERE {_joined(memories)})", params
    if table == "access_log":
        if filters.collection or filters.source is not None:
            return "1 = 0", []
        where, params = [], []
        if filters.user is not None:
            where.append("user_id = ?")
            params.append(filters.user)
        if filters.since is not None:
            where.append("at >= ?")
            params.append(filters.since)
        if filters.until is not None:
            where.append("at <= ?")
            params.append(filters.until)
        return _joined(where), params
    raise ArchiveError(f"no filter is defined for table {table}; report it")


def iter_rows(
    db: Connection,
    member: Member,
    columns: Sequence[str],
    order: Sequence[str],
    where: str,
    params: Sequence[Any],
    batch: int = BATCH,
) -> Iterator[list[tuple[Any, ...]]]:
    """Batches of ``columns`` of the rows ``where`` selects, in ``order``: each batch
    continues after the last row of the one before (keyset paging)."""
    width = len(order)
    selected = ", ".join([*order, *columns])
    ordered = ", ".join(order)
    after: tuple[Any, ...] | None = None
    while True:
        clause, args = where, list(params)
        if after is not None:
            marks = ", ".join("?" * width)
            clause = (
                f"({clause}) AND ({ordered}) > ({marks})"
                if width > 1
                else (f"({clause}) AND {ordered} > ?")
            )
            args.extend(after)
        rows = db.execute(
            f"SELECT {selected} FROM {member.table} WHERE {clause} ORDER BY {ordered} LIMIT ?",
            [*args, batch],
        ).fetchall()
        if not rows:
            return
        after = tuple(rows[-1][:width])
        yield [tuple(r[width:]) for r in rows]
        if len(rows) < batch:
            return


class ArchiveWriter:
    """Writes one archive of ``catalog`` (the caller holds the home's write lock, so the
    rows read are one consistent state)."""

    def __init__(
        self,
        catalog: ArchiveCatalog,
        memex_version: str,
        vectors: VectorSource | None = None,
    ) -> None:
        self.catalog = catalog
        self.memex_version = memex_version
        #: Where ``with_vectors`` reads the vectors from (the home's vector store).
        self.vectors = vectors

    def export(
        self,
        target: Path | IO[bytes],
        *,
        filters: Filters | None = None,
        with_log: bool = True,
        with_vectors: bool = False,
        progress: Progress | None = None,
    ) -> ExportReport:
        if with_vectors and self.vectors is None:
            raise ArchiveError("--with-vectors: this home's vector store is not available")
        filters = filters or Filters()
        progress = progress or NoProgress()
        started = time.perf_counter()
        name = str(target) if isinstance(target, Path) else getattr(target, "name", "<stream>")
        report = ExportReport(
            str(name), filters=filters.to_dict(), with_log=with_log, with_vectors=with_vectors
        )
        if isinstance(target, Path):
            partial = target.with_name(target.name + ".partial")
            try:
                with open(partial, "wb") as out:
                    manifest = self._write(out, filters, with_log, with_vectors, progress, report)
                os.replace(partial, target)
            finally:
                partial.unlink(missing_ok=True)
        else:
            manifest = self._write(target, filters, with_log, with_vectors, progress, report)
        report.bytes = sum(m["bytes"] for m in manifest["members"].values())
        report.seconds = time.perf_counter() - started
        return report

    def _write(
        self,
        out: IO[bytes],
        filters: Filters,
        with_log: bool,
        with_vectors: bool,
        progress: Progress,
        report: ExportReport,
    ) -> dict[str, Any]:
        members = [m for m in MEMBERS if with_log or m.table != "access_log"]
        columns = {
            m.name: sorted(c for c in table_columns(self.catalog, m.table) if c not in m.local)
            for m in members
        }
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "memex_version": self.memex_version,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "filters": filters.to_dict(),
            "with_log": with_log,
            "members": {},
        }
        with (
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive,
            self.catalog.transaction() as db,
        ):
            for member in members:
                where, params = member_where(member, filters)
                total = int(
                    db.execute(
                        f"SELECT COUNT(*) FROM {member.table} WHERE {where}", params
                    ).fetchone()[0]
                )
                progress.start(f"Exporting {member.table}", total)
                digest = MemberDigest()
                names = columns[member.name]
                info = zipfile.ZipInfo(member.name, date_time=_ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                with archive.open(info, "w", force_zip64=True) as stream:
                    order = order_columns(member, self.catalog.dialect)
                    for rows in iter_rows(db, member, names, order, where, params):
                        data = b"".join(
                            line({c: value(v) for c, v in zip(names, row, strict=True)})
                            for row in rows
                        )
                        stream.write(data)
                        digest.update(data, len(rows))
                        progress.advance(len(rows))
                progress.finish()
                manifest["members"][member.name] = {
                    "table": member.table,
                    "rows": digest.rows,
                    "bytes": digest.size,
                    "sha256": digest.sha256,
                    "columns": names,
                }
                report.members[member.name] = digest.rows
            if with_vectors:
                found, written = self._write_vectors(archive, db, filters, progress)
                manifest[IDENTITY_KEY] = found
                manifest["members"][VECTORS] = written
                report.members[VECTORS] = written["rows"]
            info = zipfile.ZipInfo(MANIFEST, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        return manifest

    def _write_vectors(
        self, archive: zipfile.ZipFile, db: Connection, filters: Filters, progress: Progress
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """``vectors.jsonl``: the vectors of the exported fragments the recorded embedder
        built, in the fragments' order, read from the store a batch at a time."""
        assert self.vectors is not None
        names = (EMBEDDER_SETTING, EMBEDDER_BUILD_SETTING, VECTOR_CONTEXT_SETTING)
        marks = ", ".join("?" * len(names))
        settings = dict(
            db.execute(f"SELECT key, value FROM settings WHERE key IN ({marks})", names).fetchall()
        )
        found = identity(settings)
        embedder = found["embedder"].rpartition(":")[0]
        member = next(m for m in MEMBERS if m.table == "fragments")
        where, params = member_where(member, filters)
        where, params = f"({where}) AND embedded_by = ?", [*params, embedder]
        total = int(
            db.execute(f"SELECT COUNT(*) FROM fragments WHERE {where}", params).fetchone()[0]
        )
        progress.start("Exporting vectors", total)
        digest = MemberDigest()
        info = zipfile.ZipInfo(VECTORS, date_time=_ZIP_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as stream:
            for rows in iter_rows(db, member, ["id"], ["seq"], where, params):
                ids = [str(r[0]) for r in rows]
                held = self.vectors.stored_vectors(ids)
                data = b"".join(vector_line(i, held[i]) for i in ids if i in held)
                stream.write(data)
                digest.update(data, sum(1 for i in ids if i in held))
                progress.advance(len(rows))
        progress.finish()
        written = {
            "rows": digest.rows,
            "bytes": digest.size,
            "sha256": digest.sha256,
            "columns": ["id", "vector"],
        }
        return found, written
