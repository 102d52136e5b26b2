"""What the chroma store keeps next to each vector, and how filters become ``where`` clauses.

Pure functions, no chroma import, so they are cheap to test and to load.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import Fragment, SearchFilters

SOURCE_KIND = "source_kind"
CONVERSATION_ID = "conversation_id"
ROLE = "role"
TIMESTAMP = "timestamp"


def fragment_metadata(fragment: Fragment) -> dict[str, Any]:
    """The per-vector metadata that filters run against.

    Chroma cannot store ``None``, but an upsert *merges* metadata into an
    existing record, so simply omitting ``timestamp`` would leave a stale value
    behind when a fragment loses its timestamp. ``None`` in an upsert deletes
    the key (and is a no-op for a new record), so a fragment without a
    timestamp never carries one, and time filters (which require the key) skip
    it, exactly as :meth:`SearchFilters.matches` does.
    """
    timestamp = fragment.timestamp
    return {
        SOURCE_KIND: fragment.source_kind,
        CONVERSATION_ID: fragment.conversation_id,
        ROLE: fragment.role,
        # Always a float: chroma types metadata values, and int vs float would
        # split one field into two indexes.
        TIMESTAMP: float(timestamp) if timestamp is not None else None,
    }


def where_clause(filters: SearchFilters) -> dict[str, Any] | None:
    """The chroma ``where`` filter equivalent to ``filters``, or ``None`` for no restriction.

    ``$gte``/``$lte`` only match records that have the key, which gives the
    "no timestamp never passes a time filter" rule for free.
    """
    clauses: list[dict[str, Any]] = []
    for key, values in (
        (SOURCE_KIND, filters.source_kinds),
        (CONVERSATION_ID, filters.conversation_ids),
        (ROLE, filters.roles),
    ):
        if values:
            clauses.append({key: {"$in": list(values)}})
    if filters.since is not None:
        clauses.append({TIMESTAMP: {"$gte": float(filters.since)}})
    if filters.until is not None:
        clauses.append({TIMESTAMP: {"$lte": float(filters.until)}})
    if not clauses:
        return None
    # chroma rejects an $and with fewer than two operands.
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
