"""An empty or blank query is refused with a clear message everywhere a query is taken
(the Python API, views and memory handles, the CLI, the MCP tools, both retrievers):
ranking against nothing returns arbitrary fragments that look like results."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.cli import main
from memex_core.errors import EmptyQueryError, MemexError
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import chatgpt_conversation, write_chatgpt_export
from tests.support.mcp_harness import build_home, mcp_session, run, text_of

BLANKS = ["", "   ", "\n\t "]


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    root = tmp_path_factory.mktemp("empty-query")
    export = root / "conversations.json"
    conversation = chatgpt_conversation(
        "c", "Locks", [("user", "database is locked", 1.7e9), ("assistant", "use WAL", 1.7e9)]
    )
    write_chatgpt_export(export, [conversation])
    memex = fast_memex(root / "home")
    memex.ingest(export)
    memex.agent("alice").remember("Alice prefers tabs.")
    yield memex
    memex.close()


def refused(call: Callable[[], object]) -> str:
    with pytest.raises(EmptyQueryError) as caught:
        call()
    assert isinstance(caught.value, MemexError) and isinstance(caught.value, ValueError)
    return str(caught.value)


@pytest.mark.parametrize("query", BLANKS)
@pytest.mark.parametrize("mode", ["hybrid", "keyword", "semantic"])
def test_the_api_refuses_a_blank_search(mx: Memex, query: str, mode: str) -> None:
    assert "query is empty" in refused(lambda: mx.search(query, mode=mode))
    assert mx.search("locked", mode=mode).results  # the same home answers a real query


@pytest.mark.parametrize("query", BLANKS)
def test_every_entry_point_refuses_a_blank_query(mx: Memex, query: str) -> None:
    refused(lambda: mx.compact_search(query))
    refused(lambda: mx.context(query))
    refused(lambda: mx.view().search(query))
    refused(lambda: mx.view().compact_search(query))
    refused(lambda: mx.view(user="alice").context(query))
    refused(lambda: mx.agent("alice").search(query))
    refused(lambda: mx.operator().search(query))


def test_a_query_that_is_not_text_is_refused(mx: Memex) -> None:
    assert "must be text, not NoneType" in refused(lambda: mx.search(None))  # type: ignore[arg-type]


@pytest.fixture
def cli(
    mx: Memex, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str, str]]:
    for name in ("search", "progressive", "memory_handles"):
        # The lazy CLI may not have loaded the module yet.
        module = importlib.import_module(f"memex_core.cli.{name}")
        monkeypatch.setattr(module, "open_memex", lambda ctx: mx)

    def invoke(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            main(list(args))
            status = 0
        except SystemExit as exc:
            status = int(exc.code or 0)
        out, err = capsys.readouterr()
        return status, out, err

    return invoke


@pytest.mark.parametrize(
    "command",
    [["dig"], ["keyword"], ["semantic"], ["context"], ["recall", "--user", "alice"]],
)
def test_the_cli_refuses_a_blank_query(
    cli: Callable[..., tuple[int, str, str]], command: list[str]
) -> None:
    status, out, err = cli(*command, "  ")
    assert status == 1
    assert "query is empty" in out + err
    assert "Traceback" not in out + err
    assert "score" not in out  # no hits were printed


def test_mcp_tools_refuse_a_blank_query(tmp_path: Path) -> None:
    home = build_home(tmp_path)

    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            for tool, arguments in (
                ("search", {"query": "  "}),
                ("context", {"query": ""}),
            ):
                result = await session.call_tool(tool, arguments)
                assert result.is_error, tool
                assert "query is empty" in text_of(result)

    run(body)


def test_the_langchain_retriever_refuses_a_blank_query(mx: Memex) -> None:
    from memex_langchain import MemexRetriever

    retriever = MemexRetriever(memex=mx)
    refused(lambda: retriever.invoke("  "))
    assert retriever.invoke("locked")


def test_the_llamaindex_retriever_refuses_a_blank_query(mx: Memex) -> None:
    from memex_llamaindex import MemexRetriever

    retriever = MemexRetriever(mx)
    refused(lambda: retriever.retrieve("  "))
    assert retriever.retrieve("locked")
