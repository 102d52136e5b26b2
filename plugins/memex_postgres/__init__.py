"""The ``postgres`` catalog: memex's record of truth in a PostgreSQL database, shared by
several hosts and ``memex serve`` replicas (``[catalog] use = "postgres"``).

- :mod:`.schema`: the tables, as one ordered list of migrations (SQLite's numbers);
- :mod:`.connection`: psycopg connections behind the catalog's ``execute`` /
  ``executemany`` / ``transaction``, every write transaction under one writer lock;
- :mod:`.pool`: the connections kept between statements, checked before each use;
- :mod:`.catalog`: :class:`~memex_postgres.catalog.PostgresCatalog`, the engine's part of
  :class:`memex_core.catalog.base.SqlCatalog`;
- :mod:`.read_only`: ``memex sql`` on PostgreSQL (a read-only transaction under a role
  that may only SELECT);
- :mod:`.errors`: a lost or refused server, told in words;
- :mod:`.settings`: where the URL comes from (``[catalog.postgres] url``,
  ``MEMEX_CATALOG_URL``);
- :mod:`.migration`: ``memex migrate --to postgresql://...``, which copies a home's SQLite
  catalog into PostgreSQL.

psycopg is imported only when the catalog is built (``pip install 'memex[postgres]'``).
"""

from __future__ import annotations

from typing import Any

from memex_core.hookspecs import hookimpl


def _build(context: Any) -> Any:
    from memex_postgres.catalog import PostgresCatalog
    from memex_postgres.settings import postgres_settings

    settings = postgres_settings(context.settings)
    return PostgresCatalog(
        settings.url, pool_size=settings.pool_size, connect_timeout=settings.connect_timeout
    )


@hookimpl
def register_commands(cli: Any) -> None:
    from memex_postgres.migration.command import migrate  # click only: psycopg loads on use

    cli.add_command(migrate)


@hookimpl
def register_catalogs(register: Any) -> None:
    register(
        "postgres",
        _build,
        requires=("psycopg",),
        extra="postgres",
        description="the catalog in a PostgreSQL database shared by several hosts and replicas",
    )
