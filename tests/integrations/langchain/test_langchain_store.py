"""MemexStore, LangGraph's BaseStore over memex memory.

LangGraph ships no conformance suite for stores, so the behaviour LangGraph
defines (get, put, delete, filters, namespace listing with prefixes, suffixes,
wildcards, depth, limit and offset) is checked against its own reference store,
``InMemoryStore``, fed the same operations. What memex adds (hybrid search,
isolation between users, revisions, redaction) is tested on its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base")

from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from memex_core.api import Memex
from memex_langchain import MemexRetriever, MemexStore, ScopeError
from memex_langchain.store import decode_key, encode_key
from tests.support.component_doubles import fast_memex

AWS_KEY = "AKIA" + "ZQ3DPLKMN7WB4XTR"

NAMESPACES = [
    ("alice", "a", "b", "c"),
    ("alice", "a", "b", "d", "e"),
    ("alice", "a", "b", "d", "i"),
    ("alice", "a", "b", "f"),
    ("alice", "a", "c", "f"),
    ("alice", "b", "a", "f"),
    ("alice",),
    ("bob", "a", "b", "c"),
    ("bob", "settings"),
    ("carol", "users", "v1"),
]


@pytest.fixture
def mx(memex_home: Path) -> Iterator[Memex]:
    memex = fast_memex(memex_home)
    yield memex
    memex.close()


@pytest.fixture
def store(mx: Memex) -> MemexStore:
    return MemexStore(mx)


def fill(store: BaseStore) -> None:
    """The same puts and deletes for every store, as one batch (one index flush in memex)."""
    ops: list[PutOp] = []
    for i, namespace in enumerate(NAMESPACES):
        ops.append(PutOp(namespace, f"k{i}", {"n": i, "kind": "even" if i % 2 == 0 else "odd"}))
        ops.append(PutOp(namespace, "shared-key", {"n": 100 + i, "tags": ["x", str(i)]}))
    ops.append(PutOp(NAMESPACES[0], "k0", {"n": 0, "kind": "rewritten"}))
    ops.append(PutOp(NAMESPACES[1], "k1", None))
    ops.append(PutOp(NAMESPACES[1], "never-there", None))
    store.batch(ops)


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[InMemoryStore, MemexStore]]:
    """The reference store and a MemexStore given the same operations (read-only tests)."""
    memex = fast_memex(tmp_path_factory.mktemp("langgraph-store") / "home")
    reference, store = InMemoryStore(), MemexStore(memex)
    fill(reference)
    fill(store)
    yield reference, store
    memex.close()


def as_set(items: list[Any]) -> set[tuple[Any, ...]]:
    return {(i.namespace, i.key, repr(sorted(i.value.items()))) for i in items}


# -- LangGraph's semantics, against its reference store ---------------------------------------


def test_get_put_delete_agree_with_the_reference_store(
    filled: tuple[InMemoryStore, MemexStore],
) -> None:
    reference, store = filled
    for namespace in NAMESPACES:
        for key in ("k0", "k1", "k2", "shared-key", "missing"):
            expected, got = reference.get(namespace, key), store.get(namespace, key)
            assert (got is None) == (expected is None), (namespace, key)
            if expected is not None:
                assert got is not None
                assert (got.namespace, got.key, got.value) == (
                    expected.namespace,
                    expected.key,
                    expected.value,
                )
                assert got.created_at <= got.updated_at


@pytest.mark.parametrize(
    "prefix",
    [("alice",), ("alice", "a"), ("alice", "a", "b"), ("alice", "a", "b", "d"), ("bob",)],
)
@pytest.mark.parametrize(
    "filter_",
    [
        None,
        {"kind": "even"},
        {"kind": {"$ne": "even"}},
        {"n": {"$gte": 3, "$lt": 101}},
        {"tags": ["x", "3"]},
        {"missing": 1},
        {"n": {"$gt": "not a number"}},
    ],
)
def test_search_without_a_query_agrees_with_the_reference_store(
    filled: tuple[InMemoryStore, MemexStore],
    prefix: tuple[str, ...],
    filter_: dict[str, Any] | None,
) -> None:
    reference, store = filled
    if filter_ == {"n": {"$gt": "not a number"}}:
        with pytest.raises(ValueError):  # the reference store raises on float("not a number")
            reference.search(prefix, filter=filter_, limit=100)
        assert store.search(prefix, filter=filter_, limit=100) == []
        return
    expected = reference.search(prefix, filter=filter_, limit=100)
    got = store.search(prefix, filter=filter_, limit=100)
    assert as_set(got) == as_set(expected)
    assert all(item.score is None for item in got)


def test_search_without_a_query_pages_newest_first(
    filled: tuple[InMemoryStore, MemexStore],
) -> None:
    _, store = filled
    everything = store.search(("alice",), limit=100)
    assert [i.updated_at for i in everything] == sorted(
        (i.updated_at for i in everything), reverse=True
    )
    pages = [store.search(("alice",), limit=3, offset=o) for o in range(0, len(everything), 3)]
    assert [i.key for page in pages for i in page] == [i.key for i in everything]
    assert store.search(("alice",), limit=0) == []


LISTINGS: list[dict[str, Any]] = [
    {},
    {"prefix": ("alice",)},
    {"prefix": ("alice", "a", "b")},
    {"prefix": ("alice", "*", "b")},
    {"suffix": ("f",)},
    {"suffix": ("*", "f")},
    {"prefix": ("alice", "a"), "suffix": ("f",)},
    {"max_depth": 2},
    {"prefix": ("alice",), "max_depth": 3},
    {"limit": 3},
    {"limit": 3, "offset": 2},
    {"prefix": ("*", "a", "b")},
    {"prefix": ("nobody",)},
]


@pytest.mark.parametrize("listing", LISTINGS, ids=repr)
def test_list_namespaces_agrees_with_the_reference_store(
    filled: tuple[InMemoryStore, MemexStore], listing: dict[str, Any]
) -> None:
    reference, store = filled
    assert store.list_namespaces(**listing) == reference.list_namespaces(**listing)


def test_batch_runs_mixed_operations_in_order(store: MemexStore) -> None:
    results = store.batch(
        [
            PutOp(("alice", "p"), "a", {"v": 1}),
            GetOp(("alice", "p"), "a"),
            PutOp(("alice", "p"), "a", {"v": 2}),
            GetOp(("alice", "p"), "a"),
            SearchOp(("alice",), limit=5),
            ListNamespacesOp(),
            PutOp(("alice", "p"), "a", None),
            GetOp(("alice", "p"), "a"),
        ]
    )
    assert results[0] is None and results[2] is None and results[6] is None
    first, second, found = results[1], results[3], results[4]
    assert isinstance(first, Item) and isinstance(second, Item) and isinstance(found, list)
    assert first.value == {"v": 1} and second.value == {"v": 2}
    assert [i.value for i in found if isinstance(i, Item)] == [{"v": 2}]
    assert results[5] == [("alice", "p")]
    assert results[7] is None


def test_async_methods_and_concurrent_calls(store: MemexStore) -> None:
    async def main() -> None:
        await asyncio.gather(*(store.aput(("alice", "async"), f"k{i}", {"i": i}) for i in range(8)))
        got = await asyncio.gather(*(store.aget(("alice", "async"), f"k{i}") for i in range(8)))
        assert [g.value["i"] for g in got if g] == list(range(8))
        found = await store.asearch(("alice", "async"), filter={"i": {"$lt": 3}})
        assert sorted(i.key for i in found) == ["k0", "k1", "k2"]
        assert await store.alist_namespaces() == [("alice", "async")]
        await store.adelete(("alice", "async"), "k0")
        assert await store.aget(("alice", "async"), "k0") is None
        results = await store.abatch([GetOp(("alice", "async"), "k1")])
        assert isinstance(results[0], Item) and results[0].value == {"i": 1}

    asyncio.run(main())


def test_invalid_namespaces_and_values_are_refused(store: MemexStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(("alice", "a.b"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError, match="names no user"):
        store.search(())
    with pytest.raises(InvalidNamespaceError, match="user id"):
        store.put(("users/bob", "x"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError, match="collection"):
        store.put(("alice", "has space"), "k", {"v": 1})
    with pytest.raises(NotImplementedError, match="TTL"):
        store.put(("alice",), "k", {"v": 1}, ttl=5)
    with pytest.raises(ValueError, match="must be a dict"):
        store.batch([PutOp(("alice",), "k", ["not", "a", "dict"])])  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=60).filter(lambda k: "\x00" not in k))
def test_any_key_round_trips_through_its_path_segment(key: str) -> None:
    segment = encode_key(key)
    assert decode_key(segment) == key
    assert "/" not in segment and "%" not in segment and not segment.startswith(".")


def test_keys_that_are_not_plain_round_trip_through_the_store(store: MemexStore) -> None:
    keys = ["plain-key_1", "a/b/../c", "über:ключ", "~tilde", "mem_123", "spaces in key", "."]
    store.batch([PutOp(("alice", "keys"), key, {"key": key}) for key in keys])
    for key in keys:
        item = store.get(("alice", "keys"), key)
        assert item is not None and item.key == key and item.value == {"key": key}
    assert sorted(i.key for i in store.search(("alice", "keys"), limit=50)) == sorted(keys)


# -- what memex adds ------------------------------------------------------------------------------


def test_a_query_is_a_hybrid_search_with_scores(store: MemexStore) -> None:
    store.put(("alice", "prefs"), "drink", {"text": "Alice drinks green tea every morning"})
    store.put(("alice", "prefs"), "editor", {"text": "Alice writes code in neovim"})
    store.put(("alice", "work"), "deploys", {"text": "deploys happen on Friday afternoons"})
    found = store.search(("alice",), query="green tea")
    assert found[0].key == "drink"
    assert found[0].score is not None and found[0].score > 0
    assert [i.score for i in found] == sorted((i.score or 0 for i in found), reverse=True)
    within = store.search(("alice", "work"), query="green tea deploys")
    assert {i.key for i in within} == {"deploys"}
    filtered = store.search(("alice",), query="Alice", filter={"text": {"$ne": "x"}}, limit=1)
    assert len(filtered) == 1
    second = store.search(("alice",), query="Alice", limit=1, offset=1)
    assert second and second[0].key != filtered[0].key


def test_a_query_search_never_crosses_users(store: MemexStore) -> None:
    store.put(("alice", "prefs"), "drink", {"text": "tea"})
    store.put(("bob", "prefs"), "drink", {"text": "BOBSECRET tea tea tea"})
    store.put(("bob",), "other", {"text": "BOBSECRET tea"})
    for query in ("tea", "BOBSECRET", "BOBSECRET tea drink prefs"):
        found = store.search(("alice",), query=query, limit=50)
        assert all(i.namespace[0] == "alice" for i in found)
        assert all("BOBSECRET" not in str(i.value) for i in found)
    assert store.get(("alice", "prefs"), "drink").value == {"text": "tea"}  # type: ignore[union-attr]


def test_a_store_bound_to_a_user_refuses_every_other_user(mx: Memex) -> None:
    MemexStore(mx).put(("bob", "prefs"), "drink", {"text": "BOBSECRET coffee"})
    alice = MemexStore(mx, user="alice")
    alice.put(("alice", "prefs"), "drink", {"text": "tea"})
    for call in (
        lambda: alice.get(("bob", "prefs"), "drink"),
        lambda: alice.put(("bob", "prefs"), "drink", {"text": "overwritten"}),
        lambda: alice.delete(("bob", "prefs"), "drink"),
        lambda: alice.search(("bob",), query="coffee"),
        lambda: alice.search(("bob",)),
    ):
        with pytest.raises(ScopeError, match="bound to user 'alice'"):
            call()
    assert alice.list_namespaces() == [("alice", "prefs")]
    assert alice.list_namespaces(prefix=("bob",)) == []
    assert alice.search(("alice",), query="BOBSECRET coffee drink") != []
    assert all("BOBSECRET" not in str(i.value) for i in alice.search(("alice",), query="coffee"))
    assert MemexStore(mx).get(("bob", "prefs"), "drink").value == {  # type: ignore[union-attr]
        "text": "BOBSECRET coffee"
    }


def test_user_label_reads_the_user_from_another_position(mx: Memex) -> None:
    store = MemexStore(mx, user_label=1)
    store.put(("memories", "alice"), "m1", {"text": "likes tea"})
    store.put(("memories", "bob", "work"), "m2", {"text": "likes coffee"})
    assert store.get(("memories", "alice"), "m1").value == {"text": "likes tea"}  # type: ignore[union-attr]
    assert store.list_namespaces() == [("memories", "alice"), ("memories", "bob", "work")]
    assert store.list_namespaces(prefix=("memories", "bob")) == [("memories", "bob", "work")]
    assert [i.key for i in store.search(("memories", "alice"), query="likes")] == ["m1"]
    with pytest.raises(InvalidNamespaceError, match="names no user"):
        store.search(("memories",))
    # the same memory, seen with the user first
    assert MemexStore(mx).get(("alice", "memories"), "m1") is not None


def test_items_are_the_users_memory_with_revisions(mx: Memex, store: MemexStore) -> None:
    store.put(("alice", "prefs"), "drink", {"text": "Alice likes green tea"})
    store.put(("alice", "prefs"), "drink", {"text": "Alice likes jasmine tea"})
    operator = mx.operator()
    record = operator.get("users/alice/langgraph/prefs/drink")
    assert record.collection == "prefs"
    assert [r.action for r in operator.history(record.id)][:2] == ["create", "update"]
    docs = MemexRetriever(memex=mx, user="alice", source="memory").invoke("jasmine tea")
    assert docs and docs[0].metadata["path"] == "user/langgraph/prefs/drink"
    store.delete(("alice", "prefs"), "drink")
    assert store.get(("alice", "prefs"), "drink") is None
    assert operator.get(record.id).status == "deleted"  # soft: an operator can undelete
    operator.undelete(record.id)
    assert store.get(("alice", "prefs"), "drink").value == {  # type: ignore[union-attr]
        "text": "Alice likes jasmine tea"
    }
    log = operator.access_log(user_id="alice", actor="langgraph")
    assert {"write", "read", "forget"} <= {e.action for e in log}


def test_secrets_in_values_are_redacted_before_they_are_stored(store: MemexStore) -> None:
    store.put(("alice", "creds"), "aws", {"note": f"deploy key {AWS_KEY}", "n": 1})
    item = store.get(("alice", "creds"), "aws")
    assert item is not None
    assert AWS_KEY not in str(item.value)
    assert "[REDACTED:" in item.value["note"] and item.value["n"] == 1
