"""A memory handle's writes: remember a fact or a conversation, write a file, forget, undelete.

Every write holds the home's write lock and the memory indexes, goes through the memory
service (privacy and redaction first, then a new revision) and is logged.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain import ConsolidationDecision, Consolidator, Extractor, MemoryFact
from memex_core.domain.contracts import ADD, NONE
from memex_core.domain.memory.facts import check_fact_length
from memex_core.domain.memory.memory_links import find_memory_links, resolve_memory_link
from memex_core.domain.memory.namespaces import validate_collection
from memex_core.domain.memory.outcomes import AppliedDecision, RememberResult
from memex_core.domain.memory.paths import owner_of_storage_path
from memex_core.domain.memory.records import (
    ACTIVE,
    CONVERSATION_KIND,
    DELETED,
    FILE_KIND,
    REOPEN,
    SHARED_OWNER,
    UNDELETE,
    UPDATE,
    MemoryRecord,
    owner_user_id,
)
from memex_core.domain.memory.timestamps import Moment, iso_utc, to_epoch
from memex_core.errors import MemexError
from memex_core.handles.base import SHARED_WRITE_ENV, HandleBase
from memex_core.handles.calls import FileWrite
from memex_core.services import supersession
from memex_core.services.agent_memory import MemoryService, Message, Prepared, fingerprint
from memex_core.services.supersession import Plan


class MemoryWrites(HandleBase):
    """Writing memory in the handle's scope."""

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
        at: Moment | None = None,
    ) -> RememberResult:
        """Remember a fact (``text``) or a conversation (``messages``).

        A conversation is stored as one memory (its turns searchable) and the
        extractor turns it into facts. Each fact is then stored, unless a current
        memory in the same collection says exactly the same thing after
        normalisation. Every fact is offered to the supersession judge with the
        user's current facts in the collection closest to it: the ones it updates
        (same subject and attribute) are closed, never deleted, and stay readable by
        time. With ``consolidate`` a fact that supersedes nothing then goes through
        the consolidator (ADD, UPDATE, DELETE or NONE against similar memories): a
        repeat is dropped, a better wording revises the earlier memory.
        ``at`` is when the fact was said (a datetime, an ISO 8601 string or epoch
        seconds; default now; a conversation's facts take their turns' times).
        ``<private>`` spans are never stored; likely secrets are redacted.
        """
        if (text is None) == (messages is None):
            raise MemexError("remember needs either a fact (text) or a conversation (messages)")
        said_at = None if at is None else to_epoch(at, "at")
        if text is not None:
            check_fact_length(text)  # before the lock: a document is refused, not stored
        target = collection if collection is not None else self.collection
        with self._logged("remember", target, tool_call_id) as info:
            collection_name = validate_collection(target)
            owner = self._owner_for_new(user_id)
            info["user_id"] = owner_user_id(owner)
            service = self._service()
            result = RememberResult()
            with self._mx.writing(), self._mx.memory_indexes().held():
                if messages is not None:
                    facts, times = self._remember_conversation(
                        service,
                        messages,
                        owner,
                        collection_name,
                        private,
                        extractor,
                        result,
                        tool_call_id,
                        said_at,
                    )
                else:
                    assert text is not None
                    prepared = service.prepare(text)
                    result.redacted, result.private_removed = (
                        prepared.redacted,
                        prepared.private_removed,
                    )
                    facts = [MemoryFact(prepared.text, kind)] if prepared.text.strip() else []
                    times = {}
                chosen = consolidator or (self._mx.consolidator() if consolidate else None)
                for fact in facts:
                    when = _said_at(fact, times, said_at)
                    result.decisions.append(
                        self._store_fact(
                            service,
                            fact,
                            owner,
                            collection_name,
                            private,
                            chosen,
                            tool_call_id,
                            when,
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
        said_at: float | None,
    ) -> tuple[builtins.list[MemoryFact], dict[str, float]]:
        """Store the conversation; its facts, and each source fragment's time."""
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
                when = message.timestamp if message.timestamp is not None else said_at
                turns.append(Message(message.role, prepared.text, when))
        result.redacted = tuple(found)
        if not turns:
            return [], {}
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
            at=said_at,
        )
        result.conversation_id = conversation.id
        fragments = self._mx.catalog.conversation_fragments(conversation.id)
        chosen = extractor or self._mx.extractor()
        times = {f.id: f.timestamp for f in fragments if f.timestamp is not None}
        return chosen.extract(fragments, self._mx.fact_types()), times

    def _store_fact(
        self,
        service: MemoryService,
        fact: MemoryFact,
        owner: str,
        collection: str,
        private: bool,
        consolidator: Consolidator | None,
        tool_call_id: str | None,
        at: float | None,
    ) -> AppliedDecision:
        prepared = service.prepare(fact.text)
        fact = MemoryFact(prepared.text, fact.kind, fact.source_fragment_ids)
        same = [
            record
            for record in self._mx.catalog.memories(
                self.scope,
                owners=(owner,),
                collections=(collection,),
                fingerprint=fingerprint(fact.text),
            )
            if record.is_current  # a fact that held once and is said again holds again
        ]
        if same:
            decision = ConsolidationDecision(
                "NONE", fact, same[0].id, f"already remembered as {same[0].id}"
            )
            return AppliedDecision(decision, same[0].id, applied=True)
        plan = service.plan(self.scope, owner, collection, fact.text, at)
        earlier = None
        if plan is not None and plan.closes:  # a consolidator is asked only then
            earlier = supersession.reworded(
                consolidator or self._reader(), fact.text, fact.kind, plan
            )
        if earlier is not None:  # the judge named a fact this only rewords: no change
            decision = ConsolidationDecision(
                NONE, fact, earlier.id, f"same fact as {earlier.id} in other words; not a change"
            )
            return AppliedDecision(decision, earlier.id, applied=True)
        in_time = _in_time(plan)
        if consolidator is None:
            decision = ConsolidationDecision(ADD, fact, reason=in_time or "new fact")
        elif plan is not None and plan.closes:
            # The fact changed: a new memory closes the earlier one (a consolidator's
            # UPDATE would rewrite it, and what was true before would be lost).
            decision = ConsolidationDecision(ADD, fact, reason=in_time)
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
                at=at,
                plan=plan,
            )
            return AppliedDecision(decision, record.id, applied=True)
        return service.apply(
            self.scope,
            decision,
            owner=owner,
            collection=collection,
            tool_call_id=tool_call_id,
            at=at,
            plan=plan,
        )

    def _reader(self) -> Consolidator | None:
        """The configured consolidator, to tell a rewording from a change; None when it
        cannot be built (the judge's closing then stands: remembering never fails for it)."""
        try:
            return self._mx.consolidator()
        except MemexError:
            return None

    def _write(self, asked: FileWrite, tool_call_id: str | None) -> MemoryRecord:
        path, collection, reason = asked.path, asked.collection, asked.reason
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
            prepared = service.prepare(asked.content)
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
                        private=asked.private,
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

        def forgotten(record: MemoryRecord) -> MemoryRecord:
            return self._service().soft_delete(
                self.scope, record, reason or "forgotten", tool_call_id
            )

        return self._set_status("forget", ref, tool_call_id, DELETED, forgotten)

    def undelete(self, ref: str, *, tool_call_id: str | None = None) -> MemoryRecord:
        """Bring back a deleted or invalidated memory as it was (a new revision), or
        reopen a fact closed by mistake (current again: a ``reopen`` revision)."""

        def undeleted(record: MemoryRecord) -> MemoryRecord:
            if record.status == ACTIVE:  # closed, not deleted: it holds again
                return self._service().revise(
                    self.scope,
                    reopened(record),
                    action=REOPEN,
                    reason=f"reopened ({closed_note(record)})",
                    tool_call_id=tool_call_id,
                    links=self._links_of(record),
                )
            return self._service().revise(
                self.scope,
                record,
                action=UNDELETE,
                status=ACTIVE,
                reason="undeleted",
                tool_call_id=tool_call_id,
                links=self._links_of(record),
            )

        return self._set_status("undelete", ref, tool_call_id, ACTIVE, undeleted)

    def _set_status(
        self,
        action: str,
        ref: str,
        tool_call_id: str | None,
        status: str,
        change: Callable[[MemoryRecord], MemoryRecord],
    ) -> MemoryRecord:
        """Find ``ref`` and, unless it has ``status`` already, ``change`` it (a new
        revision) under the write lock; the call is logged as ``action``."""
        with self._logged(action, ref, tool_call_id) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
            if record.status != status or (status == ACTIVE and not record.is_current):
                with self._mx.writing(), self._mx.memory_indexes().held():
                    record = change(record)
        return self._public(record)

    def _links_of(self, record: MemoryRecord) -> builtins.list[tuple[str, str | None]]:
        if record.path is None:
            return []
        return [(t, resolve_memory_link(t, record.path)) for t in find_memory_links(record.content)]


