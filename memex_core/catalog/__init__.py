"""SQLite catalog (the record of truth) and the per-home write lock."""

from memex_core.catalog.lock import WriteLock
from memex_core.catalog.sqlite import Catalog

__all__ = ["Catalog", "WriteLock"]
