"""What the views, the memory handles and the ask workflow use of a memex, said as Protocols.

:class:`~memex_core.agent_view.AgentView`, :class:`~memex_core.operator_reader.OperatorReader`,
the memory handles (:mod:`memex_core.handles`) and the ask workflow
(:mod:`memex_core.facade.ask_workflow`) are handed a :class:`~memex_core.api.Memex`, but
they depend on these narrow surfaces only, so ``Memex`` can import them without a circle
and a test can hand them something smaller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from memex_core.catalog import SqlCatalog
    from memex_core.config import Config
    from memex_core.domain import (
        Consolidator,
        Embedder,
        Extractor,
        FactType,
        IngestReport,
        SearchFilters,
    )
    from memex_core.domain.contracts import VectorStore
    from memex_core.domain.disclosure import ContextPack, Timeline
    from memex_core.domain.exploration import Exploration
    from memex_core.domain.memory.records import Scope
    from memex_core.domain.search_options import SearchOptions
    from memex_core.domain.search_results import SearchResults
    from memex_core.plugins import PluginRegistry
    from memex_core.services.agent_memory import MemoryService
    from memex_core.services.context import ContextSettings
    from memex_core.services.indexing import KeywordSync
    from memex_core.services.memory_indexes import MemoryIndexUpdater
    from memex_core.services.ports import Progress
    from memex_core.services.search import SearchService


class CollectionCatalog(Protocol):
    """A catalog that names the memory collections a scope holds."""

    def memory_collections(self, scope: Scope, owners: Sequence[str]) -> list[str]: ...


class Searches(Protocol):
    """A memex's search with its options built (:meth:`memex_core.api.Memex.search_with`),
    with the filters of a scope: all a view or a handle passes it."""

    @property
    def catalog(self) -> SqlCatalog: ...

    def search_with(
        self, options: SearchOptions, *, filters: SearchFilters | None = None
    ) -> SearchResults: ...


class HomeReader(Searches, Protocol):
    """What a view reads a home through: search, guidance, timelines, notes, context."""

    home: Path

    @property
    def explain_empty(self) -> Callable[..., list[str]]:
        """Memex.explain_empty: ``(query, mode, filters, found=None, *, reach=None)`` (read
        as an attribute: its keywords are not restated here)."""
        ...

    def timeline(self, fragment_id: str, before: int = 3, after: int = 3) -> Timeline: ...

    def explore(self, note: str, similar: int = 5) -> Exploration: ...

    def context(
        self, query: str | SearchOptions, budget_chars: int = 4000, **options: Any
    ) -> ContextPack: ...

    def context_settings(self) -> ContextSettings: ...

    def search_service(self, mode: str) -> SearchService: ...

    def semantic_unavailable_reason(self) -> str | None: ...


class MemoryHome(Searches, Protocol):
    """What the memory handles read and write through: the catalog, search, the write
    lock, the memory service and its indexes, and the models that extract and decide."""

    def writing(self, *jobs: str) -> AbstractContextManager[None]: ...

    def memory_indexes(self) -> MemoryIndexUpdater: ...

    def memory_service(self) -> MemoryService: ...

    def extractor(self) -> Extractor: ...

    def consolidator(self) -> Consolidator: ...

    def fact_types(self) -> Sequence[FactType]: ...

    # what a purge counts and compacts (its receipt, and no trace left on disk)
    @property
    def keyword_sync(self) -> KeywordSync: ...

    @property
    def vector_store(self) -> VectorStore: ...

    def semantic_unavailable_reason(self) -> str | None: ...


class AskingHome(Protocol):
    """What the ask workflow needs: settings, plugins, the catalog, ingest and search."""

    config: Config
    home: Path
    registry: PluginRegistry

    @property
    def catalog(self) -> SqlCatalog: ...

    @property
    def ingest(self) -> Callable[..., IngestReport]:
        """Memex.ingest (read as an attribute: its keywords are not restated here)."""
        ...

    @property
    def search(self) -> Callable[..., SearchResults]:
        """Memex.search (read as an attribute: its keywords are not restated here)."""
        ...

    @property
    def embedder(self) -> Embedder: ...

    def semantic_unavailable_reason(self) -> str | None: ...

    def embed_fragments(self, ids: Sequence[str], progress: Progress | None = None) -> int: ...
