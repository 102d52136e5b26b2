"""Shared fixtures: an isolated MEMEX_HOME, the shared real-data folder, fast test components."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support._data import shared_data_dir

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "exports"

pytest_plugins = [
    "tests.support.component_doubles",
    "tests.support.postgres_fixtures",
    "tests.support.catalog_fixtures",
]


@pytest.fixture
def shared_data() -> Path:
    """The real exports and benchmark sets in ../shared/data; skips when absent."""
    return shared_data_dir()


@pytest.fixture
def memex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty MEMEX_HOME for one test."""
    home = tmp_path / "memex-home"
    monkeypatch.setenv("MEMEX_HOME", str(home))
    monkeypatch.delenv("MEMEX_CHROMA_URL", raising=False)
    monkeypatch.delenv("MEMEX_CATALOG_URL", raising=False)  # a developer's own server
    monkeypatch.setenv("MEMEX_LOCK_TIMEOUT", "0.5")
    return home
