"""``/healthz`` (the process answers) and ``/readyz`` (the catalog answers and the indexes
have caught up). Both are open, for load balancers and orchestrators, and say nothing
about what the memory holds beyond counts of pending work."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from memex_server.auth import state_of

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="The server process answers")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


def readiness(request: Request) -> dict[str, Any]:
    """Whether the catalog answers and the keyword index reflects every catalog change."""
    state = state_of(request)
    mx = state.memex
    report: dict[str, Any] = {"ready": False, "catalog": "ok"}
    try:
        with mx.call_lock:
            sync = mx.keyword_sync
            mx.keyword_store  # noqa: B018  # loads a newer index another process flushed
            sync.catch_up()
            last = mx.catalog.last_fragment_change()
            lag = max(0, last - (sync.seen or 0))
            fragments = mx.catalog.count_fragments()
            pending = None
            if mx.semantic_unavailable_reason() is None:
                pending = max(0, fragments - mx.catalog.count_embedded())
    except Exception as exc:  # a catalog that cannot be read: not ready, and why
        report["catalog"] = f"unavailable: {type(exc).__name__}: {exc}"
        return report
    report.update(
        fragments=fragments,
        keyword_lag=lag,
        vectors_pending=pending,
        ready=lag == 0,
    )
    return report


@router.get("/readyz", summary="The catalog answers and the indexes have caught up")
def readyz(request: Request) -> JSONResponse:
    """200 when ready, 503 when not, with the same JSON object either way: ``ready``
    (bool), ``catalog`` (``"ok"``, or why it cannot be read), ``fragments``,
    ``keyword_lag`` (catalog changes the keyword index has not seen yet) and
    ``vectors_pending`` (fragments without vectors; null without semantic search)."""
    report = readiness(request)
    return JSONResponse(report, status_code=200 if report["ready"] else 503)
