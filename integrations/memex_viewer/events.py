"""``/events``: newly captured fragments as server-sent events, and ``/activity``, the page
that shows what was captured lately and follows the stream.

How new fragments are found: the catalog numbers every fragment it stores (``fragments.seq``,
its insertion order, which the indexes sync by). A stream starts from a cursor (the page's
``after``, or ``Last-Event-ID`` when the browser reconnects), and every
:data:`POLL_SECONDS` asks the catalog for ``seq > cursor``, a range scan of the primary key
on a read-only connection of its own (``Memex.query``), so a poll costs the same in a home of
any size and never waits for memex's call lock. Fragments written by another process (the
capture worker, a ``memex ingest``) show up on the next poll. The new ids then go through
the principal's reader (``get``), so an agent session is sent only what its key may read,
exactly as ``POST /v1/fragments`` would answer. ``conversation`` narrows a stream to the
conversation a timeline shows.

Streams are bounded (:data:`MAX_STREAMS` per server; 503 beyond), re-check the session
every :data:`RECHECK_POLLS` polls (a revoked key's stream ends), and stop when the browser
goes away or the server shuts down (which would otherwise wait for them forever).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from memex_server.auth import state_of
from memex_viewer.params import bounded
from memex_viewer.principal import SignedIn, Viewer, current
from memex_viewer.rendering import SECURITY_HEADERS, render, when
from memex_viewer.titles import title_of

if TYPE_CHECKING:
    from memex_core.domain import Fragment
    from memex_server.state import ServerState

router = APIRouter(include_in_schema=False)

POLL_SECONDS = 1.0
MAX_STREAMS = 32
RECHECK_POLLS = 10
KEEPALIVE_POLLS = 15
BATCH = 100  # new fragments read per poll at most (the rest on the next)
TEXT_CHARS = 2000  # of each fragment sent; the timeline has the whole text
ACTIVITY_ITEMS = 50


def current_cursor(state: ServerState) -> int:
    """The newest fragment's number now: a stream from here sends what comes next."""
    return state.call(state.memex.catalog.newest_fragment_seq)


def new_since(state: ServerState, cursor: int) -> tuple[int, list[tuple[str, str]]]:
    """(id, owner) of the fragments stored after ``cursor``, in order (at most
    :data:`BATCH`), and the new cursor."""
    rows = state.call(state.memex.catalog.fragments_after, int(cursor), BATCH)
    if not rows:
        return cursor, []
    return rows[-1][0], [(fid, owner) for _, fid, owner in rows]


def live_url(*, conversation: str | None, after: int) -> str:
    query: dict[str, Any] = {"after": after}
    if conversation:
        query["conversation"] = conversation
    return "/events?" + urlencode(query)


def item_of(fragment: Fragment) -> dict[str, Any]:
    """What a page needs to show a new fragment (as text: the script never parses markup)."""
    text = fragment.content
    return {
        "id": fragment.id,
        "conversation_id": fragment.conversation_id,
        "title": title_of(fragment),
        "role": fragment.role,
        "source": fragment.source_kind,
        "time": when(fragment.timestamp),
        "text": text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + "…",
        "href": f"/timeline/{fragment.id}",
    }


def readable(state: ServerState, viewer: Viewer, found: list[tuple[str, str]]) -> list[Fragment]:
    """The fragments of ``found`` (id, owner) the principal may read, through its reader's
    ``get`` (which decides, and logs the read for an agent). Ids of owners outside an agent
    view's scope are dropped first, so another user's new fragments never reach its ``get``
    and their ids never land in the agent's access log."""
    view = state.reader(viewer.caller)
    owners = getattr(view, "owners", None)  # an AgentView's; the operator reads every owner
    ids = [i for i, owner in found if owners is None or owner in owners]
    return state.call(view.get, ids) if ids else []


def _open_streams(request: Request) -> int:
    count: int = getattr(request.app.state, "viewer_streams", 0)
    return count


def _count(request: Request, delta: int) -> None:
    request.app.state.viewer_streams = _open_streams(request) + delta


def _stopping(request: Request) -> bool:
    """Whether the server is shutting down (``memex serve`` sets ``app.state.stopping``): it
    waits for every open response, so a stream must end by itself then."""
    stopping = getattr(request.app.state, "stopping", None)
    return bool(stopping()) if callable(stopping) else False


def _start(request: Request, after: int) -> int | None:
    """Where a stream resumes: the browser's Last-Event-ID, else ``after`` (if given: -1
    is none), else now."""
    last = request.headers.get("last-event-id", "")
    if last.isdigit():
        return int(last)
    return after if after >= 0 else None


async def _stream(
    request: Request, viewer: Viewer, cursor: int, conversation: str | None
) -> AsyncIterator[str]:
    state = state_of(request)
    polls = 0
    _count(request, +1)  # here, not in the route: a stream that never starts never ends
    try:
        yield "retry: 3000\n\n"
        while not await request.is_disconnected() and not _stopping(request):
            polls += 1
            if polls % RECHECK_POLLS == 0:
                still = await run_in_threadpool(current, request)
                if still is None:
                    yield "event: signed-out\ndata: {}\n\n"
                    return
            cursor, found = await run_in_threadpool(new_since, state, cursor)
            fragments = await run_in_threadpool(readable, state, viewer, found)
            sent = False
            for fragment in fragments:
                if conversation and fragment.conversation_id != conversation:
                    continue
                data = json.dumps(item_of(fragment), ensure_ascii=False)
                yield f"id: {cursor}\nevent: fragment\ndata: {data}\n\n"
                sent = True
            if not sent and polls % KEEPALIVE_POLLS == 0:
                yield ": keep-alive\n\n"
            if found:
                continue  # more may be waiting: read on at once
            await asyncio.sleep(POLL_SECONDS)
    finally:
        _count(request, -1)


@router.get("/events")
def events(
    request: Request,
    viewer: SignedIn,
    after: str = "",
    conversation: str | None = None,
) -> Response:
    if _open_streams(request) >= MAX_STREAMS:
        return Response(
            f"Too many live streams are open ({MAX_STREAMS}); close a tab and reload.",
            status_code=503,
            media_type="text/plain",
            headers={"Retry-After": "10"},
        )
    state = state_of(request)
    start = _start(request, bounded(after, -1, -1, 2**62))
    cursor = current_cursor(state) if start is None else max(start, 0)
    headers = {**SECURITY_HEADERS, "X-Accel-Buffering": "no"}
    return StreamingResponse(
        _stream(request, viewer, cursor, conversation or None),
        media_type="text/event-stream",
        headers=headers,
    )


def recent(state: ServerState, viewer: Viewer, limit: int) -> list[Fragment]:
    """The newest fragments the principal may read, newest first (twice as many rows are
    read as shown, since the reader may still leave some out: a key's collection bound)."""
    owners = getattr(state.reader(viewer.caller), "owners", None)  # an agent: its owners'
    chosen = None if owners is None else list(owners)
    rows = state.call(state.memex.catalog.newest_fragments, chosen, int(limit) * 2)
    return readable(state, viewer, rows)[:limit]


@router.get("/activity")
def activity_page(request: Request, viewer: SignedIn) -> Response:
    state = state_of(request)
    cursor = current_cursor(state)
    items = [item_of(f) for f in recent(state, viewer, ACTIVITY_ITEMS)]
    return render(
        request,
        "activity.html",
        viewer,
        items=items,
        live=live_url(conversation=None, after=cursor),
    )
