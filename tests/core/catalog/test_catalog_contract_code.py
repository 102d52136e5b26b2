"""The catalog contract on every engine, for the code ``memex ask`` indexes (issue 32): which
named-only sources a home holds, code counted apart, the filter SQL leaving code out unless
named (counts and recent fragments), and a project's notes never counting code files."""

from __future__ import annotations

from memex_core.catalog import SqlCatalog
from memex_core.domain import SearchFilters
from tests.support.catalog_builders import document


def store(catalog: SqlCatalog, kind: str, root: str, path: str, texts: list[str]) -> None:
    catalog.store_document(
        run_id=catalog.start_run("sync"),
        root=root,
        source_kind=kind,
        document=document(kind, root, path, texts),
        sha256="1",
        size=1,
        mtime_ns=1,
    )


def test_code_is_held_counted_apart_and_filtered_unless_named(catalog: SqlCatalog) -> None:
    store(catalog, "obsidian", "/repo/notes", "A.md", ["a note"])
    assert catalog.held_source_kinds(("code",)) == ()
    store(catalog, "code", "/repo", "a.py", ["def a(): pass", "def b(): pass"])
    store(catalog, "code", "/repo", "b.py", ["def c(): pass"])
    store(catalog, "code", "/other", "c.py", ["def d(): pass"])
    assert catalog.held_source_kinds(("code", "nothing")) == ("code",)
    assert catalog.source_roots("code") == {"/repo": 2, "/other": 1}
    assert catalog.source_counts("code") == {
        "roots": 2,
        "documents": 3,
        "conversations": 3,
        "roles": {"note": 4},
    }
    assert catalog.count_matching(SearchFilters())[0] == 1
    assert catalog.count_matching(SearchFilters(named_only=()))[0] == 5
    assert catalog.count_matching(SearchFilters(source_kinds=("code",)))[0] == 4
    recent = catalog.recent_fragments(10, filters=SearchFilters())
    assert [f.source_kind for f in recent] == ["obsidian"]
    assert catalog.notes_in_folder(["/repo"], "/") == ["obsidian-/repo/notes-A.md"]


def test_a_repositorys_embedding_marks_and_the_fragments_without_vectors(
    catalog: SqlCatalog,
) -> None:
    """What ``ask`` counts its vector coverage from, and which fragments it still embeds."""
    store(catalog, "code", "/repo", "a.py", ["def a(): pass", "def b(): pass"])
    store(catalog, "code", "/repo", "b.py", ["def c(): pass"])
    a, b = "code-/repo-a.py", "code-/repo-b.py"
    catalog.mark_embedded([f"{a}#0"], "minilm")
    catalog.mark_embedded([f"{b}#0"], "other")
    assert sorted(catalog.embedding_marks([a, b, "code-/repo-gone.py"])) == [
        (f"{a}#0", "minilm"),
        (f"{a}#1", None),
        (f"{b}#0", "other"),
    ]
    asked = [f"{b}#0", f"{a}#0", f"{a}#1", "no-such-id"]
    assert catalog.unembedded_among(asked, "minilm") == [f"{b}#0", f"{a}#1"]
    assert catalog.embedding_marks([]) == [] and catalog.unembedded_among([], "minilm") == []
