"""Memory routes: what ``mx.agent(user)`` does under ``/v1/memory`` for an agent key, and
what ``mx.operator()`` does under ``/v1/admin/memory`` for the operator secret.

Both routers are made by one function, so the two can never drift apart. The agent's
bodies have no user field (the key fixes the user, and an unknown field is a 422);
another user's id or path fails like an unknown one (404); writing ``shared/`` needs
``MEMEX_SHARED_WRITE_MODE=rw`` where the server runs (403 otherwise). The operator's
bodies may name a ``user_id``.
"""

# No `from __future__ import annotations`: FastAPI reads the handlers' annotations, and
# those name classes chosen inside make_router.

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel

from memex_core.handles import MemoryLinks, RememberResult
from memex_core.services.agent_memory import DreamReport
from memex_core.services.dream import DreamPlan, DreamPlanStale
from memex_server.auth import Caller, agent, operator, state_of
from memex_server.errors import ApiError
from memex_server.memory_json import HitsOut, MemoryRecordOut, RecordsOut, as_json
from memex_server.requests import (
    Body,
    CollectionsRequest,
    DreamApplyRequest,
    DreamPlanRequest,
    DreamRequest,
    ForgetRequest,
    ListRequest,
    MemorySearchRequest,
    RefRequest,
    RememberRequest,
    WriteRequest,
    operator_body,
)

F = TypeVar("F", bound=Callable[..., Any])


#: Handle methods that write memory (and so take the home's write lock).
WRITES = frozenset({"remember", "write", "forget", "undelete", "dream"})
#: Job locks a write also takes (on a shared catalog, held across every host), waited for
#: outside the call lock like the write lock. A dry-run dream takes them too.
JOB_LOCKS = {"dream": ("dream",), "apply_dream": ("dream",)}


