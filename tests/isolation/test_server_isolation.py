"""Agent-memory isolation through ``memex serve``: alice's agent key against bob's memory.

The home is ``tests/isolation/test_memory_isolation.py``'s (bob's and carol's memories with their
canaries, the operator's corpus fragment), served by a real ``memex serve`` subprocess.
The same attack families run through HTTP: with alice's key via the Python client
(``RemoteAgentMemory``, ``RemoteView``) and with raw bodies that try what the client would
never send (extra fields, another user's ids in every field, the ``Memex-User`` header,
query strings). What must hold:

* nothing of bob's, carol's (or, for a ``--no-corpus`` key, the corpus') comes back in
  any response body, result or error;
* the catalog is unchanged outside ``users/alice/`` (read from the test process);
* another user's id fails exactly like an unknown id: same status, code and message;
* every attempt is in the access log with its outcome, and none of alice's entries
  carries bob's content;
* agent keys never reach ``/v1/admin`` (403), a revoked key fails on the next request
  (401), a ``--collection`` key stays in its prefix.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")

from memex_client import MemexClient, RemoteAgentMemory
from memex_client.errors import (
    InvalidRequestError,
    MemexClientError,
    NotFoundError,
    PermissionDeniedError,
)
from memex_core.domain.memory.records import MemoryRecord
from memex_core.errors import MemexError
from memex_server.routes import admin as admin_routes
from memex_server.routes import memory as memory_routes
from tests.support.memex_service import Service
from tests.support.memory_attacks import (
    BOB_CANARY,
    BOB_HIDDEN,
    CANARY_QUERIES,
    CORPUS_CANARY,
    FOREIGN_MARKERS,
    FOREIGN_MEMORIES,
    FORGED_IDS,
    ID_OPERATIONS,
    INVALID_COLLECTIONS,
    INVALID_USER_IDS,
    LINK_ATTACKS,
    LIST_CALLS,
    LOOKALIKE_USERS,
    OTHER_USER_IDS,
    PATH_ATTACKS,
    PATH_OPERATIONS,
    REMEMBER_FOR_OTHERS,
    SEARCH_MODES,
    TIME_BOUNDS,
    VALID_COLLECTIONS,
)
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    READABLE,
    CatalogReader,
    Raw,
    assert_clean_response,
    build_isolation_home,
    error_of,
    exposed,
    keyword_only_home,
    served,
)

ALICE, ALICE_OWNER, ALICE_BOT = "alice", "users/alice", "alice-bot"
ACME_BOT, MEMORY_ONLY_BOT = "alice-acme", "alice-memory-only"
UNKNOWN_ID = "mem_0123456789abcdef0123"
UNKNOWN_FRAGMENT = "0" * 32
FOREIGN_STORAGE_PATH = re.compile(r"(?<![/\w])users/(bob|carol)/")
STATUS_OUTCOMES = {404: "not_found", 403: "denied", 422: "invalid"}
CORPUS_OWNER = ""


# -- the served home -----------------------------------------------------------------------------


@dataclass
class World:
    service: Service
    ids: dict[str, str]
    catalog: CatalogReader
    keys: dict[str, str]
    foreign_ids: set[str]
    foreign_fragments: set[str]
    op: MemexClient = field(init=False)
    op_raw: Raw = field(init=False)
    _clients: dict[str, MemexClient] = field(default_factory=dict)
    _raws: dict[str, Raw] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.op = MemexClient(
            self.service.url, admin_secret=self.service.admin_secret, timeout=CLIENT_TIMEOUT
        )
        self.op_raw = Raw(self.service.url, self.service.admin_secret)

    def client(self, name: str = ALICE_BOT) -> MemexClient:
        if name not in self._clients:
            self._clients[name] = MemexClient(
                self.service.url, api_key=self.keys[name], timeout=CLIENT_TIMEOUT
            )
        return self._clients[name]

    def alice(self, name: str = ALICE_BOT) -> RemoteAgentMemory:
        return self.client(name).agent()

    def raw(self, name: str = ALICE_BOT) -> Raw:
        if name not in self._raws:
            self._raws[name] = Raw(self.service.url, self.keys[name])
        return self._raws[name]

    def fragments_of(self, name: str) -> list[str]:
        """The fragment ids of one of the home's memories (or bob's conversation)."""
        rows = self.catalog.rows(
            "SELECT id FROM fragments WHERE conversation_id = ? ORDER BY id", (self.ids[name],)
        )
        return [str(r[0]) for r in rows]

    def last_entry(self, actor: str = ALICE_BOT) -> dict[str, Any]:
        response = self.op_raw.post("/v1/admin/access-log", {"actor": actor, "limit": 1})
        [entry] = assert_clean_response(response)
        return dict(entry)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    home, ids = build_isolation_home(tmp_path_factory.mktemp("server-isolation") / "home")
    catalog = CatalogReader(home)
    owners = catalog.owners()
    foreign = {i for i, owner in owners.items() if owner not in READABLE}
    fragments = {
        str(i) for i, owner in catalog.rows("SELECT id, owner FROM fragments") if owner != ""
    } - {str(i) for i, o in catalog.rows("SELECT id, owner FROM fragments") if o in READABLE}
    with served(home) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        keys = {
            ALICE_BOT: op.create_key(ALICE, name=ALICE_BOT)["key"],
            ACME_BOT: op.create_key(ALICE, name=ACME_BOT, collection="acme")["key"],
            MEMORY_ONLY_BOT: op.create_key(ALICE, name=MEMORY_ONLY_BOT, corpus=False)["key"],
        }
        yield World(service, ids, catalog, keys, foreign, fragments)


# -- what must hold ---------------------------------------------------------------------------


def attempt(handle: RemoteAgentMemory, operation: str, ref: Any, **kwargs: Any) -> object:
    """Call ``operation`` with ``ref``; a memex error is returned (anything else propagates)."""
    try:
        if operation == "write":
            return handle.write(ref, "alice's own test note", **kwargs)
        return getattr(handle, operation)(ref, **kwargs)
    except MemexError as exc:
        return exc


def outcome_of(result: object) -> str:
    if isinstance(result, MemexClientError):
        return STATUS_OUTCOMES[result.status]
    return "ok"


def assert_reveals_nothing(
    world: World,
    value: object,
    *,
    typed: tuple[str, ...] = (),
    own_content: bool = False,
    corpus: bool = False,
) -> None:
    """No foreign canary, id or storage path in what alice got back. ``typed`` is her own
    input, which an error may repeat; ``corpus`` allows the corpus (a corpus key reads it)."""
    text = exposed(value)
    for own in sorted(typed, key=len, reverse=True):
        forms = (
            json.dumps(repr(own))[1:-1],
            repr(own),
            json.dumps(own),
            json.dumps(own)[1:-1],
            own,
        )
        for form in forms:
            if form:
                text = text.replace(form, "")
    markers = [m for m in FOREIGN_MARKERS if not (corpus and m == CORPUS_CANARY)]
    for marker in markers:
        assert marker not in text, f"{marker} leaked: {text[:400]}"
    for memory_id in world.foreign_ids:
        assert memory_id not in text, f"foreign id {memory_id} leaked: {text[:400]}"
    for fragment in world.foreign_fragments:
        assert fragment not in text, f"foreign fragment {fragment} leaked: {text[:400]}"
    if not own_content:  # alice's own "user/users/bob/x.md" is fine
        assert not FOREIGN_STORAGE_PATH.search(text), text[:400]


def assert_memory_hits_confined(world: World, hits: list[Any]) -> None:
    owners = world.catalog.owners()
    fragment_owners = dict(world.catalog.rows("SELECT id, owner FROM fragments"))
    for hit in hits:
        assert owners.get(hit.memory_id) in READABLE, hit
        assert fragment_owners.get(hit.fragment_id) in READABLE, hit
        assert hit.path is None or hit.path.startswith(("user/", "shared/")), hit
        for marker in FOREIGN_MARKERS:
            assert marker not in hit.text, hit


def assert_fragments_confined(world: World, fragments: list[dict[str, Any]], corpus: bool) -> None:
    allowed = set(READABLE) | ({CORPUS_OWNER} if corpus else set())
    for fragment in fragments:
        assert fragment["owner"] in allowed, fragment
        assert fragment["id"] not in world.foreign_fragments, fragment


def assert_logged(
    world: World, action: str, result: object, *, tool_call_id: str | None = None
) -> dict[str, Any]:
    """The newest entry of alice-bot is this attempt, with the outcome its result implies."""
    entry = world.last_entry()
    got = (entry["actor_kind"], entry["actor"], entry["user_id"], entry["action"])
    assert got == ("agent", ALICE_BOT, ALICE, action), entry
    assert entry["outcome"] == outcome_of(result), (entry, result)
    if tool_call_id is not None:
        assert entry["tool_call_id"] == tool_call_id, entry
    assert BOB_HIDDEN not in json.dumps(entry), entry
    return entry


def entry_shape(entry: dict[str, Any], ref: str) -> tuple[Any, ...]:
    detail = json.dumps(entry["detail"], sort_keys=True).replace(ref, "<ref>")
    target = entry["target"].replace(ref, "<ref>")
    return (entry["actor"], entry["user_id"], entry["action"], entry["outcome"], target, detail)


# -- family 1: paths -------------------------------------------------------------------------


@pytest.mark.parametrize("operation", list(PATH_OPERATIONS))
@pytest.mark.parametrize(("path", "inside"), PATH_ATTACKS)
def test_a_crafted_path_never_reaches_another_users_memory(
    world: World, path: str, inside: bool, operation: str
) -> None:
    before = world.catalog.foreign_state()
    call_id = f"path-{operation}-{abs(hash(path)) % 10**8}"
    result = attempt(world.alice(), operation, path, tool_call_id=call_id)
    if not inside:
        assert isinstance(result, MemexClientError), f"{operation}({path!r}) gave {result!r}"
        assert result.status in (403, 404, 422), result
    elif isinstance(result, MemoryRecord):
        assert result.owner == ALICE_OWNER and result.path == path
    assert_reveals_nothing(world, result, typed=(path,))
    assert world.catalog.foreign_state() == before
    assert_logged(world, PATH_OPERATIONS[operation], result, tool_call_id=call_id)


@pytest.mark.parametrize(
    "ref",
    [
        pytest.param(None, id="null"),
        pytest.param(7, id="number"),
        pytest.param(["users/bob/secret.md"], id="list"),
        pytest.param({"path": "users/bob/secret.md"}, id="object"),
        pytest.param(True, id="bool"),
    ],
)
@pytest.mark.parametrize("operation", ["get", "links", "forget", "undelete", "write"])
def test_a_ref_that_is_not_text_is_refused_by_the_schema(
    world: World, ref: Any, operation: str
) -> None:
    body = {"path": ref, "content": "x"} if operation == "write" else {"ref": ref}
    before = world.catalog.foreign_state()
    status, code, message = error_of(world.raw().post(f"/v1/memory/{operation}", body))
    assert (status, code) == (422, "invalid_request"), message
    assert "openapi" in message
    assert world.catalog.foreign_state() == before


# -- family 2: ids -----------------------------------------------------------------------------


def _id_body(operation: str, ref: str) -> dict[str, Any]:
    return {"ref": ref}


@pytest.mark.parametrize("operation", ID_OPERATIONS)
@pytest.mark.parametrize("name", FOREIGN_MEMORIES)
def test_another_users_id_is_answered_like_an_unknown_id(
    world: World, name: str, operation: str
) -> None:
    raw = world.raw()
    memory_id = world.ids[name]
    before = world.catalog.foreign_state()
    foreign = raw.post(f"/v1/memory/{operation}", _id_body(operation, memory_id))
    entry = world.last_entry()
    control = raw.post(f"/v1/memory/{operation}", _id_body(operation, UNKNOWN_ID))
    control_entry = world.last_entry()
    status, code, message = error_of(foreign)
    c_status, c_code, c_message = error_of(control)
    assert (status, code) == (c_status, c_code) == (404, "not_found")
    assert message.replace(repr(memory_id), "<ref>") == c_message.replace(repr(UNKNOWN_ID), "<ref>")
    assert entry_shape(entry, memory_id) == entry_shape(control_entry, UNKNOWN_ID)
    assert_reveals_nothing(world, foreign, typed=(memory_id,))
    assert world.catalog.foreign_state() == before


@pytest.mark.parametrize("operation", ID_OPERATIONS)
@pytest.mark.parametrize("template", FORGED_IDS)
def test_a_forged_id_finds_nothing(world: World, template: str, operation: str) -> None:
    real = world.ids["bob_fact"]
    ref = template.format(id=real, id_but_last=real[:-1], ID=real.upper())
    raw = world.raw()
    before = world.catalog.foreign_state()
    rows_before = len(world.catalog.memory_rows())
    response = raw.post(f"/v1/memory/{operation}", {"ref": ref})
    status, code, message = error_of(response)
    assert status in (404, 422), (status, code, message)
    entry = world.last_entry()
    assert entry["outcome"] == STATUS_OUTCOMES[status], entry
    if ref.startswith("mem_") and status == 404:
        control = raw.post(f"/v1/memory/{operation}", {"ref": UNKNOWN_ID})
        assert error_of(control)[:2] == (status, code)
        assert message.replace(repr(ref), "<ref>") == error_of(control)[2].replace(
            repr(UNKNOWN_ID), "<ref>"
        )
        assert entry_shape(entry, ref) == entry_shape(world.last_entry(), UNKNOWN_ID)
    assert_reveals_nothing(world, response, typed=(ref,))
    assert len(world.catalog.memory_rows()) == rows_before
    assert world.catalog.foreign_state() == before


FRAGMENT_ROUTES = ["fragments", "timeline", "explore"]


def _fragment_request(raw: Raw, route: str, fragment: str) -> httpx.Response:
    if route == "fragments":
        return raw.post("/v1/fragments", {"ids": [fragment]})
    if route == "timeline":
        return raw.post("/v1/timeline", {"fragment_id": fragment})
    return raw.post("/v1/explore", {"note": fragment})


@pytest.mark.parametrize("route", FRAGMENT_ROUTES)
@pytest.mark.parametrize("name", FOREIGN_MEMORIES)
def test_another_users_fragment_id_is_answered_like_an_unknown_one(
    world: World, name: str, route: str
) -> None:
    """Fragment ids of bob's memories, given to the reading routes: what an unknown id gets."""
    raw = world.raw()
    fragments = world.fragments_of(name)
    if "deleted" in name:  # a forgotten memory's fragments leave the indexes: its id then
        assert fragments == []
        fragments = [world.ids[name]]
    assert fragments, name
    control = _fragment_request(raw, route, UNKNOWN_FRAGMENT)
    for fragment in fragments:
        response = _fragment_request(raw, route, fragment)
        assert response.status_code == control.status_code, response.text
        if response.status_code == 200:
            assert response.json() == control.json() == []
        else:
            got, want = error_of(response), error_of(control)
            assert got[:2] == want[:2]
            assert got[2].replace(fragment, "<id>") == want[2].replace(UNKNOWN_FRAGMENT, "<id>")
        assert_reveals_nothing(world, response, typed=(fragment,))


