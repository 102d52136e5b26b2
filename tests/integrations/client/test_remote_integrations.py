"""The integrations over a real ``memex serve``: each adapter given a ``MemexClient`` in
place of a ``Memex`` (one changed line), ``memex mcp --url --api-key``, and the CLI's search
and memory commands with ``MEMEX_URL`` and ``MEMEX_API_KEY`` set.

One server (a subprocess on 127.0.0.1, keyword-only so it starts in about a second) serves
the whole module. Its home holds a small corpus, alice's memory, bob's memory with the
canaries of :mod:`tests.support.memory_attacks`, and a shared file. Where a test compares with the
local ``Memex``, it opens the same home in this process while the server runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from memex_core.api import Memex
from memex_core.cli import cli
from memex_core.errors import MemexError
from tests.support.export_builders import write_chatgpt_export
from tests.support.memex_service import running_service
from tests.support.memory_attacks import BOB_CANARY, BOB_HIDDEN

pytest.importorskip("httpx", reason="the client needs httpx (pip install 'memex[client]')")
pytest.importorskip("fastapi", reason="memex serve needs FastAPI (pip install 'memex[server]')")

from memex_client import MemexClient

#: Queries with hits in the corpus, alice's memory and shared memory, none of bob's.
QUERIES = ("database locked sqlite", "sourdough bread fridge", "green tea", "kayak trip", "deploys")
#: What alice types to reach bob's memory; BOB_HIDDEN must never come back unless typed.
ATTACKS = ("bluebird", BOB_CANARY, f"bluebird launch {BOB_CANARY}", "launch codename")
BOB_TEXT = f"Bob's launch codename is bluebird ({BOB_CANARY}, {BOB_HIDDEN})"


@dataclass
class Served:
    url: str
    home: Path
    admin_secret: str
    alice_key: str
    bob_key: str
    operator: MemexClient  # the operator secret
    alice: MemexClient  # alice's agent key
    bob_fact: str  # bob's memory id
    bob_fragment: str  # the fragment of bob's fact


def build_home(root: Path) -> tuple[Path, str, str]:
    home = root / "home"
    home.mkdir(parents=True)
    (home / "config.toml").write_text('[embedder]\nuse = "none"\n', encoding="utf-8")
    export = write_chatgpt_export(root / "inputs" / "conversations.json")
    with Memex(home) as mx:
        mx.ingest(export)
        alice = mx.agent("alice")
        alice.remember("Alice prefers green tea in the afternoon", collection="acme:support")
        alice.write("user/notes.md", "Alice's notes: the kayak trip is in June.")
        bob = mx.agent("bob")
        bob_fact = bob.remember(BOB_TEXT, collection="acme:secret").memory_ids[0]
        bob.write("user/plans.md", f"The bluebird launch plan: ship in May. {BOB_HIDDEN}")
        mx.operator().write("shared/handbook.md", "Deploys happen on Tuesdays after standup.")
        bob_fragment = mx.catalog.conversation_fragments(bob_fact)[0].id
    return home, bob_fact, bob_fragment


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home, bob_fact, bob_fragment = build_home(tmp_path_factory.mktemp("remote-integrations"))
    with running_service(home) as service:
        operator = MemexClient(service.url, admin_secret=service.admin_secret)
        alice_key = operator.create_key(user="alice", name="alice-bot")["key"]
        bob_key = operator.create_key(user="bob", name="bob-bot")["key"]
        alice = MemexClient(service.url, api_key=alice_key)
        try:
            yield Served(
                service.url,
                home,
                service.admin_secret,
                alice_key,
                bob_key,
                operator,
                alice,
                bob_fact,
                bob_fragment,
            )
        finally:
            alice.close()
            operator.close()


def assert_nothing_of_bobs(text: str) -> None:
    assert BOB_HIDDEN not in text
    assert "users/bob" not in text


# -- LangChain ----------------------------------------------------------------------------------


def documents(docs: list[Any]) -> list[tuple[Any, ...]]:
    return [(d.id, d.page_content, d.metadata) for d in docs]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_langchain_retriever_over_a_client_returns_what_the_local_memex_returns(
    served: Served, mode: str
) -> None:
    from memex_langchain import MemexRetriever

    remote = MemexRetriever(memex=served.alice, k=5, mode=mode)  # the one changed line
    with Memex(served.home) as mx:
        local = MemexRetriever(memex=mx, user="alice", k=5, mode=mode)
        for query in QUERIES:
            expected = documents(local.invoke(query))
            assert expected, query
            assert documents(remote.invoke(query)) == expected, query


def test_langchain_retriever_reads_for_the_keys_user_only(served: Served) -> None:
    from memex_langchain import MemexRetriever, ScopeError

    retriever = MemexRetriever(memex=served.alice, mode="keyword")
    assert {d.metadata["owner_kind"] for d in retriever.invoke("green tea")} >= {"user"}
    with pytest.raises(ScopeError, match=r"agent key of user 'alice'.*'bob'"):
        MemexRetriever(memex=served.alice, user="bob").invoke("bluebird")
    with pytest.raises(ScopeError, match="'bob'"):
        retriever.invoke("bluebird", user="bob")
    for query in ATTACKS:
        assert retriever.invoke(query) == [], query
    queries = ["green tea", "kayak trip"]
    batched = asyncio.run(retriever.abatch(queries))  # worker threads share the one client
    assert [documents(d) for d in batched] == [documents(retriever.invoke(q)) for q in queries]
    # The operator secret reads every user's memory: a retriever must name the one it serves.
    with pytest.raises(ScopeError, match="operator secret"):
        MemexRetriever(memex=served.operator, mode="keyword").invoke("tea")
    bobs = MemexRetriever(memex=served.operator, user="bob", mode="keyword").invoke("bluebird")
    assert any(BOB_HIDDEN in d.page_content for d in bobs)  # the control: the text is there


def test_langgraph_store_puts_gets_and_searches_through_a_client(served: Served) -> None:
    from memex_langchain import ScopeError
    from memex_langchain.store import MemexStore

    store = MemexStore(served.alice)
    store.put(("alice", "prefs"), "drink", {"likes": "oolong tea"})
    store.put(("alice", "prefs"), "food", {"likes": "udon"})
    item = store.get(("alice", "prefs"), "drink")
    assert item is not None and item.value == {"likes": "oolong tea"}
    hits = store.search(("alice",), query="oolong")
    assert [h.key for h in hits] == ["drink"] and hits[0].score is not None
    assert {i.key for i in store.search(("alice", "prefs"))} == {"drink", "food"}
    assert store.list_namespaces() == [("alice", "prefs")]
    store.delete(("alice", "prefs"), "food")
    store.delete(("alice", "prefs"), "never-there")  # not an error, as in LangGraph
    assert store.get(("alice", "prefs"), "food") is None
    # The items are alice's memory files on the server, with revisions.
    files = served.operator.operator().list(user_id="alice", kind="file")
    assert "users/alice/langgraph/prefs/drink" in {r.path for r in files}
    # An agent key's store serves its user only.
    with pytest.raises(ScopeError, match="'bob'"):
        store.put(("bob", "prefs"), "drink", {"likes": "coffee"})
    with pytest.raises(ScopeError, match="agent key of user 'alice'"):
        MemexStore(served.alice, user="bob").get(("bob", "prefs"), "drink")
    assert store.search(("alice",), query="bluebird") == []
    # The operator's store serves every user and lists namespaces across them.
    everyone = MemexStore(served.operator)
    assert everyone.get(("alice", "prefs"), "drink") == item
    assert ("alice", "prefs") in everyone.list_namespaces()


def test_langgraph_store_as_of_through_a_client(served: Served) -> None:
    """Past revisions are the operator's: the operator's client reads an item as it stood
    then; a store over an agent key's client says it cannot (issue 30)."""
    from memex_langchain import ScopeError
    from memex_langchain.store import MemexStore

    store = MemexStore(served.operator)
    store.put(("alice", "past"), "tool", {"uses": "vim"})
    store.put(("alice", "past"), "tool", {"uses": "helix"})
    path = "users/alice/langgraph/past/tool"
    record = next(
        r for r in served.operator.operator().list(user_id="alice", kind="file") if r.path == path
    )
    first, second = served.operator.operator().history(record.id)
    then = store.at(first.created_at)
    assert then.get(("alice", "past"), "tool").value == {"uses": "vim"}
    assert [i.value for i in then.search(("alice", "past"), query="vim")] == [{"uses": "vim"}]
    assert store.at(second.created_at).get(("alice", "past"), "tool").value == {"uses": "helix"}
    with pytest.raises(ScopeError, match="operator's"):
        MemexStore(served.alice, as_of=first.created_at).get(("alice", "past"), "tool")


