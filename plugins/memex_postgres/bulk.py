"""A batch of fragments into PostgreSQL by ``COPY``, instead of one ``INSERT`` per row.

``executemany`` of the portable ``INSERT_FRAGMENT`` costs the server a statement per
row (bind, execute, the journal trigger's call) and the client a message per row. Here:
one lookup of which ids are stored already (their rows stay; ``INSERT_FRAGMENT`` moves
their position, as it does on a conflict), then one ``COPY`` of the new rows, which
numbers them (``seq``) in the batch's order; the journal's statement trigger (schema
migration 8) writes their entries in one statement too. Measured on 10,000 rows: COPY
36 ms of client CPU, ``executemany`` 192 ms.

A batch that leaves ``fragments`` at least twice the size its statistics were taken at
(and over 1 MB) is followed by ``ANALYZE fragments`` in the same transaction, as
PostgreSQL advises after a bulk load: new statistics also make every session drop the
plans it keeps for prepared statements. Without it, a plan made while the table was
nearly empty (the first batch of an ingest) went on scanning the whole table for each
``id IN (...)`` until autovacuum came round (250 ms per 500 ids at 30,000 rows: every
batch slower than the last). Doubling keeps it to a handful per ingest (7 for 1,000,000
fragments from an empty catalog, 10,000 a batch, when autovacuum takes none).

What is stored is what one ``INSERT_FRAGMENT`` per row stores. An id twice in a batch is
sent once: its first row with its last position (the first of the row-by-row inserts
stored it, the later ones only moved its position). Ids cannot change between the lookup
and the ``COPY``: every write transaction holds the writer lock
(:mod:`memex_postgres.connection`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memex_core.catalog.rows import FRAGMENT_COLUMNS, INSERT_FRAGMENT
from memex_postgres.connection import PostgresConnection, storable

#: The columns ``fragment_rows`` fills, in its order.
COLUMNS = (*(c.strip() for c in FRAGMENT_COLUMNS.split(",")), "ingest_run", "position")
#: Which of a batch's ids are stored: the ids go as one binary array (10,000 of them cost
#: 5 ms of client CPU; as text, 20 ms; as ``IN`` lists of 500, 30 ms).
STORED = "SELECT id FROM fragments WHERE id = ANY(%b::text[])"
#: Pages (8 kB) of the table now, and when its statistics were last taken.
PAGES = (
    "SELECT pg_relation_size(oid) / current_setting('block_size')::bigint, relpages "
    "FROM pg_class WHERE oid = 'fragments'::regclass"
)
#: Tables smaller than this are not analyzed here (autovacuum's own threshold soon is).
ANALYZE_FROM_PAGES = 128


def once_each(rows: Sequence[Sequence[Any]]) -> list[Sequence[Any]]:
    """``rows`` with one row per id (the first), carrying the id's last position."""
    first: dict[Any, Sequence[Any]] = {}
    for row in rows:
        seen = first.get(row[0])
        first[row[0]] = row if seen is None else (*seen[:-1], row[-1])
    return list(first.values())


def insert_fragments(conn: PostgresConnection, rows: Sequence[Sequence[Any]]) -> None:
    """Store ``fragment_rows`` output inside the calling thread's catalog transaction."""
    if not conn.in_transaction:
        raise RuntimeError("fragments are inserted inside a catalog transaction")
    # NUL is made storable first, so two ids that differ only there count as one.
    unique = once_each([storable(row) for row in rows])
    if not unique:
        return
    stored = {r[0] for r in conn.execute_native(STORED, ([row[0] for row in unique],))}
    if stored:
        conn.executemany(INSERT_FRAGMENT, [row for row in unique if row[0] in stored])
    added = [row for row in unique if row[0] not in stored]
    if added:
        conn.copy_rows("fragments", COLUMNS, added)
        analyze_if_doubled(conn)


def analyze_if_doubled(conn: PostgresConnection) -> bool:
    """``ANALYZE fragments`` if it has doubled since its statistics (see above)."""
    pages, counted = conn.execute(PAGES).fetchone()  # type: ignore[misc]
    if pages < max(ANALYZE_FROM_PAGES, 2 * counted):
        return False
    conn.execute("ANALYZE fragments")
    return True