OUTSIDE_PATHS = [p for p in PATH_ATTACKS if not p.values[1]]


@pytest.mark.parametrize(("path", "inside"), OUTSIDE_PATHS)
def test_a_crafted_path_as_a_note_is_answered_like_an_unknown_note(
    world: World, path: str, inside: bool
) -> None:
    """/v1/explore takes a note's path, title or id: bob's memory files are no notes of
    alice's, whatever the spelling (the corpus has no note there either)."""
    raw = world.raw()
    got = raw.post("/v1/explore", {"note": path})
    want = raw.post("/v1/explore", {"note": "no-such-note"})
    if got.status_code == 422:  # refused as a note name at all
        assert error_of(got)[1] == "invalid_request"
    else:
        assert error_of(got)[:2] == error_of(want)[:2] == (404, "not_found")
        assert error_of(got)[2].replace(repr(path), "<n>") == error_of(want)[2].replace(
            repr("no-such-note"), "<n>"
        )
    assert_reveals_nothing(world, got, typed=(path,))


def test_the_operator_acting_for_alice_is_scoped_like_her_key(world: World) -> None:
    """Memex-User (``operator().agent("alice")``) gives alice's scope, not the operator's."""
    alice = world.op.operator().agent(ALICE)
    for ref in ("users/bob/secret.md", world.ids["bob_file"], "user/../users/bob/secret.md"):
        result = attempt(alice, "get", ref)
        assert isinstance(result, MemexClientError) and result.status in (404, 422), result
    assert_memory_hits_confined(world, alice.search(BOB_CANARY, limit=50))
    listed = alice.list(include_deleted=True, limit=1000)
    assert listed and not {m.id for m in listed} & world.foreign_ids
    assert isinstance(attempt(alice, "write", "users/bob/secret.md"), MemexClientError)
    view = world.op.view(ALICE).search(f"{BOB_CANARY} oolong therapist", limit=50)
    assert all(r.fragment.owner in (*READABLE, CORPUS_OWNER) for r in view)


