"""The catalog (the record of truth) and the per-home write lock.

:class:`SqlCatalog` is the catalog whatever the engine; :class:`Catalog` (an alias of
:class:`~memex_core.catalog.sqlite.SqliteCatalog`) is the embedded SQLite one.
"""

from memex_core.catalog.base import SqlCatalog
from memex_core.catalog.lock import WriteLock
from memex_core.catalog.sqlite import Catalog, SqliteCatalog

__all__ = ["Catalog", "SqlCatalog", "SqliteCatalog", "WriteLock"]
