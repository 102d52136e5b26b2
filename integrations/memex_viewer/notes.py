"""``/notes`` and ``/note/<ref>``: a note of an ingested vault, with where it leads
(outlinks; an unresolved one is marked, since the note it names does not exist), what leads
to it (backlinks, each with the sentence that links) and similar notes it is not linked
with. Every one is a link to its own note page (or, for a backlink, to the timeline of the
fragment that holds the link).

A note page reads through the principal's reader (``explore``), as ``POST /v1/explore``
does: an agent key that may not read the corpus is told so. The index lists the corpus'
notes (``documents`` of a folder source, never memory files) to whoever may explore them:
the operator, and an agent key that reads the corpus without a collection bound.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from memex_core.domain.filters import NAMED_ONLY_SOURCES
from memex_core.domain.memory.records import MEMORY_SOURCE
from memex_core.domain.search_options import make_filters
from memex_core.errors import MemexError, UnknownIdError
from memex_server.auth import state_of
from memex_viewer.principal import SignedIn, Viewer
from memex_viewer.rendering import error_page, render

if TYPE_CHECKING:
    from memex_server.state import ServerState

router = APIRouter(include_in_schema=False)

SIMILAR = 5
INDEX_LIMIT = 500
#: Documents that are no notes: memory files and a repository's code files.
NOT_NOTES = (MEMORY_SOURCE, *NAMED_ONLY_SOURCES)


def may_explore(viewer: Viewer) -> bool:
    """Who ``explore`` answers (see AgentView.explore): the operator, or a key that reads the
    corpus and is not bound to a collection."""
    return viewer.operator or (viewer.caller.corpus and not viewer.caller.collection)


def corpus_notes(state: ServerState, limit: int) -> list[tuple[str, str, str]]:
    """(id, path, title) of the corpus' notes, by path."""
    return state.call(state.memex.catalog.corpus_documents, int(limit))


def tagged_notes(state: ServerState, tag: str, limit: int) -> list[tuple[str, str, str]]:
    """(id, path, title) of the corpus' notes carrying ``tag`` (comma-separated tags: any
    of them) or a tag nested under it, by path. A bad tag raises ``ValueError``."""
    wanted = make_filters(tag=[t for t in tag.split(",") if t.strip()]).tags
    found = state.call(state.memex.catalog.documents_tagged, wanted)
    notes = sorted((d.path, d.id, d.title) for d in found if d.source_kind not in NOT_NOTES)
    return [(doc_id, path, title) for path, doc_id, title in notes[:limit]]


@router.get("/notes")
def notes_index(request: Request, viewer: SignedIn, name: str = "", tag: str = "") -> Response:
    state = state_of(request)
    if name.strip():
        return RedirectResponse("/note/" + quote(name.strip(), safe="/"), status_code=303)
    notes: list[tuple[str, str, str]] = []
    error = None
    if may_explore(viewer):
        try:
            notes = (
                tagged_notes(state, tag, INDEX_LIMIT + 1)
                if tag.strip()
                else corpus_notes(state, INDEX_LIMIT + 1)
            )
        except ValueError as exc:  # an empty tag (say "#")
            error = str(exc)
    return render(
        request,
        "notes.html",
        viewer,
        status=422 if error else 200,
        notes=notes[:INDEX_LIMIT],
        more=len(notes) > INDEX_LIMIT,
        allowed=may_explore(viewer),
        tag=tag.strip(),
        error=error,
    )


@router.get("/note/{ref:path}")
def note_page(request: Request, viewer: SignedIn, ref: str) -> Response:
    state = state_of(request)
    try:
        found = state.call(state.reader(viewer.caller).explore, ref, SIMILAR)
    except UnknownIdError as exc:
        return error_page(request, viewer, 404, "No such note", str(exc))
    except MemexError as exc:
        return error_page(request, viewer, 422, "Cannot show this note", str(exc))
    return render(request, "note.html", viewer, found=found)
