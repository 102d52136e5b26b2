"""Remote handles with the methods and return types of the Python API's.

:class:`RemoteAgentMemory` is ``mx.agent(user)``, :class:`RemoteOperatorMemory`
``mx.operator()``, :class:`RemoteView` ``mx.view(user)``; each call is one HTTP
request, and what comes back is the same dataclass the local call returns.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from memex_client.errors import MemexClientError, PermissionDeniedError
from memex_client.timed import epoch_times
from memex_client.transport import Transport, decode
from memex_core.domain import Fragment
from memex_core.domain.disclosure import ContextPack, Timeline
from memex_core.domain.memory.receipts import PurgeReceipt
from memex_core.domain.memory.records import AccessEntry, MemoryRecord, Revision
from memex_core.domain.search_options import SearchOptions
from memex_core.errors import require_query
from memex_core.handles import MemoryHit, MemoryLinks, RememberResult
from memex_core.handles.calls import FileWrite, MemoryCalls, MemoryListing, PurgeCall, PurgeRequest
from memex_core.memex_like import ViewLike
from memex_core.services.agent_memory import DreamReport
from memex_core.services.dream import EMPTY_STATE, DreamPlan
from memex_core.services.explore import Exploration
from memex_core.services.search import SearchResults


def _drop_none(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _messages(messages: Sequence[Any] | None) -> list[dict[str, Any]] | None:
    if messages is None:
        return None
    out = []
    for message in messages:
        if isinstance(message, dict):
            out.append(_drop_none(**message))
        else:  # memex_core.services.agent_memory.Message
            out.append(
                _drop_none(
                    role=message.role,
                    content=message.content,
                    timestamp=getattr(message, "timestamp", None),
                )
            )
    return out


def _local_only(name: str, value: object) -> None:
    if value is not None:
        raise MemexClientError(
            f"{name} runs where the memory is: a remote memory uses the server's configured "
            f"one, so leave {name} out (or configure it in the server's config.toml).",
            code="local_only",
        )


class RemoteMemory(MemoryCalls):
    """What both remote memory handles share (``list`` and ``write`` as
    :class:`~memex_core.handles.calls.MemoryCalls` takes them, each one request)."""

    _prefix = "/v1/memory"

    def __init__(self, transport: Transport, *, collection: str = "", act_as: str | None = None):
        self._t = transport
        self.collection = collection
        self._act_as = act_as

    def _post(self, op: str, body: dict[str, Any], tool_call_id: str | None) -> Any:
        return self._t.post(
            f"{self._prefix}/{op}", body, tool_call_id=tool_call_id, act_as=self._act_as
        )

    def _post_as(self, kind: Any, op: str, body: dict[str, Any], tool_call_id: str | None) -> Any:
        return self._t.post_as(
            kind, f"{self._prefix}/{op}", body, tool_call_id=tool_call_id, act_as=self._act_as
        )

    def _user(self, user_id: str | None) -> dict[str, Any]:
        return {}

    def _collection(self, collection: str | None) -> str | None:
        """``collection`` as asked, else the handle's own (None: every collection)."""
        return collection if collection is not None else (self.collection or None)

    # -- reading --------------------------------------------------------------------------

    def _records(self, kind: Any, op: str, body: dict[str, Any], tool_call_id: str | None) -> Any:
        """A route answering memory records or hits, read as ``kind``."""
        return decode(kind, epoch_times(self._post(op, body, tool_call_id)))

    def get(self, ref: str, *, tool_call_id: str | None = None) -> MemoryRecord:
        return self._records(MemoryRecord, "get", {"ref": ref}, tool_call_id)

    def chain(self, ref: str, *, tool_call_id: str | None = None) -> builtins.list[MemoryRecord]:
        """The facts ``ref`` belongs to in time, oldest first (Paris -> Berlin), each with
        its validity: ``Memex.history(id)``. Only the caller's own and shared facts."""
        return self._records(builtins.list[MemoryRecord], "chain", {"ref": ref}, tool_call_id)

    read = get

    def _list(self, asked: MemoryListing, tool_call_id: str | None) -> builtins.list[MemoryRecord]:
        body = _drop_none(
            collection=self._collection(asked.collection),
            include_deleted=asked.include_deleted,
            kind=asked.kind,
            limit=asked.limit,
            offset=asked.offset,
            **self._user(asked.user_id),
        )
        return self._records(builtins.list[MemoryRecord], "list", body, tool_call_id)

    def _search(
        self, options: SearchOptions, user_id: str | None, tool_call_id: str | None
    ) -> builtins.list[MemoryHit]:
        body = _body(options, MEMORY_SEARCH_FIELDS, self._collection(options.collection))
        body.update(self._user(user_id))
        return self._records(builtins.list[MemoryHit], "search", body, tool_call_id)

    def links(self, ref: str, *, tool_call_id: str | None = None) -> MemoryLinks:
        return decode(MemoryLinks, self._post("links", {"ref": ref}, tool_call_id))

    # -- writing --------------------------------------------------------------------------

    def remember(
        self,
        text: str | None = None,
        *,
        messages: Sequence[Any] | None = None,
        collection: str | None = None,
        kind: str = "misc",
        private: bool = False,
        consolidate: bool = False,
        extractor: Any = None,
        consolidator: Any = None,
        user_id: str | None = None,
        tool_call_id: str | None = None,
        at: Any = None,
    ) -> RememberResult:
        """As the local handle's: ``at`` (a datetime, date, ISO 8601 text or epoch seconds)
        is when the fact was said; a fact updating an earlier one closes it from then."""
        _local_only("extractor", extractor)
        _local_only("consolidator", consolidator)
        body = _drop_none(
            text=text,
            messages=_messages(messages),
            collection=self._collection(collection),
            kind=kind,
            private=private,
            consolidate=consolidate,
            at=_listed(at),
            **self._user(user_id),
        )
        return decode(RememberResult, self._post("remember", body, tool_call_id))

    def _write(self, asked: FileWrite, tool_call_id: str | None) -> MemoryRecord:
        body = _drop_none(
            path=asked.path,
            content=asked.content,
            collection=self._collection(asked.collection),
            private=asked.private,
            reason=asked.reason,
        )
        return self._records(MemoryRecord, "write", body, tool_call_id)

    def forget(
        self, ref: str, *, reason: str = "", tool_call_id: str | None = None
    ) -> MemoryRecord:
        return self._records(MemoryRecord, "forget", {"ref": ref, "reason": reason}, tool_call_id)

    def undelete(self, ref: str, *, tool_call_id: str | None = None) -> MemoryRecord:
        return self._records(MemoryRecord, "undelete", {"ref": ref}, tool_call_id)

    def _dream_body(
        self, collection: str | None, consolidator: Any, user_id: str | None, **more: Any
    ) -> dict[str, Any]:
        """What ``dream`` and ``dream/plan`` post (a consolidator runs only in a local memex)."""
        _local_only("consolidator", consolidator)
        return _drop_none(collection=self._collection(collection), **more, **self._user(user_id))

    def dream(
        self,
        collection: str | None = None,
        *,
        dry_run: bool = False,
        consolidator: Any = None,
        user_id: str | None = None,
        progress: Any = None,
        tool_call_id: str | None = None,
    ) -> DreamReport:
        body = self._dream_body(collection, consolidator, user_id, dry_run=dry_run)
        return decode(DreamReport, self._post("dream", body, tool_call_id))

    def collections(self, *, user_id: str | None = None) -> builtins.list[str]:
        return decode(builtins.list[str], self._post("collections", self._user(user_id), None))

    def dream_plan(
        self,
        collection: str | None = None,
        *,
        consolidator: Any = None,
        user_id: str | None = None,
        progress: Any = None,
        tool_call_id: str | None = None,
    ) -> DreamPlan:
        data = self._post(
            "dream/plan", self._dream_body(collection, consolidator, user_id), tool_call_id
        )
        plan = DreamPlan(
            decode(DreamReport, data["report"]),
            tuple((owner, name) for owner, name in data["groups"]),
            data["state"],
            data["collection"],
            data["user_id"],
        )
        if plan.digest != data["digest"]:  # a server of another version digests otherwise
            raise MemexClientError(
                "The service's dream plan digest differs from this client's: use a client "
                "of the same memex version as the service.",
                code="version_mismatch",
            )
        return plan

    def apply_dream(self, plan: DreamPlan, *, tool_call_id: str | None = None) -> DreamReport:
        """Apply a plan from :meth:`dream_plan`: the service makes it again and applies it
        only if it is the same plan; otherwise :class:`~memex_client.errors.PlanChangedError`
        (a ``DreamPlanStale``) and nothing is written."""
        body = _drop_none(
            collection=plan.collection, digest=plan.digest, **self._user(plan.user_id)
        )
        return decode(DreamReport, self._post("dream/apply", body, tool_call_id))


