"""Archives over HTTP (docs/archives.md): the operator exports the whole memex or one user's
part and imports an archive; an agent key exports its own user's memory only.

``GET /v1/admin/export`` and ``POST /v1/admin/import`` take the operator secret (an agent
key gets 403); ``GET /v1/export`` takes an agent key and its user is the key's: the
archive holds that user's memory, every revision and the access-log entries about them,
never another user's or shared memory (a key bound to a collection: that collection's
memory, without the log, which is kept per user). An export is written under
``<home>/uploads/`` first and streamed from there, then deleted; an upload is received
to disk as it streams in, under the same ``--max-upload`` limit as ``/v1/admin/ingest``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse
from starlette.background import BackgroundTask

from memex_core.services.archive_format import ArchiveError
from memex_server.auth import Caller, agent, operator, state_of
from memex_server.errors import ApiError
from memex_server.state import ServerState
from memex_server.uploads import export_file, receive_upload, uploads_folder

router = APIRouter(tags=["archives"])
Operator = Annotated[Caller, Depends(operator)]
Agent = Annotated[Caller, Depends(agent)]

_ZIP = {"content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}
#: What both export routes answer: the archive, a zip streamed from disk.
_ARCHIVE: dict[str, Any] = {"response_class": FileResponse, "responses": {200: _ZIP}}
_WITH_LOG = Query(description="False: leave the access log out of the archive.")


@router.get(
    "/v1/admin/export",
    summary="Export the memex, or one user's part, as an archive (a zip)",
    **_ARCHIVE,
)
def admin_export(
    request: Request,
    who: Operator,
    user: Annotated[
        str | None,
        Query(description="Only this user's memory, revisions and access-log entries."),
    ] = None,
    collection: Annotated[str | None, Query(description="Only this collection.")] = None,
    source: Annotated[str | None, Query(description="Only this source kind.")] = None,
    since: Annotated[float | None, Query(description="From this time (epoch seconds).")] = None,
    until: Annotated[float | None, Query(description="Up to this time (epoch seconds).")] = None,
    with_log: Annotated[bool, _WITH_LOG] = True,
) -> FileResponse:
    """The archive ``memex export`` writes, with its filters; see docs/archives.md."""
    state = state_of(request)
    filters = {"collection": collection, "source": source, "since": since, "until": until}
    return _export(state, state.operator_memory(who), user, filters, with_log)


@router.get(
    "/v1/export", summary="Export the key's user's memory as an archive (a zip)", **_ARCHIVE
)
def own_export(
    request: Request, who: Agent, with_log: Annotated[bool, _WITH_LOG] = True
) -> FileResponse:
    """Everything held about the key's user: their memory, every revision, and the
    access-log entries about them (a data request's export). Never another user's."""
    state = state_of(request)
    filters = {"collection": who.collection or None}
    return _export(state, state.agent_memory(who), None, filters, with_log)


def _export(
    state: ServerState, handle: Any, user: str | None, filters: dict[str, Any], with_log: bool
) -> FileResponse:
    target = export_file(uploads_folder(state.memex.home))
    try:
        with target.open("wb") as out:
            state.write(handle.export_archive, out, user=user, with_log=with_log, **filters)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    whose = handle.actor.user_id or user or "all"
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return FileResponse(
        target,
        media_type="application/zip",
        filename=f"memex-{whose}-{stamp}.zip",
        background=BackgroundTask(target.unlink, missing_ok=True),
    )


@router.post(
    "/v1/admin/import",
    summary="Import an uploaded archive (the request body is the zip)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}},
        }
    },
)
async def admin_import(
    request: Request,
    who: Operator,
    dry_run: Annotated[bool, Query(description="Say what would change and write nothing.")] = False,
) -> dict[str, Any]:
    """As ``memex import``: rows added per table, conflicts (the home's row kept) and what
    was refused, in one transaction; importing the same archive twice adds nothing. A bad
    archive is refused with one line (400) and the home is left as it was."""
    from starlette.concurrency import run_in_threadpool

    state = state_of(request)
    path = await receive_upload(
        request,
        uploads_folder(state.memex.home),
        "import.zip",
        "The upload is empty: send the archive (memex export's zip) as the body.",
    )
    try:
        handle = state.operator_memory(who)
        report = await run_in_threadpool(state.write, handle.import_archive, path, dry_run=dry_run)
    except ArchiveError as exc:  # named by the server's file for it: say "the upload"
        raise ApiError("invalid_request", str(exc).replace(str(path), "the upload")) from None
    finally:
        Path(path).unlink(missing_ok=True)
    result: dict[str, Any] = report.to_dict()
    result["source"] = "upload"  # not the server's temporary file
    return result