def test_a_batch_of_every_foreign_fragment_id_returns_nothing(world: World) -> None:
    ids = sorted(world.foreign_fragments)
    assert len(ids) >= 10
    for name in (ALICE_BOT, ACME_BOT, MEMORY_ONLY_BOT):
        response = world.raw(name).post("/v1/fragments", {"ids": ids})
        assert assert_clean_response(response) == []


# -- family 3: search, list, context ------------------------------------------------------------


@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("query", CANARY_QUERIES)
def test_memory_search_for_another_users_words_finds_none_of_them(
    world: World, query: str, mode: str
) -> None:
    hits = world.alice().search(query, mode=mode, limit=50)
    assert_memory_hits_confined(world, hits)
    if mode == "keyword":
        assert hits == []  # no word of these queries is in anything alice may read
    assert_logged(world, "search", hits)
    assert_reveals_nothing(world, hits, own_content=True)


@pytest.mark.parametrize("key", [ALICE_BOT, MEMORY_ONLY_BOT])
@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("query", CANARY_QUERIES)
def test_view_search_for_another_users_words_finds_none_of_them(
    world: World, query: str, mode: str, key: str
) -> None:
    corpus = key != MEMORY_ONLY_BOT
    for asked in (True, False):
        response = world.raw(key).post(
            "/v1/search", {"query": query, "mode": mode, "limit": 50, "corpus": asked}
        )
        found = assert_clean_response(response)
        assert_fragments_confined(world, [r["fragment"] for r in found["results"]], corpus)
        assert_reveals_nothing(world, response, typed=(query,), corpus=corpus and asked)


