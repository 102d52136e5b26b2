"""What an agent may read through an integration: one scope, checked on every call.

>>> view = Memex(home).view(user="alice")            # doctest: +SKIP
>>> view.search("sqlite locking")                     # doctest: +SKIP
>>> view.remember("Alice deploys on Fridays")         # doctest: +SKIP

The LangChain and LlamaIndex adapters and the MCP server read through a view,
never through :class:`~memex_core.api.Memex` directly, because their callers
pass arguments an agent chose. A view reads:

* the operator's ingested corpus (owner ``""``) when ``corpus`` is true: the
  person who runs memex lends their own exports and notes to their agents;
* with a ``user``, that user's memory (``users/<id>``) and shared memory,
  through the :class:`~memex_core.handles.AgentMemory` handle for writes.

Every search carries the owner filter into both indexes, every result is
checked again afterwards, and an id outside the scope fails exactly like an
unknown one, so a probe learns nothing about what exists elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from memex_core.domain import Fragment, SearchFilters
from memex_core.domain.disclosure import ContextPack, Timeline
from memex_core.domain.documents import DocumentRecord
from memex_core.domain.links import ResolvedLink
from memex_core.domain.memory.namespaces import covers, validate_collection
from memex_core.domain.memory.records import MEMORY_SOURCE, SHARED_OWNER, user_owner
from memex_core.domain.memory.timestamps import HeldAt
from memex_core.domain.search_options import SearchOptions
from memex_core.domain.search_results import SearchResults
from memex_core.errors import MemexError, UnknownIdError, require_query
from memex_core.memex_like import ViewLike

if TYPE_CHECKING:
    from memex_core.domain.exploration import Exploration
    from memex_core.facade.protocols import HomeReader
    from memex_core.handles import AgentMemory, RememberResult

    class ViewedHome(HomeReader, Protocol):
        """What a view reads through, and the memory handle it writes through."""

        def agent(
            self, user_id: str, *, name: str = "agent", collection: str = ""
        ) -> AgentMemory: ...


CORPUS_OWNER = ""  # fragments ingested by the operator (exports, transcripts, vaults)


class AgentView(ViewLike):
    """One agent's window on a memex home: the corpus (if lent) and one user's memory.
    ``search``, ``explain_empty``, ``compact_search`` and ``context`` are
    :class:`~memex_core.read_surface.ReadSurface`'s, answered here within the scope."""

    def __init__(
        self,
        memex: ViewedHome,
        user: str | None = None,
        *,
        name: str = "agent",
        collection: str = "",
        corpus: bool = True,
    ) -> None:
        self._mx = memex
        self.collection = validate_collection(collection)
        self.corpus = corpus
        self.memory: AgentMemory | None = (
            None if user is None else memex.agent(user, name=name, collection=self.collection)
        )
        self.user_id = None if self.memory is None else self.memory.user_id
        memory_owners = () if self.user_id is None else (user_owner(self.user_id), SHARED_OWNER)
        self.memory_owners: tuple[str, ...] = memory_owners
        self.owners: tuple[str, ...] = ((CORPUS_OWNER,) if corpus else ()) + memory_owners

    def __repr__(self) -> str:
        return (
            f"AgentView(user={self.user_id!r}, corpus={self.corpus}, "
            f"collection={self.collection!r})"
        )

    # -- scope ----------------------------------------------------------------------------

    def readable(self, fragment: Fragment) -> bool:
        """Whether this view may show ``fragment``: its owner is in scope and, for a view
        bound to a collection, it is memory in that collection or below (the corpus has no
        collection, so a bound view reads none of it)."""
        return in_scope(fragment, self.owners, self.collection)

    def _log(self, action: str, target: str, tool_call_id: str | None, **detail: Any) -> None:
        if self.memory is not None:  # without a user there is no one to file the entry under
            self.memory._log(action, target, tool_call_id=tool_call_id, **detail)

    def _scoped_filters(self, options: SearchOptions) -> SearchFilters | None:
        """The options' filters narrowed to this scope; None when the scope holds nothing."""
        filters = options.filters()
        collection = options.collection
        prefix = self.collection if collection is None else validate_collection(collection)
        if self.collection and not covers(self.collection, prefix):
            # The view's collection is a bound, not a default: a call may narrow it only.
            raise MemexError(
                f"This agent is limited to collection {self.collection!r}: ask for it or a "
                f"collection below it (like '{self.collection}:notes'), not {prefix!r}."
            )
        if not prefix:
            if not self.owners:
                return None
            if set(self._mx.catalog.fragment_owners()) <= set(self.owners):
                # Every fragment passes the owner filter, so leave it out: any filter makes
                # the vector store's query much slower (chroma: ~60 ms instead of ~5 ms at
                # 10,000 fragments). Results are checked against the scope all the same.
                return filters
            return replace(filters, owners=self.owners)
        # A collection names memory: the corpus has none, so it drops out.
        if not self.memory_owners or self.memory is None:
            return None
        known = self._mx.catalog.memory_collections(self.memory.scope, self.memory_owners)
        names = tuple(name for name in known if covers(prefix, name))
        if not names:
            return None  # a prefix that matches nothing finds nothing; it never widens
        return replace(filters, owners=self.memory_owners, collections=names)

    # -- reading --------------------------------------------------------------------------

    def _search(self, options: SearchOptions, tool_call_id: str | None) -> SearchResults:
        filters = self._scoped_filters(options)
        if filters is None:
            found = SearchResults(
                options.mode, [], ["nothing in this scope matches that collection"]
            )
        else:
            found = self._mx.search_with(options, filters=filters)
            # Defence in depth: the stores filtered already; never trust them alone.
            found.results = [r for r in found.results if self.readable(r.fragment)]
        self._log("search", options.query, tool_call_id, mode=options.mode, hits=len(found.results))
        return found

    def reach_name(self, collection: str | None = None) -> str:
        """This view's reach in words, as no-results guidance names it (narrowed to
        ``collection`` and below when one is asked for)."""
        parts = []
        if self.user_id is not None:
            parts.append(f"user {self.user_id}'s memory and shared memory")
        if self.corpus and not self.collection:
            parts.append("the ingested corpus")
        reach = ", and ".join(parts) or "nothing"
        narrowed = self.collection if collection is None else collection
        if narrowed:
            return f"memory collection {narrowed!r} and the ones below it, in {reach}"
        return reach

    def _explain_empty(self, options: SearchOptions, found: SearchResults | None) -> list[str]:
        # Counted and probed within this view only: an agent learns nothing about
        # fragments it may not read.
        from memex_core.services.guidance import Reach

        filters = self._scoped_filters(options)
        collection = options.collection
        if filters is None:
            return [
                f"No memory collection {collection or self.collection!r} or below it in "
                f"{self.reach_name()}: nothing to search there."
            ]
        reach = Reach(self.reach_name(collection), operator=False, collection=collection)
        return self._mx.explain_empty(options.query, options.mode, filters, found, reach=reach)

    def get(self, ids: Sequence[str], *, tool_call_id: str | None = None) -> list[Fragment]:
        """Fragments by id, in the order asked; unknown and out-of-scope ids are left out."""
        wanted = [i for i in ids if isinstance(i, str)]
        found = self._mx.catalog.get_many(wanted)
        out = [found[i] for i in wanted if i in found and self.readable(found[i])]
        self._log("get", ",".join(wanted)[:200], tool_call_id, found=len(out))
        return out

    def timeline(
        self,
        fragment_id: str,
        before: int = 3,
        after: int = 3,
        *,
        tool_call_id: str | None = None,
    ) -> Timeline:
        """The turns around a fragment this view may read (same error as an unknown id)."""
        anchor = self._mx.catalog.get_many([fragment_id]).get(fragment_id)
        if anchor is None or not self.readable(anchor):
            self._log("timeline", fragment_id, tool_call_id, outcome="not_found")
            raise UnknownIdError(
                f"No fragment with id {fragment_id!r}. Ids come from a search; give the full id."
            )
        timeline = self._mx.timeline(fragment_id, before, after)
        kept = [
            (f, o)
            for f, o in zip(timeline.fragments, timeline.offsets, strict=True)
            if self.readable(f)
        ]
        self._log("timeline", fragment_id, tool_call_id)
        return replace(timeline, fragments=[f for f, _ in kept], offsets=[o for _, o in kept])

    def explore(
        self, note: str, similar: int = 5, *, tool_call_id: str | None = None
    ) -> Exploration:
        """A corpus note's links, backlinks and similar notes. Memory files have their own
        links call (``view.memory.links``), which shows them by the agent's paths."""
        from memex_core.services.explore import Explorer

        if not self.corpus or self.collection:
            raise MemexError(
                "This agent may not read the corpus, so there are no notes to explore. "
                "Search memory instead."
            )
        graph = CorpusGraph(self._mx.catalog)
        similar_search = None
        if similar > 0 and self._mx.semantic_unavailable_reason() is None:
            semantic_hits = self._mx.search_service("semantic").semantic_hits

            def similar_search(text: str, limit: int, filters: SearchFilters) -> Any:
                return semantic_hits(text, limit, replace(filters, owners=(CORPUS_OWNER,)))

        exploration = Explorer(graph, similar_search).explore(note, similar)
        self._log("explore", note, tool_call_id)
        return exploration

    def _context(
        self, options: SearchOptions, budget_chars: int, tool_call_id: str | None
    ) -> ContextPack:
        from memex_core.services.context import ContextBuilder

        require_query(options.query)
        # Private memory stays out of a context pack whatever the options say.
        filters = self._scoped_filters(options.with_changes(include_private=False))
        if filters is not None and filters.tags:
            # Resolved once, so the recent material filling the pack keeps to the tags too.
            filters = self._mx.catalog.resolve_tags(filters)
        if filters is None:
            return ContextPack(query=options.query, budget_chars=budget_chars)
        scoped = filters

        def search(text: str, limit: int) -> Any:
            asked = options.with_changes(query=text, limit=limit)
            found = self._mx.search_with(asked, filters=scoped)
            found.results = [r for r in found.results if self.readable(r.fragment)]
            return found  # results, and whether the relevance floor left everything out

        graph = ScopedGraph(self._mx.catalog, filters.owners, self.collection)
        try:
            pack = ContextBuilder(graph, search, self._mx.context_settings()).build(
                options.query, budget_chars, filters, HeldAt.of(options)
            )
        except ValueError as exc:
            raise MemexError(str(exc)) from exc
        self._log("context", options.query, tool_call_id, items=len(pack.items))
        return pack

    # -- writing --------------------------------------------------------------------------

    def remember(self, text: str | None = None, **options: Any) -> RememberResult:
        """Store a fact (or ``messages=`` a conversation) in this user's memory."""
        if self.memory is None:
            raise MemexError(
                "Remembering needs a user to file the memory under: open the view with "
                "a user (mx.view(user='alice'), `memex mcp --user alice`)."
            )
        return self.memory.remember(text, **options)


