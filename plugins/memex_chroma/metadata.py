"""What the chroma store keeps next to each vector, and how filters become ``where`` clauses.

Pure functions, no chroma import, so they are cheap to test and to load.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import Fragment, SearchFilters

# The filtered keys are FilterFields' names, as SearchFilters.value_filters() gives them.
SOURCE_KIND = "source_kind"
CONVERSATION_ID = "conversation_id"
ROLE = "role"
TIMESTAMP = "timestamp"
OWNER = "owner"
COLLECTION = "collection"
PRIVATE = "private"


def fragment_metadata(fragment: Fragment) -> dict[str, Any]:
    """The per-vector metadata that filters run against.

    Chroma cannot store ``None``, but an upsert *merges* metadata into an
    existing record, so simply omitting ``timestamp`` would leave a stale value
    behind when a fragment loses its timestamp. ``None`` in an upsert deletes
    the key (and is a no-op for a new record), so a fragment without a
    timestamp never carries one, and time filters (which require the key) skip
    it, exactly as :meth:`SearchFilters.matches` does.

    ``private`` is stored as ``False`` too, so a fragment that stops being
    private overwrites the old ``True`` in the merge.
    """
    timestamp = fragment.timestamp
    return {
        SOURCE_KIND: fragment.source_kind,
        CONVERSATION_ID: fragment.conversation_id,
        ROLE: fragment.role,
        # Always a float: chroma types metadata values, and int vs float would
        # split one field into two indexes.
        TIMESTAMP: float(timestamp) if timestamp is not None else None,
        OWNER: fragment.owner,
        COLLECTION: fragment.collection,
        PRIVATE: bool(fragment.private),
    }


def where_clause(filters: SearchFilters, *, private_stored: bool = True) -> dict[str, Any] | None:
    """The chroma ``where`` filter equivalent to ``filters``, or ``None`` for no restriction.

    ``$gte``/``$lte`` only match records that have the key, which gives the
    "no timestamp never passes a time filter" rule for free. Private vectors are
    excluded with ``$ne: True``, which also passes records stored before the
    ``private`` key existed (they are the operator's corpus). A caller that
    knows the collection holds no private vector passes ``private_stored=False``
    to leave that clause out: any ``where`` makes chroma's query much slower.

    One gap chroma cannot close (it has no "key missing" operator): vectors
    stored before the scope keys existed have no ``owner``/``collection``, so
    ``owners`` or ``collections`` containing ``""`` do not find them until they
    are re-stored (``memex rebuild --vectors``). Memory searches never ask for
    ``""``, so isolation is unaffected.

    Sources searched only when named (a repository's code) are left out with ``$nin``
    unless ``source_kinds`` names sources; memex sets ``named_only=()`` when the home
    holds none, so a home without code pays no ``where`` for it.
    """
    clauses: list[dict[str, Any]] = [
        {key: {"$in": list(values)}} for key, values in filters.value_filters() if values
    ]
    hidden = filters.hidden_source_kinds()
    if hidden:
        clauses.append({SOURCE_KIND: {"$nin": list(hidden)}})
    if filters.since is not None:
        clauses.append({TIMESTAMP: {"$gte": float(filters.since)}})
    if filters.until is not None:
        clauses.append({TIMESTAMP: {"$lte": float(filters.until)}})
    if private_stored and not filters.include_private:
        clauses.append({PRIVATE: {"$ne": True}})
    if not clauses:
        return None
    # chroma rejects an $and with fewer than two operands.
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def passes(metadata: Any, filters: SearchFilters, *, private_stored: bool = True) -> bool:
    """Whether a vector with ``metadata`` passes ``where_clause(filters, private_stored=...)``,
    decided as chroma decides it (a record without a key fails ``$in`` and the time bounds;
    one without ``private`` passes ``$ne``). Lets the store filter an unfiltered query's
    hits itself, which is much faster than a filtered query when most vectors pass."""
    meta: dict[str, Any] = metadata if isinstance(metadata, dict) else {}
    for key, values in filters.value_filters():
        if values and (key not in meta or meta[key] not in values):
            return False
    if meta.get(SOURCE_KIND) in filters.hidden_source_kinds():
        return False
    stamp = meta.get(TIMESTAMP)
    if filters.since is not None or filters.until is not None:
        if isinstance(stamp, bool) or not isinstance(stamp, int | float):
            return False
        if filters.since is not None and stamp < float(filters.since):
            return False
        if filters.until is not None and stamp > float(filters.until):
            return False
    return not (private_stored and not filters.include_private and meta.get(PRIVATE) is True)