# -- LlamaIndex ---------------------------------------------------------------------------------


def test_llamaindex_retriever_over_a_client_returns_what_the_local_memex_returns(
    served: Served,
) -> None:
    from memex_llamaindex import MemexRetriever

    remote = MemexRetriever(served.alice, similarity_top_k=5, mode="keyword")
    assert remote.user == "alice"
    with Memex(served.home) as mx:
        local = MemexRetriever(mx, user="alice", similarity_top_k=5, mode="keyword")
        for query in QUERIES:
            expected = [(n.node.node_id, n.score, n.node.text) for n in local.retrieve(query)]
            assert expected, query
            got = [(n.node.node_id, n.score, n.node.text) for n in remote.retrieve(query)]
            assert got == expected, query
    for query in ATTACKS:
        assert remote.retrieve(query) == [], query
    with pytest.raises(MemexError, match="agent key of user 'alice'"):
        MemexRetriever(served.alice, user="bob")


def test_llamaindex_memory_block_stores_and_recalls_through_a_client(served: Served) -> None:
    from llama_index.core.base.llms.types import ChatMessage

    from memex_llamaindex import MemexMemoryBlock

    block = MemexMemoryBlock(memex=served.alice, user="alice", mode="keyword")
    said = ChatMessage(role="user", content="I always book a window seat on long flights")
    asyncio.run(block.aput([said]))
    recalled = asyncio.run(block.aget([ChatMessage(role="user", content="which seat to book?")]))
    assert "window seat" in recalled
    stored = served.operator.operator().search("window seat", user_id="alice", mode="keyword")
    assert stored  # in alice's memory on the server
    for query in ATTACKS:
        text = asyncio.run(block.aget([ChatMessage(role="user", content=query)]))
        assert text == "", query
    with pytest.raises(MemexError, match="agent key of user 'alice'"):
        MemexMemoryBlock(memex=served.alice, user="bob")
    per_session = MemexMemoryBlock(memex=served.alice, session_scope=lambda session: "bob")
    with pytest.raises(MemexError, match="cannot reach the memory of 'bob'"):
        asyncio.run(per_session.aget([said], session_id="chat-1"))


