"""What the integrations need from a memex: a local one or a remote one.

The LangChain and LlamaIndex adapters and the MCP tools take either a local
:class:`~memex_core.api.Memex` or a ``memex_client.MemexClient`` connected to
``memex serve``. Both have ``view(user, name=, collection=, corpus=)`` (what an
agent may read), ``call_lock`` (held around each call) and ``fact_types()``;
:class:`MemexLike` says so for the type checker, and nothing here checks the
concrete class. Both views are a :class:`ViewLike`, whose reads with options
(search, context) one :class:`~memex_core.read_surface.ReadSurface` writes for both.

A client's credentials decide whose memory it reaches: an agent key acts for
its own user only, and the operator secret reads every user's memory.
:func:`acting_user` turns the user an adapter was asked for into the one it may
use, and refuses, with the fix in the message, what the credentials could only
answer wrongly (another user's memory, or every user's at once).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from memex_core.errors import MemexError
from memex_core.read_surface import ReadSurface
from memex_core.threads import HasCallLock

if TYPE_CHECKING:
    from memex_core.domain import Fragment
    from memex_core.domain.disclosure import Timeline
    from memex_core.domain.exploration import Exploration
    from memex_core.domain.memory.outcomes import MemoryHit, RememberResult
    from memex_core.domain.memory.records import MemoryRecord


class MemoryLike(Protocol):
    """One user's memory: ``mx.agent(user)`` or a client's ``RemoteAgentMemory``. The calls
    with many options are read as attributes, as :class:`~memex_core.handles.AgentMemory`
    takes them (``list``, ``search``, ``write``): their keywords are not restated here."""

    @property
    def user_id(self) -> str: ...

    def get(self, ref: str, *, tool_call_id: str | None = None) -> MemoryRecord: ...

    @property
    def list(self) -> Callable[..., builtins.list[MemoryRecord]]: ...

    @property
    def search(self) -> Callable[..., builtins.list[MemoryHit]]: ...

    @property
    def write(self) -> Callable[..., MemoryRecord]: ...

    def forget(
        self, ref: str, *, reason: str = "", tool_call_id: str | None = None
    ) -> MemoryRecord: ...


class ViewLike(ReadSurface):
    """What an agent may read: ``mx.view(user)`` or a client's ``RemoteView``. Its
    ``search``, ``explain_empty``, ``compact_search`` and ``context`` are
    :class:`~memex_core.read_surface.ReadSurface`'s; a view adds these."""

    user_id: str | None
    collection: str
    corpus: bool
    memory: MemoryLike | None

    def get(self, ids: Sequence[str], *, tool_call_id: str | None = None) -> list[Fragment]:
        raise NotImplementedError

    def timeline(
        self, fragment_id: str, before: int = 3, after: int = 3, *, tool_call_id: str | None = None
    ) -> Timeline:
        raise NotImplementedError

    def explore(
        self, note: str, similar: int = 5, *, tool_call_id: str | None = None
    ) -> Exploration:
        raise NotImplementedError

    def remember(self, text: str | None = None, **options: Any) -> RememberResult:
        raise NotImplementedError


V = TypeVar("V", bound=ViewLike)


class ViewOpener(Generic[V]):
    """``view()``, as a local :class:`~memex_core.api.Memex` and a
    ``memex_client.MemexClient`` take it; each opens its own kind of view in ``_view``."""

    def view(
        self,
        user: str | None = None,
        *,
        name: str = "agent",
        collection: str = "",
        corpus: bool = True,
    ) -> V:
        """What an agent may read: the corpus (unless ``corpus=False``) and, with a
        ``user``, that user's and shared memory. Integrations read through this. Through
        ``memex_client``, what the credentials reach: ``collection`` and ``corpus=False``
        narrow a key's reach; nothing widens it."""
        return self._view(user, name, collection, corpus)

    def _view(self, user: str | None, name: str, collection: str, corpus: bool) -> V:
        raise NotImplementedError


class FactTypeLike(Protocol):
    @property
    def name(self) -> str: ...


class MemexLike(HasCallLock, Protocol):
    """A local :class:`~memex_core.api.Memex` or a ``memex_client.MemexClient``."""

    @property
    def view(self) -> Callable[..., ViewLike]:
        """``view(user=None, *, name="agent", collection="", corpus=True)``, as
        :meth:`Memex.view <memex_core.api.Memex.view>` takes it (read as an attribute: its
        keywords are not restated here)."""
        ...

    def fact_types(self) -> Sequence[FactTypeLike]: ...


class CredentialScopeError(MemexError, ValueError):
    """A remote memex's credentials cannot answer for the user asked; the message says how."""


def identity_of(memex: object) -> Any:
    """The client's ``whoami()`` (kind, user_id, collection, corpus), or None for a local
    memex, which has no credentials."""
    whoami = getattr(memex, "whoami", None)
    return whoami() if callable(whoami) else None


def is_remote(memex: object) -> bool:
    """Whether ``memex`` talks to ``memex serve`` (it has credentials) rather than a home."""
    return callable(getattr(memex, "whoami", None))


def acting_user(
    memex: object,
    user: str | None,
    *,
    what: str,
    error: type[MemexError] = CredentialScopeError,
) -> str | None:
    """The user ``what`` (e.g. ``"MemexRetriever"``) reads and writes for over ``memex``.

    A local memex: ``user`` as given (None reads the corpus only). A client with an
    agent key: the key's user; ``None`` becomes it, another user is refused. A client
    with the operator secret: ``user``, which must be given (without one the operator
    reads every user's memory, which no adapter should hand an agent).
    """
    identity = identity_of(memex)
    if identity is None:
        return user
    if getattr(identity, "kind", None) == "agent":
        own: str | None = identity.user_id
        if user is None or user == own:
            return own
        raise error(
            f"{what} reads memex through an agent key of user {own!r}, which cannot reach "
            f"the memory of {user!r}. Give it a client with a key of user {user!r} (memex keys "
            f"create --user {user} --name ...), or leave the user out to read as {own!r}."
        )
    if user is None:
        raise error(
            f"{what} talks to memex serve with the operator secret, which reads every user's "
            "memory: name the user it acts for (user=...), or give it a client with an agent "
            "key (memex keys create --user ... --name ...)."
        )
    return user


__all__ = [
    "CredentialScopeError",
    "FactTypeLike",
    "HasCallLock",
    "MemexLike",
    "MemoryLike",
    "ViewLike",
    "ViewOpener",
    "acting_user",
    "identity_of",
    "is_remote",
]
