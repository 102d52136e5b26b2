"""A batch that doubles ``fragments`` on PostgreSQL is analyzed in its transaction
(memex_postgres.bulk), so plans kept for prepared statements since the table was nearly
empty are made again; a small batch is not.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memex_core.domain import Fragment, Provenance

psycopg = pytest.importorskip("psycopg")

from memex_postgres.catalog import PostgresCatalog  # noqa: E402


def fragments(prefix: str, n: int) -> list[Fragment]:
    return [
        Fragment(
            id=f"{prefix}{i:05d}",
            conversation_id=f"{prefix}-conv-{i // 5}",
            role="user",
            content=f"passage {i} " + "words of a realistic length " * 20,
            provenance=Provenance("test", "/f", f"{prefix}{i}", "0", 1.0),
            timestamp=1.0,
        )
        for i in range(n)
    ]


def add(catalog: PostgresCatalog, batch: list[Fragment], path: str) -> None:
    run = catalog.start_run("test")
    catalog.add_file(
        run_id=run, path=path, sha256=path, size=1, source_kind="test", fragments=batch
    )


@pytest.fixture
def catalog(postgres_url: str) -> Iterator[PostgresCatalog]:
    handle = PostgresCatalog(postgres_url)
    handle.migrate()
    yield handle
    handle.close()


def pages(catalog: PostgresCatalog) -> tuple[int, int]:
    """(pages now, pages when the statistics were taken)."""
    rows = catalog.query(
        "SELECT pg_relation_size('fragments') / 8192, relpages FROM pg_class "
        "WHERE relname = 'fragments'"
    )[1]
    return int(rows[0][0]), int(rows[0][1])


def test_a_batch_that_doubles_the_table_is_analyzed_and_old_plans_are_redone(
    catalog: PostgresCatalog, postgres_url: str
) -> None:
    ids = [f"a{i:05d}" for i in range(0, 3000, 60)]  # 50 of the batch's ids
    marks = ", ".join(["text"] * len(ids))
    args = ", ".join(f"'{i}'" for i in ids)
    with psycopg.connect(postgres_url, autocommit=True) as session:
        # A session that prepared a lookup while the table was empty (as a replica's
        # pooled connections do). Past 5 runs the server may keep one generic plan for it
        # (it did for an ingest's lookups); forced here, so that the test does not hang
        # on the server's cost comparison.
        session.execute("SET plan_cache_mode = force_generic_plan")
        session.execute(
            f"PREPARE lookup ({marks}) AS SELECT id FROM fragments WHERE id IN "
            f"({', '.join(f'${n + 1}' for n in range(len(ids)))})"
        )
        for _ in range(6):
            session.execute(f"EXECUTE lookup ({args})")
        before = "\n".join(r[0] for r in session.execute(f"EXPLAIN EXECUTE lookup ({args})"))
        assert "Seq Scan" in before

        add(catalog, fragments("a", 3000), "/big")
        now, counted = pages(catalog)
        assert now >= 128 and counted == now  # analyzed with the batch
        after = "\n".join(r[0] for r in session.execute(f"EXPLAIN EXECUTE lookup ({args})"))
        assert "Seq Scan" not in after and "fragments_id_key" in after
        assert len(session.execute(f"EXECUTE lookup ({args})").fetchall()) == len(ids)

    add(catalog, fragments("b", 20), "/small")
    grown, still = pages(catalog)
    assert grown > now and still == counted  # far from doubling: left to autovacuum
