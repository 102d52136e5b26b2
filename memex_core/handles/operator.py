"""The operator's handle: every user's memory, revisions, the access log, and purging."""

from __future__ import annotations

import builtins
import shlex
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memex_core.domain.memory.paths import validate_storage_path, validate_user_id
from memex_core.domain.memory.receipts import PurgeReceipt
from memex_core.domain.memory.records import (
    ACTIVE,
    DELETED,
    OPERATOR,
    RESTORE,
    SHARED_OWNER,
    Actor,
    MemoryRecord,
    Revision,
    Scope,
    user_owner,
)
from memex_core.errors import MemexError
from memex_core.handles.agent import AgentMemory
from memex_core.handles.base import MemoryNotFound
from memex_core.handles.calls import PurgeCall, PurgeRequest
from memex_core.handles.handle import MemoryHandle
from memex_core.handles.purging import erase_purged, home_counts, store_name
from memex_core.handles.writing import closed_note, reopened
from memex_core.services.agent_memory import Prepared

if TYPE_CHECKING:
    from memex_core.facade.protocols import MemoryHome


class OperatorMemory(MemoryHandle, PurgeCall):
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
                # A restored fact holds again: restoring also reopens one closed by mistake.
                reopening = "" if record.is_current else f"; reopened ({closed_note(record)})"
                record = self._service().revise(
                    self.scope,
                    reopened(record),
                    action=RESTORE,
                    prepared=Prepared(earlier.content),
                    status=ACTIVE,
                    kind=earlier.kind,
                    reason=f"restored revision {revision}{reopening}",
                    tool_call_id=tool_call_id,
                    links=self._links_of(replace(record, content=earlier.content)),
                )
        return record

    def _purge(self, asked: PurgeRequest, tool_call_id: str | None) -> PurgeReceipt:
        memory_ids, user_id, confirm = asked.memory_ids, asked.user_id, asked.confirm
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
        blanked = 0
        with self._mx.writing():
            before = home_counts(self._mx)
            with self._mx.memory_indexes().held():
                removed = catalog.purge_memories(self.scope, ids)
                self._mx.memory_indexes().apply([], removed)
                if user_id is not None:
                    blanked = catalog.scrub_access_log(user_id)
            emptied = erase_purged(self._mx)
            after = home_counts(self._mx)
        receipt = PurgeReceipt(
            len(ids),
            user_id,
            ids,
            before,
            after,
            blanked,
            store_name(self._mx.keyword_sync.keyword),
            "" if after.vectors is None else store_name(self._mx.vector_store),
            emptied,
        )
        self._log(
            "purge",
            f"user {user_id}" if user_id else f"{len(ids)} memories",
            user_id=user_id,
            tool_call_id=tool_call_id,
            purged=len(ids),
        )
        return receipt

    def access_log(self, **filters: Any) -> builtins.list[Any]:
        """The access log, newest first (filters: user_id, actor, actor_kind, action,
        outcome, tool_call_id, since, until, limit)."""
        return self._mx.catalog.access_log(**filters)
