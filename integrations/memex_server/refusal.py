"""A JSON error sent straight from an ASGI middleware, before the app (and with it the
exception handlers) runs: :mod:`memex_server.hosts` refuses a foreign ``Host`` with it,
:mod:`memex_server.limits` a body over the limit.

Imports no framework, like :mod:`memex_server.hosts`: ``memex mcp`` runs without FastAPI.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any


async def send_refusal(
    send: Callable[[dict[str, Any]], Awaitable[Any]],
    status: int,
    code: str,
    message: str,
    *headers: tuple[bytes, bytes],
) -> None:
    """Answer ``status`` with memex's JSON error body (``code``, ``message``), the extra
    ``headers`` after its content type and length."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    length = (b"content-length", str(len(body)).encode())
    start = [(b"content-type", b"application/json"), length, *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})
