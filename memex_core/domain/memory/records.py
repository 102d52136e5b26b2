"""Who is asking (actor and scope) and what memory holds (memories, revisions, log entries)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memex_core.domain.fragment import Fragment
from memex_core.domain.memory.timestamps import iso_utc

AGENT, OPERATOR = "agent", "operator"
#: Owner of memory every user's agents can read (``shared/...`` paths).
SHARED_OWNER = "shared"
USERS_PREFIX = "users/"

ACTIVE, DELETED, INVALIDATED = "active", "deleted", "invalidated"
STATUSES = (ACTIVE, DELETED, INVALIDATED)

#: What a revision did. ``supersede`` closes a fact another replaced (``valid_until``,
#: ``superseded_by``); ``reopen`` makes a closed fact current again.
CREATE, UPDATE, RESTORE, DELETE, UNDELETE, INVALIDATE, SUPERSEDE, REOPEN = (
    "create",
    "update",
    "restore",
    "delete",
    "undelete",
    "invalidate",
    "supersede",
    "reopen",
)

#: Memory kinds that are not fact types.
FILE_KIND, CONVERSATION_KIND = "file", "conversation"

#: Fragment source kind of memory content.
MEMORY_SOURCE = "memory"


def user_owner(user_id: str) -> str:
    """The owner value (and storage prefix) of a user's memory: ``users/<user_id>``."""
    return f"{USERS_PREFIX}{user_id}"


def owner_user_id(owner: str) -> str | None:
    """The user id of an owner value, or None for shared memory and the corpus."""
    return owner[len(USERS_PREFIX) :] if owner.startswith(USERS_PREFIX) else None


@dataclass(frozen=True)
class Actor:
    """Who is acting: an agent bound to one user, or an operator."""

    kind: str  # AGENT | OPERATOR
    name: str
    user_id: str | None = None  # the agent's user; None for operators

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True)
class Scope:
    """The owners an actor may read and write.

    The catalog's memory methods take a scope and put ``owner IN (readable)``
    into every statement, so no id, path or filter can reach past it. ``None``
    means every owner (operators only).
    """

    actor: Actor
    readable: tuple[str, ...] | None
    writable: tuple[str, ...] | None

    def can_read(self, owner: str) -> bool:
        return self.readable is None or owner in self.readable

    def can_write(self, owner: str) -> bool:
        return self.writable is None or owner in self.writable

    @property
    def is_operator(self) -> bool:
        return self.actor.kind == OPERATOR


@dataclass(frozen=True)
class MemoryRecord:
    """A memory as it stands now (its current revision).

    ``valid_from`` is when the fact became true (``None``: when it was recorded,
    ``created_at``), ``valid_until`` when it stopped (``None`` while it holds) and
    ``superseded_by`` the memory that replaced it.
    """

    id: str
    owner: str
    collection: str
    path: str | None  # storage path of a memory file; None for facts and conversations
    kind: str
    status: str
    revision: int
    private: bool
    created_at: float
    updated_at: float
    content: str
    valid_from: float | None = None
    valid_until: float | None = None
    superseded_by: str | None = None

    @property
    def user_id(self) -> str | None:
        return owner_user_id(self.owner)

    @property
    def holds_from(self) -> float:
        """When the fact became true (its record time when nothing else is known)."""
        return self.created_at if self.valid_from is None else self.valid_from

    @property
    def is_current(self) -> bool:
        """Whether the fact still holds (nothing closed it)."""
        return self.valid_until is None

    def valid_at(self, moment: float) -> bool:
        """Whether the fact held at ``moment``: ``valid_from <= moment < valid_until``."""
        return self.holds_from <= moment and (self.valid_until is None or moment < self.valid_until)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": self.owner,
            "user_id": self.user_id,
            "collection": self.collection,
            "path": self.path,
            "kind": self.kind,
            "status": self.status,
            "revision": self.revision,
            "private": self.private,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "content": self.content,
            "valid_from": iso_utc(self.holds_from),
            "valid_until": iso_utc(self.valid_until),
            "superseded_by": self.superseded_by,
            "recorded_at": iso_utc(self.created_at),
        }


@dataclass(frozen=True)
class Revision:
    """One state of a memory. Revisions are never changed; restore writes a new one."""

    memory_id: str
    revision: int
    content: str
    kind: str
    status: str
    action: str
    actor: str
    created_at: float
    reason: str = ""
    tool_call_id: str | None = None
    sources: tuple[str, ...] = ()
    redactions: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "revision": self.revision,
            "content": self.content,
            "kind": self.kind,
            "status": self.status,
            "action": self.action,
            "actor": self.actor,
            "created_at": self.created_at,
            "reason": self.reason,
            "tool_call_id": self.tool_call_id,
            "sources": list(self.sources),
            "redactions": self.redactions,
        }


@dataclass(frozen=True)
class AccessEntry:
    """One line of the access log: who touched whose memory, how, and when."""

    id: int
    at: float
    actor_kind: str
    actor: str
    user_id: str | None
    action: str
    target: str
    tool_call_id: str | None
    outcome: str
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass(frozen=True)
class MemoryWrite:
    """Everything one write changes, committed in one transaction.

    ``record`` is the memory's new state, ``revision`` the revision that
    records it, ``fragments`` its searchable fragments (empty unless active),
    ``links`` the memory-file links as (target as written, storage path or None).
    ``closes`` are the writes that close the facts this one supersedes, committed in the
    same transaction; such a write has ``keep_fragments`` (its text is unchanged and stays
    searchable for reading by time).
    """

    record: MemoryRecord
    revision: Revision
    fingerprint: str
    fragments: Sequence[Fragment] = ()
    links: Sequence[tuple[str, str | None]] = ()
    closes: Sequence[MemoryWrite] = ()
    keep_fragments: bool = False
