"""``/memory/dream``: what a dream would do (ADD/UPDATE/DELETE/NONE, each with its reason)
before anything is written, then an Apply form that carries out exactly that plan.

``Show plan`` asks the handle for :meth:`~memex_core.handles.MemoryHandle.dream_plan` (a
dry run, with a digest of the facts it was made on). The plan is kept for this session
(in this process, a bounded while); Apply POSTs its digest with the CSRF token and the
handle's ``apply_dream`` carries out those decisions without asking the consolidator
again. When memory changed since the plan was made, nothing is applied and the page says
so, with the new plan to review. A plan this process no longer holds (a restart, another
replica) is made again: it is applied only if it is the same plan (same facts, same
decisions), otherwise it is shown for review.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from memex_core.services.dream import DreamPlan, DreamPlanStale
from memex_server.auth import state_of
from memex_viewer.memory_access import Chosen, choice_of, handle_of, run, users_of
from memex_viewer.principal import CheckedForm, SignedIn, Viewer
from memex_viewer.rendering import render

router = APIRouter(include_in_schema=False)

#: Plans kept for Apply: how many (across sessions) and for how long.
KEPT_PLANS = 64
PLAN_SECONDS = 30 * 60
DONE = "Applied: every decision of the plan you reviewed was carried out (see the log)."


class PlanShelf:
    """Plans shown to a session, by (session seed, digest); the oldest go first."""

    def __init__(self, size: int = KEPT_PLANS, seconds: float = PLAN_SECONDS) -> None:
        self._plans: OrderedDict[tuple[str, str], tuple[float, DreamPlan]] = OrderedDict()
        self._lock = threading.Lock()
        self.size, self.seconds = size, seconds

    def put(self, seed: str, plan: DreamPlan) -> None:
        with self._lock:
            self._plans[(seed, plan.digest)] = (time.monotonic(), plan)
            while len(self._plans) > self.size:
                self._plans.popitem(last=False)

    def take(self, seed: str, digest: str) -> DreamPlan | None:
        with self._lock:
            kept = self._plans.pop((seed, digest), None)
        if kept is None or time.monotonic() - kept[0] > self.seconds:
            return None
        return kept[1]


shelf = PlanShelf()


@dataclass(frozen=True)
class Step:
    """One decision as the page shows it."""

    action: str
    examined_id: str | None
    fact: str
    target_id: str | None
    new_text: str
    reason: str
    applied: bool


def steps(plan_or_report: Any) -> list[Step]:
    report = getattr(plan_or_report, "report", plan_or_report)
    return [
        Step(
            d.decision.action,
            d.examined_id,
            d.decision.fact.text,
            d.decision.target_id,
            d.decision.new_text if d.decision.action == "UPDATE" else "",
            d.decision.reason,
            d.applied,
        )
        for d in report.decisions
    ]


def _page(
    request: Request,
    viewer: Viewer,
    user_id: str | None,
    collection: str | None,
    plan: DreamPlan | None,
    *,
    status: int = 200,
    notice: str | None = None,
    done: str | None = None,
    applied: list[Step] | None = None,
) -> Response:
    handle = handle_of(state_of(request), viewer)
    if plan is not None:
        shelf.put(viewer.session.seed, plan)
    return render(
        request,
        "memory_dream.html",
        viewer,
        status=status,
        users=users_of(request, viewer) if viewer.operator else [],
        user=user_id or "",
        collections=run(request, viewer, handle.collections, user_id=user_id),
        collection=collection or "",
        plan=plan,
        steps=steps(plan) if plan is not None else [],
        counts=plan.report.counts() if plan is not None else {},
        notice=notice,
        done=done,
        applied=applied or [],
    )


def _plan(
    request: Request, viewer: Viewer, user_id: str | None, collection: str | None
) -> DreamPlan:
    handle = handle_of(state_of(request), viewer)
    return run(request, viewer, handle.dream_plan, collection, user_id=user_id)


@router.get("/memory/dream")
def dream_page(request: Request, viewer: SignedIn, chosen: Chosen, plan: str = "") -> Response:
    user_id, name = chosen
    made = _plan(request, viewer, user_id, name) if plan else None
    return _page(request, viewer, user_id, name, made)


@router.post("/memory/dream/apply")
def apply(request: Request, viewer: SignedIn, form: CheckedForm) -> Response:
    user_id, name = choice_of(viewer, form.get("user"), form.get("collection"))
    digest = form.get("digest")
    digest = digest if isinstance(digest, str) else ""
    plan = shelf.take(viewer.session.seed, digest)
    if plan is None:
        fresh = _plan(request, viewer, user_id, name)
        if fresh.digest != digest:
            return _page(
                request,
                viewer,
                user_id,
                name,
                fresh,
                status=409,
                notice="Nothing was applied: memory or the consolidator's decisions changed "
                "since that plan was shown. This is the plan as it stands now; review it "
                "and apply again.",
            )
        plan = fresh
    handle = handle_of(state_of(request), viewer)
    chosen = plan

    def attempt() -> Any:
        try:
            return handle.apply_dream(chosen)
        except DreamPlanStale:  # logged by the handle; the page says what happened
            return None

    # The dream's job lock (on a shared catalog, every host's) is waited for outside the
    # call lock too, like the write lock.
    report = run(request, viewer, attempt, writes=True, jobs=("dream",))
    if report is None:
        return _page(
            request,
            viewer,
            user_id,
            name,
            _plan(request, viewer, user_id, name),
            status=409,
            notice="Nothing was applied: memory changed since the plan was made (a fact "
            "was added, revised, forgotten or brought back). This is the plan as it "
            "stands now; review it and apply again.",
        )
    return _page(request, viewer, user_id, name, None, done=DONE, applied=steps(report))


@router.get("/memory/dream/apply")
def apply_by_get(request: Request, viewer: SignedIn) -> Response:
    """A bookmarked or reloaded Apply: back to the plan page (GET never writes)."""
    return RedirectResponse("/memory/dream", status_code=303)
