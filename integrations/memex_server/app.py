"""The ASGI app of ``memex serve``: :func:`build_app` over one :class:`~memex_core.api.Memex`.

>>> app = build_app(Memex(home), admin_secret="...")   # doctest: +SKIP
>>> uvicorn.run(app, host="127.0.0.1", port=8765)      # doctest: +SKIP

Routes (all under ``/v1`` need credentials; see :mod:`memex_server.auth`):

* ``/healthz``, ``/readyz``, ``/openapi.json``: open.
* ``/v1/search``, ``/v1/fragments``, ``/v1/timeline``, ``/v1/explore``, ``/v1/context``:
  an agent key reads its user's scope, the operator the whole home.
* ``/v1/memory/...``: ``mx.agent(user)`` for the key's user.
* ``/v1/admin/...``: ``mx.operator()``, keys, ingest, the access log.
* ``/``, ``/signin``, ``/static/...`` and the other pages: the web viewer
  (:mod:`memex_viewer`), signed in with the same credentials into a session cookie.

Handlers are synchronous: memex is (SQLite, BM25, an embedder), so they run in
the server's thread pool, one call into memex at a time (``Memex.call_lock``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI

from memex_server.errors import CODES, install_error_handlers
from memex_server.hosts import HostGuard
from memex_server.limits import DEFAULT_MAX_BODY, DEFAULT_MAX_UPLOAD, BodyLimit
from memex_server.routes import admin, archives, health, memory, reading
from memex_server.state import ServerState
from memex_server.throttle import AuthLimits, FailedAuth

if TYPE_CHECKING:
    from memex_core.api import Memex

API_VERSION = "1"
DESCRIPTION = """memex as a shared service: search and read what a team's agents and people
produced, and give agents a memory of their own, one user at a time.

Send `Authorization: Bearer <credential>` on every `/v1` route: an **agent key**
(`mxk_...`, made with `memex keys create --user alice --name support-bot`) acts for its
user exactly as `mx.agent(user)` does; the **operator secret** (`MEMEX_ADMIN_SECRET`, or
`<home>/admin-secret`) reaches everything. Put a tool call's id in `Memex-Tool-Call-Id` to
find it in the access log.

Errors are JSON, `{"error": {"code": ..., "message": ...}}`, with a stable code: 401
`missing_credentials`/`invalid_credentials`, 403 `operator_only`/`agent_only`/`forbidden`/
`forbidden_host` (the Host header names neither this machine's loopback nor a name in
`[serve] allowed_hosts`), 404 `not_found` (another user's id too), 409
`ambiguous_id`/`plan_changed`, 413 `body_too_large`,
422 `invalid_request`/`empty_query`, 429 `too_many_failures` (this address sent too many wrong
credentials lately: wait for `Retry-After`), 503 `write_locked`/`vectors_unavailable`/
`catalog_unavailable` (the catalog's database server is down or unreachable: nothing was
half-written, retry)/`replica_behind` (this replica's keyword index lags the shared catalog by
more than `[serve] max_lag_s`: retry or ask another replica), 500 `internal_error`.
"""


#: FastAPI's own OpenTelemetry instrumentation, all off: memex sends nothing off the
#: machine, and with ``FASTAPI_OTEL_AUTO_CONFIGURE=true`` in its environment FastAPI would
#: add OTLP exporters by itself. Off, it also skips a span per request.
NO_TELEMETRY: Any = {
    "tracing": False,
    "metrics": False,
    "logs": False,
    "operation_spans": False,
    "auto_configure": False,
}


def _without_telemetry() -> dict[str, Any]:
    """``telemetry=NO_TELEMETRY`` where this FastAPI has the option (0.165 and later); older
    ones have no instrumentation to turn off."""
    import inspect

    from fastapi import FastAPI

    if "telemetry" in inspect.signature(FastAPI.__init__).parameters:
        return {"telemetry": NO_TELEMETRY}
    return {}


def build_app(
    memex: Memex,
    *,
    admin_secret: str,
    max_body: int = DEFAULT_MAX_BODY,
    max_upload: int = DEFAULT_MAX_UPLOAD,
    viewer: bool = True,
    auth_limits: AuthLimits | None = None,
    allowed_hosts: Iterable[str] | None = None,
) -> FastAPI:
    """The API over ``memex``, accepting its agent keys and ``admin_secret``, and (unless
    ``viewer=False``) the web viewer's pages at ``/`` (:mod:`memex_viewer`). Wrong
    credentials are limited per client address as ``auth_limits`` says (default: the
    home's ``[serve] auth_*`` settings; see :mod:`memex_server.throttle`). With
    ``allowed_hosts`` (``memex serve`` passes :func:`memex_server.hosts.known_hosts`), a
    request whose Host is neither loopback nor one of them gets 403 ``forbidden_host``;
    every response carries ``X-Content-Type-Options: nosniff``."""
    from memex_core import __version__

    app = FastAPI(
        title="memex",
        version=__version__,
        summary="Hybrid search and agent memory over HTTP.",
        description=DESCRIPTION,
        # The interactive pages load scripts from a CDN; memex serves nothing from outside.
        docs_url=None,
        redoc_url=None,
        **_without_telemetry(),
    )
    app.state.memex = ServerState(memex, admin_secret)
    if auth_limits is None:
        auth_limits = AuthLimits.from_table(memex.config.table("serve"), memex.config.config_path)
    app.state.failed_auth = FailedAuth(auth_limits)
    install_error_handlers(app)
    for router in (
        health.router,
        reading.router,
        memory.agent_router,
        memory.operator_router,
        admin.router,
        archives.router,
    ):
        app.include_router(router)
    if viewer:
        from memex_viewer import mount

        mount(app)
    app.add_middleware(BodyLimit, max_body=max_body, max_upload=max_upload)
    app.add_middleware(HostGuard, allowed=allowed_hosts)  # added last: it runs first
    _document_errors(app)
    return app


ERROR_SCHEMA: dict[str, Any] = {
    "title": "Error",
    "description": "Every failure: a stable code (see the API description) and a message "
    "that says the fix.",
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "enum": sorted(CODES)},
                "message": {"type": "string"},
            },
        }
    },
}


def _document_errors(app: FastAPI) -> None:
    """Make ``/openapi.json`` describe the errors the API returns: FastAPI documents its
    own 422 body (``{"detail": [...]}``), which memex never sends."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        schema = generate()  # cached by FastAPI after the first call
        schemas = schema.setdefault("components", {}).setdefault("schemas", {})
        if "Error" in schemas:
            return schema
        for name in ("HTTPValidationError", "ValidationError"):
            schemas.pop(name, None)
        schemas["Error"] = ERROR_SCHEMA
        error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
        for methods in schema.get("paths", {}).values():
            for operation in methods.values():
                responses = operation.setdefault("responses", {})
                if "422" in responses:
                    responses["422"] = {
                        "description": "Invalid request (invalid_request, empty_query)",
                        "content": error,
                    }
                if "security" in operation:
                    responses["default"] = {"description": "An error", "content": error}
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
