"""``memex import``: an archive's rows added to a home, in one transaction.

Everything is checked before anything is written (:mod:`.archive_reading`); then every
member is imported inside one catalog transaction, so a refusal at any row (a claim on
another user's namespace, a column this home lacks, a row the catalog rejects) rolls the
home back to exactly what it was. Ids are kept. A row whose id the home already holds
is compared column by column:

- the same: nothing to do (importing an archive twice adds nothing);
- a memory the archive holds at a later revision (same owner): the home's row takes the
  archive's, its later revisions are added and the memory's old fragments are replaced
  by the archive's (a newer archive adds what is new);
- a conversation whose last message in the archive is later: the archive's row (it went
  on since);
- anything else is a **conflict**: the home's row is kept, and the conflict is listed in
  the report (member, key) — never resolved silently.

Rows without a key of their own (links, access-log entries) are the same row when every
column is equal. ``dry_run`` runs all of it and rolls back: the report says what an
import would change.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from memex_core.catalog.dbapi import Connection
from memex_core.domain.memory.records import user_owner
from memex_core.errors import MemexError
from memex_core.services.archive_export import ArchiveCatalog, table_columns
from memex_core.services.archive_format import (
    MEMBERS,
    READ_SETTINGS,
    ArchiveError,
    Member,
    value,
)
from memex_core.services.archive_reading import ArchiveReader
from memex_core.services.archive_vectors import (
    FragmentLookup,
    VectorStoring,
    mismatch,
    store_vectors,
)
from memex_core.services.index_text import VECTOR_CONTEXT_SETTING
from memex_core.services.ports import NoProgress, Progress

#: Columns a later schema added, filled from another column of the same row when an archive
#: written before them lacks them, as that schema's migration filled existing rows
#: (schema 9: a fact is valid from when it was created).
LEGACY_FILL = {("memories", "valid_from"): "created_at"}
#: Conflicts listed one by one in a report (the counts are always complete).
MAX_LISTED_CONFLICTS = 200
#: Members an agent's import may hold rows in: its user's memory and nothing of the corpus.
AGENT_MEMBERS = {
    "fragments": "owner",
    "memories": "owner",
    "memory_revisions": "memory_id",
    "access_log": "user_id",
    # rows that belong to a conversation (a memory), named by this column:
    "conversations": "id",
    "documents": "id",
    "links": "source_document",
    "session_projects": "conversation_id",
}


@dataclass
class TableCounts:
    added: int = 0
    unchanged: int = 0
    updated: int = 0
    conflicts: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class ImportReport:
    """What an import changed (or, with ``dry_run``, would change)."""

    source: str
    dry_run: bool = False
    tables: dict[str, TableCounts] = field(default_factory=dict)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    settings_applied: bool = False
    removed_fragments: list[str] = field(default_factory=list)
    embedded: int = 0
    embedding_skipped_reason: str | None = None
    #: Vectors the archive holds, how many of them this import stores (or, dry, would)
    #: instead of embedding, and why none are used when the archive's embedder differs.
    vectors_in_archive: int = 0
    vectors_used: int = 0
    vectors_reason: str | None = None
    #: The fragments this import added: the only ones an archive's vector may stand for.
    added_fragments: set[str] = field(default_factory=set, repr=False)
    seconds: float = 0.0  # checking and writing the rows
    index_seconds: float = 0.0  # bringing the keyword index up to them (and embedding)

    def counts(self, table: str) -> TableCounts:
        return self.tables.setdefault(table, TableCounts())

    @property
    def added(self) -> int:
        return sum(t.added for t in self.tables.values())

    @property
    def changed(self) -> bool:
        return any(t.added or t.updated for t in self.tables.values())

    @property
    def fragments_per_s(self) -> float:
        done = self.tables.get("fragments", TableCounts())
        rows = done.added + done.unchanged + done.updated + done.conflicts
        return rows / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "dry_run": self.dry_run,
            "tables": {name: counts.to_dict() for name, counts in self.tables.items()},
            "added": self.added,
            "conflicts": list(self.conflicts),
            "conflict_count": sum(t.conflicts for t in self.tables.values()),
            "settings_applied": self.settings_applied,
            "fragments_removed": len(self.removed_fragments),
            "embedded": self.embedded,
            "embedding_skipped_reason": self.embedding_skipped_reason,
            "vectors_in_archive": self.vectors_in_archive,
            "vectors_used": self.vectors_used,
            "vectors_reason": self.vectors_reason,
            "seconds": round(self.seconds, 3),
            "index_seconds": round(self.index_seconds, 3),
            "fragments_per_s": round(self.fragments_per_s, 1),
        }


def _later(archive: Any, home: Any) -> bool:
    """Whether the archive's time is later than the home's (a home without one: any is)."""
    if not isinstance(archive, int | float):
        return False
    return not isinstance(home, int | float) or archive > home


def _refused(source: str, reason: str) -> str:
    return f"{source}: refused, {reason}. Nothing was imported; the home is as it was."


class _DryRun(Exception):
    """Raised at the end of a dry run so its transaction rolls back."""


class ArchiveImporter:
    """Imports archives into ``catalog``; with ``user``, as an agent bound to that user:
    every row must be that user's memory."""

    def __init__(
        self,
        catalog: ArchiveCatalog,
        user: str | None = None,
        defaults: Mapping[str, str] | None = None,
        embedder: Mapping[str, str] | None = None,
    ) -> None:
        self.catalog = catalog
        #: The target's embedder (``embedder`` as ``name:dimension``, ``build``), which an
        #: archive's vectors must match to be stored; None: this home cannot embed.
        self.embedder = dict(embedder) if embedder is not None else None
        self.user = user
        self.owner = user_owner(user) if user is not None else None
        #: Read settings an empty home records when the archive carries none (its own
        #: configured turn context), inside the import's transaction.
        self.defaults = dict(defaults or {})

    def run(
        self, source: Path | IO[bytes], *, dry_run: bool = False, progress: Progress | None = None
    ) -> ImportReport:
        """Check, then import ``source`` (the caller holds the home's write lock)."""
        progress = progress or NoProgress()
        started = time.perf_counter()
        name = str(source) if isinstance(source, Path) else getattr(source, "name", "<stream>")
        report = ImportReport(str(name), dry_run=dry_run)
        reader: ArchiveReader | None = None
        try:
            reader = ArchiveReader(source)
            manifest = reader.verify()
            present = [m for m in MEMBERS if m.name in manifest["members"]]
            targets = {m.name: self._columns(m, manifest) for m in present}
            try:
                with self.catalog.transaction() as db:
                    _Import(self, db, reader, report, progress).all(present, targets)
                    self._check_vectors(db, reader, report)
                    if dry_run:
                        raise _DryRun
            except _DryRun:
                pass
        except ArchiveError as exc:
            raise ArchiveError(_refused(name, str(exc))) from exc
        except MemexError:
            raise
        except Exception as exc:  # the catalog refused a row: rolled back already
            said = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            reason = f"the catalog refused the archive's rows ({said})"
            raise ArchiveError(_refused(name, reason)) from exc
        finally:
            if reader is not None:
                reader.close()
        report.seconds = time.perf_counter() - started
        return report

    def _check_vectors(self, db: Connection, reader: ArchiveReader, report: ImportReport) -> None:
        """Inside the transaction, so a bad vector refuses the whole import: read every
        vector of the archive (checked), and decide whether they stand for this home's."""
        found = reader.vector_identity
        if found is None:
            return
        wanted = 0
        for batch in reader.vectors():
            report.vectors_in_archive += len(batch)
            wanted += sum(1 for i, _v in batch if i in report.added_fragments)
        if self.embedder is None:
            report.vectors_reason = "this import does not embed (--no-embed, or no embedder)"
            return
        held = db.execute(
            "SELECT value FROM settings WHERE key = ?", (VECTOR_CONTEXT_SETTING,)
        ).fetchone()
        home = {**self.embedder, "vector_context": str(held[0]) if held else ""}
        report.vectors_reason = mismatch(found, home)
        if report.vectors_reason is None:
            report.vectors_used = wanted

    def store_vectors(
        self,
        source: Path | IO[bytes],
        report: ImportReport,
        indexer: VectorStoring,
        fragments: FragmentLookup,
    ) -> int:
        """After the import: store the archive's vectors of the fragments it added, as
        :meth:`run` decided (checked again, a batch at a time); the number stored."""
        if report.dry_run:
            return 0
        reader = ArchiveReader(source)
        try:
            reader.verify()
            return store_vectors(reader.vectors(), report.added_fragments, fragments, indexer)
        finally:
            reader.close()

    def _columns(self, member: Member, manifest: dict[str, Any]) -> list[str]:
        """The columns ``member``'s rows are written with: the archive's (each one the
        home's table must have) and those an older archive lacks that the home fills from
        another column, as its own migration did (:data:`LEGACY_FILL`)."""
        columns = manifest["members"][member.name]["columns"]
        known = set(table_columns(self.catalog, member.table)) - member.local
        unknown = sorted(set(columns) - known)
        if unknown:
            raise ArchiveError(
                f"{member.name} has columns this home's {member.table} table lacks "
                f"({', '.join(unknown)}); upgrade memex (pip install -U memex) to import it"
            )
        filled = [
            column
            for (table, column), source in LEGACY_FILL.items()
            if table == member.table
            and column in known
            and column not in columns
            and source in columns
        ]
        return [*columns, *filled]


