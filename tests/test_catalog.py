"""The SQLite catalog: migrations, atomic per-file writes, dedupe, read-only SQL, the write lock."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memex_core.catalog import Catalog, WriteLock
from memex_core.catalog import base as catalog_base
from memex_core.catalog.schema import LATEST_VERSION
from memex_core.domain.chunking import message_fragments
from memex_core.errors import MemexError, ReadOnlyQueryError, WriteLockedError


def make_fragments(conversation: str = "c1", n: int = 3, prefix: str = "hello"):
    out = []
    for i in range(n):
        out += list(
            message_fragments(
                source_kind="test",
                source_path="/x/conversations.json",
                conversation_id=conversation,
                message_id=f"m{i}",
                role="user" if i % 2 == 0 else "assistant",
                text=f"{prefix} number {i}",
                timestamp=1_700_000_000.0 + i,
                title="A title",
            )
        )
    return out


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    cat = Catalog(tmp_path / "catalog.sqlite")
    cat.migrate()
    yield cat
    cat.close()


def add(catalog: Catalog, fragments, path: str = "/x/conversations.json", sha: str = "abc"):
    run = catalog.start_run("test")
    return catalog.add_file(
        run_id=run, path=path, sha256=sha, size=1, source_kind="test", fragments=fragments
    )


def test_fresh_catalog_is_migrated_and_in_wal_mode(catalog: Catalog) -> None:
    assert catalog.schema_version() == LATEST_VERSION
    assert not catalog.needs_migration()
    mode = sqlite3.connect(catalog.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_newer_schema_is_refused_with_upgrade_hint(catalog: Catalog) -> None:
    catalog._db.execute("INSERT INTO schema_version VALUES (?, 0)", (LATEST_VERSION + 1,))
    with pytest.raises(MemexError, match="newer memex"):
        catalog.needs_migration()


def test_adding_the_same_fragments_twice_adds_nothing(catalog: Catalog) -> None:
    fragments = make_fragments()
    assert len(add(catalog, fragments)) == 3
    assert add(catalog, fragments, path="/elsewhere/copy.json", sha="def") == []
    assert catalog.count_fragments() == 3
    assert catalog.count_conversations() == 1
    assert catalog.file_ingested("/x/conversations.json", "abc")


def test_round_trip_preserves_every_field(catalog: Catalog) -> None:
    fragments = make_fragments()
    add(catalog, fragments)
    got = catalog.get_many([f.id for f in fragments])
    for original in fragments:
        assert got[original.id] == original
        assert got[original.id].metadata == original.metadata


def test_a_failing_file_transaction_leaves_nothing(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(catalog_base, "upsert_conversations", explode)
    with pytest.raises(RuntimeError):
        add(catalog, make_fragments())
    assert catalog.count_fragments() == 0
    assert not catalog.file_ingested("/x/conversations.json", "abc")
    monkeypatch.undo()
    assert len(add(catalog, make_fragments())) == 3  # the rerun finishes the job


def test_embedding_bookkeeping(catalog: Catalog) -> None:
    fragments = make_fragments(n=5)
    add(catalog, fragments)
    batches = list(catalog.iter_unembedded("m", batch_size=2))
    assert [len(b) for b in batches] == [2, 2, 1]
    catalog.mark_embedded([f.id for f in fragments[:3]], "m")
    assert catalog.count_embedded("m") == 3
    assert [f.id for b in catalog.iter_unembedded("m") for f in b] == [f.id for f in fragments[3:]]
    catalog.clear_embedded()
    assert catalog.count_embedded() == 0


@pytest.mark.parametrize(
    "statement",
    [
        "DELETE FROM fragments",
        "INSERT INTO settings VALUES ('a', 'b')",
        "DROP TABLE fragments",
        "ATTACH DATABASE '/tmp/evil.sqlite' AS evil",
        "PRAGMA journal_mode=DELETE",
        "PRAGMA query_only=0",
        "CREATE TABLE t(x)",
        "UPDATE fragments SET content='x'",
    ],
)
def test_sql_escape_hatch_cannot_write_attach_or_change_pragmas(
    catalog: Catalog, statement: str
) -> None:
    add(catalog, make_fragments())
    with pytest.raises((ReadOnlyQueryError, MemexError)):
        catalog.query(statement)
    assert catalog.count_fragments() == 3


def test_read_only_sql_reads(catalog: Catalog) -> None:
    add(catalog, make_fragments())
    columns, rows = catalog.query(
        "SELECT role, COUNT(*) AS n FROM fragments GROUP BY role ORDER BY role"
    )
    assert columns == ["role", "n"]
    assert rows == [("assistant", 1), ("user", 2)]


def test_write_lock_is_exclusive_with_a_clear_message(tmp_path: Path) -> None:
    first = WriteLock(tmp_path, timeout=0.2)
    second = WriteLock(tmp_path, timeout=0.2)
    with first, pytest.raises(WriteLockedError, match=r"Another memex process is writing.*pid"):
        second.acquire()
    with second:  # released: now it can be taken
        pass


def test_write_lock_is_reentrant(tmp_path: Path) -> None:
    lock = WriteLock(tmp_path, timeout=0.2)
    with lock, lock:
        pass
    with WriteLock(tmp_path, timeout=0.2):
        pass
