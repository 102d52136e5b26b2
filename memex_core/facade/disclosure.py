"""Progressive disclosure and context: small steps an agent reads a home in.

Step one is a compact search (``Memex.compact_search``: ids, titles, snippets); then the
turns around a hit (:meth:`Disclosure.timeline`), a note's links (:meth:`Disclosure.explore`)
and whole fragments (``Memex.get``). :meth:`Disclosure.context` packs hits, the notes they
link to and recent material into one budget (:mod:`memex_core.services.context`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memex_core.domain.disclosure import ContextPack, Timeline, label_of
from memex_core.domain.exploration import Exploration
from memex_core.domain.memory.timestamps import HeldAt
from memex_core.domain.search_options import SearchOptions
from memex_core.domain.search_results import SearchResults
from memex_core.errors import MemexError, require_query
from memex_core.services.context import ContextBuilder, ContextSettings
from memex_core.services.explore import Explorer

if TYPE_CHECKING:
    from memex_core.facade.components import HomeComponents
    from memex_core.facade.reading import Reader


class Disclosure:
    """Timelines, notes to explore and context packs of one home."""

    def __init__(self, parts: HomeComponents, reader: Reader) -> None:
        self._parts = parts
        self._reader = reader

    def timeline(self, fragment_id: str, before: int = 3, after: int = 3) -> Timeline:
        """See ``Memex.timeline``."""
        if before < 0 or after < 0:
            raise MemexError("before and after must be 0 or more")
        (fragment_id,) = self._reader.resolve_ids([fragment_id])
        fragments = self._parts.catalog.neighbours(fragment_id, before, after)
        anchor = next(i for i, f in enumerate(fragments) if f.id == fragment_id)
        return Timeline(
            anchor_id=fragment_id,
            conversation_id=fragments[anchor].conversation_id,
            title=label_of(fragments[anchor]).split(" > ")[0],
            fragments=fragments,
            offsets=[i - anchor for i in range(len(fragments))],
        )

    def explore(self, note: str, similar: int = 5) -> Exploration:
        """See ``Memex.explore``."""
        similar_search = None
        if similar > 0 and self._parts.semantic_unavailable_reason() is None:
            similar_search = self._reader.search_service("semantic").semantic_hits

        return Explorer(self._parts.catalog, similar_search).explore(note, similar)

    def context(self, options: SearchOptions, budget_chars: int = 4000) -> ContextPack:
        """See ``Memex.context``."""
        require_query(options.query)
        settings = self.context_settings()
        asked = options.filter_options() or options.include_private
        filters = options.filters() if asked else None
        if filters is not None and filters.tags:
            # Resolved once, so the recent material filling the pack keeps to the tags too.
            filters = self._parts.catalog.resolve_tags(filters)
            if filters is None:
                return ContextPack(query=options.query, budget_chars=budget_chars)

        def search(text: str, limit: int) -> SearchResults:
            # The whole SearchResults: the builder reads whether the floor left all out.
            asked = options.with_changes(query=text, limit=limit)
            return self._reader.search_with(asked, filters, None, None)

        try:
            return ContextBuilder(self._parts.catalog, search, settings).build(
                options.query, budget_chars, filters, HeldAt.of(options)
            )
        except ValueError as exc:
            raise MemexError(str(exc)) from exc

    def context_settings(self) -> ContextSettings:
        """See ``Memex.context_settings``."""
        table = self._parts.config.table("context")
        defaults = ContextSettings()
        return ContextSettings(
            seed_limit=int(table.get("seed_limit", defaults.seed_limit)),
            seed_share=float(table.get("seed_share", defaults.seed_share)),
            recency_share=float(table.get("recency_share", defaults.recency_share)),
            link_limit=int(table.get("link_limit", defaults.link_limit)),
            item_chars=int(table.get("item_chars", defaults.item_chars)),
            document_share=float(table.get("document_share", defaults.document_share)),
        )
