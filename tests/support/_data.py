"""Locating the shared real-world test material (``../shared/data`` next to the repo).

It is never copied into the repository, so every test that uses it must skip
with a clear reason when it is absent. ``MEMEX_TEST_DATA`` overrides the place.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def shared_data_root() -> Path:
    """Where the shared data should be (it may not exist)."""
    configured = os.environ.get("MEMEX_TEST_DATA")
    return Path(configured) if configured else REPO_ROOT.parent / "shared" / "data"


def _missing_reason(path: Path) -> str:
    return f"shared test data not found at {path} (set MEMEX_TEST_DATA to the shared/data folder)"


def shared_data_dir(*parts: str) -> Path:
    """The shared data folder (or a subfolder of it); skips the calling test when absent."""
    path = shared_data_root().joinpath(*parts)
    if not path.is_dir():
        pytest.skip(_missing_reason(path))
    return path


def shared_file_params(*parts: str, keep: Callable[[Path], bool] = lambda _: True) -> list[Any]:
    """One ``pytest.param`` per file in a shared-data folder, for ``parametrize``.

    Runs at collection time, so it cannot skip; when the folder is absent it
    returns a single parameter marked skip with the reason instead.
    """
    folder = shared_data_root().joinpath(*parts)
    if not folder.is_dir():
        return [
            pytest.param(None, id="no-shared-data", marks=pytest.mark.skip(_missing_reason(folder)))
        ]
    files = sorted(p for p in folder.iterdir() if p.is_file() and keep(p))
    return [pytest.param(p, id=p.name) for p in files]
