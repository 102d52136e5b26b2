"""Isolation matrix, family 6: operator and agent. An agent made by the operator is still
scoped; operator-only methods and routes are out of an agent's reach; no credential names
a crafted user; a user whose id looks like bob's sees none of his memory; keys with a bound
(a collection, no corpus) stay inside it, and a revoked key fails at once."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from memex_client.errors import MemexClientError
from memex_core.domain.memory.paths import InvalidUserId
from memex_core.errors import MemexError
from memex_server.routes import admin as admin_routes
from memex_server.routes import archives as archive_routes
from memex_server.routes import memory as memory_routes
from tests.isolation.surface_http import ACME_BOT, MEMORY_ONLY_BOT, Http
from tests.isolation.surfaces import (
    AGENTS_FOR_ANY_USER,
    HANDLE,
    OTHER_USERS,
    RAW_HTTP,
    InProcess,
    Surface,
    on,
)
from tests.isolation.world import (
    AGENT_ROUTES,
    ALICE,
    ALICE_BOT,
    ALICE_OWNER,
    READABLE,
    UNKNOWN_FRAGMENT,
    UNKNOWN_ID,
)
from tests.support.memory_attacks import (
    BOB_CANARY,
    BOB_HIDDEN,
    CORPUS_CANARY,
    ID_OPERATIONS,
    INVALID_USER_IDS,
    LOOKALIKE_USERS,
    OPERATOR_ONLY_METHODS,
    SEARCH_MODES,
)
from tests.support.server_fixtures import Raw, assert_clean_response, error_of

CORPUS_OWNER = ""


@on(HANDLE)
def test_an_agent_made_by_the_operator_is_still_scoped(surface: Surface) -> None:
    """In process ``mx.operator().agent("alice")``; over HTTP the operator acting for alice
    (Memex-User): alice's scope, not the operator's."""
    if isinstance(surface, InProcess):
        alice: Any = surface.mx.operator().agent(ALICE, name=ALICE_BOT)
        assert (alice.scope.readable, alice.scope.writable) == (READABLE, (ALICE_OWNER,))
    else:
        assert isinstance(surface, Http)
        alice = surface.op.operator().agent(ALICE)
    for ref in ("users/bob/secret.md", surface.ids["bob_file"], "user/../users/bob/secret.md"):
        result = surface.attempt(alice, "get", ref)
        assert isinstance(result, MemexError), result
        if isinstance(surface, Http):
            assert isinstance(result, MemexClientError) and result.status in (404, 422), result
    surface.assert_hits_confined(alice.search(BOB_CANARY, limit=50))
    listed = alice.list(include_deleted=True, limit=1000)
    assert listed and not {m.id for m in listed} & surface.foreign_ids()
    surface.assert_reveals_nothing(listed, own_content=True)
    assert isinstance(surface.attempt(alice, "write", "users/bob/secret.md"), MemexError)
    if isinstance(surface, Http):
        view = surface.op.view(ALICE).search(f"{BOB_CANARY} oolong therapist", limit=50)
        assert all(r.fragment.owner in (*READABLE, CORPUS_OWNER) for r in view)


@on(AGENTS_FOR_ANY_USER)
@pytest.mark.parametrize("user_id", LOOKALIKE_USERS)
def test_a_user_whose_id_looks_like_bobs_sees_none_of_his_memory(
    surface: Any, user_id: str
) -> None:
    bob_ids = {i for i, owner in surface.owners().items() if owner == "users/bob"}
    refs = ("user/secret.md", surface.ids["bob_file"], surface.ids["bob_fact"])
    if surface.name == "mcp":  # a server started with --user <lookalike>
        for mode in SEARCH_MODES:
            hits = surface.memory_search(
                f"{BOB_CANARY} {BOB_HIDDEN} oolong",
                mode=mode,
                limit=50,
                user=user_id,
                name="lookalike",
            )
            assert not {h.memory_id for h in hits} & bob_ids
            assert all(BOB_HIDDEN not in h.text for h in hits)
        for ref in refs[1:]:
            got = surface.call("get", {"ids": [ref]}, user=user_id, name="lookalike")
            assert got.is_error and BOB_HIDDEN not in got.text, got
        return
    made = None
    if isinstance(surface, Http):
        made = surface.op.create_key(user_id, name=f"lookalike-{user_id}", corpus=False)
        client = surface.key_client(made["key"])
        other: Any = client.agent()
    else:
        other = surface.mx.agent(user_id, name="lookalike")
    try:
        for mode in SEARCH_MODES:
            hits = other.search(f"{BOB_CANARY} {BOB_HIDDEN} oolong", mode=mode, limit=50)
            assert not {h.memory_id for h in hits} & bob_ids
            assert all(BOB_HIDDEN not in h.text for h in hits)
        assert not {m.id for m in other.list(include_deleted=True, limit=1000)} & bob_ids
        for ref in refs:
            assert surface.is_not_found(surface.attempt(other, "get", ref))
        if made is not None:
            found = client.view().search(f"{BOB_CANARY} oolong therapist", limit=50)
            assert all(r.fragment.owner in (f"users/{user_id}", "shared") for r in found)
    finally:
        if made is not None:
            surface.op.revoke_key(made["id"])


@on(AGENTS_FOR_ANY_USER)
@pytest.mark.parametrize("user_id", INVALID_USER_IDS)
def test_an_agent_cannot_be_bound_to_a_crafted_user_id(surface: Any, user_id: str) -> None:
    """In process: mx.agent and the operator's agent; over HTTP: the operator acting as a
    crafted user (Memex-User) and keys made for one (422); MCP: a server's scope."""
    if isinstance(surface, InProcess):
        with pytest.raises(InvalidUserId):
            surface.mx.agent(user_id)
        with pytest.raises(InvalidUserId):
            surface.mx.operator().agent(user_id)
    elif isinstance(surface, Http):
        op = surface.op_raw
        if user_id and user_id == user_id.strip() and "\x00" not in user_id:
            header = {"Memex-User": user_id.encode("utf-8")}  # bytes: httpx sends non-ASCII
            response = op.post("/v1/memory/search", {"query": "tea"}, headers=header)
            assert error_of(response)[:2] == (422, "invalid_request"), response.text
        # (a header value cannot carry the others as given; the key route gets them all)
        status, code, message = error_of(op.post("/v1/admin/keys", {"user": user_id, "name": "x"}))
        assert (status, code) == (422, "invalid_request"), message
        assert surface.rows("SELECT COUNT(*) FROM agent_keys WHERE name = 'x'") == [(0,)]
    else:
        from memex_mcp.scope import ServerScope

        with pytest.raises(MemexError):
            ServerScope(user=user_id)


