"""The LangChain retriever leaves out the code ``memex ask`` indexed unless its ``source``
names ``code`` (issue 32 item 1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("langchain_core", reason="needs memex[langchain]")

from memex_core.api import Memex
from memex_langchain.retriever import MemexRetriever
from tests.support.code_home import QUERY, CodeHome, build_code_home


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    built: CodeHome = build_code_home(tmp_path_factory.mktemp("langchain-code"))
    with Memex(built.home) as memex:
        yield memex


def kinds(mx: Memex, retriever: MemexRetriever) -> list[str]:
    documents = retriever.invoke(QUERY)
    return [f.source_kind for f in mx.get([str(d.id) for d in documents])]


def test_retriever_returns_memory_only_unless_code_is_named(mx: Memex) -> None:
    for mode in ("hybrid", "keyword"):
        found = kinds(mx, MemexRetriever(memex=mx, k=3, mode=mode))
        assert len(found) == 3 and "code" not in found
    assert kinds(mx, MemexRetriever(memex=mx, k=3, source="code")) == ["code"] * 3
    agent = kinds(mx, MemexRetriever(memex=mx, k=3, user="alice"))
    assert len(agent) == 3 and "code" not in agent
