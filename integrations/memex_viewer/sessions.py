"""The viewer's session cookie and CSRF tokens, signed with a key derived from the admin secret.

A session cookie (``memex_session``) reads ``<payload>.<signature>``: the payload is
base64url JSON naming the principal (``"operator"``, or ``"agent"`` with the key's id),
an expiry, a random CSRF seed and the principal's session generation at sign-in; the
signature is HMAC-SHA256 of the payload under :func:`signing_key`. The key is derived from
the admin secret, never stored, so several replicas with one secret accept each other's
cookies and a restart keeps sessions, while changing the secret signs everyone out. Signing
out changes the principal's generation in the catalog, which ends its sessions on every
replica (:mod:`memex_viewer.revocation`). The cookie holds no secret: the key's id is
public (``memex keys list`` shows it), and the CSRF seed only matters with the signature.

A form that writes carries ``csrf_token`` = HMAC(key, ``"csrf:" + seed``): a page of
another site cannot read it (the cookie is HttpOnly and the token is only in our pages),
so it cannot forge a POST that passes :func:`csrf_matches`.

Pure functions over bytes and strings: no web framework here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass

COOKIE_NAME = "memex_session"
#: How long a sign-in lasts: a working day, since people keep the viewer open while they work.
SESSION_SECONDS = 12 * 3600
_KEY_LABEL = b"memex-viewer-session-v1"
OPERATOR = "operator"
AGENT = "agent"


@dataclass(frozen=True)
class Session:
    """A checked session: who signed in, until when, and the seed of its CSRF token."""

    kind: str  # OPERATOR or AGENT
    key_id: str | None  # the agent key's id (None for the operator)
    expires: float
    seed: str
    #: The principal's generation when it signed in ("" before its first sign-out): the
    #: session lasts while the catalog holds the same (see memex_viewer.revocation).
    generation: str = ""

    @property
    def operator(self) -> bool:
        return self.kind == OPERATOR


def signing_key(admin_secret: str) -> bytes:
    """The cookie key: derived from the admin secret (HMAC with a fixed label) so that the
    secret itself never signs anything a browser holds."""
    return hmac.new(admin_secret.encode("utf-8"), _KEY_LABEL, hashlib.sha256).digest()


def new_session(
    kind: str, key_id: str | None, *, generation: str = "", now: float | None = None
) -> Session:
    if kind not in (OPERATOR, AGENT) or (kind == AGENT) != (key_id is not None):
        raise ValueError(f"a session is the operator's or an agent key's, not {kind!r}")
    start = time.time() if now is None else now
    seed = secrets.token_urlsafe(16)
    return Session(kind, key_id, start + SESSION_SECONDS, seed, generation)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(key: bytes, payload: str) -> str:
    return _b64(hmac.new(key, payload.encode("ascii"), hashlib.sha256).digest())


def encode(session: Session, key: bytes) -> str:
    """The cookie value of ``session``."""
    body = {
        "p": session.kind,
        "k": session.key_id,
        "e": int(session.expires),
        "n": session.seed,
        "g": session.generation,
    }
    payload = _b64(json.dumps(body, separators=(",", ":")).encode("utf-8"))
    return f"{payload}.{_sign(key, payload)}"


def decode(value: str | None, key: bytes, *, now: float | None = None) -> Session | None:
    """The session a cookie holds, or None if it is missing, forged, malformed or expired."""
    if not value or value.count(".") != 1 or len(value) > 1024:
        return None
    payload, signature = value.split(".")
    try:
        expected = _sign(key, payload)
    except UnicodeEncodeError:
        return None
    if not hmac.compare_digest(expected, signature):
        return None
    try:
        body = json.loads(_unb64(payload))
        # "g" is missing from cookies made before sessions could be ended: generation "".
        generation = body.get("g", "")
        session = Session(
            str(body["p"]), body["k"], float(body["e"]), str(body["n"]), str(generation)
        )
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error):
        return None
    if session.kind not in (OPERATOR, AGENT) or (session.kind == AGENT) != isinstance(
        session.key_id, str
    ):
        return None
    if session.expires <= (time.time() if now is None else now):
        return None
    return session


def csrf_token(session: Session, key: bytes) -> str:
    """The token every writing form of this session carries."""
    return _sign(key, "csrf:" + session.seed)


def csrf_matches(session: Session, key: bytes, given: str | None) -> bool:
    if not given:
        return False
    try:
        return hmac.compare_digest(csrf_token(session, key), given)
    except TypeError:  # non-ASCII text in the field
        return False
