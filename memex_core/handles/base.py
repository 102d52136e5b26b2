"""What every memory handle stands on: its scope, the access log, and lookups in scope."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain.memory.namespaces import covers, validate_collection
from memex_core.domain.memory.records import Actor, MemoryRecord, Scope
from memex_core.errors import AmbiguousIdError, MemexError, UnknownIdError
from memex_core.handles.calls import MemoryCalls

if TYPE_CHECKING:
    from memex_core.facade.protocols import MemoryHome
    from memex_core.services.agent_memory import MemoryService

SHARED_WRITE_ENV = "MEMEX_SHARED_WRITE_MODE"


class MemoryNotFound(UnknownIdError):
    """No memory with that id or path in the caller's scope."""


def shared_writable() -> bool:
    """Whether agents may write ``shared/...`` (``MEMEX_SHARED_WRITE_MODE=rw``; anything
    else, including unset, means read-only)."""
    return os.environ.get(SHARED_WRITE_ENV, "ro").strip().lower() == "rw"


class HandleBase(MemoryCalls):
    """What every handle method stands on: the scope, the access log, lookups by id or path."""

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

    def _service(self) -> MemoryService:
        return self._mx.memory_service()
