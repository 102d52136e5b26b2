"""``/memory``: agent memory in the viewer. This module is the collections tree and the records
of the selected collection; it includes the record page and its writes
(:mod:`memex_viewer.memory_record`), the access log (:mod:`memex_viewer.memory_log`) and
the dream plan (:mod:`memex_viewer.memory_dream`).

Every read and write goes through the memory handle the API would give the same
credential (``state.operator_memory`` / ``state.agent_memory``), so an agent key's
session sees exactly what ``mx.agent(user)`` sees (a key's collection bound included)
and every call lands in the access log under the session's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response

from memex_server.auth import state_of
from memex_viewer import memory_dream, memory_log, memory_record
from memex_viewer.memory_access import PAGE_SIZE, Chosen, handle_of, page_offset, run, users_of
from memex_viewer.memory_views import collection_tree, status_label
from memex_viewer.principal import SignedIn
from memex_viewer.rendering import render

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class Row:
    """A record in the table: what the list shows, never the whole text."""

    id: str
    collection: str
    kind: str
    status: str
    revision: int
    updated_at: float
    label: str  # the file's path, or the start of the text


def row_of(record: Any) -> Row:
    text = " ".join(str(record.content).split())
    label = record.path or (text if len(text) <= 100 else text[:99] + "…")
    return Row(
        record.id,
        record.collection,
        record.kind,
        status_label(record.status),
        record.revision,
        record.updated_at,
        label,
    )


@router.get("/memory")
def memory_page(request: Request, viewer: SignedIn, chosen: Chosen, offset: str = "0") -> Response:
    state = state_of(request)
    handle = handle_of(state, viewer)
    user_id, collection = chosen
    start = page_offset(offset)
    names = run(request, viewer, handle.collections, user_id=user_id)
    records = run(
        request,
        viewer,
        handle.list,
        collection,
        include_deleted=True,
        limit=PAGE_SIZE + 1,
        offset=start,
        user_id=user_id,
    )

    def link(**changes: Any) -> str:
        params = {"user": user_id or "", "collection": collection or "", **changes}
        kept = {k: v for k, v in params.items() if v not in ("", None, 0)}
        return "/memory?" + urlencode(kept) if kept else "/memory"

    return render(
        request,
        "memory_index.html",
        viewer,
        users=users_of(request, viewer) if viewer.operator else [],
        user=user_id or "",
        collection=collection or "",
        tree=collection_tree(n for n in names if n),
        rows=[row_of(r) for r in records[:PAGE_SIZE]],
        offset=start,
        previous=link(offset=max(start - PAGE_SIZE, 0)) if start else None,
        next=link(offset=start + PAGE_SIZE) if len(records) > PAGE_SIZE else None,
        link=link,
    )


# The fixed paths (/memory/log, /memory/dream) come before /memory/{memory_id}.
for page in (memory_log, memory_dream, memory_record):
    router.include_router(page.router)
