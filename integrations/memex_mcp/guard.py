"""The checks in front of ``memex mcp --http``: a local Origin and Host, then the bearer token.

A plain ASGI middleware (no framework import) wrapped around the SDK's app, so
every request meets it before anything else runs:

1. An ``Origin`` header that is not a loopback page gets 403. Browsers send it;
   a web page on another site that reaches 127.0.0.1 (DNS rebinding, or simply
   ``fetch("http://127.0.0.1:8765/mcp")``) is refused before it can try tokens.
2. A ``Host`` header that does not name a loopback address gets 403 (when the
   server listens on loopback): a rebinding attack arrives under the attacker's
   host name.
3. A missing or wrong ``Authorization: Bearer <token>`` gets 401. The token is
   compared in constant time.

Requests without an Origin (command-line and desktop clients) pass step 1.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from memex_mcp.bearer import matches

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCALHOST = "localhost"


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


def origin_is_loopback(origin: str) -> bool:
    """Whether a browser ``Origin`` (``http://127.0.0.1:3000``) is a page on this machine.
    The opaque origin ``null`` (sandboxed frames, files) is not."""
    try:
        parts = urlsplit(origin.strip())
        host = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and is_loopback(host)


def host_header_is_loopback(value: str | None) -> bool:
    """Whether a ``Host`` header (``127.0.0.1:8765``, ``[::1]:8765``, ``localhost``) names
    a loopback address."""
    if not value:
        return False
    try:
        return is_loopback(urlsplit("//" + value.strip()).hostname)
    except ValueError:
        return False


class LoopbackGuard:
    """Refuses foreign pages (403) and requests without the token (401); passes the rest."""

    def __init__(self, app: ASGIApp, token: str, *, check_host: bool = True) -> None:
        self.app = app
        self._token = token
        self.check_host = check_host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # the MCP transport never uses one
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan: let the app start its session manager
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(_headers(scope))
        if refusal is not None:
            await _respond(send, *refusal)
            return
        await self.app(scope, receive, send)

    def refusal(self, headers: list[tuple[str, str]]) -> tuple[int, str, str] | None:
        """(status, error, description) for a request to refuse, or None to let it in."""
        for origin in _values(headers, "origin"):
            if not origin_is_loopback(origin):
                return (
                    403,
                    "forbidden_origin",
                    f"Origin {origin!r} is not a page on this machine; memex mcp only "
                    "answers local clients (DNS rebinding protection).",
                )
        if self.check_host:
            hosts = _values(headers, "host")
            if len(hosts) != 1 or not host_header_is_loopback(hosts[0]):
                return (
                    403,
                    "forbidden_host",
                    "The Host header must name this machine (127.0.0.1, localhost or [::1]); "
                    "connect to http://127.0.0.1:<port>/mcp.",
                )
        presented = [
            value[7:].strip()
            for value in _values(headers, "authorization")
            if value[:7].lower() == "bearer "
        ]
        if len(presented) != 1 or not matches(self._token, presented[0]):
            return (
                401,
                "invalid_token",
                "Send the token as 'Authorization: Bearer <token>'. memex mcp --http printed "
                "where it is stored (by default <memex home>/mcp-token).",
            )
        return None


def _headers(scope: Scope) -> list[tuple[str, str]]:
    return [
        (name.decode("latin-1").lower(), value.decode("latin-1"))
        for name, value in scope.get("headers", [])
    ]


def _values(headers: list[tuple[str, str]], name: str) -> list[str]:
    return [value for key, value in headers if key == name]


async def _respond(send: Send, status: int, error: str, description: str) -> None:
    body = json.dumps({"error": error, "error_description": description}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if status == 401:
        headers.append((b"www-authenticate", f'Bearer realm="memex", error="{error}"'.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
