"""The checks in front of ``memex mcp --http``: a local Origin and Host, then the bearer token.

A plain ASGI middleware (no framework import) wrapped around the SDK's app, so
every request meets it before anything else runs:

1. An ``Origin`` header that is not a loopback page gets 403. Browsers send it;
   a web page on another site that reaches 127.0.0.1 (DNS rebinding, or simply
   ``fetch("http://127.0.0.1:8765/mcp")``) is refused before it can try tokens.
2. A ``Host`` header that does not name a loopback address gets 403 (when the
   server listens on loopback): a rebinding attack arrives under the attacker's
   host name.
3. An address that presented wrong tokens too often gets 429 ``too_many_failures``
   with ``Retry-After``, its token unchecked: the same limit, counted the same way, as
   ``memex serve``'s (:mod:`memex_server.throttle`, ``[serve] auth_*`` settings). A
   request without a token is not a guess and does not count.
4. A missing or wrong ``Authorization: Bearer <token>`` gets 401. The token is
   compared in constant time.

Requests without an Origin (command-line and desktop clients) pass step 1.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from memex_mcp.bearer import matches
from memex_server.hosts import host_header_is_loopback, is_loopback
from memex_server.throttle import FailedAuth

# One check of the Host for both servers (memex_server.hosts); re-exported here.
__all__ = [
    "LoopbackGuard",
    "Refusal",
    "host_header_is_loopback",
    "is_loopback",
    "origin_is_loopback",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Refusal(NamedTuple):
    """The answer to a refused request: status, error code, what to do, seconds to wait."""

    status: int
    error: str
    description: str
    retry_after: int | None = None


def origin_is_loopback(origin: str) -> bool:
    """Whether a browser ``Origin`` (``http://127.0.0.1:3000``) is a page on this machine.
    The opaque origin ``null`` (sandboxed frames, files) is not."""
    try:
        parts = urlsplit(origin.strip())
        host = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and is_loopback(host)


class LoopbackGuard:
    """Refuses foreign pages (403) and requests without the token (401); passes the rest."""

    def __init__(
        self,
        app: ASGIApp,
        token: str,
        *,
        check_host: bool = True,
        failures: FailedAuth | None = None,
    ) -> None:
        self.app = app
        self._token = token
        self.check_host = check_host
        self.failures = failures if failures is not None else FailedAuth()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # the MCP transport never uses one
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan: let the app start its session manager
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        refusal = self.refusal(_headers(scope), client[0] if client else None)
        if refusal is not None:
            await _respond(send, refusal)
            return
        await self.app(scope, receive, send)

    def refusal(self, headers: list[tuple[str, str]], address: str | None = None) -> Refusal | None:
        """Why a request from ``address`` is refused, or None to let it in."""
        for origin in _values(headers, "origin"):
            if not origin_is_loopback(origin):
                return Refusal(
                    403,
                    "forbidden_origin",
                    f"Origin {origin!r} is not a page on this machine; memex mcp only "
                    "answers local clients (DNS rebinding protection).",
                )
        if self.check_host:
            hosts = _values(headers, "host")
            if len(hosts) != 1 or not host_header_is_loopback(hosts[0]):
                return Refusal(
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
        if presented and (wait := self.failures.wait(address)):
            return Refusal(
                429,
                "too_many_failures",
                f"Too many wrong tokens from this address. Wait {wait} s, then send the "
                "token memex mcp --http printed (by default <memex home>/mcp-token).",
                wait,
            )
        if len(presented) != 1 or not matches(self._token, presented[0]):
            if presented:
                self.failures.failed(address)
            return Refusal(
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


async def _respond(send: Send, refusal: Refusal) -> None:
    status, error, description, retry_after = refusal
    body = json.dumps({"error": error, "error_description": description}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if status == 401:
        headers.append((b"www-authenticate", f'Bearer realm="memex", error="{error}"'.encode()))
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
