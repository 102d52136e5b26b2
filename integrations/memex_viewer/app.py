"""The viewer's router, and :func:`mount`, which puts it on a ``memex serve`` app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from memex_viewer import assets, corpus, events, memory_collections, notes, search, signin, timeline
from memex_viewer.principal import PageExit

if TYPE_CHECKING:
    from fastapi import FastAPI


def build_router() -> APIRouter:
    """Every page of the viewer (HTML at ``/``, assets at ``/static``), none in the API
    schema. A page module brings its own ``router``; add new ones here."""
    router = APIRouter(include_in_schema=False)
    for page in (assets, signin, search, timeline, events, notes, corpus, memory_collections):
        router.include_router(page.router)
    return router


def wants_page(request: Request) -> bool:
    """A browser asking for a page (not an API client): HTML accepted, outside ``/v1``."""
    path = request.url.path
    return not path.startswith("/v1") and "text/html" in request.headers.get("accept", "")


def mount(app: FastAPI) -> None:
    """Serve the viewer on ``app`` (a :func:`memex_server.app.build_app` app, whose
    ``app.state.memex`` the pages read through)."""
    app.include_router(build_router())

    @app.exception_handler(PageExit)
    async def page_exit(request: Request, exc: PageExit) -> Response:
        return exc.response

    # A browser that follows a stale or mistyped link gets a page, not the API's JSON.
    api_handler = app.exception_handlers.get(StarletteHTTPException)

    @app.exception_handler(StarletteHTTPException)
    async def not_found(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and wants_page(request):
            from starlette.concurrency import run_in_threadpool

            from memex_viewer.principal import current
            from memex_viewer.rendering import error_page

            viewer = await run_in_threadpool(current, request)
            return error_page(
                request,
                viewer,
                404,
                "No such page",
                "There is no page at this address. Start again from the search page.",
            )
        if api_handler is None:
            raise exc
        response: Response = await api_handler(request, exc)  # type: ignore[misc]
        return response
