"""MemexRetriever: documents, k, modes, filters, scope, isolation, the async path, threads."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document

from memex_core.api import Memex
from memex_core.domain import SearchFilters
from memex_core.errors import MemexError
from memex_langchain import MemexRetriever, ScopeError
from tests.support.langchain_home import (
    ALICE_PRIVATE,
    DAY,
    START,
    build_home,
    corpus_fragments,
)

SQLITE = "why is the sqlite database locked"


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    """One home for the module: the tests only read (the access log grows, nothing else)."""
    memex = build_home(tmp_path_factory.mktemp("langchain-retriever") / "home")
    yield memex
    memex.close()


def texts(docs: list[Document]) -> list[str]:
    return [d.page_content for d in docs]


def no_bob(docs: list[Document]) -> None:
    leaked = [d.page_content for d in docs if "BOBSECRET" in d.page_content]
    assert not leaked, f"bob's memory leaked: {leaked}"


# -- documents ----------------------------------------------------------------------------


def test_document_id_content_and_metadata_come_from_the_fragment(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, k=10).invoke(SQLITE)
    assert docs
    ids = [d.id for d in docs if d.id is not None]
    fragments = {f.id: f for f in mx.get(ids)}
    assert set(fragments) == {d.id for d in docs}
    for doc in docs:
        assert doc.id is not None
        fragment = fragments[doc.id]
        assert doc.page_content == fragment.content
        meta = doc.metadata
        assert meta["conversation_id"] == fragment.conversation_id
        assert meta["source_kind"] == fragment.source_kind
        assert meta["source"] == fragment.provenance.source_path
        assert meta["locator"] == fragment.provenance.locator
        assert meta["role"] == fragment.role
        assert meta["timestamp"] == fragment.timestamp
        assert meta["title"] == fragment.title
        assert meta["owner_kind"] == "corpus"
        assert meta["collection"] == ""
        assert meta["mode"] == "hybrid"
        json.dumps(meta)  # flat and JSON-ready


def test_score_and_ranks_match_memex_search(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, k=5).invoke(SQLITE, time_phrases=False)
    expected = mx.view().search(SQLITE, "hybrid", 5, time_phrases=False)
    assert [d.id for d in docs] == [r.id for r in expected]
    for doc, result in zip(docs, expected, strict=True):
        assert doc.metadata["score"] == pytest.approx(result.score)
        assert doc.metadata["keyword_rank"] == result.ranks.get("keyword")
        assert doc.metadata["semantic_rank"] == result.ranks.get("semantic")
        assert doc.metadata["keyword_score"] == result.scores.get("keyword")
        assert doc.metadata["semantic_score"] == result.scores.get("semantic")
    scores = [d.metadata["score"] for d in docs]
    assert scores == sorted(scores, reverse=True)
    assert any(d.metadata["keyword_rank"] and d.metadata["semantic_rank"] for d in docs)


def test_memory_documents_show_the_agents_paths_never_storage_paths(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, user="alice", k=20, source="memory").invoke("sqlite checklist")
    by_path = {d.metadata["path"]: d for d in docs if d.metadata["path"]}
    assert "user/notes/sqlite.md" in by_path
    assert by_path["user/notes/sqlite.md"].metadata["source"] == "user/notes/sqlite.md"
    assert by_path["user/notes/sqlite.md"].metadata["owner_kind"] == "user"
    shared = MemexRetriever(memex=mx, user="alice", k=20).invoke("shared FAQ transaction")
    faq = [d for d in shared if d.metadata["path"] == "shared/faq.md"]
    assert faq and faq[0].metadata["owner_kind"] == "shared"
    assert faq[0].metadata["collection"] == "acme:support"
    facts = [d for d in docs if d.metadata["path"] is None]
    assert facts and all(d.metadata["memory_id"].startswith("mem_") for d in facts)
    assert all(d.metadata["source"] == f"memory:{d.metadata['memory_id']}" for d in facts)
    assert "users/" not in json.dumps([d.metadata for d in docs + shared])


# -- k and modes ----------------------------------------------------------------------------


def test_k_defaults_to_four_and_is_taken_per_call(mx: Memex) -> None:
    retriever = MemexRetriever(memex=mx)
    assert retriever.k == 4
    assert len(retriever.invoke("sqlite")) == 4
    assert len(retriever.invoke("sqlite", k=2)) == 2
    assert len(MemexRetriever(memex=mx, k=6).invoke("sqlite")) == 6
    assert retriever.k == 4  # a call does not change the retriever


@pytest.mark.parametrize("k", [0, -1, 2.5, "3", True])
def test_bad_k_is_refused(mx: Memex, k: Any) -> None:
    with pytest.raises(ValueError, match="k must be"):
        MemexRetriever(memex=mx).invoke("sqlite", k=k)


def test_bad_k_field_is_refused(mx: Memex) -> None:
    with pytest.raises(ValueError):
        MemexRetriever(memex=mx, k=0)


def test_keyword_mode_has_keyword_ranks_only(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, mode="keyword", k=5).invoke(SQLITE)
    assert docs
    assert [d.metadata["keyword_rank"] for d in docs] == list(range(1, len(docs) + 1))
    assert all(d.metadata["semantic_rank"] is None for d in docs)
    assert all(d.metadata["mode"] == "keyword" for d in docs)


def test_semantic_mode_per_call_has_semantic_ranks_only(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, k=5).invoke(SQLITE, mode="semantic")
    assert len(docs) == 5
    assert [d.metadata["semantic_rank"] for d in docs] == list(range(1, 6))
    assert all(d.metadata["keyword_rank"] is None for d in docs)


def test_unknown_mode_is_refused(mx: Memex) -> None:
    with pytest.raises(ValueError, match="mode must be one of"):
        MemexRetriever(memex=mx).invoke("sqlite", mode="fuzzy")
    with pytest.raises(ValueError):
        MemexRetriever(memex=mx, mode="fuzzy")  # type: ignore[arg-type]


# -- filters ------------------------------------------------------------------------------


def test_source_and_role_filters_as_fields_and_per_call(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, source="claude_code", k=10).invoke("deploy sqlite")
    assert docs and {d.metadata["source_kind"] for d in docs} == {"claude_code"}
    docs = MemexRetriever(memex=mx, k=10).invoke("sqlite", role=["assistant"])
    assert docs and {d.metadata["role"] for d in docs} == {"assistant"}
    docs = MemexRetriever(memex=mx, k=10, role="user").invoke("sqlite", role="assistant")
    assert {d.metadata["role"] for d in docs} == {"assistant"}  # the call's filter wins


def test_conversation_filter(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, k=10).invoke("sqlite", conversation="conv-deploy")
    assert docs and {d.metadata["conversation_id"] for d in docs} == {"conv-deploy"}


def test_since_and_until_filters(mx: Memex) -> None:
    fragments = corpus_fragments()
    since, until = START + 4 * DAY, START + 6 * DAY
    docs = MemexRetriever(memex=mx, k=20, since=since, until=until).invoke("the")
    expected = {f.id for f in fragments if since <= (f.timestamp or 0) <= until}
    assert {d.id for d in docs} <= expected
    assert docs and all(since <= d.metadata["timestamp"] <= until for d in docs)
    day = datetime.fromtimestamp(START, UTC).date().isoformat()  # "2024-03-01"
    docs = MemexRetriever(memex=mx, k=20).invoke("sqlite", since=day, until=day)
    assert texts(docs) == [fragments[0].content]


def test_time_phrase_in_the_query_filters_unless_turned_off(mx: Memex) -> None:
    with_phrase = MemexRetriever(memex=mx, k=20).invoke("sqlite in March 2024")
    assert with_phrase and all(
        START <= d.metadata["timestamp"] < START + 31 * DAY for d in with_phrase
    )
    literal = MemexRetriever(memex=mx, k=20, user="alice", source="memory").invoke(
        "sqlite in March 2024", time_phrases=False
    )
    assert any(d.metadata["owner_kind"] == "user" for d in literal)  # memory is from now


def test_unknown_keyword_arguments_are_refused(mx: Memex) -> None:
    retriever = MemexRetriever(memex=mx)
    with pytest.raises(TypeError, match="owners"):
        retriever.invoke("sqlite", owners=("users/bob",))
    with pytest.raises(TypeError, match="filters"):
        retriever.invoke("sqlite", filters=SearchFilters(owners=("users/bob",)))


# -- scope ----------------------------------------------------------------------------------


def test_without_a_user_only_the_corpus_is_read(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, k=50).invoke("sqlite database locked tea BOBSECRET")
    assert docs and {d.metadata["owner_kind"] for d in docs} == {"corpus"}


def test_user_reads_corpus_own_and_shared_memory(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, user="alice", k=50).invoke("sqlite database locked")
    assert {d.metadata["owner_kind"] for d in docs} == {"corpus", "user", "shared"}
    no_bob(docs)


def test_corpus_false_reads_memory_only(mx: Memex) -> None:
    docs = MemexRetriever(memex=mx, user="alice", corpus=False, k=50).invoke("sqlite locked")
    assert docs and "corpus" not in {d.metadata["owner_kind"] for d in docs}
    docs = MemexRetriever(memex=mx, user="alice", k=50).invoke("sqlite locked", corpus=False)
    assert docs and "corpus" not in {d.metadata["owner_kind"] for d in docs}


def test_collection_reads_that_collection_and_below_only(mx: Memex) -> None:
    retriever = MemexRetriever(memex=mx, user="alice", collection="acme:support", k=50)
    docs = retriever.invoke("sqlite tea locked")
    assert {d.metadata["collection"] for d in docs} == {"acme:support", "acme:support:eu"}
    eu = retriever.invoke("sqlite tea locked", collection="acme:support:eu")
    assert {d.metadata["collection"] for d in eu} == {"acme:support:eu"}
    no_bob(docs + eu)


def test_private_memory_only_when_the_retriever_allows_it(mx: Memex) -> None:
    query = "sqlite password hint cat"
    assert ALICE_PRIVATE not in texts(MemexRetriever(memex=mx, user="alice", k=50).invoke(query))
    allowed = MemexRetriever(memex=mx, user="alice", include_private=True, k=50)
    assert ALICE_PRIVATE in texts(allowed.invoke(query))
    assert ALICE_PRIVATE not in texts(allowed.invoke(query, include_private=False))
    with pytest.raises(ScopeError, match="include_private=False"):
        MemexRetriever(memex=mx, user="alice").invoke(query, include_private=True)


def test_an_unbound_retriever_takes_the_user_per_call_without_leaking_between_calls(
    mx: Memex,
) -> None:
    retriever = MemexRetriever(memex=mx, k=50, source="memory")
    bob = retriever.invoke("sqlite locked", user="bob")
    assert bob and any("BOBSECRET" in t for t in texts(bob))
    alice = retriever.invoke("sqlite locked", user="alice")
    assert alice
    no_bob(alice)
    assert retriever.invoke("sqlite locked") == []  # no user: the memory source is empty
    assert retriever.user is None


HOSTILE_CALLS: list[dict[str, Any]] = [
    {"user": "bob"},
    {"user": "Bob"},
    {"user": "alice/../bob"},
    {"user": "users/bob"},
    {"user": ""},
    {"collection": "acme"},
    {"collection": "acme:supportx"},
    {"collection": "acme:support:"},
    {"collection": "acme:sup"},
    {"collection": ""},
    {"collection": "acme:support%"},
    {"collection": "*"},
    {"corpus": True},
    {"include_private": True},
    {"source": "memory"},
    {"source": ["memory", "chatgpt"], "role": "note"},
    {"conversation": "BOB_MEMORY_ID"},
    {"owners": ("users/bob",)},
    {"filters": SearchFilters(owners=("users/bob",))},
    {"owner": "users/bob"},
    {"user_id": "bob"},
    {"memex": None},
    {"mode": "keyword", "user": "bob"},
    {"since": 0, "until": 10**12, "k": 100},
]


@pytest.mark.parametrize(
    "call", HOSTILE_CALLS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items())
)
@pytest.mark.parametrize("query", ["BOBSECRET sqlite locked", "bob tomatoes Friday coffee"])
def test_a_retriever_bound_to_alice_never_returns_bobs_memory(
    mx: Memex, call: dict[str, Any], query: str
) -> None:
    bob_memory = mx.operator().list(user_id="bob")
    call = {k: (bob_memory[0].id if v == "BOB_MEMORY_ID" else v) for k, v in call.items()}
    retriever = MemexRetriever(
        memex=mx, user="alice", collection="acme:support", corpus=False, k=50
    )
    for invoke in (retriever.invoke, lambda q, **kw: asyncio.run(retriever.ainvoke(q, **kw))):
        try:
            docs = invoke(query, **call)
        except (ScopeError, TypeError, MemexError):
            continue
        no_bob(docs)
        assert all(d.metadata["owner_kind"] in ("user", "shared") for d in docs)
        assert all(d.metadata["collection"] in ("acme:support", "acme:support:eu") for d in docs)


def test_scope_widening_calls_say_how_to_get_that_scope(mx: Memex) -> None:
    retriever = MemexRetriever(memex=mx, user="alice", collection="acme:support", corpus=False)
    with pytest.raises(ScopeError, match=r"bound to user 'alice'.*MemexRetriever\(user='bob'\)"):
        retriever.invoke("sqlite", user="bob")
    with pytest.raises(ScopeError, match="'acme:supportx' is outside it"):
        retriever.invoke("sqlite", collection="acme:supportx")
    with pytest.raises(ScopeError, match="'acme' is outside it"):
        retriever.invoke("sqlite", collection="acme")
    with pytest.raises(ScopeError, match="corpus=False"):
        retriever.invoke("sqlite", corpus=True)
    assert retriever.invoke("sqlite", user="alice")  # repeating the bound user is fine


def test_a_bad_user_or_collection_field_is_refused_at_construction(mx: Memex) -> None:
    with pytest.raises(MemexError, match="user id"):
        MemexRetriever(memex=mx, user="../bob")
    with pytest.raises(MemexError, match="collection"):
        MemexRetriever(memex=mx, collection="acme::x")


def test_reads_are_logged_under_the_user_with_the_tool_call_id(mx: Memex) -> None:
    MemexRetriever(memex=mx, user="alice", agent_name="support-bot").invoke(
        "sqlite", tool_call_id="call_42"
    )
    entries = mx.operator().access_log(tool_call_id="call_42")
    assert [(e.actor, e.user_id, e.action) for e in entries] == [("support-bot", "alice", "search")]


# -- async, batch and threads ------------------------------------------------------------------


def test_ainvoke_matches_invoke(mx: Memex) -> None:
    retriever = MemexRetriever(memex=mx, user="alice", k=6)
    sync = retriever.invoke(SQLITE, role="user")
    result = asyncio.run(retriever.ainvoke(SQLITE, role="user"))
    assert [d.id for d in result] == [d.id for d in sync] and sync
    assert result == sync


def test_ainvoke_runs_off_the_event_loop_thread(mx: Memex, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    original = MemexRetriever.search

    def spy(self: MemexRetriever, query: str, **kwargs: Any) -> list[Document]:
        seen.append(threading.get_ident())
        return original(self, query, **kwargs)

    monkeypatch.setattr(MemexRetriever, "search", spy)

    async def main() -> int:
        await MemexRetriever(memex=mx).ainvoke("sqlite")
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert seen and seen[0] != loop_thread


def test_concurrent_ainvoke_on_one_memex_gives_the_sequential_results(mx: Memex) -> None:
    queries = ["sqlite locked", "tomatoes frost", "rust lifetimes", "deploy friday", SQLITE] * 4
    users = [None, "alice", "bob"]
    retriever = MemexRetriever(memex=mx, k=5)
    expected = [
        [d.id for d in retriever.invoke(q, user=users[i % 3])] for i, q in enumerate(queries)
    ]

    async def main() -> list[list[Document]]:
        return await asyncio.gather(
            *(retriever.ainvoke(q, user=users[i % 3]) for i, q in enumerate(queries))
        )

    got = asyncio.run(main())
    assert [[d.id for d in docs] for docs in got] == expected
    for i, docs in enumerate(got):
        if users[i % 3] != "bob":
            no_bob(docs)


def test_batch_and_abatch_pass_keyword_arguments(mx: Memex) -> None:
    retriever = MemexRetriever(memex=mx, user="alice")
    batched = retriever.batch(["sqlite", "tomatoes"], k=1, mode="keyword")
    assert [len(docs) for docs in batched] == [1, 1]
    assert "tomatoes" in batched[1][0].page_content
    abatched = asyncio.run(retriever.abatch(["sqlite", "tomatoes"], k=1, mode="keyword"))
    assert abatched == batched


def test_a_memex_opened_in_one_thread_serves_another(mx: Memex) -> None:
    # ``mx`` was opened (catalog connection included) on this thread; search from a worker.
    retriever = MemexRetriever(memex=mx, k=3)
    here = retriever.invoke("sqlite")
    box: dict[str, Any] = {}

    def worker() -> None:
        try:
            box["docs"] = retriever.invoke("sqlite")
            box["other"] = Memex(mx.home, registry=mx.registry, config=mx.config)
            box["other"].catalog  # noqa: B018 - opened on the worker thread
        except Exception as exc:  # pragma: no cover - reported below
            box["error"] = exc

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert "error" not in box, box.get("error")
    assert box["docs"] == here
    other: Memex = box["other"]
    try:  # and a Memex opened on the worker is searched from this thread
        assert MemexRetriever(memex=other, k=3).invoke("sqlite") == here
    finally:
        other.close()


def test_home_opens_a_memex_on_first_use(mx: Memex) -> None:
    retriever = MemexRetriever(home=mx.home, mode="keyword", k=2)
    docs = retriever.invoke("tomatoes")
    assert [d.metadata["conversation_id"] for d in docs] == ["conv-garden", "conv-garden"]
    assert retriever.invoke("tomatoes") == docs  # the opened Memex is reused
    assert "memex" not in retriever.model_dump()
