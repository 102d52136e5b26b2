"""A route's result written as JSON in the request's own worker thread.

A plain-def route runs in FastAPI's thread pool, and FastAPI then validates what it
returned against the route's ``response_model`` in *another* thread-pool round trip
before writing it as JSON. For the routes every agent calls on each turn (search,
context, recall) that round trip is a measurable part of the cost of HTTP, and the
validation finds nothing to check: the value is already the model's type, built by memex.
So those routes return :func:`encoded` instead: the same bytes, written where the result
was made. The route keeps ``response_model`` for the OpenAPI schema; FastAPI passes a
``Response`` through as it is.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import Response
from pydantic import TypeAdapter


@cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def encoded(kind: Any, value: Any) -> Response:
    """``value`` (of type ``kind``, the route's ``response_model``) as the JSON response
    FastAPI would have written for it."""
    return Response(_adapter(kind).dump_json(value, by_alias=True), media_type="application/json")
