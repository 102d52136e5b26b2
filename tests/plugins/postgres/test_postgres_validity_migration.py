"""Schema 9 on PostgreSQL: a catalog written before facts had validity reads each memory as
valid from when it was recorded."""

from __future__ import annotations

import pytest

from tests.support.validity_migration import assert_reads_as_valid_from_recorded, store_old_fact

pytest.importorskip("psycopg")

from memex_postgres.catalog import PostgresCatalog
from memex_postgres.schema import MIGRATIONS


class Schema8(PostgresCatalog):
    migrations = MIGRATIONS[:8]


def test_an_old_postgres_catalog_reads_as_valid_from_when_recorded(postgres_url: str) -> None:
    old = Schema8(postgres_url)
    try:
        old.migrate()
        assert old.schema_version() == 8
        store_old_fact(old)
    finally:
        old.close()
    catalog = PostgresCatalog(postgres_url)
    try:
        assert catalog.needs_migration()
        catalog.migrate()
        assert catalog.schema_version() == catalog.latest_version == 9
        assert_reads_as_valid_from_recorded(catalog)
    finally:
        catalog.close()
