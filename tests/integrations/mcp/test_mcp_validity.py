"""The MCP ``recall`` tool reads remembered facts by time (issue 30): current facts by
default, ``as_of`` for what held then, ``include_superseded`` for every fact, each with
``valid_from``, ``valid_until``, ``superseded_by`` and ``recorded_at``; a bad date is a tool
error the model can act on; bob's facts never show, superseded or not. Driven through the
official MCP client over stdio (tests/support/mcp_harness.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from memex_core.api import Memex
from tests.support.mcp_harness import mcp_session, run, text_of

FIELDS = {"valid_from", "valid_until", "superseded_by", "recorded_at"}


@dataclass
class Moves:
    path: Path
    paris: str
    berlin: str


@pytest.fixture(scope="module")
def moves(tmp_path_factory: pytest.TempPathFactory) -> Moves:
    root = tmp_path_factory.mktemp("mcp-validity") / "home"
    root.mkdir()
    (root / "config.toml").write_text('[embedder]\nuse = "none"\n', encoding="utf-8")
    with Memex(root) as mx:
        paris = mx.remember("Alice lives in Paris", user="alice", at="2024-01-10")
        berlin = mx.remember("Alice moved to Berlin", user="alice", at="2024-06-01")
        mx.remember("Bob lives in Oslo", user="bob", at="2024-01-10")
        mx.remember("Bob moved to Alice's old flat in Lisbon", user="bob", at="2024-02-01")
    return Moves(root, paris.memory_ids[0], berlin.memory_ids[0])


def test_recall_reads_facts_by_time(moves: Moves) -> None:
    async def body() -> None:
        async with mcp_session(moves.path, "--user", "alice") as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            recall = tools["recall"]
            assert recall.annotations.read_only_hint is True
            assert {"as_of", "include_superseded"} <= set(recall.input_schema["properties"])
            assert "as_of" in recall.description and "superseded" in recall.description
            assert "`recall`" in tools["search"].description

            def ask(**arguments: object) -> object:
                return session.call_tool(
                    "recall", {"query": "Alice", "mode": "keyword", **arguments}
                )

            now = await ask()
            hits = now.structured_content["hits"]
            assert [h["memory_id"] for h in hits] == [moves.berlin]
            assert set(hits[0]) >= FIELDS and hits[0]["valid_until"] is None
            assert "valid from 2024-06-01, current" in text_of(now)

            then = await ask(as_of="2024-03-01")
            hits = then.structured_content["hits"]
            assert [h["memory_id"] for h in hits] == [moves.paris]
            assert hits[0]["valid_until"] == "2024-06-01T00:00:00Z"
            assert hits[0]["superseded_by"] == moves.berlin
            assert f"until 2024-06-01, superseded by {moves.berlin}" in text_of(then)

            got = await session.call_tool("get", {"ids": [moves.paris]})
            assert got.structured_content["memories"][0]["superseded_by"] == moves.berlin
            assert f"held until 2024-06-01, superseded by {moves.berlin}" in text_of(got)

            everything = await ask(include_superseded=True)
            found = {h["memory_id"] for h in everything.structured_content["hits"]}
            assert found == {moves.paris, moves.berlin}

            bad = await ask(as_of="the spring before")
            assert bad.is_error and "ISO 8601" in text_of(bad)

            for arguments in ({}, {"as_of": "2024-01-20"}, {"include_superseded": True}):
                theirs = await session.call_tool(
                    "recall", {"query": "Bob flat", "mode": "keyword", **arguments}
                )
                assert theirs.structured_content["hits"] == [], arguments
                assert "Oslo" not in text_of(theirs) and "Lisbon" not in text_of(theirs)

    run(body)


def test_search_and_context_read_facts_by_time(moves: Moves) -> None:
    """``search`` and ``context`` take ``as_of`` and ``include_superseded`` as ``recall``
    does: current facts by default; asked by time, each remembered fact is marked with when
    it held, so a superseded one is never shown as current; bob's facts stay out."""

    async def body() -> None:
        async with mcp_session(moves.path, "--user", "alice") as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            for name in ("search", "context"):
                assert {"as_of", "include_superseded"} <= set(
                    tools[name].input_schema["properties"]
                ), name
                assert "as_of" in tools[name].description, name

            def search(**arguments: object) -> object:
                return session.call_tool(
                    "search", {"query": "Alice", "mode": "keyword", **arguments}
                )

            def ids(result: object) -> set[str]:
                return {h["conversation_id"] for h in result.structured_content["hits"]}

            now = await search()
            assert ids(now) == {moves.berlin}
            assert "valid_until" not in now.structured_content["hits"][0]

            then = await search(as_of="2024-03-01")
            assert ids(then) == {moves.paris}
            hit = then.structured_content["hits"][0]
            assert hit["valid_until"] == "2024-06-01T00:00:00Z"
            assert hit["superseded_by"] == moves.berlin
            assert f"until 2024-06-01, superseded by {moves.berlin}" in text_of(then)

            every = await search(include_superseded=True)
            assert ids(every) == {moves.paris, moves.berlin}
            assert "valid from 2024-06-01, current" in text_of(every)

            full = await search(as_of="2024-03-01", concise=False)
            assert [h["superseded_by"] for h in full.structured_content["hits"]] == [moves.berlin]
            assert "superseded by" in text_of(full)

            bad = await search(as_of="the spring before")
            assert bad.is_error and "ISO 8601" in text_of(bad)

            def context(**arguments: object) -> object:
                return session.call_tool(
                    "context", {"query": "Alice lives", "source": ["memory"], **arguments}
                )

            current = await context()
            assert "Paris" not in text_of(current) and "Berlin" in text_of(current)
            past = await context(as_of="2024-03-01")
            assert "Paris" in text_of(past) and "Berlin" not in text_of(past)
            item = past.structured_content["items"][0]
            assert item["superseded_by"] == moves.berlin
            assert "until 2024-06-01, superseded by" in text_of(past)
            both = await context(include_superseded=True)
            assert "Paris" in text_of(both) and "Berlin" in text_of(both)

            for arguments in ({}, {"as_of": "2024-01-20"}, {"include_superseded": True}):
                theirs = await session.call_tool(
                    "search", {"query": "Bob flat", "mode": "keyword", **arguments}
                )
                assert "Oslo" not in text_of(theirs) and "Lisbon" not in text_of(theirs)
                pack = await session.call_tool(
                    "context", {"query": "Bob Oslo Lisbon flat", **arguments}
                )
                shown = " ".join(i["text"] for i in pack.structured_content["items"])
                assert "Oslo" not in shown and "Lisbon" not in shown

    run(body)


