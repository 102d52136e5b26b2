"""Who is calling: an agent key (one user's memory) or the operator secret (everything).

Every ``/v1`` route depends on :func:`caller`. A request without credentials is
refused with 401 before any handler runs; a client address that sent too many wrong
ones gets 429 ``too_many_failures`` (see :mod:`memex_server.throttle`); an agent key on
an operator route gets 403; the operator may act as one user on the agent routes by
naming them in the ``Memex-User`` header (as ``mx.operator().agent(user)`` does). The key
is looked up in the catalog on every request, so a revoked key stops working at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from memex_core.domain.agent_keys import AgentKey, looks_like_key
from memex_core.errors import MemexError
from memex_core.secret_files import secret_matches
from memex_server.caller import Caller
from memex_server.errors import ApiError
from memex_server.throttle import FailedAuth

if TYPE_CHECKING:
    from memex_server.state import ServerState

TOOL_CALL_HEADER = "Memex-Tool-Call-Id"
ACT_AS_HEADER = "Memex-User"
OPERATOR_NAME = "operator"

bearer = HTTPBearer(
    auto_error=False,
    description="An agent key (mxk_...) made with `memex keys create`, or the operator "
    "secret (MEMEX_ADMIN_SECRET or <home>/admin-secret).",
)


def state_of(request: Request) -> ServerState:
    state: ServerState = request.app.state.memex
    return state


async def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Caller:
    """The checked credentials of this request (401 if there are none or they are wrong)."""
    if credentials is None:
        raise ApiError(
            "missing_credentials",
            "This route needs credentials: send 'Authorization: Bearer <key>' with an agent "
            "key (memex keys create --user <id> --name <name>) or the operator secret.",
        )
    token = credentials.credentials.strip()
    _refuse_if_throttled(request)
    if not looks_like_key(token):
        return _operator_or_refusal(request, token)
    # A lookup and a hash: on the event loop when that waits for nothing, else (a write in
    # progress, a catalog server, a last-used write due, a wrong key) in a worker thread,
    # alongside searches.
    state = state_of(request)
    key = state.key_at_once(token)
    if key is not None:
        return Caller.of_key(key, _tool_call_id(request))
    return _agent_or_refusal(request, *await run_in_threadpool(state.check_key, token))


def checked(request: Request, token: str) -> Caller:
    """:func:`caller` for a credential that came another way (the viewer's sign-in form),
    from a worker thread: the same limits, the same refusals."""
    token = token.strip()
    _refuse_if_throttled(request)
    if not looks_like_key(token):
        return _operator_or_refusal(request, token)
    return _agent_or_refusal(request, *state_of(request).check_key(token))


def _tool_call_id(request: Request) -> str | None:
    return request.headers.get(TOOL_CALL_HEADER) or None


def _address(request: Request) -> str | None:
    return request.client.host if request.client else None


def _failures(request: Request) -> FailedAuth:
    failures: FailedAuth = request.app.state.failed_auth
    return failures


def _refuse_if_throttled(request: Request) -> None:
    """429 for an address that sent too many wrong credentials lately: refused before the
    credential is looked at, so a guesser's next try tells it nothing."""
    wait = _failures(request).wait(_address(request))
    if wait:
        raise ApiError(
            "too_many_failures",
            f"Too many wrong credentials from this address: try again in {wait} s. "
            "Each address may send a few wrong ones within a window ([serve] auth_failures "
            "and auth_window_s).",
            retry_after=wait,
        )


def _agent_or_refusal(request: Request, key: AgentKey | None, revoked: bool) -> Caller:
    if key is None:
        if not revoked:  # a revoked key is not a guess: not counted against the address
            _failures(request).failed(_address(request))
        raise ApiError(
            "invalid_credentials",
            "This agent key is unknown or revoked. Ask the operator for a new one "
            "(memex keys create).",
        )
    return Caller.of_key(key, _tool_call_id(request))


def _operator_or_refusal(request: Request, token: str) -> Caller:
    if secret_matches(state_of(request).admin_secret, token):
        return Caller(operator=True, name=OPERATOR_NAME, tool_call_id=_tool_call_id(request))
    _failures(request).failed(_address(request))
    raise ApiError(
        "invalid_credentials",
        "These credentials are neither a live agent key nor the operator secret.",
    )


# Every dependency here is async and never blocks (caller hands what may wait to a worker
# thread itself): FastAPI runs a plain-def dependency through the thread pool, a round trip
# per request and dependency that under load cost milliseconds.


async def agent(request: Request, who: Annotated[Caller, Depends(caller)]) -> Caller:
    """An agent key, or the operator acting as the user named in ``Memex-User``."""
    if not who.operator:
        if request.headers.get(ACT_AS_HEADER):
            raise ApiError(
                "forbidden",
                f"An agent key acts for its own user only; leave out the {ACT_AS_HEADER} header.",
            )
        return who
    user = request.headers.get(ACT_AS_HEADER, "")
    if not user:
        raise ApiError(
            "agent_only",
            "This route acts for one user: use an agent key, or as the operator name the "
            f"user in the {ACT_AS_HEADER} header (or use the /v1/admin routes).",
        )
    from memex_core.domain.memory.paths import validate_user_id

    try:
        user = validate_user_id(user)
    except MemexError as exc:
        raise ApiError("invalid_request", f"{ACT_AS_HEADER}: {exc}") from None
    return Caller(operator=False, name=who.name, user_id=user, tool_call_id=who.tool_call_id)


async def operator(who: Annotated[Caller, Depends(caller)]) -> Caller:
    """The operator secret only: agent keys get 403."""
    if not who.operator:
        raise ApiError(
            "operator_only",
            "This route is for the operator (the admin secret); an agent key cannot use it.",
        )
    return who


async def reader(request: Request, who: Annotated[Caller, Depends(caller)]) -> Caller:
    """Either credential: agents read their scope, the operator everything (or one user's
    scope, named in ``Memex-User``)."""
    if who.operator and not request.headers.get(ACT_AS_HEADER):
        return who
    return await agent(request, who)
