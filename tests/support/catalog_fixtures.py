"""The catalog contract's one parametrized fixture: every test that takes ``catalog`` (or
``open_catalog``, ``engine_memex``) runs once on SQLite and once on PostgreSQL.

PostgreSQL comes from the session's server (tests/support/postgres_fixtures.py), a fresh database
per test; it skips with the reason where the server binaries are absent (fails under
``MEMEX_POSTGRES_REQUIRED=1``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.catalog import SqlCatalog, SqliteCatalog

ENGINES = ("sqlite", "postgres")


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def catalog_url(engine: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where this test's catalog lives: a file path (sqlite) or a fresh database's URL."""
    if engine == "sqlite":
        return str(tmp_path / "catalog.sqlite")
    return str(request.getfixturevalue("postgres_url"))


def connect(engine: str, where: str) -> SqlCatalog:
    """A new, unmigrated handle on the catalog at ``where``."""
    if engine == "sqlite":
        return SqliteCatalog(Path(where))
    from memex_postgres.catalog import PostgresCatalog

    return PostgresCatalog(where)


@pytest.fixture
def open_catalog(engine: str, catalog_url: str) -> Iterator[Callable[[], SqlCatalog]]:
    """Opens further handles on the test's catalog (another process, another replica)."""
    opened: list[SqlCatalog] = []

    def open_one() -> SqlCatalog:
        handle = connect(engine, catalog_url)
        opened.append(handle)
        return handle

    yield open_one
    for handle in opened:
        handle.close()


@pytest.fixture
def catalog(open_catalog: Callable[[], SqlCatalog]) -> SqlCatalog:
    """A migrated, empty catalog on each engine."""
    handle = open_catalog()
    handle.migrate()
    return handle


def use_catalog(home: Path, engine: str, where: str) -> None:
    """Point a home's config.toml at the catalog ``where`` (as a user would)."""
    home.mkdir(parents=True, exist_ok=True)
    if engine == "postgres":
        (home / "config.toml").write_text(
            f'[catalog]\nuse = "postgres"\n[catalog.postgres]\nurl = "{where}"\n',
            encoding="utf-8",
        )


def home_memex(home: Path) -> Memex:
    """``fast_memex`` on ``home`` with its config.toml's tables (its catalog among them)."""
    from memex_core.config import load_config
    from tests.support.component_doubles import fast_memex

    return fast_memex(home, **load_config(home).raw)


@pytest.fixture
def engine_memex(
    engine: str, catalog_url: str, memex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Memex]:
    """A Memex (fast test components) whose catalog is this test's engine."""
    monkeypatch.delenv("MEMEX_CATALOG_URL", raising=False)
    use_catalog(memex_home, engine, catalog_url)
    mx = home_memex(memex_home)
    yield mx
    mx.close()