@pytest.mark.parametrize("key", [ALICE_BOT, MEMORY_ONLY_BOT])
@pytest.mark.parametrize("query", CANARY_QUERIES)
def test_a_context_pack_holds_nothing_foreign(world: World, query: str, key: str) -> None:
    corpus = key != MEMORY_ONLY_BOT
    response = world.raw(key).post("/v1/context", {"query": query, "budget_chars": 20_000})
    pack = assert_clean_response(response)
    for item in pack["items"]:
        assert item["id"] not in world.foreign_fragments, item
    assert_reveals_nothing(world, response, typed=(query,), corpus=corpus)


#: Agent routes and a body each accepts (``{ref}`` etc. filled in per test).
AGENT_ROUTES: dict[str, dict[str, Any]] = {
    "/v1/memory/get": {"ref": "user/notes.md"},
    "/v1/memory/list": {},
    "/v1/memory/search": {"query": "tea"},
    "/v1/memory/links": {"ref": "user/notes.md"},
    "/v1/memory/remember": {"text": "Alice probes the server"},
    "/v1/memory/write": {"path": "user/probe.md", "content": "Alice's probe"},
    "/v1/memory/forget": {"ref": UNKNOWN_ID},
    "/v1/memory/undelete": {"ref": UNKNOWN_ID},
    "/v1/memory/dream": {"dry_run": True},
    "/v1/memory/collections": {},
    "/v1/memory/dream/plan": {},
    "/v1/memory/dream/apply": {"digest": "0" * 24},
    "/v1/search": {"query": "tea"},
    "/v1/search/explain": {"query": "zzqxj qqvvkw"},
    "/v1/fragments": {"ids": [UNKNOWN_FRAGMENT]},
    "/v1/timeline": {"fragment_id": UNKNOWN_FRAGMENT},
    "/v1/explore": {"note": "Handbook"},
    "/v1/context": {"query": "tea"},
}
READ_ROUTES = [
    r
    for r in AGENT_ROUTES
    if r.rsplit("/", 1)[1] in ("get", "list", "search", "links", "fragments", "context")
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


@pytest.mark.parametrize("injected", list(INJECTED_FIELDS))
@pytest.mark.parametrize("route", list(AGENT_ROUTES))
def test_an_extra_field_naming_another_user_is_refused(
    world: World, route: str, injected: str
) -> None:
    before, rows = world.catalog.foreign_state(), len(world.catalog.memory_rows())
    body = {**AGENT_ROUTES[route], injected: INJECTED_FIELDS[injected]}
    status, code, message = error_of(world.raw().post(route, body))
    assert (status, code) == (422, "invalid_request"), message
    assert injected in message and "Extra inputs" in message
    assert (world.catalog.foreign_state(), len(world.catalog.memory_rows())) == (before, rows)


@pytest.mark.parametrize("named", ["bob", "carol", "alice", "users/bob"])
@pytest.mark.parametrize("route", list(AGENT_ROUTES))
def test_an_agent_key_cannot_act_as_anyone_with_memex_user(
    world: World, route: str, named: str
) -> None:
    before, rows = world.catalog.foreign_state(), len(world.catalog.memory_rows())
    response = world.raw().post(route, AGENT_ROUTES[route], headers={"Memex-User": named})
    status, code, message = error_of(response)
    assert (status, code) == (403, "forbidden"), message
    assert "Memex-User" in message
    assert (world.catalog.foreign_state(), len(world.catalog.memory_rows())) == (before, rows)


@pytest.mark.parametrize("route", READ_ROUTES)
def test_query_string_parameters_change_nothing(world: World, route: str) -> None:
    raw = world.raw()
    body = dict(AGENT_ROUTES[route])
    plain = raw.post(route, body)
    params = {"user_id": "bob", "owner": "users/bob", "collection": "acme:bob", "corpus": "1"}
    bent = raw.post(route, body, params=params)
    assert bent.status_code == plain.status_code
    strip = re.compile(r'"(score|at|created_at|updated_at|timestamp)":[-0-9.e]+')
    assert strip.sub("", bent.text) == strip.sub("", plain.text)
    assert_reveals_nothing(world, bent, own_content=True, corpus=True)


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
    world: World, name: str, field_route: tuple[str, str]
) -> None:
    route, field_name = field_route
    ref = world.ids[name]
    body: dict[str, Any] = {"query": "tea launch plan oolong"} if "search" in route else {}
    if route == "/v1/context":
        body = {"query": "tea launch plan oolong"}
    body[field_name] = ref
    for key in (ALICE_BOT, MEMORY_ONLY_BOT):
        response = world.raw(key).post(route, body)
        found = assert_clean_response(response)
        if route == "/v1/memory/list" or route == "/v1/memory/search":
            assert found == []
        elif route == "/v1/search":
            if field_name == "conversation":
                assert found["results"] == []
            assert_fragments_confined(
                world, [r["fragment"] for r in found["results"]], key == ALICE_BOT
            )
        else:
            assert all(item["id"] not in world.foreign_fragments for item in found["items"])
        assert_reveals_nothing(world, response, typed=(ref,), corpus=True)


