"""Code that ``memex ask`` indexes stays out of every search that does not name it
(issue 32 item 1): the Python API and its views, in every mode, on the memory vector store
double and on the real chroma store; inside the stores before top-k, so a search still gets
its k memory hits. A search naming ``code`` still finds it; ``stats`` counts it apart, and
``forget_code`` removes it from the catalog and both indexes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.config import Config, load_config
from memex_core.domain import SearchFilters
from memex_core.domain.filters import NAMED_ONLY_SOURCES
from memex_core.errors import MemexError
from memex_core.plugins import load_registry
from tests.support.code_home import MEMORY_MATCHES, QUERY, CodeHome, build_code_home, source_kinds
from tests.support.component_doubles import DoublesPlugin, fast_memex

MODES = ("hybrid", "keyword", "semantic")


def chroma_memex(home: Path) -> Memex:
    """The hashing embedder with the real chroma store, kept in the home."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    components = {**load_config(home).components, "embedder": "hashing", "vector_store": "chroma"}
    return Memex(registry=registry, config=Config(home=home, components=components, raw={}))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> CodeHome:
    return build_code_home(tmp_path_factory.mktemp("code-home"), fast_memex)


@pytest.fixture(scope="module")
def mx(built: CodeHome) -> Iterator[Memex]:
    memex = fast_memex(built.home)
    yield memex
    memex.close()


def test_the_code_source_is_the_one_searched_only_when_named() -> None:
    from memex_code.source import SOURCE_KIND

    assert NAMED_ONLY_SOURCES == (SOURCE_KIND,)


@pytest.mark.parametrize("mode", MODES)
def test_a_search_gets_its_k_memory_hits_and_no_code(mx: Memex, mode: str) -> None:
    found = mx.search(QUERY, mode=mode, limit=3)
    assert source_kinds(found) and "code" not in source_kinds(found), found.notes
    assert len(found) == 3  # filtered before top-k: code took no place
    everything = mx.search(QUERY, mode=mode, limit=50)
    assert "code" not in source_kinds(everything)
    assert len(everything) <= MEMORY_MATCHES + 2  # the other chats at most, never code


@pytest.mark.parametrize("mode", MODES)
def test_a_search_naming_code_finds_code(mx: Memex, mode: str) -> None:
    found = mx.search(QUERY, mode=mode, limit=5, source="code")
    assert set(source_kinds(found)) == {"code"} and len(found) == 5
    both = mx.search(QUERY, mode=mode, limit=50, source=["code", "chatgpt"])
    assert {"code", "chatgpt"} <= set(source_kinds(both))


def test_the_views_and_filters_given_whole_leave_code_out(mx: Memex) -> None:
    assert "code" not in source_kinds(mx.view("alice").search(QUERY, limit=5))
    assert "code" not in source_kinds(mx.view().search(QUERY, "keyword", 5, role="note"))
    assert "code" not in source_kinds(mx.search(QUERY, filters=SearchFilters(roles=("note",))))
    assert "code" not in source_kinds(mx.compact_search(QUERY, limit=5))
    pack = mx.context(QUERY, 3000)
    kinds = source_kinds(mx.get([item.id for item in pack.items]))
    assert kinds and "code" not in kinds


def test_ask_still_searches_the_code(mx: Memex, built: CodeHome) -> None:
    result = mx.ask(QUERY, repo=built.repo, answer=False)
    assert {item.kind for item in result.items} == {"memory", "code"}


