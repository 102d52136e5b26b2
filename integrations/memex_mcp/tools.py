"""What each MCP tool does, as plain synchronous methods over one :class:`AgentView`.

Kept apart from the SDK glue (:mod:`memex_mcp.server`) so the behaviour can be
read and tested without a transport. Every method reads or writes through the
view fixed at start-up; the collection a caller names is narrowed by
:meth:`ServerScope.narrow` first. Failures raise :class:`ToolFailure` (or a
:class:`MemexError` from memex) with a message that says what to do next; the
server returns them as tool errors the model can act on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from memex_core.domain.memory.records import MEMORY_SOURCE
from memex_core.domain.search_options import MODES
from memex_core.errors import MemexError
from memex_mcp import render
from memex_mcp.scope import ServerScope

if TYPE_CHECKING:
    from memex_core.memex_like import MemexLike, ViewLike

#: What a tool hands back: the text a model reads and the structured data.
Output = tuple[str, dict[str, Any]]

MEMORY_ID_PREFIX = "mem_"
MAX_IDS = 50
#: The modes a search tool takes: the core's, so a new mode reaches the tools unchanged.
SEARCH_MODES = MODES


class ToolFilters(TypedDict, total=False):
    """The filters the ``search`` and ``context`` tools take, each optional. ``as_of`` and
    ``include_superseded`` choose which remembered facts come back, as ``recall``'s do."""

    source: Sequence[str] | None
    since: str | None
    until: str | None
    collection: str | None
    tags: Sequence[str] | None
    as_of: str | None
    include_superseded: bool


class ToolFailure(MemexError):
    """A tool call that cannot be done as asked; the message says what to do instead."""


