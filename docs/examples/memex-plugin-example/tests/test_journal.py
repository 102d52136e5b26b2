"""The journal source on its own, then inside a real memex home (keyword search only, so the
tests need no embedding model)."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from memex_core import Memex
from memex_core.domain import SourceError
from memex_core.plugins import load_registry
from memex_core.source_kit import SkippedItemWarning

import memex_journal
from memex_journal.source import JournalSource

SAMPLE = Path(__file__).parent.parent / "sample" / "work.journal"


def write(tmp_path: Path, text: str, name: str = "notes.journal") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_sample_entries_become_note_fragments() -> None:
    fragments = list(JournalSource().ingest(SAMPLE))
    assert [f.title for f in fragments] == [
        "Planning the upload service rewrite",
        "Fixed the flaky upload test",
        "Sourdough, third attempt",
    ]
    assert {f.role for f in fragments} == {"note"}
    assert {f.conversation_id for f in fragments} == {"journal:work"}
    assert fragments[1].timestamp == datetime(2024, 5, 3, 9, 30, tzinfo=UTC).timestamp()
    assert fragments[2].timestamp == datetime(2024, 5, 4, tzinfo=UTC).timestamp()
    assert fragments[1].content.startswith("Fixed the flaky upload test\n\nThe retry decorator")
    assert fragments[1].provenance.locator == "journal:work/2024-05-03T09:30"


def test_appending_an_entry_keeps_the_earlier_ids(tmp_path: Path) -> None:
    path = write(tmp_path, "[2024-01-01] New year\nQuiet day.\n")
    before = [f.id for f in JournalSource().ingest(path)]
    path.write_text(path.read_text() + "\n[2024-01-02 10:00] Back to work\nInbox zero.\n")
    after = [f.id for f in JournalSource().ingest(path)]
    assert after[0] == before[0] and len(after) == 2


def test_entries_with_the_same_stamp_get_distinct_ids(tmp_path: Path) -> None:
    path = write(tmp_path, "[2024-01-01] One\nsame\n[2024-01-01] Two\nsame\n")
    fragments = list(JournalSource().ingest(path))
    assert len({f.id for f in fragments}) == 2
    assert fragments[1].metadata["message_id"] == "2024-01-01@3"


def test_long_entries_are_split_into_linked_chunks(tmp_path: Path) -> None:
    body = "\n\n".join(f"Paragraph {n} " + "word " * 30 for n in range(10))
    path = write(tmp_path, f"[2024-01-01] Long\n{body}\n")
    chunks = list(JournalSource(max_chars=300).ingest(path))
    assert len(chunks) > 1
    assert chunks[0].metadata["next_id"] == chunks[1].id


def test_text_before_the_first_header_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "stray line\n[2024-01-01] Entry\nbody\n")
    with pytest.warns(SkippedItemWarning, match="lines 1-1"):
        fragments = list(JournalSource().ingest(path))
    assert [f.title for f in fragments] == ["Entry"]


def test_a_file_without_entries_is_an_error_that_shows_the_format(tmp_path: Path) -> None:
    path = write(tmp_path, "just some text\n")
    with pytest.raises(SourceError, match=r"\[2024-05-03 09:30\] Title"):
        list(JournalSource().ingest(path))


def test_a_file_that_is_not_utf8_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "latin.journal"
    path.write_bytes("[2024-01-01] Café\n".encode("latin-1"))
    with pytest.raises(SourceError, match="not UTF-8"):
        list(JournalSource().ingest(path))


def test_can_handle_only_journal_files_with_a_header(tmp_path: Path) -> None:
    source = JournalSource()
    assert source.can_handle(SAMPLE)
    assert not source.can_handle(write(tmp_path, "[2024-01-01] Entry\n", "notes.txt"))
    assert not source.can_handle(write(tmp_path, "no header here\n", "plain.journal"))
    assert not source.can_handle(tmp_path / "missing.journal")


def keyword_memex(home: Path, monkeypatch: pytest.MonkeyPatch) -> Memex:
    """A memex home with the built-in BM25 store and this plugin registered from code."""
    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "bm25,rrf")
    registry = load_registry()
    registry.register_plugin(memex_journal, name="journal")
    return Memex(home, registry=registry)


def test_memex_ingests_and_finds_journal_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with keyword_memex(tmp_path / "home", monkeypatch) as mx:
        report = mx.ingest(SAMPLE, embed=False)
        assert report.count("new") == 1 and report.fragments_added == 3
        hits = mx.search("retry decorator timeout", mode="keyword", limit=1)
        assert hits[0].fragment.title == "Fixed the flaky upload test"
        assert mx.ingest(SAMPLE, embed=False).count("unchanged") == 1


def test_an_edited_entry_replaces_its_old_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, "[2024-01-01] Tea\nGreen tea in the morning.\n")
    with keyword_memex(tmp_path / "home", monkeypatch) as mx:
        mx.ingest(path, embed=False)
        path.write_text("[2024-01-01] Tea\nBlack tea in the morning.\n")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing is skipped
            report = mx.ingest(path, embed=False)
        assert report.count("updated") == 1
        assert not mx.search("green", mode="keyword")
        assert mx.search("black", mode="keyword")


def test_journal_check_lists_the_entries() -> None:
    cli = click.Group()
    memex_journal.register_commands(cli=cli)
    result = CliRunner().invoke(cli, ["journal-check", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    assert "3 entries, 2024-05-02T08:45 .. 2024-05-04" in result.output
    assert "Fixed the flaky upload test" in result.output
