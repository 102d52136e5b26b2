"""``/``: the search page. One box, the dig/keyword/semantic switch and the filters; each hit
with its title, source, time, a snippet with the query's words marked, and why it ranked.

It searches exactly as ``POST /v1/search`` does for the same credential: the principal's
reader from ServerState (an agent key's view of its user, or the whole home for the
operator), the query embedded before memex's call lock is taken, and refused the same way
(a 503 page instead of results) while this replica's keyword index lags a shared catalog.
When nothing matches, the reader's ``explain_empty`` says why, in the CLI's words for the
session's reach (:mod:`memex_core.services.guidance`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from memex_core.domain.disclosure import query_terms, why_matched
from memex_core.domain.results import KEYWORD, SEMANTIC
from memex_core.errors import MemexError
from memex_server.auth import state_of
from memex_server.errors import ReplicaBehind
from memex_viewer.highlight import marked_snippet
from memex_viewer.params import bounded
from memex_viewer.principal import SignedIn, Viewer
from memex_viewer.rendering import render
from memex_viewer.titles import title_of

if TYPE_CHECKING:
    from memex_core.domain.results import SearchResult
    from memex_core.services.search import SearchResults
    from memex_server.state import ServerState

router = APIRouter(include_in_schema=False)

#: The page's names for the modes (as the CLI's commands: dig, keyword, semantic).
MODES = {"dig": "hybrid", "keyword": "keyword", "semantic": "semantic"}
FILTERS = ("source", "conversation", "role", "since", "until", "tag", "collection")
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_QUERY = 2000
#: What a page that refused a search because this replica is behind asks the browser to
#: wait, in seconds (the API's replica_behind sends the same).
RETRY_AFTER_S = 1


@dataclass(frozen=True)
class Hit:
    """One search result as the page shows it."""

    id: str
    title: str
    source: str
    role: str
    timestamp: float | None
    snippet: Markup
    keyword_rank: int | None
    semantic_rank: int | None
    similarity: float | None
    score: float
    evidence: str | None
    why: str
    conversation_id: str


def hit_of(result: SearchResult, query: str) -> Hit:
    fragment = result.fragment
    return Hit(
        id=fragment.id,
        title=title_of(fragment),
        source=fragment.source_kind,
        role=fragment.role,
        timestamp=fragment.timestamp,
        snippet=marked_snippet(fragment.content, query),
        keyword_rank=result.ranks.get(KEYWORD),
        semantic_rank=result.ranks.get(SEMANTIC),
        similarity=result.scores.get(SEMANTIC),
        score=result.score,
        evidence=result.evidence,
        why=why_matched(result, query_terms(query)),
        conversation_id=fragment.conversation_id,
    )


#: Filters that take several values, written with commas ("chatgpt, obsidian"), as the CLI
#: takes its flag again (--source chatgpt --source obsidian).
LISTS = ("source", "conversation", "role", "tag")


def listed(name: str, value: str | None) -> str | list[str] | None:
    """A filter's value as the search takes it: a list for several comma-separated ones."""
    if value is None or name not in LISTS or "," not in value:
        return value
    return [part.strip() for part in value.split(",") if part.strip()]


def page_note(note: str) -> str:
    """A results note in the page's words (the CLI's flag becomes the page's switch)."""
    return note.replace(
        "turn off with --no-time-phrases", "untick 'Read time phrases' to turn this off"
    )


def _search(
    state: ServerState,
    viewer: Viewer,
    query: str,
    mode: str,
    limit: int,
    time_phrases: bool,
    filters: dict[str, str],
) -> SearchResults:
    options: dict[str, Any] = {k: listed(k, v) for k, v in filters.items() if k != "collection"}
    view = state.reader(viewer.caller)
    prepared = state.prepared_query(
        query,
        mode,
        time_phrases=time_phrases,
        time_filtered="since" in options or "until" in options,
    )
    with prepared:
        # As POST /v1/search: refused while this replica's keyword index lags the catalog.
        return state.fresh_call(
            view.search,
            query,
            mode,
            limit,
            collection=filters.get("collection"),
            time_phrases=time_phrases,
            **options,
        )


def empty_guidance(
    state: ServerState,
    viewer: Viewer,
    query: str,
    mode: str,
    filters: dict[str, str],
    found: SearchResults,
) -> list[str]:
    """What the CLI says when nothing matched, for this session's reach: the principal's
    reader builds it (``explain_empty``), so the operator gets the whole home's counts
    (or a memory collection's) and an agent session counts and probes only what its key
    may read."""
    options: dict[str, Any] = {k: listed(k, v) for k, v in filters.items() if k != "collection"}
    view = state.reader(viewer.caller)
    lines: list[str] = state.call(
        view.explain_empty, query, mode, found, collection=filters.get("collection"), **options
    )
    return lines


@router.get("/")
def search_page(
    request: Request,
    viewer: SignedIn,
    q: str = "",
    mode: str = "dig",
    source: str = "",
    conversation: str = "",
    role: str = "",
    since: str = "",
    until: str = "",
    tag: str = "",
    collection: str = "",
    time_phrases: str = "",
    limit: str = "",
    searched: str = "",
) -> Response:
    state = state_of(request)
    mode_name = mode if mode in MODES else "dig"
    raw = {
        "source": source,
        "conversation": conversation,
        "role": role,
        "since": since,
        "until": until,
        "tag": tag,
        "collection": collection,
    }
    filters = {k: v.strip() for k, v in raw.items() if v.strip()}
    # The box starts ticked; once a search was sent, an unticked box arrives as nothing.
    reading = bool(time_phrases) or not searched
    count = bounded(limit, DEFAULT_LIMIT, 1, MAX_LIMIT)
    query = q.strip()[:MAX_QUERY]
    context: dict[str, Any] = {
        "q": q,
        "mode": mode_name,
        "filters": raw,
        "time_phrases": reading,
        "limit": count,
        "hits": [],
        "notes": [],
        "guidance": [],
        "error": None,
        "searched": bool(query),
        "behind": None,
    }
    status = 200
    if query:
        try:
            found = _search(state, viewer, query, MODES[mode_name], count, reading, filters)
            context["hits"] = [hit_of(r, query) for r in found]
            context["notes"] = [page_note(n) for n in found.notes]
            if not len(found):
                context["guidance"] = empty_guidance(
                    state, viewer, query, MODES[mode_name], filters, found
                )
        except ReplicaBehind as behind:
            return catching_up(request, viewer, context, behind)
        except (MemexError, ValueError) as exc:
            context["error"] = str(exc)
            status = 422
    return render(request, "search.html", viewer, status=status, **context)


def catching_up(
    request: Request, viewer: Viewer, context: dict[str, Any], behind: ReplicaBehind
) -> Response:
    """The search page, its form kept, saying this replica is behind the catalog (503, as
    the API's ``replica_behind``) instead of results that may miss the newest writes."""
    changes = f"{behind.entries:,} change{'' if behind.entries == 1 else 's'}"
    context["behind"] = (
        f"This server is catching up: its index is {changes} behind the shared catalog, "
        "so it shows no results that could miss them. Retry in a moment (press Search "
        "again), or use another server of this memory."
    )
    context["searched"] = False
    response = render(request, "search.html", viewer, status=503, **context)
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response
