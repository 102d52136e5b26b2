"""The ``sqlite`` catalog: memex's record of truth in ``catalog.sqlite`` in the home, the
embedded default (``[catalog] use = "sqlite"``). It registers through the same hook as
any other catalog; the catalog itself is :class:`memex_core.catalog.sqlite.SqliteCatalog`.
"""

from __future__ import annotations

from typing import Any

from memex_core.hookspecs import hookimpl


def build_sqlite_catalog(context: Any) -> Any:
    from memex_core.catalog.sqlite import SqliteCatalog

    return SqliteCatalog(context.home / "catalog.sqlite")


@hookimpl
def register_catalogs(register: Any) -> None:
    register(
        "sqlite",
        build_sqlite_catalog,
        description="the catalog in one SQLite file in the home (the embedded default)",
    )
