"""One MiniLM vector cache for every benchmark smoke run in this process.

The quick runs embed overlapping SciFact and LoCoMo passages; each used to start from an
empty cache and embed them again. The cache is keyed by text and model build, so a vector
found there is the one the run would have computed; it stays out of the repository's
``.memex-bench``.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def bench_vector_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vector cache folder shared by this process's benchmark tests."""
    return tmp_path_factory.mktemp("bench-vector-cache")
