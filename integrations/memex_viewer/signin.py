"""``/signin`` and ``/signout``: a session cookie for the operator secret or an agent key.

The credential is checked by :func:`memex_server.auth.checked`, the check every ``/v1``
request goes through, so the viewer accepts exactly what the API accepts. The cookie is
HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it),
Secure when the request came over https, and holds no secret (see
:mod:`memex_viewer.sessions`). Signing out ends every session of the principal on the
server too, in every browser and on every replica (:mod:`memex_viewer.revocation`), so a
copy of the cookie kept elsewhere stops working with it.

The sign-in form writes too (it makes a session), so it carries a CSRF token of its own
before any session exists: ``GET /signin`` sets a random token in a short-lived
HttpOnly, SameSite=Strict cookie and in the form, and ``POST /signin`` requires the
two to match (a page on another site can neither read the form nor send the cookie).
The ``Origin`` check stays as a second line.

Wrong credentials count against the client's address in :func:`memex_server.auth.checked`
(:mod:`memex_server.throttle`), for the form and the API alike: an address over the limit
gets a 429 page that says when to try again, its credential not checked.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from memex_server.auth import checked, state_of
from memex_server.errors import ApiError
from memex_viewer import revocation, sessions
from memex_viewer.principal import (
    CheckedForm,
    SignedIn,
    cookie_key,
    current,
    safe_next,
    same_origin,
)
from memex_viewer.rendering import render

router = APIRouter(include_in_schema=False)

#: The cookie holding the sign-in form's CSRF token (only until the session exists).
SIGNIN_COOKIE = "memex_signin"
SIGNIN_SECONDS = 3600


def _signin_form(
    request: Request,
    *,
    status: int = 200,
    next: str,
    failed: bool,
    retry_after: int | None = None,
) -> Response:
    """The sign-in page with a fresh form token, set in its cookie too; with
    ``retry_after``, the 429 page of an address that sent too many wrong credentials."""
    token = secrets.token_urlsafe(32)
    throttled = None
    if retry_after is not None:
        at = datetime.fromtimestamp(time.time() + retry_after, tz=UTC)
        throttled = {"wait": duration(retry_after), "at": at.strftime("%Y-%m-%d %H:%M:%S UTC")}
    response = render(
        request,
        "signin.html",
        None,
        status=status,
        next=next,
        failed=failed,
        signin_token=token,
        throttled=throttled,
    )
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    response.set_cookie(
        SIGNIN_COOKIE,
        token,
        max_age=SIGNIN_SECONDS,
        path="/signin",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


def duration(seconds: int) -> str:
    """``seconds`` as people read a wait: "45 s", "4 min 10 s", "1 h 2 min"."""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    if minutes:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    return f"{secs} s"


def _token_matches(request: Request, submitted: str) -> bool:
    expected = request.cookies.get(SIGNIN_COOKIE, "")
    return bool(expected) and secrets.compare_digest(expected.encode(), submitted.encode())


@router.get("/signin")
def signin_page(request: Request, next: str = "/") -> Response:
    if current(request) is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return _signin_form(request, next=safe_next(next), failed=False)


@router.post("/signin")
def signin(
    request: Request,
    credential: Annotated[str, Form(max_length=4096)] = "",
    next: Annotated[str, Form(max_length=2048)] = "/",
    signin_token: Annotated[str, Form(max_length=256)] = "",
) -> Response:
    if not same_origin(request) or not _token_matches(request, signin_token):
        return _signin_form(request, status=403, next="/", failed=True)
    token = credential.strip()
    try:
        if not token:
            raise ApiError("missing_credentials", "empty")
        who = checked(request, token)
    except ApiError as exc:
        if exc.code == "too_many_failures":  # the credential was not even checked
            return _signin_form(
                request, status=429, next=safe_next(next), failed=False, retry_after=exc.retry_after
            )
        # One message for every failure: a page must not tell a guesser which part was wrong.
        return _signin_form(request, status=401, next=safe_next(next), failed=True)
    kind = sessions.OPERATOR if who.operator else sessions.AGENT
    state = state_of(request)
    generation = state.call(revocation.generation, state.memex.catalog, kind, who.key_id)
    session = sessions.new_session(kind, who.key_id, generation=generation)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(
        sessions.COOKIE_NAME,
        sessions.encode(session, cookie_key(state)),
        max_age=sessions.SESSION_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    response.delete_cookie(SIGNIN_COOKIE, path="/signin")
    return response


@router.post("/signout")
def signout(request: Request, viewer: SignedIn, form: CheckedForm) -> Response:
    """End the session: the cookie here, and on the server every session of this principal
    (a copy of the cookie, another browser, another replica)."""
    state = state_of(request)
    ended = viewer.session
    state.call(revocation.end_sessions, state.memex.catalog, ended.kind, ended.key_id)
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(
        sessions.COOKIE_NAME,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response
