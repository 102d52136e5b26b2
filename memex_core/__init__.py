"""memex: a memory of your own past work.

>>> from memex_core import Memex
>>> mx = Memex()                      # MEMEX_HOME or ~/.memex
>>> mx.ingest("conversations.json")   # doctest: +SKIP
>>> mx.search("sqlite wal mode")      # doctest: +SKIP
"""

from memex_core.domain import Fragment, Provenance, SearchFilters, SearchResult
from memex_core.hookspecs import hookimpl

__all__ = ["Fragment", "Memex", "Provenance", "SearchFilters", "SearchResult", "hookimpl"]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # The facade pulls in the catalog and services; import it only when asked.
    if name == "Memex":
        from memex_core.api import Memex

        return Memex
    raise AttributeError(name)