class RemoteAgentMemory(RemoteMemory):
    """``mx.agent(user)`` over HTTP: the user is the key's (or the one an operator names)."""

    def __init__(
        self,
        transport: Transport,
        user_id: str,
        *,
        name: str = "agent",
        collection: str = "",
        act_as: str | None = None,
    ) -> None:
        super().__init__(transport, collection=collection, act_as=act_as)
        self.user_id = user_id
        self.name = name

    def __repr__(self) -> str:
        return f"RemoteAgentMemory(user={self.user_id!r}, url={self._t.url!r})"

    def _other_user(self, user_id: str | None) -> bool:
        return user_id is not None and user_id != self.user_id

    # Another user's memory: nothing, and no hint it exists (as AgentMemory).
    def list(
        self, *args: Any, user_id: str | None = None, **kwargs: Any
    ) -> builtins.list[MemoryRecord]:
        return [] if self._other_user(user_id) else super().list(*args, **kwargs)

    def search(
        self, *args: Any, user_id: str | None = None, **kwargs: Any
    ) -> builtins.list[MemoryHit]:
        if self._other_user(user_id):
            asked = args[0] if args else kwargs.get("query")
            require_query(asked.query if isinstance(asked, SearchOptions) else asked)
            return []
        return super().search(*args, **kwargs)

    def remember(self, *args: Any, user_id: str | None = None, **kwargs: Any) -> RememberResult:
        if self._other_user(user_id):
            raise PermissionDeniedError(
                f"this agent is bound to user {self.user_id!r} and cannot write for {user_id!r}",
                status=403,
                code="forbidden",
            )
        return super().remember(*args, **kwargs)

    def dream(self, *args: Any, user_id: str | None = None, **kwargs: Any) -> DreamReport:
        if self._other_user(user_id):
            return DreamReport()
        return super().dream(*args, **kwargs)

    def collections(self, *, user_id: str | None = None) -> builtins.list[str]:
        return [] if self._other_user(user_id) else super().collections()

    def dream_plan(self, *args: Any, user_id: str | None = None, **kwargs: Any) -> DreamPlan:
        if self._other_user(user_id):  # nothing of theirs, as AgentMemory plans nothing
            collection = args[0] if args else kwargs.get("collection")
            return DreamPlan(DreamReport(dry_run=True), (), EMPTY_STATE, collection, user_id)
        return super().dream_plan(*args, **kwargs)

    def apply_dream(self, plan: DreamPlan, *, tool_call_id: str | None = None) -> DreamReport:
        if not plan.groups and self._other_user(plan.user_id):
            return DreamReport()
        return super().apply_dream(plan, tool_call_id=tool_call_id)


