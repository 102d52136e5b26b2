"""Errors as the API returns them: JSON with a stable code and a message that says the fix.

Every failure leaves as ``{"error": {"code": ..., "message": ...}}`` with the status
that fits; never a traceback. Codes are part of the API: clients branch on them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from memex_core.catalog.faults import CatalogUnavailableError
from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.errors import (
    AmbiguousIdError,
    EmptyQueryError,
    MemexError,
    UnknownIdError,
    VectorStoreUnavailableError,
    WriteLockedError,
)
from memex_core.services.dream import DreamPlanStale

log = logging.getLogger("memex_server")

#: code -> HTTP status, for the API reference and the client.
CODES: dict[str, int] = {
    "missing_credentials": 401,
    "invalid_credentials": 401,
    "operator_only": 403,
    "agent_only": 403,
    "forbidden": 403,
    "forbidden_host": 403,
    "too_many_failures": 429,
    "not_found": 404,
    "method_not_allowed": 405,
    "ambiguous_id": 409,
    "plan_changed": 409,
    "body_too_large": 413,
    "empty_query": 422,
    "invalid_request": 422,
    "internal_error": 500,
    "write_locked": 503,
    "vectors_unavailable": 503,
    "replica_behind": 503,
    "catalog_unavailable": 503,
    "not_ready": 503,
}


@dataclass
class ApiError(Exception):
    """A failure the API reports as is."""

    code: str
    message: str
    #: Seconds a client should wait before trying again (the ``Retry-After`` header).
    retry_after: int | None = None

    @property
    def status(self) -> int:
        return CODES[self.code]


@dataclass
class ReplicaBehind(ApiError):
    """``replica_behind``, with how far behind: the keyword index has not applied
    ``entries`` catalog changes, for up to ``seconds`` (inf: it never caught up). The
    viewer shows these on its own page; the API sends the message."""

    entries: int = 0
    seconds: float = 0.0


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    return {"error": {"code": code, "message": message}}


def error_response(code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(code, message), status_code=CODES[code], headers=headers)


def code_for(exc: MemexError) -> str:
    """The API code of an error memex raised on purpose."""
    for kind, code in (
        (EmptyQueryError, "empty_query"),
        (UnknownIdError, "not_found"),
        (AmbiguousIdError, "ambiguous_id"),
        (DreamPlanStale, "plan_changed"),
        (MemoryAccessDenied, "forbidden"),
        (WriteLockedError, "write_locked"),
        (VectorStoreUnavailableError, "vectors_unavailable"),
        (CatalogUnavailableError, "catalog_unavailable"),
    ):
        if isinstance(exc, kind):
            return code
    return "invalid_request"


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "Invalid request: " + "; ".join(parts) + ". See /openapi.json for the fields."


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        if exc.status == 503:
            headers = {"Retry-After": "1"}
        if exc.retry_after is not None:
            headers = {"Retry-After": str(exc.retry_after)}
        return error_response(exc.code, exc.message, headers)

    @app.exception_handler(MemexError)
    async def memex_error(request: Request, exc: MemexError) -> JSONResponse:
        code = code_for(exc)
        headers = {"Retry-After": "5"} if CODES[code] == 503 else None
        return error_response(code, str(exc), headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response("invalid_request", _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return error_response(
                "not_found", f"No route {request.url.path}: see /openapi.json for the API."
            )
        if exc.status_code == 405:
            return error_response(
                "method_not_allowed",
                f"{request.method} is not allowed on {request.url.path}: see /openapi.json.",
            )
        if exc.status_code == 413:
            return error_response("body_too_large", str(exc.detail))
        return error_response("invalid_request", str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("memex serve: %s %s failed", request.method, request.url.path)
        return error_response(
            "internal_error",
            "The server failed on this request; its log has the details. Nothing was "
            "half-written: memory writes are transactions.",
        )