def test_the_real_chroma_store_leaves_code_out_before_top_k(
    built: CodeHome, tmp_path: Path
) -> None:
    pytest.importorskip("chromadb")
    import shutil

    home = tmp_path / "home"
    shutil.copytree(built.home, home)
    with chroma_memex(home) as chroma:
        chroma.rebuild(keyword=False, vectors=True)
        for mode in ("semantic", "hybrid"):
            found = chroma.search(QUERY, mode=mode, limit=3)
            assert len(found) == 3 and "code" not in source_kinds(found), mode
            assert set(source_kinds(chroma.search(QUERY, mode=mode, source="code"))) == {"code"}
        # The store's own filtered query (what answers when the unfiltered overfetch has too
        # few memory hits): chroma's where clause leaves code out too.
        hits = chroma.vector_store.search(
            chroma.embedder.embed_query(QUERY), 3, SearchFilters(include_private=True)
        )
        kinds = source_kinds(chroma.get([h.id for h in hits]))
        assert len(kinds) == 3 and "code" not in kinds


def test_the_store_clauses_name_code_only_when_a_search_leaves_it_out() -> None:
    from memex_chroma.metadata import passes, where_clause
    from memex_pgvector.filters import where_clause as pg_where

    plain = SearchFilters(include_private=True)
    assert where_clause(plain) == {"source_kind": {"$nin": ["code"]}}
    assert where_clause(SearchFilters(include_private=True, named_only=())) is None
    assert where_clause(SearchFilters(source_kinds=("code",), include_private=True)) == {
        "source_kind": {"$in": ["code"]}
    }
    assert not passes({"source_kind": "code"}, plain)
    assert passes({"source_kind": "code"}, SearchFilters(source_kinds=("code",)))
    assert pg_where(plain) == ("source_kind <> ALL(%s::text[])", [["code"]])
    assert pg_where(SearchFilters(include_private=True, named_only=())) == ("TRUE", [])


def test_stats_count_code_apart(mx: Memex) -> None:
    stats = mx.stats()
    assert stats.code["repositories"] == 1
    assert stats.code["files"] == 3
    assert stats.code["fragments"] == stats.by_source["code"] >= 10
    assert stats.documents == 2  # the two notes, not the repository's files
    assert stats.conversations == 2 + 2  # two chats and two notes
    assert stats.by_role == {"user": 2, "assistant": 2, "note": 2}


def test_forget_code_removes_it_from_the_catalog_and_both_indexes(
    built: CodeHome, tmp_path: Path
) -> None:
    import shutil

    home = tmp_path / "home"
    shutil.copytree(built.home, home)
    with fast_memex(home) as copy:
        copy.rebuild(keyword=True, vectors=True)  # this copy's own vectors
        code = copy.stats().code["fragments"]
        with pytest.raises(MemexError, match="no code of that repository is indexed"):
            copy.forget_code(tmp_path)
        done = copy.forget_code(built.repo / "store")  # a folder inside the repository
        assert [(r.root, r.files, r.fragments) for r in done.repositories] == [
            (str(built.repo), 3, code)
        ]
        assert done.vectors_deleted == code
        assert copy.stats().code == {"repositories": 0, "files": 0, "fragments": 0}
        assert copy.stats().by_source.get("code") is None
        for mode in MODES:
            assert not copy.search(QUERY, mode=mode, source="code").results
        assert copy.keyword_store.count() == copy.stats().fragments
        assert copy.vector_store.count() == copy.stats().fragments
        assert len(copy.search(QUERY, limit=3)) == 3  # memory untouched
        assert copy.forget_code().notes == ["no repository's code is indexed; nothing to forget"]


def test_code_indexed_after_a_search_is_left_out_too(built: CodeHome, tmp_path: Path) -> None:
    """The reader remembers that a home holds no code until fragments change: code indexed
    by the same Memex after a search is left out of the next one."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[embedder]\nuse = "none"\n', encoding="utf-8")
    with Memex(home) as memex:
        memex.ingest(built.vault)
        assert source_kinds(memex.search(QUERY, mode="keyword")) == ["obsidian"] * 2
        memex.ingest(built.repo, source="code")
        assert source_kinds(memex.search(QUERY, mode="keyword")) == ["obsidian"] * 2
        assert "code" in source_kinds(memex.search(QUERY, mode="keyword", source="code"))