# -- MCP ----------------------------------------------------------------------------------------


def test_memex_mcp_serves_a_memex_serve_through_an_agent_key(
    served: Served, tmp_path: Path
) -> None:
    harness = pytest.importorskip("tests.support.mcp_harness")
    no_home = tmp_path / "no-home"  # memex mcp --url must not open (or create) a local home

    async def body() -> None:
        args = ("--url", served.url, "--api-key", served.alice_key)
        async with harness.mcp_session(no_home, *args) as session:
            found = await session.call_tool("search", {"query": "green tea", "mode": "keyword"})
            assert not found.is_error
            assert "green tea" in harness.text_of(found)
            for query in ATTACKS:
                leaked = await session.call_tool("search", {"query": query, "mode": "keyword"})
                assert leaked.structured_content["hits"] == [], query
                assert_nothing_of_bobs(harness.text_of(leaked))
            bobs = await session.call_tool("get", {"ids": [served.bob_fact, served.bob_fragment]})
            assert bobs.is_error and "No fragment or memory" in harness.text_of(bobs)
            kept = await session.call_tool("remember", {"text": "Alice's editor is Helix"})
            assert not kept.is_error
            assert kept.structured_content["user_id"] == "alice"
            memory_id = kept.structured_content["memory_ids"][0]
            again = await session.call_tool("get", {"ids": [memory_id]})
            assert again.structured_content["memories"][0]["content"] == "Alice's editor is Helix"
            pack = await session.call_tool("context", {"query": "kayak trip", "budget_chars": 500})
            assert "kayak" in harness.text_of(pack)

    async def as_operator() -> None:
        # The operator secret acts for --user alone: the tools never read the whole home.
        args = ("--url", served.url, "--api-key", served.admin_secret, "--user", "alice")
        async with harness.mcp_session(no_home, *args) as session:
            found = await session.call_tool("search", {"query": "green tea", "mode": "keyword"})
            assert "green tea" in harness.text_of(found)
            for query in ATTACKS:
                leaked = await session.call_tool("search", {"query": query, "mode": "keyword"})
                assert leaked.structured_content["hits"] == [], query

    harness.run(body)
    harness.run(as_operator)
    assert not no_home.exists()
    assert served.alice.agent().search("Helix", mode="keyword")  # stored on the server


