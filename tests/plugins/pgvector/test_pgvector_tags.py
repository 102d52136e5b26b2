"""The tag filter (issue 32, item 11) inside pgvector: a search by tag on a pgvector home
finds the two tagged notes although 40 untagged ones rank higher, so the filter (a
conversation filter by then) is applied before top-k, whether the store's SQL or the wider
unfiltered query judged against the catalog answers (tests/core/test_tag_filter.py does the
same on chroma)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from memex_core.domain.search_options import SearchOptions
from memex_pgvector.store import PgvectorStore
from tests.support.tagged_vault import EXPECTED, QUERY, TAGGED, note_paths, tagged_home


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_the_tag_filter_applies_inside_pgvector_before_top_k(
    tmp_path: Path, pgvector_url: str, mode: str
) -> None:
    raw = {"vector": {"use": "pgvector", "pgvector": {"url": pgvector_url}}}
    mx = tagged_home(tmp_path, vector_store="pgvector", raw=raw)
    try:
        assert isinstance(mx.vector_store, PgvectorStore)
        unfiltered = mx.search(SearchOptions(QUERY, mode, 2, floor="off"))
        assert not note_paths(r.fragment for r in unfiltered) & set(TAGGED)
        for tags, expected in EXPECTED.items():
            found = mx.search(SearchOptions(QUERY, mode, 2, tag=list(tags), floor="off"))
            assert note_paths(r.fragment for r in found) == expected, tags
    finally:
        mx.close()
        cast(PgvectorStore, mx.vector_store).close()