class _Import:
    """One import inside one transaction ``db``."""

    def __init__(
        self,
        owner: ArchiveImporter,
        db: Connection,
        reader: ArchiveReader,
        report: ImportReport,
        progress: Progress,
    ) -> None:
        self.agent = owner.owner
        self.user = owner.user
        self.defaults = owner.defaults
        self.db = db
        self.reader = reader
        self.report = report
        self.progress = progress
        self.memory_ids: set[str] = set()
        #: How often each row without a key has come in the archive so far, per table.
        self.keyless_seen: dict[str, Counter[tuple[Any, ...]]] = {}
        self.conversations: set[str] = set()
        self.claimed_conversations: set[str] = set()
        self.empty = self._empty()

    def _empty(self) -> bool:
        for table in ("fragments", "memories"):
            if self.db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None:
                return False
        return True

    def all(self, members: Sequence[Member], targets: dict[str, list[str]]) -> None:
        for member in members:
            rows = self.reader.manifest["members"][member.name]["rows"]
            self.progress.start(f"Importing {member.table}", rows)
            counts = self.report.counts(member.table)
            columns = targets[member.name]
            fills = [
                (column, LEGACY_FILL[member.table, column])
                for column in columns
                if (member.table, column) in LEGACY_FILL
            ]
            for batch in self.reader.rows(member.name):
                for row in batch:
                    for column, source in fills:
                        row.setdefault(column, row[source])
                if self.agent is not None and member.table != "settings":
                    self._check_agent(member, batch)
                if member.table == "settings" and self.agent is not None:
                    continue  # an agent's import leaves the home's read settings alone
                if member.table == "settings":
                    self._settings(batch, counts)
                elif member.key:
                    self._keyed(member, columns, batch, counts)
                else:
                    self._keyless(member, columns, batch, counts)
                self.progress.advance(len(batch))
            self.progress.finish()
        if self.empty:
            for key, setting in self.defaults.items():
                self.db.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                    (key, setting),
                )
        if self.agent is not None:
            strays = self.claimed_conversations - self.conversations - self.memory_ids
            if strays:
                raise ArchiveError(
                    f"the archive holds rows of conversation {sorted(strays)[0]!r}, which is "
                    f"not {self.user}'s memory; an agent imports only its own user's memory"
                )

    # -- namespaces -------------------------------------------------------------------------

    def _check_agent(self, member: Member, batch: list[dict[str, Any]]) -> None:
        table = member.table
        if table not in AGENT_MEMBERS:
            raise ArchiveError(
                f"{member.name} holds rows of the corpus, which an agent key cannot write; "
                "import it with the operator's access"
            )
        for row in batch:
            if table in ("fragments", "memories"):
                claimed = row.get("owner")
                if claimed != self.agent:
                    raise ArchiveError(
                        f"{member.name} holds a row of {claimed!r}, another namespace than "
                        f"{self.agent!r}: an agent imports only its own user's memory"
                    )
                if table == "memories":
                    self.memory_ids.add(str(row.get("id")))
                else:
                    self.conversations.add(str(row.get("conversation_id")))
            elif table == "memory_revisions":
                if row.get("memory_id") not in self.memory_ids:
                    raise ArchiveError(
                        f"{member.name} holds a revision of memory {row.get('memory_id')!r}, "
                        f"which is not {self.user}'s: an agent imports only its own user's memory"
                    )
            elif table == "access_log":
                if row.get("user_id") != self.user:
                    raise ArchiveError(
                        f"{member.name} holds an entry about user {row.get('user_id')!r}: an "
                        "agent imports only its own user's memory"
                    )
            else:  # belongs to a conversation: checked once the fragments are read
                column = AGENT_MEMBERS[table]
                self.claimed_conversations.add(str(row.get(column)))

    # -- rows --------------------------------------------------------------------------------

    def _conflict(self, member: Member, key: dict[str, Any], counts: TableCounts) -> None:
        counts.conflicts += 1
        if len(self.report.conflicts) < MAX_LISTED_CONFLICTS:
            self.report.conflicts.append(
                {"member": member.name, "key": key, "kept": "home", "rule": "the home's row"}
            )

    def _insert(self, table: str, columns: Sequence[str], rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        names = ", ".join(columns)
        marks = ", ".join("?" * len(columns))
        self.db.executemany(
            f"INSERT INTO {table} ({names}) VALUES ({marks})",
            [[row[c] for c in columns] for row in rows],
        )

    def _existing(
        self, member: Member, columns: Sequence[str], batch: list[dict[str, Any]]
    ) -> dict[tuple[Any, ...], dict[str, Any]]:
        """The home's rows with the keys of ``batch`` (archive columns, as exported)."""
        found: dict[tuple[Any, ...], dict[str, Any]] = {}
        selected = ", ".join(columns)
        if len(member.key) == 1:
            (key,) = member.key
            ids = list(dict.fromkeys(row[key] for row in batch))
            marks = ", ".join("?" * len(ids))
            rows = self.db.execute(
                f"SELECT {selected} FROM {member.table} WHERE {key} IN ({marks})", ids
            ).fetchall()
        else:
            where = " AND ".join(f"{k} = ?" for k in member.key)
            rows = []
            for row in batch:
                rows.extend(
                    self.db.execute(
                        f"SELECT {selected} FROM {member.table} WHERE {where}",
                        [row[k] for k in member.key],
                    ).fetchall()
                )
        for values in rows:
            held = {c: value(v) for c, v in zip(columns, values, strict=True)}
            found[tuple(held[k] for k in member.key)] = held
        return found

    def _keyed(
        self,
        member: Member,
        columns: Sequence[str],
        batch: list[dict[str, Any]],
        counts: TableCounts,
    ) -> None:
        existing = self._existing(member, columns, batch)
        new: list[dict[str, Any]] = []
        for row in batch:
            key = tuple(row[k] for k in member.key)
            held = existing.get(key)
            if held is None:
                new.append(row)
                existing[key] = row  # a second copy in the archive is then compared
            elif held == row:
                counts.unchanged += 1
            elif self._newer(member, columns, held, row):
                counts.updated += 1
            else:
                self._conflict(member, dict(zip(member.key, key, strict=True)), counts)
        self._insert(member.table, columns, new)
        counts.added += len(new)
        if member.table == "fragments":
            self.report.added_fragments.update(str(row["id"]) for row in new)

    def _newer(
        self, member: Member, columns: Sequence[str], held: dict[str, Any], row: dict[str, Any]
    ) -> bool:
        """Apply the archive's row over the home's when the rules above say it is newer."""
        table = member.table
        if table == "memories":
            if not (
                row.get("owner") == held.get("owner")
                and isinstance(row.get("revision"), int)
                and isinstance(held.get("revision"), int)
                and row["revision"] > held["revision"]
            ):
                return False
            self._replace_fragments(str(row["id"]))
        elif table == "documents":
            if not _later(row.get("updated_at"), held.get("updated_at")):
                return False
            self._replace_fragments(str(row["id"]))
            self.db.execute("DELETE FROM links WHERE source_document = ?", (row["id"],))
        elif table == "conversations":
            if not _later(row.get("last_at"), held.get("last_at")):
                return False
        else:
            return False
        assignments = ", ".join(f"{c} = ?" for c in columns if c not in member.key)
        where = " AND ".join(f"{k} = ?" for k in member.key)
        self.db.execute(
            f"UPDATE {table} SET {assignments} WHERE {where}",
            [*(row[c] for c in columns if c not in member.key), *(row[k] for k in member.key)],
        )
        return True

    def _replace_fragments(self, conversation_id: str) -> None:
        """Drop the fragments of a memory or document before the archive's newer version
        brings its own."""
        ids = [
            r[0]
            for r in self.db.execute(
                "SELECT id FROM fragments WHERE conversation_id = ?", (conversation_id,)
            ).fetchall()
        ]
        if not ids:
            return
        self.db.execute("DELETE FROM fragments WHERE conversation_id = ?", (conversation_id,))
        self.db.executemany(
            "INSERT INTO pending_vector_deletes (id) VALUES (?) ON CONFLICT (id) DO NOTHING",
            [(i,) for i in ids],
        )
        self.report.removed_fragments.extend(ids)

    def _keyless(
        self,
        member: Member,
        columns: Sequence[str],
        batch: list[dict[str, Any]],
        counts: TableCounts,
    ) -> None:
        """Rows named by all their columns. A row the archive holds k times is added as
        many times as the home holds it fewer (a note may link to the same place twice),
        so importing twice adds nothing and the round trip keeps every copy."""
        new: list[dict[str, Any]] = []
        pending: Counter[tuple[Any, ...]] = Counter()
        seen = self.keyless_seen.setdefault(member.table, Counter())
        selected = ", ".join(columns)
        lookup = member.lookup
        for row in batch:
            whole = tuple(row[c] for c in columns)
            seen[whole] += 1
            if row[lookup] is None:
                candidates = self.db.execute(
                    f"SELECT {selected} FROM {member.table} WHERE {lookup} IS NULL"
                ).fetchall()
            else:
                candidates = self.db.execute(
                    f"SELECT {selected} FROM {member.table} WHERE {lookup} = ?", (row[lookup],)
                ).fetchall()
            held = pending[whole] + sum(
                1 for values in candidates if tuple(value(v) for v in values) == whole
            )
            if seen[whole] <= held:
                counts.unchanged += 1
            else:
                new.append(row)
                pending[whole] += 1
        self._insert(member.table, columns, new)
        counts.added += len(new)

    def _settings(self, batch: list[dict[str, Any]], counts: TableCounts) -> None:
        """The settings that change how a home is read: taken into an empty home (so it
        reads as the one exported); an existing home keeps its own (reported if they
        differ)."""
        for row in batch:
            key, setting = row.get("key"), row.get("value")
            if key not in READ_SETTINGS or not isinstance(setting, str):
                raise ArchiveError(f"settings.jsonl holds a setting memex does not import: {key!r}")
            held = self.db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
            if held is not None and held[0] == setting:
                counts.unchanged += 1
            elif self.empty:
                self.db.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, setting),
                )
                counts.added += 1
                self.report.settings_applied = True
            else:
                self._conflict(BY_KEY_SETTINGS, {"key": key}, counts)


BY_KEY_SETTINGS = next(m for m in MEMBERS if m.table == "settings")