@on(OTHER_USERS)
@pytest.mark.parametrize("method", OPERATOR_ONLY_METHODS)
@pytest.mark.parametrize("made_by", ["memex", "operator"])
def test_operator_only_methods_are_not_on_agents(
    surface: InProcess, made_by: str, method: str
) -> None:
    maker = surface.mx if made_by == "memex" else surface.mx.operator()
    alice = maker.agent(ALICE)
    assert not hasattr(alice, method)
    before = surface.foreign_state()
    with pytest.raises(AttributeError):
        getattr(alice, method)(user_id="bob", confirm="bob")
    assert surface.foreign_state() == before


def _admin_routes() -> list[Any]:
    archives = [r for r in archive_routes.router.routes if "/admin/" in getattr(r, "path", "")]
    routes = [*admin_routes.router.routes, *memory_routes.operator_router.routes, *archives]
    out = []
    for route in routes:
        for method in sorted(getattr(route, "methods", ())):
            path = route.path  # type: ignore[attr-defined]
            out.append(pytest.param(method, path, id=f"{method}-{path}"))
    return out


ADMIN_BODY = {"user_id": "bob", "ref": "users/bob/secret.md", "confirm": "bob"}


@on(RAW_HTTP)
@pytest.mark.parametrize("key", [ALICE_BOT, ACME_BOT, MEMORY_ONLY_BOT])
@pytest.mark.parametrize(("method", "path"), _admin_routes())
def test_an_agent_key_never_reaches_an_operator_route(
    surface: Http, method: str, path: str, key: str
) -> None:
    before, rows = surface.foreign_state(), len(surface.memory_rows())
    keys_before = surface.rows("SELECT id, revoked_at FROM agent_keys ORDER BY id")
    raw = surface.raw(key)
    options: dict[str, Any] = {"params": {"filename": "conversations.json", "user_id": "bob"}}
    if method == "POST":
        options["json"] = ADMIN_BODY
    for headers in ({}, {"Memex-User": "bob"}):
        response = raw.request(method, path, headers=headers, **options)
        status, code, _message = error_of(response)
        assert status == 403 and code in ("operator_only", "forbidden"), (status, code)
        surface.assert_reveals_nothing(response)
    assert (surface.foreign_state(), len(surface.memory_rows())) == (before, rows)
    assert surface.rows("SELECT id, revoked_at FROM agent_keys ORDER BY id") == keys_before


