"""How the memory pages reach memory: the credential's own handle, through ServerState, with
memex's errors turned into pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, TypeVar

from fastapi import Depends, Request

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain.memory.records import owner_user_id
from memex_core.errors import MemexError, WriteLockedError
from memex_core.handles import MemoryNotFound
from memex_server.auth import state_of
from memex_viewer.principal import PageExit, SignedIn, Viewer
from memex_viewer.rendering import error_page

if TYPE_CHECKING:
    from memex_core.handles import MemoryHandle
    from memex_server.state import ServerState

#: Rows on one page of records or of the access log.
PAGE_SIZE = 50
R = TypeVar("R")


def handle_of(state: ServerState, viewer: Viewer) -> MemoryHandle:
    """The memory handle the API gives this credential."""
    if viewer.operator:
        return state.operator_memory(viewer.caller)
    return state.agent_memory(viewer.caller)


def run(
    request: Request,
    viewer: Viewer,
    fn: Callable[..., R],
    /,
    *args: Any,
    writes: bool = False,
    **kwargs: Any,
) -> R:
    """``fn`` through ServerState (one call into memex at a time; writes wait for the
    home's write lock first), its failures turned into pages: another user's memory is
    answered exactly like a missing one (404), as the API answers it."""
    state = state_of(request)
    try:
        if writes:
            return state.write(fn, *args, **kwargs)
        return state.call(fn, *args, **kwargs)
    except MemoryNotFound:
        raise PageExit(
            error_page(
                request,
                viewer,
                404,
                "No such memory",
                "There is no memory with that id in what this session reaches. "
                "Open one from the Memory page.",
            )
        ) from None
    except MemoryAccessDenied as exc:
        raise PageExit(error_page(request, viewer, 403, "Not allowed", str(exc))) from None
    except WriteLockedError as exc:
        raise PageExit(error_page(request, viewer, 503, "Memory is busy", str(exc))) from None
    except MemexError as exc:
        raise PageExit(error_page(request, viewer, 422, "Cannot do that", str(exc))) from None


class Choice(NamedTuple):
    """The user and collection a memory page shows (None: every user / every collection)."""

    user_id: str | None
    collection: str | None


def choice_of(viewer: Viewer, user: Any, collection: Any) -> Choice:
    """The choice from a query or a form (whose fields may be missing); an agent's session
    has no user to name: its key fixes the user, as on the API."""
    name = collection.strip() if isinstance(collection, str) else ""
    who = user.strip() if isinstance(user, str) and viewer.operator else ""
    return Choice(who or None, name or None)


def _chosen(viewer: SignedIn, user: str = "", collection: str = "") -> Choice:
    return choice_of(viewer, user, collection)


#: A page's ``?user=`` and ``?collection=``, read as :func:`choice_of` reads them.
Chosen = Annotated[Choice, Depends(_chosen)]


def page_offset(value: str) -> int:
    """A page's offset from the query (anything odd is the first page)."""
    try:
        return max(int(value), 0)
    except ValueError:
        return 0


def users_of(request: Request, viewer: Viewer) -> list[str]:
    """The users with memory, for the operator's picker (never asked for an agent)."""
    state = state_of(request)
    owners = state.call(state.memex.catalog.memory_owners)
    return sorted(u for u in (owner_user_id(o) for o in owners) if u)