class RemoteOperatorMemory(RemoteMemory, PurgeCall):
    """``mx.operator()`` over HTTP: every user's memory, revisions, purge, the access log."""

    _prefix = "/v1/admin/memory"

    def __init__(self, transport: Transport, *, name: str = "operator", collection: str = ""):
        super().__init__(transport, collection=collection)
        self.name = name

    def __repr__(self) -> str:
        return f"RemoteOperatorMemory(url={self._t.url!r})"

    def _user(self, user_id: str | None) -> dict[str, Any]:
        return {} if user_id is None else {"user_id": user_id}

    def agent(
        self, user_id: str, *, name: str = "agent", collection: str = ""
    ) -> RemoteAgentMemory:
        """One user's memory, as that user's agent sees it (the operator acting for them)."""
        return RemoteAgentMemory(self._t, user_id, name=name, collection=collection, act_as=user_id)

    def history(self, ref: str, *, tool_call_id: str | None = None) -> builtins.list[Revision]:
        return decode(builtins.list[Revision], self._post("history", {"ref": ref}, tool_call_id))

    def restore(self, ref: str, revision: int, *, tool_call_id: str | None = None) -> MemoryRecord:
        body = {"ref": ref, "revision": revision}
        return self._records(MemoryRecord, "restore", body, tool_call_id)

    def _purge(self, asked: PurgeRequest, tool_call_id: str | None) -> PurgeReceipt:
        body = _drop_none(
            memory_ids=builtins.list(asked.memory_ids), user_id=asked.user_id, confirm=asked.confirm
        )
        return decode(PurgeReceipt, self._post("purge", body, tool_call_id))

    def access_log(self, **filters: Any) -> builtins.list[AccessEntry]:
        found = self._t.post("/v1/admin/access-log", _drop_none(**filters))
        return decode(builtins.list[AccessEntry], found)


