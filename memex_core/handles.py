"""The two ways into agent memory: an agent handle bound to one user, and an operator handle.

>>> mx = Memex(home)                                              # doctest: +SKIP
>>> alice = mx.agent("alice", name="support-bot")                 # doctest: +SKIP
>>> alice.remember("Alice prefers tea over coffee", collection="acme:support")  # doctest: +SKIP
>>> alice.write("user/projects.md", "Working on [[user/roadmap.md]]")           # doctest: +SKIP
>>> [hit.text for hit in alice.search("what does alice drink")]   # doctest: +SKIP

An agent sees ``user/...`` (its user's memory) and ``shared/...`` (read-only
unless ``MEMEX_SHARED_WRITE_MODE=rw``) and nothing else: the scope it carries is
checked by the catalog on every statement, and search filters always carry the
owner restriction. An operator reads and writes everything, sees revisions and
the access log, and can purge. Every call through either handle is logged.
"""

from __future__ import annotations

import builtins
import os
import shlex
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memex_core.catalog.memory import MemoryAccessDenied
from memex_core.domain import (
    ConsolidationDecision,
    Consolidator,
    Extractor,
    MemoryFact,
    SearchFilters,
)
from memex_core.domain.contracts import ADD
from memex_core.domain.memory.memory_links import find_memory_links, resolve_memory_link
from memex_core.domain.memory.namespaces import covers, validate_collection
from memex_core.domain.memory.outcomes import MemoryHit, MemoryLinks, RememberResult
from memex_core.domain.memory.paths import (
    owner_of_storage_path,
    to_storage_path,
    to_virtual_path,
    validate_storage_path,
    validate_user_id,
)
from memex_core.domain.memory.records import (
    ACTIVE,
    AGENT,
    CONVERSATION_KIND,
    DELETED,
    FILE_KIND,
    MEMORY_SOURCE,
    OPERATOR,
    RESTORE,
    SHARED_OWNER,
    UNDELETE,
    UPDATE,
    Actor,
    MemoryRecord,
    Revision,
    Scope,
    owner_user_id,
    user_owner,
)
from memex_core.domain.search_options import SearchOptions, TimeBound
from memex_core.domain.time_bounds import parse_time_bound
from memex_core.errors import AmbiguousIdError, MemexError, UnknownIdError, require_query
from memex_core.services.dream import DreamPlan, apply_plan, dream, plan_dream
from memex_core.services.memory import (
    AppliedDecision,
    DreamReport,
    MemoryService,
    Message,
    Prepared,
    fingerprint,
)
from memex_core.services.ports import Progress

if TYPE_CHECKING:
    from memex_core.facade.protocols import MemoryHome

SHARED_WRITE_ENV = "MEMEX_SHARED_WRITE_MODE"


def _bound(value: TimeBound, *, end_of_day: bool = False) -> float | None:
    """A since/until bound as epoch seconds: a number as given (as memory search always
    took them), anything else read as the fragment filters read it."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    return parse_time_bound(value, end_of_day=end_of_day)


class MemoryNotFound(UnknownIdError):
    """No memory with that id or path in the caller's scope."""


def shared_writable() -> bool:
    """Whether agents may write ``shared/...`` (``MEMEX_SHARED_WRITE_MODE=rw``; anything
    else, including unset, means read-only)."""
    return os.environ.get(SHARED_WRITE_ENV, "ro").strip().lower() == "rw"


