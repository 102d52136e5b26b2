"""``/corpus`` (operator only): what the home holds, counts per source and role, embedding
coverage, and, on request, the doctor's findings with their fix.

The counts come from ``Memex.stats()`` (a few aggregate queries). The doctor compares the
catalog with both indexes id by id, which takes seconds in a large home and holds the home's
write lock while it looks, so it runs only when asked (the button; a POST with the CSRF
token, like every form that locks the home) and the page says how long it took. It never
repairs: ``memex doctor --repair`` does, from a shell.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from memex_core.errors import MemexError
from memex_server.auth import state_of
from memex_viewer.principal import CheckedForm, OperatorOnly, Viewer
from memex_viewer.rendering import render

if TYPE_CHECKING:
    from memex_core.services.doctor import DoctorReport
    from memex_server.state import ServerState

router = APIRouter(include_in_schema=False)


def run_doctor(state: ServerState) -> DoctorReport:
    """``memex doctor`` without ``--repair``: the index checks and the plugins' checks."""
    from memex_core.services.doctor import plugin_findings

    mx = state.memex
    report = mx.doctor(repair=False)
    report.final.findings.extend(plugin_findings(mx.registry.doctor_checks(), mx.home))
    return report


def _page(
    request: Request,
    viewer: Viewer,
    *,
    report: Any = None,
    took: float | None = None,
    error: str | None = None,
) -> Response:
    state = state_of(request)
    stats = state.call(state.memex.stats)
    coverage = stats.embedded / stats.fragments if stats.fragments else None
    return render(
        request,
        "corpus.html",
        viewer,
        stats=stats,
        coverage=coverage,
        by_source=sorted(stats.by_source.items(), key=lambda kv: (-kv[1], kv[0])),
        by_role=sorted(stats.by_role.items(), key=lambda kv: (-kv[1], kv[0])),
        report=report,
        took=took,
        error=error,
    )


@router.get("/corpus")
def corpus_page(request: Request, viewer: OperatorOnly) -> Response:
    return _page(request, viewer)


@router.post("/corpus/doctor")
def corpus_doctor(request: Request, viewer: OperatorOnly, form: CheckedForm) -> Response:
    state = state_of(request)
    started = time.perf_counter()
    try:
        # It takes the write lock: wait for another writer outside memex's call lock.
        report = state.write(run_doctor, state)
    except MemexError as exc:
        return _page(request, viewer, error=str(exc))
    return _page(request, viewer, report=report, took=time.perf_counter() - started)