@pytest.mark.parametrize("user_id", OTHER_USER_IDS)
def test_the_client_naming_another_user_reads_nothing(world: World, user_id: str) -> None:
    alice = world.alice()
    for mode in SEARCH_MODES:
        assert alice.search("tea", mode=mode, user_id=user_id) == []
    assert alice.list(user_id=user_id, include_deleted=True) == []
    assert alice.dream(user_id=user_id, dry_run=True).examined == 0
    with pytest.raises(PermissionDeniedError):
        world.client().agent(user_id or "bob")


@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("collection", VALID_COLLECTIONS)
def test_a_collection_prefix_narrows_and_never_widens(
    world: World, collection: str, mode: str
) -> None:
    alice = world.alice()
    hits = alice.search("tea acme espresso launch plan", mode=mode, collection=collection, limit=50)
    assert_memory_hits_confined(world, hits)
    listed = alice.list(collection, include_deleted=True, limit=1000)
    assert {m.owner for m in listed} <= set(READABLE)
    if collection in ("acme:bob", "acme:carol", "ACME"):
        assert hits == [] and listed == []
    if collection == "":
        assert world.ids["alice_fact"] in {m.id for m in listed}
    response = world.raw().post(
        "/v1/search", {"query": "tea acme espresso", "mode": mode, "collection": collection}
    )
    assert_fragments_confined(
        world, [r["fragment"] for r in assert_clean_response(response)["results"]], True
    )


INVALID_COLLECTION_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "memory-search": ("/v1/memory/search", {"query": "tea"}),
    "memory-list": ("/v1/memory/list", {}),
    "memory-dream": ("/v1/memory/dream", {"dry_run": True}),
    "memory-remember": ("/v1/memory/remember", {"text": "Alice likes tea"}),
    "memory-write": ("/v1/memory/write", {"path": "user/c.md", "content": "x"}),
    "view-search": ("/v1/search", {"query": "tea"}),
    "view-context": ("/v1/context", {"query": "tea"}),
}


@pytest.mark.parametrize("call", list(INVALID_COLLECTION_CALLS))
@pytest.mark.parametrize("collection", INVALID_COLLECTIONS)
def test_an_invalid_collection_is_refused_not_widened(
    world: World, collection: str, call: str
) -> None:
    route, body = INVALID_COLLECTION_CALLS[call]
    rows = len(world.catalog.memory_rows())
    status, code, message = error_of(world.raw().post(route, {**body, "collection": collection}))
    assert (status, code) == (422, "invalid_request"), message
    assert len(world.catalog.memory_rows()) == rows


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_include_private_shows_alices_private_memories_only(world: World, mode: str) -> None:
    hits = world.alice().search(
        "therapist private diary file tea", mode=mode, include_private=True, limit=50
    )
    assert_memory_hits_confined(world, hits)
    found = {h.memory_id for h in hits}
    if mode != "semantic":  # keyword-only server: semantic finds nothing at all
        assert world.ids["alice_private"] in found
    assert not found & {world.ids["bob_private_fact"], world.ids["bob_private_file"]}


def _json_number(value: float | None) -> str:
    if value is None:
        return "null"
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


@pytest.mark.parametrize("route", ["/v1/memory/search", "/v1/search"])
@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize(("since", "until"), TIME_BOUNDS)
def test_extreme_time_bounds_never_widen_the_owner_filter(
    world: World, since: float | None, until: float | None, mode: str, route: str
) -> None:
    """Raw JSON (NaN and Infinity are not JSON, but Python's parser takes them): a clean
    refusal or hits that are alice's."""
    content = (
        f'{{"query": "tea launch plan therapist", "mode": "{mode}", "limit": 50, '
        f'"since": {_json_number(since)}, "until": {_json_number(until)}}}'
    )
    response = world.raw(MEMORY_ONLY_BOT).post(route, content=content)
    found = assert_clean_response(response)
    finite = all(b is None or math.isfinite(b) for b in (since, until))
    if not finite:  # no number JSON can carry: refused on every route
        assert error_of(response)[:2] == (422, "invalid_request")
    if response.status_code != 200:
        assert error_of(response)[:2] == (422, "invalid_request")
        return
    if route == "/v1/search":
        assert_fragments_confined(world, [r["fragment"] for r in found["results"]], False)
    else:
        owners = world.catalog.owners()
        assert all(owners[h["memory_id"]] in READABLE for h in found)
        if since == 1e308 or until == -1e308:
            assert found == []
    assert_reveals_nothing(world, response, own_content=True)