class MemoryHandle:
    """What both handles share: scope, logging, lookups, search, writes."""

    def __init__(self, memex: MemoryHome, scope: Scope, collection: str = "") -> None:
        self._mx = memex
        self.scope = scope
        self.collection = validate_collection(collection)

    # -- plumbing ------------------------------------------------------------------------

    @property
    def actor(self) -> Actor:
        return self.scope.actor

    def _log(
        self,
        action: str,
        target: str = "",
        *,
        user_id: str | None = None,
        tool_call_id: str | None = None,
        outcome: str = "ok",
        **detail: Any,
    ) -> None:
        self._mx.catalog.log_access(
            actor_kind=self.actor.kind,
            actor=self.actor.name,
            user_id=user_id if user_id is not None else self.actor.user_id,
            action=action,
            # A hostile caller may pass anything as a ref; the log stores it as text.
            target=target if isinstance(target, str) else repr(target),
            tool_call_id=tool_call_id,
            outcome=outcome,
            detail=detail,
        )

    @contextmanager
    def _logged(
        self, action: str, target: str, tool_call_id: str | None, **detail: Any
    ) -> Iterator[dict[str, Any]]:
        """Log the call once, with the outcome its exception (if any) implies."""
        info: dict[str, Any] = {"user_id": None}
        try:
            yield info
        except MemoryNotFound:
            self._log(action, target, tool_call_id=tool_call_id, outcome="not_found", **detail)
            raise
        except MemoryAccessDenied:
            self._log(action, target, tool_call_id=tool_call_id, outcome="denied", **detail)
            raise
        except MemexError as exc:
            self._log(
                action, target, tool_call_id=tool_call_id, outcome="invalid", error=str(exc)[:200]
            )
            raise
        self._log(
            action,
            target,
            user_id=info["user_id"],
            tool_call_id=tool_call_id,
            **{**detail, **info.get("detail", {})},
        )

    _path_hint = "paths start with user/ or shared/."

    def _storage_path(self, path: str) -> str:
        raise NotImplementedError

    def _shown_path(self, path: str | None) -> str | None:
        return path

    def _owner_for_new(self, user_id: str | None) -> str:
        raise NotImplementedError

    def _find(self, ref: str) -> MemoryRecord:
        """A memory by id (``mem_...``) or by path, within scope."""
        catalog = self._mx.catalog
        record = None
        if isinstance(ref, str) and ref.startswith("mem_"):
            record = catalog.memory(self.scope, ref) or self._find_by_prefix(ref)
        else:
            record = catalog.memory_at_path(self.scope, self._storage_path(ref))
        if record is None:
            raise MemoryNotFound(
                f"No memory {ref!r} here. Find ids with search or list; {self._path_hint}"
            )
        return record

    def _find_by_prefix(self, prefix: str) -> MemoryRecord | None:
        """The one memory in scope whose id starts with ``prefix`` (at least four characters
        after ``mem_``, as git takes a commit's); None when there is none."""
        if len(prefix) < len("mem_") + 4:
            return None
        ids = self._mx.catalog.memory_ids_with_prefix(self.scope, prefix, 6)
        if len(ids) > 1:
            shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
            raise AmbiguousIdError(
                f"Memory id prefix {prefix!r} is ambiguous: it starts {shown}. "
                "Give more characters."
            )
        return self._mx.catalog.memory(self.scope, ids[0]) if ids else None

    def _collections(self, prefix: str | None, owners: Sequence[str]) -> tuple[str, ...] | None:
        """Exact collection names a prefix covers (None: any collection)."""
        prefix = self.collection if prefix is None else validate_collection(prefix)
        if not prefix:
            return None
        known = self._mx.catalog.memory_collections(self.scope, owners)
        return tuple(name for name in known if covers(prefix, name))

    def _readable_owners(self, user_id: str | None = None) -> tuple[str, ...]:
        raise NotImplementedError

    def _public(self, record: MemoryRecord) -> MemoryRecord:
        """The record as the caller sees it (agents see virtual paths)."""
        return record

    # -- reading --------------------------------------------------------------------------

    def get(self, ref: str, *, tool_call_id: str | None = None) -> MemoryRecord:
        """A memory by id or path (its current revision). Deleted ones too, marked so."""
        with self._logged("read", ref, tool_call_id) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
        return self._public(record)

    read = get

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
        with self._logged("list", collection or self.collection, tool_call_id) as info:
            info["user_id"] = user_id if self.scope.is_operator else None
            owners = self._readable_owners(user_id)
            if not owners:  # another user's memory: nothing (memories() reads () as "any")
                return []
            collections = self._collections(collection, owners)
            records = self._mx.catalog.memories(
                self.scope,
                owners=owners,
                collections=collections,
                statuses=(ACTIVE, DELETED, "invalidated") if include_deleted else (ACTIVE,),
                kinds=(kind,) if kind else (),
                limit=limit,
                offset=offset,
            )
        return [self._public(r) for r in records]

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
    ) -> builtins.list[MemoryHit]:
        """Search memory in scope: a collection prefix covers every collection below it.
        ``query`` may be a whole :class:`~memex_core.domain.search_options.SearchOptions`
        (and then no other option is given). Time phrases in the query are never read as
        a filter here: a memory's words are what it is about."""
        options = SearchOptions.at_entry(
            query,
            mode,
            limit,
            collection=collection,
            include_private=include_private,
            since=since,
            until=until,
        ).with_changes(time_phrases=False)
        query, mode = options.query, options.mode
        require_query(query)
        with self._logged("search", query, tool_call_id, mode=mode) as info:
            owners = self._readable_owners(user_id)
            collections = self._collections(options.collection, owners)
            if not owners or collections == ():
                info["detail"] = {"hits": 0}
                return []
            filters = SearchFilters(
                source_kinds=(MEMORY_SOURCE,),
                owners=owners,
                collections=collections or (),
                include_private=options.include_private,
                since=_bound(options.since),
                until=_bound(options.until, end_of_day=True),
            )
            found = self._mx.search_with(options, filters=filters)
            hits = []
            for result in found:
                fragment = result.fragment
                # Defence in depth: the stores filtered already; never trust them alone.
                if fragment.owner not in owners or not self.scope.can_read(fragment.owner):
                    continue
                record = self._mx.catalog.memory(self.scope, fragment.conversation_id)
                if record is None:
                    continue
                hits.append(
                    MemoryHit(
                        memory_id=record.id,
                        path=self._shown_path(record.path),
                        collection=record.collection,
                        kind=record.kind,
                        text=fragment.content,
                        score=result.score,
                        fragment_id=fragment.id,
                        ranks={k: v for k, v in result.ranks.items() if v is not None},
                        private=record.private,
                    )
                )
            info["detail"] = {"hits": len(hits)}
        return hits

    def links(self, ref: str, *, tool_call_id: str | None = None) -> MemoryLinks:
        """A memory file's ``[[...]]`` links and the memory files linking to it."""
        with self._logged("links", ref, tool_call_id) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
            catalog = self._mx.catalog
            out = [
                {
                    "target": link.target,
                    "path": self._shown_path(link.target_path) if link.target_memory else None,
                    "memory_id": link.target_memory,
                }
                for link in catalog.memory_outlinks(self.scope, record.id)
            ]
            back = [
                {"path": self._shown_path(link.source_path), "memory_id": link.source_memory}
                for link in catalog.memory_backlinks(self.scope, record.id)
            ]
        return MemoryLinks(self._shown_path(record.path) or record.id, out, back)

    def collections(self, *, user_id: str | None = None) -> builtins.list[str]:
        """Names of the collections that hold memory in scope (any status), sorted; the
        handle's collection (a key's bound) narrows them."""
        owners = self._readable_owners(user_id)
        if not owners:
            return []
        names = self._collections(None, owners)
        if names is None:
            return self._mx.catalog.memory_collections(self.scope, owners)
        return sorted(names)

    # -- writing --------------------------------------------------------------------------

    def _service(self) -> MemoryService:
        return self._mx.memory_service()

    def remember(
        self,
        text: str | None = None,
        *,
        messages: Sequence[Message | dict[str, Any]] | None = None,
        collection: str | None = None,
        kind: str = "misc",
        private: bool = False,
        consolidate: bool = False,
        extractor: Extractor | None = None,
        consolidator: Consolidator | None = None,
        user_id: str | None = None,
        tool_call_id: str | None = None,
    ) -> RememberResult:
        """Remember a fact (``text``) or a conversation (``messages``).

        A conversation is stored as one memory (its turns searchable) and the
        extractor turns it into facts. Each fact is then stored, unless an active
        memory in the same collection says exactly the same thing after
        normalisation. With ``consolidate`` each fact goes through the
        consolidator (ADD, UPDATE, DELETE or NONE against similar memories).
        ``<private>`` spans are never stored; likely secrets are redacted.
        """
        if (text is None) == (messages is None):
            raise MemexError("remember needs either a fact (text) or a conversation (messages)")
        target = collection if collection is not None else self.collection
        with self._logged("remember", target, tool_call_id) as info:
            collection_name = validate_collection(target)
            owner = self._owner_for_new(user_id)
            info["user_id"] = owner_user_id(owner)
            service = self._service()
            result = RememberResult()
            with self._mx.writing(), self._mx.memory_indexes().held():
                if messages is not None:
                    facts = self._remember_conversation(
                        service,
                        messages,
                        owner,
                        collection_name,
                        private,
                        extractor,
                        result,
                        tool_call_id,
                    )
                else:
                    assert text is not None
                    prepared = service.prepare(text)
                    result.redacted, result.private_removed = (
                        prepared.redacted,
                        prepared.private_removed,
                    )
                    facts = [MemoryFact(prepared.text, kind)] if prepared.text.strip() else []
                chosen = consolidator or (self._mx.consolidator() if consolidate else None)
                for fact in facts:
                    result.decisions.append(
                        self._store_fact(
                            service, fact, owner, collection_name, private, chosen, tool_call_id
                        )
                    )
            info["detail"] = {
                "actions": [d.decision.action for d in result.decisions],
                "memory_ids": result.memory_ids,
            }
        return result

    def _remember_conversation(
        self,
        service: MemoryService,
        messages: Sequence[Message | dict[str, Any]],
        owner: str,
        collection: str,
        private: bool,
        extractor: Extractor | None,
        result: RememberResult,
        tool_call_id: str | None,
    ) -> builtins.list[MemoryFact]:
        turns: builtins.list[Message] = []
        found: builtins.list[str] = []
        for raw in messages:
            message = (
                raw
                if isinstance(raw, Message)
                else Message(str(raw["role"]), str(raw["content"]), raw.get("timestamp"))
            )
            prepared = service.prepare(message.content)
            found.extend(prepared.redacted)
            result.private_removed += prepared.private_removed
            if prepared.text.strip():
                turns.append(Message(message.role, prepared.text, message.timestamp))
        result.redacted = tuple(found)
        if not turns:
            return []
        transcript = "\n\n".join(f"{t.role}: {t.content}" for t in turns)
        conversation = service.create(
            self.scope,
            owner=owner,
            collection=collection,
            kind=CONVERSATION_KIND,
            prepared=Prepared(transcript, result.private_removed, result.redacted),
            private=private,
            reason="remembered conversation",
            tool_call_id=tool_call_id,
            messages=turns,
        )
        result.conversation_id = conversation.id
        fragments = self._mx.catalog.conversation_fragments(conversation.id)
        chosen = extractor or self._mx.extractor()
        return chosen.extract(fragments, self._mx.fact_types())

    def _store_fact(
        self,
        service: MemoryService,
        fact: MemoryFact,
        owner: str,
        collection: str,
        private: bool,
        consolidator: Consolidator | None,
        tool_call_id: str | None,
    ) -> AppliedDecision:
        prepared = service.prepare(fact.text)
        fact = MemoryFact(prepared.text, fact.kind, fact.source_fragment_ids)
        same = self._mx.catalog.memories(
            self.scope,
            owners=(owner,),
            collections=(collection,),
            fingerprint=fingerprint(fact.text),
            limit=1,
        )
        if same:
            decision = ConsolidationDecision(
                "NONE", fact, same[0].id, f"already remembered as {same[0].id}"
            )
            return AppliedDecision(decision, same[0].id, applied=True)
        if consolidator is None:
            decision = ConsolidationDecision(ADD, fact, reason="new fact")
        else:
            similar = service.similar(
                self.scope, owner=owner, collection=collection, text=fact.text
            )
            decision = consolidator.decide(fact, similar)
        if decision.action == ADD and private:
            record = service.create(
                self.scope,
                owner=owner,
                collection=collection,
                kind=fact.kind,
                prepared=prepared,
                private=True,
                sources=fact.source_fragment_ids,
                reason=decision.reason,
                tool_call_id=tool_call_id,
            )
            return AppliedDecision(decision, record.id, applied=True)
        return service.apply(
            self.scope, decision, owner=owner, collection=collection, tool_call_id=tool_call_id
        )

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
        with self._logged("write", path, tool_call_id) as info:
            storage = self._storage_path(path)
            owner = owner_of_storage_path(storage)
            info["user_id"] = owner_user_id(owner)
            if not self.scope.can_write(owner):
                raise MemoryAccessDenied(
                    f"{path!r} is read-only for {self.actor.label}"
                    + (
                        f" (shared memory is read-only for agents unless {SHARED_WRITE_ENV}=rw)"
                        if owner == SHARED_OWNER
                        else ""
                    )
                )
            service = self._service()
            prepared = service.prepare(content)
            links = [(t, resolve_memory_link(t, storage)) for t in find_memory_links(prepared.text)]
            with self._mx.writing(), self._mx.memory_indexes().held():
                existing = self._mx.catalog.memory_at_path(self.scope, storage)
                target = collection if collection is not None else self.collection
                if existing is None:
                    record = service.create(
                        self.scope,
                        owner=owner,
                        collection=validate_collection(target),
                        kind=FILE_KIND,
                        prepared=prepared,
                        path=storage,
                        private=private,
                        reason=reason or "written",
                        tool_call_id=tool_call_id,
                        links=links,
                    )
                else:
                    record = service.revise(
                        self.scope,
                        existing,
                        action=UPDATE if existing.status == ACTIVE else UNDELETE,
                        prepared=prepared,
                        status=ACTIVE,
                        reason=reason or "rewritten",
                        tool_call_id=tool_call_id,
                        links=links,
                    )
            info["detail"] = {"memory_id": record.id, "redacted": list(prepared.redacted)}
        return self._public(record)

    def forget(
        self, ref: str, *, reason: str = "", tool_call_id: str | None = None
    ) -> MemoryRecord:
        """Soft-delete a memory: it leaves search, its revisions stay; ``undelete`` brings
        it back."""
        with self._logged("forget", ref, tool_call_id) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
            if record.status == DELETED:
                return self._public(record)
            with self._mx.writing(), self._mx.memory_indexes().held():
                record = self._service().soft_delete(
                    self.scope, record, reason or "forgotten", tool_call_id
                )
        return self._public(record)

    def undelete(self, ref: str, *, tool_call_id: str | None = None) -> MemoryRecord:
        """Bring back a deleted or invalidated memory as it was (a new revision)."""
        with self._logged("undelete", ref, tool_call_id) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
            if record.status == ACTIVE:
                return self._public(record)
            with self._mx.writing(), self._mx.memory_indexes().held():
                record = self._service().revise(
                    self.scope,
                    record,
                    action=UNDELETE,
                    status=ACTIVE,
                    reason="undeleted",
                    tool_call_id=tool_call_id,
                    links=self._links_of(record),
                )
        return self._public(record)

    def _links_of(self, record: MemoryRecord) -> builtins.list[tuple[str, str | None]]:
        if record.path is None:
            return []
        return [(t, resolve_memory_link(t, record.path)) for t in find_memory_links(record.content)]

    def dream(
        self,
        collection: str | None = None,
        *,
        dry_run: bool = False,
        consolidator: Consolidator | None = None,
        user_id: str | None = None,
        progress: Progress | None = None,
        tool_call_id: str | None = None,
    ) -> DreamReport:
        """Consolidate the facts of a collection (and those below it); see
        :mod:`memex_core.services.dream`. ``dry_run`` decides without writing."""
        with self._logged(
            "dream", collection or self.collection, tool_call_id, dry_run=dry_run
        ) as info:
            info["user_id"] = user_id if self.scope.is_operator else None
            groups = self._dream_groups(collection, user_id)
            chosen = consolidator or self._mx.consolidator()
            with self._mx.writing("dream"), self._mx.memory_indexes().held():
                report = dream(
                    self._service(),
                    self.scope,
                    groups,
                    chosen,
                    dry_run=dry_run,
                    progress=progress,
                )
        return report

    def dream_plan(
        self,
        collection: str | None = None,
        *,
        consolidator: Consolidator | None = None,
        user_id: str | None = None,
        progress: Progress | None = None,
        tool_call_id: str | None = None,
    ) -> DreamPlan:
        """What :meth:`dream` would do, written nowhere, with the state of the facts it
        was made on: review ``plan.report``, then :meth:`apply_dream` carries out exactly
        those decisions."""
        with self._logged(
            "dream", collection or self.collection, tool_call_id, dry_run=True
        ) as info:
            info["user_id"] = user_id if self.scope.is_operator else None
            groups = self._dream_groups(collection, user_id)
            chosen = consolidator or self._mx.consolidator()
            plan = plan_dream(
                self._service(),
                self.scope,
                groups,
                chosen,
                progress=progress,
                collection=collection,
                user_id=user_id,
            )
            info["detail"] = {"plan": plan.digest, "decisions": len(plan.report.decisions)}
        return plan

    def apply_dream(self, plan: DreamPlan, *, tool_call_id: str | None = None) -> DreamReport:
        """Apply a plan from :meth:`dream_plan` as it was reviewed (the consolidator is not
        asked again). Raises :class:`DreamPlanStale`, writing nothing, when the facts it
        was made on changed since."""
        with self._logged("dream", "plan " + plan.digest, tool_call_id, plan=plan.digest):
            # Only groups this handle could have planned itself (a bound key's collection
            # included); the catalog checks the scope of every write again.
            if not set(plan.groups) <= set(self._dream_groups(None, None)):
                raise MemoryAccessDenied(
                    f"this dream plan covers memory {self.actor.label} cannot write"
                )
            with self._mx.writing("dream"), self._mx.memory_indexes().held():
                report = apply_plan(self._service(), self.scope, plan)
        return report

    def _dream_groups(
        self, collection: str | None, user_id: str | None
    ) -> builtins.list[tuple[str, str]]:
        """The (owner, collection) pairs a dream of ``collection`` covers: writable owners
        only, every collection under the prefix."""
        owners = tuple(o for o in self._readable_owners(user_id) if self.scope.can_write(o))
        collections = self._collections(collection, owners)
        names = (
            collections
            if collections is not None
            else tuple(self._mx.catalog.memory_collections(self.scope, owners))
        )
        return [(o, c) for o in owners for c in names]


