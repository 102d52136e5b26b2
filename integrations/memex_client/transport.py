"""HTTP to one ``memex serve``: credentials on every request, JSON in and out, errors as
:mod:`memex_client.errors`."""

from __future__ import annotations

from functools import cache
from typing import Any

import httpx
from pydantic import TypeAdapter

from memex_client.errors import (
    InvalidRequestError,
    MemexClientError,
    ServiceUnavailableError,
    error_for,
)

TOOL_CALL_HEADER = "Memex-Tool-Call-Id"
ACT_AS_HEADER = "Memex-User"


@cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def decode(kind: Any, data: Any) -> Any:
    """``data`` (decoded JSON) as ``kind``: the dataclasses of the Python API, rebuilt."""
    return _adapter(kind).validate_python(data)


def _json_body(body: Any) -> bytes:
    """``body`` as JSON (what httpx would send); NaN and infinities, which JSON has no
    words for, are refused as the caller's mistake rather than a ValueError from httpx."""
    import json

    try:
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:
        raise InvalidRequestError(
            f"This request cannot be sent as JSON ({exc}): give finite numbers (NaN and "
            "infinity are not JSON; leave a time bound out instead of making it infinite).",
            code="invalid_request",
        ) from None
    return text.encode("utf-8")


class Transport:
    def __init__(
        self,
        url: str,
        token: str,
        *,
        timeout: float = 30.0,
        client: httpx.Client | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self._http = client or httpx.Client(timeout=timeout)
        self._headers = {"Authorization": f"Bearer {token}"}

    def close(self) -> None:
        self._http.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        content: Any = None,
        tool_call_id: str | None = None,
        act_as: str | None = None,
        authenticated: bool = True,
    ) -> Any:
        headers = dict(self._headers) if authenticated else {}
        if tool_call_id is not None:
            headers[TOOL_CALL_HEADER] = tool_call_id
        if act_as is not None:
            headers[ACT_AS_HEADER] = act_as
        if content is not None:
            headers["Content-Type"] = "application/octet-stream"
        elif json is not None:
            content, json = _json_body(json), None
            headers["Content-Type"] = "application/json"
        try:
            response = self._http.request(
                method, self.url + path, json=json, params=params, content=content, headers=headers
            )
        except httpx.TransportError as exc:
            raise ServiceUnavailableError(
                f"Cannot reach memex at {self.url} ({type(exc).__name__}: {exc}). Is `memex "
                "serve` running there, and is the URL right?",
                code="unreachable",
            ) from exc
        try:
            payload = response.json()
        except ValueError:
            payload = None
        if response.status_code >= 400:
            raise error_for(response.status_code, payload, response.text[:200])
        if payload is None and response.content:
            raise MemexClientError(
                f"{self.url}{path} answered with something other than JSON: is this a memex "
                "server?",
                status=response.status_code,
                code="not_json",
            )
        return payload

    def post(self, path: str, body: dict[str, Any], **options: Any) -> Any:
        return self.request("POST", path, json=body, **options)

    def get(self, path: str, **options: Any) -> Any:
        return self.request("GET", path, **options)
