"""Search and read: the same routes for an agent key (its user's scope) and the operator
(the whole home, or one user's scope with the ``Memex-User`` header)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, Request, Response

from memex_core.domain import Fragment
from memex_core.domain.disclosure import ContextPack, Timeline
from memex_core.domain.search_options import SearchOptions
from memex_core.services.explore import Exploration
from memex_core.services.search import SearchResults
from memex_server.auth import Caller, reader, state_of
from memex_server.encoded import encoded
from memex_server.requests import (
    ContextRequest,
    ExploreRequest,
    GetRequest,
    SearchRequest,
    TimelineRequest,
)

if TYPE_CHECKING:
    from memex_core.agent_view import AgentView
    from memex_core.operator_reader import OperatorReader
    from memex_server.state import ServerState

router = APIRouter(prefix="/v1", tags=["reading"])
Who = Annotated[Caller, Depends(reader)]


@router.get("/whoami", summary="What these credentials reach")
def whoami(request: Request, who: Who) -> dict[str, object]:
    """``kind`` (``"agent"`` or ``"operator"``), ``name`` (the actor in the access log),
    ``user_id`` (null for the operator), ``collection``, ``corpus`` and ``key_id``."""
    return who.describe()


@router.get("/fact-types", summary="The kinds `remember` accepts")
def fact_types(request: Request, who: Who) -> list[str]:
    state = state_of(request)
    names = [t.name for t in state.call(state.memex.fact_types)]
    return names if "misc" in names else [*names, "misc"]


@router.post("/search", response_model=SearchResults, summary="Hybrid, keyword or semantic search")
def search(request: Request, body: SearchRequest, who: Who) -> Response:
    state, view, options = _asked(request, body, who)
    with _prepared(state, options):
        found = state.fresh_call(view.search, options, tool_call_id=who.tool_call_id)
    return encoded(SearchResults, found)


@router.post("/search/explain", response_model=list[str], summary="Why a search found nothing")
def explain(request: Request, body: SearchRequest, who: Who) -> list[str]:
    """The lines ``memex dig``, ``keyword`` and ``semantic`` print when a search finds
    nothing (the fragments searched, their embedding coverage, the filter that removed
    every match, the relevance floor), for what these credentials reach: an agent key's
    are counted and probed within its own scope only. The viewer's search page shows the
    same lines. Runs the search as ``/v1/search`` would; ``[]`` when it finds something."""
    state, view, options = _asked(request, body, who)

    def explained() -> list[str]:
        found = view.search(options, tool_call_id=who.tool_call_id)
        if len(found):
            return []
        return view.explain_empty(
            options.query,
            options.mode,
            found,
            collection=options.collection,
            include_private=options.include_private,
            **options.filter_options(),
        )

    with _prepared(state, options):
        return state.fresh_call(explained)


@router.post("/fragments", response_model=list[Fragment], summary="Fragments by id")
def get(request: Request, body: GetRequest, who: Who) -> list[Fragment]:
    state = state_of(request)
    return state.call(state.reader(who).get, body.ids, tool_call_id=who.tool_call_id)


@router.post("/timeline", response_model=Timeline, summary="The turns around a fragment")
def timeline(request: Request, body: TimelineRequest, who: Who) -> Timeline:
    state = state_of(request)
    return state.call(
        state.reader(who).timeline,
        body.fragment_id,
        body.before,
        body.after,
        tool_call_id=who.tool_call_id,
    )


@router.post("/explore", response_model=Exploration, summary="A note's links and neighbours")
def explore(request: Request, body: ExploreRequest, who: Who) -> Exploration:
    state = state_of(request)
    return state.call(
        state.reader(who).explore, body.note, body.similar, tool_call_id=who.tool_call_id
    )


@router.post("/context", response_model=ContextPack, summary="A context pack within a budget")
def context(request: Request, body: ContextRequest, who: Who) -> Response:
    state, view, options = _asked(request, body, who)
    with _prepared(state, options):
        pack = state.fresh_call(
            view.context, options, body.budget_chars, tool_call_id=who.tool_call_id
        )
    return encoded(ContextPack, pack)


def _asked(
    request: Request, body: SearchRequest | ContextRequest, who: Caller
) -> tuple[ServerState, AgentView | OperatorReader, SearchOptions]:
    """The state, the view these credentials read and the search a body asks for."""
    state = state_of(request)
    return state, state.reader(who, corpus=body.corpus), body.search_options()


def _prepared(state: ServerState, options: SearchOptions) -> Any:
    """The query embedded before the call takes memex's lock (see memex_server.embedding)."""
    return state.prepared_query(
        options.query,
        options.mode,
        time_phrases=options.time_phrases,
        time_filtered=options.since is not None or options.until is not None,
    )