def run_mcp(home: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    """``memex mcp ARGS`` with stdin closed; the home comes from $MEMEX_HOME (a ``--home``
    on the command line would keep it local whatever $MEMEX_URL says)."""
    harness = pytest.importorskip("tests.support.mcp_harness")
    env = {**os.environ, **harness.server_env(), "MEMEX_HOME": str(home)}
    for name in ("MEMEX_URL", "MEMEX_API_KEY", "MEMEX_USER"):
        env.pop(name, None)
    env.update(extra_env)
    command = harness.memex_command(home, "mcp", *args)
    at = command.index("--home")
    del command[at : at + 2]
    return subprocess.run(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_memex_mcp_refuses_at_start_what_the_key_cannot_serve(
    served: Served, tmp_path: Path
) -> None:
    home = tmp_path / "no-home"
    other = run_mcp(home, "--url", served.url, "--api-key", served.alice_key, "--user", "bob")
    assert other.returncode == 2
    assert "acts for user 'alice', not 'bob'" in other.stderr
    wrong = run_mcp(home, "--url", served.url, "--api-key", "mxk_000000000000_" + "x" * 43)
    assert wrong.returncode == 1
    assert "unknown or revoked" in wrong.stderr and "Traceback" not in wrong.stderr
    keyless = run_mcp(home, "--url", served.url)
    assert keyless.returncode == 2 and "--api-key" in keyless.stderr
    urlless = run_mcp(home, "--api-key", served.alice_key)
    assert urlless.returncode == 2 and "--url" in urlless.stderr
    # $MEMEX_URL and $MEMEX_API_KEY together mean the service too; MEMEX_USER must be the key's.
    env = {"MEMEX_URL": served.url, "MEMEX_API_KEY": served.alice_key, "MEMEX_USER": "bob"}
    from_env = run_mcp(home, **env)
    assert from_env.returncode == 2 and "acts for user 'alice', not 'bob'" in from_env.stderr
    assert not home.exists()


# -- the CLI ------------------------------------------------------------------------------------


def memex(served: Served, key: str | None, *args: str) -> Result:
    """``memex ARGS`` with MEMEX_URL and MEMEX_API_KEY set to ``key`` (None: unset)."""
    env: dict[str, str | None] = {"MEMEX_URL": served.url, "MEMEX_API_KEY": key}
    if key is None:
        env = {"MEMEX_URL": None, "MEMEX_API_KEY": None}
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def json_of(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cli_search_runs_on_the_service_with_the_local_output(served: Served) -> None:
    home = str(served.home)
    for command in ("keyword", "dig"):
        for query in ("sourdough bread", "database locked"):  # the corpus: alice reads it all
            args = (command, query, "--format", "json")
            local = json_of(memex(served, None, "--home", home, *args))
            assert local
            # The operator secret searches the whole home, as the local command does.
            assert json_of(memex(served, served.admin_secret, *args)) == local
            # An agent key searches its scope: the same hits (BM25 weighs words by what the
            # scope holds, so the scores differ from the whole home's).
            scoped = json_of(memex(served, served.alice_key, *args))
            assert [(h["id"], h["content"]) for h in scoped] == [
                (h["id"], h["content"]) for h in local
            ]
        concise = memex(served, served.alice_key, command, "sourdough", "--concise")
        assert concise.exit_code == 0 and "Sourdough" in concise.stdout
    said = memex(served, served.alice_key, "keyword", "tea", "--format", "ids")
    assert f"using memex serve at {served.url} as agent key 'alice-bot' of user 'alice'" in (
        said.stderr
    )
    # The operator secret in MEMEX_API_KEY searches the whole home, as a local search does.
    args = ("keyword", "bluebird", "--format", "json")
    everything = json_of(memex(served, served.admin_secret, *args))
    assert everything == json_of(memex(served, None, "--home", home, *args))
    assert any(BOB_HIDDEN in hit["content"] for hit in everything)
    # --home on the command line means the local home, whatever the environment says.
    assert json_of(memex(served, served.alice_key, "--home", home, *args)) == everything
    tuned = memex(served, served.alice_key, "dig", "tea", "--semantic-weight", "0.7")
    assert tuned.exit_code == 2 and "--semantic-weight" in tuned.stderr
    revoked = memex(served, "mxk_000000000000_" + "x" * 43, "keyword", "tea")
    assert revoked.exit_code == 1 and "unknown or revoked" in revoked.stderr
    assert "$MEMEX_URL and $MEMEX_API_KEY are set" in revoked.stderr  # why it went remote


def test_cli_with_an_agent_key_never_shows_another_users_memory(served: Served) -> None:
    key = served.alice_key
    for query in ATTACKS:
        for command in ("keyword", "dig"):
            found = memex(served, key, command, query, "--format", "json")
            assert json_of(found) == [], (command, query)
        assert json_of(memex(served, key, "recall", query, "--format", "json")) == []
    listed = json_of(memex(served, key, "memories", "--deleted", "--format", "json"))
    assert listed and {m["owner"] for m in listed} <= {"users/alice", "shared"}
    assert_nothing_of_bobs(json.dumps(listed))
    for args in (
        ("recall", "bluebird", "--user", "bob"),
        ("memories", "--user", "bob"),
        ("remember", "Bob likes tea", "--user", "bob"),
        ("dream", "--user", "bob"),
    ):
        refused = memex(served, key, *args)
        assert refused.exit_code == 1, args
        assert "cannot reach the memory of 'bob'" in refused.stderr, args
    for args in (
        ("history", served.bob_fact),
        ("log",),
        ("forget", "--purge", "--user", "bob", "--confirm", "bob"),
        ("remember", "x", "--user", "alice", "--operator"),
    ):
        refused = memex(served, key, *args)
        assert refused.exit_code == 1, args
        assert "is the operator's" in refused.stderr, args
    gone = memex(served, key, "forget", served.bob_fact)
    assert gone.exit_code == 1 and "No memory" in gone.stderr
    assert served.operator.operator().get(served.bob_fact).status == "active"


def test_cli_memory_commands_run_on_the_service(served: Served) -> None:
    key = served.alice_key
    kept = json_of(memex(served, key, "remember", "Alice's cat is called Miso", "--format", "json"))
    assert kept["user_id"] == "alice"
    memory_id = kept["decisions"][0]["memory_id"]
    hits = json_of(memex(served, key, "recall", "Miso", "--mode", "keyword", "--format", "json"))
    assert [h["memory_id"] for h in hits] == [memory_id]
    shown = memex(served, key, "recall", "Miso", "--mode", "keyword")
    assert shown.exit_code == 0 and "Miso" in shown.stdout
    listed = json_of(memex(served, key, "memories", "--format", "json"))
    assert memory_id in {m["id"] for m in listed}
    assert json_of(memex(served, key, "forget", memory_id, "--format", "json"))[0]["id"] == (
        memory_id
    )
    assert json_of(memex(served, key, "recall", "Miso", "--format", "json")) == []
    assert json_of(memex(served, key, "undelete", memory_id, "--format", "json"))["id"] == (
        memory_id
    )
    # The operator's commands, with the operator secret in MEMEX_API_KEY.
    secret = served.admin_secret
    revisions = json_of(memex(served, secret, "history", memory_id, "--format", "json"))
    assert len(revisions) == 3  # remembered, forgotten, undeleted
    restored = json_of(memex(served, secret, "restore", memory_id, "1", "--format", "json"))
    assert restored["id"] == memory_id and restored["status"] == "active"
    planned = memex(served, key, "dream", "--dry-run", "--format", "json")
    assert planned.exit_code == 0, planned.output
    assert_nothing_of_bobs(planned.stdout)
    log = json_of(memex(served, secret, "log", "--user", "alice", "--format", "json"))
    assert any(entry["actor"] == "alice-bot" for entry in log)
    bobs = json_of(memex(served, secret, "memories", "--user", "bob", "--format", "json"))
    assert served.bob_fact in {m["id"] for m in bobs}
    for_bob = memex(served, secret, "recall", "bluebird", "--user", "bob", "--format", "json")
    assert served.bob_fact in {h["memory_id"] for h in json_of(for_bob)}


def test_cli_reading_commands_follow_a_remote_search(served: Served) -> None:
    key = served.alice_key
    ids = memex(served, key, "keyword", "database locked", "--format", "ids").stdout.split()
    assert ids
    around = json_of(memex(served, key, "timeline", ids[0], "--format", "json"))
    assert around["anchor_id"] == ids[0] and len(around["items"]) == 2
    whole = json_of(memex(served, key, "get", *ids[:2], "--format", "json"))
    assert [f["id"] for f in whole] == ids[:2]
    home = ("--home", str(served.home))  # the same commands on the local home print the same
    assert around == json_of(memex(served, None, *home, "timeline", ids[0], "--format", "json"))
    assert whole == json_of(memex(served, None, *home, "get", *ids[:2], "--format", "json"))
    shown = memex(served, key, "get", ids[0])
    assert shown.exit_code == 0 and "database is locked" in shown.stdout
    pack = json_of(
        memex(served, key, "context", "kayak trip", "--budget", "600", "--format", "json")
    )
    assert "kayak" in json.dumps(pack)
    for args in (("get", served.bob_fragment), ("timeline", served.bob_fragment)):
        refused = memex(served, key, *args)
        assert refused.exit_code == 1, args
        assert "No fragment" in refused.stderr, args
        assert_nothing_of_bobs(refused.output)
    for query in ATTACKS:
        pack = memex(served, key, "context", query, "--format", "json")
        assert_nothing_of_bobs(pack.stdout)
        assert BOB_CANARY not in json.dumps(json_of(pack)["items"]), query


def test_the_adapters_import_no_http_client_until_one_is_used() -> None:
    # memex --help loads every plugin's commands (serve and mcp too): no web stack for that.
    code = (
        "import sys, memex_langchain, memex_langchain.store, memex_llamaindex, memex_mcp, "
        "memex_mcp.command, memex_core.cli\n"
        "memex_core.cli._add_plugin_commands()\n"
        "print(sorted(m for m in ('httpx', 'memex_client', 'fastapi', 'starlette') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"
