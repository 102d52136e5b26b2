"""The read calls every reading surface shares, with their signatures written once.

:class:`~memex_core.agent_view.AgentView` (one agent's scope),
:class:`~memex_core.operator_reader.OperatorReader` (the operator's whole home) and
``memex_client``'s ``RemoteView`` (either, over HTTP) take ``search``, ``explain_empty``,
``compact_search`` and ``context`` with the same arguments. :class:`ReadSurface` holds
those signatures and builds the :class:`~memex_core.domain.search_options.SearchOptions`
from them; each surface answers the built options in its own ``_search``,
``_explain_empty`` and ``_context``, so an option is added in one place for all three.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memex_core.domain.disclosure import CompactHit, compact_hit, query_terms
from memex_core.domain.search_options import SearchOptions
from memex_core.errors import require_query
from memex_core.threads import reads

if TYPE_CHECKING:
    from memex_core.domain.disclosure import ContextPack
    from memex_core.domain.search_results import SearchResults


class ReadSurface:
    """Search, its no-results guidance, compact hits and context packs, as every reading
    surface takes them; subclasses answer the :class:`SearchOptions` built here."""

    @reads
    def search(
        self,
        query: str | SearchOptions,
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
        """Search what this surface may read. ``query`` may be a whole
        :class:`~memex_core.domain.search_options.SearchOptions` (and then no other option
        is given). ``filter_options`` are those of :func:`memex_core.api.make_filters`
        (source, conversation, role, since, until, tag). ``floor``: the relevance floor for this
        search (see :meth:`Memex.search`)."""
        options = SearchOptions.at_entry(
            query,
            mode,
            limit,
            collection=collection,
            include_private=include_private,
            time_phrases=time_phrases,
            floor=floor,
            **filter_options,
        )
        require_query(options.query)
        return self._search(options, tool_call_id)

    def _search(self, options: SearchOptions, tool_call_id: str | None) -> SearchResults:
        raise NotImplementedError

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
        """What the CLI says when a search found nothing (:meth:`Memex.explain_empty`),
        counted and probed within this surface's reach only. Takes the arguments of the
        :meth:`search` that found nothing."""
        options = SearchOptions.of(
            query, mode, collection=collection, include_private=include_private, **filter_options
        )
        return self._explain_empty(options, found)

    def _explain_empty(self, options: SearchOptions, found: SearchResults | None) -> list[str]:
        raise NotImplementedError

    @reads
    def compact_search(
        self, query: str, limit: int = 5, *, snippet_chars: int = 200, **options: Any
    ) -> tuple[list[CompactHit], list[str]]:
        """Small hits (id, title, snippet, score, why): step one of progressive disclosure."""
        found = self.search(query, limit=limit, **options)
        terms = query_terms(query)
        return [compact_hit(r, terms, snippet_chars) for r in found], found.notes

    @reads
    def context(
        self,
        query: str | SearchOptions,
        budget_chars: int = 4000,
        *,
        mode: str = "hybrid",
        collection: str | None = None,
        time_phrases: bool = True,
        tool_call_id: str | None = None,
        **filter_options: Any,
    ) -> ContextPack:
        """Context within ``budget_chars`` from what this surface may read (as
        :meth:`Memex.context`); ``query`` may be a ``SearchOptions``."""
        options = SearchOptions.at_entry(
            query, mode=mode, collection=collection, time_phrases=time_phrases, **filter_options
        )
        return self._context(options, budget_chars, tool_call_id)

    def _context(
        self, options: SearchOptions, budget_chars: int, tool_call_id: str | None
    ) -> ContextPack:
        raise NotImplementedError