@pytest.mark.parametrize("kwargs", LIST_CALLS)
def test_list_shows_only_alices_and_shared_memory(world: World, kwargs: dict[str, Any]) -> None:
    try:
        listed = world.alice().list(**kwargs)
    except InvalidRequestError:  # a negative limit: the server's schema refuses it
        assert kwargs.get("limit", 0) < 0
        return
    assert not {m.id for m in listed} & world.foreign_ids
    assert {m.owner for m in listed} <= set(READABLE)
    assert_reveals_nothing(world, listed, own_content=True)
    body = {k: v for k, v in kwargs.items() if k not in ("limit", "offset")}
    status = world.raw().post("/v1/memory/list", body).status_code
    assert status == (422 if "user_id" in body else 200)


def test_default_search_returns_no_foreign_fragment_for_any_word_in_the_home(
    world: World,
) -> None:
    """Every word that occurs anywhere (bob's, carol's, the corpus), searched the default
    way through memory search and the memory-only view: every hit is checked."""
    contents = world.catalog.rows("SELECT content FROM fragments")
    words = sorted({w for (c,) in contents for w in re.findall(r"[\w-]{3,}", str(c))})
    assert BOB_HIDDEN in words and len(words) > 30
    # A key of its own: it types bob's hidden word, which the log check below looks for.
    made = world.op.create_key(ALICE, name="vocabulary-probe", corpus=False)
    alice = MemexClient(world.service.url, api_key=made["key"], timeout=CLIENT_TIMEOUT).agent()
    raw = Raw(world.service.url, made["key"])
    for word in [*words, " ".join(words)]:
        assert_memory_hits_confined(world, alice.search(word, limit=50))
        response = raw.post("/v1/search", {"query": word, "limit": 50})
        results = assert_clean_response(response)["results"]
        assert_fragments_confined(world, [r["fragment"] for r in results], False)


# -- family 4: writes -------------------------------------------------------------------------


def test_shared_memory_is_read_only_for_an_agent_key_by_default(world: World) -> None:
    before = world.catalog.foreign_state()
    alice = world.alice()
    for operation, ref in (
        ("write", "shared/from-alice.md"),
        ("write", "shared/handbook.md"),
        ("forget", "shared/handbook.md"),
        ("undelete", "shared/retired.md"),
    ):
        result = attempt(alice, operation, ref)
        assert isinstance(result, PermissionDeniedError), result
        assert (result.status, result.code) == (403, "forbidden")
        assert_logged(world, operation, result)
    assert world.catalog.foreign_state() == before


@pytest.mark.parametrize(
    ("mode", "writable"),
    [
        pytest.param("RW ", True, id="RW-trailing-space"),
    ],
)
def test_shared_memory_is_writable_only_with_rw_where_the_server_runs(
    tmp_path: Path, mode: str | None, writable: bool
) -> None:
    """(Unset is the module's server: test_shared_memory_is_read_only_...)"""
    home = keyword_only_home(tmp_path / "home")
    env = {} if mode is None else {"MEMEX_SHARED_WRITE_MODE": mode}
    with served(home, env=env) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        operator = op.operator()
        operator.write("shared/handbook.md", "Team handbook: refunds within thirty days.")
        bob = operator.agent("bob").remember(f"Bob prefers oolong {BOB_HIDDEN}")
        bob_fact = bob.memory_ids[0]
        alice = MemexClient(
            service.url, api_key=op.create_key(ALICE, name="a")["key"], timeout=CLIENT_TIMEOUT
        ).agent()
        results = [
            attempt(alice, "write", "shared/from-alice.md"),
            attempt(alice, "write", "shared/handbook.md"),
        ]
        if writable:
            assert all(isinstance(r, MemoryRecord) and r.owner == "shared" for r in results)
        else:
            assert all(isinstance(r, PermissionDeniedError) for r in results), results
        assert isinstance(attempt(alice, "forget", bob_fact), NotFoundError)
        status = CatalogReader(home).rows("SELECT status FROM memories WHERE id = ?", (bob_fact,))
        assert status == [("active",)]


@pytest.mark.parametrize("user_id", REMEMBER_FOR_OTHERS)
def test_remember_for_another_user_is_refused(world: World, user_id: str) -> None:
    before, count = world.catalog.foreign_state(), len(world.catalog.memory_rows())
    alice = world.alice()
    for call in (
        lambda: alice.remember("Bob now likes liquorice", user_id=user_id),
        lambda: alice.remember(messages=[{"role": "user", "content": "hi"}], user_id=user_id),
    ):
        with pytest.raises(PermissionDeniedError):
            call()
    raw = world.raw()
    for body in (
        {"text": "Bob now likes liquorice", "user_id": user_id},
        {"messages": [{"role": "user", "content": "hi", "user_id": user_id}]},
        {"text": "Bob now likes liquorice", "owner": f"users/{user_id}"},
    ):
        assert error_of(raw.post("/v1/memory/remember", body))[:2] == (422, "invalid_request")
    assert len(world.catalog.memory_rows()) == count
    assert world.catalog.foreign_state() == before


def test_writing_into_bobs_collection_name_stays_alices(world: World) -> None:
    alice = world.alice()
    before = world.catalog.foreign_state()
    fact = alice.remember("Alice visited the acme office", collection="acme:bob").memory_ids[0]
    note = alice.write("user/acme-visit.md", "Acme office visit", collection="acme:bob")
    owners = world.catalog.owners()
    assert {owners[fact], owners[note.id]} == {ALICE_OWNER}
    assert world.catalog.foreign_state() == before


@pytest.mark.parametrize("target", LINK_ATTACKS)
def test_a_link_to_bobs_file_neither_resolves_nor_shows_as_his_backlink(
    world: World, target: str
) -> None:
    alice = world.alice()
    path = f"user/links/{abs(hash(target)) % 10**8}.md"
    before = world.catalog.foreign_state()
    alice.write(path, f"Alice links [[{target}]] here")
    links = alice.links(path)
    for outlink in links.outlinks:
        assert outlink.get("memory_id") not in world.foreign_ids, outlink
        path_of = outlink.get("path")
        assert path_of is None or path_of.startswith(("user/", "shared/")), outlink
    assert_reveals_nothing(world, links, typed=(target, path))
    bob_links = world.op.operator().links("users/bob/secret.md")
    alice_file = world.catalog.rows(
        "SELECT id FROM memories WHERE path = ?", (f"users/alice/{path[5:]}",)
    )
    assert alice_file
    assert alice_file[0][0] not in {b.get("memory_id") for b in bob_links.backlinks}
    assert world.catalog.foreign_state() == before