def _keyword_home(tmp_path: Path) -> Path:
    """A home with no embedder (recall by keyword)."""
    root = tmp_path / "home"
    root.mkdir()
    (root / "config.toml").write_text('[embedder]\nuse = "none"\n', encoding="utf-8")
    return root


def test_a_fact_ended_by_its_own_words_says_so(tmp_path: Path) -> None:
    root = _keyword_home(tmp_path)
    with Memex(root) as mx:
        rome = mx.remember("Alice lived in Rome in 2019", user="alice", at="2024-03-01")
    rome_id = rome.memory_ids[0]

    async def body() -> None:
        async with mcp_session(root, "--user", "alice") as session:
            then = await session.call_tool(
                "recall", {"query": "Alice Rome", "mode": "keyword", "as_of": "2019-06-01"}
            )
            hits = then.structured_content["hits"]
            assert [h["memory_id"] for h in hits] == [rome_id]
            assert hits[0]["superseded_by"] is None
            assert "until 2020-01-01, by its own words" in text_of(then)
            assert "None" not in text_of(then)
            got = await session.call_tool("get", {"ids": [rome_id]})
            assert "held until 2020-01-01, by its own words" in text_of(got)

    run(body)


def test_a_fact_that_names_only_its_end_says_its_start_is_unknown(tmp_path: Path) -> None:
    root = _keyword_home(tmp_path)
    with Memex(root) as mx:
        said = "Until mid-2023 we were using PagerDuty for paging"
        paging = mx.remember(said, user="alice", at="2024-03-02").memory_ids[0]
    shown: list[object] = []

    async def body() -> None:
        async with mcp_session(root, "--user", "alice") as session:
            asked = {"query": "PagerDuty paging", "mode": "keyword", "as_of": "2023-01-01"}
            shown.append(await session.call_tool("recall", asked))

    run(body)
    hits = shown[0].structured_content["hits"]  # type: ignore[attr-defined]
    assert [h["memory_id"] for h in hits] == [paging]
    assert hits[0]["valid_from"] == "1970-01-01T00:00:00Z"  # JSON: the epoch
    assert "start unknown until 2023-07-01, by its own words" in text_of(shown[0])
    assert "1970" not in text_of(shown[0])