def make_router(*, for_operator: bool) -> APIRouter:
    prefix = "/v1/admin/memory" if for_operator else "/v1/memory"
    router = APIRouter(prefix=prefix, tags=["operator memory" if for_operator else "memory"])
    Who = Annotated[Caller, Depends(operator if for_operator else agent)]

    def body_of(agent_body: type[Body]) -> Callable[[F], F]:
        """Give a handler the operator's body (a subclass, with ``user_id``) on that router.
        Applied before the route decorator, which reads the annotations."""

        def apply(handler: F) -> F:
            handler.__annotations__["body"] = (
                operator_body(agent_body) if for_operator else agent_body
            )
            return handler

        return apply

    def handle(request: Request, who: Caller) -> Any:
        state = state_of(request)
        return state.operator_memory(who) if for_operator else state.agent_memory(who)

    def user(body: Any) -> dict[str, Any]:
        return {"user_id": body.user_id} if for_operator else {}

    def call(request: Request, who: Caller, method: str, *args: Any, **kwargs: Any) -> Any:
        """``method`` of the caller's handle, given the caller's tool call id (for the access
        log; ``collections`` logs nothing), one call into memex at a time (a write first
        waits for the home's write lock without holding up readers)."""
        if method != "collections":
            kwargs["tool_call_id"] = who.tool_call_id
        target = getattr(handle(request, who), method)
        state = state_of(request)
        if method in JOB_LOCKS or (method in WRITES and not kwargs.get("dry_run")):
            return state.write(target, *args, jobs=JOB_LOCKS.get(method, ()), **kwargs)
        if method == "search":  # recall: refused rather than stale (replica_behind)
            return state.fresh_call(target, *args, **kwargs)
        return state.call(target, *args, **kwargs)

    @router.post("/get", response_model=MemoryRecordOut, summary="A memory by id or path")
    def get(request: Request, body: RefRequest, who: Who) -> Any:
        return as_json(call(request, who, "get", body.ref))

    @router.post(
        "/chain",
        response_model=RecordsOut,
        summary="A fact's history: the facts it superseded and those superseding it",
    )
    def chain(request: Request, body: RefRequest, who: Who) -> Any:
        """The chain a fact belongs to in time, oldest first (Paris -> Berlin), each with
        ``valid_from``, ``valid_until`` and ``superseded_by``: ``Memex.history``. Only the
        caller's own (and shared) facts: another user's are never part of a chain."""
        return as_json(call(request, who, "chain", body.ref))

    @router.post("/list", response_model=RecordsOut, summary="Memories in a collection")
    @body_of(ListRequest)
    def list_memories(request: Request, body: ListRequest, who: Who) -> Any:
        return as_json(
            call(
                request,
                who,
                "list",
                body.collection,
                include_deleted=body.include_deleted,
                kind=body.kind,
                limit=body.limit,
                offset=body.offset,
                **user(body),
            )
        )

    @router.post("/search", response_model=HitsOut, summary="Search memory (recall)")
    @body_of(MemorySearchRequest)
    def search(request: Request, body: MemorySearchRequest, who: Who) -> Any:
        """Current facts by default; ``as_of`` gives the facts valid then and
        ``include_superseded`` every fact, each hit with its validity."""
        options = body.search_options()
        return as_json(call(request, who, "search", options, **user(body)))

    @router.post("/links", response_model=MemoryLinks, summary="A memory file's links")
    def links(request: Request, body: RefRequest, who: Who) -> Any:
        return call(request, who, "links", body.ref)

    @router.post(
        "/remember", response_model=RememberResult, summary="Remember a fact or a conversation"
    )
    @body_of(RememberRequest)
    def remember(request: Request, body: RememberRequest, who: Who) -> Any:
        messages = None if body.messages is None else [m.model_dump() for m in body.messages]
        return call(
            request,
            who,
            "remember",
            body.text,
            messages=messages,
            collection=body.collection,
            kind=body.kind,
            private=body.private,
            consolidate=body.consolidate,
            at=body.at,
            **user(body),
        )

    @router.post(
        "/write", response_model=MemoryRecordOut, summary="Create or replace a memory file"
    )
    def write(request: Request, body: WriteRequest, who: Who) -> Any:
        return as_json(
            call(
                request,
                who,
                "write",
                body.path,
                body.content,
                collection=body.collection,
                private=body.private,
                reason=body.reason,
            )
        )

    @router.post("/forget", response_model=MemoryRecordOut, summary="Soft-delete a memory")
    def forget(request: Request, body: ForgetRequest, who: Who) -> Any:
        return as_json(call(request, who, "forget", body.ref, reason=body.reason))

    @router.post(
        "/undelete",
        response_model=MemoryRecordOut,
        summary="Bring a forgotten memory back (or reopen a fact closed by mistake)",
    )
    def undelete(request: Request, body: RefRequest, who: Who) -> Any:
        return as_json(call(request, who, "undelete", body.ref))

    @router.post("/dream", response_model=DreamReport, summary="Consolidate a collection's facts")
    @body_of(DreamRequest)
    def dream(request: Request, body: DreamRequest, who: Who) -> Any:
        return call(
            request,
            who,
            "dream",
            body.collection,
            dry_run=body.dry_run,
            **user(body),
        )

    @router.post("/collections", response_model=list[str], summary="Collections that hold memory")
    @body_of(CollectionsRequest)
    def collections(request: Request, body: CollectionsRequest, who: Who) -> Any:
        return call(request, who, "collections", **user(body))

    def planned(
        request: Request, who: Caller, body: DreamPlanRequest | DreamApplyRequest
    ) -> DreamPlan:
        """The dream plan for the collection ``body`` names, written nowhere."""
        plan: DreamPlan = call(request, who, "dream_plan", body.collection, **user(body))
        return plan

    @router.post(
        "/dream/plan",
        response_model=DreamPlanOut,
        summary="What a dream would do, written nowhere (review it, then apply it)",
    )
    @body_of(DreamPlanRequest)
    def dream_plan(request: Request, body: DreamPlanRequest, who: Who) -> Any:
        return DreamPlanOut.of(planned(request, who, body))

    @router.post(
        "/dream/apply",
        response_model=DreamReport,
        summary="Apply a reviewed dream plan (409 plan_changed if memory changed since)",
    )
    @body_of(DreamApplyRequest)
    def dream_apply(request: Request, body: DreamApplyRequest, who: Who) -> Any:
        """The plan is made again and applied only if its digest is the one reviewed:
        the same facts and the same decisions. Otherwise nothing is written and the answer
        is 409 ``plan_changed``: ask for a new plan and review it."""
        plan = planned(request, who, body)
        if plan.digest != body.digest:
            raise ApiError(
                "plan_changed",
                "Nothing was applied: memory (or the consolidator's decisions) changed since "
                "that plan. Ask for a new plan (POST .../dream/plan), review it, and apply "
                "its digest.",
            )
        state = state_of(request)
        try:
            return state.write(
                handle(request, who).apply_dream,
                plan,
                jobs=JOB_LOCKS["apply_dream"],
                tool_call_id=who.tool_call_id,
            )
        except DreamPlanStale as exc:
            raise ApiError("plan_changed", str(exc)) from None

    return router


class DreamPlanOut(BaseModel):
    """A dream plan as the API sends it: its digest (what ``/dream/apply`` takes), the
    decisions, and what it was made on."""

    digest: str
    collection: str | None
    user_id: str | None
    groups: list[tuple[str, str]]
    state: str
    report: DreamReport

    @classmethod
    def of(cls, plan: DreamPlan) -> "DreamPlanOut":
        return cls(
            digest=plan.digest,
            collection=plan.collection,
            user_id=plan.user_id,
            groups=list(plan.groups),
            state=plan.state,
            report=plan.report,
        )


agent_router = make_router(for_operator=False)
operator_router = make_router(for_operator=True)