def test_bobs_links_to_shared_files_are_not_alices_backlinks(world: World) -> None:
    links = world.alice().links("shared/handbook.md")
    backs = {b["memory_id"] for b in links.backlinks}
    assert world.ids["alice_file"] in backs
    assert not backs & world.foreign_ids
    assert_reveals_nothing(world, links)


# -- family 5: dream --------------------------------------------------------------------------


@pytest.mark.parametrize("collection", ["acme:bob", "acme:carol", "{bob_fact}", "{carol_fact}"])
def test_dreaming_another_users_collection_examines_nothing_of_theirs(
    world: World, collection: str
) -> None:
    name = collection.format(**world.ids)
    before = world.catalog.foreign_state()
    report = world.alice().dream(name, dry_run=True)
    owners = world.catalog.owners()
    for applied in report.decisions:  # alice may have her own memories in acme:bob
        for memory_id in (applied.memory_id, applied.examined_id, applied.decision.target_id):
            assert memory_id is None or owners[memory_id] == ALICE_OWNER, applied
        for source in applied.decision.fact.source_fragment_ids:
            assert source not in world.foreign_fragments
    assert_reveals_nothing(world, report, typed=(name,), own_content=True)
    assert_logged(world, "dream", report)
    assert world.catalog.foreign_state() == before


def test_a_real_dream_changes_nothing_of_bobs(world: World) -> None:
    before = world.catalog.foreign_state()
    report = world.alice().dream()
    owners = world.catalog.owners()
    for applied in report.decisions:
        assert applied.memory_id is None or owners[applied.memory_id] == ALICE_OWNER
        for source in applied.decision.fact.source_fragment_ids:
            assert source not in world.foreign_fragments
    assert_reveals_nothing(world, report, own_content=True)
    assert world.catalog.foreign_state() == before


# -- family 6: operator routes, keys -----------------------------------------------------------


def _admin_routes() -> list[Any]:
    routes = [*admin_routes.router.routes, *memory_routes.operator_router.routes]
    out = []
    for route in routes:
        for method in sorted(getattr(route, "methods", ())):
            path = route.path  # type: ignore[attr-defined]
            out.append(pytest.param(method, path, id=f"{method}-{path}"))
    return out


ADMIN_BODY = {"user_id": "bob", "ref": "users/bob/secret.md", "confirm": "bob"}


@pytest.mark.parametrize("key", [ALICE_BOT, ACME_BOT, MEMORY_ONLY_BOT])
@pytest.mark.parametrize(("method", "path"), _admin_routes())
def test_an_agent_key_never_reaches_an_operator_route(
    world: World, method: str, path: str, key: str
) -> None:
    before, rows = world.catalog.foreign_state(), len(world.catalog.memory_rows())
    keys_before = world.catalog.rows("SELECT id, revoked_at FROM agent_keys ORDER BY id")
    raw = world.raw(key)
    options: dict[str, Any] = {"params": {"filename": "conversations.json", "user_id": "bob"}}
    if method == "POST":
        options["json"] = ADMIN_BODY
    for headers in ({}, {"Memex-User": "bob"}):
        response = raw.request(method, path, headers=headers, **options)
        status, code, _message = error_of(response)
        assert status == 403 and code in ("operator_only", "forbidden"), (status, code)
        assert_reveals_nothing(world, response)
    assert (world.catalog.foreign_state(), len(world.catalog.memory_rows())) == (before, rows)
    assert world.catalog.rows("SELECT id, revoked_at FROM agent_keys ORDER BY id") == keys_before


def test_every_admin_route_in_the_schema_refuses_an_agent_key(world: World) -> None:
    """Read from the live /openapi.json, so an admin route added anywhere is covered."""
    schema = assert_clean_response(world.op_raw.get("/openapi.json"))
    admin = [
        (method.upper(), path)
        for path, item in schema["paths"].items()
        if path.startswith("/v1/admin")
        for method in item
    ]
    assert len(admin) >= 15
    tested = {(p.values[0], p.values[1]) for p in _admin_routes()}
    assert set(admin) <= tested, set(admin) - tested
    raw = world.raw()
    for method, path in admin:
        response = raw.request(method, path, params={"filename": "x.json"}, json=ADMIN_BODY)
        assert error_of(response)[:2] == (403, "operator_only"), (method, path)


@pytest.mark.parametrize("user_id", INVALID_USER_IDS)
def test_no_credential_can_name_a_crafted_user(world: World, user_id: str) -> None:
    """The operator acting as a crafted user (Memex-User), and keys made for one: 422."""
    op = world.op_raw
    if not user_id or user_id != user_id.strip() or "\x00" in user_id:
        pass  # a header value cannot carry these as given; the key route gets them below
    else:
        header = {"Memex-User": user_id.encode("utf-8")}  # bytes: httpx sends non-ASCII as is
        response = op.post("/v1/memory/search", {"query": "tea"}, headers=header)
        assert error_of(response)[:2] == (422, "invalid_request"), response.text
    status, code, message = error_of(op.post("/v1/admin/keys", {"user": user_id, "name": "x"}))
    assert (status, code) == (422, "invalid_request"), message
    assert world.catalog.rows("SELECT COUNT(*) FROM agent_keys WHERE name = 'x'") == [(0,)]


