"""Schema 9 on SQLite: a home written before facts had validity reads each memory as
valid from when it was recorded, and nothing else changes."""

from __future__ import annotations

from pathlib import Path

from memex_core.catalog import Catalog
from memex_core.catalog.schema import LATEST_VERSION, MIGRATIONS
from tests.support.validity_migration import assert_reads_as_valid_from_recorded, store_old_fact


class Schema8(Catalog):
    migrations = MIGRATIONS[:8]


def test_an_old_sqlite_home_reads_as_valid_from_when_recorded(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    old = Schema8(path)
    old.migrate()
    assert old.schema_version() == 8
    store_old_fact(old)
    old.close()
    catalog = Catalog(path)
    try:
        assert catalog.needs_migration()
        catalog.migrate()
        assert catalog.schema_version() == LATEST_VERSION == 9
        assert_reads_as_valid_from_recorded(catalog)
    finally:
        catalog.close()
