"""The ``Host`` header a request must carry, and the header every response gets.

A page on another site can reach a server on this machine's loopback by DNS rebinding:
the attacker's name resolves first to their own server, then to ``127.0.0.1``, and the
browser treats ``http://evil.example:8765`` as one origin all along. Such requests arrive
with the attacker's name in ``Host``, so :class:`HostGuard` answers 403 ``forbidden_host``
to any ``Host`` that is not one the server knows itself by: a loopback name or address
(``localhost``, ``127.0.0.0/8``, ``::1``) and the names of ``[serve] allowed_hosts``. The
health routes are left open to any name, for load balancers and probes that use an address.

``memex mcp --http`` checks the same way (:mod:`memex_mcp.guard` uses these functions).
Every response also gets ``X-Content-Type-Options: nosniff`` unless it set its own (the
viewer's pages do), JSON errors included, so a browser never reads one as something else.

A plain ASGI middleware that imports no framework: ``memex mcp`` runs without FastAPI.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from memex_server.refusal import send_refusal

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCALHOST = "localhost"
#: Routes any Host may reach: they show nothing of the home (load balancers probe by address).
OPEN_PATHS = frozenset({"/healthz", "/readyz"})
_NOSNIFF = (b"x-content-type-options", b"nosniff")


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (a name or address, IPv6 with or without brackets) is this machine's
    loopback: ``localhost``, ``127.0.0.0/8`` or ``::1``."""
    if not host:
        return False
    host = host.strip().lower().removeprefix("[").removesuffix("]")
    if host == LOCALHOST:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(value: str | None) -> str | None:
    """The name or address of a ``Host`` header (``127.0.0.1:8765``, ``[::1]:8765``,
    ``memex.example.com``), lower-cased, without brackets or port; None if it is not one."""
    if not value:
        return None
    try:
        name = urlsplit("//" + value.strip()).hostname
    except ValueError:
        return None
    return name or None


def host_header_is_loopback(value: str | None) -> bool:
    """Whether a ``Host`` header (``127.0.0.1:8765``, ``[::1]:8765``, ``localhost``) names
    a loopback address."""
    return is_loopback(host_name(value))


def known_hosts(listening_on: str, allowed_hosts: Iterable[str]) -> frozenset[str] | None:
    """The names a server listening on ``listening_on`` answers to, besides loopback ones:
    ``allowed_hosts`` and the address it listens on; None (any name) for a server on every
    interface or another address without ``allowed_hosts``, which cannot know its names."""
    names = {name.strip().lower().removeprefix("[").removesuffix("]") for name in allowed_hosts}
    if not names and not is_loopback(listening_on):
        return None
    address = listening_on.strip().lower().removeprefix("[").removesuffix("]")
    if address not in ("", "0.0.0.0", "::"):
        names.add(address)
    return frozenset(names)


class HostGuard:
    """ASGI middleware: 403 ``forbidden_host`` for a ``Host`` that is neither loopback nor
    in ``allowed`` (None: every Host passes); ``nosniff`` on every response."""

    def __init__(self, app: ASGIApp, *, allowed: Iterable[str] | None = None) -> None:
        self.app = app
        self.allowed = None if allowed is None else frozenset(name.lower() for name in allowed)

    def accepts(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether a request with these headers carries exactly one Host the server knows."""
        if self.allowed is None:
            return True
        hosts = [value.decode("latin-1") for key, value in headers if key.lower() == b"host"]
        if len(hosts) != 1:
            return False
        name = host_name(hosts[0])
        return is_loopback(name) or (name is not None and name in self.allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["path"] not in OPEN_PATHS and not self.accepts(list(scope.get("headers", ()))):
            if scope["type"] == "websocket":  # memex serves none; refuse like any other
                await send({"type": "websocket.close", "code": 1008})
                return
            await _refuse(send)
            return

        async def nosniff(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                if not any(key.lower() == _NOSNIFF[0] for key, _ in headers):
                    message = {**message, "headers": [*headers, _NOSNIFF]}
            await send(message)

        await self.app(scope, receive, nosniff)


async def _refuse(send: Send) -> None:
    # The allowed names are not listed: a rebinding page reads this answer.
    message = (
        "The Host header must name this server: a loopback address (127.0.0.1, localhost, "
        "[::1]) or a name in [serve] allowed_hosts of its config.toml. Behind a proxy that "
        "passes the public name (nginx's 'proxy_set_header Host $host'), add that name "
        "there (DNS rebinding protection)."
    )
    await send_refusal(send, 403, "forbidden_host", message, _NOSNIFF)
