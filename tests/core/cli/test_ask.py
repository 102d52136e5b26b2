"""``memex ask``: memory and a repository's code in one labelled pack, with citations checked
when a chat model answers; the CLI command and the MCP ``ask`` tool."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from memex_core.api import Memex
from memex_core.cli.app import cli
from memex_core.domain import Fragment, Provenance, SearchResult
from memex_core.services.ask_fusion import (
    CODE,
    MEMORY,
    check_citations,
    fuse_pools,
    pack_items,
)
from tests.support.export_builders import write_chatgpt_export
from tests.support.git_repos import make_repo

DB_PY = textwrap.dedent(
    '''\
    import sqlite3


    def open_database(path):
        """Open the catalog; writers wait on a busy database instead of failing."""
        db = sqlite3.connect(path)
        db.execute("PRAGMA busy_timeout = 5000")
        return db


    class Recipes:
        def bake_bread(self):
            return "sourdough"
    '''
)

FAKE_MODEL = "langchain_core.language_models.fake_chat_models:FakeListChatModel"


def _config(home: Path, extra: str = "") -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[embedder]\nuse = "none"\n' + extra, encoding="utf-8")


@pytest.fixture
def setup(memex_home: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A keyword-only home holding chats (memory), and a git repository with code."""
    _config(memex_home)
    export = write_chatgpt_export(tmp_path / "inputs" / "conversations.json")
    with Memex(memex_home) as mx:
        mx.ingest(export)
    repo = make_repo(tmp_path / "repo", {"store/db.py": DB_PY, "README.md": "# Demo\n"})
    return memex_home, repo


# -- the pure parts -----------------------------------------------------------------------------


def _hit(fid: str, kind: str, score: float, **meta: object) -> SearchResult:
    fragment = Fragment(
        id=fid,
        conversation_id=f"c-{fid}",
        role="note",
        content=f"text of {fid} " * 20,
        provenance=Provenance(kind, f"/x/{fid}", fid, f"file#{fid}"),
        title=f"title {fid}",
        metadata=dict(meta),
    )
    return SearchResult(fragment, score, {"keyword": 1}, {"keyword": score}, "keyword")


def test_fusion_alternates_the_pools_so_neither_starves() -> None:
    memory = [_hit(f"m{n}", "chatgpt", 10.0 - n) for n in range(5)]
    code = [_hit(f"c{n}", "code", 0.5 - n / 10, path="a.py") for n in range(2)]
    fused = fuse_pools(memory, code)
    assert [h.result.id for h in fused] == ["m0", "c0", "m1", "c1", "m2", "m3", "m4"]
    assert [(h.pool, h.rank) for h in fused[:2]] == [(MEMORY, 1), (CODE, 1)]
    # Equal ranks are ordered by the hits' own scores, so the order does not depend on pools.
    assert [h.result.id for h in fuse_pools(memory[:1], [_hit("c", "code", 99.0)])] == ["c", "m0"]


def test_pack_stays_in_budget_and_labels_each_item() -> None:
    fused = fuse_pools(
        [_hit("m0", "chatgpt", 1.0)],
        [_hit("c0", "code", 1.0, path="pkg/a.py", start_line=3, end_line=9, symbol="f")],
    )
    items = pack_items(fused, "text", 400, item_chars=200)
    assert sum(len(i.text) for i in items) <= 400
    assert [(i.number, i.kind) for i in items] == [(1, MEMORY), (2, CODE)]
    assert items[1].location == "pkg/a.py:3-9" and items[1].symbol == "f"
    assert items[0].location == "file#m0" and items[0].source == "chatgpt"
    assert items[0].truncated and items[0].reason.startswith("#1 in memory")


def test_citations_outside_the_items_are_flagged() -> None:
    check = check_citations("WAL [1], busy timeout [2, 3]; also [9] and [0] and [2].", 3)
    assert check.cited == [1, 2, 3]
    assert check.invalid == [9, 0]


# -- Memex.ask ----------------------------------------------------------------------------------


def test_ask_returns_memory_and_code_labelled(setup: tuple[Path, Path]) -> None:
    home, repo = setup
    with Memex(home) as mx:
        result = mx.ask("sqlite database busy timeout", repo=repo / "store", budget_chars=3000)
    assert result.repo == str(repo.resolve())  # any folder inside the work tree
    kinds = {i.kind for i in result.items}
    assert kinds == {MEMORY, CODE}
    code = next(i for i in result.items if i.kind == CODE)
    assert code.location == "store/db.py:4-8" and code.symbol == "open_database"
    assert code.source == "code" and code.id
    memory = next(i for i in result.items if i.kind == MEMORY)
    assert memory.source == "chatgpt" and "SQLite" in memory.title
    assert result.used_chars <= 3000
    assert result.index["changed"] == 2  # the first ask indexed the repository
    assert any("no chat model configured" in n for n in result.notes)
    with Memex(home) as mx:
        again = mx.ask("sqlite database busy timeout", repo=repo)
    assert again.index["changed"] == 0 and "fragments_added" not in again.index
    assert [i.id for i in again.items][:2] == [i.id for i in result.items][:2]


