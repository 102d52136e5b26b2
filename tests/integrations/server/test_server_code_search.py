"""``memex serve`` leaves out the code ``memex ask`` indexed unless a search names it
(issue 32 item 1): ``POST /v1/search`` and ``/v1/context`` for the operator and for an agent
key, and ``/v1/admin/stats`` counts code apart. Through the FastAPI test client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")

from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_server.app import build_app
from tests.support.code_home import QUERY, CodeHome, build_code_home

SECRET = "code-search-operator-secret-0123456789"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> CodeHome:
    return build_code_home(tmp_path_factory.mktemp("server-code"))


@pytest.fixture(scope="module")
def client(built: CodeHome) -> Iterator[TestClient]:
    with Memex(built.home) as mx:
        _, key = mx.agent_keys().create("alice", name="alice-bot")
        client = TestClient(build_app(mx, admin_secret=SECRET))
        client.headers["Authorization"] = f"Bearer {SECRET}"
        client.agent_key = key  # type: ignore[attr-defined]
        yield client


def kinds(body: dict[str, Any]) -> list[str]:
    return [hit["fragment"]["provenance"]["source_kind"] for hit in body["results"]]


@pytest.mark.parametrize("as_agent", [False, True])
def test_search_returns_memory_only_unless_code_is_named(
    client: TestClient, as_agent: bool
) -> None:
    headers = {"Authorization": f"Bearer {client.agent_key}"} if as_agent else {}  # type: ignore[attr-defined]
    found = client.post("/v1/search", json={"query": QUERY, "limit": 3}, headers=headers)
    assert found.status_code == 200, found.text
    assert len(kinds(found.json())) == 3 and "code" not in kinds(found.json())
    named = client.post(
        "/v1/search", json={"query": QUERY, "limit": 3, "source": ["code"]}, headers=headers
    )
    assert kinds(named.json()) == ["code"] * 3


def test_context_and_stats(client: TestClient) -> None:
    pack = client.post("/v1/context", json={"query": QUERY}).json()
    ids = [item["id"] for item in pack["items"]]
    fragments = client.post("/v1/fragments", json={"ids": ids}).json()
    assert fragments and {f["provenance"]["source_kind"] for f in fragments} <= {
        "chatgpt",
        "obsidian",
    }
    stats = client.get("/v1/admin/stats").json()
    assert stats["code"]["files"] == 3 and stats["documents"] == 2
