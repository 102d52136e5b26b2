"""``memex mcp`` over stdio, driven by the official MCP client: tools, prompts, errors, scope.

Each test launches the server as a subprocess on a shared, keyword-only home (see
tests/support/mcp_harness.py) and talks to it through ``mcp.ClientSession``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memex_core.api import Memex
from tests.support.mcp_harness import Home, build_home, mcp_session, run, text_of

READERS = {"search", "recall", "timeline", "get", "explore", "context"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    return build_home(tmp_path_factory.mktemp("mcp") / "home")


def _memories(home: Home, user: str) -> list[tuple[str, str, str]]:
    with Memex(home.path) as mx:
        return sorted(
            (m.id, m.collection, m.content) for m in mx.operator().list(user_id=user, limit=1000)
        )


# -- the surface: tools, schemas, annotations, prompts ------------------------------------------


def test_tools_are_listed_with_honest_annotations_and_schemas(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools) == READERS | {"remember", "ask"}
            for name in READERS:
                hints = tools[name].annotations
                assert hints.read_only_hint is True and hints.open_world_hint is False, name
            # ask indexes the repository's changed files before it reads: not read-only.
            ask = tools["ask"].annotations
            assert ask.read_only_hint is False and ask.destructive_hint is False
            remember = tools["remember"].annotations
            assert remember.read_only_hint is False
            assert remember.destructive_hint is False  # it only adds; repeats are folded
            assert remember.idempotent_hint is True
            search = tools["search"].input_schema["properties"]
            assert search["limit"]["default"] == 5
            assert search["concise"]["default"] is True
            assert tools["search"].input_schema["required"] == ["query"]
            # Whose memory is fixed by the server; no tool takes a user.
            for tool in tools.values():
                assert not {"user", "user_id", "owner"} & set(tool.input_schema["properties"])
                assert tool.output_schema is not None and tool.description
            # Descriptions lead from one step to the next.
            assert "`timeline`" in tools["search"].description
            assert "`get`" in tools["search"].description
            assert "`search`" in tools["timeline"].description
            kinds = tools["remember"].input_schema["properties"]["kind"]["description"]
            assert "preference" in kinds and "misc" in kinds

    run(body)


def test_prompts_are_listed_with_their_arguments(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            prompts = {p.name: p for p in (await session.list_prompts()).prompts}
            assert set(prompts) == {"handover", "update-knowledge"}
            assert [(a.name, a.required) for a in prompts["handover"].arguments] == [
                ("topic", True)
            ]
            assert [(a.name, a.required) for a in prompts["update-knowledge"].arguments] == [
                ("topic", False)
            ]
            assert session.server_capabilities.prompts is not None

    run(body)


# -- progressive disclosure: search -> timeline -> get ----------------------------------------


def test_search_then_timeline_then_get(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            found = await session.call_tool("search", {"query": "sqlite database locked"})
            assert not found.is_error
            data = found.structured_content
            assert data["concise"] is True and data["mode"] == "hybrid"
            hit = data["hits"][0]
            assert hit["id"] == home.corpus_fragment
            assert {"id", "title", "snippet", "why", "score", "source_kind"} <= set(hit)
            assert "content" not in hit  # compact: a snippet, not the text
            assert hit["timestamp"] == "2024-01-01T00:00:00Z"
            text = text_of(found)
            assert home.corpus_fragment in text and "`timeline`" in text

            around = await session.call_tool("timeline", {"fragment_id": hit["id"]})
            assert not around.is_error
            items = around.structured_content["items"]
            assert [i["offset"] for i in items] == [0, 1]
            assert items[0]["id"] == hit["id"] and items[1]["role"] == "assistant"
            assert "PRAGMA journal_mode=WAL" in text_of(around)

            full = await session.call_tool("get", {"ids": [items[1]["id"]]})
            assert not full.is_error
            fragment = full.structured_content["fragments"][0]
            assert fragment["content"].startswith("Enable WAL mode")
            assert fragment["provenance"]["source_path"].endswith("conversations.json")
            assert full.structured_content["missing"] == []

    run(body)


def test_search_limit_full_text_and_filters(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            many = await session.call_tool("search", {"query": "the", "mode": "keyword"})
            assert len(many.structured_content["hits"]) <= 5
            full = await session.call_tool(
                "search", {"query": "sourdough bread", "concise": False, "limit": 1}
            )
            [hit] = full.structured_content["hits"]
            assert hit["content"].startswith("How long should sourdough")
            assert hit["ranks"]["keyword"] == 1
            assert isinstance(hit["reasons"], list)  # the rerank's, when it re-ordered the hit
            assert "How long should sourdough bread proof" in text_of(full)
            notes = await session.call_tool(
                "search", {"query": "storage", "source": ["obsidian"], "limit": 10}
            )
            kinds = {h["source_kind"] for h in notes.structured_content["hits"]}
            assert kinds == {"obsidian"}
            later = await session.call_tool(
                "search", {"query": "sourdough lisbon sqlite", "since": "2024-06-01"}
            )
            titles = {h["title"] for h in later.structured_content["hits"]}
            assert titles == {"Trip to Lisbon"}

    run(body)


def test_explore_and_context(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            explored = await session.call_tool("explore", {"note": "Beta"})
            assert not explored.is_error
            data = explored.structured_content
            assert data["note"]["path"] == "Beta.md"
            targets = {o["target"]: o["target_path"] for o in data["outlinks"]}
            assert targets == {"Alpha": "Projects/Alpha.md", "Gamma": None}
            assert [b["source_path"] for b in data["backlinks"]] == ["Projects/Alpha.md"]
            assert "unresolved" in text_of(explored)

            pack = await session.call_tool(
                "context", {"query": "sqlite locking", "budget_chars": 600}
            )
            assert not pack.is_error
            context = pack.structured_content
            assert 0 < context["used_chars"] <= 600
            assert context["items"][0]["reason"] == "query_match"
            assert context["items"][0]["id"] == home.corpus_fragment

    run(body)


# -- memory ------------------------------------------------------------------------------------


def test_remember_then_search_finds_it_for_the_default_user(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path) as session:  # no --user: "local"
            stored = await session.call_tool(
                "remember", {"text": "The team's favourite editor is Helix", "kind": "professional"}
            )
            assert not stored.is_error, text_of(stored)
            data = stored.structured_content
            assert data["user_id"] == "local"
            [memory_id] = data["memory_ids"]
            assert data["decisions"][0]["action"] == "ADD"
            assert memory_id in text_of(stored)

            again = await session.call_tool(
                "remember", {"text": "The team's favourite editor is Helix", "kind": "professional"}
            )
            assert again.structured_content["decisions"][0]["action"] == "NONE"
            assert again.structured_content["memory_ids"] == [memory_id]

            found = await session.call_tool(
                "search", {"query": "favourite editor", "source": ["memory"]}
            )
            [hit] = found.structured_content["hits"]
            assert hit["conversation_id"] == memory_id
            assert "Helix" in hit["snippet"]

            record = await session.call_tool("get", {"ids": [memory_id]})
            [memory] = record.structured_content["memories"]
            assert memory["content"] == "The team's favourite editor is Helix"
            assert memory["kind"] == "professional" and memory["user_id"] == "local"

    run(body)
    assert [m[2] for m in _memories(home, "local")] == ["The team's favourite editor is Helix"]


def test_remember_redacts_secrets_and_drops_private_spans(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "carol") as session:
            stored = await session.call_tool(
                "remember",
                {
                    "text": "Carol's deploy key is AKIAIOSFODNN7EXAMPLE "
                    "<private>and her pin is 4321</private>",
                },
            )
            data = stored.structured_content
            assert data["redacted"] and data["private_removed"] == 1
            assert "Redacted" in text_of(stored)

    run(body)
    [(_, _, content)] = _memories(home, "carol")
    assert "AKIAIOSFODNN7EXAMPLE" not in content and "4321" not in content


# -- prompts -----------------------------------------------------------------------------------


def test_handover_prompt_is_built_from_context(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            prompt = await session.get_prompt("handover", {"topic": "sqlite locking"})
            [message] = prompt.messages
            assert message.role == "user"
            text = message.content.text
            assert "Another agent will continue the work on: sqlite locking" in text
            assert f"[{home.corpus_fragment}]" in text  # the material, with its ids
            assert "Next steps" in text

    run(body)


def test_update_knowledge_prompt_shows_what_is_already_known(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            prompt = await session.get_prompt("update-knowledge", {"topic": "green tea"})
            text = prompt.messages[0].content.text
            assert "`remember`" in text and "user 'alice'" in text
            assert f"[{home.alice_fact}] Alice prefers green tea" in text
            bare = await session.get_prompt("update-knowledge", {})
            assert "Already remembered" not in bare.messages[0].content.text

    run(body)


# -- errors that say what to do next ------------------------------------------------------------


def test_errors_are_tool_errors_that_say_what_to_do(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            cases = [
                ("get", {"ids": ["0123abcd"]}, "Ids come from search"),
                ("timeline", {"fragment_id": "0123abcd"}, "Ids come from a search"),
                ("search", {"query": "sqlite", "since": "someday"}, "2024-05-01"),
                ("search", {"query": "   "}, "say what to look for"),
                ("remember", {"text": "x", "kind": "gossip"}, "use one of preference"),
                ("remember", {"text": "  "}, "Nothing to remember"),
                ("explore", {"note": "No Such Note"}, "Give its path"),
                ("search", {"query": "x", "collection": "::"}, "collection"),
            ]
            for tool, arguments, hint in cases:
                result = await session.call_tool(tool, arguments)
                assert result.is_error, (tool, arguments)
                assert hint in text_of(result), (tool, text_of(result))
            invalid = await session.call_tool("search", {"query": "x", "limit": 0})
            assert invalid.is_error and "limit" in text_of(invalid)
            # A partial miss is not an error: the found ids come back, the rest are named.
            mixed = await session.call_tool("get", {"ids": [home.corpus_fragment, "0123abcd"]})
            assert not mixed.is_error
            assert mixed.structured_content["missing"] == ["0123abcd"]
            assert "Not found: 0123abcd" in text_of(mixed)

    run(body)


# -- isolation: alice's server never reaches bob's memory -------------------------------------


#: What only bob's memory says (queries may echo "bluebird", results must not hold these).
BOB_TEXTS = ("codename is bluebird", "ship in may")


def _mentions_bob(value: object, home: Home) -> bool:
    text = (json.dumps(value) if not isinstance(value, str) else value).lower()
    ids = (home.bob_fact, home.bob_file, home.bob_fact_fragment, home.bob_file_fragment)
    return any(marker.lower() in text for marker in (*BOB_TEXTS, *ids))


def test_alice_cannot_reach_bobs_memory_through_any_argument(home: Home) -> None:
    before = _memories(home, "bob")

    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            searches = [
                {"query": "bluebird"},
                {"query": "bluebird launch codename", "mode": "keyword", "limit": 50},
                {"query": "bluebird", "concise": False},
                {"query": "bluebird", "source": ["memory"]},
                {"query": "bluebird", "collection": "acme:secret"},
                {"query": "bluebird", "collection": "acme"},
                {"query": "bluebird", "user": "bob", "user_id": "bob"},  # unknown arguments
                {"query": "Bob's launch codename", "since": "1d"},
            ]
            for arguments in searches:
                result = await session.call_tool("search", arguments)
                assert not _mentions_bob(result.structured_content, home), arguments
                assert not _mentions_bob(text_of(result), home), arguments

            unknown_get = text_of(await session.call_tool("get", {"ids": ["0123abcd"]}))
            for foreign in (home.bob_fact, home.bob_file, home.bob_fact_fragment):
                result = await session.call_tool("get", {"ids": [foreign]})
                assert result.is_error
                # Exactly the error an unknown id gets: nothing says the id exists.
                assert text_of(result) == unknown_get.replace("0123abcd", foreign)

            unknown_timeline = text_of(
                await session.call_tool("timeline", {"fragment_id": "0123abcd"})
            )
            for foreign in (home.bob_fact_fragment, home.bob_file_fragment):
                result = await session.call_tool("timeline", {"fragment_id": foreign})
                assert result.is_error
                assert text_of(result) == unknown_timeline.replace("0123abcd", foreign)

            for note in ("users/bob/plans.md", "user/plans.md", "plans"):
                result = await session.call_tool("explore", {"note": note})
                assert result.is_error and not _mentions_bob(text_of(result), home)

            pack = await session.call_tool("context", {"query": "bluebird launch plan"})
            assert not _mentions_bob(pack.structured_content, home)
            pack = await session.call_tool(
                "context", {"query": "bluebird", "collection": "acme:secret"}
            )
            assert pack.structured_content["items"] == []

            handover = await session.get_prompt("handover", {"topic": "launch plan"})
            assert not _mentions_bob(handover.messages[0].content.text, home)
            update = await session.get_prompt("update-knowledge", {"topic": "launch codename"})
            assert not _mentions_bob(update.messages[0].content.text, home)

            # Writing into bob's collection name files the fact under alice.
            stored = await session.call_tool(
                "remember", {"text": "Alice reviews launches", "collection": "acme:secret"}
            )
            assert stored.structured_content["user_id"] == "alice"

            # Shared memory is readable by every user's agent.
            shared = await session.call_tool("search", {"query": "deploys tuesdays"})
            assert any("Tuesdays" in h["snippet"] for h in shared.structured_content["hits"])

    run(body)
    assert _memories(home, "bob") == before
    assert ("acme:secret", "Alice reviews launches") in {
        (collection, content) for _, collection, content in _memories(home, "alice")
    }


def test_bob_does_find_his_own_memory(home: Home) -> None:
    """The isolation test above is not vacuous: the same search works for bob."""

    async def body() -> None:
        async with mcp_session(home.path, "--user", "bob") as session:
            found = await session.call_tool("search", {"query": "bluebird", "limit": 10})
            ids = {h["conversation_id"] for h in found.structured_content["hits"]}
            assert {home.bob_fact, home.bob_file} <= ids
            got = await session.call_tool("get", {"ids": [home.bob_fact]})
            assert got.structured_content["memories"][0]["content"].endswith("bluebird")

    run(body)


# -- scope options: --no-corpus, --collection ---------------------------------------------------


def test_no_corpus_hides_the_ingested_corpus(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice", "--no-corpus") as session:
            found = await session.call_tool("search", {"query": "sqlite database locked"})
            assert found.structured_content["hits"] == []
            result = await session.call_tool("get", {"ids": [home.corpus_fragment]})
            assert result.is_error
            result = await session.call_tool("timeline", {"fragment_id": home.corpus_fragment})
            assert result.is_error
            result = await session.call_tool("explore", {"note": "Beta"})
            assert result.is_error and "may not read the corpus" in text_of(result)
            pack = await session.call_tool("context", {"query": "sqlite locking"})
            assert all(i["id"] != home.corpus_fragment for i in pack.structured_content["items"])
            # Memory still works.
            tea = await session.call_tool("search", {"query": "green tea"})
            assert tea.structured_content["hits"][0]["conversation_id"] == home.alice_fact

    run(body)


def test_collection_bounds_reads_and_writes(home: Home) -> None:
    async def body() -> None:
        async with mcp_session(
            home.path, "--user", "alice", "--collection", "acme:support"
        ) as session:
            tea = await session.call_tool("search", {"query": "green tea"})
            assert tea.structured_content["hits"][0]["conversation_id"] == home.alice_fact
            corpus = await session.call_tool("search", {"query": "sqlite database locked"})
            assert corpus.structured_content["hits"] == []  # the corpus has no collections
            wider = await session.call_tool("search", {"query": "tea", "collection": "acme"})
            assert wider.is_error and "limited to collection 'acme:support'" in text_of(wider)
            stored = await session.call_tool("remember", {"text": "Alice answers in French"})
            assert stored.structured_content["collection"] == "acme:support"
            below = await session.call_tool(
                "remember", {"text": "Alice escalates to Dana", "collection": "acme:support:vip"}
            )
            assert below.structured_content["collection"] == "acme:support:vip"
            refused = await session.call_tool(
                "remember", {"text": "Alice likes jazz", "collection": "personal"}
            )
            assert refused.is_error

    run(body)
    filed = {content: collection for _, collection, content in _memories(home, "alice")}
    assert filed["Alice answers in French"] == "acme:support"
    assert filed["Alice escalates to Dana"] == "acme:support:vip"
    assert "Alice likes jazz" not in filed


def test_server_says_what_it_serves_on_stderr(home: Home, tmp_path: Path) -> None:
    log = tmp_path / "server.log"

    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice", "--no-corpus", log=log) as session:
            assert "serving user 'alice'" in session.instructions
            assert session.server_info.name == "memex"

    run(body)
    assert "serving user 'alice', every collection, without the corpus on stdio" in log.read_text()
