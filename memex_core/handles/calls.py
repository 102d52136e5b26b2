"""The memory calls with many options, written once for the local and the remote handles.

``mx.agent(user)`` and ``mx.operator()`` (:mod:`memex_core.handles`) and ``memex_client``'s
``RemoteAgentMemory`` and ``RemoteOperatorMemory`` take ``list`` and ``write`` (and the
operator's handles ``purge``) with the same arguments, and ``search`` with memory's own
search options. :class:`MemoryCalls` and :class:`PurgeCall` hold those signatures and their
docstrings, and hand each handle its arguments as one object (:class:`MemoryListing`,
:class:`~memex_core.domain.search_options.SearchOptions`, :class:`FileWrite`,
:class:`PurgeRequest`) to answer in ``_list``, ``_search``, ``_write`` and ``_purge``:
locally, or as one HTTP request.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass

from memex_core.domain.memory.outcomes import MemoryHit
from memex_core.domain.memory.receipts import PurgeReceipt
from memex_core.domain.memory.records import MemoryRecord
from memex_core.domain.search_options import SearchOptions, TimeBound
from memex_core.errors import require_query


@dataclass(frozen=True)
class MemoryListing:
    """A ``list`` call's arguments: which memories, how many, from where."""

    collection: str | None
    include_deleted: bool
    kind: str | None
    limit: int
    offset: int
    user_id: str | None


@dataclass(frozen=True)
class FileWrite:
    """A ``write`` call's arguments: the memory file and how to file it."""

    path: str
    content: str
    collection: str | None
    private: bool
    reason: str


@dataclass(frozen=True)
class PurgeRequest:
    """A ``purge`` call's arguments: whose memories (or which ones), and the confirmation."""

    memory_ids: Sequence[str]
    user_id: str | None
    confirm: str


class MemoryCalls:
    """``list``, ``search`` and ``write``, as every memory handle takes them."""

    def list(
        self,
        collection: str | None = None,
        *,
        include_deleted: bool = False,
        kind: str | None = None,
        limit: int = 100,
        offset: int = 0,
        user_id: str | None = None,
        tool_call_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:
        """Memories in a collection (and those below it), oldest first."""
        asked = MemoryListing(collection, include_deleted, kind, limit, offset, user_id)
        return self._list(asked, tool_call_id)

    def _list(self, asked: MemoryListing, tool_call_id: str | None) -> builtins.list[MemoryRecord]:
        raise NotImplementedError

    def search(
        self,
        query: str | SearchOptions,
        mode: str = "hybrid",
        limit: int = 10,
        *,
        collection: str | None = None,
        include_private: bool = False,
        user_id: str | None = None,
        since: TimeBound = None,
        until: TimeBound = None,
        tool_call_id: str | None = None,
        as_of: TimeBound = None,
        include_superseded: bool = False,
    ) -> builtins.list[MemoryHit]:
        """Search memory in scope: a collection prefix covers every collection below it.
        ``query`` may be a whole :class:`~memex_core.domain.search_options.SearchOptions`
        (and then no other option is given). Time phrases in the query are never read as
        a filter here: a memory's words are what it is about. Current facts only, unless
        ``as_of`` (a datetime, ISO 8601 date or time, or epoch seconds) asks for the facts
        valid then or ``include_superseded`` for every fact; each hit carries its
        validity."""
        options = SearchOptions.at_entry(
            query,
            mode,
            limit,
            collection=collection,
            include_private=include_private,
            since=since,
            until=until,
            as_of=as_of,
            include_superseded=include_superseded,
        ).with_changes(time_phrases=False)
        require_query(options.query)
        return self._search(options, user_id, tool_call_id)

    def _search(
        self, options: SearchOptions, user_id: str | None, tool_call_id: str | None
    ) -> builtins.list[MemoryHit]:
        raise NotImplementedError

    def write(
        self,
        path: str,
        content: str,
        *,
        collection: str | None = None,
        private: bool = False,
        reason: str = "",
        tool_call_id: str | None = None,
    ) -> MemoryRecord:
        """Create or replace a memory file (a new revision; the old one stays in history).
        Its ``[[...]]`` links join the link graph."""
        return self._write(FileWrite(path, content, collection, private, reason), tool_call_id)

    def _write(self, asked: FileWrite, tool_call_id: str | None) -> MemoryRecord:
        raise NotImplementedError


class PurgeCall:
    """``purge``, as both operator handles take it."""

    def purge(
        self,
        *,
        memory_ids: Sequence[str] = (),
        user_id: str | None = None,
        confirm: str,
        tool_call_id: str | None = None,
    ) -> int:
        """Hard-delete memories for a data-protection request: every revision, fragment,
        vector and link. ``confirm`` must repeat the user id (or the single memory id).
        Returns how many memories were purged. The access log keeps that it happened."""
        return self._purge(PurgeRequest(memory_ids, user_id, confirm), tool_call_id).purged

    def purge_receipt(
        self,
        *,
        memory_ids: Sequence[str] = (),
        user_id: str | None = None,
        confirm: str,
        tool_call_id: str | None = None,
    ) -> PurgeReceipt:
        """As :meth:`purge`, returning its receipt: rows removed per catalog table, entries
        removed from the keyword index and the vector store, the counts before and after."""
        return self._purge(PurgeRequest(memory_ids, user_id, confirm), tool_call_id)

    def _purge(self, asked: PurgeRequest, tool_call_id: str | None) -> PurgeReceipt:
        raise NotImplementedError
