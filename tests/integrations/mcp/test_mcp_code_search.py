"""The MCP ``search`` and ``context`` tools leave out the code ``memex ask`` indexed unless
``source`` names it (issue 32 item 1); the tools are called in-process, as the server does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("mcp", reason="memex mcp needs memex[mcp]")

from memex_core.api import Memex
from memex_mcp.scope import ServerScope
from memex_mcp.tools import MemexTools
from tests.support.code_home import QUERY, CodeHome, build_code_home


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    built: CodeHome = build_code_home(tmp_path_factory.mktemp("mcp-code"))
    with Memex(built.home) as memex:
        yield memex


@pytest.fixture(scope="module")
def tools(mx: Memex) -> MemexTools:
    return MemexTools(mx, ServerScope(user="alice"))


def ids_of(output: tuple[str, dict[str, Any]]) -> list[str]:
    return [hit["id"] for hit in output[1]["hits"]]


def test_search_tool_shows_no_code_unless_named(tools: MemexTools, mx: Memex) -> None:
    for mode in ("hybrid", "keyword"):
        ids = ids_of(tools.search(QUERY, limit=3, mode=mode))
        assert len(ids) == 3
        assert {f.source_kind for f in mx.get(ids)} <= {"chatgpt", "obsidian"}
    named = ids_of(tools.search(QUERY, limit=3, source=["code"]))
    assert {f.source_kind for f in mx.get(named)} == {"code"} and len(named) == 3


def test_context_tool_packs_no_code(tools: MemexTools, mx: Memex) -> None:
    ids = [item["id"] for item in tools.context(QUERY)[1]["items"]]
    assert ids and {f.source_kind for f in mx.get(ids)} <= {"chatgpt", "obsidian"}
