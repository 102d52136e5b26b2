"""Schema v2: migration from v1 keeps data and orders it (SQLite's); sources that replace
changed files, the mtime shortcut and filtered recent fragments (on both catalog engines);
`memex sync`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memex_core.catalog import Catalog
from memex_core.catalog.schema import LATEST_VERSION, MIGRATIONS
from memex_core.domain import Fragment, Provenance, fragment_id
from memex_core.errors import MemexError
from memex_core.hookspecs import hookimpl
from tests.support.catalog_fixtures import home_memex, use_catalog
from tests.support.component_doubles import fast_memex


def test_a_v1_catalog_migrates_with_positions_in_insertion_order(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at REAL)")
    db.executescript(MIGRATIONS[0][1])
    db.execute("INSERT INTO schema_version VALUES (1, 0)")
    for seq, conv in enumerate(["a", "b", "a", "a", "b"], start=1):
        db.execute(
            "INSERT INTO fragments (seq, id, conversation_id, role, content, source_kind, "
            "source_path, source_id, locator) VALUES (?, ?, ?, 'user', 'x', 'k', 'p', 's', 'l')",
            (seq, f"f{seq}", conv),
        )
    db.commit()
    db.close()
    catalog = Catalog(path)
    assert catalog.needs_migration()
    catalog.migrate()
    assert catalog.schema_version() == LATEST_VERSION
    assert [f.id for f in catalog.conversation_fragments("a")] == ["f1", "f3", "f4"]
    rows = catalog.query("SELECT id, position FROM fragments ORDER BY seq")[1]
    assert rows == [("f1", 0), ("f2", 0), ("f3", 1), ("f4", 2), ("f5", 1)]
    assert catalog.get_many(["f1"])["f1"].index_text is None
    catalog.close()


class GrowingSource:
    """One turn per line; the last line may still be 'streaming' (ends with '...')."""

    source_kind = "growing"
    replace_changed_files = True

    def can_handle(self, path: Path) -> bool:
        return path.suffix == ".grow"

    def ingest(self, path: Path) -> Iterator[Fragment]:
        for number, line in enumerate(path.read_text().splitlines()):
            locator = f"{path.name}#{number}"
            yield Fragment(
                id=fragment_id(self.source_kind, path.stem, locator, line),
                conversation_id=path.stem,
                role="assistant",
                content=line,
                provenance=Provenance(self.source_kind, str(path), path.stem, locator),
                index_text=line.upper(),
            )


class GrowingPlugin:
    @hookimpl
    def register_sources(self, register: Any) -> None:
        register("growing", lambda context: GrowingSource())


@pytest.fixture
def mx(tmp_path: Path, engine: str, catalog_url: str):
    """A home on each catalog engine (tests/support/catalog_fixtures.py)."""
    use_catalog(tmp_path / "home", engine, catalog_url)
    memex = home_memex(tmp_path / "home")
    memex.registry.register_plugin(GrowingPlugin(), name="growing")
    yield memex
    memex.close()


def test_a_grown_transcript_replaces_its_unfinished_turn(mx: Any, tmp_path: Path) -> None:
    path = tmp_path / "session.grow"
    path.write_text("hello there\nlet me think...\n")
    mx.ingest(path)
    path.write_text("hello there\nlet me think about sqlite\nsecond answer\n")
    report = mx.ingest(path)
    (outcome,) = report.files
    assert outcome.status == "updated" and outcome.fragments_removed == 1
    assert outcome.fragments_added == 2
    contents = [f.content for f in mx.catalog.conversation_fragments("session")]
    assert contents == ["hello there", "let me think about sqlite", "second answer"]
    # The replaced turn is gone from the index ("second answer" matches through its turn
    # context, the turn before it).
    found = mx.search("think...", mode="keyword", time_phrases=False)
    assert {r.fragment.content for r in found} == {"let me think about sqlite", "second answer"}
    assert mx.vector_store.count() == 3


def test_index_text_is_what_the_indexes_see_and_content_is_kept(mx: Any, tmp_path: Path) -> None:
    path = tmp_path / "s.grow"
    path.write_text("Quiet words\n")
    mx.ingest(path)
    stored = mx.catalog.conversation_fragments("s")[0]
    assert stored.content == "Quiet words" and stored.index_text == "QUIET WORDS"
    mx.rebuild(keyword=True)
    assert len(mx.search("quiet", mode="keyword")) == 1


def test_an_unchanged_file_is_skipped_without_reading_it(
    mx: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.grow"
    path.write_text("one\n")
    mx.ingest(path)

    def no_hashing(_: Path) -> str:
        raise AssertionError("an unchanged file was hashed")

    monkeypatch.setattr("memex_core.services.ingest.sha256_of", no_hashing)
    assert [f.status for f in mx.ingest(path).files] == ["unchanged"]


def test_sync_reads_the_configured_paths(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[3] / "examples" / "exports"
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f"[sync]\npaths = [{json.dumps(str(examples))}, {json.dumps(str(tmp_path / 'gone'))}]\n"
    )
    from memex_core.cli import cli

    runner = CliRunner()
    env = {"MEMEX_HOME": str(home), "MEMEX_LOAD_PLUGINS": "chatgpt,claude_ai,bm25,rrf"}
    result = runner.invoke(cli, ["sync", "--no-embed", "--format", "json"], env=env)
    assert result.exit_code == 1, result.output  # the missing path is reported as failed
    summary = json.loads(result.output)
    assert summary["new"] == 2 and summary["failed"] == 1
    assert "no such file" in summary["files"][0]["error"]
    result = runner.invoke(cli, ["sync", "--no-embed", "--format", "json"], env=env)
    assert json.loads(result.output)["unchanged"] == 2


def test_sync_without_paths_explains_the_config(tmp_path: Path) -> None:
    mx = fast_memex(tmp_path / "home")
    with pytest.raises(MemexError, match=r"\[sync\]"):
        mx.sync()


def test_sync_rejects_a_malformed_paths_setting(tmp_path: Path) -> None:
    mx = fast_memex(tmp_path / "home", sync={"paths": "~/notes"})
    with pytest.raises(MemexError, match="must be a list of strings"):
        mx.sync()


@pytest.mark.parametrize(
    "filters",
    [
        {"source": "chatgpt"},
        {"role": ["user", "tool"]},
        {"since": "2024-03-12", "until": "2024-06-30"},
        {"source": "claude_ai", "role": "assistant", "since": "2024-01-01"},
    ],
)
def test_recent_fragments_filter_in_sql_as_search_filters_do(
    filters: dict[str, Any], tmp_path: Path, engine: str, catalog_url: str
) -> None:
    from memex_core.api import make_filters

    use_catalog(tmp_path / "home", engine, catalog_url)
    mx = home_memex(tmp_path / "home")
    mx.ingest(Path(__file__).resolve().parents[3] / "examples" / "exports", embed=False)
    wanted = make_filters(**filters)
    everything = mx.catalog.recent_fragments(1000)
    expected = [f.id for f in everything if wanted.matches(f)]
    assert expected  # the filter keeps something and drops something
    assert len(expected) < len(everything)
    assert [f.id for f in mx.catalog.recent_fragments(1000, 0, wanted)] == expected
    mx.close()