def reopened(record: MemoryRecord) -> MemoryRecord:
    """``record`` current again: nothing closes it any more."""
    return replace(record, valid_until=None, superseded_by=None)


def closed_note(record: MemoryRecord) -> str:
    """How a closed fact had ended, for the reason of the revision that reopens it: "had
    been superseded by mem_...", or for a fact told about a closed past period with no
    successor, "had ended 2020-01-01 by its own words"."""
    if record.superseded_by is None and record.valid_until is not None:
        return f"had ended {iso_utc(record.valid_until)[:10]} by its own words"
    return f"had been superseded by {record.superseded_by}"


def _said_at(fact: MemoryFact, times: dict[str, float], said_at: float | None) -> float | None:
    """When a fact was said: its latest source turn's time, else the call's ``at``."""
    found = [times[f] for f in fact.source_fragment_ids if f in times]
    return max(found) if found else said_at


def _in_time(plan: Plan | None) -> str:
    """What writing a fact does to the facts before and after it, for its decision's
    reason ("supersedes mem_..."; "told late: superseded by mem_..."; "held until
    2020-01-01 (by its own words)"), or ""."""
    if plan is None:
        return ""
    said = []
    if plan.closes:
        said.append("supersedes " + ", ".join(old.id for old, _ in plan.closes))
    if plan.closed_by is not None:
        said.append(f"told late: superseded by {plan.closed_by.id}")
    if plan.valid_until is not None:
        said.append(supersession.ended_reason(plan.valid_until))
    return "; ".join(said)
