"""Folder sources are synced: changed notes replaced, deleted ones removed from every index,
links stored and re-resolved over the whole folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memex_core.api import Memex
from tests.support.component_doubles import fast_memex
from tests.support.folder_doubles import FakeVaultPlugin, write_vault

NOTES = {
    "Home.note": "# Home\nStart at [[Gardening.note]] and [[Recipes.note#Soup]].\n"
    "See [[Missing note.note]].",
    "Gardening.note": "aliases: plants, growing\n# Gardening\nTomatoes need sun.\n"
    "# Pests\nAphids hate garlic spray. Back to [[Home.note]].",
    "Recipes.note": "# Recipes\nBread and such.\n# Soup\nLeek soup with potatoes. [[plants]]",
}


@pytest.fixture
def mx(tmp_path: Path) -> Memex:
    memex = fast_memex(tmp_path / "home")
    memex.registry.register_plugin(FakeVaultPlugin(), name="fakevault")
    yield memex
    memex.close()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(tmp_path / "vault", NOTES)


def keyword_ids(mx: Memex, query: str) -> set[str]:
    return {r.id for r in mx.search(query, mode="keyword", time_phrases=False)}


def links(mx: Memex) -> list[tuple[str, str | None]]:
    rows = mx.catalog.query("SELECT target, target_path FROM links ORDER BY target, heading")[1]
    return [(r[0], r[1]) for r in rows]


def bump(path: Path, text: str) -> None:
    stat = path.stat()
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_first_sync_stores_documents_fragments_and_resolved_links(mx: Memex, vault: Path) -> None:
    report = mx.ingest(vault)
    assert sorted(f.status for f in report.files) == ["new"] * 3
    assert report.fragments_added == 5
    assert mx.catalog.count_fragments() == 5
    assert links(mx) == [
        ("Gardening.note", "Gardening.note"),
        ("Home.note", "Home.note"),
        ("Missing note.note", None),  # kept, with no path
        ("Recipes.note", "Recipes.note"),
        ("plants", "Gardening.note"),  # by alias
    ]
    assert keyword_ids(mx, "aphids garlic")
    assert mx.vector_store.count() == 5


def test_an_unchanged_resync_does_nothing(mx: Memex, vault: Path) -> None:
    mx.ingest(vault)
    before = mx.catalog.query("SELECT id, seq FROM fragments ORDER BY seq")[1]
    report = mx.ingest(vault)
    assert [f.status for f in report.files] == ["unchanged"] * 3
    assert report.fragments_added == 0 and not report.removed_ids
    assert mx.catalog.query("SELECT id, seq FROM fragments ORDER BY seq")[1] == before


def test_touched_but_identical_note_is_unchanged(mx: Memex, vault: Path) -> None:
    mx.ingest(vault)
    bump(vault / "Home.note", NOTES["Home.note"])
    report = mx.ingest(vault)
    assert [f.status for f in report.files] == ["unchanged"] * 3


def test_a_changed_note_is_replaced_in_every_index(mx: Memex, vault: Path) -> None:
    mx.ingest(vault)
    old_pests = keyword_ids(mx, "aphids garlic")
    kept = keyword_ids(mx, "tomatoes sun")
    bump(
        vault / "Gardening.note",
        "aliases: plants\n# Gardening\nTomatoes need sun.\n# Pests\nSlugs hate copper tape.",
    )
    report = mx.ingest(vault)
    statuses = {Path(f.path).name: f.status for f in report.files}
    assert statuses == {
        "Gardening.note": "updated",
        "Home.note": "unchanged",
        "Recipes.note": "unchanged",
    }
    assert report.fragments_added == 1 and report.removed_ids == sorted(old_pests)
    assert not keyword_ids(mx, "aphids garlic")
    assert keyword_ids(mx, "slugs copper")
    assert keyword_ids(mx, "tomatoes sun") == kept  # the unchanged section kept its id
    assert mx.vector_store.count() == 5
    assert not (set(mx.vector_store.vectors) & old_pests)  # type: ignore[attr-defined]
    # The link from the old Pests section went with it; the alias "growing" is gone.
    assert ("Home.note", "Home.note") not in links(mx)


def test_a_deleted_note_leaves_every_index_and_its_links_stop_resolving(
    mx: Memex, vault: Path
) -> None:
    mx.ingest(vault)
    gone = {f.id for f in mx.catalog.conversation_fragments(_doc_id(mx, "Gardening.note"))}
    (vault / "Gardening.note").unlink()
    report = mx.ingest(vault)
    removed = [f for f in report.files if f.status == "removed"]
    assert [Path(f.path).name for f in removed] == ["Gardening.note"]
    assert removed[0].fragments_removed == 2
    assert set(report.removed_ids) == gone
    assert not mx.get(list(gone))
    assert not keyword_ids(mx, "tomatoes")
    assert mx.vector_store.count() == 3
    assert ("Gardening.note", None) in links(mx) and ("plants", None) in links(mx)


def test_a_new_note_makes_an_old_unresolved_link_resolve(mx: Memex, vault: Path) -> None:
    mx.ingest(vault)
    write_vault(vault, {"Missing note.note": "# Missing note\nNow here."})
    mx.ingest(vault)
    assert ("Missing note.note", "Missing note.note") in links(mx)


def test_a_broken_note_fails_alone_and_keeps_its_last_good_version(mx: Memex, vault: Path) -> None:
    mx.ingest(vault)
    bump(vault / "Recipes.note", "BROKEN\n# Recipes")
    report = mx.ingest(vault)
    failed = report.failed
    assert len(failed) == 1 and "marked BROKEN" in (failed[0].error or "")
    assert "line 1" in (failed[0].error or "")
    assert keyword_ids(mx, "leek soup")  # nothing already stored is lost


def test_the_catalog_records_document_names_for_explore(mx: Memex, vault: Path) -> None:
    mx.ingest(vault)
    (doc,) = mx.catalog.find_documents("plants")
    assert doc.path == "Gardening.note" and doc.aliases == ("plants", "growing")
    assert mx.catalog.find_documents("gardening")[0].path == "Gardening.note"
    assert mx.catalog.find_documents("Gardening.note")[0].title == "Gardening"
    assert mx.catalog.find_documents("nothing") == []


def _doc_id(mx: Memex, path: str) -> str:
    return mx.catalog.find_documents(path)[0].id


def test_a_vault_inside_a_walked_folder_is_synced_as_a_vault(tmp_path: Path) -> None:
    import shutil

    outer = tmp_path / "everything"
    vault = outer / "notes"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Home.md").write_text("# Home\nSee [[Other]] and [[Nowhere]].\n", encoding="utf-8")
    (vault / "Other.md").write_text("# Other\nSourdough starter notes.\n", encoding="utf-8")
    examples = Path(__file__).resolve().parents[2] / "examples" / "exports"
    shutil.copy(examples / "chatgpt-conversations.json", outer / "conversations.json")
    mx = fast_memex(tmp_path / "home")
    report = mx.ingest(outer, embed=False)
    assert not report.failed
    kinds = sorted({f.source_kind for f in report.files if f.status == "new"})
    assert kinds == ["chatgpt", "obsidian"]
    assert mx.catalog.count_documents() == 2
    assert sorted(links(mx)) == [("Nowhere", None), ("Other", "Other.md")]
    assert [f.status for f in mx.ingest(outer, embed=False).files] == ["unchanged"] * 3
    mx.close()
