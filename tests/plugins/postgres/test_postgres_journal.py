"""PostgreSQL's change journal since schema 8: written once per statement from its
transition table (a batch comes in by one ``COPY``, memex_postgres.bulk), still in
commit order across writers, one notification per commit, and migration 8 on a catalog
populated under the per-row triggers of schema 7.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator

import pytest

from memex_core.catalog.base import SqlCatalog
from memex_core.domain import Fragment, Provenance

psycopg = pytest.importorskip("psycopg")

from memex_postgres.catalog import PostgresCatalog  # noqa: E402
from memex_postgres.schema import CHANGES_CHANNEL, MIGRATIONS  # noqa: E402


def fragment(fid: str, conversation: str = "c") -> Fragment:
    return Fragment(
        id=fid,
        conversation_id=conversation,
        role="user",
        content=f"text {fid}",
        provenance=Provenance("test", "/f", fid, "0", 1.0),
        timestamp=1.0,
    )


def add(catalog: SqlCatalog, ids: list[str], path: str) -> list[Fragment]:
    run = catalog.start_run("test")
    return catalog.add_file(
        run_id=run,
        path=path,
        sha256=path,
        size=1,
        source_kind="test",
        fragments=[fragment(i, f"conv-{i[:3]}") for i in ids],
    )


@pytest.fixture
def catalog(postgres_url: str) -> Iterator[PostgresCatalog]:
    handle = PostgresCatalog(postgres_url)
    handle.migrate()
    yield handle
    handle.close()


def row_level(catalog: PostgresCatalog) -> dict[str, bool]:
    """Each journal trigger on ``fragments``: whether it fires per row (pg_trigger.tgtype
    bit 0) rather than per statement."""
    rows = catalog.query(
        "SELECT tgname, (tgtype & 1) = 1 FROM pg_trigger "
        "WHERE tgrelid = 'fragments'::regclass AND NOT tgisinternal ORDER BY tgname"
    )[1]
    return {str(name): bool(per_row) for name, per_row in rows}


def test_a_batch_is_one_notification_with_its_last_entry(
    catalog: PostgresCatalog, postgres_url: str
) -> None:
    ids = [f"b{n:05d}" for n in range(3000)]
    with psycopg.connect(postgres_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANGES_CHANNEL}")
        add(catalog, ids, "/batch")
        got = [n.payload for n in listener.notifies(timeout=1.0, stop_after=10)]
    assert got == [str(catalog.last_fragment_change())]
    assert catalog.fragment_changes_since(0)[1] == ids
    assert row_level(catalog) == {"fragments_added": False, "fragments_removed": False}


def test_batches_of_two_writers_are_journalled_whole_and_in_commit_order(
    catalog: PostgresCatalog, postgres_url: str
) -> None:
    """A reader polling while two writers add batches never sees an entry appear below
    one it has seen (what a follower's place in the journal relies on), and each batch's
    entries are one run, in the batch's order."""
    batches = {
        f"{writer}{n}": [f"{writer}{n}-{i:04d}" for i in range(400)]
        for writer in ("w", "v")
        for n in range(5)
    }
    done = threading.Event()
    failures: list[BaseException] = []

    def write(writer: str) -> None:
        handle = PostgresCatalog(postgres_url)
        try:
            for name, ids in batches.items():
                if name.startswith(writer):
                    add(handle, ids, f"/{name}")
        except BaseException as exc:  # reported below, in the test's thread
            failures.append(exc)
        finally:
            handle.close()

    seen: list[tuple[int, list[str]]] = []

    def read() -> None:
        reader = PostgresCatalog(postgres_url)
        try:
            while not done.is_set():
                seen.append(reader.fragment_changes_since(0))
        finally:
            reader.close()

    writers = [threading.Thread(target=write, args=(w,)) for w in ("w", "v")]
    polling = threading.Thread(target=read)
    polling.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(60)
    done.set()
    polling.join(60)
    assert not failures
    for (_, before), (_, after) in itertools.pairwise(seen):
        assert after[: len(before)] == before  # only ever appended to
    assert all(len(ids) % 400 == 0 for _, ids in seen)  # whole batches, never part of one
    last, journal = catalog.fragment_changes_since(0)
    assert last == catalog.last_fragment_change()
    runs = [journal[start : start + 400] for start in range(0, len(journal), 400)]
    assert sorted(map(tuple, runs)) == sorted(map(tuple, batches.values()))


class Schema7(PostgresCatalog):
    """The catalog as memex wrote it before schema 8: per-row journal triggers, and an
    ``INSERT`` per fragment."""

    migrations = MIGRATIONS[:7]  # versions 1 to 7

    def insert_fragment_rows(self, db: object, rows: object) -> None:
        SqlCatalog.insert_fragment_rows(self, db, rows)  # type: ignore[arg-type]


def test_migration_8_keeps_a_populated_journal_and_goes_on_per_statement(
    postgres_url: str,
) -> None:
    old = Schema7(postgres_url)
    try:
        old.migrate()
        assert old.schema_version() == 7
        assert row_level(old) == {"fragments_added": True, "fragments_removed": True}
        add(old, ["a1", "a2", "a3"], "/old")
        old.retire_fragments(["a2"])
        before = old.query("SELECT * FROM fragments ORDER BY seq")[1]
        journal = old.query("SELECT seq, id FROM fragment_changes ORDER BY seq")[1]
    finally:
        old.close()
    assert [row[1] for row in journal] == ["a1", "a2", "a3", "a2"]

    new = PostgresCatalog(postgres_url)
    try:
        assert new.needs_migration()
        new.migrate()
        assert new.schema_version() == new.latest_version == 9
        assert new.quick_check() == ["ok"]
        assert row_level(new) == {"fragments_added": False, "fragments_removed": False}
        assert new.query("SELECT * FROM fragments ORDER BY seq")[1] == before
        assert new.query("SELECT seq, id FROM fragment_changes ORDER BY seq")[1] == journal
        last = new.last_fragment_change()
        add(new, ["b1", "b2", "a1"], "/new")  # a1 is stored: no entry for it
        new.retire_fragments(["a3", "b1", "nowhere"])
        assert new.fragment_changes_since(last) == (last + 4, ["b1", "b2", "a3"])
        assert new.all_ids() == {"a1", "b2"}
    finally:
        new.close()