@on(RAW_HTTP)
def test_every_admin_route_in_the_schema_refuses_an_agent_key(surface: Http) -> None:
    """Read from the live /openapi.json, so an admin route added anywhere is covered."""
    schema = assert_clean_response(surface.op_raw.get("/openapi.json"))
    admin = [
        (method.upper(), path)
        for path, item in schema["paths"].items()
        if path.startswith("/v1/admin")
        for method in item
    ]
    assert len(admin) >= 15
    tested = {(p.values[0], p.values[1]) for p in _admin_routes()}
    assert set(admin) <= tested, set(admin) - tested
    raw = surface.raw()
    for method, path in admin:
        response = raw.request(method, path, params={"filename": "x.json"}, json=ADMIN_BODY)
        assert error_of(response)[:2] == (403, "operator_only"), (method, path)


@on(RAW_HTTP)
def test_a_revoked_key_fails_on_the_very_next_request(surface: Http) -> None:
    made = surface.op.create_key(ALICE, name="short-lived")
    raw = Raw(surface.service.url, made["key"])
    assert assert_clean_response(raw.post("/v1/memory/search", {"query": "tea"})) != []
    surface.op.revoke_key("short-lived")
    for route, body in AGENT_ROUTES.items():
        status, code, message = error_of(raw.post(route, body))
        assert (status, code) == (401, "invalid_credentials"), (route, message)
        assert "memex keys create" in message
    assert error_of(raw.get("/v1/whoami"))[:2] == (401, "invalid_credentials")


@on(RAW_HTTP)
def test_a_key_revoked_from_the_command_line_fails_at_once_on_the_running_server(
    surface: Http,
) -> None:
    made = surface.op.create_key(ALICE, name="cli-revoked")
    raw = Raw(surface.service.url, made["key"])
    assert raw.get("/v1/whoami").status_code == 200
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memex_core",
            "--home",
            str(surface.service.home),
            "keys",
            "revoke",
            made["id"],
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert error_of(raw.get("/v1/whoami"))[:2] == (401, "invalid_credentials")


