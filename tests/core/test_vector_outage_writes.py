"""Writes while the vector store is down: stored and keyword-searchable now, vectors later.

The real chroma server outages are in test_chroma_outage.py; here the store of
the fast test home fails on demand, so each write path is checked on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memex_core.api import Memex
from memex_core.domain import Fragment, Provenance
from memex_core.domain.fragment import fragment_id
from memex_core.errors import VectorStoreUnavailableError
from tests.support.component_doubles import fast_memex


class Outage:
    """Makes every call of the vector store fail while ``down``."""

    def __init__(self, mx: Memex, monkeypatch: pytest.MonkeyPatch) -> None:
        self.down = False
        store = mx.vector_store
        for name in ("upsert", "delete", "search"):
            original = getattr(store, name)
            monkeypatch.setattr(store, name, self._guard(original))

    def _guard(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                raise VectorStoreUnavailableError("the test's vector store is down")
            return original(*args, **kwargs)

        return call


@pytest.fixture
def mx(tmp_path: Path) -> Iterator[Memex]:
    memex = fast_memex(tmp_path / "home")
    yield memex
    memex.close()


def pending(mx: Memex) -> int:
    return mx.indexer().pending()


def test_remember_while_down_stores_and_backfills_later(
    mx: Memex, monkeypatch: pytest.MonkeyPatch
) -> None:
    outage = Outage(mx, monkeypatch)
    alice = mx.agent("alice")
    alice.remember("Alice grows tomatoes on her balcony")
    outage.down = True
    result = alice.remember("Alice keeps bees in the garden")  # similarity by words now
    assert result.memory_ids
    assert pending(mx) > 0
    found = alice.search("bees garden", mode="keyword")
    assert [h.text for h in found] == ["Alice keeps bees in the garden"]
    hybrid = mx.view(user="alice").search("bees garden")
    assert hybrid.fallback and hybrid.results
    outage.down = False
    assert mx.backfill() > 0
    assert pending(mx) == 0
    assert [h.text for h in alice.search("bees garden", mode="semantic", limit=1)] == [
        "Alice keeps bees in the garden"
    ]


def test_add_fragments_while_down_keeps_the_batch(
    mx: Memex, monkeypatch: pytest.MonkeyPatch
) -> None:
    outage = Outage(mx, monkeypatch)
    outage.down = True
    fragments = [
        Fragment(
            id=fragment_id("app", "c1", str(i), text),
            conversation_id="c1",
            role="note",
            content=text,
            provenance=Provenance("app", "app", "c1", str(i)),
        )
        for i, text in enumerate(["a note about kayaks", "a note about tents"])
    ]
    assert mx.add_fragments(fragments, origin="app:test") == 2
    assert pending(mx) == 2
    assert [r.fragment.content for r in mx.search("kayaks", "keyword")] == ["a note about kayaks"]
    outage.down = False
    assert mx.backfill() == 2
