"""The agent view: the scope every integration reads through.

A home holds the operator's corpus (a chat export and a small vault) and the
memory of two users. alice's view must see the corpus, her memory and shared
memory, and nothing of bob's whatever arguments a hostile agent passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.errors import MemexError
from tests.support.component_doubles import fast_memex

EXPORTS = Path(__file__).resolve().parents[2] / "examples" / "exports"
BOB_SECRET = "zanzibar"  # a word only bob's memory holds


@pytest.fixture
def mx(tmp_path: Path) -> Iterator[Memex]:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / ".obsidian").mkdir()
    (vault / "Kayaking.md").write_text("# Kayaking\nPaddling on the lake. See [[Gear]].\n")
    (vault / "Gear.md").write_text("# Gear\nA dry bag and a paddle for kayaking.\n")
    memex = fast_memex(tmp_path / "home")
    memex.ingest(str(EXPORTS))
    memex.ingest(str(vault))
    alice = memex.agent("alice")
    alice.remember("Alice keeps her kayak at the marina", collection="acme:sport")
    alice.write("user/plans.md", "Kayaking trip plans, see [[user/packing.md]]")
    alice.remember("Alice hides a private kayak note", private=True)
    bob = memex.agent("bob")
    bob.remember(f"Bob kayaks to {BOB_SECRET} every summer", collection="acme:sport")
    bob.write("user/plans.md", f"Bob's kayaking plans for {BOB_SECRET}")
    memex.operator().write("shared/handbook.md", "Shared handbook: kayaking safety rules")
    yield memex
    memex.close()


def owners_of(fragments: list) -> set[str]:
    return {f.owner for f in fragments}


def test_alice_sees_corpus_her_memory_and_shared(mx: Memex) -> None:
    found = mx.view(user="alice").search("kayak kayaking", limit=50)
    owners = owners_of([r.fragment for r in found])
    assert owners == {"", "users/alice", "shared"}
    assert all(BOB_SECRET not in r.fragment.content for r in found)


def test_private_memory_needs_asking(mx: Memex) -> None:
    view = mx.view(user="alice")
    plain = [r.fragment.content for r in view.search("private kayak note", limit=50)]
    assert not any("private kayak" in t for t in plain)
    asked = view.search("private kayak note", limit=50, include_private=True)
    assert any("private kayak" in r.fragment.content for r in asked)


@pytest.mark.parametrize(
    "options",
    [
        {"source": "memory"},
        {"collection": "acme"},
        {"collection": "acme:sport"},
        {"conversation": "__BOB_MEMORY__"},
        {"role": "user"},
        {"mode": "keyword"},
        {"mode": "semantic"},
    ],
)
def test_no_argument_reaches_bob(mx: Memex, options: dict) -> None:
    bob_ids = {m.id for m in mx.operator().list(user_id="bob")}
    options = {k: (sorted(bob_ids)[0] if v == "__BOB_MEMORY__" else v) for k, v in options.items()}
    found = mx.view(user="alice").search(BOB_SECRET + " kayak", limit=50, **options)
    assert "users/bob" not in owners_of([r.fragment for r in found])
    assert all(BOB_SECRET not in r.fragment.content for r in found)


def test_collection_restricts_to_memory(mx: Memex) -> None:
    found = mx.view(user="alice").search("kayak", limit=50, collection="acme:sport")
    assert [r.fragment.owner for r in found] == ["users/alice"]
    assert not mx.view(user="alice").search("kayak", collection="acme:nothing").results
    # a prefix must match whole segments: "acm" covers nothing
    assert not mx.view(user="alice").search("kayak", collection="acm").results


def test_without_user_only_the_corpus(mx: Memex) -> None:
    view = mx.view()
    found = view.search("kayak kayaking", limit=50)
    assert owners_of([r.fragment for r in found]) == {""}
    with pytest.raises(MemexError, match="needs a user"):
        view.remember("anything")


def test_without_corpus_only_memory(mx: Memex) -> None:
    view = mx.view(user="alice", corpus=False)
    found = view.search("kayak kayaking", limit=50)
    assert owners_of([r.fragment for r in found]) == {"users/alice", "shared"}
    with pytest.raises(MemexError, match="may not read the corpus"):
        view.explore("Kayaking")


def bob_fragment_ids(mx: Memex) -> list[str]:
    """bob's memory fragments, found as the operator finds them."""
    found = mx.search(BOB_SECRET, "keyword", 20)
    return [r.fragment.id for r in found if r.fragment.owner == "users/bob"]


def test_get_and_timeline_treat_foreign_ids_as_unknown(mx: Memex) -> None:
    view = mx.view(user="alice")
    foreign = bob_fragment_ids(mx)
    assert foreign
    assert view.get(foreign) == []
    with pytest.raises(MemexError) as unknown:
        view.timeline("f_does_not_exist")
    unknown_message = str(unknown.value).replace("f_does_not_exist", "ID")
    for fragment_id in foreign:
        with pytest.raises(MemexError) as denied:
            view.timeline(fragment_id)
        assert str(denied.value).replace(fragment_id, "ID") == unknown_message