class AgentMemory(MemoryHandle):
    """An agent's view: one user's memory (``user/...``) plus shared memory (``shared/...``)."""

    def __init__(
        self, memex: MemoryHome, user_id: str, *, name: str = "agent", collection: str = ""
    ):
        user_id = validate_user_id(user_id)
        own = user_owner(user_id)
        writable = (own, SHARED_OWNER) if shared_writable() else (own,)
        super().__init__(
            memex,
            Scope(Actor(AGENT, name, user_id), readable=(own, SHARED_OWNER), writable=writable),
            collection,
        )
        self.user_id = user_id

    def _storage_path(self, path: str) -> str:
        return to_storage_path(path, self.user_id)

    def _shown_path(self, path: str | None) -> str | None:
        return None if path is None else to_virtual_path(path, self.user_id)

    def _public(self, record: MemoryRecord) -> MemoryRecord:
        return replace(record, path=self._shown_path(record.path))

    def _owner_for_new(self, user_id: str | None) -> str:
        if user_id is not None and user_id != self.user_id:
            raise MemoryAccessDenied(
                f"this agent is bound to user {self.user_id!r} and cannot write for {user_id!r}"
            )
        return user_owner(self.user_id)

    def _readable_owners(self, user_id: str | None = None) -> tuple[str, ...]:
        if user_id is not None and user_id != self.user_id:
            return ()  # another user's memory: nothing, and no hint it exists
        return (user_owner(self.user_id), SHARED_OWNER)


