"""``MemexRetriever`` reads remembered facts by time (issue 30): current facts by default
(a fact a later one replaced is left out), ``as_of`` for the facts valid then and
``include_superseded`` for every fact, as fields or per call; bob's facts never show.
A home with the lives-in test judge (tests/support/supersession_doubles.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

pytest.importorskip("langchain_core")

from memex_core.api import Memex
from memex_langchain import MemexRetriever
from tests.support.supersession_doubles import timed_memex


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    memex = timed_memex(tmp_path_factory.mktemp("langchain-validity") / "home")
    memex.remember("Alice lives in Paris", user="alice", at="2024-01-10")
    memex.remember("Alice moved to Berlin", user="alice", at="2024-06-01")
    memex.remember("Bob lives in Paris, near Alice", user="bob", at="2024-01-10")
    yield memex
    memex.close()


def texts(documents: list) -> list[str]:
    return sorted(d.page_content for d in documents)


def test_current_facts_by_default(mx: Memex) -> None:
    retriever = MemexRetriever(memex=mx, user="alice", corpus=False, mode="keyword", k=10)
    assert texts(retriever.invoke("Alice Paris Berlin")) == ["Alice moved to Berlin"]


def test_as_of_per_call_and_as_a_field(mx: Memex) -> None:
    retriever = MemexRetriever(memex=mx, user="alice", corpus=False, mode="keyword", k=10)
    march = datetime(2024, 3, 1, tzinfo=UTC)
    for then in ("2024-03-01", march, march.timestamp()):
        assert texts(retriever.invoke("Alice Paris Berlin", as_of=then)) == ["Alice lives in Paris"]
    pinned = MemexRetriever(
        memex=mx, user="alice", corpus=False, mode="keyword", k=10, as_of="2024-03-01"
    )
    assert texts(pinned.invoke("Alice Paris Berlin")) == ["Alice lives in Paris"]
    assert texts(pinned.invoke("Alice Paris Berlin", as_of="2024-07-01")) == [
        "Alice moved to Berlin"
    ]


def test_include_superseded_gives_every_fact_and_never_bobs(mx: Memex) -> None:
    retriever = MemexRetriever(memex=mx, user="alice", corpus=False, mode="keyword", k=10)
    found = texts(retriever.invoke("Alice Paris Berlin", include_superseded=True))
    assert found == ["Alice lives in Paris", "Alice moved to Berlin"]
    for options in ({}, {"as_of": "2024-03-01"}, {"include_superseded": True}):
        assert all("Bob" not in t for t in texts(retriever.invoke("Bob near", **options)))