def test_ask_without_a_repository_searches_memory_only(setup: tuple[Path, Path]) -> None:
    home, _repo = setup
    with Memex(home) as mx:
        result = mx.ask("sourdough bread proof")
    assert result.repo is None and result.items
    assert {i.kind for i in result.items} == {MEMORY}
    assert any("memory only" in n for n in result.notes)


def test_ask_answers_with_checked_citations(setup: tuple[Path, Path]) -> None:
    home, repo = setup
    reply = "Set a busy timeout [1] as open_database does [2]; see also [7]."
    _config(
        home,
        f'\n[ask]\nbudget = 2000\nchat_model = "{FAKE_MODEL}"\n'
        f"chat_model_args = {{ responses = [{json.dumps(reply)}] }}\n",
    )
    with Memex(home) as mx:
        result = mx.ask("sqlite database busy timeout", repo=repo)
    assert result.answer == reply and result.model == "FakeListChatModel"
    assert result.budget_chars == 2000
    assert result.citations == [1, 2] and result.invalid_citations == [7]
    assert any("cites [7]" in n for n in result.notes)


def test_a_bad_ask_setting_names_the_fix(setup: tuple[Path, Path]) -> None:
    from memex_core.errors import MemexError

    home, _repo = setup
    _config(home, '\n[ask]\nchat_model = "no_such_module:Chat"\n')
    with Memex(home) as mx, pytest.raises(MemexError, match=r"\[ask\].*pip install"):
        mx.ask("sqlite", repo=_repo)
    _config(home, "\n[ask]\nbudjet = 10\n")
    with Memex(home) as mx, pytest.raises(MemexError, match=r"unknown setting.*budjet"):
        mx.ask("sqlite")


# -- the command --------------------------------------------------------------------------------


def test_cli_defaults_to_the_repository_of_the_current_directory(
    setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, repo = setup
    monkeypatch.chdir(repo / "store")
    result = CliRunner().invoke(
        cli, ["--home", str(home), "ask", "sqlite busy timeout", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["repo"] == str(repo.resolve())
    assert {i["kind"] for i in data["items"]} == {"memory", "code"}
    assert all(
        {"number", "kind", "reason", "source", "location", "id"} <= set(i) for i in data["items"]
    )
    assert data["used_chars"] <= data["budget_chars"] == 6000


def test_cli_outside_a_repository_says_memory_only(
    setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home, _repo = setup
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = CliRunner().invoke(cli, ["--home", str(home), "ask", "Lisbon trams", "-b", "500"])
    assert result.exit_code == 0, result.output
    assert "Searched: memory only" in result.stdout
    assert "[1] memory" in result.stdout
    assert "memory only" in result.stderr and "chat_model" in result.stderr


# -- the MCP tool -------------------------------------------------------------------------------


def test_mcp_ask_keeps_the_servers_scope(setup: tuple[Path, Path]) -> None:
    from memex_mcp.scope import ServerScope
    from memex_mcp.tools import MemexTools, ToolFailure

    home, repo = setup
    with Memex(home) as mx:
        mx.agent("bob").remember("Bob's sqlite busy timeout secret is 777")
        mx.agent("alice").remember("Alice's sqlite busy timeout note is 5000")
        alice = MemexTools(mx, ServerScope(user="alice"))
        text, data = alice.ask("sqlite busy timeout", repo=str(repo))
        texts = " ".join(i["text"] for i in data["items"])
        assert "Alice's" in texts and "777" not in texts  # never another user's memory
        assert {i["kind"] for i in data["items"]} == {"memory", "code"}
        assert "[1]" in text and "store/db.py" in text
        # Without the corpus there is no code (it is the operator's), and no repo to index.
        private = MemexTools(mx, ServerScope(user="alice", corpus=False))
        _text, data = private.ask("sqlite busy timeout")
        assert {i["kind"] for i in data["items"]} == {"memory"}
        assert data["repo"] is None
        with pytest.raises(ToolFailure, match="without the corpus"):
            private.ask("sqlite", repo=str(repo))


def test_mcp_ask_tool_over_stdio(setup: tuple[Path, Path]) -> None:
    pytest.importorskip("mcp")
    from tests.support.mcp_harness import mcp_session, run

    home, repo = setup

    async def body() -> None:
        async with mcp_session(home, "--user", "alice") as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools["ask"].input_schema["properties"]) == {
                "question",
                "repo",
                "budget_chars",
            }
            called = await session.call_tool(
                "ask", {"question": "sqlite busy timeout", "repo": str(repo)}
            )
            assert not called.is_error
            data = called.structured_content
            assert {i["kind"] for i in data["items"]} == {"memory", "code"}

    run(body)
