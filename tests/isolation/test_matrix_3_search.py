"""Isolation matrix, family 3: search, list and context. Searching for another user's words,
naming another user, collection prefixes, time bounds, private memories: only alice's and
shared memory comes back, on every surface that searches (handle, HTTP, MCP, viewer)."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from memex_client.errors import InvalidRequestError, PermissionDeniedError
from memex_core.domain import Fragment, Provenance, fragment_id
from tests.isolation.surface_http import MEMORY_ONLY_BOT, Http
from tests.isolation.surfaces import (
    ACCESS_LOG,
    CONSOLIDATOR,
    HANDLE,
    MEMORY_SEARCH,
    RAW_HTTP,
    SEARCH_PAGE,
    TOOLS,
    InProcess,
    Surface,
    across,
    on,
)
from tests.isolation.world import ALICE, ALICE_BOT, ALICE_OWNER, READABLE, Recorder
from tests.support.memory_attacks import (
    BOB_HIDDEN,
    CANARY_QUERIES,
    FOREIGN_MARKERS,
    INVALID_COLLECTIONS,
    LIST_CALLS,
    OTHER_USER_IDS,
    SEARCH_MODES,
    TIME_BOUNDS,
    VALID_COLLECTIONS,
)
from tests.support.server_fixtures import Raw, assert_clean_response, error_of


@on(MEMORY_SEARCH, ACCESS_LOG)
@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("query", CANARY_QUERIES)
def test_searching_for_another_users_words_finds_none_of_them(
    surface: Surface, query: str, mode: str
) -> None:
    hits = surface.memory_search(query, mode=mode, limit=50)
    surface.assert_hits_confined(hits)
    if mode == "keyword":
        assert hits == []  # no word of these queries is in anything alice may read
    surface.assert_logged("search", hits)
    surface.assert_reveals_nothing(hits, own_content=True)


@on(SEARCH_PAGE)
@pytest.mark.parametrize("mode", ["dig", "keyword", "semantic"])
@pytest.mark.parametrize("query", CANARY_QUERIES)
def test_the_search_page_shows_nothing_foreign(surface: Any, query: str, mode: str) -> None:
    """The viewer's search page, as alice's key (without the corpus) sees it."""
    for params in ({"q": query, "mode": mode}, {"q": query, "mode": mode, "collection": "acme"}):
        response = surface.page("/", **params)
        assert response.status_code in (200, 422)
        body = response.text
        # The page repeats the query (title, box); the results below it must not hold it.
        results = body.split('id="results-heading"', 1)[-1]
        for marker in FOREIGN_MARKERS:
            assert marker not in (results if marker in query else body), (params, marker)
        for memory_id in surface.foreign_ids():
            assert memory_id not in body, (params, memory_id)
        for fragment in surface.foreign_fragments():
            assert fragment not in body, (params, fragment)


@on(TOOLS)
@pytest.mark.parametrize("query", CANARY_QUERIES)
def test_the_context_tool_holds_nothing_foreign(surface: Any, query: str) -> None:
    pack = surface.call("context", {"query": query, "budget_chars": 20_000})
    assert not pack.is_error, pack.text
    for item in pack.data["items"]:
        assert item["id"] not in surface.foreign_fragments(), item
    surface.assert_reveals_nothing(pack, typed=(query,), corpus=True)


@on(HANDLE)
@pytest.mark.parametrize("user_id", OTHER_USER_IDS)
def test_naming_another_user_reads_nothing_at_all(surface: Surface, user_id: str) -> None:
    alice = surface.alice()
    for mode in SEARCH_MODES:
        assert alice.search("tea", mode=mode, user_id=user_id) == []
        if isinstance(surface, InProcess):
            assert surface.last_entry()["detail"].get("hits") == 0
    assert alice.list(user_id=user_id, include_deleted=True) == []
    if CONSOLIDATOR in surface.caps:
        consolidator = Recorder()
        report = alice.dream(user_id=user_id, consolidator=consolidator, dry_run=True)
        assert (report.examined, consolidator.seen) == (0, [])
    else:
        assert alice.dream(user_id=user_id, dry_run=True).examined == 0
    if isinstance(surface, Http):  # a key's client cannot make an agent of another user
        with pytest.raises(PermissionDeniedError):
            surface.client().agent(user_id or "bob")


@on(MEMORY_SEARCH)
@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("collection", VALID_COLLECTIONS)
def test_a_collection_prefix_narrows_and_never_widens(
    surface: Surface, collection: str, mode: str
) -> None:
    query = "tea acme espresso launch plan"
    hits = surface.memory_search(query, mode=mode, collection=collection, limit=50)
    surface.assert_hits_confined(hits)
    if collection in ("acme:bob", "acme:carol", "ACME"):
        assert hits == []  # alice has nothing there: bob's are not shown
    if HANDLE in surface.caps:
        listed = surface.alice().list(collection, include_deleted=True, limit=1000)
        assert {m.owner for m in listed} <= set(READABLE)
        if collection in ("acme:bob", "acme:carol", "ACME"):
            assert listed == []
        if collection == "":
            assert surface.ids["alice_fact"] in {m.id for m in listed}
    if isinstance(surface, Http):
        response = surface.raw().post(
            "/v1/search", {"query": "tea acme espresso", "mode": mode, "collection": collection}
        )
        surface.assert_fragments_confined(
            [r["fragment"] for r in assert_clean_response(response)["results"]], True
        )


@on(SEARCH_PAGE)
@pytest.mark.parametrize("collection", VALID_COLLECTIONS)
def test_the_memory_page_lists_only_alices_and_shared_memory(surface: Any, collection: str) -> None:
    """The viewer's memory page (records and collections tree) for one collection prefix."""
    response = surface.page("/memory", collection=collection)
    assert response.status_code == 200
    body = response.text
    for marker in FOREIGN_MARKERS:
        assert marker not in body, marker
    for memory_id in surface.foreign_ids():
        assert memory_id not in body, memory_id
    owners = surface.owners()
    listed = set(re.findall(r'href="/memory/(mem_[0-9a-f]+)', body))
    assert {owners[i] for i in listed} <= set(READABLE)
    if collection in ("acme:bob", "acme:carol", "ACME"):
        assert listed == set()  # alice has nothing there: bob's are not shown
    assert (
        "acme:bob"
        not in body.replace(f"collection={collection}", "").replace(f"'{collection}'", "")
        or collection == "acme:bob"
    )


