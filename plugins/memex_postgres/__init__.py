"""The ``postgres`` catalog: memex's record of truth in a PostgreSQL database, shared by
several hosts and ``memex serve`` replicas (``[catalog] use = "postgres"``).

- :mod:`.schema`: the tables, as one ordered list of migrations (SQLite's numbers);
- :mod:`.connection`: a psycopg connection pool behind the catalog's ``execute`` /
  ``executemany`` / ``transaction``, every write transaction under one writer lock;
- :mod:`.catalog`: :class:`~memex_postgres.catalog.PostgresCatalog`, the engine's part of
  :class:`memex_core.catalog.base.SqlCatalog`;
- :mod:`.read_only`: ``memex sql`` on PostgreSQL (a read-only transaction under a role
  that may only SELECT);
- :mod:`.errors`: a lost or refused server, told in words;
- :mod:`.settings`: where the URL comes from (``[catalog.postgres] url``,
  ``MEMEX_CATALOG_URL``).

psycopg is imported only when the catalog is built (``pip install 'memex[postgres]'``).
"""
