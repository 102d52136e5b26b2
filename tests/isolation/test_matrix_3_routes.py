"""Isolation matrix, family 3 over raw HTTP: what the client would never send. Extra fields
naming another user, the Memex-User header, query strings, another user's id in any
field: every agent route refuses or ignores them (the ``http`` surface only)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from memex_server.routes import memory as memory_routes
from tests.isolation.surface_http import MEMORY_ONLY_BOT, Http
from tests.isolation.surfaces import RAW_HTTP, on
from tests.isolation.world import AGENT_ROUTES, ALICE_BOT
from tests.support.memory_attacks import FOREIGN_MEMORIES
from tests.support.server_fixtures import assert_clean_response, error_of

READ_ROUTES = [
    r
    for r in AGENT_ROUTES
    if r.rsplit("/", 1)[1] in ("get", "chain", "list", "search", "links", "fragments", "context")
]
INJECTED_FIELDS = {
    "user_id": "bob",
    "user": "bob",
    "owner": "users/bob",
    "owners": ["users/bob"],
    "scope": {"readable": ["users/bob"]},
    "actor": "operator",
}


def test_every_agent_route_is_in_the_attack_table() -> None:
    """A new agent route must be added to AGENT_ROUTES (and so to every attack below)."""
    from memex_server.routes import reading

    routes = {r.path for r in memory_routes.agent_router.routes} | {  # type: ignore[attr-defined]
        r.path  # type: ignore[attr-defined]
        for r in reading.router.routes
        if "POST" in getattr(r, "methods", ())
    }
    assert routes == set(AGENT_ROUTES)


@on(RAW_HTTP)
@pytest.mark.parametrize("injected", list(INJECTED_FIELDS))
@pytest.mark.parametrize("route", list(AGENT_ROUTES))
def test_an_extra_field_naming_another_user_is_refused(
    surface: Http, route: str, injected: str
) -> None:
    before, rows = surface.foreign_state(), len(surface.memory_rows())
    body = {**AGENT_ROUTES[route], injected: INJECTED_FIELDS[injected]}
    status, code, message = error_of(surface.raw().post(route, body))
    assert (status, code) == (422, "invalid_request"), message
    assert injected in message and "Extra inputs" in message
    assert (surface.foreign_state(), len(surface.memory_rows())) == (before, rows)


@on(RAW_HTTP)
@pytest.mark.parametrize("named", ["bob", "carol", "alice", "users/bob"])
@pytest.mark.parametrize("route", list(AGENT_ROUTES))
def test_an_agent_key_cannot_act_as_anyone_with_memex_user(
    surface: Http, route: str, named: str
) -> None:
    before, rows = surface.foreign_state(), len(surface.memory_rows())
    response = surface.raw().post(route, AGENT_ROUTES[route], headers={"Memex-User": named})
    status, code, message = error_of(response)
    assert (status, code) == (403, "forbidden"), message
    assert "Memex-User" in message
    assert (surface.foreign_state(), len(surface.memory_rows())) == (before, rows)


@on(RAW_HTTP)
@pytest.mark.parametrize("route", READ_ROUTES)
def test_query_string_parameters_change_nothing(surface: Http, route: str) -> None:
    raw = surface.raw()
    body = dict(AGENT_ROUTES[route])
    plain = raw.post(route, body)
    params = {"user_id": "bob", "owner": "users/bob", "collection": "acme:bob", "corpus": "1"}
    bent = raw.post(route, body, params=params)
    assert bent.status_code == plain.status_code
    strip = re.compile(r'"(score|at|created_at|updated_at|timestamp)":[-0-9.e]+')
    assert strip.sub("", bent.text) == strip.sub("", plain.text)
    surface.assert_reveals_nothing(bent, own_content=True, corpus=True)


@on(RAW_HTTP)
@pytest.mark.parametrize(
    "field_route",
    [
        pytest.param(("/v1/search", "conversation"), id="search-conversation-filter"),
        pytest.param(("/v1/context", "conversation"), id="context-conversation-filter"),
        pytest.param(("/v1/memory/search", "query"), id="memory-search-query"),
        pytest.param(("/v1/search", "query"), id="view-search-query"),
        pytest.param(("/v1/memory/list", "collection"), id="list-collection"),
    ],
)
@pytest.mark.parametrize("name", FOREIGN_MEMORIES)
def test_another_users_id_in_any_field_finds_nothing(
    surface: Http, name: str, field_route: tuple[str, str]
) -> None:
    route, field_name = field_route
    ref = surface.ids[name]
    body: dict[str, Any] = {"query": "tea launch plan oolong"} if "search" in route else {}
    if route == "/v1/context":
        body = {"query": "tea launch plan oolong"}
    body[field_name] = ref
    for key in (ALICE_BOT, MEMORY_ONLY_BOT):
        response = surface.raw(key).post(route, body)
        found = assert_clean_response(response)
        if route == "/v1/memory/list" or route == "/v1/memory/search":
            assert found == []
        elif route == "/v1/search":
            if field_name == "conversation":
                assert found["results"] == []
            surface.assert_fragments_confined(
                [r["fragment"] for r in found["results"]], key == ALICE_BOT
            )
        else:
            assert all(item["id"] not in surface.foreign_fragments() for item in found["items"])
        surface.assert_reveals_nothing(response, typed=(ref,), corpus=True)
