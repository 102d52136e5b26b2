"""The rerank is the default ranker; without its plugin search falls back to rrf unless
config.toml names it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.config import DEFAULT_COMPONENTS, load_config
from memex_core.plugins import PluginUnavailable
from memex_core.services.doctor.findings import Finding
from memex_rerank import LearnedRerank
from memex_rrf import ReciprocalRankFusion
from tests.support.component_doubles import fast_memex

FACT = "Alice keeps her sourdough starter in the fridge"


@contextmanager
def without_rerank(home: Path, monkeypatch: pytest.MonkeyPatch, config: str) -> Iterator[Memex]:
    """A Memex on ``home`` with ``config`` as its config.toml and no rerank plugin loaded."""
    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "sqlite,bm25,rrf,secrets,rules")
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(config)
    mx = fast_memex(home, **load_config(home).raw)
    try:
        yield mx
    finally:
        mx.close()


def recalled(mx: Memex) -> list[str]:
    mx.remember(FACT, user="alice")
    return [h.text for h in mx.recall("sourdough starter", user="alice")]


def doctor_says(mx: Memex, code: str) -> Finding | None:
    return next((f for f in mx.doctor().findings if f.code == code), None)


def test_rerank_is_the_default_ranker(memex_home: Path) -> None:
    assert DEFAULT_COMPONENTS["ranker"] == "rerank"
    mx = fast_memex(memex_home)
    try:
        assert isinstance(mx.ranker, LearnedRerank)
        assert mx.ranker_fallback() is None
        assert doctor_says(mx, "search.ranker_fallback") is None
    finally:
        mx.close()


def test_without_the_rerank_plugin_search_ranks_with_rrf_and_doctor_says_so(
    memex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fallback reads its own table, [ranker.rrf].
    with without_rerank(memex_home, monkeypatch, "[ranker.rrf]\nk = 30\n") as mx:
        assert recalled(mx) == [FACT]
        assert type(mx.ranker) is ReciprocalRankFusion and mx.ranker.k == 30
        note = doctor_says(mx, "search.ranker_fallback")
        assert note is not None and note.severity == "note"
        assert "ranks with rrf" in note.summary and "'rerank'" in note.summary
        assert '[ranker] use = "rrf"' in note.fix


def test_a_rerank_named_in_config_that_is_missing_is_an_error(
    memex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with without_rerank(memex_home, monkeypatch, '[ranker]\nuse = "rerank"\n') as mx:
        with pytest.raises(PluginUnavailable, match="rerank"):
            recalled(mx)
        error = doctor_says(mx, "search.ranker_unavailable")
        assert error is not None and error.severity == "error" and "rerank" in error.summary
