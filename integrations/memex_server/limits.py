"""Body size limits, enforced before a handler reads anything.

A request that declares a larger ``Content-Length`` is refused at once; one that
streams more than it declared (or declares nothing) is cut off when it passes the
limit. Uploads (an export to ingest, an archive to import) get their own, larger limit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.exceptions import HTTPException

from memex_server.defaults import DEFAULT_MAX_BODY as DEFAULT_MAX_BODY  # re-exported
from memex_server.defaults import DEFAULT_MAX_UPLOAD as DEFAULT_MAX_UPLOAD
from memex_server.refusal import send_refusal

Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]

UPLOAD_PATHS = ("/v1/admin/ingest", "/v1/admin/import")


class BodyTooLarge(HTTPException):
    """Raised into the app when a streamed body passes the limit (FastAPI re-raises
    HTTP exceptions from body parsing as they are; the error handler answers 413)."""

    def __init__(self, limit: int, option: str) -> None:
        super().__init__(413, too_large_message(limit, option))


def too_large_message(limit: int, option: str) -> str:
    return (
        f"The request body is over this server's limit of {_human(limit)}. Send less "
        f"(remember long conversations in parts), or start the server with a larger {option}."
    )


def _human(size: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:g} {unit}" if unit == "bytes" else f"{size:.0f} {unit}"
        size //= 1024
    return str(size)


class BodyLimit:
    """ASGI middleware: 413 for bodies over ``max_body`` (``max_upload`` on upload routes)."""

    def __init__(self, app: Any, *, max_body: int, max_upload: int) -> None:
        self.app = app
        self.max_body = max_body
        self.max_upload = max_upload

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        upload = scope["path"] in UPLOAD_PATHS
        limit = self.max_upload if upload else self.max_body
        option = "--max-upload" if upload else "--max-body"
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(send, limit, option)
            return
        seen = 0
        started = False

        async def counted() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit, option)
            return dict(message)

        async def tracked(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except BodyTooLarge:
            if not started:
                await self._refuse(send, limit, option)

    async def _refuse(self, send: Send, limit: int, option: str) -> None:
        message = too_large_message(limit, option)
        await send_refusal(send, 413, "body_too_large", message, (b"connection", b"close"))