def test_get_keeps_order_and_own_fragments(mx: Memex) -> None:
    view = mx.view(user="alice")
    ids = [r.fragment.id for r in view.search("kayak", limit=5)]
    assert [f.id for f in view.get(list(reversed(ids)))] == list(reversed(ids))


def test_timeline_of_a_corpus_turn(mx: Memex) -> None:
    view = mx.view(user="alice")
    hit = view.search("kayak kayaking", limit=50, source="obsidian").results[0]
    timeline = view.timeline(hit.fragment.id, before=2, after=2)
    assert hit.fragment.id in [f.id for f in timeline.fragments]
    assert owners_of(timeline.fragments) == {""}


def test_explore_reads_corpus_notes_not_memory_files(mx: Memex) -> None:
    view = mx.view(user="alice")
    exploration = view.explore("Kayaking", similar=3)
    assert [o.target_path for o in exploration.outlinks] == ["Gear.md"]
    for name in ("users/bob/plans.md", "users/alice/plans.md", "plans"):
        with pytest.raises(MemexError, match="No note called"):
            view.explore(name)


def test_context_stays_in_scope(mx: Memex) -> None:
    pack = mx.view(user="alice").context(f"kayak {BOB_SECRET}", budget_chars=6000)
    assert pack.items
    assert all(BOB_SECRET not in item.text for item in pack.items)
    assert all("private kayak" not in item.text for item in pack.items)
    bob = bob_fragment_ids(mx)
    assert not {item.id for item in pack.items} & set(bob)


def test_remember_goes_to_the_users_memory_and_is_logged(mx: Memex) -> None:
    view = mx.view(user="alice", name="langchain")
    result = view.remember("Alice's favourite lake is Garda", tool_call_id="call-7")
    assert result.memory_ids
    found = view.search("favourite lake Garda", limit=3, tool_call_id="call-8")
    assert found.results[0].fragment.owner == "users/alice"
    log = mx.operator().access_log(user_id="alice")
    actions = [(e.action, e.actor, e.tool_call_id) for e in log]
    assert ("search", "langchain", "call-8") in actions
    bob_sees = mx.view(user="bob").search("favourite lake Garda", limit=20)
    assert all(r.fragment.owner != "users/alice" for r in bob_sees)


def test_a_view_collection_is_a_bound_not_a_default(mx: Memex) -> None:
    view = mx.view(user="alice", collection="acme:sport")
    assert [r.fragment.owner for r in view.search("kayak", limit=50)] == ["users/alice"]
    assert view.search("kayak", limit=50, collection="acme:sport:boats").results == []
    for wider in ("acme", "acme:other", ""):
        with pytest.raises(MemexError, match="limited to collection 'acme:sport'"):
            view.search("kayak", collection=wider)


def test_a_collection_bound_view_reads_only_its_collection_by_id(mx: Memex) -> None:
    whole = mx.view(user="alice")
    inside = [r.fragment.id for r in whole.search("kayak marina", limit=50, collection="acme")]
    outside = [
        r.fragment.id
        for r in whole.search("kayaking trip plans kayak", limit=50)
        if r.fragment.collection == ""
    ]
    assert inside and outside  # her acme:sport memory; her plans file and the corpus
    bound = mx.view(user="alice", collection="acme:sport")
    assert [f.id for f in bound.get(inside + outside)] == inside
    assert bound.timeline(inside[0]).fragments
    with pytest.raises(MemexError) as unknown:
        bound.timeline("f_does_not_exist")
    for fragment_id in outside:
        with pytest.raises(MemexError) as denied:
            bound.timeline(fragment_id)
        assert str(denied.value).replace(fragment_id, "X") == str(unknown.value).replace(
            "f_does_not_exist", "X"
        )
    with pytest.raises(MemexError, match="may not read the corpus"):
        bound.explore("Kayaking")
    pack = bound.context("kayak kayaking trip plans", budget_chars=6000)
    assert pack.items
    assert {item.id for item in pack.items} <= set(inside)


@pytest.mark.parametrize("odd", ["\ud800", "mem_\udfff", "\x00", "x" * 10_000])
def test_odd_ids_are_unknown_ids_and_are_logged(mx: Memex, odd: str) -> None:
    view = mx.view(user="alice")
    assert view.get([odd], tool_call_id=odd) == []
    with pytest.raises(MemexError, match="No fragment with id"):
        view.timeline(odd)
    with pytest.raises(MemexError):
        view.memory.get(odd)  # type: ignore[union-attr]
    targets = [entry.target for entry in mx.operator().access_log(user_id="alice")]
    assert len(targets) >= 3