class OperatorMemory(MemoryHandle):
    """Reads and writes anything, sees revisions and the access log, and can purge."""

    _path_hint = "storage paths look like users/<user_id>/notes.md or shared/handbook.md."

    def __init__(self, memex: MemoryHome, *, name: str = "operator", collection: str = ""):
        super().__init__(memex, Scope(Actor(OPERATOR, name), None, None), collection)

    def _storage_path(self, path: str) -> str:
        return validate_storage_path(path)

    def _owner_for_new(self, user_id: str | None) -> str:
        if user_id is None:
            raise MemexError("say whose memory this is: user_id='...' (or write a shared/ file)")
        return user_owner(validate_user_id(user_id))

    def _readable_owners(self, user_id: str | None = None) -> tuple[str, ...]:
        if user_id is None:
            return tuple(self._mx.catalog.memory_owners()) or (SHARED_OWNER,)
        return (user_owner(validate_user_id(user_id)),)

    def agent(self, user_id: str, *, name: str = "agent", collection: str = "") -> AgentMemory:
        return AgentMemory(self._mx, user_id, name=name, collection=collection)

    def history(self, ref: str, *, tool_call_id: str | None = None) -> builtins.list[Revision]:
        """Every revision of a memory, oldest first."""
        with self._logged("history", ref, tool_call_id) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
            revisions = self._mx.catalog.revisions(self.scope, record.id)
        return revisions

    def restore(self, ref: str, revision: int, *, tool_call_id: str | None = None) -> MemoryRecord:
        """Make an earlier revision current again (as a new revision, active)."""
        with self._logged("restore", ref, tool_call_id, revision=revision) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
            earlier = next(
                (
                    r
                    for r in self._mx.catalog.revisions(self.scope, record.id)
                    if r.revision == revision
                ),
                None,
            )
            if earlier is None:
                raise MemoryNotFound(
                    f"Memory {record.id} has no revision {revision}; it has 1..{record.revision} "
                    f"(see `memex history {record.id}`)."
                )
            with self._mx.writing(), self._mx.memory_indexes().held():
                record = self._service().revise(
                    self.scope,
                    record,
                    action=RESTORE,
                    prepared=Prepared(earlier.content),
                    status=ACTIVE,
                    kind=earlier.kind,
                    reason=f"restored revision {revision}",
                    tool_call_id=tool_call_id,
                    links=self._links_of(replace(record, content=earlier.content)),
                )
        return record

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
        if bool(memory_ids) == (user_id is not None):
            raise MemexError("purge needs either memory_ids or user_id, not both")
        expected = (
            user_id
            if user_id is not None
            else (memory_ids[0] if len(memory_ids) == 1 else f"{len(memory_ids)} memories")
        )
        if confirm != expected:
            raise MemexError(
                f"Purging cannot be undone. To confirm, pass confirm={expected!r} "
                f"(on the command line: --confirm {shlex.quote(expected)})."
            )
        catalog = self._mx.catalog
        if user_id is not None:
            owner = user_owner(validate_user_id(user_id))
            ids = [
                m.id
                for m in catalog.memories(
                    self.scope, owners=(owner,), statuses=(ACTIVE, DELETED, "invalidated")
                )
            ]
        else:
            ids = [self._find(i).id for i in memory_ids]
        with self._mx.writing(), self._mx.memory_indexes().held():
            removed = catalog.purge_memories(self.scope, ids)
            self._mx.memory_indexes().apply([], removed)
            if user_id is not None:
                catalog.scrub_access_log(user_id)
        self._log(
            "purge",
            f"user {user_id}" if user_id else f"{len(ids)} memories",
            user_id=user_id,
            tool_call_id=tool_call_id,
            purged=len(ids),
        )
        return len(ids)

    def access_log(self, **filters: Any) -> builtins.list[Any]:
        """The access log, newest first (filters: user_id, actor, actor_kind, action,
        outcome, tool_call_id, since, until, limit)."""
        return self._mx.catalog.access_log(**filters)
