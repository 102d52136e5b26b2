"""Operator routes beyond memory: revisions, purge, the access log, agent keys, ingest of an
uploaded export, corpus counts. The operator secret only; an agent key gets 403."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel

from memex_core.domain.agent_keys import AgentKey
from memex_core.domain.memory.receipts import PurgeReceipt
from memex_core.domain.memory.records import AccessEntry, Revision
from memex_core.domain.results import CorpusStats, IngestReport
from memex_server.auth import Caller, operator, state_of
from memex_server.errors import ApiError
from memex_server.memory_json import MemoryRecordOut, as_json
from memex_server.requests import (
    AccessLogRequest,
    KeyCreateRequest,
    KeyRevokeRequest,
    PurgeRequest,
    RefRequest,
    RestoreRequest,
)
from memex_server.uploads import receive_upload, uploads_folder

router = APIRouter(prefix="/v1/admin", tags=["operator"])
Operator = Annotated[Caller, Depends(operator)]

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
#: The longest upload name kept: stored as ``<16 hex digits>-<name>``, which must stay under
#: the 255 bytes most file systems allow in a name.
MAX_FILENAME = 200


@router.post("/memory/history", response_model=list[Revision], summary="Every revision")
def history(request: Request, body: RefRequest, who: Operator) -> list[Revision]:
    state = state_of(request)
    handle = state.operator_memory(who)
    return state.call(handle.history, body.ref, tool_call_id=who.tool_call_id)


@router.post("/memory/restore", response_model=MemoryRecordOut, summary="Make a revision current")
def restore(request: Request, body: RestoreRequest, who: Operator) -> Any:
    """The record as the memory routes answer it (with its validity: a restore also
    reopens a fact that was closed by mistake)."""
    state = state_of(request)
    handle = state.operator_memory(who)
    record = state.write(handle.restore, body.ref, body.revision, tool_call_id=who.tool_call_id)
    return as_json(record)


@router.post("/memory/purge", summary="Hard-delete memories (cannot be undone)")
def purge(request: Request, body: PurgeRequest, who: Operator) -> dict[str, Any]:
    """Either ``memory_ids`` or ``user_id`` (all of that user's memory). Answers the
    purge's receipt: ``purged`` (how many memories lost every revision, fragment, vector
    and link), ``rows_removed`` per catalog table, ``keyword_entries_removed``,
    ``vectors_removed``, ``log_entries_blanked``, and the counts ``before`` and ``after``.
    The access log keeps that it happened."""
    state = state_of(request)
    handle = state.operator_memory(who)
    receipt: PurgeReceipt = state.write(
        handle.purge_receipt,
        memory_ids=body.memory_ids,
        user_id=body.user_id,
        confirm=body.confirm,
        tool_call_id=who.tool_call_id,
    )
    return receipt.to_dict()


@router.post("/access-log", response_model=list[AccessEntry], summary="The access log")
def access_log(request: Request, body: AccessLogRequest, who: Operator) -> list[AccessEntry]:
    state = state_of(request)
    handle = state.operator_memory(who)
    return state.call(handle.access_log, **body.model_dump(exclude_none=True))


# -- agent keys --------------------------------------------------------------------------------


@router.post("/keys", summary="Create an agent key (its text is in this response only)")
def create_key(request: Request, body: KeyCreateRequest, who: Operator) -> dict[str, Any]:
    """The key's text in ``key`` (``mxk_...``, shown only in this response; memex keeps a
    salted hash), ``user`` and ``name``, then every field of an AgentKey."""
    state = state_of(request)
    key, token = state.call(
        state.keys.create, body.user, name=body.name, collection=body.collection, corpus=body.corpus
    )
    return {"key": token, "user": key.user_id, "name": key.name, **key.to_dict()}


class KeyInfo(BaseModel):
    """An agent key as the operator sees it: never its secret, only what it reaches."""

    id: str
    name: str
    user_id: str
    collection: str
    corpus: bool
    created_at: float
    revoked_at: float | None
    last_used_at: float | None
    active: bool  # not revoked

    @classmethod
    def of(cls, key: AgentKey) -> KeyInfo:
        return cls(**key.to_dict())


@router.get("/keys", response_model=list[KeyInfo], summary="Agent keys (never their secrets)")
def list_keys(request: Request, who: Operator, include_revoked: bool = False) -> list[KeyInfo]:
    state = state_of(request)
    return [KeyInfo.of(k) for k in state.call(state.keys.list, include_revoked=include_revoked)]


@router.post("/keys/revoke", response_model=KeyInfo, summary="Revoke a key, effective at once")
def revoke_key(request: Request, body: KeyRevokeRequest, who: Operator) -> KeyInfo:
    state = state_of(request)
    return KeyInfo.of(state.call(state.keys.revoke, body.key))


# -- corpus ------------------------------------------------------------------------------------


@router.get("/stats", response_model=CorpusStats, summary="Counts of what the home holds")
def stats(request: Request, who: Operator) -> CorpusStats:
    state = state_of(request)
    return state.call(state.memex.stats)


@router.post(
    "/ingest",
    response_model=IngestReport,
    summary="Ingest an uploaded export (the request body is the file)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
        }
    },
)
async def ingest(
    request: Request,
    who: Operator,
    filename: Annotated[
        str,
        Query(
            description="The file's name: it tells memex its format "
            "(conversations.json, export.zip, session.jsonl)."
        ),
    ],
) -> IngestReport:
    """The body is kept under ``<home>/uploads/``, named by its content, and ingested as
    ``memex ingest`` would: the same export sent again is reported unchanged, a newer one
    adds what is new."""
    from starlette.concurrency import run_in_threadpool

    state = state_of(request)
    name = _upload_name(filename)
    target = await receive_upload(
        request,
        uploads_folder(state.memex.home),
        name,
        "The upload is empty: send the export file as the body.",
    )
    return await run_in_threadpool(_ingest_apart, state.memex, target)


def _upload_name(filename: str) -> str:
    """The name an upload is kept under (its characters made safe), checked before the
    body is read: a name too long to store would fail only once the body was written."""
    name = _SAFE_NAME.sub("_", Path(filename).name).strip("._") or "upload"
    if len(name) > MAX_FILENAME:
        raise ApiError(
            "invalid_request",
            f"filename is {len(name):,} characters long; send at most {MAX_FILENAME} (only "
            "its ending matters: it tells memex the format, as in conversations.json, "
            "export.zip or session.jsonl).",
        )
    return name


def _ingest_apart(memex: Any, path: Path) -> IngestReport:
    """Ingest with a Memex of its own on the same home, so searches go on meanwhile: the
    write lock keeps writers apart, and the serving Memex loads the flushed index."""
    from memex_core.api import Memex

    with Memex(memex.home, registry=memex.registry, config=memex.config) as own:
        report: IngestReport = own.ingest(path)
    return report