@across("collection_calls", rows=INVALID_COLLECTIONS, argnames=("collection",))
def test_an_invalid_collection_is_refused_not_widened(
    surface: Surface, entry: str, collection: str
) -> None:
    surface.refuse_collection(entry, collection)


@on(HANDLE)
@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_include_private_shows_alices_private_memories_only(surface: Surface, mode: str) -> None:
    hits = surface.alice().search(
        "therapist private diary file tea", mode=mode, include_private=True, limit=50
    )
    surface.assert_hits_confined(hits)
    found = {h.memory_id for h in hits}
    if surface.semantic or mode != "semantic":  # keyword-only server: semantic finds nothing
        assert surface.ids["alice_private"] in found
    assert not found & {surface.ids["bob_private_fact"], surface.ids["bob_private_file"]}


def _json_number(value: float | None) -> str:
    if value is None:
        return "null"
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


@pytest.mark.parametrize("mode", SEARCH_MODES)
@across("time_routes", rows=TIME_BOUNDS, argnames=("since", "until"))
def test_extreme_time_bounds_never_widen_the_owner_filter(
    surface: Surface, entry: str, since: float | None, until: float | None, mode: str
) -> None:
    """In process: the handle's search. Over HTTP, raw JSON (NaN and Infinity are not
    JSON, but Python's parser takes them): a clean refusal or hits that are alice's."""
    if not isinstance(surface, Http):
        hits = surface.alice().search(
            "tea launch plan therapist", mode=mode, since=since, until=until, limit=50
        )
        surface.assert_hits_confined(hits)
        if since == 1e308 or until == -1e308:
            assert hits == []  # nothing was written in the far future or the far past
        return
    route = entry
    content = (
        f'{{"query": "tea launch plan therapist", "mode": "{mode}", "limit": 50, '
        f'"since": {_json_number(since)}, "until": {_json_number(until)}}}'
    )
    response = surface.raw(MEMORY_ONLY_BOT).post(route, content=content)
    found = assert_clean_response(response)
    finite = all(b is None or math.isfinite(b) for b in (since, until))
    if not finite:  # no number JSON can carry: refused on every route
        assert error_of(response)[:2] == (422, "invalid_request")
    if response.status_code != 200:
        assert error_of(response)[:2] == (422, "invalid_request")
        return
    if route == "/v1/search":
        surface.assert_fragments_confined([r["fragment"] for r in found["results"]], False)
    else:
        owners = surface.owners()
        assert all(owners[h["memory_id"]] in READABLE for h in found)
        if since == 1e308 or until == -1e308:
            assert found == []
    surface.assert_reveals_nothing(response, own_content=True)


@on(HANDLE)
@pytest.mark.parametrize("kwargs", LIST_CALLS)
def test_list_shows_only_alices_and_shared_memory(surface: Surface, kwargs: dict[str, Any]) -> None:
    try:
        listed = surface.alice().list(**kwargs)
    except InvalidRequestError:  # over HTTP, a negative limit: the server's schema refuses it
        assert isinstance(surface, Http) and kwargs.get("limit", 0) < 0
        return
    foreign = surface.foreign_ids()
    assert not {m.id for m in listed} & foreign
    assert {m.owner for m in listed} <= set(READABLE)
    surface.assert_reveals_nothing(listed, own_content=True)
    if isinstance(surface, Http):
        body = {k: v for k, v in kwargs.items() if k not in ("limit", "offset")}
        status = surface.raw().post("/v1/memory/list", body).status_code
        assert status == (422 if "user_id" in body else 200)


