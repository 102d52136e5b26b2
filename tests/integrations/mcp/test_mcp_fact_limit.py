"""The MCP ``remember`` tool refuses a fact over the core's limit as a tool error that
names it (issue 32, item 7; the limit itself: tests/core/test_fact_limit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="memex mcp needs memex[mcp]")

from memex_core.domain.memory.facts import MAX_FACT_CHARS
from tests.support.mcp_harness import (
    build_home,
    mcp_session,
    run,
    text_of,
)


def test_remember_refuses_a_fact_over_the_limit(tmp_path: Path) -> None:
    home = build_home(tmp_path / "home")

    async def body() -> None:
        async with mcp_session(home.path, "--user", "alice") as session:
            refused = await session.call_tool("remember", {"text": "x" * (MAX_FACT_CHARS + 1)})
            assert refused.is_error
            said = text_of(refused)
            assert f"at most {MAX_FACT_CHARS:,}" in said and "Traceback" not in said
            kept = await session.call_tool("remember", {"text": "Alice likes green tea."})
            assert not kept.is_error, text_of(kept)

    run(body)
