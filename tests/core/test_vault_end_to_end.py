"""The real Obsidian Help vault and agent transcripts through the whole Memex: sync,
links, explore, timeline, context, hub ranking, time phrases."""

from __future__ import annotations

import shutil
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memex_core.api import Memex
from tests.support._data import shared_data_dir
from tests.support.component_doubles import fast_memex

UNRESOLVED = {
    ("Example", None),
    ("Example", "Details"),
    ("Example.md", None),  # the two demo markdown links [Custom name](Example.md)...
    ("Example.md", "Details"),
    ("obsidian-cli.mp4", "interface"),  # the attachment left out of the shared copy
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("vault") / "en"
    shutil.copytree(shared_data_dir("obsidian-help", "en"), copy)
    return copy


@pytest.fixture(scope="module")
def mx(vault: Path, tmp_path_factory: pytest.TempPathFactory) -> Memex:
    memex = fast_memex(tmp_path_factory.mktemp("home"))
    report = memex.ingest(vault)
    assert not report.failed
    yield memex
    memex.close()


def test_every_note_is_a_document_and_links_resolve_like_obsidian(mx: Memex) -> None:
    assert mx.catalog.query("SELECT COUNT(*) FROM documents")[1] == [(173,)]
    total, unresolved = mx.catalog.count_links()
    assert total > 1800
    rows = mx.catalog.query("SELECT target, heading FROM links WHERE target_path IS NULL")[1]
    assert set(rows) == UNRESOLVED and unresolved == 7  # two of the demo links appear twice
    duplicates = mx.catalog.query(
        "SELECT DISTINCT target, target_path FROM links WHERE target IN "
        "('Obsidian Sync/Security and privacy', 'Obsidian Publish/Security and privacy')"
    )[1]
    assert {(t, p) for t, p in duplicates} == {
        ("Obsidian Sync/Security and privacy", "Obsidian Sync/Security and privacy.md"),
        ("Obsidian Publish/Security and privacy", "Obsidian Publish/Security and privacy.md"),
    }


def test_an_unchanged_vault_resyncs_as_unchanged(mx: Memex, vault: Path) -> None:
    report = mx.ingest(vault)
    assert report.count("unchanged") == 173 and report.fragments_added == 0


def test_explore_a_real_hub(mx: Memex) -> None:
    found = mx.explore("Internal links", similar=5)
    assert found.note.path == "Linking notes and files/Internal links.md"
    assert len(found.backlinks) >= 10
    unresolved = [o for o in found.outlinks if o.target_path is None]
    assert {(o.target, o.heading) for o in unresolved} == UNRESOLVED - {
        ("obsidian-cli.mp4", "interface")
    }
    assert len(found.similar) == 5
    linked = {o.target_document for o in found.outlinks} | {
        b.source_document for b in found.backlinks
    }
    assert not linked & {s.document_id for s in found.similar}
    # by alias: "Folding.md" has the plain-string alias "Fold"
    assert mx.explore("Fold", similar=0).note.path.endswith("Folding.md")


def test_timeline_walks_sections_of_a_real_note(mx: Memex) -> None:
    hit = mx.search("link to a block in a note", mode="keyword", limit=1)[0]
    line = mx.timeline(hit.id, before=1, after=1)
    assert all(f.conversation_id == hit.fragment.conversation_id for f in line.fragments)
    assert 0 in line.offsets and len(line.fragments) >= 2


def test_context_on_the_vault_follows_links(mx: Memex) -> None:
    pack = mx.context("how do I link to a heading in another note", budget_chars=2000)
    reasons = {i.reason for i in pack.items}
    assert "query_match" in reasons and "linked" in reasons
    assert pack.used_chars <= 2000


def test_the_hubs_ranker_lifts_notes_many_others_link_to(mx: Memex) -> None:
    plain = mx.search("settings", mode="hybrid", limit=10, semantic_weight=0.0)
    hubs = fast_memex(mx.home, ranker={"hubs": {"boost": 1.0}})
    hubs.config = replace(hubs.config, components={**hubs.config.components, "ranker": "hubs"})
    lifted = hubs.search("settings", mode="hybrid", limit=10, semantic_weight=0.0)
    counts = mx.catalog.backlink_counts([r.id for r in [*plain, *lifted]])
    assert [r.id for r in lifted] != [r.id for r in plain]
    assert sum(counts[r.id] for r in lifted.results[:3]) > sum(
        counts[r.id] for r in plain.results[:3]
    )
    hubs.close()


def test_a_time_phrase_becomes_a_filter(mx: Memex) -> None:
    found = mx.search("internal links modified last week", mode="keyword")
    assert found.notes and "last week" in found.notes[0]
    week_ago = (datetime.now() - timedelta(days=14)).timestamp()
    assert all((r.fragment.timestamp or 0) >= week_ago for r in found)
    kept = mx.search("internal links last week", mode="keyword", time_phrases=False)
    assert not kept.notes


def test_agent_transcripts_and_notes_live_side_by_side(mx: Memex) -> None:
    report = mx.ingest(
        shared_data_dir("exports", "claude_code"), shared_data_dir("exports", "codex")
    )
    assert not report.failed
    kinds = mx.stats().by_source
    assert {"obsidian", "claude_code", "codex"} <= set(kinds)
    compacted = mx.catalog.query(
        "SELECT COUNT(*) FROM fragments WHERE role='tool' AND index_text IS NOT NULL "
        "AND length(index_text) < length(content)"
    )[1][0][0]
    assert compacted > 0  # long tool output is indexed compacted, kept whole
