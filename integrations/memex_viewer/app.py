"""The viewer's router, and :func:`mount`, which puts it on a ``memex serve`` app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from fastapi.responses import Response

from memex_viewer import assets, corpus, events, memory, notes, search, signin, timeline
from memex_viewer.principal import PageExit

if TYPE_CHECKING:
    from fastapi import FastAPI


def build_router() -> APIRouter:
    """Every page of the viewer (HTML at ``/``, assets at ``/static``), none in the API
    schema. A page module brings its own ``router``; add new ones here."""
    router = APIRouter(include_in_schema=False)
    for page in (assets, signin, search, timeline, events, notes, corpus, memory):
        router.include_router(page.router)
    return router


def mount(app: FastAPI) -> None:
    """Serve the viewer on ``app`` (a :func:`memex_server.app.build_app` app, whose
    ``app.state.memex`` the pages read through)."""
    app.include_router(build_router())

    @app.exception_handler(PageExit)
    async def page_exit(request: Request, exc: PageExit) -> Response:
        return exc.response