@on(MEMORY_SEARCH)
def test_default_search_returns_no_foreign_fragment_for_any_word_in_the_home(
    surface: Surface,
) -> None:
    """Every word that occurs anywhere (bob's, carol's, the corpus), searched by alice the
    default way: every hit is checked (over HTTP also through the memory-only view). A
    separate agent name, so that the log checks can tell alice's other agents never
    typed bob's hidden word."""
    contents = surface.rows("SELECT content FROM fragments")
    words = sorted({w for (c,) in contents for w in re.findall(r"[\w-]{3,}", str(c))})
    assert BOB_HIDDEN in words and len(words) > 30
    if isinstance(surface, Http):
        made = surface.op.create_key(ALICE, name="vocabulary-probe", corpus=False)
        alice = surface.key_client(made["key"]).agent()
        raw = Raw(surface.service.url, made["key"])
        for word in [*words, " ".join(words)]:
            surface.assert_hits_confined(alice.search(word, limit=50))
            response = raw.post("/v1/search", {"query": word, "limit": 50})
            results = assert_clean_response(response)["results"]
            surface.assert_fragments_confined([r["fragment"] for r in results], False)
        return
    for word in words:
        surface.assert_hits_confined(surface.memory_search(word, limit=50, name="vocabulary-probe"))
    everything = " ".join(words)
    limit = 100 if isinstance(surface, InProcess) else 50  # the MCP tool's most
    surface.assert_hits_confined(
        surface.memory_search(everything, limit=limit, name="vocabulary-probe")
    )


@on(RAW_HTTP)
@pytest.mark.parametrize("key", [ALICE_BOT, MEMORY_ONLY_BOT])
@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("query", CANARY_QUERIES)
def test_view_search_for_another_users_words_finds_none_of_them(
    surface: Http, query: str, mode: str, key: str
) -> None:
    corpus = key != MEMORY_ONLY_BOT
    for asked in (True, False):
        response = surface.raw(key).post(
            "/v1/search", {"query": query, "mode": mode, "limit": 50, "corpus": asked}
        )
        found = assert_clean_response(response)
        surface.assert_fragments_confined([r["fragment"] for r in found["results"]], corpus)
        surface.assert_reveals_nothing(response, typed=(query,), corpus=corpus and asked)


@on(RAW_HTTP)
@pytest.mark.parametrize("key", [ALICE_BOT, MEMORY_ONLY_BOT])
@pytest.mark.parametrize("query", CANARY_QUERIES)
def test_a_context_pack_holds_nothing_foreign(surface: Http, query: str, key: str) -> None:
    corpus = key != MEMORY_ONLY_BOT
    response = surface.raw(key).post("/v1/context", {"query": query, "budget_chars": 20_000})
    pack = assert_clean_response(response)
    for item in pack["items"]:
        assert item["id"] not in surface.foreign_fragments(), item
    surface.assert_reveals_nothing(response, typed=(query,), corpus=corpus)


def test_a_forged_fragment_claiming_alices_owner_does_not_surface_bobs_memory(
    tiny: InProcess,
) -> None:
    """Defence in depth: a corpus fragment that claims to be alice's memory but belongs to
    bob's memory id is dropped by the handle's scoped lookup."""
    bob_fact = tiny.ids["bob_fact"]
    forged = Fragment(
        id=fragment_id("memory", bob_fact, "forged", "forged"),
        conversation_id=bob_fact,
        role="note",
        content="forged narwhal fragment",
        provenance=Provenance("memory", "forged", bob_fact, "forged", 1_700_000_000.0),
        timestamp=1_700_000_000.0,
        owner=ALICE_OWNER,
    )
    tiny.mx.add_fragments([forged], origin="test:forged")
    for mode in SEARCH_MODES:
        hits = tiny.alice().search("forged narwhal", mode=mode)
        assert bob_fact not in {h.memory_id for h in hits}
        assert all(h.text != "forged narwhal fragment" for h in hits)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_search_results_do_not_depend_on_other_users_memory(tiny: InProcess, mode: str) -> None:
    alice = tiny.alice()
    alice.remember("Alice's walrus figurine, a walrus with a walrus hat")
    alice.remember("Alice's kiwi figurine")

    def seen() -> list[tuple[str, float, dict[str, int]]]:
        hits = alice.search("walrus kiwi", mode=mode)
        return [(h.memory_id, round(h.score, 9), h.ranks) for h in hits]

    alone = seen()
    for n in range(3):
        tiny.bob().remember(f"Bob's walrus note number {n}")
    assert seen() == alone  # today: the kiwi figurine overtakes the walrus one
