"""Who is looking: the signed-in principal of a page request, checked as the API checks it.

A page depends on :func:`signed_in` (or :func:`operator_only`); a form that writes also
on :func:`checked_form`. The principal becomes the same :class:`~memex_server.caller.Caller`
an API request with that credential would be, so pages read through ServerState's own
helpers (``state.reader(caller)``, ``state.agent_memory(caller)``) and an agent session
sees exactly what its key sees through ``/v1``. Every request looks the session's principal
up in the catalog: revoking an agent key, or signing out (:mod:`memex_viewer.revocation`),
ends its sessions at once, on every replica.

A page that cannot go on raises :class:`PageExit` with the response to send instead
(a redirect to sign-in, a 403 page); :func:`memex_viewer.app.mount` installs its handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, NoReturn
from urllib.parse import quote, urlsplit

from fastapi import Depends, Request
from fastapi.responses import RedirectResponse, Response

from memex_server.auth import OPERATOR_NAME, Caller, state_of
from memex_viewer import revocation, sessions
from memex_viewer.viewer import Viewer

if TYPE_CHECKING:
    from starlette.datastructures import FormData

    from memex_server.state import ServerState


class PageExit(Exception):
    """Stop a page and send ``response`` instead."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def cookie_key(state: ServerState) -> bytes:
    return sessions.signing_key(state.admin_secret)


def current(request: Request) -> Viewer | None:
    """The principal of this request's session cookie, or None (no, bad, expired cookie, a
    session ended by signing out, or an agent key that is no longer live)."""
    state = state_of(request)
    key = cookie_key(state)
    session = sessions.decode(request.cookies.get(sessions.COOKIE_NAME), key)
    if session is None:
        return None
    caller = state.call(_caller_of, state.memex.catalog, session)
    if caller is None:
        return None
    return Viewer(caller, session, sessions.csrf_token(session, key))


def _caller_of(catalog: Any, session: sessions.Session) -> Caller | None:
    """Who ``session`` acts as, while it lasts (one look at the catalog, under the call lock)."""
    if not revocation.lasts(catalog, session):
        return None
    if session.operator:
        return Caller(operator=True, name=OPERATOR_NAME)
    assert session.key_id is not None  # sessions.decode guarantees it
    found = catalog.agent_key(session.key_id)
    if found is None or not found[0].active:
        return None
    return Caller.of_key(found[0])


def safe_next(target: str | None) -> str:
    """Where to go after signing in: a path on this site only (never ``//host`` or a URL)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "/"
    return target


def signin_redirect(request: Request) -> RedirectResponse:
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse("/signin?next=" + quote(safe_next(here), safe=""), status_code=303)


def signed_in(request: Request) -> Viewer:
    viewer = current(request)
    if viewer is None:
        raise PageExit(signin_redirect(request))
    return viewer


SignedIn = Annotated[Viewer, Depends(signed_in)]


def operator_only(request: Request, viewer: SignedIn) -> Viewer:
    if not viewer.operator:
        refuse_agent(
            request,
            viewer,
            "This page shows the whole home; an agent key's session reaches only its "
            "user's memory. Sign in with the operator secret to see it.",
        )
    return viewer


def refuse_agent(request: Request, viewer: Viewer, why: str) -> NoReturn:
    """Stop the page with the 403 "For the operator only" page, saying ``why``."""
    from memex_viewer.rendering import error_page

    raise PageExit(error_page(request, viewer, 403, "For the operator only", why))


OperatorOnly = Annotated[Viewer, Depends(operator_only)]


def same_origin(request: Request) -> bool:
    """False when a browser says the POST came from another site (``Origin`` names another
    host). Defence in depth: the CSRF token is what really guards a form."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.headers.get("host", "")


async def checked_form(request: Request, viewer: SignedIn) -> FormData:
    """The form of a POST whose ``csrf_token`` is this session's (403 page otherwise)."""
    form = await request.form()
    token = form.get("csrf_token")
    given = token if isinstance(token, str) else None
    key = cookie_key(state_of(request))
    if not same_origin(request) or not sessions.csrf_matches(viewer.session, key, given):
        from memex_viewer.rendering import error_page

        raise PageExit(
            error_page(
                request,
                viewer,
                403,
                "Form expired or forged",
                "This form did not carry this session's token (it was sent from another "
                "site, or from a page older than your sign-in). Reload the page and try again.",
            )
        )
    return form


CheckedForm = Annotated[Any, Depends(checked_form)]
