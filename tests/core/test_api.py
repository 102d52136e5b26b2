"""The Memex facade end to end: built-in sources, bm25 and rrf, fast doubles for vectors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memex_core.api import Memex, make_filters
from memex_core.errors import EmbedderMismatchError, MemexError
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import (
    DAY,
    T0,
    app_turn,
    chatgpt_conversation,
    write_chatgpt_export,
)


@pytest.fixture
def export(tmp_path: Path) -> Path:
    return write_chatgpt_export(tmp_path / "exports" / "conversations.json")


def test_ingest_then_search_in_every_mode(fast_mx: Memex, export: Path) -> None:
    report = fast_mx.ingest(export)
    assert report.count("new") == 1 and report.fragments_added == 6
    assert report.embedded == 6 and report.embedding_skipped_reason is None

    keyword = fast_mx.search("database locked", mode="keyword")
    assert keyword[0].fragment.conversation_id == "conv-sqlite"
    assert keyword[0].ranks == {"keyword": 1, "semantic": None}

    semantic = fast_mx.search("sourdough bread proof fridge", mode="semantic")
    assert semantic[0].fragment.conversation_id == "conv-bread"
    assert semantic[0].ranks["keyword"] is None

    hybrid = fast_mx.search("lisbon trams sintra")
    top = hybrid[0]
    assert top.fragment.conversation_id == "conv-lisbon"
    assert top.ranks["keyword"] is not None and top.ranks["semantic"] is not None
    assert top.scores["keyword"] > 0 and -1 <= top.scores["semantic"] <= 1
    assert len({r.id for r in hybrid}) == len(hybrid)


def test_second_ingest_adds_nothing(fast_mx: Memex, export: Path) -> None:
    fast_mx.ingest(export)
    again = fast_mx.ingest(export)
    assert again.count("unchanged") == 1 and again.fragments_added == 0
    copy = export.parent / "copy.json"
    copy.write_bytes(export.read_bytes())
    third = fast_mx.ingest(copy)
    assert third.fragments_added == 0
    assert fast_mx.stats().fragments == 6


def test_grown_export_adds_only_the_new_messages(fast_mx: Memex, tmp_path: Path) -> None:
    first = write_chatgpt_export(tmp_path / "a.json")
    fast_mx.ingest(first)
    more = [
        *json.loads(first.read_text()),
        chatgpt_conversation("conv-new", "New", [("user", "brand new question", T0 + 400 * DAY)]),
    ]
    second = write_chatgpt_export(tmp_path / "b.json", more)
    assert fast_mx.ingest(second).fragments_added == 1
    assert fast_mx.search("brand new question", mode="keyword")[0].fragment.title == "New"


def test_filters_are_applied_before_top_k(fast_mx: Memex, export: Path) -> None:
    fast_mx.ingest(export)
    only_user = fast_mx.search("sourdough lisbon sqlite", role="user", limit=10)
    assert only_user.results and {r.fragment.role for r in only_user} == {"user"}
    recent = fast_mx.search("sourdough lisbon sqlite", since=T0 + 100 * DAY)
    assert {r.fragment.conversation_id for r in recent} == {"conv-lisbon"}
    early = fast_mx.search("sourdough lisbon sqlite", until="2024-01-01")
    assert {r.fragment.conversation_id for r in early} == {"conv-sqlite"}
    conv = fast_mx.search("the", mode="semantic", conversation="conv-bread")
    assert {r.fragment.conversation_id for r in conv} == {"conv-bread"}
    assert fast_mx.search("sqlite", source="claude_ai").results == []


def test_semantic_weight_extremes(fast_mx: Memex, export: Path) -> None:
    fast_mx.ingest(export)
    keyword_only = fast_mx.search("database locked", semantic_weight=0.0)
    assert all(r.ranks["semantic"] is None for r in keyword_only)
    semantic_only = fast_mx.search("database locked", semantic_weight=1.0)
    assert all(r.ranks["keyword"] is None for r in semantic_only)
    with pytest.raises(ValueError):
        fast_mx.search("x", semantic_weight=1.5)


def test_get_returns_fragments_in_requested_order(fast_mx: Memex, export: Path) -> None:
    fast_mx.ingest(export)
    ids = [r.id for r in fast_mx.search("sqlite lisbon sourdough", mode="keyword")]
    assert [f.id for f in fast_mx.get([*reversed(ids), "nope"])] == list(reversed(ids))


def test_bad_file_is_reported_and_does_not_stop_the_others(
    fast_mx: Memex, export: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "exports" / "broken.json"
    broken.write_text('[{"mapping": {"a": ')
    stray = tmp_path / "notes.txt"
    stray.write_text("not an export")
    report = fast_mx.ingest(broken, export, stray, tmp_path / "missing.json")
    status = {Path(f.path).name: (f.status, f.error) for f in report.files}
    assert status["conversations.json"][0] == "new"
    assert status["broken.json"][0] == "failed" and status["broken.json"][1]
    assert status["notes.txt"][0] == "failed" and "no source can read" in status["notes.txt"][1]
    assert status["missing.json"] == ("failed", "no such file or folder")
    assert fast_mx.stats().fragments == 6


def test_folder_ingest_reports_unknown_files_as_skipped(fast_mx: Memex, export: Path) -> None:
    (export.parent / "README.txt").write_text("hello")
    report = fast_mx.ingest(export.parent)
    assert sorted((Path(f.path).name, f.status, f.error) for f in report.files) == [
        ("README.txt", "skipped", "no source reads this format"),
        ("conversations.json", "new", None),
    ]
    assert not report.failed


def test_no_results_guidance_names_the_filter(fast_mx: Memex, export: Path) -> None:
    fast_mx.ingest(export)
    filters = make_filters(source="claude_ai")
    lines = fast_mx.explain_empty("sqlite", "hybrid", filters)
    assert lines[0] == "No results among 6 fragments."
    assert any("--source filter removed every match" in line for line in lines)
    assert any("Embedding coverage: 6/6" in line for line in lines)


def test_empty_memex_guidance(fast_mx: Memex) -> None:
    assert "is empty" in fast_mx.explain_empty("x", "hybrid", make_filters())[0]
    assert fast_mx.search("anything").results == []


def test_index_catches_up_after_an_interrupted_writer(memex_home: Path, export: Path) -> None:
    mx = fast_memex(memex_home)
    mx.ingest(export)
    # Simulate a crash after the catalog commit but before the index flush.
    keyword_dir = memex_home / "index" / "bm25"
    import shutil

    shutil.rmtree(keyword_dir)
    mx.close()
    reader = fast_memex(memex_home)
    assert reader.search("sourdough", mode="keyword").results
    assert reader.stats().keyword_indexed == 6


def test_rebuild_recreates_the_keyword_index(fast_mx: Memex, export: Path) -> None:
    fast_mx.ingest(export)
    assert fast_mx.rebuild() == {"keyword": 6}
    assert fast_mx.search("sourdough", mode="keyword")[0].fragment.conversation_id == "conv-bread"


def test_backfill_embeds_what_ingest_skipped(fast_mx: Memex, export: Path) -> None:
    report = fast_mx.ingest(export, embed=False)
    assert report.embedded == 0 and "backfill" in (report.embedding_skipped_reason or "")
    assert fast_mx.stats().embedded == 0
    assert fast_mx.backfill(batch_size=4) == 6
    assert fast_mx.backfill() == 0
    assert fast_mx.stats().embedded == 6


def test_embedder_mismatch_is_a_clear_error(fast_mx: Memex, export: Path) -> None:
    fast_mx.ingest(export)
    fast_mx.catalog.set_setting("embedder", "other-model:768")
    with pytest.raises(EmbedderMismatchError, match=r"memex rebuild --vectors"):
        fast_mx.search("sqlite", mode="semantic")


def test_unknown_mode_and_bad_limit(fast_mx: Memex) -> None:
    with pytest.raises(MemexError, match="Unknown search mode"):
        fast_mx.search("x", mode="fuzzy")
    with pytest.raises(MemexError):
        fast_mx.search("x", limit=0)


def test_stats(fast_mx: Memex, export: Path) -> None:
    fast_mx.ingest(export)
    stats = fast_mx.stats()
    assert (stats.fragments, stats.conversations, stats.embedded) == (6, 3, 6)
    assert stats.by_source == {"chatgpt": 6}
    assert stats.by_role == {"user": 3, "assistant": 3}
    assert (stats.embedder, stats.dimension) == ("hashing", 64)
    assert stats.first_timestamp == T0


def test_add_fragments_from_code(fast_mx: Memex) -> None:
    fragments = app_turn("The kettle whistles at noon")
    assert fast_mx.add_fragments(fragments, origin="app:test") == 1
    assert fast_mx.add_fragments(fragments, origin="app:test") == 0
    assert fast_mx.search("kettle", mode="keyword")[0].fragment.source_kind == "app"
    assert fast_mx.stats().embedded == 1


def test_source_settings_come_from_config(memex_home: Path) -> None:
    mx = fast_memex(memex_home, source={"claude_ai": {"include_thinking": True}})
    claude = next(s for s in mx.sources() if s.source_kind == "claude_ai")
    assert claude.include_thinking is True


def test_readers_are_not_blocked_by_a_writer(memex_home: Path, export: Path) -> None:
    writer = fast_memex(memex_home)
    writer.ingest(export)
    reader = fast_memex(memex_home)
    with writer.lock, writer.catalog.transaction() as db:
        # A write is under way: lock held and an open write transaction.
        db.execute("UPDATE fragments SET title = 'changing' WHERE role = 'user'")
        hits = reader.search("sourdough", mode="keyword")
        assert hits[0].fragment.title == "Sourdough"  # the last committed state
        assert reader.stats().fragments == 6


def test_a_second_writer_is_told_who_holds_the_lock(memex_home: Path, export: Path) -> None:
    from memex_core.errors import WriteLockedError

    first = fast_memex(memex_home)
    first.catalog  # noqa: B018 - create the catalog before taking the lock
    second = fast_memex(memex_home)
    with first.lock, pytest.raises(WriteLockedError, match="Another memex process is writing"):
        second.ingest(export)
    assert second.ingest(export).fragments_added == 6


def test_a_time_phrase_that_leaves_nothing_falls_back_to_the_words(fast_mx: Memex) -> None:
    # Undated, as many chats and notes are.
    fragments = app_turn("The kettle whistles at noon", timestamp=None)
    fast_mx.add_fragments(fragments, origin="app:test")
    for mode in ("keyword", "semantic", "hybrid"):
        found = fast_mx.search("kettle last week", mode=mode)
        assert [r.fragment.content for r in found] == ["The kettle whistles at noon"]
        assert "matched nothing" in found.notes[0] and "last week" in found.notes[0]
    dated = fast_mx.search("kettle", mode="keyword", since="2001-01-01")
    assert not dated.results  # an explicit filter is never dropped
