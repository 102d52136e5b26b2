"""On PostgreSQL, the reads an ingest makes of conversations it continues (the turn
context's window of earlier turns, each conversation's last position) cost what the
window holds, not what the table holds: a batch that continues every conversation once
read the whole table (memex_postgres.catalog.PostgresDialect.turn_windows,
memex_core.catalog.rows.continued_positions)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memex_core.catalog.dbapi import Dialect
from memex_core.domain import Fragment, Provenance

psycopg = pytest.importorskip("psycopg")

from memex_postgres.catalog import PostgresCatalog  # noqa: E402

CONVERSATIONS = 100
TURNS = 60  # per conversation: the window read below is 10 of them


def turns(first: int, count: int, prefix: str = "t") -> list[Fragment]:
    return [
        Fragment(
            id=f"{prefix}-c{c:03d}-{i:03d}",
            conversation_id=f"c{c:03d}",
            role="user" if i % 2 else "assistant",
            content=f"turn {i} of conversation {c} " + "some words " * 10,
            provenance=Provenance("test", f"/{prefix}", f"{c}-{i}", "0", 1.0),
            timestamp=1.0,
        )
        for i in range(first, first + count)
        for c in range(CONVERSATIONS)
    ]


@pytest.fixture
def catalog(postgres_url: str) -> Iterator[PostgresCatalog]:
    handle = PostgresCatalog(postgres_url)
    handle.migrate()
    run = handle.start_run("test")
    handle.add_file(
        run_id=run, path="/t", sha256="t", size=1, source_kind="test", fragments=turns(0, TURNS)
    )
    handle._db.execute("ANALYZE fragments")
    yield handle
    handle.close()


def plan(catalog: PostgresCatalog, sql: str, params: list[object]) -> str:
    return "\n".join(r[0] for r in catalog._db.execute("EXPLAIN " + sql, params).fetchall())


def test_a_window_is_read_by_the_position_index_and_gives_the_portable_joins_rows(
    catalog: PostgresCatalog,
) -> None:
    # A row without a position (stored before positions existed) belongs to every window.
    catalog._db.execute("UPDATE fragments SET position = NULL WHERE id = 't-c007-003'")
    windows = [(f"c{c:03d}", TURNS - 10) for c in range(CONVERSATIONS)]
    columns = "conversation_id, id, position"
    order = "ORDER BY conversation_id, position IS NULL, position, seq"
    source, params = catalog.dialect.turn_windows(windows)
    portable, portable_params = Dialect().turn_windows(windows)
    got = catalog._db.execute(f"SELECT {columns} FROM {source} {order}", params).fetchall()
    want = catalog._db.execute(
        f"SELECT {columns} FROM {portable} {order}", portable_params
    ).fetchall()
    assert got == want
    assert len(got) == CONVERSATIONS * 10 + 1
    assert ("c007", "t-c007-003", None) in got
    shown = plan(catalog, f"SELECT {columns} FROM {source}", params)
    assert "fragments_position" in shown and "Seq Scan on fragments" not in shown, shown


def test_a_batch_continuing_every_conversation_reads_each_last_position_by_the_index(
    catalog: PostgresCatalog,
) -> None:
    more = turns(TURNS, 2, prefix="u")
    run = catalog.start_run("test")
    catalog.add_file(run_id=run, path="/u", sha256="u", size=1, source_kind="test", fragments=more)
    rows = catalog._db.execute(
        "SELECT conversation_id, MIN(position), MAX(position) FROM fragments "
        "WHERE source_path = '/u' GROUP BY conversation_id"
    ).fetchall()
    assert sorted(rows) == [(f"c{c:03d}", TURNS, TURNS + 1) for c in range(CONVERSATIONS)]
    values = ",".join("(?)" for _ in range(CONVERSATIONS))
    shown = plan(
        catalog,
        "SELECT column1, (SELECT MAX(position) FROM fragments WHERE conversation_id = "
        f"column1) FROM (VALUES {values}) AS wanted",
        [f"c{c:03d}" for c in range(CONVERSATIONS)],
    )
    assert "Backward using fragments_position" in shown, shown
