"""``/timeline/<id>``: the conversation, session or note around a fragment, the fragment in
place (marked ``aria-current`` and scrolled into view), with links that widen the window
earlier and later, and live updates of the conversation (see :mod:`memex_viewer.events`).

It reads with the principal's reader, as ``POST /v1/timeline`` does: an agent session
gets the same "no fragment" answer for another user's id as for an id that does not exist.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from memex_core.errors import MemexError, UnknownIdError
from memex_server.auth import state_of
from memex_viewer.events import current_cursor, live_url
from memex_viewer.highlight import mark
from memex_viewer.params import bounded
from memex_viewer.principal import SignedIn
from memex_viewer.rendering import error_page, render

router = APIRouter(include_in_schema=False)

DEFAULT_WINDOW = 5
STEP = 10
MAX_WINDOW = 200  # as POST /v1/timeline


@router.get("/timeline/{fragment_id}")
def timeline_page(
    request: Request,
    viewer: SignedIn,
    fragment_id: str,
    before: str = "",
    after: str = "",
    q: str = "",
) -> Response:
    state = state_of(request)
    before_n = bounded(before, DEFAULT_WINDOW, 0, MAX_WINDOW)
    after_n = bounded(after, DEFAULT_WINDOW, 0, MAX_WINDOW)
    # Taken before the read: a fragment stored while the page renders comes live, not lost.
    cursor = current_cursor(state)
    try:
        timeline = state.call(state.reader(viewer.caller).timeline, fragment_id, before_n, after_n)
    except UnknownIdError:
        return error_page(
            request,
            viewer,
            404,
            "No such fragment",
            "There is no fragment with this id that you can read. Ids come from a search.",
        )
    except MemexError as exc:
        return error_page(request, viewer, 422, "Cannot show this timeline", str(exc))
    turns = [
        {
            "fragment": f,
            "offset": o,
            "current": f.id == timeline.anchor_id,
            "content": mark(f.content, q) if q and f.id == timeline.anchor_id else f.content,
        }
        for f, o in zip(timeline.fragments, timeline.offsets, strict=True)
    ]
    first = timeline.offsets[0] if timeline.offsets else 0
    last = timeline.offsets[-1] if timeline.offsets else 0
    anchor = next((f for f in timeline.fragments if f.id == timeline.anchor_id), None)
    note_ref = (
        anchor.conversation_id if anchor is not None and anchor.source_kind == "obsidian" else None
    )
    return render(
        request,
        "timeline.html",
        viewer,
        timeline=timeline,
        turns=turns,
        q=q,
        before=before_n,
        after=after_n,
        # A full window on a side means there may be more there.
        earlier=min(before_n + STEP, MAX_WINDOW)
        if first == -before_n and before_n < MAX_WINDOW
        else None,
        later=min(after_n + STEP, MAX_WINDOW) if last == after_n and after_n < MAX_WINDOW else None,
        note_ref=note_ref,
        live=live_url(conversation=timeline.conversation_id, after=cursor),
    )