def document_owner(document: DocumentRecord) -> str:
    """The owner of a stored document: memory files carry it in their storage path."""
    if document.source_kind != MEMORY_SOURCE and document.root != MEMORY_SOURCE:
        return CORPUS_OWNER
    from memex_core.domain.memory.paths import owner_of_storage_path

    try:
        return owner_of_storage_path(document.path)
    except MemexError:
        return "?"  # unreadable by anyone but the operator


def in_scope(fragment: Fragment, owners: Sequence[str] | frozenset[str], collection: str) -> bool:
    """Whether ``fragment`` belongs to one of ``owners`` and, when ``collection`` bounds the
    scope, lies in that collection or below it."""
    if fragment.owner not in owners:
        return False
    return not collection or (fragment.collection != "" and covers(collection, fragment.collection))


class ScopedGraph:
    """A catalog graph that shows only documents and fragments of the given owners (and,
    with ``collection``, only fragments in that collection or below)."""

    def __init__(self, graph: Any, owners: Sequence[str], collection: str = "") -> None:
        self._graph = graph
        self.owners = frozenset(owners)
        self.collection = collection

    def _fragment_ok(self, fragment: Fragment) -> bool:
        return in_scope(fragment, self.owners, self.collection)

    def _doc_ok(self, document: DocumentRecord | None) -> bool:
        return document is not None and document_owner(document) in self.owners

    def get_many(self, ids: Sequence[str]) -> dict[str, Fragment]:
        found = self._graph.get_many(ids)
        return {k: f for k, f in found.items() if self._fragment_ok(f)}

    def document(self, document_id: str) -> DocumentRecord | None:
        doc = self._graph.document(document_id)
        return doc if self._doc_ok(doc) else None

    def documents(self, document_ids: Sequence[str]) -> dict[str, DocumentRecord]:
        found = self._graph.documents(document_ids)
        return {k: d for k, d in found.items() if self._doc_ok(d)}

    def find_documents(self, name: str) -> list[DocumentRecord]:
        return [d for d in self._graph.find_documents(name) if self._doc_ok(d)]

    def _links_ok(self, links: list[ResolvedLink]) -> list[ResolvedLink]:
        ids = {ln.source_document for ln in links} | {
            ln.target_document for ln in links if ln.target_document
        }
        ok = set(self.documents(sorted(ids)))
        return [
            ln
            for ln in links
            if ln.source_document in ok and (ln.target_document is None or ln.target_document in ok)
        ]

    def outlinks(self, document_id: str) -> list[ResolvedLink]:
        return self._links_ok(self._graph.outlinks(document_id))

    def backlinks(self, document_id: str) -> list[ResolvedLink]:
        return self._links_ok(self._graph.backlinks(document_id))

    def backlink_counts(self, fragment_ids: Sequence[str]) -> dict[str, int]:
        return dict(self._graph.backlink_counts(list(self.get_many(fragment_ids))))

    def conversation_fragments(self, conversation_id: str) -> list[Fragment]:
        found = self._graph.conversation_fragments(conversation_id)
        return [f for f in found if self._fragment_ok(f)]

    def neighbours(self, fragment_id: str, before: int, after: int) -> list[Fragment]:
        found = self._graph.neighbours(fragment_id, before, after)
        return [f for f in found if self._fragment_ok(f)]

    def recent_fragments(
        self, limit: int, offset: int = 0, filters: SearchFilters | None = None
    ) -> list[Fragment]:
        filters = filters or SearchFilters()
        owners = tuple(o for o in (filters.owners or tuple(self.owners)) if o in self.owners)
        if not owners:
            return []
        found = self._graph.recent_fragments(limit, offset, replace(filters, owners=owners))
        return [f for f in found if self._fragment_ok(f)]

    def memory_validity(self, memory_ids: Sequence[str]) -> dict[str, tuple[float, float | None]]:
        """When each memory held (times only; the fragments asked about passed the scope)."""
        return dict(self._graph.memory_validity(memory_ids))


class CorpusGraph(ScopedGraph):
    """The operator's corpus only: notes to explore, never memory files."""

    def __init__(self, graph: Any) -> None:
        super().__init__(graph, (CORPUS_OWNER,))