class RemoteView(ViewLike):
    """``mx.view(user)`` over HTTP: search and read what the credentials reach. ``search``,
    ``compact_search`` and ``context`` take what ``mx.view(user)``'s take
    (:class:`~memex_core.read_surface.ReadSurface`); each is one request."""

    def __init__(
        self,
        transport: Transport,
        memory: RemoteAgentMemory | None,
        *,
        collection: str = "",
        corpus: bool = True,
        act_as: str | None = None,
    ) -> None:
        self._t = transport
        self.memory: RemoteAgentMemory | None = memory
        self.user_id = None if memory is None else memory.user_id
        self.collection = collection
        self.corpus = corpus
        self._act_as = act_as

    def __repr__(self) -> str:
        return f"RemoteView(user={self.user_id!r}, corpus={self.corpus}, url={self._t.url!r})"

    def _post(self, path: str, body: dict[str, Any], tool_call_id: str | None) -> Any:
        return self._t.post(path, body, tool_call_id=tool_call_id, act_as=self._act_as)

    def _post_as(self, kind: Any, path: str, body: dict[str, Any], tool_call_id: str | None) -> Any:
        return self._t.post_as(kind, path, body, tool_call_id=tool_call_id, act_as=self._act_as)

    def _collection(self, collection: str | None) -> str | None:
        return collection if collection is not None else (self.collection or None)

    def _search(self, options: SearchOptions, tool_call_id: str | None) -> SearchResults:
        return self._post_as(SearchResults, "/v1/search", self._search_body(options), tool_call_id)

    def explain_empty(
        self,
        query: str | SearchOptions,
        mode: str = "hybrid",
        found: SearchResults | None = None,
        *,
        limit: int = 10,
        tool_call_id: str | None = None,
        **options: Any,
    ) -> builtins.list[str]:
        """What the CLI prints when this search finds nothing, within what the credentials
        reach (``POST /v1/search/explain``; ``[]`` if it finds something). Takes what
        :meth:`search` took; the server runs the search again, so ``found`` is not sent."""
        body = self._search_body(SearchOptions.at_entry(query, mode, limit, **options))
        return decode(builtins.list[str], self._post("/v1/search/explain", body, tool_call_id))

    def _search_body(self, options: SearchOptions) -> dict[str, Any]:
        """The JSON body ``/v1/search`` and ``/v1/search/explain`` both take."""
        require_query(options.query)
        body = _body(options, SEARCH_FIELDS, self._collection(options.collection))
        return {**body, "corpus": self.corpus}

    def get(
        self, ids: Sequence[str], *, tool_call_id: str | None = None
    ) -> builtins.list[Fragment]:
        wanted = [i for i in ids if isinstance(i, str)]
        return decode(
            builtins.list[Fragment], self._post("/v1/fragments", {"ids": wanted}, tool_call_id)
        )

    def timeline(
        self, fragment_id: str, before: int = 3, after: int = 3, *, tool_call_id: str | None = None
    ) -> Timeline:
        body = {"fragment_id": fragment_id, "before": before, "after": after}
        return decode(Timeline, self._post("/v1/timeline", body, tool_call_id))

    def explore(
        self, note: str, similar: int = 5, *, tool_call_id: str | None = None
    ) -> Exploration:
        body = {"note": note, "similar": similar}
        return decode(Exploration, self._post("/v1/explore", body, tool_call_id))

    def _context(
        self, options: SearchOptions, budget_chars: int, tool_call_id: str | None
    ) -> ContextPack:
        require_query(options.query)
        body = _body(options, CONTEXT_FIELDS, self._collection(options.collection))
        body.update(budget_chars=budget_chars, corpus=self.corpus)
        return self._post_as(ContextPack, "/v1/context", body, tool_call_id)

    def remember(self, text: str | None = None, **options: Any) -> RememberResult:
        if self.memory is None:
            raise MemexClientError(
                "Remembering needs a user to file the memory under: open the view with the "
                "key's user (client.view(user=...)).",
                code="no_user",
            )
        return self.memory.remember(text, **options)


#: Which options each route's body takes (the server refuses a field it does not know).
#: Search and explain take them all; a context pack has its own size (``budget_chars``,
#: not ``limit``); memory search reads no time phrases and filters by time only.
SEARCH_FIELDS = frozenset(SearchOptions.__dataclass_fields__)
CONTEXT_FIELDS = SEARCH_FIELDS - {"limit"}
MEMORY_SEARCH_FIELDS = frozenset(
    {
        "query",
        "mode",
        "limit",
        "collection",
        "include_private",
        "since",
        "until",
        "as_of",
        "include_superseded",
    }
)


def _body(options: SearchOptions, names: frozenset[str], collection: str | None) -> dict[str, Any]:
    """``options`` as a route's JSON body: the fields in ``names`` that differ from their
    default (the server's defaults are the same), ``collection`` as the handle resolves it,
    filter values as JSON takes them."""
    body = {k: _listed(v) for k, v in options.as_dict().items() if k in names}
    body.pop("collection", None)
    return body | _drop_none(collection=collection)


def _listed(value: Any) -> Any:
    """Filter values as JSON takes them (a tuple becomes a list; a time stays as given)."""
    if isinstance(value, tuple | set | frozenset):
        return builtins.list(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value
