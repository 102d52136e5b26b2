"""The pgvector-against-chroma-server benchmark: its exact neighbours on a hand-made case,
and a tiny run of the whole section (both servers started, 300 vectors, 10 queries)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchmarks import vector_servers
from benchmarks.context import RunContext, Sizes
from tests.support._data import shared_data_dir


def test_exact_top_is_the_brute_force_cosine_top_k() -> None:
    vectors = np.eye(4, dtype=np.float32)
    queries = np.array([[0.9, 0.1, 0.0, 0.0], [0.0, 0.0, 0.6, 0.8]], dtype=np.float32)
    tops = vector_servers.exact_top(vectors, queries, ["a", "b", "c", "d"], 2)
    assert tops == [{"a", "b"}, {"c", "d"}]


@pytest.mark.slow
def test_a_tiny_run_measures_both_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bench_vector_cache: Path
) -> None:
    shared_data_dir("beir", "scifact")
    monkeypatch.setenv("MEMEX_BENCH_CACHE", str(bench_vector_cache))  # not the repo's
    reason = vector_servers.unavailable()
    if reason:
        pytest.skip(reason)
    sizes = replace(Sizes.quick(), vectors_max=300, hybrid_queries=10)
    section = vector_servers.run(RunContext(tmp=tmp_path, sizes=sizes, quick=True))
    assert section.skipped is None
    text = "\n".join(section.body)
    assert "| chroma server |" in text and "| pgvector |" in text
    recall = section.checks[0]
    assert recall.met, (recall.figure, recall.peer)  # 300 vectors: both find the exact top 10
