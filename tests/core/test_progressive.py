"""Progressive retrieval: compact hits, timeline, get, explore and context packs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from memex_core.api import Memex
from memex_core.cli import cli
from memex_core.errors import MemexError
from tests.support.component_doubles import fast_memex
from tests.support.folder_doubles import FakeVaultPlugin, write_vault

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "exports"
NOTES = {
    "Databases.note": "# Databases\nWe keep the catalog in SQLite with WAL mode.\n"
    "Locking details in [[Locking.note#Busy timeout]] and [[Backups.note]].",
    "Locking.note": "# Locking\nOne writer at a time.\n# Busy timeout\n"
    "Set busy_timeout so a second writer waits instead of failing.",
    "Backups.note": "# Backups\nCopy the database with the online backup API. [[Databases.note]]",
    "Gardening.note": "# Gardening\nTomatoes and basil. Nothing to do with databases.",
}


@pytest.fixture
def mx(tmp_path: Path) -> Memex:
    memex = fast_memex(tmp_path / "home")
    memex.registry.register_plugin(FakeVaultPlugin(), name="fakevault")
    memex.ingest(EXAMPLES)
    memex.ingest(write_vault(tmp_path / "vault", NOTES))
    yield memex
    memex.close()


def test_compact_hits_carry_id_title_snippet_score_and_why(mx: Memex) -> None:
    hits, notes = mx.compact_search("database is locked", limit=3, time_phrases=False)
    assert len(hits) == 3 and notes == []
    top = hits[0]
    assert top.id and top.title and top.conversation_id
    assert len(top.snippet) <= 202
    assert "keyword #" in top.why or "meaning #" in top.why
    assert top.score > 0
    full = mx.get([top.id])[0]
    assert len(full.content) >= len(top.snippet.strip("…"))


def test_a_keyword_hit_says_which_words_matched(mx: Memex) -> None:
    hits, _ = mx.compact_search("busy_timeout", limit=1, mode="keyword")
    assert hits[0].why.startswith("keyword #1 on busy_timeout")
    assert hits[0].title == "Locking > Busy timeout"


def test_timeline_returns_neighbours_in_order(mx: Memex) -> None:
    hit = mx.search("cron job database is locked", mode="keyword", limit=1)[0]
    conversation = mx.catalog.conversation_fragments(hit.fragment.conversation_id)
    index = [f.id for f in conversation].index(hit.id)
    line = mx.timeline(hit.id, before=1, after=2)
    assert line.fragments == conversation[max(0, index - 1) : index + 3]
    assert (
        line.offsets[line.fragments.index(next(f for f in line.fragments if f.id == hit.id))] == 0
    )
    assert line.offsets == list(range(-min(index, 1), len(line.fragments) - min(index, 1)))


def test_timeline_of_a_note_section_walks_the_note(mx: Memex) -> None:
    hit = mx.search("busy_timeout", mode="keyword", limit=1)[0]
    line = mx.timeline(hit.id, before=5, after=5)
    assert [f.metadata.get("heading") for f in line.fragments] == ["Locking", "Busy timeout"]
    assert line.offsets == [-1, 0]


def test_timeline_of_an_unknown_id_says_where_ids_come_from(mx: Memex) -> None:
    with pytest.raises(MemexError, match="memex dig"):
        mx.timeline("nope")


def test_explore_lists_outlinks_backlinks_and_similar_unlinked_notes(mx: Memex) -> None:
    found = mx.explore("Databases")
    assert [(o.target, o.heading, o.target_path) for o in found.outlinks] == [
        ("Locking.note", "Busy timeout", "Locking.note"),
        ("Backups.note", None, "Backups.note"),
    ]
    assert [b.source_path for b in found.backlinks] == ["Backups.note"]
    assert "[[Databases.note]]" in found.backlinks[0].context
    similar = [s.path for s in found.similar]
    assert "Gardening.note" in similar  # the only note not linked either way
    assert not {"Locking.note", "Backups.note", "Databases.note"} & set(similar)
    concise = found.to_dict(concise=True)
    # The section a link points at stays: two links to one note's sections are two links.
    assert concise["outlinks"][0] == {
        "path": "Locking.note",
        "title": "Locking",
        "anchor": "#Busy timeout",
    }
    assert set(concise["note"]) == {"path", "title"}


def test_explore_names_the_problem_for_unknown_notes(mx: Memex) -> None:
    with pytest.raises(MemexError, match="No note called 'Nowhere'"):
        mx.explore("Nowhere")


def test_context_stays_in_budget_gives_reasons_and_is_deterministic(mx: Memex) -> None:
    pack = mx.context("sqlite locking busy timeout", budget_chars=1200)
    assert pack.used_chars <= 1200
    reasons = [i.reason for i in pack.items]
    assert reasons[0] == "query_match"
    assert set(reasons) <= {"query_match", "linked", "recency"}
    assert reasons == sorted(reasons, key=["query_match", "linked", "recency"].index)
    again = mx.context("sqlite locking busy timeout", budget_chars=1200)
    assert again.to_dict() == pack.to_dict()
    assert len({i.id for i in pack.items}) == len(pack.items)


def test_context_follows_forward_links_from_the_seeds(mx: Memex) -> None:
    mx.config = replace(mx.config, raw={**mx.config.raw, "context": {"seed_limit": 1}})
    pack = mx.context("catalog kept in SQLite with WAL", budget_chars=3000, source="fakevault")
    assert [(i.reason, i.title) for i in pack.items[:3]] == [
        ("query_match", "Databases > Databases"),
        ("linked", "Locking > Busy timeout"),  # the linked heading, not the note's start
        ("linked", "Backups > Backups"),
    ]
    assert pack.items[1].detail == "linked from Databases > Databases"


def test_context_fills_with_recent_material(mx: Memex) -> None:
    pack = mx.context("tomatoes basil", budget_chars=8000)
    recent = [i for i in pack.items if i.reason == "recency"]
    assert recent
    stamps = [i.timestamp for i in recent if i.timestamp is not None]
    assert stamps == sorted(stamps, reverse=True)


def test_context_cuts_long_items_and_says_so(mx: Memex) -> None:
    pack = mx.context("WAL mode readers writer", budget_chars=300)
    assert pack.used_chars <= 300
    assert any(i.truncated for i in pack.items)


def test_context_refuses_a_budget_too_small_to_hold_anything(mx: Memex) -> None:
    with pytest.raises(MemexError, match="at least"):
        mx.context("x", budget_chars=10)


# -- CLI ------------------------------------------------------------------------------


@pytest.fixture
def run(mx: Memex, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("memex_core.cli.progressive.open_memex", lambda ctx: mx)
    monkeypatch.setattr("memex_core.cli.search.open_memex", lambda ctx: mx)

    def invoke(*args: str, code: int = 0) -> str:
        result = CliRunner().invoke(cli, list(args))
        assert result.exit_code == code, result.output
        return result.output

    return invoke


def test_cli_concise_search_timeline_get_chain(run) -> None:
    hits = json.loads(run("keyword", "busy_timeout", "--concise", "--format", "json"))
    assert set(hits[0]) == {
        "id",
        "title",
        "conversation_id",
        "source_kind",
        "role",
        "timestamp",
        "snippet",
        "score",
        "why",
        "evidence",
    }
    assert hits[0]["evidence"] == "keyword"
    line = json.loads(run("timeline", hits[0]["id"], "--format", "json"))
    assert [i["offset"] for i in line["items"]] == [-1, 0]
    full = json.loads(run("get", hits[0]["id"], "--format", "json"))
    assert "busy_timeout" in full[0]["content"]
    assert "Busy timeout" in run("timeline", hits[0]["id"])


def test_cli_get_reports_unknown_ids_with_status_1(run) -> None:
    out = run("get", "nope", code=1)
    assert "No fragment with id 'nope'" in out


def test_cli_explore_and_context(run) -> None:
    data = json.loads(run("explore", "Databases.note", "--format", "json", "--concise"))
    assert {"path": "Backups.note", "title": "Backups"} in data["backlinks"]
    assert "links to" in run("explore", "Databases")
    pack = json.loads(run("context", "busy timeout", "--budget", "500", "--format", "json"))
    assert pack["used_chars"] <= 500 and pack["items"][0]["reason"] == "query_match"
    assert "query_match" in run("context", "busy timeout", "--budget", "500")