@on(RAW_HTTP)
def test_a_collection_key_stays_in_its_prefix(surface: Http) -> None:
    acme = surface.alice(ACME_BOT)
    raw = surface.raw(ACME_BOT)
    listed = acme.list(include_deleted=True, limit=1000)
    assert listed and all(m.collection.split(":")[0] == "acme" for m in listed), listed
    assert surface.ids["alice_fact"] not in {m.id for m in listed}
    for mode in SEARCH_MODES:
        for hit in acme.search("tea acme espresso support alice", mode=mode, limit=50):
            assert hit.collection.split(":")[0] == "acme", hit
    outside = surface.ids["alice_fact"]  # alice's own, in collection ""
    for operation in ID_OPERATIONS:
        got = raw.post(f"/v1/memory/{operation}", {"ref": outside})
        want = raw.post(f"/v1/memory/{operation}", {"ref": UNKNOWN_ID})
        assert error_of(got)[:2] == error_of(want)[:2] == (404, "not_found")
        assert error_of(got)[2].replace(outside, "x") == error_of(want)[2].replace(UNKNOWN_ID, "x")
    for route, body in (
        ("/v1/memory/search", {"query": "tea", "collection": "other"}),
        ("/v1/memory/list", {"collection": "other"}),
        ("/v1/memory/dream", {"collection": "other", "dry_run": True}),
        ("/v1/memory/remember", {"text": "Alice outside acme", "collection": "other"}),
        ("/v1/memory/write", {"path": "user/o.md", "content": "x", "collection": "other"}),
        ("/v1/search", {"query": "tea", "collection": "other"}),
        ("/v1/context", {"query": "tea", "collection": "other"}),
    ):
        assert error_of(raw.post(route, body))[:2] == (422, "invalid_request"), route
    assert error_of(raw.post("/v1/memory/write", {"path": "user/notes.md", "content": "x"}))[
        :2
    ] == (403, "forbidden")
    written = acme.remember("Alice files acme invoices", collection="acme:billing")
    [memory_id] = written.memory_ids
    assert surface.owners()[memory_id] == ALICE_OWNER
    view = assert_clean_response(raw.post("/v1/search", {"query": "tea green alice", "limit": 50}))
    for result in view["results"]:
        assert result["fragment"]["collection"].split(":")[0] == "acme", result


@on(RAW_HTTP)
def test_a_collection_key_reads_no_fragment_outside_its_prefix(surface: Http) -> None:
    raw = surface.raw(ACME_BOT)
    outside = surface.fragments_of("alice_fact")
    assert assert_clean_response(raw.post("/v1/fragments", {"ids": outside})) == []
    got = raw.post("/v1/timeline", {"fragment_id": outside[0]})
    assert error_of(got)[:2] == (404, "not_found")


@on(RAW_HTTP)
def test_a_no_corpus_key_sees_no_corpus_fragment(surface: Http) -> None:
    raw = surface.raw(MEMORY_ONLY_BOT)
    corpus = [str(r[0]) for r in surface.rows("SELECT id FROM fragments WHERE owner = ''")]
    assert corpus
    for asked in (True, False):
        for route in ("/v1/search", "/v1/context"):
            query = f"{CORPUS_CANARY} tea launch plans"
            response = raw.post(route, {"query": query, "corpus": asked})
            assert_clean_response(response)
            assert CORPUS_CANARY not in response.text.replace(query, "")
            assert not any(c in response.text for c in corpus)
    assert assert_clean_response(raw.post("/v1/fragments", {"ids": corpus})) == []
    got = raw.post("/v1/timeline", {"fragment_id": corpus[0]})
    want = raw.post("/v1/timeline", {"fragment_id": UNKNOWN_FRAGMENT})
    assert error_of(got)[:2] == error_of(want)[:2] == (404, "not_found")
    # the same key's user still reads the corpus with a corpus key: the control
    full = assert_clean_response(
        surface.raw().post("/v1/search", {"query": CORPUS_CANARY, "mode": "keyword"})
    )
    assert {r["fragment"]["id"] for r in full["results"]} & set(corpus)


@on(RAW_HTTP)
def test_whoami_reports_each_keys_reach(surface: Http) -> None:
    got = {
        name: assert_clean_response(surface.raw(name).get("/v1/whoami"))
        for name in (ALICE_BOT, ACME_BOT, MEMORY_ONLY_BOT)
    }
    assert {g["user_id"] for g in got.values()} == {ALICE}
    assert got[ACME_BOT]["collection"] == "acme"
    assert got[MEMORY_ONLY_BOT]["corpus"] is False
    assert all(g["kind"] == "agent" for g in got.values())
