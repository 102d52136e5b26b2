"""The agent's handle: one user's memory (``user/...``) and shared memory (``shared/...``)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain.memory.paths import to_storage_path, to_virtual_path, validate_user_id
from memex_core.domain.memory.records import (
    AGENT,
    SHARED_OWNER,
    Actor,
    MemoryRecord,
    Scope,
    user_owner,
)
from memex_core.handles.base import shared_writable
from memex_core.handles.handle import MemoryHandle

if TYPE_CHECKING:
    from memex_core.facade.protocols import MemoryHome


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
