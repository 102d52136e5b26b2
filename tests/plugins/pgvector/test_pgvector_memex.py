"""A home with ``[vector] use = "pgvector"`` against a chroma home on the same data.

Both homes run the real MiniLM embedder on the shipped examples: ingest without vectors,
``backfill``, then the same hybrid, semantic and filtered searches must give the same
results, in the same order, with the same similarities. The pgvector home also keeps
agent memory apart by owner, passes the doctor, and rebuilds its vectors.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from memex_core.api import Memex
from memex_core.domain import SearchFilters
from tests.conftest import EXAMPLES

pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'memex[postgres]')")

from memex_pgvector.store import PgvectorStore

CLAUDE_ONLY = {"source": "claude_ai"}
QUERIES = [
    "database is locked while another process writes",
    "bread fermentation at home",
    "slow query after upgrade",
    "how do I keep my plants alive",
    "retry with exponential backoff",
]


def home_with(folder: Path, config: str) -> Memex:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(config)
    mx = Memex(home=folder)
    reason = mx.semantic_unavailable_reason()
    if reason:
        mx.close()
        pytest.skip(reason)
    return mx


@pytest.fixture
def homes(tmp_path: Path, pgvector_url: str) -> Iterator[tuple[Memex, Memex]]:
    pytest.importorskip(
        "chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')"
    )
    chroma = home_with(tmp_path / "chroma-home", "")
    pgvector = home_with(
        tmp_path / "pgvector-home",
        f'[vector]\nuse = "pgvector"\n[vector.pgvector]\nurl = "{pgvector_url}"\n',
    )
    try:
        yield chroma, pgvector
    finally:
        chroma.close()
        pgvector.close()
        cast(PgvectorStore, pgvector.vector_store).close()


def ranked(mx: Memex, query: str, mode: str, **kwargs: object) -> list[tuple[str, float]]:
    found = mx.search(query, mode=mode, limit=8, time_phrases=False, **kwargs)  # type: ignore[arg-type]
    assert found.fallback is None, found.notes
    return [(r.id, r.score) for r in found]


def test_a_pgvector_home_answers_as_the_chroma_home_does(homes: tuple[Memex, Memex]) -> None:
    chroma, pgvector = homes
    for mx in homes:
        report = mx.ingest(EXAMPLES, embed=False)
        assert not report.failed and report.fragments_added > 30
        assert mx.backfill() == report.fragments_added
    assert isinstance(pgvector.vector_store, PgvectorStore)
    assert pgvector.vector_store.count() == chroma.vector_store.count()

    for query in QUERIES:
        for mode, filters in (("hybrid", {}), ("semantic", {}), ("semantic", CLAUDE_ONLY)):
            ours = ranked(pgvector, query, mode, **filters)
            theirs = ranked(chroma, query, mode, **filters)
            assert [i for i, _ in ours] == [i for i, _ in theirs], (query, mode, filters)
            assert [a for _, a in ours] == pytest.approx([b for _, b in theirs], abs=1e-4)

    top = pgvector.search("bread fermentation at home", mode="semantic", limit=1)
    assert top[0].fragment.title == "Sourdough starter and first loaf"
    checked = pgvector.doctor()
    assert checked.healthy, [f.to_dict() for f in checked.findings]


def test_agent_memory_on_pgvector_stays_with_its_owner(tmp_path: Path, pgvector_url: str) -> None:
    mx = home_with(
        tmp_path / "home",
        f'[vector]\nuse = "pgvector"\n[vector.pgvector]\nurl = "{pgvector_url}"\n',
    )
    try:
        mx.ingest(EXAMPLES)
        alice, bob = mx.agent("alice"), mx.agent("bob")
        alice.remember("Alice keeps her sourdough starter in the fridge on weekdays")
        bob.remember("Bob waters the tomato plants every morning before work")

        mine = alice.search("where is the bread starter kept", mode="semantic", limit=5)
        assert mine and "Alice keeps her sourdough" in mine[0].text
        assert all("Bob" not in hit.text for hit in mine)
        theirs = bob.search("where is the bread starter kept", mode="semantic", limit=5)
        assert all("Alice" not in hit.text for hit in theirs)

        store = cast(PgvectorStore, mx.vector_store)
        everything = SearchFilters(include_private=True)
        assert store.count() == mx.catalog.count_fragments()
        assert {hit.id for hit in store.search(store_query(mx), 500, everything)} == store.ids()

        done = mx.rebuild(keyword=False, vectors=True)
        assert done["vectors"] == mx.catalog.count_fragments() == store.count()
        again = alice.search("where is the bread starter kept", mode="semantic", limit=5)
        assert [h.text for h in again] == [h.text for h in mine]
        checked = mx.doctor()
        assert checked.healthy, [f.to_dict() for f in checked.findings]
    finally:
        mx.close()
        cast(PgvectorStore, mx.vector_store).close()


def store_query(mx: Memex) -> list[float]:
    return list(mx.embedder.embed_query("anything at all"))
