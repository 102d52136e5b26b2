"""Who is calling: an agent key (one user's memory) or the operator secret (everything).

Every ``/v1`` route depends on :func:`caller`. A request without credentials is
refused with 401 before any handler runs; a client address that sent too many wrong
ones gets 429 ``too_many_failures`` (see :mod:`memex_server.throttle`); an agent key on
an operator route gets 403; the operator may act as one user on the agent routes by
naming them in the ``Memex-User`` header (as ``mx.operator().agent(user)`` does). The key
is looked up in the catalog on every request, so a revoked key stops working at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from memex_core.domain.agent_keys import AgentKey, looks_like_key
from memex_core.errors import MemexError
from memex_core.secret_files import secret_matches
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


@dataclass(frozen=True)
class Caller:
    """The credentials of one request, checked."""

    operator: bool
    name: str  # the key's name (or "operator"): the actor in the access log
    user_id: str | None = None  # the user an agent acts for; None for the operator
    collection: str = ""
    corpus: bool = True
    key_id: str | None = None
    tool_call_id: str | None = None

    @classmethod
    def of_key(cls, key: AgentKey, tool_call_id: str | None = None) -> Caller:
        """The caller an agent key makes: its user, collection bound and corpus access."""
        return cls(
            operator=False,
            name=key.name,
            user_id=key.user_id,
            collection=key.collection,
            corpus=key.corpus,
            key_id=key.id,
            tool_call_id=tool_call_id,
        )

    def describe(self) -> dict[str, object]:
        return {
            "kind": "operator" if self.operator else "agent",
            "name": self.name,
            "user_id": self.user_id,
            "collection": self.collection,
            "corpus": self.corpus,
            "key_id": self.key_id,
        }


def state_of(request: Request) -> ServerState:
    state: ServerState = request.app.state.memex
    return state


def caller(
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
    tool_call_id = request.headers.get(TOOL_CALL_HEADER) or None
    state = state_of(request)
    # Refused before the credential is looked at: a guesser's next try tells it nothing.
    failures: FailedAuth = request.app.state.failed_auth
    address = request.client.host if request.client else None
    wait = failures.wait(address)
    if wait:
        raise ApiError(
            "too_many_failures",
            f"Too many wrong credentials from this address: try again in {wait} s. "
            "Each address may send a few wrong ones within a window ([serve] auth_failures "
            "and auth_window_s).",
            retry_after=wait,
        )
    if looks_like_key(token):
        from memex_core.threads import reading

        # A lookup and a hash (and now and then a last-used write): alongside searches.
        with reading(state.memex):
            key = state.keys.verify(token)
            revoked = key is None and state.keys.revoked(token)
        if key is None:
            if not revoked:
                failures.failed(address)
            raise ApiError(
                "invalid_credentials",
                "This agent key is unknown or revoked. Ask the operator for a new one "
                "(memex keys create).",
            )
        return Caller.of_key(key, tool_call_id)
    if secret_matches(state.admin_secret, token):
        return Caller(operator=True, name=OPERATOR_NAME, tool_call_id=tool_call_id)
    failures.failed(address)
    raise ApiError(
        "invalid_credentials",
        "These credentials are neither a live agent key nor the operator secret.",
    )


# agent, operator and reader never block (caller's key lookup does, and stays a plain def,
# run in the thread pool), so they are async: FastAPI runs them on the event loop instead
# of a thread-pool round trip each, which under load cost milliseconds per request.


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
