"""Isolation matrix, family 9: facts that change over time (issue 30).

Bob's facts change too: he lived in Oslo (2023-01-10), then moved to Lisbon (2023-06-01),
so his Oslo fact is superseded and readable by time. Alice's agent must never

* close one of bob's facts or a shared memory with a fact of hers, whatever she writes
  (bob's words exactly, "Bob moved to ...", "no longer"), and whatever a judge says (a
  hostile judge naming every memory in the home);
* read bob's facts, superseded or not, through ``as_of`` or ``include_superseded`` (memory
  search, the view's search, the MCP ``recall``, ``search`` and ``context`` tools);
* read bob's chain through history (``chain``, ``POST /v1/memory/chain``,
  ``Memex.history``): it is not found, exactly as an unknown id, and logged as such.

Bob's chain is added to each surface's session home by the operator the first time a
case needs it (the surfaces' own tables of foreign ids are fixed before it, so the cases
check these ids themselves).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from memex_core.domain.memory.validity import Supersession, TimedFact
from memex_core.handles import MemoryNotFound
from memex_core.hookspecs import hookimpl
from tests.isolation.bob_facts import (
    OSLO,
    assert_no_bob,
    assert_route_refuses_bobs_facts,
    bob_chain,
    validity,
)
from tests.isolation.surfaces import (
    ACCESS_LOG,
    HANDLE,
    MEMORY_SEARCH,
    RAW_HTTP,
    TOOLS,
    Surface,
    on,
)
from tests.isolation.world import ALICE, READABLE, UNKNOWN_ID, Home, isolation_memex

#: What alice's agent writes to try to close bob's facts or a shared one (bob's own words
#: but for the canaries, which must stay bob's alone).
ALICE_TRIES = (
    "Bob lives in Trondheim",
    "Bob moved to Coimbra",
    "Bob no longer lives in Trondheim",
    "Bob moved to Berlin",
    "Bob now lives in Madrid",
    "Team handbook: refunds within sixty days now.",
    "Everyone on the team likes the espresso machine",
    "Nobody on the team likes the espresso machine any more",
    "Dana Whitfield moved to Hull",  # the shared chain's subject (world.shared_chain)
)
#: (as_of, include_superseded) asked of memory search: during Oslo, after the move, before
#: anything, everything.
TIMES: list[tuple[str | None, bool]] = [
    ("2023-03-01", False),
    ("2023-07-01", False),
    ("2020-01-01", False),
    (None, True),
    ("2023-03-01", True),
]
QUERY = "Bob lives Trondheim moved Coimbra"

# -- alice's facts never close bob's or shared ones ---------------------------------------------


@pytest.mark.parametrize("surface", ["inprocess", "http", "mcp"], indirect=True)
def test_alices_facts_never_close_bobs_or_shared_ones(surface: Surface) -> None:
    bob_chain(surface)
    before, foreign = validity(surface), surface.foreign_state()
    for text in ALICE_TRIES:
        for collection in (None, "acme"):
            if surface.name == "mcp":
                arguments = {"text": text, "collection": collection}
                result = surface.call("remember", arguments)  # type: ignore[attr-defined]
                assert not result.is_error, result.text
            else:
                surface.alice().remember(text, at="2024-01-01", collection=collection)
    assert validity(surface) == before
    assert surface.foreign_state() == foreign
    closed_by_alice = surface.rows(
        "SELECT m.id, m.owner FROM memories m JOIN memories a ON a.id = m.superseded_by "
        "WHERE a.owner = 'users/alice'"
    )
    assert all(owner == "users/alice" for _, owner in closed_by_alice), closed_by_alice


class Everything:
    """A hostile judge: every memory id it knows is superseded by every new fact."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def valid_from(self, text: str, said_at: float) -> float:
        return said_at

    def supersedes(self, new: TimedFact, earlier: Sequence[TimedFact]) -> list[Supersession]:
        named = [*self.ids, *(f.memory_id or "" for f in earlier)]
        return [Supersession(i, "everything", "hostile") for i in named if i != new.memory_id]


class HostilePlugin:
    def __init__(self, judge: Everything) -> None:
        self.judge = judge

    @hookimpl
    def register_supersession_judges(self, register: Any) -> None:
        register("hostile", lambda context: self.judge)


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Home]:
    """A home of its own whose supersession judge is :class:`Everything`."""
    judge = Everything()
    mx = isolation_memex(
        tmp_path / "home", plugins={"hostile": HostilePlugin(judge)}, supersession_judge="hostile"
    )
    home = Home(mx)
    home.ids["bob"] = home.bob().remember(OSLO).memory_ids[0]
    home.ids["bob_acme"] = (
        home.bob().remember("Bob handles acme billing", collection="acme").memory_ids[0]
    )
    home.ids["shared"] = mx.operator("admin").write("shared/handbook.md", "Refunds in 30 days.").id
    judge.ids = list(home.ids.values())
    yield home
    mx.close()


