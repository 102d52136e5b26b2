"""A remembered fact has a size limit, and no one document crowds a context pack
(issue 32, item 7).

``remember`` refuses a text over ``MAX_FACT_CHARS`` in the core, so the Python API, the
CLI, HTTP and MCP all refuse it (each surface's own error is tested beside it:
tests/core/cli/test_cli_messages.py, tests/integrations/server/test_server_fact_limit.py,
tests/integrations/mcp/test_mcp_fact_limit.py). A context pack gives one conversation,
note or memory at most ``document_share`` of its budget before its last pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.domain.memory.facts import MAX_FACT_CHARS, FactTooLongError
from memex_core.errors import MemexError
from memex_core.services.context import ContextSettings
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import T0, chatgpt_conversation, write_chatgpt_export

#: Words enough to make many distinct fragments, none about the query below.
FILLER = " ".join(f"ledger{i} reconciles quarterly invoice batch {i}." for i in range(400))


@pytest.fixture
def mx(tmp_path: Path) -> Iterator[Memex]:
    # Small memory fragments: a fact at the limit is then many fragments, as a 120,000
    # character one was with the default size.
    memex = fast_memex(tmp_path / "home", memory={"fragment_chars": 200})
    memex.ingest(write_chatgpt_export(tmp_path / "conversations.json"))
    # More other material than a pack holds, so a document that took more than its share
    # would push some of it out.
    others = [
        chatgpt_conversation(
            f"conv-{n}",
            f"Garden {n}",
            [("user", f"Which tomato variety {n} grows best on a balcony in spring?", T0 + n)],
        )
        for n in range(60)
    ]
    memex.ingest(write_chatgpt_export(tmp_path / "more" / "conversations.json", others))
    yield memex
    memex.close()


def test_a_fact_over_the_limit_is_refused_and_nothing_is_stored(mx: Memex) -> None:
    text = ("Alice keeps a long journal. " * 1000)[: MAX_FACT_CHARS + 1]
    for remember in (
        lambda: mx.agent("alice").remember(text),
        lambda: mx.operator().remember(text, user_id="alice"),
    ):
        with pytest.raises(FactTooLongError) as refused:
            remember()
        assert isinstance(refused.value, MemexError) and isinstance(refused.value, ValueError)
        message = str(refused.value)
        assert f"{MAX_FACT_CHARS + 1:,} characters" in message
        assert f"at most {MAX_FACT_CHARS:,}" in message and "memex ingest" in message
    assert mx.operator().list() == []


def test_a_fact_at_the_limit_is_stored(mx: Memex) -> None:
    result = mx.agent("alice").remember(FILLER[:MAX_FACT_CHARS])
    assert len(result.memory_ids) == 1


def test_one_memory_takes_at_most_its_share_of_a_pack_about_something_else(mx: Memex) -> None:
    memory_id = mx.agent("alice").remember(FILLER[:MAX_FACT_CHARS]).memory_ids[0]
    budget = 4000
    pack = mx.context("sourdough bread proof", budget_chars=budget)
    by_document = Counter()
    for item in pack.items:
        (fragment,) = mx.get([item.id])
        by_document[fragment.conversation_id] += len(item.text)
    share = ContextSettings().document_share
    assert 0 < by_document[memory_id] <= budget * share
    assert "conv-bread" in by_document  # what the pack is about is there
    assert pack.used_chars > budget * 0.9  # and the rest of the room went to other material


def test_with_nothing_else_to_add_what_the_query_found_fills_the_rest(mx: Memex) -> None:
    """The share holds while other material waits; the last pass, more of what the query
    found, may take the room left when nothing else is there (here: memory only)."""
    from memex_core.domain.search_options import SearchOptions

    memory_id = mx.agent("alice").remember(FILLER[:MAX_FACT_CHARS]).memory_ids[0]
    asked = SearchOptions("ledger reconciles quarterly invoice", source=["memory"])
    pack = mx.context(asked, budget_chars=4000)
    ids = {mx.get([item.id])[0].conversation_id for item in pack.items}
    assert ids == {memory_id}
    assert pack.used_chars > 4000 * ContextSettings().document_share
