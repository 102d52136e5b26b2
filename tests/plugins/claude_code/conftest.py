"""Fixtures of the Claude Code source tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.plugins.claude_code.transcripts import claude_code_root


@pytest.fixture
def cc_data() -> Path:
    root = claude_code_root()
    if not root.is_dir():
        pytest.skip(f"shared test data not found at {root} (set MEMEX_TEST_DATA)")
    return root
