"""``memex_llamaindex.MemexRetriever``: nodes, metadata, filters, scope, async and threads.

The home holds the operator's corpus (the example exports), alice's memory (a
fact in ``acme:sport``, a private note), bob's memory with a word nobody else
has, and a shared handbook. Whatever a retriever is built with, alice's never
returns bob's memory.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.llms.mock import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeRelationship, NodeWithScore
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from memex_core.api import Memex
from memex_core.errors import EmptyQueryError, MemexError
from memex_llamaindex import MemexMemoryBlock, MemexRetriever
from tests.support.component_doubles import fast_memex

EXPORTS = Path(__file__).resolve().parents[3] / "examples" / "exports"
BOB_SECRET = "zanzibar"  # only bob's memory holds it
QUERY = "sqlite database locked"


def populate(memex: Memex) -> None:
    memex.ingest(str(EXPORTS))
    alice = memex.agent("alice")
    alice.remember("Alice keeps her kayak at the marina", collection="acme:sport")
    alice.remember("Alice keeps a private kayak diary", private=True)
    bob = memex.agent("bob")
    bob.remember(f"Bob kayaks to {BOB_SECRET} every summer", collection="acme:sport")
    bob.remember(f"Bob's private {BOB_SECRET} kayak diary", private=True)
    memex.operator().write("shared/handbook.md", "Shared handbook: kayaking safety rules")


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    """One populated home for the module: retrievers only read (and log their reads)."""
    memex = fast_memex(tmp_path_factory.mktemp("retriever") / "home")
    populate(memex)
    yield memex
    memex.close()


def owners(nodes: list[NodeWithScore]) -> set[str]:
    return {n.node.metadata["owner"] for n in nodes}


def texts(nodes: list[NodeWithScore]) -> str:
    return "\n".join(n.node.get_content() for n in nodes)


# -- nodes and metadata ---------------------------------------------------------------------


def test_nodes_are_the_views_search_results(mx: Memex) -> None:
    nodes = MemexRetriever(mx, similarity_top_k=5).retrieve(QUERY)
    expected = mx.view().search(QUERY, limit=5).results

    assert [n.node.node_id for n in nodes] == [r.fragment.id for r in expected]
    assert [n.node.get_content() for n in nodes] == [r.fragment.content for r in expected]
    assert [n.score for n in nodes] == [r.score for r in expected]
    assert len(nodes) == 5
    # The SQLite conversation comes first (its turns are indexed with the turns before them).
    assert "sqlite" in nodes[0].node.get_content().lower()


def test_metadata_carries_provenance_and_each_signals_rank(mx: Memex) -> None:
    nodes = MemexRetriever(mx, similarity_top_k=5).retrieve(QUERY)
    result = mx.view().search(QUERY, limit=5).results[0]
    metadata = nodes[0].node.metadata
    fragment = result.fragment

    assert metadata["fragment_id"] == fragment.id == nodes[0].node.node_id
    assert metadata["conversation_id"] == fragment.conversation_id
    assert metadata["source_kind"] == fragment.provenance.source_kind == "chatgpt"
    assert metadata["source_path"] == fragment.provenance.source_path
    assert metadata["source_id"] == fragment.provenance.source_id
    assert metadata["locator"] == fragment.provenance.locator
    assert metadata["timestamp"] == fragment.timestamp
    assert metadata["title"] == fragment.title
    assert metadata["role"] == fragment.role
    assert metadata["score"] == result.score == nodes[0].score
    assert metadata["keyword_rank"] == result.ranks["keyword"] is not None
    assert metadata["semantic_rank"] == result.ranks["semantic"]
    assert metadata["keyword_score"] == result.scores["keyword"]
    assert (metadata["owner"], metadata["collection"]) == ("", "")
    rel = nodes[0].node.relationships[NodeRelationship.SOURCE]
    assert rel.node_id == fragment.conversation_id
    # flat values only, as vector stores and MetadataFilters expect
    assert all(
        v is None or isinstance(v, str | int | float)
        for n in nodes
        for v in n.node.metadata.values()
    )


def test_an_llm_sees_title_role_source_and_date_but_no_bookkeeping(mx: Memex) -> None:
    node = MemexRetriever(mx, similarity_top_k=1).retrieve(QUERY)[0].node
    for_llm = node.get_content(metadata_mode=MetadataMode.LLM)
    for_embedding = node.get_content(metadata_mode=MetadataMode.EMBED)

    assert f"title: {node.metadata['title']}" in for_llm
    # The hit's own role (which turn comes first is the ranker's business, not this test's).
    assert node.metadata["role"] in ("user", "assistant")
    assert f"role: {node.metadata['role']}" in for_llm and "source_kind: chatgpt" in for_llm
    assert "date: 2024-" in for_llm
    for hidden in ("fragment_id", "locator", "keyword_rank", "score", "source_path"):
        assert f"{hidden}:" not in for_llm and f"{hidden}:" not in for_embedding
    assert node.get_content() in for_llm


def test_keyword_mode_has_no_semantic_rank(mx: Memex) -> None:
    nodes = MemexRetriever(mx, mode="keyword", similarity_top_k=3).retrieve(QUERY)
    assert [n.node.metadata["keyword_rank"] for n in nodes] == [1, 2, 3]
    assert {n.node.metadata["semantic_rank"] for n in nodes} == {None}


def test_memory_nodes_name_their_memory(mx: Memex) -> None:
    nodes = MemexRetriever(mx, user="alice", corpus=False).retrieve("kayak marina")
    marina = next(n for n in nodes if "marina" in n.node.get_content())
    memory = mx.agent("alice").list(collection="acme:sport")[0]
    assert marina.node.metadata["memory_id"] == memory.id
    assert marina.node.metadata["memory_kind"] == memory.kind
    assert marina.node.metadata["collection"] == "acme:sport"
    assert marina.node.metadata["source_kind"] == "memory"


def test_it_drops_into_a_query_engine(mx: Memex) -> None:
    engine = RetrieverQueryEngine.from_args(MemexRetriever(mx, similarity_top_k=2), llm=MockLLM())
    response = engine.query(QUERY)
    expected = [r.fragment.id for r in mx.view().search(QUERY, limit=2)]
    assert [s.node.node_id for s in response.source_nodes] == expected
    assert "SQLite database is locked" in str(response)  # MockLLM echoes the prompt


def test_an_empty_query_is_refused(mx: Memex) -> None:
    with pytest.raises(EmptyQueryError, match="query is empty"):
        MemexRetriever(mx).retrieve("   ")


# -- filters ----------------------------------------------------------------------------


def test_dict_filters_are_memex_filters(mx: Memex) -> None:
    nodes = MemexRetriever(mx, filters={"role": "user", "source": "chatgpt"}).retrieve(QUERY)
    assert nodes
    assert {(n.node.metadata["role"], n.node.metadata["source_kind"]) for n in nodes} == {
        ("user", "chatgpt")
    }


def test_metadata_filters_use_the_node_metadata_keys(mx: Memex) -> None:
    everything = MemexRetriever(mx, similarity_top_k=50).retrieve(QUERY)
    stamps = sorted(n.node.metadata["timestamp"] for n in everything)
    middle = stamps[len(stamps) // 2]
    filters = MetadataFilters(
        filters=[
            MetadataFilter(
                key="source_kind", value=["chatgpt", "claude_ai"], operator=FilterOperator.IN
            ),
            MetadataFilter(key="role", value="assistant"),
            MetadataFilter(key="timestamp", value=middle, operator=FilterOperator.GT),
        ]
    )
    nodes = MemexRetriever(mx, similarity_top_k=50, filters=filters).retrieve(QUERY)

    assert nodes
    assert all(n.node.metadata["role"] == "assistant" for n in nodes)
    assert all(n.node.metadata["timestamp"] > middle for n in nodes)  # strictly after
    inclusive = MetadataFilters(
        filters=[MetadataFilter(key="timestamp", value=middle, operator=FilterOperator.LTE)]
    )
    before = MemexRetriever(mx, similarity_top_k=50, filters=inclusive).retrieve(QUERY)
    assert max(n.node.metadata["timestamp"] for n in before) == middle


@pytest.mark.parametrize(
    "filters",
    [
        {"owners": ["users/bob"]},
        {"owner": "users/bob"},
        {"include_private": True},
        {"user_id": "bob"},
        {"user": "bob"},
        {"collection": "acme"},
        {"collections": ["acme:sport"]},
        {"since": "not a date"},
        MetadataFilters(filters=[MetadataFilter(key="owner", value="users/bob")]),
        MetadataFilters(filters=[MetadataFilter(key="collection", value="acme:sport")]),
        MetadataFilters(
            filters=[
                MetadataFilter(key="role", value="user"),
                MetadataFilter(key="role", value="x"),
            ],
            condition=FilterCondition.OR,
        ),
        MetadataFilters(
            filters=[MetadataFilters(filters=[MetadataFilter(key="role", value="user")])]
        ),
        MetadataFilters(
            filters=[MetadataFilter(key="role", value="user", operator=FilterOperator.NE)]
        ),
        MetadataFilters(
            filters=[
                MetadataFilter(key="timestamp", value="2024-01-01", operator=FilterOperator.GT)
            ]
        ),
        MetadataFilters(
            filters=[
                MetadataFilter(key="role", value="user"),
                MetadataFilter(key="role", value="tool"),
            ]
        ),
        "role=user",
    ],
)
def test_filters_never_carry_scope_and_are_refused_when_unclear(mx: Memex, filters: Any) -> None:
    with pytest.raises(MemexError):
        MemexRetriever(mx, user="alice", filters=filters)


# -- scope ------------------------------------------------------------------------------


def test_without_a_user_it_reads_the_corpus_only(mx: Memex) -> None:
    nodes = MemexRetriever(mx, similarity_top_k=50).retrieve("kayak kayaking marina")
    assert owners(nodes) <= {""}
    assert "marina" not in texts(nodes) and BOB_SECRET not in texts(nodes)


def test_a_user_reads_corpus_own_and_shared_memory_never_anothers(mx: Memex) -> None:
    retriever = MemexRetriever(mx, user="alice", similarity_top_k=50)
    nodes = retriever.retrieve(f"kayak kayaking marina {BOB_SECRET}")

    assert owners(nodes) == {"", "users/alice", "shared"}
    assert BOB_SECRET not in texts(nodes)
    keyword = MemexRetriever(mx, user="alice", mode="keyword")
    assert keyword.retrieve(BOB_SECRET) == []  # semantic search always finds something


def test_corpus_false_reads_memory_only(mx: Memex) -> None:
    nodes = MemexRetriever(mx, user="alice", corpus=False, similarity_top_k=50).retrieve(
        f"kayak kayaking sqlite {BOB_SECRET}"
    )
    assert owners(nodes) == {"users/alice", "shared"}


def test_a_collection_narrows_to_that_memory(mx: Memex) -> None:
    retriever = MemexRetriever(mx, user="alice", collection="acme", similarity_top_k=50)
    nodes = retriever.retrieve(f"kayak sqlite {BOB_SECRET}")
    assert [n.node.get_content() for n in nodes] == ["Alice keeps her kayak at the marina"]
    assert MemexRetriever(mx, user="alice", collection="nothing:here").retrieve("kayak") == []


def test_private_memory_only_when_asked_and_only_ones_own(mx: Memex) -> None:
    query = f"private kayak diary {BOB_SECRET}"
    plain = MemexRetriever(mx, user="alice", corpus=False).retrieve(query)
    asked = MemexRetriever(mx, user="alice", corpus=False, include_private=True).retrieve(query)

    assert "private kayak diary" not in texts(plain)
    assert "Alice keeps a private kayak diary" in texts(asked)
    assert BOB_SECRET not in texts(asked)


@pytest.mark.parametrize(
    "user_id",
    ["../bob", "users/bob", "bob/../alice", "", "alice\x00", "*", "bob alice", 5, ["bob"]],
)
def test_a_hostile_user_id_is_refused(mx: Memex, user_id: Any) -> None:
    with pytest.raises(MemexError):
        MemexRetriever(mx, user=user_id)


@pytest.mark.parametrize(
    "options",
    [
        {"collection": "acme"},  # no user: the corpus has no collections
        {"user": "alice", "collection": "acme:*"},
        {"user": "alice", "collection": "../bob"},
        {"corpus": False},  # nothing left to search
        {"mode": "fuzzy"},
        {"similarity_top_k": 0},
        {"similarity_top_k": True},
        {"similarity_top_k": 2.5},
    ],
)
def test_invalid_options_fail_when_built(mx: Memex, options: dict[str, Any]) -> None:
    with pytest.raises(MemexError):
        MemexRetriever(mx, **options)


def test_the_scope_is_fixed_once_built(mx: Memex) -> None:
    retriever = MemexRetriever(mx, user="alice")
    with pytest.raises(AttributeError):
        retriever.user = "bob"  # type: ignore[misc]
    assert repr(retriever).startswith("MemexRetriever(user='alice'")


# -- async and threads ------------------------------------------------------------------------


def test_aretrieve_matches_retrieve_and_runs_off_the_event_loop(
    mx: Memex, monkeypatch: pytest.MonkeyPatch
) -> None:
    retriever = MemexRetriever(mx, user="alice", similarity_top_k=8)
    threads: list[threading.Thread] = []
    search = retriever._view.search

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread())
        return search(*args, **kwargs)

    monkeypatch.setattr(retriever._view, "search", spy)

    async def run() -> tuple[list[NodeWithScore], threading.Thread]:
        return await retriever.aretrieve("kayak sqlite"), threading.current_thread()

    nodes, loop_thread = asyncio.run(run())
    assert threads and threads[0] is not loop_thread
    assert [n.node.node_id for n in nodes] == [
        n.node.node_id for n in retriever.retrieve("kayak sqlite")
    ]


def test_a_memex_first_opened_in_a_worker_thread_works_everywhere(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed = fast_memex(home)
    populate(seed)
    seed.close()
    fresh = fast_memex(home)  # nothing opened yet: the catalog opens in the worker thread
    retriever = MemexRetriever(fresh, user="alice", similarity_top_k=3)

    async_nodes = asyncio.run(retriever.aretrieve(QUERY))
    sync_nodes = retriever.retrieve(QUERY)  # then the main thread uses the same connection
    assert [n.node.node_id for n in async_nodes] == [n.node.node_id for n in sync_nodes]
    assert len(sync_nodes) == 3
    fresh.close()


def test_concurrent_reads_and_writes_on_one_memex(tmp_path: Path) -> None:
    """Retrievers and memory blocks of several users at once, through asyncio.gather: every
    call reaches memex from a worker thread, serialised by one lock per Memex (without it
    two writers share one SQLite transaction and fail)."""
    from llama_index.core.base.llms.types import ChatMessage

    mx = fast_memex(tmp_path / "home")
    users = [f"user{i}" for i in range(4)]
    blocks = {u: MemexMemoryBlock(memex=mx, user=u, collection="chat") for u in users}
    retrievers = {u: MemexRetriever(mx, user=u, corpus=False) for u in users}

    async def writes(user: str) -> None:
        for i in range(3):
            message = ChatMessage(role="user", content=f"{user} likes topic{i} and kayaks")
            await blocks[user].aput([message])

    async def reads(user: str) -> list[list[NodeWithScore]]:
        return [await retrievers[user].aretrieve("likes kayaks topic1") for _ in range(3)]

    async def run() -> list[Any]:
        return await asyncio.gather(*(writes(u) for u in users), *(reads(u) for u in users))

    outcomes = asyncio.run(run())
    for user, found in zip(users, outcomes[len(users) :], strict=True):
        for nodes in found:  # whatever each read saw, it was its own user's
            assert owners(nodes) <= {f"users/{user}", "shared"}
    for user in users:
        final = retrievers[user].retrieve("likes kayaks topic0 topic1 topic2")
        mine = [n for n in final if n.node.metadata["owner"] == f"users/{user}"]
        assert {f"{user} likes topic{i} and kayaks" for i in range(3)} <= {
            n.node.get_content() for n in mine
        }
    assert mx.call_lock is mx.call_lock  # one lock per Memex, shared by every integration
    mx.close()
