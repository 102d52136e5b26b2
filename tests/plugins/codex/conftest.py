"""Fixtures of the Codex source tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.plugins.codex.rollouts import CODEX
from tests.support._data import shared_data_dir


@pytest.fixture
def codex_data() -> Path:
    return shared_data_dir(*CODEX)
