"""The LlamaIndex retriever leaves out the code ``memex ask`` indexed unless its filters
name the ``code`` source (issue 32 item 1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("llama_index.core", reason="needs memex[llamaindex]")

from memex_core.api import Memex
from memex_llamaindex.retriever import MemexRetriever
from tests.support.code_home import QUERY, CodeHome, build_code_home


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    built: CodeHome = build_code_home(tmp_path_factory.mktemp("llamaindex-code"))
    with Memex(built.home) as memex:
        yield memex


def kinds(mx: Memex, retriever: MemexRetriever) -> list[str]:
    nodes = retriever.retrieve(QUERY)
    return [f.source_kind for f in mx.get([n.node.node_id for n in nodes])]


def test_retriever_returns_memory_only_unless_code_is_named(mx: Memex) -> None:
    for mode in ("hybrid", "keyword"):
        found = kinds(mx, MemexRetriever(mx, similarity_top_k=3, mode=mode))
        assert len(found) == 3 and "code" not in found
    named = MemexRetriever(mx, similarity_top_k=3, filters={"source": "code"})
    assert kinds(mx, named) == ["code"] * 3
