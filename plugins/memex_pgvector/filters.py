"""What the pgvector table keeps next to each vector, and how filters become SQL.

Pure functions, no psycopg import. Each filter is a column, so SQL's own rules give
:meth:`SearchFilters.matches`'s semantics: a NULL timestamp fails every comparison (a
fragment without a time never passes a time filter), and ``''`` is an ordinary value of
``owner`` and ``collection`` (the operator's corpus), which ``= ANY`` finds.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import Fragment, SearchFilters

#: The filter columns, in the order of :func:`row_values` (after id and embedding).
COLUMNS = (
    "source_kind",
    "conversation_id",
    "role",
    "timestamp",
    "owner",
    "collection",
    "private",
)
#: Their PostgreSQL types, as array element types for ``unnest``.
COLUMN_TYPES = ("text", "text", "text", "float8", "text", "text", "bool")


def row_values(fragment: Fragment) -> tuple[Any, ...]:
    """The filter columns of ``fragment`` (aligned with :data:`COLUMNS`)."""
    timestamp = fragment.timestamp
    return (
        fragment.source_kind,
        fragment.conversation_id,
        fragment.role,
        float(timestamp) if timestamp is not None else None,
        fragment.owner,
        fragment.collection,
        bool(fragment.private),
    )


def where_clause(filters: SearchFilters) -> tuple[str, list[Any]]:
    """``filters`` as a SQL condition (``%s`` placeholders) and its parameters.

    ``TRUE`` when nothing is restricted; private vectors are left out unless
    ``include_private``, and sources searched only when named (a repository's code) unless
    ``source_kinds`` names sources (the two restrictions that are on by default).
    """
    clauses: list[str] = []
    params: list[Any] = []
    for column, values in filters.value_filters():
        if values:
            clauses.append(f"{column} = ANY(%s::text[])")
            params.append(list(values))
    hidden = filters.hidden_source_kinds()
    if hidden:
        clauses.append("source_kind <> ALL(%s::text[])")
        params.append(list(hidden))
    if filters.since is not None:
        clauses.append("timestamp >= %s")
        params.append(float(filters.since))
    if filters.until is not None:
        clauses.append("timestamp <= %s")
        params.append(float(filters.until))
    if not filters.include_private:
        clauses.append("NOT private")
    return (" AND ".join(clauses) or "TRUE"), params
