"""LlamaIndex reads remembered facts by time (issue 30): ``MemexRetriever(as_of=...,
include_superseded=...)`` and ``MemexMemoryBlock(as_of=...)``; by default both give
current facts only, so an agent is never told a fact a later one replaced. A home with the
lives-in test judge (tests/support/supersession_doubles.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.schema import QueryBundle

from memex_core.api import Memex
from memex_core.errors import MemexError
from memex_llamaindex import MemexMemoryBlock, MemexRetriever
from tests.support.supersession_doubles import timed_memex


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    memex = timed_memex(tmp_path_factory.mktemp("llamaindex-validity") / "home")
    memex.remember("Alice lives in Paris", user="alice", at="2024-01-10")
    memex.remember("Alice moved to Berlin", user="alice", at="2024-06-01")
    memex.remember("Bob lives in Paris, near Alice", user="bob", at="2024-01-10")
    yield memex
    memex.close()


def found(retriever: MemexRetriever) -> list[str]:
    return sorted(n.node.get_content() for n in retriever.retrieve(QueryBundle("Alice Paris")))


def test_the_retriever_reads_current_facts_unless_asked(mx: Memex) -> None:
    def retriever(**options: object) -> MemexRetriever:
        return MemexRetriever(mx, user="alice", corpus=False, mode="keyword", **options)

    assert found(retriever()) == ["Alice moved to Berlin"]
    assert found(retriever(as_of="2024-03-01")) == ["Alice lives in Paris"]
    assert found(retriever(include_superseded=True)) == [
        "Alice lives in Paris",
        "Alice moved to Berlin",
    ]
    with pytest.raises(MemexError, match="ISO 8601"):
        found(retriever(as_of="last spring-ish"))


def test_the_memory_block_recalls_as_of(mx: Memex) -> None:
    messages = [ChatMessage(role="user", content="Where does Alice live, Paris?")]

    def recall(**options: object) -> str:
        block = MemexMemoryBlock(memex=mx, user="alice", mode="keyword", **options)
        return asyncio.run(block.aget(messages))

    now = recall()
    assert "Berlin" in now and "Alice lives in Paris" not in now and "Bob" not in now
    then = recall(as_of="2024-03-01")
    assert "Alice lives in Paris" in then and "Berlin" not in then and "Bob" not in then
