"""One search surface: every search takes ``(query, mode, limit, *, ...)`` or one SearchOptions.

``Memex.search``, a view's ``search`` and ``context``, the operator reader and both memory
handles build a :class:`SearchOptions` at their entry; handing them one instead of a query
gives the same results as spelling the options out.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.domain.search_options import SearchOptions
from memex_core.operator_reader import OperatorReader
from tests.support.component_doubles import fast_memex

EXPORTS = Path(__file__).resolve().parents[2] / "examples" / "exports"


@pytest.fixture
def mx(tmp_path: Path) -> Iterator[Memex]:
    memex = fast_memex(tmp_path / "home")
    memex.ingest(str(EXPORTS))
    alice = memex.agent("alice")
    alice.remember("Alice keeps her kayak at the marina", collection="acme:sport")
    alice.remember("Alice drinks green tea in the morning", collection="acme:food")
    yield memex
    memex.close()


def ids(found: object) -> list[str]:
    return [r.fragment.id for r in found]  # type: ignore[attr-defined]


def hits(found: list) -> list[str]:
    return [h.memory_id for h in found]


def test_every_search_takes_query_mode_limit_in_that_order(mx: Memex) -> None:
    surfaces = [
        mx.search,
        mx.view("alice").search,
        OperatorReader(mx).search,
        mx.agent("alice").search,
        mx.operator().search,
    ]
    for search in surfaces:
        params = list(inspect.signature(search).parameters.values())
        assert [p.name for p in params[:3]] == ["query", "mode", "limit"], search
        assert [p.default for p in params[1:3]] == ["hybrid", 10], search
        assert all(p.kind is p.KEYWORD_ONLY or p.kind is p.VAR_KEYWORD for p in params[3:])


def test_search_options_stand_for_the_arguments(mx: Memex) -> None:
    options = SearchOptions.of("sqlite database", "keyword", 3)
    assert ids(mx.search(options)) == ids(mx.search("sqlite database", "keyword", 3))
    view = mx.view("alice")
    assert ids(view.search(options)) == ids(view.search("sqlite database", "keyword", 3))
    reader = OperatorReader(mx)
    assert ids(reader.search(options)) == ids(reader.search("sqlite database", "keyword", 3))


def test_memory_handles_take_options_and_the_new_order(mx: Memex) -> None:
    alice = mx.agent("alice")
    by_keywords = hits(alice.search("kayak marina", limit=5, mode="keyword"))
    assert by_keywords
    assert hits(alice.search("kayak marina", "keyword", 5)) == by_keywords
    assert hits(alice.search(SearchOptions.of("kayak marina", "keyword", 5))) == by_keywords
    narrowed = SearchOptions.of("kayak marina", "keyword", collection="acme:food")
    assert hits(alice.search(narrowed)) == []
    assert hits(mx.operator().search(SearchOptions.of("kayak marina", "keyword"))) == by_keywords


def test_context_takes_options(mx: Memex) -> None:
    options = SearchOptions.of("sqlite database locked")
    assert mx.context(options, 1500) == mx.context("sqlite database locked", 1500)
    view = mx.view("alice")
    assert view.context(options, 1500) == view.context("sqlite database locked", 1500)


def test_options_and_other_arguments_together_are_refused(mx: Memex) -> None:
    options = SearchOptions.of("sqlite")
    with pytest.raises(TypeError, match="limit"):
        mx.search(options, limit=3)
    with pytest.raises(TypeError, match="source"):
        mx.view("alice").search(options, source="chatgpt")
    with pytest.raises(TypeError, match="collection"):
        mx.agent("alice").search(options, collection="acme")


def test_memex_search_narrows_to_a_memory_collection(mx: Memex) -> None:
    found = mx.search("kayak marina", "keyword", collection="acme:sport")
    assert found.results and {r.fragment.collection for r in found} == {"acme:sport"}
    nothing = mx.search("kayak marina", "keyword", collection="nowhere")
    assert not nothing.results and nothing.notes
