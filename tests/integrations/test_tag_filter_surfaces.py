"""The tag filter (issue 32, item 11) on every surface past the CLI: ``POST /v1/search`` and
the Python client of a real ``memex serve``, the CLI against it (``MEMEX_URL``), the MCP
``search`` and ``context`` tools (``tags``), the viewer's search filters, and the LangChain
and LlamaIndex retrievers (constructor and per-call). One home for the module, keyword-only
so the server starts at once: the vault of :mod:`tests.support.tagged_vault`, whose two
``project`` notes rank below 40 untagged ones, so each surface must filter before top-k."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

import anyio
import pytest

pytest.importorskip("fastapi", reason="memex serve needs FastAPI (pip install 'memex[server]')")
pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'memex[mcp]')")

import httpx
from click.testing import CliRunner

from memex_client import MemexClient
from memex_core.api import Memex
from memex_core.cli import cli
from tests.support.memex_service import running_service
from tests.support.tagged_vault import EXPECTED, QUERY, TAGGED, note_paths, write_tagged_vault
from tests.support.viewer_fixtures import SECRET, client_for, sign_in

PROJECT = EXPECTED[("project",)]


@dataclass
class Served:
    mx: Memex  # the home, opened in this process too
    url: str
    admin_secret: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("tag-surfaces")
    home = root / "home"
    home.mkdir()
    (home / "config.toml").write_text('[embedder]\nuse = "none"\n', encoding="utf-8")
    with Memex(home) as mx:
        assert not mx.ingest(write_tagged_vault(root / "vault")).failed
    with running_service(home) as service, Memex(home) as mx:
        yield Served(mx, service.url, service.admin_secret)


def _paths(mx: Memex, ids: list[str]) -> set[str]:
    return note_paths(mx.get(ids))


def test_the_untagged_notes_outrank_the_tagged_ones(served: Served) -> None:
    """What makes each test below a before-top-k test."""
    found = served.mx.search(QUERY, "keyword", 2)
    assert not note_paths(r.fragment for r in found) & set(TAGGED)


# -- HTTP, the client, the CLI against a server ------------------------------------------------


def test_http_search_takes_a_tag(served: Served) -> None:
    body = {"query": QUERY, "mode": "keyword", "limit": 2, "tag": ["project"]}
    headers = {"Authorization": f"Bearer {served.admin_secret}"}
    response = httpx.post(f"{served.url}/v1/search", json=body, headers=headers, timeout=60)
    assert response.status_code == 200, response.text
    ids = [r["fragment"]["id"] for r in response.json()["results"]]
    assert _paths(served.mx, ids) == PROJECT


def test_the_client_searches_and_packs_context_by_tag(served: Served) -> None:
    client = MemexClient(served.url, admin_secret=served.admin_secret)
    try:
        view = client.view()
        found = view.search(QUERY, "keyword", 2, tag="project/memex")
        assert _paths(served.mx, [r.fragment.id for r in found]) == {"Memex plan.md"}
        pack = view.context(QUERY, 2000, mode="keyword", tag=["projects", "other"])
        assert pack.items
        assert _paths(served.mx, [i.id for i in pack.items]) <= EXPECTED[("projects", "other")]
    finally:
        client.close()


def test_the_cli_passes_tags_to_a_server(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEX_URL", served.url)
    monkeypatch.setenv("MEMEX_API_KEY", served.admin_secret)
    result = CliRunner().invoke(
        cli, ["keyword", QUERY, "-n", "2", "--tag", "project", "--format", "ids"]
    )
    assert result.exit_code == 0, result.output
    assert _paths(served.mx, result.stdout.split()) == PROJECT


# -- MCP ---------------------------------------------------------------------------------------


def _tool(mx: Memex, name: str, arguments: dict[str, object]) -> dict[str, object]:
    from memex_mcp.scope import ServerScope
    from memex_mcp.server import build_server
    from memex_mcp.tools import MemexTools

    server = build_server(MemexTools(mx, ServerScope()))
    result = anyio.run(server.call_tool, name, arguments)
    assert not result.is_error, result.content
    structured: dict[str, object] = result.structured_content
    return structured


def test_the_mcp_search_tool_takes_tags(served: Served) -> None:
    args = {"query": QUERY, "mode": "keyword", "limit": 2, "tags": ["project"]}
    hits = _tool(served.mx, "search", args)["hits"]
    assert isinstance(hits, list)
    assert _paths(served.mx, [h["id"] for h in hits]) == PROJECT
    full = _tool(served.mx, "search", {**args, "concise": False, "tags": ["PROJECT/memex"]})
    assert isinstance(full["hits"], list)
    assert _paths(served.mx, [h["id"] for h in full["hits"]]) == {"Memex plan.md"}


def test_the_mcp_context_tool_takes_tags(served: Served) -> None:
    pack = _tool(served.mx, "context", {"query": QUERY, "budget_chars": 2000, "tags": ["project"]})
    items = pack["items"]
    assert isinstance(items, list) and items
    assert _paths(served.mx, [i["id"] for i in items]) <= PROJECT


def test_the_mcp_tools_describe_the_tags_argument(served: Served) -> None:
    from memex_mcp.scope import ServerScope
    from memex_mcp.server import build_server
    from memex_mcp.tools import MemexTools

    tools = anyio.run(build_server(MemexTools(served.mx, ServerScope())).list_tools)
    for tool in (t for t in tools if t.name in ("search", "context")):
        described = tool.input_schema["properties"]["tags"]["description"]
        assert "nested" in described, tool.name


# -- the viewer --------------------------------------------------------------------------------


def test_the_viewer_search_page_filters_by_tag(served: Served) -> None:
    with client_for(served.mx) as client:
        sign_in(client, SECRET)
        page = client.get(
            "/", params={"q": QUERY, "mode": "keyword", "limit": "2", "tag": "project"}
        )
        assert page.status_code == 200, page.text[:500]
        ids = re.findall(r'data-testid="hit"[^>]*data-id="([0-9a-f]+)"', page.text)
        assert _paths(served.mx, ids) == PROJECT
        assert 'id="filter-tag" name="tag" value="project"' in page.text
        several = client.get("/", params={"q": QUERY, "mode": "keyword", "tag": "projects, other"})
        ids = re.findall(r'data-testid="hit"[^>]*data-id="([0-9a-f]+)"', several.text)
        assert _paths(served.mx, ids) == EXPECTED[("projects", "other")]


def test_the_viewer_notes_page_lists_the_notes_with_a_tag(served: Served) -> None:
    with client_for(served.mx) as client:
        sign_in(client, SECRET)
        page = client.get("/notes", params={"tag": "project"})
        assert page.status_code == 200, page.text[:500]
        listed = re.findall(r'<a class="note-link" href="/note/([^"]+)">', page.text)
        assert {d.path for d in served.mx.catalog.documents([*listed]).values()} == PROJECT
        assert "2 notes tagged project" in page.text
        none = client.get("/notes", params={"tag": "nowhere"})
        assert none.status_code == 200 and 'id="no-tagged-notes"' in none.text
        bad = client.get("/notes", params={"tag": "#"})
        assert bad.status_code == 422 and "tag filter" in bad.text


# -- LangChain and LlamaIndex ------------------------------------------------------------------


def test_the_langchain_retriever_takes_a_tag_as_a_field_and_per_call(served: Served) -> None:
    pytest.importorskip("langchain_core")
    from memex_langchain import MemexRetriever

    retriever = MemexRetriever(memex=served.mx, k=2, mode="keyword", tag="project")
    docs = retriever.invoke(QUERY)
    assert _paths(served.mx, [d.id for d in docs if d.id]) == PROJECT
    docs = retriever.invoke(QUERY, tag=["projects", "other"])
    assert _paths(served.mx, [d.id for d in docs if d.id]) == EXPECTED[("projects", "other")]


def test_the_llamaindex_retriever_takes_tags_as_filters(served: Served) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.vector_stores.types import (
        FilterOperator,
        MetadataFilter,
        MetadataFilters,
    )

    from memex_llamaindex import MemexRetriever

    by_dict = MemexRetriever(
        served.mx, similarity_top_k=2, mode="keyword", filters={"tag": "project"}
    )
    nodes = by_dict.retrieve(QUERY)
    assert _paths(served.mx, [n.node.id_ for n in nodes]) == PROJECT
    contains = MetadataFilter(key="tags", value="project/memex", operator=FilterOperator.CONTAINS)
    by_metadata = MemexRetriever(
        served.mx, similarity_top_k=2, mode="keyword", filters=MetadataFilters(filters=[contains])
    )
    nodes = by_metadata.retrieve(QUERY)
    assert _paths(served.mx, [n.node.id_ for n in nodes]) == {"Memex plan.md"}


def test_a_remote_langchain_retriever_takes_a_tag(served: Served) -> None:
    pytest.importorskip("langchain_core")
    from memex_langchain import MemexRetriever

    client = MemexClient(served.url, admin_secret=served.admin_secret)
    try:
        retriever = MemexRetriever(memex=client, k=2, mode="keyword", tag="project", user="alice")
        docs = retriever.invoke(QUERY)
        assert _paths(served.mx, [d.id for d in docs if d.id]) == PROJECT
    finally:
        client.close()


def test_the_http_request_models_document_the_tag(served: Served) -> None:
    schema = httpx.get(f"{served.url}/openapi.json", timeout=60).json()
    search = schema["components"]["schemas"]["SearchRequest"]["properties"]["tag"]
    assert "nested" in json.dumps(search)
