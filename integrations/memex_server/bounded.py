"""The memory handle of an agent key bound to a collection (``memex keys create --collection``).

``mx.agent(user, collection=C)`` takes ``C`` as a default that a call may override; a key
made with ``--collection C`` is a bound: every call stays in ``C`` and the collections
below it, as ``memex mcp --collection`` does. A wider or unrelated collection is refused
(422, logged as invalid); a memory outside the bound is answered exactly like one that
does not exist (404), whatever its id or path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain.memory.namespaces import covers, validate_collection
from memex_core.domain.memory.records import MemoryRecord
from memex_core.errors import MemexError
from memex_core.handles import AgentMemory, MemoryNotFound, RememberResult


class BoundAgentMemory(AgentMemory):
    """``mx.agent(user)`` that never leaves its collection (and those below it)."""

    def _narrow(self, requested: str | None) -> str:
        """The collection a call may use: the bound itself, or one below it."""
        if requested is None or requested == "":
            return self.collection
        name = validate_collection(requested)
        if not covers(self.collection, name):
            raise MemexError(
                f"This key is limited to collection {self.collection!r} and the ones below it "
                f"(like '{self.collection}:notes'); pass one of those, or leave collection out."
            )
        return name

    def _find(self, ref: str) -> MemoryRecord:
        record = super()._find(ref)
        if not covers(self.collection, record.collection):
            raise MemoryNotFound(
                f"No memory {ref!r} here. Find ids with search or list; {self._path_hint}"
            )
        return record

    def _collections(self, prefix: str | None, owners: Sequence[str]) -> tuple[str, ...] | None:
        return super()._collections(self._narrow(prefix), owners)

    def _refused(self, action: str, target: str, tool_call_id: str | None) -> None:
        """Log the refusal of the exception being handled (as the handle logs its own)."""
        with self._logged(action, target, tool_call_id):
            raise

    def remember(
        self,
        text: str | None = None,
        *,
        collection: str | None = None,
        tool_call_id: str | None = None,
        **options: Any,
    ) -> RememberResult:
        try:
            target = self._narrow(collection)
        except MemexError:
            self._refused("remember", str(collection), tool_call_id)
            raise
        return super().remember(text, collection=target, tool_call_id=tool_call_id, **options)

    def write(
        self,
        path: str,
        content: str,
        *,
        collection: str | None = None,
        tool_call_id: str | None = None,
        **options: Any,
    ) -> MemoryRecord:
        try:
            target = self._narrow(collection)
            existing = None
            if isinstance(path, str):
                storage = self._storage_path(path)
                existing = self._mx.catalog.memory_at_path(self.scope, storage)
            if existing is not None and not covers(self.collection, existing.collection):
                raise MemoryAccessDenied(
                    f"{path!r} is outside this key's collection {self.collection!r}: "
                    "write a new path, or ask the operator for a key of that collection."
                )
        except MemexError:
            self._refused("write", str(path), tool_call_id)
            raise
        return super().write(path, content, collection=target, tool_call_id=tool_call_id, **options)
