from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.config import DEFAULT_COMPONENTS, load_config
from memex_core.errors import MemexError


def test_defaults_without_a_file(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert dict(config.components) == DEFAULT_COMPONENTS
    assert config.component_settings("ranker") == {}


def test_use_picks_components_and_sub_tables_hold_settings(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        '[ranker]\nuse = "rrf"\n[ranker.rrf]\nk = 10\n'
        "[keyword.bm25]\nstemmer = false\n"
        '[embedder]\nuse = "other"\n'
        "[search]\ncandidate_depth = 80\n"
        "[source.claude_ai]\ninclude_thinking = true\n"
    )
    config = load_config(tmp_path)
    assert config.component("embedder") == "other"
    assert config.component("keyword_store") == "bm25"
    assert config.component_settings("ranker") == {"k": 10}
    assert config.component_settings("keyword_store") == {"stemmer": False}
    assert config.search_setting("candidate_depth", 50) == 80
    assert config.source_settings("claude_ai") == {"include_thinking": True}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ranker = 'rrf'", "must be a table"),
        ("[ranker]\nuse = 3", "must be a component name"),
        ("[ranker\nuse=", "invalid TOML"),
    ],
)
def test_bad_config_names_the_file_and_the_fix(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "config.toml").write_text(text)
    with pytest.raises(MemexError, match=message) as info:
        load_config(tmp_path)
    assert str(tmp_path / "config.toml") in str(info.value)
