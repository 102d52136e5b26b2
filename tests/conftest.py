"""Shared fixtures: an isolated MEMEX_HOME, the shared real-data folder, fast test components."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "exports"

pytest_plugins = ["tests.component_doubles"]


def shared_data_path() -> Path:
    return Path(os.environ.get("MEMEX_TEST_DATA") or REPO.parent / "shared" / "data")


@pytest.fixture
def shared_data() -> Path:
    """The real exports and benchmark sets in ../shared/data; skips when absent."""
    path = shared_data_path()
    if not path.is_dir():
        pytest.skip(f"real test data not found at {path} (set MEMEX_TEST_DATA to its folder)")
    return path


@pytest.fixture
def memex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty MEMEX_HOME for one test."""
    home = tmp_path / "memex-home"
    monkeypatch.setenv("MEMEX_HOME", str(home))
    monkeypatch.delenv("MEMEX_CHROMA_URL", raising=False)
    monkeypatch.setenv("MEMEX_LOCK_TIMEOUT", "0.5")
    return home
