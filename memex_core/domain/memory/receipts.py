"""What a purge hands back: a receipt of what the home held before and after it.

A data-protection request needs proof as well as deletion: how many rows each catalog
table lost, how many entries the keyword index and the vector store lost, counted inside
the purge's own write lock so that nothing else written meanwhile blurs the figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The catalog tables a receipt counts: those that hold memory, its text, its links and
#: what was done with it (the bookkeeping tables a purge writes to as well, so that every
#: change it makes shows).
RECEIPT_TABLES = (
    "memories",
    "memory_revisions",
    "fragments",
    "documents",
    "links",
    "access_log",
    "pending_vector_deletes",
    "fragment_changes",
)


@dataclass(frozen=True)
class HomeCounts:
    """Rows per catalog table and entries per index, at one moment."""

    tables: dict[str, int] = field(default_factory=dict)
    #: Entries in the keyword index (None: the home has none it could read).
    keyword_entries: int | None = None
    #: Vectors in the vector store (None: semantic search is off or the store is out of reach).
    vectors: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "tables": dict(self.tables),
            "keyword_entries": self.keyword_entries,
            "vectors": self.vectors,
        }


def _less(before: int | None, after: int | None) -> int | None:
    return None if before is None or after is None else before - after


@dataclass(frozen=True)
class PurgeReceipt:
    """A purge's proof: what it removed, and the home's counts before and after.

    ``log_entries_blanked`` counts the access-log entries whose target and detail were
    replaced by ``[purged]`` (they stay, so the audit trail survives without the content);
    the purge itself is logged after the receipt is taken."""

    purged: int
    user_id: str | None = None
    memory_ids: list[str] = field(default_factory=list)
    before: HomeCounts = field(default_factory=HomeCounts)
    after: HomeCounts = field(default_factory=HomeCounts)
    log_entries_blanked: int = 0
    keyword_store: str = ""
    vector_store: str = ""
    #: Whether the catalog's write-ahead log was emptied after the purge (SQLite; False: a
    #: reader held it past the busy timeout, and a later checkpoint empties it). None: an
    #: engine without a log of its own in the home (PostgreSQL).
    catalog_log_emptied: bool | None = None

    @property
    def rows_removed(self) -> dict[str, int]:
        """Rows each catalog table lost (negative: rows the purge's bookkeeping added)."""
        after = self.after.tables
        return {name: count - after.get(name, 0) for name, count in self.before.tables.items()}

    @property
    def keyword_entries_removed(self) -> int | None:
        return _less(self.before.keyword_entries, self.after.keyword_entries)

    @property
    def vectors_removed(self) -> int | None:
        return _less(self.before.vectors, self.after.vectors)

    def to_dict(self) -> dict[str, Any]:
        return {
            "purged": self.purged,
            "user_id": self.user_id,
            "memory_ids": list(self.memory_ids),
            "rows_removed": self.rows_removed,
            "keyword_entries_removed": self.keyword_entries_removed,
            "vectors_removed": self.vectors_removed,
            "log_entries_blanked": self.log_entries_blanked,
            "keyword_store": self.keyword_store,
            "vector_store": self.vector_store,
            "catalog_log_emptied": self.catalog_log_emptied,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
        }
