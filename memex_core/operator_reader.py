"""The operator's reads: the whole home, with the call signatures of
:class:`~memex_core.agent_view.AgentView`, so that one route of ``memex serve`` (or one
command) serves an agent's key and the operator's secret alike.

>>> reader = OperatorReader(Memex(home))                   # doctest: +SKIP
>>> reader.search("sqlite locking", collection="acme")     # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memex_core.domain.search_results import SearchResults
from memex_core.errors import MemexError
from memex_core.facade.reading import NO_SUCH_COLLECTION, memory_collection_filters
from memex_core.read_surface import ReadSurface

if TYPE_CHECKING:
    from memex_core.domain import Fragment, SearchFilters
    from memex_core.domain.disclosure import ContextPack, Timeline
    from memex_core.domain.exploration import Exploration
    from memex_core.domain.search_options import SearchOptions
    from memex_core.facade.protocols import HomeReader


class OperatorReader(ReadSurface):
    """Reads the whole home for the operator, as an :class:`AgentView` reads one scope."""

    def __init__(self, memex: HomeReader) -> None:
        self._mx = memex

    def _filters(self, options: SearchOptions) -> SearchFilters | None:
        return memory_collection_filters(self._mx.catalog, options.filters(), options.collection)

    def _search(self, options: SearchOptions, tool_call_id: str | None) -> SearchResults:
        """Search the whole home (``collection``: memory in that collection and below)."""
        filters = self._filters(options)
        if filters is None:
            return SearchResults(options.mode, [], [NO_SUCH_COLLECTION])
        return self._mx.search_with(options, filters=filters)

    def _explain_empty(self, options: SearchOptions, found: SearchResults | None) -> list[str]:
        """The CLI's guidance for a :meth:`search` that found nothing: the whole home, or
        the memory collection asked for (counted within it)."""
        from memex_core.services.guidance import Reach

        collection = options.collection
        filters = self._filters(options)
        if filters is None:
            return [f"No memory collection {collection!r} or below it: nothing to search there."]
        reach = Reach(home=str(self._mx.home))
        if collection:
            name = f"memory collection {collection!r} and the ones below it"
            reach = Reach(name, collection=collection)
        return self._mx.explain_empty(options.query, options.mode, filters, found, reach=reach)

    def get(self, ids: Sequence[str], *, tool_call_id: str | None = None) -> list[Fragment]:
        found = self._mx.catalog.get_many(list(ids))
        return [found[i] for i in ids if i in found]

    def timeline(
        self, fragment_id: str, before: int = 3, after: int = 3, *, tool_call_id: str | None = None
    ) -> Timeline:
        return self._mx.timeline(fragment_id, before, after)

    def explore(
        self, note: str, similar: int = 5, *, tool_call_id: str | None = None
    ) -> Exploration:
        return self._mx.explore(note, similar)

    def _context(
        self, options: SearchOptions, budget_chars: int, tool_call_id: str | None
    ) -> ContextPack:
        if options.collection:
            raise MemexError(
                "The operator's context reads the whole home; to build one from a "
                "collection, act as its user (header Memex-User)."
            )
        return self._mx.context(options, budget_chars)
