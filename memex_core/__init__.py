"""memex: a memory of your own past work.

>>> from memex_core import Memex
>>> mx = Memex()                      # MEMEX_HOME or ~/.memex
>>> mx.ingest("conversations.json")   # doctest: +SKIP
>>> mx.search("sqlite wal mode")      # doctest: +SKIP
"""

from __future__ import annotations

# Not ``typing.TYPE_CHECKING``: importing typing costs the warm path's client ~5 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memex_core.api import Memex
    from memex_core.domain import Fragment, Provenance, SearchFilters, SearchResult
    from memex_core.domain.search_options import SearchOptions, make_filters
    from memex_core.hookspecs import hookimpl

__all__ = [
    "Fragment",
    "Memex",
    "Provenance",
    "SearchFilters",
    "SearchOptions",
    "SearchResult",
    "hookimpl",
    "make_filters",
]
__version__ = "0.1.0"

_DOMAIN = ("Fragment", "Provenance", "SearchFilters", "SearchResult")


def __getattr__(name: str) -> Any:
    # Imported on first use: the ``memex`` script imports this package before it knows
    # whether a warm process answers, and the domain model alone costs ~40 ms.
    if name == "Memex":
        from memex_core.api import Memex

        return Memex
    if name in _DOMAIN:
        from memex_core import domain

        return getattr(domain, name)
    if name in ("SearchOptions", "make_filters"):
        from memex_core.domain import search_options

        return getattr(search_options, name)
    if name == "hookimpl":
        from memex_core.hookspecs import hookimpl

        return hookimpl
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