@pytest.mark.parametrize("user_id", LOOKALIKE_USERS)
def test_a_user_whose_id_looks_like_bobs_sees_none_of_his_memory(
    world: World, user_id: str
) -> None:
    made = world.op.create_key(user_id, name=f"lookalike-{user_id}", corpus=False)
    try:
        client = MemexClient(world.service.url, api_key=made["key"], timeout=CLIENT_TIMEOUT)
        other = client.agent()
        bob_ids = {i for i, owner in world.catalog.owners().items() if owner == "users/bob"}
        for mode in SEARCH_MODES:
            hits = other.search(f"{BOB_CANARY} {BOB_HIDDEN} oolong", mode=mode, limit=50)
            assert not {h.memory_id for h in hits} & bob_ids
            assert all(BOB_HIDDEN not in h.text for h in hits)
        assert not {m.id for m in other.list(include_deleted=True, limit=1000)} & bob_ids
        for ref in ("user/secret.md", world.ids["bob_file"], world.ids["bob_fact"]):
            assert isinstance(attempt(other, "get", ref), NotFoundError)
        found = client.view().search(f"{BOB_CANARY} oolong therapist", limit=50)
        assert all(r.fragment.owner in (f"users/{user_id}", "shared") for r in found)
    finally:
        world.op.revoke_key(made["id"])


def test_a_revoked_key_fails_on_the_very_next_request(world: World) -> None:
    made = world.op.create_key(ALICE, name="short-lived")
    raw = Raw(world.service.url, made["key"])
    assert assert_clean_response(raw.post("/v1/memory/search", {"query": "tea"})) != []
    world.op.revoke_key("short-lived")
    for route, body in AGENT_ROUTES.items():
        status, code, message = error_of(raw.post(route, body))
        assert (status, code) == (401, "invalid_credentials"), (route, message)
        assert "memex keys create" in message
    assert error_of(raw.get("/v1/whoami"))[:2] == (401, "invalid_credentials")


def test_a_key_revoked_from_the_command_line_fails_at_once_on_the_running_server(
    world: World,
) -> None:
    made = world.op.create_key(ALICE, name="cli-revoked")
    raw = Raw(world.service.url, made["key"])
    assert raw.get("/v1/whoami").status_code == 200
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memex_core",
            "--home",
            str(world.service.home),
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


# -- keys with a bound -------------------------------------------------------------------------


def test_a_collection_key_stays_in_its_prefix(world: World) -> None:
    acme = world.alice(ACME_BOT)
    raw = world.raw(ACME_BOT)
    listed = acme.list(include_deleted=True, limit=1000)
    assert listed and all(m.collection.split(":")[0] == "acme" for m in listed), listed
    assert world.ids["alice_fact"] not in {m.id for m in listed}
    for mode in SEARCH_MODES:
        for hit in acme.search("tea acme espresso support alice", mode=mode, limit=50):
            assert hit.collection.split(":")[0] == "acme", hit
    outside = world.ids["alice_fact"]  # alice's own, in collection ""
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
    assert world.catalog.owners()[memory_id] == ALICE_OWNER
    view = assert_clean_response(raw.post("/v1/search", {"query": "tea green alice", "limit": 50}))
    for result in view["results"]:
        assert result["fragment"]["collection"].split(":")[0] == "acme", result


def test_a_collection_key_reads_no_fragment_outside_its_prefix(world: World) -> None:
    raw = world.raw(ACME_BOT)
    outside = world.fragments_of("alice_fact")
    assert assert_clean_response(raw.post("/v1/fragments", {"ids": outside})) == []
    got = raw.post("/v1/timeline", {"fragment_id": outside[0]})
    assert error_of(got)[:2] == (404, "not_found")


def test_a_no_corpus_key_sees_no_corpus_fragment(world: World) -> None:
    raw = world.raw(MEMORY_ONLY_BOT)
    corpus = [str(r[0]) for r in world.catalog.rows("SELECT id FROM fragments WHERE owner = ''")]
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
        world.raw().post("/v1/search", {"query": CORPUS_CANARY, "mode": "keyword"})
    )
    assert {r["fragment"]["id"] for r in full["results"]} & set(corpus)


def test_whoami_reports_each_keys_reach(world: World) -> None:
    got = {
        name: assert_clean_response(world.raw(name).get("/v1/whoami"))
        for name in (ALICE_BOT, ACME_BOT, MEMORY_ONLY_BOT)
    }
    assert {g["user_id"] for g in got.values()} == {ALICE}
    assert got[ACME_BOT]["collection"] == "acme"
    assert got[MEMORY_ONLY_BOT]["corpus"] is False
    assert all(g["kind"] == "agent" for g in got.values())


# -- family 7: the access log ------------------------------------------------------------------


def test_no_log_entry_of_alices_carries_bobs_content(world: World) -> None:
    """Runs after the attacks above (same module server): everything alice's keys did."""
    entries = assert_clean_response(
        world.op_raw.post("/v1/admin/access-log", {"user_id": ALICE, "limit": 10_000})
    )
    mine = [e for e in entries if e["actor"].startswith("alice")]  # not vocabulary-probe
    assert len(mine) > 300
    for entry in mine:
        text = json.dumps(entry, ensure_ascii=False)
        assert BOB_HIDDEN not in text, entry  # (alice types the other canaries herself)
        assert entry["user_id"] == ALICE, entry
        for memory_id in world.foreign_ids:
            if memory_id in text:  # only where alice typed it herself
                assert memory_id in entry["target"] or memory_id in json.dumps(
                    entry["detail"].get("error", "")
                ), entry
    # nothing in the log names bob as a user alice's keys acted for
    bob = assert_clean_response(
        world.op_raw.post("/v1/admin/access-log", {"user_id": "bob", "limit": 10_000})
    )
    assert not [e for e in bob if e["actor"].startswith("alice")]