def test_a_hostile_judge_cannot_close_bobs_or_shared_facts(
    hostile: Home,
) -> None:
    home = hostile
    alice = home.alice()
    first = alice.remember("Alice lives in Paris").memory_ids[0]
    for text in ALICE_TRIES:
        for collection in (None, "acme"):
            alice.remember(text, collection=collection)
    rows = home.mx.query("SELECT id, owner, valid_until, superseded_by FROM memories ORDER BY id")[
        1
    ]
    for memory_id, owner, valid_until, superseded_by in rows:
        if owner != "users/alice":
            assert (valid_until, superseded_by) == (None, None), (memory_id, owner)
    # The judge was heard on alice's own facts: her first one is closed.
    assert home.alice().get(first).valid_until is not None


# -- reading by time never reaches bob's facts --------------------------------------------------


def _recall(surface: Surface, as_of: str | None, everything: bool, mode: str) -> Any:
    if surface.name == "mcp":
        arguments: dict[str, Any] = {"query": QUERY, "mode": mode, "limit": 50}
        if as_of:
            arguments["as_of"] = as_of
        if everything:
            arguments["include_superseded"] = True
        result = surface.call("recall", arguments)  # type: ignore[attr-defined]
        assert not result.is_error, result.text
        return result
    return surface.alice().search(
        QUERY, mode=mode, limit=50, as_of=as_of, include_superseded=everything
    )


@on(MEMORY_SEARCH)
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize(("as_of", "everything"), TIMES)
def test_reading_by_time_never_shows_bobs_facts(
    surface: Surface, as_of: str | None, everything: bool, mode: str
) -> None:
    ids = bob_chain(surface)
    found = _recall(surface, as_of, everything, mode)
    assert_no_bob(found, surface, ids, own_content=True)  # every hit's owner is checked below
    if surface.name != "mcp":
        owners = surface.owners()
        assert all(owners.get(hit.memory_id) in READABLE for hit in found), found


@on(RAW_HTTP)
@pytest.mark.parametrize("route", ["/v1/memory/search", "/v1/search", "/v1/context"])
@pytest.mark.parametrize(("as_of", "everything"), TIMES)
def test_raw_routes_by_time_never_show_bobs_facts(
    surface: Surface, route: str, as_of: str | None, everything: bool
) -> None:
    ids = bob_chain(surface)
    body: dict[str, Any] = {"query": QUERY, "mode": "keyword", "include_superseded": everything}
    if as_of:
        body["as_of"] = as_of
    for key in surface.keys:  # type: ignore[attr-defined]
        response = surface.raw(key).post(route, body)  # type: ignore[attr-defined]
        assert response.status_code == 200, response.text[:300]
        # alice's own memories come back (context's recent ones too): her texts may name
        # bob's storage paths (matrix 1 writes them); ids, canaries and fragments may not
        assert_no_bob(response, surface, ids, corpus=route != "/v1/memory/search", own_content=True)


#: Alice's own chain in the MCP home, the control that the tools do read by time.
TROMSO, BERGEN = "Perpetua Vance lives in Tromso", "Perpetua Vance moved to Bergen"
#: What each of TIMES shows of it (None: not checked).
OWN_SHOWN: dict[tuple[str | None, bool], set[str] | None] = {
    ("2023-03-01", False): {TROMSO},
    ("2023-07-01", False): {BERGEN},
    ("2020-01-01", False): set(),
    (None, True): {TROMSO, BERGEN},
    ("2023-03-01", True): None,
}
_own_chains: set[str] = set()


def _tool_arguments(tool: str, mode: str, as_of: str | None, everything: bool) -> dict[str, Any]:
    arguments: dict[str, Any] = {"query": f"{QUERY} Perpetua Vance Tromso Bergen"}
    if tool == "search":
        arguments.update(mode=mode, limit=50, concise=False)
    else:
        arguments["budget_chars"] = 20_000
    if as_of:
        arguments["as_of"] = as_of
    if everything:
        arguments["include_superseded"] = True
    return arguments


