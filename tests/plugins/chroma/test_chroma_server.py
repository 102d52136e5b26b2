"""The chroma store against a real ``chroma run`` server, reached through MEMEX_CHROMA_URL."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

from memex_chroma.connection import URL_ENV
from memex_chroma.store import ChromaVectorStore
from memex_core.domain import PluginContext, SearchFilters
from tests.support.chroma_server import chroma_server_url  # noqa: F401  (fixture)
from tests.support.vector_builders import T0, expected_ranking, make_fragment, unit_vectors

pytestmark = pytest.mark.chroma_server


def test_store_works_against_a_chroma_server(
    chroma_server_url: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(URL_ENV, chroma_server_url)
    context = PluginContext(home=tmp_path / "home")
    fragments = [
        make_fragment(
            i,
            role="user" if i % 2 else "assistant",
            timestamp=None if i % 5 == 0 else T0 + i,
        )
        for i in range(30)
    ]
    vectors = unit_vectors(30)
    query = unit_vectors(1, seed=42)[0]

    with ChromaVectorStore.from_context(context) as store:
        assert store.location.server is not None
        store.upsert(fragments, vectors)
        store.upsert(fragments[:5], vectors[:5])  # idempotent
        assert store.count() == 30
        assert store.max_batch_size() > 0  # asked of the server

        hits = store.search(query, 5, SearchFilters())
        expected = expected_ranking(query, vectors, fragments)[:5]
        assert [hit.id for hit in hits] == [fid for fid, _ in expected]
        for hit, (_, score) in zip(hits, expected, strict=True):
            assert hit.score == pytest.approx(score, abs=1e-4)

        filters = SearchFilters(roles=("user",), since=T0 + 10)
        allowed = [i for i, f in enumerate(fragments) if filters.matches(f)]
        filtered = store.search(query, 100, filters)
        ranking = expected_ranking(query, vectors[allowed], [fragments[i] for i in allowed])
        assert [hit.id for hit in filtered] == [fid for fid, _ in ranking]

        store.delete(["frag-0001", "frag-0002"])
        # Clearing a timestamp over HTTP (None in upsert metadata) must work too.
        store.upsert([make_fragment(3, timestamp=None)], vectors[3:4])
        assert "frag-0003" not in {
            h.id for h in store.search(vectors[3], 5, filters.without("roles"))
        }

    # A new store object (a new client) sees what the server kept; nothing went to MEMEX_HOME.
    with ChromaVectorStore.from_context(context) as again:
        assert again.count() == 28
        assert again.ids() == {f.id for f in fragments} - {"frag-0001", "frag-0002"}
        again.clear()
        assert again.count() == 0
    assert not (tmp_path / "home" / "index" / "chroma").exists()
