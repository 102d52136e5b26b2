"""``/healthz`` (the process answers) and ``/readyz`` (the catalog answers and the keyword
index is no further behind it than ``[serve] max_lag_s``). Both are open, for load
balancers and orchestrators, and say nothing about what the memory holds beyond counts of
pending work."""

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
    """Whether the catalog answers and the keyword index is within the allowed lag."""
    state = state_of(request)
    mx = state.memex
    report: dict[str, Any] = {"ready": False, "catalog": "ok"}
    follower = state.follower
    try:
        with mx.call_lock:
            sync = mx.keyword_sync
            if follower is None:  # nothing follows in the background: catch up here
                sync.refresh()
                sync.follow()
            lag = sync.lag()
            fragments = mx.catalog.count_fragments()
            pending = None
            if mx.semantic_unavailable_reason() is None:
                pending = max(0, fragments - mx.catalog.count_embedded())
    except Exception as exc:  # a catalog that cannot be read: not ready, and why
        report["catalog"] = f"unavailable: {type(exc).__name__}: {exc}"
        return report
    limit = follower.settings.max_lag_s if follower is not None else 0.0
    seconds = round(lag.seconds, 3) if lag.seconds != float("inf") else None
    report.update(
        fragments=fragments,
        keyword_lag=lag.entries,
        lag_seconds=seconds,
        max_lag_s=limit,
        vectors_pending=pending,
        ready=lag.entries == 0 or (seconds is not None and seconds <= limit),
    )
    if follower is not None and follower.error:
        report["follower"] = follower.error
    return report


@router.get("/readyz", summary="The catalog answers and the keyword index is within its lag")
def readyz(request: Request) -> JSONResponse:
    """200 when ready, 503 when not, with the same JSON object either way: ``ready``
    (bool), ``catalog`` (``"ok"``, or why it cannot be read), ``fragments``,
    ``keyword_lag`` (catalog changes the keyword index has not applied yet),
    ``lag_seconds`` (at most how long it has been behind the catalog: 0 when caught up),
    ``max_lag_s`` (``[serve] max_lag_s``: more lag than this is not ready, and searches
    answer 503 ``replica_behind``), ``vectors_pending`` (fragments without vectors; null
    without semantic search) and, while the server cannot follow the catalog,
    ``follower`` (why)."""
    report = readiness(request)
    return JSONResponse(report, status_code=200 if report["ready"] else 503)