@on(TOOLS)
@pytest.mark.parametrize(
    ("tool", "mode"), [("search", "keyword"), ("search", "hybrid"), ("context", "hybrid")]
)
@pytest.mark.parametrize(("as_of", "everything"), TIMES)
def test_the_search_and_context_tools_by_time_never_show_bobs_facts(
    surface: Surface, tool: str, mode: str, as_of: str | None, everything: bool
) -> None:
    ids = bob_chain(surface)
    if surface.name not in _own_chains:
        alice = surface.local.alice()  # type: ignore[attr-defined]
        alice.remember(TROMSO, at="2023-01-10")
        alice.remember(BERGEN, at="2023-06-01")
        _own_chains.add(surface.name)
    arguments = _tool_arguments(tool, mode, as_of, everything)
    for corpus in (True, False):  # a server with the corpus, and one without
        result = surface.call(tool, arguments, corpus=corpus)  # type: ignore[attr-defined]
        assert not result.is_error, result.text
        assert_no_bob(result, surface, ids, corpus=corpus, own_content=True)
        shown = OWN_SHOWN[(as_of, everything)]
        if shown is not None:  # the tool did read by time: alice's own chain, as it held
            assert {t for t in (TROMSO, BERGEN) if t in result.text} == shown, result.text


# -- history: bob's chain is not found ----------------------------------------------------------


def _shape(result: object, ref: str) -> tuple[str, str]:
    return type(result).__name__, str(result).replace(ref, "<ref>")


def _chain(surface: Surface, ref: str) -> object:
    return surface.attempt(surface.alice(), "chain", ref)


@on(HANDLE, ACCESS_LOG)
def test_history_of_bobs_facts_is_not_found_like_an_unknown_id(surface: Surface) -> None:
    ids = bob_chain(surface)
    unknown = _chain(surface, UNKNOWN_ID)
    assert surface.is_not_found(unknown), unknown
    for ref in ids:
        result = _chain(surface, ref)
        assert surface.is_not_found(result), result
        assert _shape(result, ref) == _shape(unknown, UNKNOWN_ID)
        assert_no_bob(result, surface, ids, typed=(ref,))
        entry = surface.assert_logged("history", result)
        assert entry["user_id"] == ALICE


@on(RAW_HTTP)
def test_the_chain_route_refuses_bobs_facts_for_every_key(surface: Surface) -> None:
    assert_route_refuses_bobs_facts(surface, "/v1/memory/chain")


@on(HANDLE, ACCESS_LOG)
def test_alices_own_chain_holds_only_her_facts(surface: Surface) -> None:
    ids = bob_chain(surface)
    alice = surface.alice()
    # A subject no other family of the shared world writes about, so no later fact of
    # alice's closes Vienna before Prague does.
    paris = alice.remember("Zebulon lives in Vienna", at="2022-01-01").memory_ids[0]
    alice.remember("Zebulon moved to Prague", at="2022-06-01")
    chain = alice.chain(paris)
    assert [r.owner for r in chain] == ["users/alice"] * len(chain) and len(chain) >= 2
    assert_no_bob(chain, surface, ids)


@pytest.mark.parametrize("surface", ["inprocess"], indirect=True)
def test_memex_history_for_alice_refuses_bobs_facts(surface: Surface) -> None:
    ids = bob_chain(surface)
    mx = surface.mx  # type: ignore[attr-defined]
    for ref in ids:
        with pytest.raises(MemoryNotFound):
            mx.history(ref, user=ALICE)


@pytest.mark.parametrize("surface", ["viewer"], indirect=True)
def test_the_viewer_never_shows_bobs_chain(surface: Surface) -> None:
    ids = bob_chain(surface)
    unknown = surface.refer("get", UNKNOWN_ID)
    for ref in ids:
        page = surface.refer("get", ref)
        assert surface.answer_shape(page, ref) == surface.answer_shape(unknown, UNKNOWN_ID)
        assert_no_bob(page, surface, ids, typed=(ref,))
    alice = surface.http.alice()  # type: ignore[attr-defined]
    vienna = alice.remember("Alice lives in Salzburg", at="2021-01-01").memory_ids[0]
    prague = alice.remember("Alice moved to Brno", at="2021-06-01").memory_ids[0]
    for own in (vienna, prague):
        page = surface.page(f"/memory/{own}")  # type: ignore[attr-defined]
        assert page.status_code == 200 and 'id="fact-timeline"' in page.text
        for fact in (vienna, prague):  # (and alice's other homes, from other cases)
            assert f'data-testid="fact" data-memory-id="{fact}"' in page.text
        assert_no_bob(page, surface, ids)
