"""``/signin`` and ``/signout``: a session cookie for the operator secret or an agent key.

The credential is checked by :func:`memex_server.auth.caller`, the function every ``/v1``
request goes through, so the viewer accepts exactly what the API accepts. The cookie is
HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it),
Secure when the request came over https, and holds no secret (see
:mod:`memex_viewer.sessions`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.security import HTTPAuthorizationCredentials

from memex_server.auth import caller, state_of
from memex_server.errors import ApiError
from memex_viewer import sessions
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


@router.get("/signin")
def signin_page(request: Request, next: str = "/") -> Response:
    if current(request) is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return render(request, "signin.html", None, next=safe_next(next), failed=False)


@router.post("/signin")
def signin(
    request: Request,
    credential: Annotated[str, Form(max_length=4096)] = "",
    next: Annotated[str, Form(max_length=2048)] = "/",
) -> Response:
    if not same_origin(request):
        return render(request, "signin.html", None, status=403, next="/", failed=True)
    token = credential.strip()
    try:
        if not token:
            raise ApiError("missing_credentials", "empty")
        who = caller(request, HTTPAuthorizationCredentials(scheme="Bearer", credentials=token))
    except ApiError:
        # One message for every failure: a page must not tell a guesser which part was wrong.
        return render(request, "signin.html", None, status=401, next=safe_next(next), failed=True)
    kind = sessions.OPERATOR if who.operator else sessions.AGENT
    session = sessions.new_session(kind, who.key_id)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(
        sessions.COOKIE_NAME,
        sessions.encode(session, cookie_key(state_of(request))),
        max_age=sessions.SESSION_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/signout")
def signout(request: Request, viewer: SignedIn, form: CheckedForm) -> Response:
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(
        sessions.COOKIE_NAME,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response
