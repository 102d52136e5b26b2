"""``POST /v1/memory/remember`` with a fact over the core's limit is a 422 naming the limit,
and nothing is stored (issue 32, item 7; the limit itself: tests/core/test_fact_limit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")

from memex_client import MemexClient
from memex_core.domain.memory.facts import MAX_FACT_CHARS
from memex_core.errors import MemexError
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    Raw,
    assert_clean_response,
    error_of,
    keyword_only_home,
    served,
)


def test_a_fact_over_the_limit_is_422_and_nothing_is_stored(tmp_path: Path) -> None:
    home = keyword_only_home(tmp_path / "home")
    with served(home) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        key = op.create_key("alice", name="alice-bot")["key"]
        raw = Raw(service.url, key)
        status, code, message = error_of(
            raw.post("/v1/memory/remember", {"text": "x" * (MAX_FACT_CHARS + 1)})
        )
        assert (status, code) == (422, "invalid_request")
        assert f"at most {MAX_FACT_CHARS:,}" in message and "memex ingest" in message
        agent = MemexClient(service.url, api_key=key, timeout=CLIENT_TIMEOUT).agent()
        with pytest.raises(MemexError, match=f"at most {MAX_FACT_CHARS:,}"):
            agent.remember("y" * (MAX_FACT_CHARS + 1))
        assert op.operator().list() == []
        assert_clean_response(raw.post("/v1/memory/remember", {"text": "Alice likes tea"}))
        assert len(op.operator().list()) == 1
