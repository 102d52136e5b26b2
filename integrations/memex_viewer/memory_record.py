"""``/memory/{id}``: one memory, its history as diffs between revisions, and its writes:
forget, undelete, restore (a revision) and reopen (a superseded fact holds again), each
behind a confirmation page.

A write takes two steps: ``GET /memory/{id}/<action>`` shows what will happen, and its
form POSTs with this session's CSRF token and ``confirm=yes``. A POST without
``confirm=yes`` writes nothing and shows the confirmation again, so no single click or
forged link changes memory. The write is the handle method the API calls
(``forget``, ``undelete``, ``restore``), so the access log records it under the
session's name; afterwards the record page says what was done (a fixed message chosen by
name: nothing from the request is echoed into it).

History and restore are the operator's, as on the API (``/v1/admin/memory/history``,
``/restore``): an agent session sees the current revision only. A fact that replaced another
or was replaced (issue 30) shows its chain as a timeline, as ``POST /v1/memory/chain`` gives
it to the same credential: oldest first, each fact with when it held and what replaced it.
A replaced fact in the timeline has a Reopen button: closed by mistake, it is made current
again through ``undelete``, as ``memex undelete`` does (a ``reopen`` revision), by the
operator or a key of the fact's owner (the session's handle finds no other user's fact).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup

from memex_core.domain.memory.records import ACTIVE, MemoryRecord, Revision
from memex_server.auth import state_of
from memex_viewer.memory_access import handle_of, run
from memex_viewer.memory_views import diff_counts, diff_markup, status_label
from memex_viewer.principal import CheckedForm, PageExit, SignedIn, Viewer, refuse_agent
from memex_viewer.rendering import error_page, render

router = APIRouter(include_in_schema=False)

#: What the record page says after a write (``?done=<name>``).
DONE = {
    "forgotten": "Forgotten: it left search. Its revisions stay, and Undelete brings it back.",
    "undeleted": "Brought back: it is active and searchable again, as a new revision.",
    "restored": "Restored: the chosen revision is current again, as a new revision.",
    "reopened": (
        "Reopened: the fact holds again, as a new revision. What had replaced it stays as it "
        "was; forget that one if it was wrong."
    ),
}
ACTIONS = ("forget", "undelete", "restore", "reopen")
MAX_REASON = 500


@dataclass(frozen=True)
class Change:
    """One revision as the history shows it, with its diff against another revision."""

    revision: Revision
    status: str
    against: int | None  # the revision it is compared with (None: the first, shown whole)
    diff: Markup | None
    added: int
    removed: int


def changes(revisions: list[Revision], a: int | None, b: int | None) -> list[Change]:
    """Each revision against the one before (newest first), or only ``b`` against ``a``
    when both name revisions."""
    by_number = {r.revision: r for r in revisions}
    if a in by_number and b in by_number and a is not None and b is not None:
        old, new = by_number[a], by_number[b]
        added, removed = diff_counts(old.content, new.content)
        return [
            Change(
                new,
                status_label(new.status),
                a,
                diff_markup(old.content, new.content),
                added,
                removed,
            )
        ]
    out = []
    for before, revision in zip([None, *revisions], revisions, strict=False):
        if before is None:
            out.append(Change(revision, status_label(revision.status), None, None, 0, 0))
            continue
        added, removed = diff_counts(before.content, revision.content)
        out.append(
            Change(
                revision,
                status_label(revision.status),
                before.revision,
                diff_markup(before.content, revision.content),
                added,
                removed,
            )
        )
    return out[::-1]


def fact_chain(request: Request, viewer: Viewer, record: MemoryRecord) -> list[MemoryRecord]:
    """The facts ``record`` belongs to in time, as the session's handle may read them (the
    catalog's scoped chain: never another user's). Read with the record it was opened by,
    so the page logs one read, not a history too."""
    if record.path is not None:  # memory files are revised, not superseded
        return [record]
    state = state_of(request)
    handle = handle_of(state, viewer)
    return run(request, viewer, state.memex.catalog.supersession_chain, handle.scope, record.id)


def number(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


@router.get("/memory/{memory_id}")
def record_page(
    request: Request,
    viewer: SignedIn,
    memory_id: str,
    a: str = "",
    b: str = "",
    done: str = "",
) -> Response:
    handle = handle_of(state_of(request), viewer)
    record = run(request, viewer, handle.get, memory_id)
    revisions: list[Revision] = []
    if viewer.operator:
        operator = state_of(request).operator_memory(viewer.caller)
        revisions = run(request, viewer, operator.history, record.id)
    left, right = number(a), number(b)
    return render(
        request,
        "memory_record.html",
        viewer,
        record=record,
        record_status=status_label(record.status),
        active=record.status == ACTIVE,
        revisions=revisions,
        changes=changes(revisions, left, right),
        compared=(left, right) if left is not None and right is not None else None,
        done=DONE.get(done),
        chain=fact_chain(request, viewer, record),
    )


def _confirm(
    request: Request,
    viewer: Viewer,
    action: str,
    record: Any,
    revision: Revision | None,
    *,
    status: int = 200,
    asked: bool = False,
) -> Response:
    return render(
        request,
        "memory_confirm.html",
        viewer,
        status=status,
        action=action,
        verb=action.capitalize(),
        record=record,
        record_status=status_label(record.status),
        revision=revision,
        asked=asked,
    )


def _revision(request: Request, viewer: Viewer, record: Any, value: Any) -> Revision:
    """The revision a restore names, or a 404 page."""
    operator = state_of(request).operator_memory(viewer.caller)
    wanted = number(value if isinstance(value, str) else None)
    for revision in run(request, viewer, operator.history, record.id):
        if revision.revision == wanted:
            return revision
    raise PageExit(
        error_page(
            request,
            viewer,
            404,
            "No such revision",
            f"Memory {record.id} has revisions 1 to {record.revision}; pick one from its history.",
        )
    )


def _operator_only(request: Request, viewer: Viewer, action: str) -> None:
    if action == "restore" and not viewer.operator:
        refuse_agent(
            request,
            viewer,
            "Restoring a revision is the operator's, as on the API; an agent key's "
            "session can forget and undelete.",
        )


def _action(request: Request, viewer: Viewer, action: str) -> None:
    if action not in ACTIONS:
        raise PageExit(error_page(request, viewer, 404, "No such page", "Unknown action."))
    _operator_only(request, viewer, action)


def _reopenable(request: Request, viewer: Viewer, action: str, record: MemoryRecord) -> None:
    """Only a fact that a later one replaced can be reopened (a 409 page otherwise)."""
    if action == "reopen" and (record.path is not None or record.valid_until is None):
        raise PageExit(
            error_page(
                request,
                viewer,
                409,
                "Nothing to reopen",
                f"Memory {record.id} holds now: only a fact a later one replaced is reopened.",
            )
        )


@router.get("/memory/{memory_id}/{action}")
def confirm_page(
    request: Request, viewer: SignedIn, memory_id: str, action: str, revision: str = ""
) -> Response:
    _action(request, viewer, action)
    record = run(request, viewer, handle_of(state_of(request), viewer).get, memory_id)
    _reopenable(request, viewer, action, record)
    chosen = _revision(request, viewer, record, revision) if action == "restore" else None
    return _confirm(request, viewer, action, record, chosen)


@router.post("/memory/{memory_id}/{action}")
def act(
    request: Request, viewer: SignedIn, form: CheckedForm, memory_id: str, action: str
) -> Response:
    _action(request, viewer, action)
    handle = handle_of(state_of(request), viewer)
    record = run(request, viewer, handle.get, memory_id)
    _reopenable(request, viewer, action, record)
    chosen = (
        _revision(request, viewer, record, form.get("revision")) if action == "restore" else None
    )
    if form.get("confirm") != "yes":
        return _confirm(request, viewer, action, record, chosen, asked=True)
    if action == "forget":
        reason = form.get("reason")
        text = reason.strip()[:MAX_REASON] if isinstance(reason, str) else ""
        run(request, viewer, handle.forget, record.id, reason=text, writes=True)
        done = "forgotten"
    elif action in ("undelete", "reopen"):
        # undelete reopens a superseded fact that is active (memex undelete does the same).
        run(request, viewer, handle.undelete, record.id, writes=True)
        done = "undeleted" if action == "undelete" else "reopened"
    else:
        assert chosen is not None  # _revision found it
        operator = state_of(request).operator_memory(viewer.caller)  # restore: operator only
        run(request, viewer, operator.restore, record.id, chosen.revision, writes=True)
        done = "restored"
    return RedirectResponse(f"/memory/{record.id}?done={done}", status_code=303)
