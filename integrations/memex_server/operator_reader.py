"""The operator's reads on the shared routes: the whole home, with the call signatures of
:class:`~memex_core.agent_view.AgentView` so one route serves both credentials."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memex_core.api import make_filters
from memex_core.domain.memory.namespaces import covers, validate_collection
from memex_core.domain.memory.records import OPERATOR, Actor, Scope
from memex_core.errors import require_query

if TYPE_CHECKING:
    from memex_core.api import Memex
    from memex_core.domain import Fragment
    from memex_core.domain.disclosure import ContextPack, Timeline
    from memex_core.services.explore import Exploration
    from memex_core.services.search import SearchResults

_OPERATOR_SCOPE = Scope(Actor(OPERATOR, "operator"), None, None)


class OperatorReader:
    def __init__(self, memex: Memex) -> None:
        self._mx = memex

    def _filters(
        self, collection: str | None, include_private: bool, options: dict[str, Any]
    ) -> Any:
        filters = make_filters(include_private=include_private, **options)
        if collection:
            prefix = validate_collection(collection)
            known = self._mx.catalog.memory_collections(_OPERATOR_SCOPE, ())
            names = tuple(n for n in known if covers(prefix, n))
            return replace(filters, collections=names) if names else None
        return filters

    def search(
        self,
        query: str,
        mode: str = "hybrid",
        limit: int = 10,
        *,
        collection: str | None = None,
        include_private: bool = False,
        tool_call_id: str | None = None,
        time_phrases: bool = True,
        floor: str | float | None = None,
        **filter_options: Any,
    ) -> SearchResults:
        from memex_core.services.search import SearchResults

        require_query(query)
        filters = self._filters(collection, include_private, filter_options)
        if filters is None:
            return SearchResults(mode, [], ["no memory collection matches that collection"])
        return self._mx.search(
            query, mode, limit, filters=filters, time_phrases=time_phrases, floor=floor
        )

    def explain_empty(
        self,
        query: str,
        mode: str = "hybrid",
        found: SearchResults | None = None,
        *,
        collection: str | None = None,
        include_private: bool = False,
        **filter_options: Any,
    ) -> list[str]:
        """The CLI's guidance for a :meth:`search` that found nothing: the whole home, or
        the memory collection asked for (counted within it)."""
        from memex_core.services.guidance import Reach

        filters = self._filters(collection, include_private, filter_options)
        if filters is None:
            return [f"No memory collection {collection!r} or below it: nothing to search there."]
        reach = Reach(home=str(self._mx.home))
        if collection:
            name = f"memory collection {collection!r} and the ones below it"
            reach = Reach(name, collection=collection)
        return self._mx.explain_empty(query, mode, filters, found, reach=reach)

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

    def context(
        self,
        query: str,
        budget_chars: int = 4000,
        *,
        mode: str = "hybrid",
        collection: str | None = None,
        time_phrases: bool = True,
        tool_call_id: str | None = None,
        **filter_options: Any,
    ) -> ContextPack:
        if collection:
            from memex_core.errors import MemexError

            raise MemexError(
                "The operator's context reads the whole home; to build one from a "
                "collection, act as its user (header Memex-User)."
            )
        return self._mx.context(
            query, budget_chars, mode=mode, time_phrases=time_phrases, **filter_options
        )
