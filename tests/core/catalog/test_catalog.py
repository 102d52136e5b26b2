"""What is SQLite's own in the catalog: WAL mode, and the per-home write lock.

Everything the catalog does on every engine is the contract suite
(tests/test_catalog_contract*.py, run on SQLite and PostgreSQL).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.catalog import Catalog, WriteLock
from memex_core.errors import WriteLockedError


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    cat = Catalog(tmp_path / "catalog.sqlite")
    cat.migrate()
    yield cat
    cat.close()


def test_fresh_catalog_is_in_wal_mode(catalog: Catalog) -> None:
    assert catalog.location == str(catalog.path)
    mode = sqlite3.connect(catalog.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


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
