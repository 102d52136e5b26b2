"""The archive round trip across engines (issue 31 item 3): SQLite -> PostgreSQL and
PostgreSQL -> SQLite give the same members byte for byte (sorted) and the same search ids
in the same order; a refused import leaves a PostgreSQL home exactly as it was.

``postgres_url`` is a fresh database on a real PostgreSQL (tests/support/postgres_server.py);
the tests skip when PostgreSQL is not installed.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.config import load_config
from memex_core.errors import MemexError
from tests.support import component_doubles
from tests.support.archive_builders import catalog_digest, fill_home, members, search_ids
from tests.support.component_doubles import fast_memex
from tests.support.doctor_home import ListingVectorStore, doctor_memex

pytest.importorskip("psycopg")


def postgres_memex(home: Path, url: str) -> Memex:
    """A home whose catalog is the PostgreSQL database at ``url`` (doubles for vectors)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[catalog]\nuse = "postgres"\n\n[catalog.postgres]\nurl = "{url}"\n', encoding="utf-8"
    )
    component_doubles._STORES[home] = ListingVectorStore()
    return fast_memex(home, **load_config(home).raw)


@dataclass
class Exported:
    archive: Path
    searches: dict[str, list[str]]


@pytest.fixture(scope="module")
def from_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Exported]:
    root = tmp_path_factory.mktemp("engines")
    mx = doctor_memex(root / "source")
    fill_home(mx, root)
    archive = root / "sqlite.zip"
    mx.export_archive(archive)
    searches = search_ids(mx)
    mx.close()
    yield Exported(archive, searches)


def test_sqlite_to_postgres_and_back(
    from_sqlite: Exported, postgres_url: str, tmp_path: Path
) -> None:
    pg = postgres_memex(tmp_path / "pg", postgres_url)
    try:
        assert type(pg.catalog).__name__ == "PostgresCatalog"
        report = pg.import_archive(from_sqlite.archive)
        assert report.tables["fragments"].added > 20 and not report.conflicts
        from_pg = tmp_path / "pg.zip"
        pg.export_archive(from_pg)
        assert members(from_pg) == members(from_sqlite.archive)
        assert search_ids(pg) == from_sqlite.searches
        assert pg.import_archive(from_sqlite.archive).added == 0  # idempotent there too
    finally:
        pg.close()
    # PostgreSQL -> SQLite: the archive PostgreSQL wrote, into a new SQLite home.
    back = doctor_memex(tmp_path / "back")
    try:
        back.import_archive(from_pg)
        again = tmp_path / "again.zip"
        back.export_archive(again)
        assert members(again) == members(from_sqlite.archive)
        assert search_ids(back) == from_sqlite.searches
    finally:
        back.close()


def test_a_refused_import_leaves_a_postgres_home_as_it_was(
    from_sqlite: Exported, postgres_url: str, tmp_path: Path
) -> None:
    pg = postgres_memex(tmp_path / "pg", postgres_url)
    try:
        pg.agent("bob").remember("Bob keeps bees on the roof.")
        before = catalog_digest(pg)
        with zipfile.ZipFile(from_sqlite.archive) as zf:
            entries = [(n, zf.read(n)) for n in zf.namelist()]
        broken = tmp_path / "broken.zip"
        with zipfile.ZipFile(broken, "w") as zf:
            for name, data in entries:
                # The last member is damaged: every earlier one was already checked.
                zf.writestr(name, data[:-5] if name == "settings.jsonl" else data)
        with pytest.raises(MemexError, match="Nothing was imported"):
            pg.import_archive(broken)
        assert catalog_digest(pg) == before
        # A row the catalog itself refuses, after earlier rows went in: rolled back.
        with pytest.raises(MemexError, match="Nothing was imported") as refused:
            pg.import_archive(_with_bad_row(from_sqlite.archive, tmp_path / "bad-row.zip"))
        assert "catalog refused" in str(refused.value) and "\n" not in str(refused.value)
        assert catalog_digest(pg) == before
    finally:
        pg.close()


def _with_bad_row(source: Path, target: Path) -> Path:
    """A consistent archive (checksums right) whose last access-log row lacks a NOT NULL
    value: the catalog refuses it after every fragment was inserted."""
    from tests.support.archive_builders import rewrite

    seen: list[int] = []

    def change(row: dict) -> dict:
        seen.append(1)
        return {**row, "actor": None} if len(seen) == 1 else row

    rewrite(source, target, "access_log.jsonl", change)
    return target
