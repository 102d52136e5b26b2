"""What the client raises: :class:`MemexClientError` and one subclass per kind of refusal.

Each is also the matching memex error (a 404 is an
:class:`~memex_core.errors.UnknownIdError`, an empty query an
:class:`~memex_core.errors.EmptyQueryError`), so code written against a local
``Memex`` catches the same exceptions from a remote one.
"""

from __future__ import annotations

import re
from typing import Any

from memex_core.errors import (
    AmbiguousIdError,
    EmptyQueryError,
    MemexError,
    UnknownIdError,
    VectorStoreUnavailableError,
)
from memex_core.services.dream import DreamPlanStale


class MemexClientError(MemexError):
    """The service refused or failed a call; ``code`` is its stable error code."""

    def __init__(self, message: str, *, status: int = 0, code: str = "client_error") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class AuthenticationError(MemexClientError):
    """401: no credentials, or a key that is unknown or revoked."""


class TooManyFailuresError(AuthenticationError):
    """429 ``too_many_failures``: this address sent too many wrong credentials lately, so
    the server refuses it, without checking, for the seconds its message gives (and
    ``Retry-After``)."""


class PermissionDeniedError(MemexClientError):
    """403: an agent key on an operator route, or a write outside the key's scope."""


class NotFoundError(MemexClientError, UnknownIdError):
    """404: no such id or path in this scope (another user's looks the same)."""


class AmbiguousError(MemexClientError, AmbiguousIdError):
    """409: an id prefix that names several things."""


class InvalidRequestError(MemexClientError, ValueError):
    """422: the request was refused as given; the message says what to change."""


class EmptyQueryClientError(InvalidRequestError, EmptyQueryError):
    """422 ``empty_query``."""


class PlanChangedError(MemexClientError, DreamPlanStale):
    """409 ``plan_changed``: memory changed since a dream plan was made; nothing was applied."""


class RequestTooLargeError(MemexClientError):
    """413: the body is over the server's limit."""


class ServiceUnavailableError(MemexClientError, VectorStoreUnavailableError):
    """503 (a writer holds the home, the vectors are down) or the service cannot be reached."""


#: The exception for a response: the first rule whose HTTP status or error code matches
#: (so a 409 ``plan_changed`` is a PlanChangedError, any other 409 an AmbiguousError).
_KINDS: tuple[tuple[int | str, type[MemexClientError]], ...] = (
    (401, AuthenticationError),
    (429, TooManyFailuresError),
    (403, PermissionDeniedError),
    (404, NotFoundError),
    ("plan_changed", PlanChangedError),
    (409, AmbiguousError),
    (413, RequestTooLargeError),
    ("empty_query", EmptyQueryClientError),
    (400, InvalidRequestError),
    (422, InvalidRequestError),
    (503, ServiceUnavailableError),
)


def error_for(status: int, payload: Any, fallback: str) -> MemexClientError:
    """The exception for an error response (``payload`` is its decoded JSON, if any)."""
    error = payload.get("error") if isinstance(payload, dict) else None
    code = str(error.get("code", "")) if isinstance(error, dict) else ""
    message = str(error.get("message", "")) if isinstance(error, dict) else ""
    if not message:
        # Not memex's JSON: a proxy in front of it answered (nginx's HTML 413 page, a 502).
        text = " ".join(re.sub(r"<[^>]*>", " ", fallback).split())
        message = (
            f"HTTP {status} without memex's JSON error, so from something in front of memex "
            f"(a reverse proxy?): {text or 'no body'}"
        )
    kind = next((k for key, k in _KINDS if key in (status, code)), MemexClientError)
    return kind(message, status=status, code=code or f"http_{status}")