class MemexTools:
    """The tools of one server: a memex home seen through one agent's scope.

    ``memex`` is a local ``Memex`` or a ``memex_client.MemexClient`` of a ``memex serve``
    (``memex mcp --url``); the scope's user must then be one its credentials reach.
    """

    def __init__(self, memex: MemexLike, scope: ServerScope) -> None:
        self.memex = memex
        self.scope = scope
        self.view: ViewLike = memex.view(
            user=scope.user, name=scope.name, collection=scope.collection, corpus=scope.corpus
        )

    def fact_kinds(self) -> list[str]:
        """The kinds ``remember`` accepts: the configured fact types and ``misc``."""
        names = [fact_type.name for fact_type in self.memex.fact_types()]
        return [*names, "misc"] if "misc" not in names else names

    # -- reading ------------------------------------------------------------------------------

    def _filters(self, given: ToolFilters) -> dict[str, Any]:
        """The options ``search`` and ``context`` share: the scope's collection (narrowed to
        ``collection``) and the filters given (``tags``: notes with one of these tags or a
        tag nested under one)."""
        options: dict[str, Any] = {"collection": self.scope.narrow(given.get("collection"))}
        if source := given.get("source"):
            options["source"] = tuple(source)
        if since := given.get("since"):
            options["since"] = since
        if until := given.get("until"):
            options["until"] = until
        if tags := given.get("tags"):
            options["tag"] = tuple(tags)
        if as_of := given.get("as_of"):
            options["as_of"] = as_of
        if given.get("include_superseded"):
            options["include_superseded"] = True
        return options

    def _held(self, memory_ids: dict[str, str], given: ToolFilters) -> dict[str, dict[str, Any]]:
        """When a search or context asked for facts by time (``as_of`` or
        ``include_superseded``), when each remembered fact among its hits held, keyed by the
        hit's id (``memory_ids``: hit id -> memory id): a superseded fact is then shown as
        one, never as current. Nothing is looked up for a search of current facts."""
        if not (given.get("as_of") or given.get("include_superseded")):
            return {}
        held: dict[str, dict[str, Any]] = {}
        for hit_id, memory_id in memory_ids.items():
            record = self._memory(memory_id)
            if record is not None:
                held[hit_id] = {k: record.get(k) for k in render.VALIDITY_FIELDS}
        return held

    def search(
        self,
        query: str,
        limit: int = 5,
        concise: bool = True,
        mode: str = "hybrid",
        **filters: Unpack[ToolFilters],
    ) -> Output:
        if not query.strip():
            raise ToolFailure("The query is empty: say what to look for, in a few words.")
        if mode not in SEARCH_MODES:
            raise ToolFailure(f"Unknown mode {mode!r}: use one of {', '.join(SEARCH_MODES)}.")
        options = self._filters(filters)
        if concise:
            hits, notes = self.view.compact_search(query, limit=limit, mode=mode, **options)
            memories = {h.id: h.conversation_id for h in hits if h.source_kind == MEMORY_SOURCE}
            return render.compact_search(query, mode, hits, notes, self._held(memories, filters))
        found = self.view.search(query, mode, limit, **options)
        memories = {
            r.fragment.id: r.fragment.conversation_id
            for r in found.results
            if r.fragment.source_kind == MEMORY_SOURCE
        }
        held = self._held(memories, filters)
        return render.full_search(query, mode, found.results, found.notes, held)

    def recall(
        self,
        query: str,
        limit: int = 5,
        mode: str = "hybrid",
        as_of: str | None = None,
        include_superseded: bool = False,
        collection: str | None = None,
    ) -> Output:
        """The user's remembered facts (and shared ones): current ones, those valid at
        ``as_of``, or every one with ``include_superseded``, each with when it held."""
        if not query.strip():
            raise ToolFailure("The query is empty: say what to recall, in a few words.")
        if mode not in SEARCH_MODES:
            raise ToolFailure(f"Unknown mode {mode!r}: use one of {', '.join(SEARCH_MODES)}.")
        memory = self.view.memory
        if memory is None:
            raise ToolFailure(
                "This server has no user's memory to recall from: use `search` instead."
            )
        hits = memory.search(
            query,
            mode,
            limit,
            collection=self.scope.narrow(collection),
            as_of=as_of or None,
            include_superseded=include_superseded,
        )
        return render.recalled(query, hits, as_of or None, include_superseded)

    def timeline(self, fragment_id: str, before: int = 3, after: int = 3) -> Output:
        return render.timeline(self.view.timeline(fragment_id.strip(), before, after))

    def get(self, ids: Sequence[str]) -> Output:
        wanted = list(dict.fromkeys(i.strip() for i in ids if i.strip()))
        if not wanted:
            raise ToolFailure("Give at least one id; ids come from search, timeline or remember.")
        if len(wanted) > MAX_IDS:
            raise ToolFailure(f"At most {MAX_IDS} ids per call; split the list.")
        memory_ids = [i for i in wanted if i.startswith(MEMORY_ID_PREFIX)]
        fragment_ids = [i for i in wanted if not i.startswith(MEMORY_ID_PREFIX)]
        found = self.view.get(fragment_ids) if fragment_ids else []
        memories = [m for m in (self._memory(i) for i in memory_ids) if m is not None]
        seen = {f.id for f in found} | {m["id"] for m in memories}
        missing = [i for i in wanted if i not in seen]
        if missing and not seen:
            raise ToolFailure(
                f"No fragment or memory with id(s) {', '.join(map(repr, missing))}. Ids come "
                "from search (or remember, for mem_ ids); give the full id, e.g. copied from "
                "a search hit."
            )
        return render.fragments(found, memories, missing)

    def _memory(self, memory_id: str) -> dict[str, Any] | None:
        from memex_core.errors import UnknownIdError

        if self.view.memory is None:
            return None
        try:
            return self.view.memory.get(memory_id).to_dict()
        except UnknownIdError:  # MemoryNotFound, or a remote memex's 404
            return None

    def explore(self, note: str, similar: int = 5, concise: bool = False) -> Output:
        return render.exploration(self.view.explore(note, similar), concise)

    def context(
        self, query: str, budget_chars: int = 4000, **filters: Unpack[ToolFilters]
    ) -> Output:
        if not query.strip():
            raise ToolFailure("The query is empty: say what the context is for, in a few words.")
        pack = self.view.context(query, budget_chars, **self._filters(filters))
        held: dict[str, dict[str, Any]] = {}
        if filters.get("as_of") or filters.get("include_superseded"):
            items = self.view.get([item.id for item in pack.items])
            memories = {f.id: f.conversation_id for f in items if f.source_kind == MEMORY_SOURCE}
            held = self._held(memories, filters)
        return render.context_pack(pack, held)

    def ask(
        self, question: str, repo: str | None = None, budget_chars: int | None = None
    ) -> Output:
        """Memory (through this server's view, so only what its user may read) fused with the
        code of ``repo`` (default: the git repository the server was started in)."""
        if not question.strip():
            raise ToolFailure("The question is empty: ask it in a sentence.")
        ask = getattr(self.memex, "ask", None)
        if ask is None:
            raise ToolFailure(
                "ask needs a local memex home (it indexes the repository's code here); this "
                "server talks to a memex serve: use `search` or `context` instead."
            )
        chosen = None
        if self.scope.corpus:
            # Code is part of the operator's corpus: a server without the corpus neither
            # indexes nor shows it (its view would hide every code hit anyway).
            chosen = repo or _repo_here(self.memex)
        elif repo:
            raise ToolFailure(
                "This server is started without the corpus (--no-corpus), so it cannot search "
                "code; ask without repo for memory only."
            )
        result = ask(question, repo=chosen, budget_chars=budget_chars, search=self.view.search)
        return render.ask_pack(result)

    # -- writing ------------------------------------------------------------------------------

    def remember(self, text: str, collection: str | None = None, kind: str = "misc") -> Output:
        if not text.strip():
            raise ToolFailure("Nothing to remember: give the fact as one short sentence.")
        kinds = self.fact_kinds()
        if kind not in kinds:
            raise ToolFailure(f"Unknown kind {kind!r}: use one of {', '.join(kinds)}.")
        chosen = self.scope.narrow(collection)
        result = self.view.remember(text, collection=chosen, kind=kind)
        return render.remembered(result, self.scope.user, chosen or self.scope.collection)


def _repo_here(memex: Any) -> str | None:
    """The git repository the server runs in (its working directory), or None."""
    import os

    from memex_core.domain import SourceError
    from memex_core.facade.ask_workflow import code_source

    source = code_source(memex)
    if source is None:
        return None
    try:
        return str(source.repository_root(os.getcwd()))
    except SourceError:
        return None
