"""``/memory/log``: the access log (every call into memory, who made it, for which user, with
what outcome), newest first, filtered and paginated. The operator's, as on the API
(``/v1/admin/access-log``); an agent session gets a 403 page.

Filters: actor (a key's name, or ``operator``), user, operation, outcome, time range
(a date, a time, or an age like ``7d``, as the CLI reads them) and tool-call id.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response

from memex_core.domain.time_bounds import TimeBoundError, parse_time_bound
from memex_server.auth import state_of
from memex_viewer.memory_access import PAGE_SIZE, page_offset, run
from memex_viewer.principal import OperatorOnly
from memex_viewer.rendering import render

router = APIRouter(include_in_schema=False)

#: The operations the handles log (the picker's choices; any other value filters too).
OPERATIONS = (
    "read",
    "list",
    "search",
    "links",
    "remember",
    "write",
    "forget",
    "undelete",
    "history",
    "restore",
    "dream",
    "purge",
)
OUTCOMES = ("ok", "not_found", "denied", "invalid")
#: The log is read newest first with a LIMIT (the catalog has no offset for it): deeper
#: pages cost more, so paging stops here; narrow the filters to go further back.
MAX_OFFSET = 10_000
FILTERS = ("actor", "user", "action", "outcome", "since", "until", "tool_call_id")


def detail_text(detail: dict[str, Any]) -> str:
    return json.dumps(detail, sort_keys=True, ensure_ascii=False) if detail else ""


@router.get("/memory/log")
def log_page(
    request: Request,
    viewer: OperatorOnly,
    actor: str = "",
    user: str = "",
    action: str = "",
    outcome: str = "",
    since: str = "",
    until: str = "",
    tool_call_id: str = "",
    offset: str = "0",
) -> Response:
    raw = {
        "actor": actor,
        "user": user,
        "action": action,
        "outcome": outcome,
        "since": since,
        "until": until,
        "tool_call_id": tool_call_id,
    }
    given = {k: v.strip() for k, v in raw.items() if v.strip()}
    start = min(page_offset(offset), MAX_OFFSET)
    error = None
    query: dict[str, Any] = {
        "actor": given.get("actor"),
        "user_id": given.get("user"),
        "action": given.get("action"),
        "outcome": given.get("outcome"),
        "tool_call_id": given.get("tool_call_id"),
    }
    try:
        query["since"] = parse_time_bound(given.get("since"))
        query["until"] = parse_time_bound(given.get("until"), end_of_day=True)
    except TimeBoundError as exc:
        error = str(exc)
    entries: list[Any] = []
    if error is None:
        handle = state_of(request).operator_memory(viewer.caller)
        filters = {k: v for k, v in query.items() if v is not None}
        entries = run(request, viewer, handle.access_log, limit=start + PAGE_SIZE + 1, **filters)
    shown = entries[start : start + PAGE_SIZE]

    def link(at: int) -> str:
        return "/memory/log?" + urlencode({**given, "offset": at} if at else given)

    more = len(entries) > start + PAGE_SIZE and start + PAGE_SIZE <= MAX_OFFSET
    return render(
        request,
        "memory_log.html",
        viewer,
        filters=raw,
        operations=OPERATIONS,
        outcomes=OUTCOMES,
        entries=shown,
        detail_text=detail_text,
        error=error,
        offset=start,
        previous=link(max(start - PAGE_SIZE, 0)) if start else None,
        next=link(start + PAGE_SIZE) if more else None,
    )
