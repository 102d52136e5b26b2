"""The CLI's remote mode: what a ``memex serve`` client looks like to the commands, and
where the CLI gets one.

The client comes from the ``memex.remote`` entry point group (``memex_client`` provides
``client = "memex_client.remote:connect"``), so the core never imports an integration.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any, Protocol

from memex_core.errors import MemexError

#: The entry point group a remote client registers its ``connect(url, token)`` in.
REMOTE_GROUP = "memex.remote"


class RemoteIdentity(Protocol):
    """Whom the credentials name (``memex_client.Identity``)."""

    @property
    def kind(self) -> str: ...  # "agent" or "operator"

    @property
    def name(self) -> str: ...

    @property
    def user_id(self) -> str | None: ...


class RemoteClient(Protocol):
    """What the commands use of a connected client (``memex_client.MemexClient``)."""

    url: str

    def whoami(self) -> RemoteIdentity: ...

    def view(self, *args: Any, **kwargs: Any) -> Any: ...

    def agent(self, *args: Any, **kwargs: Any) -> Any: ...

    def operator(self, *args: Any, **kwargs: Any) -> Any: ...

    def close(self) -> None: ...


def connector() -> Callable[[str, str], RemoteClient]:
    """The registered ``connect(url, token)``; ImportError when none is installed (or its
    package cannot be imported, e.g. httpx is missing)."""
    found = sorted(entry_points(group=REMOTE_GROUP), key=lambda point: point.name)
    if not found:
        raise ImportError(f"no package provides the {REMOTE_GROUP!r} entry point")
    connect: Callable[[str, str], RemoteClient] = found[0].load()
    return connect


def connect(url: str, token: str) -> RemoteClient:
    """A client of the ``memex serve`` at ``url``: ``token`` is an agent key (``mxk_...``)
    or the operator secret. The credentials are checked now, so a wrong URL or a revoked
    key fails here with what to do."""
    try:
        make_client = connector()
    except ImportError as exc:  # memex_client (or httpx) missing
        raise MemexError(
            f"Talking to memex serve at {url} needs the client: pip install 'memex[client]' "
            f"({exc})."
        ) from exc
    return make_client(url, token)


def describe_client(client: RemoteClient) -> str:
    """``memex serve at URL as agent key 'bot' of user 'alice'`` (or ``as the operator``)."""
    identity = client.whoami()
    if identity.kind == "operator":
        return f"memex serve at {client.url} as the operator"
    return (
        f"memex serve at {client.url} as agent key {identity.name!r} of user {identity.user_id!r}"
    )
