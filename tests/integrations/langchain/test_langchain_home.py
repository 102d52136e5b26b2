"""The LangChain tests' home (tests/support/langchain_home.py) holds what they rely on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from memex_core.api import Memex
from tests.support.langchain_home import ALICE_FACTS, BOB_FACTS, build_home, corpus_fragments


@pytest.fixture
def lc_memex(memex_home: Path) -> Iterator[Memex]:
    mx = build_home(memex_home)
    yield mx
    mx.close()


def test_home_holds_the_corpus_and_both_users(lc_memex: Memex) -> None:
    stats = lc_memex.stats()
    assert stats.fragments >= len(corpus_fragments()) + len(ALICE_FACTS) + len(BOB_FACTS) + 3
    operator = lc_memex.operator()
    assert len(operator.list(user_id="alice")) == len(ALICE_FACTS) + 2  # + private + file
    assert len(operator.list(user_id="bob")) == len(BOB_FACTS) + 1
    bob_hits = operator.search("sqlite locked BOBSECRET", user_id="bob", limit=20)
    assert bob_hits and all("BOBSECRET" in hit.text for hit in bob_hits)
